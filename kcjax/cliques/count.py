"""k-clique counts: the public entry points over the native targets."""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Iterable

import jax
import numpy as np

from kcjax import _wide
from kcjax._args import as_int, as_ints, check_choice
from kcjax._chunks import ProgressFn, chunk_start, run_chunks, run_weighted_chunks, task_range
from kcjax.cliques import chunked, kernels, sharded
from kcjax.cliques.auto import auto_method
from kcjax.cliques.dense import count_cliques_dense
from kcjax.cliques.kernels import ENUMERATION_METHODS, count_cliques_limbs
from kcjax.cliques.sharded import count_cliques_sharded
from kcjax.graph.orient import DAG, GraphLike, Order, as_dag, is_traced, max_out_degree
from kcjax.graph.tasks import STRATEGIES

#: Every accepted ``method``: the enumeration strategies, "pivot", "dense"
#: (pure JAX, :mod:`kcjax.cliques.dense`) and "auto".
METHODS: tuple[str, ...] = ("auto", "pivot", "dense", *ENUMERATION_METHODS)


def limbs_to_int(limbs: jax.Array | np.ndarray) -> int:
    """Converts a uint32[4] little-endian 128-bit count to a Python int."""
    return _wide.to_int(limbs)


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
      method: ``"auto"`` (KCMiner enumeration under jit; eagerly, with or
        without a mesh, pivoting on the CPU, and on a GPU enumerating where a
        bound of its work is small or :func:`kcjax.clique_cost_estimate` finds
        the work in dense non-cliques, pivoting where it sits in near-cliques:
        the rule of :func:`kcjax.cliques.auto.auto_gpu_method`), one of
        :data:`ENUMERATION_METHODS` (ablation baselines), ``"pivot"``, or
        ``"dense"`` (the pure-JAX formulation of :mod:`kcjax.cliques.dense`).
      order: orientation of a Graph: ``"degree"`` or ``"degeneracy"``.
      lam: density threshold λ for building bitmap spaces at every level
        (``None``: the tuned per-(k, level) table in policy.h).
      num_threads: CPU worker threads (0: all cores); ignored on GPU.
      chunk_size: process the tasks (edges; root vertices when pivoting) in
        chunks of this many (eager only), calling ``progress`` after each.
        ``None``: one call, unless the count is estimated to take at least
        ``kcjax.cliques.chunked.LONG_COUNT_S`` (half a second): then it splits
        itself into chunks of about a quarter second of estimated work, so
        Ctrl-C (KeyboardInterrupt) stops it between chunks.
      progress: ``progress(done, total)`` after every chunk: ``total`` is
        the number of tasks, ``done`` the tasks finished (in a count that
        splits itself: the estimated share of the work finished, in tasks).
      mesh: count on the devices of this mesh (one axis; see
        :mod:`kcjax.cliques.sharded`): the CSR is replicated, the tasks
        (edge tasks for enumeration, root vertices for ``"pivot"``) are dealt
        across the devices and the counts summed exactly. Eagerly the first
        :func:`kcjax.cliques.sharded.mesh_devices` devices of the axis run
        (fewer than all where the work is too small to pay for the
        exchange); under jit every device. Works on one host or, under
        ``jax.distributed``, on many. No ``chunk_size`` or ``progress``.
      split: how edge tasks are dealt to devices: ``"balanced"`` (by
        candidate-set size, heavy first) or ``"round_robin"`` (KCMiner's split).
      axis_name: the mesh axis to split over (default: the mesh's only axis).

    Returns:
      The count (int) for one size, or ``{k: count}`` for several.

    Raises:
      TypeError: for a k that is not an int or an iterable of ints (bools,
        floats and strings are refused).
      ValueError: for k < 1, an unknown method, order or split, or a bad
        chunk size.
    """
    ks, single = as_ints(k, "clique size k", minimum=1)
    check_choice(method, "method", METHODS)
    check_choice(split, "split", STRATEGIES)
    if chunk_size is not None:
        as_int(chunk_size, "chunk_size", minimum=1)
    dag = as_dag(graph, order)
    traced = is_traced(dag)
    if not traced and method != "dense" and ks[-1] > 3:
        # A k-clique's first vertex in the orientation has k - 1 out-neighbours,
        # so the sizes above max out-degree + 1 count 0 without a search.
        bound = max_out_degree(dag) + 1
        if ks[-1] > bound:
            below = [s for s in ks if s <= bound]
            counts: dict[int, int] = {}
            if below:
                counts = count_cliques(
                    dag,
                    below,
                    method=method,
                    lam=lam,
                    num_threads=num_threads,
                    chunk_size=chunk_size,
                    progress=progress,
                    mesh=mesh,
                    split=split,
                    axis_name=axis_name,
                )
            elif progress is not None:
                tasks = dag.num_nodes if method == "pivot" else dag.num_edges
                progress(tasks, tasks)
            result = {s: counts.get(s, 0) for s in ks}
            return result[ks[0]] if single else result
    kmax = ks[-1]
    if method == "auto":
        method = auto_method(dag, kmax, enumeration_only=traced)

    if mesh is not None:
        if chunk_size is not None or progress is not None:
            raise ValueError("mesh= counts in one call: no chunks or progress")
        if method == "dense":
            raise ValueError("mesh= runs the native methods, not 'dense'")
        if method == "pivot" and traced:
            raise ValueError(
                "method='pivot' runs eagerly only (its histogram is finished on the host)"
            )
        if traced:
            limbs = _sharded_limbs(dag, kmax, mesh, method, split, axis_name, lam, num_threads)
            return _traced_result(dag, limbs, ks, single)
        counts = _mesh_counts(dag, ks, method, mesh, split, axis_name, lam, num_threads)
    elif method == "pivot":
        if traced:
            raise ValueError(
                "method='pivot' runs eagerly only (its histogram is finished on the host)"
            )
        counts = pivot_counts(dag, ks, num_threads, chunk_size, progress)
    elif method == "dense" or traced:
        if method == "dense":
            limbs = count_cliques_dense(dag, max(kmax, 3))
        else:
            limbs = count_cliques_limbs(
                dag, max(kmax, 3), method=method, lam=lam, num_threads=num_threads
            )
        if traced:
            return _traced_result(dag, limbs, ks, single)
        counts = _host_counts(dag, np.asarray(limbs), kmax)
    else:
        counts = enumeration_counts(dag, kmax, method, lam, num_threads, chunk_size, progress)
    result = {s: counts[s] for s in ks}
    return result[ks[0]] if single else result


def _mesh_counts(
    dag: DAG,
    ks: list[int],
    method: str,
    mesh: jax.sharding.Mesh,
    split: str,
    axis_name: str | None,
    lam: float | None,
    num_threads: int,
) -> list[int]:
    """Eager counts over the first :func:`~kcjax.cliques.sharded.mesh_devices` of the mesh."""
    kmax = ks[-1]
    active = sharded.active_mesh(dag, kmax, mesh, method=method, axis_name=axis_name)
    if method == "pivot":
        totals = [0] * (kmax + 1)
        if dag.num_nodes:
            hist = sharded.pivot_histogram_sharded(
                dag, active, hmax=kmax, kmin=ks[0], axis_name=axis_name, num_threads=num_threads
            )
            add_pivot_counts(sharded.host_limbs(hist), ks, totals)
        return totals
    if kmax < 3 or dag.num_edges == 0:
        return _host_counts(dag, np.zeros((kmax + 1, 4), np.uint32), kmax)
    limbs = _sharded_limbs(dag, kmax, active, method, split, axis_name, lam, num_threads)
    return _host_counts(dag, sharded.host_limbs(limbs), kmax)


def _sharded_limbs(
    dag: DAG,
    kmax: int,
    mesh: jax.sharding.Mesh,
    method: str,
    split: str,
    axis_name: str | None,
    lam: float | None,
    num_threads: int,
) -> jax.Array:
    """uint32[max(kmax, 3) + 1, 4]: the enumeration over ``mesh``, replicated."""
    return count_cliques_sharded(
        dag,
        max(kmax, 3),
        mesh,
        axis_name=axis_name,
        method=method,
        strategy=split,
        lam=lam,
        num_threads=num_threads,
    )


def add_pivot_counts(hist: np.ndarray | jax.Array, ks: list[int], totals: list[int]) -> None:
    """Adds the k-cliques of a pivot histogram (uint32[hmax + 1, pmax + 1, 4]) to
    ``totals[k]`` for every k in ``ks``, exactly: ``sum hist[h, p] * C(p, k - h)``."""
    for (h, p), leaves in _wide.nonzero_entries(hist):
        for s in ks:
            if h <= s <= h + p:
                totals[s] += leaves * math.comb(p, s - h)


def _traced_result(
    dag: DAG, limbs: jax.Array, ks: list[int], single: bool
) -> jax.Array | dict[int, jax.Array]:
    """The limbs of every asked size under jit (sizes 1 and 2 from the DAG's shape)."""
    out = {
        s: _wide.from_int(dag.num_nodes if s == 1 else dag.num_edges) if s <= 2 else limbs[s]
        for s in ks
    }
    return out[ks[0]] if single else out


def _host_counts(dag: DAG, host: np.ndarray, kmax: int) -> list[int]:
    """Counts of sizes 0..kmax as ints from uint32[kmax + 1, 4] limbs of sizes >= 3."""
    counts = [0, dag.num_nodes, dag.num_edges]
    return counts + [_wide.to_int(host[s]) for s in range(3, kmax + 1)]


@functools.partial(
    jax.jit,
    static_argnames=("kmax", "method", "lam", "num_threads", "step", "total", "max_degree"),
)
def enumeration_chunk(
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
    tasks = None if whole else task_range(start, step=step, total=total)
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
def pivot_chunk(
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
    roots = task_range(start, step=step, total=total)
    return kernels.clique_pivot(
        indptr, indices, roots, hmax=hmax, pmax=pmax, kmin=kmin, num_threads=num_threads
    )


def count_all_cliques(
    graph: GraphLike,
    *,
    order: Order = "degeneracy",
    num_threads: int = 0,
    mesh: jax.sharding.Mesh | None = None,
    axis_name: str | None = None,
) -> dict[int, int]:
    """Counts the cliques of every size, 1 up to the clique number, in one run.

    Uses the pivoting counter; exact at any magnitude.

    Args:
      graph: a :class:`Graph` or an oriented :class:`DAG`.
      order: orientation of a Graph.
      num_threads: CPU worker threads (0: all cores; per device with a mesh).
      mesh: count on the devices of this mesh (one axis): root vertices
        dealt by estimated cost, the pivot histograms summed exactly; the
        first :func:`kcjax.cliques.sharded.mesh_devices` devices run.
      axis_name: the mesh axis (default: the mesh's only axis).

    Returns:
      ``{k: count}`` for k = 1..omega (empty for a graph without vertices).
    """
    dag = as_dag(graph, order)
    if dag.num_nodes == 0:
        return {}
    kmax = max_out_degree(dag) + 1
    ks = list(range(1, kmax + 1))
    if mesh is None:
        counts = pivot_counts(dag, ks, num_threads)
    else:
        counts = _mesh_counts(dag, ks, "pivot", mesh, "balanced", axis_name, None, num_threads)
    return {k: c for k, c in enumerate(counts) if k >= 1 and c > 0}


def enumeration_counts(
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
    max_degree = max_out_degree(dag)

    def dispatch(start: int, step: int) -> jax.Array:
        return enumeration_chunk(
            dag,
            chunk_start(start),
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
            totals[s] += _wide.to_int(host[s])

    _run(dag, kmax, False, num_threads, chunk_size, dispatch, consume, progress)
    return totals


def pivot_counts(
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
    pmax = max_out_degree(dag)

    def dispatch(start: int, step: int) -> jax.Array:
        return pivot_chunk(
            dag.indptr,
            dag.indices,
            chunk_start(start),
            hmax=kmax,
            pmax=pmax,
            kmin=ks[0],
            num_threads=num_threads,
            step=step,
            total=n,
        )

    def consume(hist: jax.Array) -> None:
        add_pivot_counts(hist, ks, totals)

    _run(dag, kmax, True, num_threads, chunk_size, dispatch, consume, progress)
    return totals


def _run(
    dag: DAG,
    kmax: int,
    pivot: bool,
    num_threads: int,
    chunk_size: int | None,
    dispatch: Callable[[int, int], jax.Array],
    consume: Callable[[jax.Array], None],
    progress: ProgressFn | None,
) -> None:
    """Runs a count's tasks (edges, or root vertices when pivoting): in chunks
    of ``chunk_size`` tasks; else in one dispatch, unless the count is
    estimated to be long (:mod:`kcjax.cliques.chunked`): then in chunks of
    about a quarter second of estimated work, interruptible between chunks,
    progress weighted by the work."""
    total = dag.num_nodes if pivot else dag.num_edges
    if chunk_size is not None:
        step = min(chunk_size, total)
        run_chunks(total, step, lambda start: dispatch(start, step), consume, progress)
        return
    seconds = chunked.count_seconds(dag, kmax, pivot=pivot, num_threads=num_threads)
    if seconds < chunked.LONG_COUNT_S:
        run_chunks(total, total, lambda start: dispatch(start, total), consume, progress)
        return
    profile = chunked.task_profile(dag, kmax, pivot=pivot)
    run_weighted_chunks(profile, seconds, chunked.chunk_seconds(dag), dispatch, consume, progress)
