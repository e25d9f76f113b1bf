"""Multi-device and multi-host k-cliques: tasks dealt on the devices, shard_map, exact psum.

The DAG's CSR is replicated on every device of one mesh axis; its tasks are
dealt out to those devices (edge tasks for enumeration, :func:`kcjax.split_tasks`;
root vertices for the pivoting counter, by an estimate of their pivot-tree
cost, :func:`pivot_root_costs`); every device runs the native kernel on its
share and the 128-bit results (counts, pivot histograms, per-vertex counts)
are summed exactly across devices (:func:`kcjax.psum_limbs`).

Eagerly the replicated DAG and the deal are computed once per (DAG, mesh,
axis, strategy) and memoized (:func:`kcjax.clear_memo` forgets them): the
deal runs on the devices themselves (each device sorts the tasks and keeps
its own row), so no task array passes through the host, on one host or
several. The eager front ends (``count_cliques``, ``count_all_cliques``,
``clique_counts_per_vertex``, ``clique_number`` with ``mesh=``) run on the
first :func:`mesh_devices` devices of the axis: fewer where the estimated
work is too small to pay for the exchange (see MESH_MIN_WORK_PER_DEVICE).

The same code runs on one host and on several (see :mod:`kcjax.parallel`)::

    kcjax.initialize_from_env_or_args()  # JAX_COORDINATOR_ADDRESS, ...
    dag = kcjax.orient(kcjax.load(path))  # identical on every process
    mesh = jax.make_mesh((jax.device_count(),), ("d",))
    limbs = kcjax.count_cliques_sharded(dag, 6, mesh)  # uint32[7, 4]
    kcjax.limbs_to_int(limbs[6])

``jax.pmap`` users deal the task rows of :func:`kcjax.split_tasks` to the
local devices themselves and broadcast the DAG (``in_axes=None``)::

    tasks = kcjax.split_tasks(dag, jax.local_device_count(), kmax=6)  # int32[D, t]
    count = jax.pmap(
        lambda dag, t: kcjax.psum_limbs(kcjax.count_cliques_limbs(dag, 6, tasks=t), "d"),
        axis_name="d",
        in_axes=(None, 0),
    )
    limbs = count(dag, tasks)[0]  # every device holds the same uint32[7, 4]
"""

from __future__ import annotations

import functools
import math
from typing import Any, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np
from jax.sharding import Mesh, NamedSharding
from jax.sharding import PartitionSpec as P

from kcjax import _wide
from kcjax._args import as_int, check_choice
from kcjax._wide import psum
from kcjax.cliques import kernels
from kcjax.cliques.auto import clique_cost_estimate
from kcjax.cliques.kernels import ENUMERATION_METHODS, count_cliques_limbs
from kcjax.graph.orient import DAG, is_traced, max_out_degree, memo
from kcjax.graph.tasks import (
    STRATEGIES,
    Strategy,
    candidate_sizes,
    split_roots,
    split_sizes,
    split_tasks,
)
from kcjax.parallel import constrain, mesh_axis, multi_process, shard_map, sub_mesh, to_global

#: An eager count over a mesh runs on D' = floor(work / MESH_MIN_WORK_PER_DEVICE)
#: devices of the axis (at least 1, at most all), the work the geometric mean
#: of the enumeration's estimated search-tree nodes and their bound
#: (:func:`kcjax.clique_cost_estimate`; per-vertex counts add the k-cliques;
#: the estimate alone misses R-MAT's cliques): a device must get about 1 ms of
#: one GPU's work to repay the exchange (docs/tuning.md).
MESH_MIN_WORK_PER_DEVICE = 5e8
#: The same for the pivoting counter, in units of :func:`pivot_root_costs`
#: summed over the roots: about 1 ms of one GPU's pivot time (docs/tuning.md).
MESH_MIN_PIVOT_COST_PER_DEVICE = 2e7
#: ... and on at most floor(1 / (MESH_PIVOT_ROOT_SHARE_MARGIN x s)) devices, s
#: the heaviest root's share of that cost: one device walks a root's whole
#: tree, so no device count beats 1 / s, and a device adding less than half
#: of that bound does not repay the exchange (docs/tuning.md).
MESH_PIVOT_ROOT_SHARE_MARGIN = 2.0
#: Enumeration over D > 1 devices with the balanced split re-expresses every
#: edge task whose estimated cost (:func:`kcjax.task_costs`) exceeds
#: 1 / (HEAVY_SHARE x D) of the total as the edge tasks of its candidate set's
#: induced subgraph, dealt over all devices (:func:`heavy_split`): dealt
#: whole, such a task alone would be more than a quarter of its device's
#: share (planted cliques of 50-300 vertices; on the shared graphs the
#: heaviest task is at most 0.4% of the total at k = 7..9, so none splits).
HEAVY_SHARE = 4
#: At most this many tasks split (the heaviest; a static shape).
HEAVY_MAX = 16
#: ... as many of them as fit this many candidate pairs (split tasks x the
#: largest candidate set squared: the adjacency test's memory, a few words a pair).
HEAVY_MAX_PAIRS = 1 << 24
#: Levels of the pivot tree :func:`pivot_root_costs` follows (deeper levels
#: hold few candidates on every graph measured; the estimate saturates).
PIVOT_COST_LEVELS = 24


def count_cliques_sharded(
    dag: DAG,
    kmax: int,
    mesh: Mesh,
    *,
    axis_name: Any = None,
    method: str = "kcminer",
    strategy: Strategy = "balanced",
    lam: float | None = None,
    num_threads: int = 0,
    tasks: jax.Array | None = None,
) -> jax.Array:
    """Counts s-cliques for s = 3..kmax over the devices of a mesh axis; jit-able.

    The DAG is replicated (``P()``) and the rows of :func:`split_tasks` are
    sharded over ``axis_name`` (``P(axis_name)``); every device runs
    :func:`kcjax.count_cliques_limbs` on its tasks and the counts are combined
    with :func:`psum_limbs`. Eagerly the replicated DAG and the split are
    computed on the mesh's devices once per (DAG, mesh, axis, strategy) and
    memoized, and a DAG built on every process alike may be passed (the mesh
    may span several processes); under ``jax.jit`` the placement is left to
    jit and the split is computed inline. Every device of the axis runs (the
    eager :func:`kcjax.count_cliques` with ``mesh=`` may use fewer, see
    :func:`mesh_devices`).

    On CPU every device's call starts ``num_threads`` workers: with several
    CPU devices in one process pass about ``cores // devices``.

    Args:
      dag: an oriented graph from :func:`kcjax.orient`.
      kmax: largest clique size (>= 3).
      mesh: the devices; tasks are split over one axis, replicated over others.
      axis_name: the mesh axis to split over (``None``: the mesh's only axis).
      method: one of :data:`kcjax.ENUMERATION_METHODS`.
      strategy: task split, see :func:`split_tasks`.
      lam: λ override (``None``: policy table).
      num_threads: CPU worker threads per device (0: all cores).
      tasks: int32[D, t] task rows from :func:`kcjax.split_tasks` for this
        mesh axis (D devices), to split once and count many times
        (``None``: the memoized split with ``strategy``).

    Returns:
      uint32[kmax + 1, 4], replicated over ``mesh``: row s holds the 128-bit
      little-endian count of s-cliques (rows 0..2 are zero).

    Raises:
      ValueError: for kmax < 3, an unknown method, strategy or mesh axis.
    """
    kmax = as_int(kmax, "kmax", minimum=3)
    check_choice(method, "method", ENUMERATION_METHODS)
    check_choice(strategy, "strategy", STRATEGIES)
    axis_name = mesh_axis(mesh, axis_name)
    num_shards = mesh.shape[axis_name]
    if tasks is not None and (tasks.ndim != 2 or tasks.shape[0] != num_shards):
        raise ValueError(
            f"tasks must be int32[{num_shards}, t] (one row per device), got {tasks.shape}"
        )
    static = dict(
        kmax=kmax, mesh=mesh, axis_name=axis_name, method=method, lam=lam, num_threads=num_threads
    )
    replicated, split = NamedSharding(mesh, P()), NamedSharding(mesh, P(axis_name))
    if is_traced(dag):
        if tasks is None:
            tasks = split_tasks(dag, num_shards, strategy=strategy)
        dag = jax.tree.map(lambda x: constrain(x, replicated), dag)
        return _count_sharded(dag, constrain(tasks, split), **static)
    # Eagerly the DAG is still this process's own: its largest out-degree is
    # the CUDA handler's max_degree hint (narrower task sort on every device).
    static["max_degree"] = max_out_degree(dag)
    if tasks is not None:
        return _count_sharded_jit(replicate(dag, mesh), to_global(tasks, split), **static)
    heavy = None
    if strategy == "balanced" and num_shards > 1 and kmax >= 5:
        heavy = heavy_split(dag, kmax, mesh, axis_name)
    if heavy is None:
        rows = edge_rows(dag, mesh, axis_name, strategy)
        return _count_sharded_jit(replicate(dag, mesh), rows, **static)
    return _count_heavy_jit(
        replicate(dag, mesh), heavy.rows, heavy.sub, heavy.sub_rows, heavy.small, **static
    )


class HeavySplit(NamedTuple):
    """The heaviest edge tasks re-expressed for a mesh (see :func:`heavy_split`).

    Attributes:
      tasks: int32[h] the edge ids split (host).
      rows: int32[D, t] the other edge tasks dealt by the balanced split,
        sharded over the axis.
      sub: the DAG of the split tasks' candidate sets (their induced
        subgraphs side by side), replicated on the mesh.
      sub_rows: int32[D, t'] its edge tasks dealt by the balanced split.
      small: uint32[kmax + 1, 4] replicated: the split tasks' 3- and
        4-cliques (their candidates and candidate pairs that are edges).
    """

    tasks: np.ndarray
    rows: jax.Array
    sub: DAG
    sub_rows: jax.Array
    small: jax.Array


def heavy_split(dag: DAG, kmax: int, mesh: Mesh, axis_name: Any = None) -> HeavySplit | None:
    """Splits the heaviest edge tasks across the devices of a mesh axis (eager).

    The s-cliques whose two lowest vertices are the edge (u, v) are the
    (s - 2)-cliques of the subgraph induced by its candidate set C = N+(u) ∩
    N+(v) (vertices in the DAG's order). So a task whose estimated cost
    (:func:`kcjax.task_costs` of the balanced split's sizes) exceeds
    1 / (HEAVY_SHARE x D) of the total (the HEAVY_MAX heaviest at most, as many
    as fit HEAVY_MAX_PAIRS candidate pairs) is taken out of the edge tasks
    and its subgraph G[C] becomes part of a second DAG whose own edge tasks
    are dealt over all D devices; its 3- and 4-cliques are |C| and the edges
    of G[C]. Everything is built on the device; the host reads the selected
    tasks' ids and sizes and the subgraphs' edge count (a few words), once:
    memoized per (DAG, mesh, axis, the cost model's k).

    Args:
      dag: the oriented graph (eager).
      kmax: the largest clique size counted (>= 5: smaller counts need no split).
      mesh: the devices.
      axis_name: the mesh axis (``None``: the mesh's only axis).

    Returns:
      A :class:`HeavySplit`, or None when no task is that heavy.
    """
    axis_name = mesh_axis(mesh, axis_name)
    shards = mesh.shape[axis_name]
    if kmax < 5 or shards < 2 or dag.num_edges == 0:
        return None
    table = memo(dag, "mesh_placement", dict)
    key = ("heavy", mesh, axis_name, _cost_power(kmax))
    if key not in table:
        table[key] = _build_heavy(dag, kmax, mesh, axis_name, shards)
    return table[key]


def _cost_power(kmax: int) -> float:
    return min(max(0.75 * kmax - 1.75, 1.0), 6.0)  # task_costs' exponent


def _build_heavy(dag: DAG, kmax: int, mesh: Mesh, axis_name: Any, shards: int) -> HeavySplit | None:
    top = min(HEAVY_MAX, dag.num_edges)
    ids, sizes, share = (np.asarray(x) for x in _heaviest(dag, power=_cost_power(kmax), top=top))
    heavy = (share * (HEAVY_SHARE * shards) > 1.0) & (sizes >= 2)
    chosen, sizes = ids[heavy], sizes[heavy]
    if chosen.size == 0:
        return None
    width = int(sizes.max())  # the adjacency test holds tasks x width^2 pairs
    chosen = chosen[: HEAVY_MAX_PAIRS // (width * width)]
    if chosen.size == 0:
        return None
    sub, small = _candidate_subgraphs(dag, jnp.asarray(chosen), width=width, kmax=kmax)
    if sub.num_edges == 0:  # candidate sets without an edge: triangles only, cheap
        return None
    replicated = NamedSharding(mesh, P())
    return HeavySplit(
        tasks=chosen,
        rows=_drop_tasks(
            edge_rows(dag, mesh, axis_name, "balanced"), to_global(chosen, replicated)
        ),
        sub=replicate(sub, mesh),
        sub_rows=edge_rows(sub, mesh, axis_name, "balanced"),
        small=to_global(small, replicated),
    )


@functools.partial(jax.jit, static_argnames=("power", "top"))
def _heaviest(dag: DAG, *, power: float, top: int) -> tuple[jax.Array, jax.Array, jax.Array]:
    """The ``top`` heaviest edge tasks by the balanced split's sizes and
    task_costs' model: (int32 ids, int32 sizes, float32 share of the total)."""
    sizes = split_sizes(dag)
    cost = 1.0 + sizes.astype(jnp.float32) ** power
    values, ids = jax.lax.top_k(cost, top)
    return ids.astype(jnp.int32), sizes[ids], values / jnp.sum(cost)


def _candidate_subgraphs(
    dag: DAG, tasks: jax.Array, *, width: int, kmax: int
) -> tuple[DAG, jax.Array]:
    """The subgraphs induced by the candidate sets of ``tasks`` as one DAG
    (task h's candidates are vertices h * width + 0..|C_h|-1, in the DAG's
    order), and uint32[kmax + 1, 4] limbs of their 3- and 4-cliques."""
    cand, adj = _candidate_adjacency(dag, tasks, width=max(width, 1), span=max_out_degree(dag))
    edges = int(jnp.sum(adj, dtype=jnp.int32))
    sub = _subgraph_dag(adj, edges=edges)
    small = np.zeros((kmax + 1, 4), np.uint32)
    for row, value in ((3, int(jnp.sum(cand >= 0, dtype=jnp.int32))), (4, edges)):
        small[row, 0], small[row, 1] = value & 0xFFFFFFFF, value >> 32
    return sub, jnp.asarray(small)


@functools.partial(jax.jit, static_argnames=("width", "span"))
def _candidate_adjacency(
    dag: DAG, tasks: jax.Array, *, width: int, span: int
) -> tuple[jax.Array, jax.Array]:
    """(int32[h, width] candidate sets, ascending, -1 padded; bool[h, width,
    width] adjacency i < j within each set)."""
    u, v = dag.src[tasks], dag.indices[tasks]
    pos = jnp.arange(max(span, 1), dtype=jnp.int32)
    start = dag.indptr[u][:, None]
    inside = pos[None, :] < (dag.indptr[u + 1][:, None] - start)
    out_u = dag.indices[jnp.minimum(start + pos[None, :], dag.num_edges - 1)]
    both = inside & _in_row(dag, jnp.broadcast_to(v[:, None], out_u.shape), out_u, span)
    big = jnp.iinfo(jnp.int32).max
    cand = jnp.sort(jnp.where(both, out_u, big), axis=1)[:, :width]
    cand = jnp.where(cand == big, -1, cand)
    rows = jnp.broadcast_to(cand[:, :, None], (*cand.shape, width))
    cols = jnp.broadcast_to(cand[:, None, :], rows.shape)
    upper = jnp.arange(width)[:, None] < jnp.arange(width)[None, :]
    adj = upper & (rows >= 0) & (cols >= 0) & _in_row(dag, jnp.maximum(rows, 0), cols, span)
    return cand, adj


def _in_row(dag: DAG, rows: jax.Array, x: jax.Array, span: int) -> jax.Array:
    """bool: x is in row ``rows`` of the DAG (a binary search of at most ``span`` entries)."""
    lo, end = dag.indptr[rows], dag.indptr[rows + 1]
    hi = end
    last = max(dag.num_edges - 1, 0)
    for _ in range(max(span, 1).bit_length() + 1):
        mid = (lo + hi) // 2
        right = (mid < hi) & (dag.indices[jnp.minimum(mid, last)] < x)
        lo, hi = jnp.where(right, mid + 1, lo), jnp.where(right, hi, mid)
    return (lo < end) & (dag.indices[jnp.minimum(lo, last)] == x)


@functools.partial(jax.jit, static_argnames="edges")
def _subgraph_dag(adj: jax.Array, *, edges: int) -> DAG:
    """The DAG whose vertex h * width + i links to h * width + j where adj[h, i, j]."""
    h, width, _ = adj.shape
    n = h * width
    flat = jnp.nonzero(adj.reshape(-1), size=edges)[0].astype(jnp.int32)
    src = flat // width
    dst = (flat // (width * width)) * width + flat % width
    counts = jnp.sum(adj, axis=2, dtype=jnp.int32).reshape(-1)
    indptr = jnp.concatenate([jnp.zeros(1, jnp.int32), jnp.cumsum(counts, dtype=jnp.int32)])
    return DAG(indptr, dst, src, jnp.arange(n, dtype=jnp.int32), n)


@jax.jit
def _drop_tasks(rows: jax.Array, tasks: jax.Array) -> jax.Array:
    """The task rows with ``tasks`` replaced by padding (-1); sharding kept."""
    return jnp.where(jnp.isin(rows, tasks), -1, rows)


def replicate(dag: DAG, mesh: Mesh) -> DAG:
    """``dag`` replicated on every device of ``mesh`` (eager; memoized per DAG and mesh).

    Device-to-device copies from this process's DAG (see :func:`kcjax.parallel.to_global`).
    """
    table = memo(dag, "mesh_placement", dict)
    key = ("dag", mesh)
    if key not in table:
        replicated = NamedSharding(mesh, P())
        table[key] = jax.tree.map(lambda x: to_global(x, replicated), dag)
    return table[key]


def edge_rows(dag: DAG, mesh: Mesh, axis_name: Any, strategy: Strategy) -> jax.Array:
    """int32[D, t] edge tasks dealt by :func:`split_tasks`, sharded over ``axis_name``.

    Computed on the devices of ``mesh`` (each sorts the tasks and keeps its
    own row: no host round trip) and memoized per (DAG, mesh, axis, strategy).
    """
    return _memo_rows(dag, mesh, axis_name, strategy, 0)


def root_rows(dag: DAG, mesh: Mesh, axis_name: Any, hmax: int) -> jax.Array:
    """int32[D, r] root vertices dealt by :func:`pivot_root_costs` (heaviest
    first, snake order), sharded over ``axis_name``; computed on the devices,
    memoized per (DAG, mesh, axis, the cost's depth)."""
    return _memo_rows(dag, mesh, axis_name, "roots", _cost_levels(hmax))


def _memo_rows(dag: DAG, mesh: Mesh, axis_name: Any, kind: str, levels: int) -> jax.Array:
    table = memo(dag, "mesh_placement", dict)
    key = (kind, mesh, axis_name, levels)
    if key not in table:
        table[key] = _rows_on_devices(
            replicate(dag, mesh), mesh=mesh, axis_name=axis_name, kind=kind, levels=levels
        )
    return table[key]


@functools.partial(jax.jit, static_argnames=("mesh", "axis_name", "kind", "levels"))
def _rows_on_devices(dag: DAG, *, mesh: Mesh, axis_name: Any, kind: str, levels: int) -> jax.Array:
    """Every device deals all tasks (same inputs, same program: the same deal
    everywhere) and keeps its own row: int32[D, t] sharded over ``axis_name``.
    ``kind``: a split strategy (edge tasks) or ``"roots"`` (pivot roots, by
    their cost over ``levels`` levels)."""
    num_shards = mesh.shape[axis_name]

    def local(dag: DAG) -> jax.Array:
        if kind == "roots":
            costs = _pivot_root_costs(dag, levels=levels)
            rows = split_roots(dag, num_shards, costs)
        else:
            rows = split_tasks(dag, num_shards, strategy=kind)
        return jax.lax.dynamic_index_in_dim(rows, jax.lax.axis_index(axis_name), keepdims=True)

    return shard_map(local, mesh, in_specs=P(), out_specs=P(axis_name))(dag)


def pivot_root_costs(dag: DAG, hmax: int) -> jax.Array:
    """Estimated pivot-tree work of every root vertex; jit-able.

    Root v starts with the s = d+(v) candidates of its out-neighbourhood,
    whose edge density is p(v) (its triangles over its pairs, exact from
    :func:`kcjax.candidate_sizes`). A node with s candidates costs about
    s (1 + s / 64) (bitmap rows of s bits over its candidates) and branches
    into 1 + (1 - p) s children (the pivot and its non-neighbours) with about
    p s candidates each; the estimate sums the nodes' cost over the first
    min(hmax - 1, PIVOT_COST_LEVELS) levels (a branch holds at most hmax
    vertices). Near-cliques (p near 1) give a path, sparse out-neighbourhoods
    (p near 0) a star: both cheap; dense non-cliques a wide tree.

    Args:
      dag: an oriented graph from :func:`kcjax.orient`.
      hmax: the largest clique size the count needs (>= 1).

    Returns:
      float32[num_nodes]: relative cost of every root (capped at 1e30).
    """
    return _pivot_root_costs(dag, levels=_cost_levels(hmax))


def _cost_levels(hmax: int) -> int:
    return max(1, min(int(hmax) - 1, PIVOT_COST_LEVELS))


@functools.partial(jax.jit, static_argnames="levels")
def _pivot_root_costs(dag: DAG, *, levels: int) -> jax.Array:
    n = dag.num_nodes
    d = dag.out_degrees().astype(jnp.float32)
    if dag.num_edges == 0:
        return d
    sizes = jnp.maximum(candidate_sizes(dag), 0).astype(jnp.float32)
    tri = jax.ops.segment_sum(sizes, dag.src, num_segments=n)
    pairs = d * (d - 1) / 2
    p = jnp.where(pairs > 0, jnp.minimum(tri / jnp.maximum(pairs, 1), 1.0), 0.0)
    s, width, cost = d, jnp.ones_like(d), jnp.zeros_like(d)
    for _ in range(levels):
        cost = cost + jnp.where(s >= 1, width * (s + 1) * (1 + s / 64), 0.0)
        width = jnp.minimum(width * (1 + (1 - p) * s), 1e30)
        s = p * s
    return jnp.minimum(cost, 1e30)


def mesh_devices(
    dag: DAG,
    k: int,
    mesh: Mesh,
    *,
    method: str,
    axis_name: Any = None,
    per_vertex: bool = False,
) -> int:
    """How many devices of the mesh axis an eager call with ``mesh=`` runs on.

    The first ``mesh_devices(...)`` devices along the axis run it (other
    axes whole): ``floor(work / per-device minimum)``, at least 1 and at most
    the axis's length, where the work is, for enumeration, the geometric
    mean of the estimated search-tree nodes of
    :func:`kcjax.clique_cost_estimate` and their bound (plus the k-cliques
    for per-vertex counts) against MESH_MIN_WORK_PER_DEVICE, and
    for pivoting the summed :func:`pivot_root_costs` against
    MESH_MIN_PIVOT_COST_PER_DEVICE, and no more devices than
    MESH_PIVOT_ROOT_SHARE_MARGIN allows for the heaviest root's share. Both
    estimates are memoized per DAG and k. A mesh spanning several processes
    always runs whole (every process takes part in the call).

    Args:
      dag: the oriented graph (eager).
      k: the largest clique size of the call (``count_all_cliques`` and
        ``clique_number``: the largest out-degree + 1).
      mesh: the mesh of the call.
      method: ``"pivot"`` or an enumeration method (``"auto"`` resolved).
      axis_name: the mesh axis (``None``: the mesh's only axis).
      per_vertex: the call counts per vertex.

    Returns:
      The number of devices, 1..mesh.shape[axis_name].
    """
    axis_name = mesh_axis(mesh, axis_name)
    length = mesh.shape[axis_name]
    if length == 1 or multi_process(mesh):
        return length
    cap = length
    if method == "pivot":
        work, heaviest = _pivot_work(dag, k)
        per_device = MESH_MIN_PIVOT_COST_PER_DEVICE
        if MESH_PIVOT_ROOT_SHARE_MARGIN > 0 and heaviest > 0 and math.isfinite(work):
            cap = int(work // (MESH_PIVOT_ROOT_SHARE_MARGIN * heaviest))
    else:
        work, per_device = _enumeration_work(dag, k, per_vertex), MESH_MIN_WORK_PER_DEVICE
    if per_device <= 0 or not math.isfinite(work):
        return max(1, min(length, cap))
    return max(1, min(length, cap, int(work // per_device)))


def _enumeration_work(dag: DAG, k: int, per_vertex: bool) -> float:
    if k < 3 or dag.num_edges == 0:
        return 0.0
    est = clique_cost_estimate(dag, k)
    work = math.sqrt(est.enumeration_work * est.work_bound)
    return work + (est.cliques[k] if per_vertex else 0.0)


def _pivot_work(dag: DAG, hmax: int) -> tuple[float, float]:
    """The summed :func:`pivot_root_costs` and the heaviest root's, memoized."""
    if dag.num_edges == 0:
        return 0.0, 0.0
    levels = _cost_levels(hmax)

    def compute() -> tuple[float, float]:
        costs = _pivot_root_costs(dag, levels=levels)
        total, heaviest = jax.device_get((jnp.sum(costs, dtype=jnp.float32), jnp.max(costs)))
        return float(total), float(heaviest)

    return memo(dag, f"pivot_cost_{levels}", compute)


def active_mesh(
    dag: DAG, k: int, mesh: Mesh, *, method: str, axis_name: Any = None, per_vertex: bool = False
) -> Mesh:
    """The sub-mesh an eager call runs on: the first :func:`mesh_devices` devices of the axis."""
    axis_name = mesh_axis(mesh, axis_name)
    size = mesh_devices(dag, k, mesh, method=method, axis_name=axis_name, per_vertex=per_vertex)
    return sub_mesh(mesh, axis_name, size)


def pivot_histogram_sharded(
    dag: DAG,
    mesh: Mesh,
    *,
    hmax: int,
    kmin: int = 1,
    axis_name: Any = None,
    num_threads: int = 0,
) -> jax.Array:
    """The pivoting counter's histogram over the devices of a mesh axis (eager).

    Root vertices are dealt by :func:`root_rows` (memoized); every device
    runs target ``kcjax_clique_pivot`` on its roots and the histograms are
    summed exactly (:func:`psum_limbs`). Every device of the axis runs.

    Args:
      dag: an oriented graph (eager).
      mesh: the devices; roots are dealt over one axis, replicated over others.
      hmax: largest clique size the histogram must resolve (>= 1).
      kmin: smallest (branches that cannot reach it are pruned).
      axis_name: the mesh axis (``None``: the mesh's only axis).
      num_threads: CPU worker threads per device (0: all cores).

    Returns:
      uint32[hmax + 1, pmax + 1, 4], replicated over ``mesh`` (pmax: the
      largest out-degree); ``count_k = sum hist[h, p] * C(p, k - h)``.
    """
    axis_name = mesh_axis(mesh, axis_name)
    rep = replicate(dag, mesh)
    return _pivot_sharded(
        rep.indptr,
        rep.indices,
        root_rows(dag, mesh, axis_name, hmax),
        mesh=mesh,
        axis_name=axis_name,
        hmax=hmax,
        pmax=max_out_degree(dag),
        kmin=kmin,
        num_threads=num_threads,
    )


@functools.partial(
    jax.jit, static_argnames=("mesh", "axis_name", "hmax", "pmax", "kmin", "num_threads")
)
def _pivot_sharded(indptr, indices, roots, *, mesh, axis_name, hmax, pmax, kmin, num_threads):
    def local(indptr: jax.Array, indices: jax.Array, rows: jax.Array) -> jax.Array:
        hist = kernels.clique_pivot(
            indptr,
            indices,
            rows.reshape(-1),
            hmax=hmax,
            pmax=pmax,
            kmin=kmin,
            num_threads=num_threads,
        )
        return psum(hist, axis_name)

    specs = (P(), P(), P(axis_name))
    return shard_map(local, mesh, in_specs=specs, out_specs=P())(indptr, indices, roots)


def per_vertex_sharded(
    dag: DAG,
    k: int,
    mesh: Mesh,
    *,
    method: str,
    axis_name: Any = None,
    strategy: Strategy = "balanced",
    num_threads: int = 0,
) -> jax.Array:
    """Per-vertex k-clique counts (k >= 3) over the devices of a mesh axis (eager).

    ``method="pivot"``: roots dealt by :func:`root_rows`, target
    ``kcjax_clique_pivot_local``; an enumeration method: edge tasks dealt by
    :func:`edge_rows`, target ``kcjax_clique_per_vertex``. The per-vertex
    128-bit totals are summed exactly over the devices; every device of the
    axis runs.

    Returns:
      uint32[n, 4] per rank, replicated over ``mesh``.
    """
    axis_name = mesh_axis(mesh, axis_name)
    rep = replicate(dag, mesh)
    static = dict(mesh=mesh, axis_name=axis_name, k=k, num_threads=num_threads)
    if method == "pivot":
        rows = root_rows(dag, mesh, axis_name, k)
        return _pivot_local_sharded(rep.indptr, rep.indices, rows, **static)
    rows = edge_rows(dag, mesh, axis_name, strategy)
    return _per_vertex_sharded(
        rep.indptr, rep.indices, rep.src, rows, method=ENUMERATION_METHODS[method], **static
    )


@functools.partial(jax.jit, static_argnames=("mesh", "axis_name", "k", "num_threads"))
def _pivot_local_sharded(indptr, indices, roots, *, mesh, axis_name, k, num_threads):
    def local(indptr: jax.Array, indices: jax.Array, rows: jax.Array) -> jax.Array:
        counts = kernels.clique_pivot_local(
            indptr, indices, rows.reshape(-1), k=k, num_threads=num_threads
        )
        return psum(counts, axis_name)

    specs = (P(), P(), P(axis_name))
    return shard_map(local, mesh, in_specs=specs, out_specs=P())(indptr, indices, roots)


@functools.partial(jax.jit, static_argnames=("mesh", "axis_name", "k", "method", "num_threads"))
def _per_vertex_sharded(indptr, indices, src, tasks, *, mesh, axis_name, k, method, num_threads):
    def local(indptr, indices, src, rows):
        counts = kernels.clique_per_vertex(
            indptr,
            indices,
            src,
            rows.reshape(-1),
            k=k,
            method=method,
            lam=-1.0,
            num_threads=num_threads,
        )
        return psum(counts, axis_name)

    specs = (P(), P(), P(), P(axis_name))
    return shard_map(local, mesh, in_specs=specs, out_specs=P())(indptr, indices, src, tasks)


def _count_sharded(
    dag: DAG,
    tasks: jax.Array,
    *,
    kmax: int,
    mesh: Mesh,
    axis_name: Any,
    method: str,
    lam: float | None,
    num_threads: int,
    max_degree: int | None = None,
) -> jax.Array:
    def local(dag: DAG, rows: jax.Array) -> jax.Array:
        limbs = count_cliques_limbs(
            dag,
            kmax,
            method=method,
            lam=lam,
            num_threads=num_threads,
            tasks=rows.reshape(-1),
            max_degree=max_degree,
        )
        return psum(limbs, axis_name)

    return shard_map(local, mesh, in_specs=(P(), P(axis_name)), out_specs=P())(dag, tasks)


_COUNT_STATIC = ("kmax", "mesh", "axis_name", "method", "lam", "num_threads", "max_degree")
_count_sharded_jit = jax.jit(_count_sharded, static_argnames=_COUNT_STATIC)


@functools.partial(jax.jit, static_argnames=_COUNT_STATIC)
def _count_heavy_jit(
    dag: DAG,
    tasks: jax.Array,
    sub: DAG,
    sub_tasks: jax.Array,
    small: jax.Array,
    *,
    kmax: int,
    mesh: Mesh,
    axis_name: Any,
    method: str,
    lam: float | None,
    num_threads: int,
    max_degree: int | None = None,
) -> jax.Array:
    """:func:`_count_sharded` plus the split tasks: the (s - 2)-cliques of
    their candidate subgraphs are their s-cliques (s >= 5), ``small`` the rest."""

    def local(dag: DAG, rows: jax.Array, sub: DAG, sub_rows: jax.Array) -> jax.Array:
        common = dict(method=method, lam=lam, num_threads=num_threads)
        limbs = count_cliques_limbs(
            dag, kmax, tasks=rows.reshape(-1), max_degree=max_degree, **common
        )
        inner = count_cliques_limbs(sub, kmax - 2, tasks=sub_rows.reshape(-1), **common)
        shifted = jnp.zeros_like(limbs).at[5:].set(inner[3:])
        return psum(_wide.add(limbs, shifted), axis_name)

    specs = (P(), P(axis_name), P(), P(axis_name))
    total = shard_map(local, mesh, in_specs=specs, out_specs=P())(dag, tasks, sub, sub_tasks)
    return _wide.add(total, small)


def host_limbs(limbs: jax.Array) -> np.ndarray:
    """This process's copy of a replicated result, on the host."""
    return np.asarray(limbs.addressable_data(0))
