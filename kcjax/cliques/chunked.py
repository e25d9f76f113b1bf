"""When an eager clique count splits itself, and where the splits fall.

A count whose estimated time reaches :data:`LONG_COUNT_S` runs in chunks of
about :data:`CHUNK_S` seconds (:func:`kcjax._chunks.run_weighted_chunks`), so
Ctrl-C reaches Python between chunks and progress follows the work (the
heavy tasks of a degree order come last: counting tasks showed 92% after 2 s
of a 42 s count). A shorter count stays one dispatch, and deciding so reads
only the DAG's memoized out-degree moments (and, where their bound is long,
the memoized :func:`kcjax.clique_cost_estimate`); the decision itself is
memoized per DAG, size, method and thread count.
"""

from __future__ import annotations

import functools
import math
import os

import jax
import jax.numpy as jnp
import numpy as np

from kcjax._chunks import WorkProfile
from kcjax.cliques.auto import clique_cost_estimate, work_bounds
from kcjax.graph.orient import DAG, memo, out_degree_moments
from kcjax.graph.tasks import task_costs

#: An eager count estimated to take at least this long splits itself.
LONG_COUNT_S = 0.5
#: The time each chunk of a split count aims at (on the CPU plus the
#: handler's per-call pass over the graph, :func:`chunk_seconds`).
CHUNK_S = 0.25
#: Seconds per unit of enumeration work (:func:`kcjax.clique_cost_estimate`'s
#: search-tree nodes, plus one per edge task and per wedge) and CPU thread:
#: KCMiner took 8-16 ns per unit and thread on the shared graphs (2-core CPU,
#: k = 6..8, work 5e8..9e10).
CPU_ENUMERATION_S = 1e-8
#: The same on a GPU: the H200's KCMiner on com-dblp took 1.2-1.4 ps per unit
#: at k = 7..9 (docs/results.md).
GPU_ENUMERATION_S = 2e-12
#: Seconds per unit of the pivot counter's least work per root, d^2
#: ceil(d / 64) for out-degree d (its bitmap space), per CPU thread (6-13 ns
#: per unit on 2 threads over the shared graphs), and on a GPU (com-dblp:
#: 0.6 ms for 7.4e6 units on the H200).
CPU_PIVOT_S = 2e-8
GPU_PIVOT_S = 1e-10
#: Pivot trees collapse where out-neighbourhoods are near-cliques: at most
#: this many non-neighbours per candidate (``pivot_branching`` of the
#: estimate), the enumeration work does not bound the pivot counter's time.
PIVOT_COLLAPSE_BRANCHING = 1.5
#: Task weights are summed on the device into at most this many blocks.
PROFILE_BLOCKS = 4096
#: A root task's weight beside its edge tasks' costs (an edge task costs >= 1).
ROOT_WEIGHT = 0.01


def count_seconds(dag: DAG, kmax: int, *, pivot: bool, num_threads: int) -> float:
    """Estimated seconds of an eager count of sizes up to ``kmax`` on ``dag``.

    Enumeration: :data:`CPU_ENUMERATION_S` (per thread) or
    :data:`GPU_ENUMERATION_S` times the work: one unit per edge task and
    per wedge of an out-neighbourhood, plus, from k = 4, the search-tree
    nodes -- bounded by the out-degree binomials
    (:func:`kcjax.cliques.auto.work_bounds`), estimated by
    :func:`kcjax.clique_cost_estimate` only where the bound is long.
    Pivoting: the least work of its bitmap spaces; where the estimate finds
    the out-neighbourhoods far from cliques (their pivot trees do not
    collapse), the enumeration's time instead, if larger. Memoized per DAG.

    Args:
      dag: the oriented graph (eager).
      kmax: the largest size counted (>= 1).
      pivot: for the pivot counter, else for enumeration.
      num_threads: the count's CPU threads (0: all cores).

    Returns:
      Seconds, a rough estimate (within a few times where the work is large).
    """
    name = f"count_seconds_{'pivot' if pivot else 'enumeration'}_{kmax}_{num_threads}"
    return memo(dag, name, lambda: _count_seconds(dag, kmax, pivot, num_threads))


def _count_seconds(dag: DAG, kmax: int, pivot: bool, num_threads: int) -> float:
    cpu = _platform(dag) == "cpu"
    threads = max(1, num_threads or _cpu_threads())
    per_unit = CPU_ENUMERATION_S / threads if cpu else GPU_ENUMERATION_S
    moments = out_degree_moments(dag)
    wedges = float(moments.binomials[2])
    if pivot:
        squares = 2 * wedges + dag.num_edges  # sum of d^2 over the roots
        floor = squares * math.ceil(moments.max_degree / 64)
        seconds = floor * (CPU_PIVOT_S / threads if cpu else GPU_PIVOT_S)
    else:
        seconds = (dag.num_edges + wedges) * per_unit
    if kmax <= 3 or seconds >= LONG_COUNT_S:
        return seconds
    bound = work_bounds(dag, kmax)[0] * per_unit
    if bound < LONG_COUNT_S:
        return seconds if pivot else seconds + bound
    estimate = clique_cost_estimate(dag, kmax)
    work = estimate.enumeration_work * per_unit
    if not pivot:
        return seconds + work
    if estimate.pivot_branching > PIVOT_COLLAPSE_BRANCHING:
        return max(seconds, work)
    return seconds


def chunk_seconds(dag: DAG) -> float:
    """The time a chunk of a split count aims at: :data:`CHUNK_S`, plus on the
    CPU four times the handler's per-call pass over the graph (it validates
    the CSR: about 1 ns per entry), so that pass stays a small share."""
    if _platform(dag) != "cpu":
        return CHUNK_S
    return CHUNK_S + 4e-9 * (dag.num_nodes + dag.num_edges)


def task_profile(dag: DAG, kmax: int, *, pivot: bool) -> WorkProfile:
    """Where the work of a count lies over its tasks (edge tasks, or root
    vertices when pivoting), from the tasks stage's cost model
    (:func:`kcjax.task_costs`: a root weighs its edge tasks' costs plus
    :data:`ROOT_WEIGHT`). One candidate-set-size pass and one read-back of
    at most :data:`PROFILE_BLOCKS` block sums."""
    total = dag.num_nodes if pivot else dag.num_edges
    blocks = max(1, min(total, PROFILE_BLOCKS))
    size = -(-total // blocks)
    blocks = -(-total // size)
    sums = np.asarray(_block_sums(dag, kmax, pivot=pivot, size=size, blocks=blocks), np.float64)
    bounds = np.minimum(np.arange(blocks + 1, dtype=np.int64) * size, total)
    return WorkProfile(bounds, np.concatenate([[0.0], np.cumsum(sums)]))


@functools.partial(jax.jit, static_argnames=("kmax", "pivot", "size", "blocks"))
def _block_sums(dag: DAG, kmax: int, *, pivot: bool, size: int, blocks: int) -> jax.Array:
    """float32[blocks]: the summed weights of tasks [i * size, (i + 1) * size)."""
    costs = jnp.minimum(task_costs(dag, kmax), 1e30)  # block sums stay finite in float32
    if pivot:
        roots = jax.ops.segment_sum(costs, dag.src, num_segments=dag.num_nodes)
        costs = ROOT_WEIGHT + jnp.minimum(roots, 1e30)
    padded = jnp.zeros(size * blocks, jnp.float32).at[: costs.shape[0]].set(costs)
    return jnp.sum(padded.reshape(blocks, size), axis=1)


def _platform(dag: DAG) -> str:
    return next(iter(dag.indices.devices())).platform


def _cpu_threads() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1
