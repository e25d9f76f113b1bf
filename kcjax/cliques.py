"""k-clique counting: the public entry points over the native FFI targets."""

from __future__ import annotations

import functools
import math
import weakref
from collections.abc import Callable, Iterable, Mapping

import jax
import jax.numpy as jnp
import numpy as np

from kcjax import _ffi
from kcjax.dense import count_cliques_dense
from kcjax.graph import Graph
from kcjax.orient import DAG, Order, _dag_core_numbers, orient

#: Enumeration strategies of target ``kcjax_clique_count`` (kcjax::CountMethod).
ENUMERATION_METHODS: Mapping[str, int] = {
    "kcminer": 0,  # dynamic bitmap construction + warp scheduler
    "binary_search": 1,  # sorted-list intersection only (G2Miner-like)
    "static_l1": 2,  # bitmap space over N+(v0), per root vertex
    "static_l2": 3,  # bitmap space over each edge task's candidate set
    "warp": 4,  # warp-parallel bitmap walk (GraphFold-like)
    "thread": 5,  # thread-parallel bitmap, no scheduler (KCGPU-like)
}
#: Every accepted ``method``: the enumeration strategies, "pivot", "dense"
#: (pure JAX, :mod:`kcjax.dense`) and "auto".
METHODS: tuple[str, ...] = ("auto", "pivot", "dense", *ENUMERATION_METHODS)

GraphLike = Graph | DAG
ProgressFn = Callable[[int, int], None]


def limbs_to_int(limbs: jax.Array | np.ndarray) -> int:
    """Converts a uint32[4] little-endian 128-bit count to a Python int."""
    a = np.asarray(limbs, dtype=np.uint64).reshape(4)
    return sum(int(a[i]) << (32 * i) for i in range(4))


def count_cliques(
    graph: GraphLike,
    k: int | Iterable[int],
    *,
    method: str = "auto",
    order: Order = "degree",
    lam: float | None = None,
    num_threads: int = 0,
    chunk_size: int | None = None,
    progress: ProgressFn | None = None,
    mesh: jax.sharding.Mesh | None = None,
    split: str = "balanced",
    axis_name: str | None = None,
) -> int | dict[int, int] | jax.Array | dict[int, jax.Array]:
    """Counts the k-cliques of an undirected graph, exactly.

    Several sizes are counted in one traversal. Eagerly the result is a Python
    int (or ``{k: int}``), exact at any magnitude. Under ``jax.jit`` (when the
    graph's arrays are tracers) the result is a uint32[4] array per size: the
    128-bit count as little-endian limbs (see :func:`limbs_to_int`).

    Args:
      graph: a :class:`Graph`, or a :class:`DAG` from :func:`kcjax.orient`
        (``order`` is then ignored).
      k: clique size (>= 1), or an iterable of sizes. k = 1 counts vertices,
        k = 2 edges; sizes above the clique number count 0.
      method: ``"auto"`` (KCMiner enumeration under jit or with a mesh;
        eagerly pivoting on the CPU, and on a GPU for k >= 10, or k >= 6 on
        graphs of :func:`transitivity` >= 0.3 whose densest core is one
        clique; else enumeration), one of
        :data:`ENUMERATION_METHODS` (ablation baselines), ``"pivot"``, or
        ``"dense"`` (the pure-JAX formulation of :mod:`kcjax.dense`).
      order: orientation of a Graph: ``"degree"`` or ``"degeneracy"``.
      lam: density threshold λ for building bitmap spaces at every level
        (``None``: the tuned per-(k, level) table in policy.h).
      num_threads: CPU worker threads (0: all cores); ignored on GPU.
      chunk_size: process the edge tasks in chunks of this many (eager only),
        calling ``progress`` after each; ``None``: one call.
      progress: ``progress(done_tasks, total_tasks)`` after every chunk.
      mesh: count on every device of this mesh (one axis; see
        :mod:`kcjax.distributed`): the CSR is replicated, edge tasks are
        split across the devices and the counts summed exactly. Works on one
        host or, under ``jax.distributed``, on many.
      split: how tasks are dealt to devices: ``"balanced"`` (by estimated
        cost, heavy first) or ``"round_robin"`` (KCMiner's split).
      axis_name: the mesh axis to split over (default: the mesh's first).

    Returns:
      The count (int) for one size, or ``{k: count}`` for several.

    Raises:
      ValueError: for k < 1, an unknown method or order, or a bad chunk size.
    """
    single = isinstance(k, (int, np.integer))
    ks = [int(k)] if single else sorted({int(x) for x in k})
    if not ks:
        raise ValueError("no clique size given")
    if ks[0] < 1:
        raise ValueError(f"clique size k must be >= 1, got {ks[0]}")
    if method not in METHODS:
        raise ValueError(f"method must be one of {METHODS}, got {method!r}")
    if chunk_size is not None and chunk_size < 1:
        raise ValueError(f"chunk_size must be >= 1, got {chunk_size}")
    dag = graph if isinstance(graph, DAG) else orient(graph, order=order)
    traced = isinstance(dag.indices, jax.core.Tracer)
    kmax = ks[-1]
    if method == "auto":
        method = _auto_method(dag, kmax, traced or mesh is not None)

    if mesh is not None:
        if method == "pivot" or chunk_size is not None or progress is not None:
            raise ValueError(
                "mesh= counts by enumeration in one call: no pivot, chunks or progress"
            )
        from kcjax.distributed import count_cliques_sharded  # imports this module

        limbs = count_cliques_sharded(
            dag,
            max(kmax, 3),
            mesh,
            axis_name=axis_name,
            method=method,
            strategy=split,
            lam=lam,
            num_threads=num_threads,
        )
        if traced:
            out = {s: _small_limbs(dag, s) if s <= 2 else limbs[s] for s in ks}
            return out[ks[0]] if single else out
        host = np.asarray(limbs.addressable_data(0))
        counts = [0, dag.num_nodes, dag.num_edges]
        counts += [limbs_to_int(host[s]) for s in range(3, kmax + 1)]
    elif method == "pivot":
        if traced:
            raise ValueError(
                "method='pivot' runs eagerly only (its histogram is finished on the host)"
            )
        counts = _pivot_counts(dag, ks, num_threads, chunk_size, progress)
    elif method == "dense" or traced:
        if method == "dense":
            limbs = count_cliques_dense(dag, max(kmax, 3))
        else:
            limbs = count_cliques_limbs(
                dag, max(kmax, 3), method=method, lam=lam, num_threads=num_threads
            )
        if traced:
            out = {s: _small_limbs(dag, s) if s <= 2 else limbs[s] for s in ks}
            return out[ks[0]] if single else out
        host = np.asarray(limbs)
        counts = [0, dag.num_nodes, dag.num_edges]
        counts += [limbs_to_int(host[s]) for s in range(3, kmax + 1)]
    else:
        counts = _enumeration_counts(dag, kmax, method, lam, num_threads, chunk_size, progress)
    result = {s: counts[s] for s in ks}
    return result[ks[0]] if single else result


#: "auto" on a GPU pivots from AUTO_PIVOT_MIN_K on for graphs whose global
#: transitivity (3 x triangles / wedges, see :func:`transitivity`) is at least
#: AUTO_PIVOT_MIN_TRANSITIVITY and whose densest core is one clique, and for
#: every graph from AUTO_PIVOT_ALWAYS_K on. Fitted to the H200 runs
#: (experiments/results/h200_anchors.json, h200_auto_features.json):
#: pivoting wins where a large clique makes the cliques multiply with k
#: (com-dblp, transitivity 0.31, densest core a 114-clique: pivot 0.59 ms vs
#: KCMiner 78 ms at k = 8; ca-AstroPh 0.32, a 57-clique); enumeration wins
#: on sparse neighbourhoods (soc-Epinions1 0.07) and on ego-Facebook (0.52,
#: whose densest core, 158 vertices of degeneracy 115, is not a clique: its
#: pivot tree branches; KCMiner 1.17 / 11.5 / 140 ms vs pivot 8.0 / 69 /
#: 423 ms at k = 6..8, NOTES run 69). The core test peels the DAG's graph on
#: the device once per DAG (4-23 ms on the shared graphs, run 68) and runs
#: only when the transitivity test passes.
AUTO_PIVOT_MIN_K = 6
AUTO_PIVOT_MIN_TRANSITIVITY = 0.3
AUTO_PIVOT_ALWAYS_K = 10

_DAG_CACHE: dict[tuple[int, str], tuple[weakref.ref, object]] = {}


def _cached(dag: DAG, name: str, compute: Callable[[], object]) -> object:
    """``compute()``, memoized per DAG (keyed by its live ``indices`` array)."""
    key = (id(dag.indices), name)
    hit = _DAG_CACHE.get(key)
    if hit is not None and hit[0]() is dag.indices:
        return hit[1]
    value = compute()
    _DAG_CACHE[key] = (weakref.ref(dag.indices, lambda _: _DAG_CACHE.pop(key, None)), value)
    return value


def _max_out_degree(dag: DAG) -> int:
    """The DAG's largest out-degree (eager, cached per DAG)."""
    return _cached(dag, "max_out_degree", lambda: int(dag.max_out_degree()))


def _chunk_start(start: int) -> np.int32 | None:
    """A chunk's first task id as a jit argument; ``None`` for 0 (the single
    chunk of an unchunked count), which spares a host-to-device copy."""
    return None if start == 0 else np.int32(start)


def _task_range(start: jax.Array | None, *, step: int, total: int) -> jax.Array:
    """int32[step]: task ids start, start + 1, ... (-1 from ``total`` on); traced
    inside the jitted chunk functions below."""
    ids = jnp.arange(step, dtype=jnp.int32)
    if start is not None:
        ids = ids + start
    return jnp.where(ids < total, ids, -1)


@functools.partial(
    jax.jit,
    static_argnames=("kmax", "method", "lam", "num_threads", "step", "total", "max_degree"),
)
def _enumeration_chunk(
    dag: DAG,
    start: jax.Array | None,
    *,
    kmax: int,
    method: str,
    lam: float | None,
    num_threads: int,
    step: int,
    total: int,
    max_degree: int | None = None,
) -> jax.Array:
    """uint32[kmax + 1, 4]: the tasks start .. start + step - 1 (< total), counted.

    One XLA program (task ids, unless the chunk is every edge, and the custom
    call), so an eager count is one dispatch and the device runs its kernels
    back to back.
    """
    whole = start is None and step >= total
    tasks = None if whole else _task_range(start, step=step, total=total)
    return count_cliques_limbs(
        dag,
        kmax,
        method=method,
        lam=lam,
        num_threads=num_threads,
        tasks=tasks,
        max_degree=max_degree,
    )


@functools.partial(
    jax.jit, static_argnames=("hmax", "pmax", "kmin", "num_threads", "step", "total")
)
def _pivot_chunk(
    indptr: jax.Array,
    indices: jax.Array,
    start: jax.Array | None,
    *,
    hmax: int,
    pmax: int,
    kmin: int,
    num_threads: int,
    step: int,
    total: int,
) -> jax.Array:
    """The pivot histogram of root vertices start .. start + step - 1 (< total), one program."""
    roots = _task_range(start, step=step, total=total)
    return _ffi.clique_pivot(
        indptr, indices, roots, hmax=hmax, pmax=pmax, kmin=kmin, num_threads=num_threads
    )


def transitivity(graph: GraphLike, *, order: Order = "degree") -> float:
    """Global clustering coefficient: 3 x triangles / wedges (paths of length 2).

    Eager only. The value is cached per DAG (by its ``indices`` array), so
    repeated ``method="auto"`` counts on one DAG pay for the triangle count once.

    Args:
      graph: a :class:`Graph` or an oriented :class:`DAG`.
      order: orientation of a Graph.

    Returns:
      A float in [0, 1] (0 for a graph without wedges).
    """
    dag = graph if isinstance(graph, DAG) else orient(graph, order=order)
    if isinstance(dag.indices, jax.core.Tracer):
        raise ValueError("transitivity runs eagerly only")
    return _cached(dag, "transitivity", lambda: _transitivity(dag))


def _transitivity(dag: DAG) -> float:
    triangles = limbs_to_int(np.asarray(count_cliques_limbs(dag, 3))[3]) if dag.num_edges else 0
    out_deg = np.asarray(dag.out_degrees(), dtype=np.int64)
    in_deg = np.bincount(np.asarray(dag.indices), minlength=dag.num_nodes)[: dag.num_nodes]
    deg = out_deg + in_deg
    wedges = int((deg * (deg - 1) // 2).sum())
    return 3 * triangles / wedges if wedges else 0.0


def _auto_method(dag: DAG, kmax: int, enumeration_only: bool) -> str:
    """The method "auto" stands for (see :func:`count_cliques`)."""
    if enumeration_only:
        return "kcminer"
    if next(iter(dag.indices.devices())).platform == "cpu":
        return "pivot"  # on the CPU pivoting won at every k measured
    return _auto_gpu_method(dag, kmax)


def _auto_gpu_method(dag: DAG, kmax: int) -> str:
    """The method eager "auto" picks on a GPU (see AUTO_PIVOT_MIN_K)."""
    if kmax >= AUTO_PIVOT_ALWAYS_K:
        return "pivot"
    if kmax < AUTO_PIVOT_MIN_K or transitivity(dag) < AUTO_PIVOT_MIN_TRANSITIVITY:
        return "kcminer"
    return "pivot" if _max_core_is_clique(dag) else "kcminer"


def _max_core_is_clique(dag: DAG) -> bool:
    """Whether the vertices of the largest core number form one clique
    (eager, cached per DAG)."""

    def compute() -> bool:
        _, size, edges = (int(x) for x in _densest_core(dag, _dag_core_numbers(dag)))
        return edges == size * (size - 1) // 2

    return _cached(dag, "max_core_is_clique", compute)


@jax.jit
def _densest_core(dag: DAG, cores: jax.Array) -> tuple[jax.Array, jax.Array, jax.Array]:
    """(degeneracy, vertices of the largest core number, edges among them),
    int32 scalars, from the DAG's core numbers (by rank)."""
    top = jnp.max(cores, initial=0)
    inside = cores == top
    edges = jnp.sum(inside[dag.src] & inside[dag.indices], dtype=jnp.int32)
    return top, jnp.sum(inside, dtype=jnp.int32), edges


def count_all_cliques(
    graph: GraphLike, *, order: Order = "degeneracy", num_threads: int = 0
) -> dict[int, int]:
    """Counts the cliques of every size, 1 up to the clique number, in one run.

    Uses the pivoting counter; exact at any magnitude.

    Args:
      graph: a :class:`Graph` or an oriented :class:`DAG`.
      order: orientation of a Graph.
      num_threads: CPU worker threads (0: all cores).

    Returns:
      ``{k: count}`` for k = 1..omega (empty for a graph without vertices).
    """
    dag = graph if isinstance(graph, DAG) else orient(graph, order=order)
    if dag.num_nodes == 0:
        return {}
    kmax = _max_out_degree(dag) + 1
    counts = _pivot_counts(dag, list(range(1, kmax + 1)), num_threads)
    return {k: c for k, c in enumerate(counts) if k >= 1 and c > 0}


def count_cliques_limbs(
    dag: DAG,
    kmax: int,
    *,
    method: str = "kcminer",
    lam: float | None = None,
    num_threads: int = 0,
    tasks: jax.Array | None = None,
    max_degree: int | None = None,
) -> jax.Array:
    """Counts s-cliques for s = 3..kmax by enumeration; jit-able.

    Args:
      dag: an oriented graph from :func:`kcjax.orient`.
      kmax: largest clique size (>= 3).
      method: one of :data:`ENUMERATION_METHODS`.
      lam: λ override (``None``: policy table).
      num_threads: CPU worker threads (0: all cores).
      tasks: int32[t] edge ids to start from (-1 entries are skipped);
        ``None``: every edge (no task-id array is built).
      max_degree: the DAG's largest out-degree, if known as a Python int
        (``int(dag.max_out_degree())``; eager counts pass it). A hint for
        the CUDA handler: it sorts the tasks on the key bits the hint needs,
        and counts KCMiner's k = 4 in one kernel on graphs whose candidate
        sets all fit one bitmap word (max_degree <= 32). Any value gives the
        exact count; a value below the true maximum only costs a re-sort.

    Returns:
      uint32[kmax + 1, 4]: row s holds the 128-bit count of s-cliques whose
      two lowest-ranked vertices form a task edge (rows 0..2 are zero).
    """
    if kmax < 3:
        raise ValueError(f"kmax must be >= 3, got {kmax}")
    if method not in ENUMERATION_METHODS:
        raise ValueError(f"method must be one of {tuple(ENUMERATION_METHODS)}, got {method!r}")
    if max_degree is not None and not 0 <= int(max_degree) < 2**31:
        raise ValueError(f"max_degree must be in [0, 2^31), got {max_degree}")
    return _ffi.clique_count(
        dag.indptr,
        dag.indices,
        dag.src,
        jnp.zeros((0,), jnp.int32) if tasks is None else jnp.asarray(tasks, jnp.int32),
        kmax=kmax,
        method=ENUMERATION_METHODS[method],
        lam=-1.0 if lam is None else float(lam),
        num_threads=num_threads,
        all_edges=tasks is None,
        max_degree=-1 if max_degree is None else int(max_degree),
    )


def _small_limbs(dag: DAG, s: int) -> jax.Array:
    value = dag.num_nodes if s == 1 else dag.num_edges
    return jnp.array([value & 0xFFFFFFFF, value >> 32, 0, 0], jnp.uint32)


def _enumeration_counts(
    dag: DAG,
    kmax: int,
    method: str,
    lam: float | None,
    num_threads: int,
    chunk_size: int | None,
    progress: ProgressFn | None,
) -> list[int]:
    totals = [0] * (kmax + 1)
    totals[1] = dag.num_nodes
    if kmax >= 2:
        totals[2] = dag.num_edges
    if kmax < 3 or dag.num_edges == 0:
        if progress is not None:
            progress(dag.num_edges, dag.num_edges)
        return totals
    m = dag.num_edges
    step = m if chunk_size is None else min(chunk_size, m)
    max_degree = _max_out_degree(dag)

    def dispatch(start: int) -> jax.Array:
        return _enumeration_chunk(
            dag,
            _chunk_start(start),
            kmax=kmax,
            method=method,
            lam=lam,
            num_threads=num_threads,
            step=step,
            total=m,
            max_degree=max_degree,
        )

    def consume(limbs: jax.Array) -> None:
        host = np.asarray(limbs)
        for s in range(3, kmax + 1):
            totals[s] += limbs_to_int(host[s])

    _run_chunks(m, step, dispatch, consume, progress)
    return totals


def _run_chunks(
    total: int,
    step: int,
    dispatch: Callable[[int], jax.Array],
    consume: Callable[[jax.Array], None],
    progress: ProgressFn | None,
) -> None:
    """dispatch(start) for start = 0, step, ... < total, one chunk ahead of the
    host: chunk i + 1 is enqueued and the copy of its result started before
    chunk i's result is read by consume(); progress(stop, total) follows
    every consume. The device never waits for the host between chunks, and
    a single chunk's result copy is queued behind its kernels."""
    ahead: tuple[jax.Array, int] | None = None
    for start in range(0, total, step):
        out = dispatch(start)
        out.copy_to_host_async()
        if ahead is not None:
            _consume(ahead, total, consume, progress)
        ahead = (out, min(start + step, total))
    if ahead is not None:
        _consume(ahead, total, consume, progress)


def _consume(
    ahead: tuple[jax.Array, int],
    total: int,
    consume: Callable[[jax.Array], None],
    progress: ProgressFn | None,
) -> None:
    out, stop = ahead
    consume(out)
    if progress is not None:
        progress(stop, total)


def _pivot_counts(
    dag: DAG,
    ks: list[int],
    num_threads: int,
    chunk_size: int | None = None,
    progress: ProgressFn | None = None,
) -> list[int]:
    """Counts by pivoting over vertex tasks (in chunks), finished with Python ints."""
    kmax = ks[-1]
    totals = [0] * (kmax + 1)
    n = dag.num_nodes
    if n == 0:
        return totals
    pmax = _max_out_degree(dag)
    step = n if chunk_size is None else min(chunk_size, n)

    def dispatch(start: int) -> jax.Array:
        return _pivot_chunk(
            dag.indptr,
            dag.indices,
            _chunk_start(start),
            hmax=kmax,
            pmax=pmax,
            kmin=ks[0],
            num_threads=num_threads,
            step=step,
            total=n,
        )

    def consume(hist: jax.Array) -> None:
        for (h, p), leaves in _histogram_entries(hist):
            for s in ks:
                if h <= s <= h + p:
                    totals[s] += leaves * math.comb(p, s - h)

    _run_chunks(n, step, dispatch, consume, progress)
    return totals


def _histogram_entries(hist: jax.Array) -> list[tuple[tuple[int, int], int]]:
    """Nonzero entries ((h, p), leaves) of a uint32[H, P, 4] 128-bit histogram."""
    a = np.asarray(hist).astype(np.uint64)
    lo = a[..., 0] | (a[..., 1] << np.uint64(32))
    hi = a[..., 2] | (a[..., 3] << np.uint64(32))
    return [
        ((int(h), int(p)), int(lo[h, p]) + (int(hi[h, p]) << 64))
        for h, p in zip(*np.nonzero(lo | hi), strict=True)
    ]
