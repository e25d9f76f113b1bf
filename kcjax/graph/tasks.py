"""The tasks stage: one task per DAG edge, its candidate-set size, cost and shard.

The edge task (u, v) of an oriented graph searches the common out-neighbours
``N+(u) ∩ N+(v)`` (its candidate set). Every family that walks edge tasks
sizes, classes and splits them here: the clique counters rank them for the
multi-device split, the dense formulation buckets them by size, and k-truss
support counting is the same per-edge intersection size.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Literal

import jax
import jax.numpy as jnp
import numpy as np

from kcjax._args import as_int, check_choice
from kcjax._native import call
from kcjax.graph.orient import DAG

Strategy = Literal["balanced", "round_robin"]
#: Accepted ``strategy`` values of :func:`split_tasks`.
STRATEGIES: tuple[str, ...] = ("balanced", "round_robin")

#: The balanced split ranks tasks by their exact candidate-set sizes
#: (:func:`candidate_sizes`: a merge per edge on the CPU) when the DAG has at
#: most this many wedges (com-dblp: 5.6e6); above it, by the bound
#: ``min(outdeg(u) - 1, outdeg(v)) >= |C|``, so splitting stays cheap on the
#: CPU where the exact sizes would take long (R-MAT scale 18 has 6.6e8
#: wedges, scale 22 billions).
SPLIT_MAX_WEDGES = 1 << 26


@jax.jit
def candidate_sizes(dag: DAG) -> jax.Array:
    """Candidate-set size of every edge task, exactly; jit-able.

    The task of edge (u, v) searches the common out-neighbours
    ``N+(u) ∩ N+(v)``; its size is the number of triangles whose two lowest
    vertices (in the DAG's order) are u and v. One FFI call (target
    ``kcjax_task_sizes``: a merge per edge on the CPU, a warp intersection
    per edge on a GPU).

    Args:
      dag: an oriented graph from :func:`kcjax.orient`.

    Returns:
      int32[num_edges]: ``|N+(src[e]) ∩ N+(indices[e])|`` for every edge e.
      The CPU handler rejects a malformed DAG; the CUDA handler, which does
      not copy the graph to the host, writes -1 for every edge whose ends or
      rows are out of range.
    """
    if dag.num_edges == 0:
        return jnp.zeros(0, jnp.int32)
    return call(
        "kcjax_task_sizes",
        jax.ShapeDtypeStruct((dag.num_edges,), jnp.int32),
        dag.indptr,
        dag.indices,
        dag.src,
    )


@functools.partial(jax.jit, static_argnames="max_wedges")
def split_sizes(dag: DAG, max_wedges: int = SPLIT_MAX_WEDGES) -> jax.Array:
    """The task sizes the balanced split ranks by; jit-able.

    :func:`candidate_sizes` when the DAG has at most ``max_wedges`` wedges,
    else the upper bound ``min(outdeg(u) - 1, outdeg(v))`` of every edge task
    (u, v) (decided on the device, so it works under jit).

    Args:
      dag: an oriented graph from :func:`kcjax.orient`.
      max_wedges: the largest wedge count sized exactly.

    Returns:
      int32[num_edges]: exact or bounded candidate-set sizes.
    """
    if dag.num_edges == 0:
        return jnp.zeros(0, jnp.int32)
    outdeg = dag.out_degrees()
    wedges = jnp.sum(outdeg[dag.indices].astype(jnp.float32))
    bound = jnp.minimum(outdeg[dag.src] - 1, outdeg[dag.indices]).astype(jnp.int32)
    return jax.lax.cond(wedges <= max_wedges, candidate_sizes, lambda _: bound, dag)


def task_costs(dag: DAG, kmax: int | None = None) -> jax.Array:
    """Estimated relative cost of every edge task; jit-able.

    A task with candidate set C (see :func:`candidate_sizes`) walks the
    cliques inside C, so its work grows as a power of ``|C|`` that rises with
    the clique size: the model is ``1 + |C|^p`` with
    ``p = clip(0.75 * kmax - 1.75, 1, 6)``, fitted to the CPU time per task
    on com-dblp (p = 1.25, 2, 2.75, 3.5 for kmax = 4..7; one unit is about
    0.05 µs there).

    Args:
      dag: an oriented graph from :func:`kcjax.orient`.
      kmax: the largest clique size that will be counted (``None``: 6).

    Returns:
      float32[num_edges]: the estimated cost of every edge task.
    """
    return _cost(candidate_sizes(dag), kmax)


def split_tasks(
    dag: DAG,
    num_shards: int,
    *,
    strategy: Strategy = "balanced",
    kmax: int | None = None,
    return_costs: bool = False,
) -> jax.Array | tuple[jax.Array, jax.Array]:
    """Deals the edge tasks of ``dag`` out to ``num_shards`` shards; jit-able.

    ``"balanced"`` sorts the tasks by candidate-set size, largest first, and
    deals them in snake order (shards 0..D-1, then D-1..0, ...): every shard
    gets the same number of tasks, the heavy ones spread evenly, and each
    shard's row runs heaviest first. The order depends only on integer sizes
    (:func:`split_sizes`: exact, or a bound on graphs with more than
    :data:`SPLIT_MAX_WEDGES` wedges), so every process of a multi-host run
    computes the same split.
    ``"round_robin"`` gives edge i to shard ``i mod D`` (the KCMiner paper's
    split), kept for comparison.

    Args:
      dag: an oriented graph from :func:`kcjax.orient`.
      num_shards: number of shards D (>= 1), e.g. the devices of a mesh axis.
      strategy: ``"balanced"`` or ``"round_robin"``.
      kmax: largest clique size to be counted; tunes the cost model of
        :func:`task_costs` (``None``: its default).
      return_costs: also return the estimated cost of every shard.

    Returns:
      int32[D, t] edge ids, ``t = max(1, ceil(num_edges / D))``, -1 padding;
      with ``return_costs`` also float32[D]: the estimated cost (sum of
      :func:`task_costs`) of every shard's tasks.

    Raises:
      ValueError: for ``num_shards < 1`` or an unknown strategy.
    """
    num_shards = as_int(num_shards, "num_shards", minimum=1)
    check_choice(strategy, "strategy", STRATEGIES)
    sizes = split_sizes(dag) if strategy == "balanced" or return_costs else None
    keys = sizes if strategy == "balanced" else None
    tasks = deal(keys, num_shards=num_shards, num_tasks=dag.num_edges)
    if not return_costs:
        return tasks
    return tasks, _shard_costs(sizes, tasks, kmax=kmax)


def split_roots(dag: DAG, num_shards: int, costs: jax.Array | None = None) -> jax.Array:
    """Deals the vertices of ``dag`` (the pivot counter's root tasks) to shards; jit-able.

    Sorted by ``costs`` (default: out-degree), largest first, ties by id, and
    dealt in snake order like the balanced :func:`split_tasks`: every shard
    gets the same number of roots and the heavy ones spread evenly.

    Args:
      dag: an oriented graph from :func:`kcjax.orient`.
      num_shards: number of shards D (>= 1).
      costs: float32[num_nodes] or int32[num_nodes] estimated cost of every root.

    Returns:
      int32[D, max(1, ceil(num_nodes / D))] vertex ids, -1 padding.

    Raises:
      ValueError: for ``num_shards < 1`` or costs of the wrong shape.
    """
    num_shards = as_int(num_shards, "num_shards", minimum=1)
    if costs is None:
        costs = dag.out_degrees()
    elif costs.shape != (dag.num_nodes,):
        raise ValueError(f"costs must have shape ({dag.num_nodes},), got {costs.shape}")
    return deal(costs, num_shards=num_shards, num_tasks=dag.num_nodes)


@functools.partial(jax.jit, static_argnames=("num_shards", "num_tasks"))
def deal(keys: jax.Array | None, *, num_shards: int, num_tasks: int) -> jax.Array:
    """int32[D, t]: task ids 0..num_tasks-1 dealt to ``num_shards`` rows; jit-able.

    With ``keys`` (one per task, larger = heavier) the tasks are sorted by
    key, largest first (ties by id), and dealt in snake order (rows 0..D-1,
    then D-1..0, ...); without, task i goes to row ``i mod D``. Rows are
    ``t = max(1, ceil(num_tasks / D))`` long, padded with -1.
    """
    width = max(1, -(-num_tasks // num_shards))
    ids = jnp.arange(num_tasks, dtype=jnp.int32)
    if keys is not None:
        _, order = jax.lax.sort((-keys, ids), num_keys=2)  # largest first, ties by id
    else:
        order = ids
    dealt = jnp.pad(order, (0, width * num_shards - num_tasks), constant_values=-1)
    dealt = dealt.reshape(width, num_shards)
    if keys is not None:  # snake: odd rounds deal from the last shard back
        odd = (jnp.arange(width) % 2 == 1)[:, None]
        dealt = jnp.where(odd, dealt[:, ::-1], dealt)
    return dealt.T


@functools.partial(jax.jit, static_argnames="kmax")
def _shard_costs(sizes: jax.Array, tasks: jax.Array, *, kmax: int | None) -> jax.Array:
    """float32[D]: the summed :func:`task_costs` of every shard's tasks."""
    cost = _cost(sizes, kmax)
    return jnp.sum(jnp.where(tasks >= 0, cost[jnp.maximum(tasks, 0)], 0.0), axis=1)


def size_classes(sizes: np.ndarray, bounds: Sequence[int]) -> list[np.ndarray]:
    """Task ids grouped by size class, on the host.

    Class i holds the tasks with ``bounds[i - 1] < size <= bounds[i]``
    (``bounds[-1]`` stands for 0 below the first class; tasks of size 0 or
    above the last bound belong to no class).

    Args:
      sizes: int[t] task sizes (candidate-set sizes, out-degrees, ...).
      bounds: ascending class bounds.

    Returns:
      One int32 array of task ids per class, ascending.
    """
    sizes = np.asarray(sizes)
    out, lower = [], 0
    for upper in bounds:
        out.append(np.flatnonzero((sizes > lower) & (sizes <= upper)).astype(np.int32))
        lower = upper
    return out


def _cost(sizes: jax.Array, kmax: int | None) -> jax.Array:
    k = 6 if kmax is None else kmax
    power = min(max(0.75 * k - 1.75, 1.0), 6.0)
    return 1.0 + sizes.astype(jnp.float32) ** power
