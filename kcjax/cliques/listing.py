"""The cliques themselves: listing, streaming, and one largest clique."""

from __future__ import annotations

import functools
from collections.abc import Iterator

import jax
import jax.numpy as jnp
import numpy as np

from kcjax import _wide
from kcjax._args import as_int
from kcjax._chunks import ProgressFn
from kcjax._memory import require
from kcjax.cliques import kernels, sharded
from kcjax.cliques.count import count_cliques
from kcjax.cliques.kernels import ENUMERATION_METHODS, check_enumeration_method
from kcjax.errors import ListingOverflowError
from kcjax.graph.orient import DAG, GraphLike, Order, as_dag, max_out_degree


def list_cliques(
    graph: GraphLike,
    k: int,
    capacity: int | None = None,
    *,
    method: str = "kcminer",
    order: Order = "degree",
    num_threads: int = 0,
    stop_when_full: bool = False,
) -> np.ndarray | tuple[jax.Array, jax.Array, jax.Array]:
    """Lists every k-clique, in the caller's original vertex ids.

    Eagerly, the cliques are counted first when ``capacity`` is None, so the
    result is sized exactly; with a ``capacity`` smaller than the number of
    cliques a :class:`ListingOverflowError` is raised (never a silent
    truncation). Under ``jax.jit`` a static ``capacity`` is required and the
    result is ``(cliques, count, overflow)``.

    Args:
      graph: a :class:`Graph` or an oriented :class:`DAG`.
      k: clique size, >= 1.
      capacity: rows to allocate (required under jit).
      method: enumeration strategy (one of ``ENUMERATION_METHODS``).
      order: orientation of a Graph.
      num_threads: CPU worker threads (0: all cores).
      stop_when_full: under jit, stop once ``capacity`` rows are written (the
        first cliques found, for a sample or a throughput test); the count is
        then at least ``capacity + 1`` when more exist, not the total.

    Returns:
      Eagerly: int32[c, k], one clique per row, each row ascending, rows in
      no particular order (empty at once for a k above the largest
      out-degree + 1, which no clique reaches). Under jit: (int32[capacity, k] with rows past the
      count set to -1, uint32[4] 128-bit count, bool overflow).
    """
    dag = as_dag(graph, order)
    k = _check(k, method)
    traced = isinstance(dag.indices, jax.core.Tracer)
    if traced and capacity is None:
        raise ValueError("list_cliques under jit needs a static capacity")
    if stop_when_full and not traced:
        raise ValueError("stop_when_full applies under jit only (eagerly the listing is exact)")
    if not traced:
        if capacity is not None:
            capacity = as_int(capacity, "capacity", minimum=0)
        if k > 2 and k > max_out_degree(dag) + 1:  # no k-clique: nothing to size by k
            return np.zeros((0, k), np.int32)
        if capacity is None:
            capacity = int(count_cliques(dag, k, method=method, num_threads=num_threads))
        _check_listing_fits(capacity, k)
    cliques, count = _list(dag, k, capacity, method, num_threads, stop_when_full)
    if traced:
        return cliques, count, _wide.exceeds(count, capacity)
    found = _wide.to_int(count)
    if found > capacity:
        raise ListingOverflowError(f"{found} {k}-cliques exist but capacity is {capacity}")
    return np.asarray(cliques)[:found]


def iter_cliques(
    graph: GraphLike,
    k: int,
    batch: int = 1 << 20,
    *,
    method: str = "kcminer",
    order: Order = "degree",
    num_threads: int = 0,
    progress: ProgressFn | None = None,
) -> Iterator[np.ndarray]:
    """Streams the k-cliques to the host in batches of at most ``batch`` rows.

    The edge tasks are listed range by range with a fixed capacity; a range
    that overflows is split in half and retried, so device memory stays
    bounded by ``batch`` rows (a single task with more cliques than ``batch``
    is listed alone with an exact capacity). A k above the largest
    out-degree + 1 (no k-clique exists) yields nothing without a search.

    Args:
      graph: a :class:`Graph` or an oriented :class:`DAG`.
      k: clique size, >= 3 (use :func:`list_cliques` for 1 and 2).
      batch: largest number of rows per yielded array.
      method: enumeration strategy.
      order: orientation of a Graph.
      num_threads: CPU worker threads (0: all cores).
      progress: ``progress(done_tasks, total_tasks)`` after every range.

    Yields:
      int32[c, k] arrays of cliques in original ids, each row ascending.
    """
    dag = as_dag(graph, order)
    k = _check(k, method)
    if k < 3:
        raise ValueError("iter_cliques streams k >= 3; use list_cliques for k = 1, 2")
    batch = as_int(batch, "batch", minimum=1)
    m = dag.num_edges
    if k > max_out_degree(dag) + 1:
        if progress is not None:
            progress(m, m)
        return
    start, step = 0, max(1, min(m, 1 << 12))
    while start < m:
        stop = min(start + step, m)
        tasks = np.full(step, -1, np.int32)
        tasks[: stop - start] = np.arange(start, stop, dtype=np.int32)
        cliques, count = _list(dag, k, batch, method, num_threads, False, tasks)
        found = _wide.to_int(count)
        if found > batch and stop - start > 1:
            step = max(1, step // 2)
            continue
        if found > batch:  # one task alone holds more than a batch
            cliques, count = _list(dag, k, found, method, num_threads, False, tasks)
        if found:
            yield np.asarray(cliques)[:found]
        start = stop
        if progress is not None:
            progress(start, m)
        if found < batch // 4:
            step = min(step * 2, 1 << 20)


def clique_number(
    graph: GraphLike,
    *,
    order: Order = "degeneracy",
    num_threads: int = 0,
    mesh: jax.sharding.Mesh | None = None,
    axis_name: str | None = None,
) -> tuple[int, np.ndarray]:
    """The size of a largest clique, and one largest clique.

    The size comes from the pivoting counter (the largest held + pivot count
    of a succinct-clique-tree leaf); one clique of that size is then listed
    with a search that stops at the first one found.

    Args:
      graph: a :class:`Graph` or an oriented :class:`DAG`.
      order: orientation of a Graph.
      num_threads: CPU worker threads (0: all cores).
      mesh: find the size on the devices of this mesh (one axis): root
        vertices dealt across the devices, the pivot histograms summed
        exactly (the first :func:`kcjax.cliques.sharded.mesh_devices`
        devices run); the one clique is then listed on the default device.
      axis_name: the mesh axis (default: the mesh's only axis).

    Returns:
      (omega, int32[omega] vertex ids of one omega-clique, ascending); (0,
      empty) for a graph without vertices.
    """
    dag = as_dag(graph, order)
    if dag.num_nodes == 0:
        return 0, np.zeros(0, np.int32)
    if dag.num_edges == 0:
        return 1, np.asarray(dag.order[:1])
    pmax = int(dag.max_out_degree())
    if mesh is not None:
        active = sharded.active_mesh(dag, pmax + 1, mesh, method="pivot", axis_name=axis_name)
        hist = sharded.host_limbs(
            sharded.pivot_histogram_sharded(
                dag, active, hmax=pmax + 1, kmin=1, axis_name=axis_name, num_threads=num_threads
            )
        )
    else:
        hist = kernels.clique_pivot(
            dag.indptr,
            dag.indices,
            jnp.arange(dag.num_nodes, dtype=jnp.int32),
            hmax=pmax + 1,
            pmax=pmax,
            kmin=1,
            num_threads=num_threads,
        )
    omega = max(h + p for (h, p), _ in _wide.nonzero_entries(hist))
    if omega <= 2:
        src, dst = (np.asarray(a[:1]) for a in (dag.src, dag.indices))
        order_ = np.asarray(dag.order)
        return 2, np.sort(order_[np.concatenate([src, dst])]).astype(np.int32)
    cliques, _ = _list(dag, omega, 1, "kcminer", num_threads, stop_when_full=True)
    return omega, np.asarray(cliques)[0]


def _check_listing_fits(rows: int, k: int) -> None:
    """Raises ValueError before listing ``rows`` k-cliques that would not fit
    the device (rows and their sort) or the host (the returned array)."""
    what = f"listing {rows:,} {k}-cliques"
    fix = "stream them with iter_cliques (CLI: kcjax list -k K -o FILE.npy)"
    require(2 * rows * k * 4, what, fix)
    require(rows * k * 4, what, fix, host=True)


def _check(k: int, method: str) -> int:
    """k as an int (>= 1), after checking it and the method."""
    check_enumeration_method(method)
    return as_int(k, "clique size k", minimum=1)


def _list(
    dag: DAG,
    k: int,
    capacity: int,
    method: str,
    num_threads: int,
    stop_when_full: bool,
    tasks: np.ndarray | jax.Array | None = None,
) -> tuple[jax.Array, jax.Array]:
    """Lists k-cliques in original ids: (int32[capacity, k] rows ascending, uint32[4])."""
    if k == 1:
        rows = jnp.full((capacity, 1), -1, jnp.int32)
        take = min(capacity, dag.num_nodes)
        rows = rows.at[:take, 0].set(jnp.sort(dag.order)[:take])
        return rows, _wide.from_int(dag.num_nodes)
    if k == 2:
        pairs = jnp.stack([dag.order[dag.src], dag.order[dag.indices]], axis=1)
        pairs = jnp.sort(pairs, axis=1)
        take = min(capacity, dag.num_edges)
        rows = jnp.full((capacity, 2), -1, jnp.int32).at[:take].set(pairs[:take])
        return rows, _wide.from_int(dag.num_edges)
    return _list_ids(
        dag,
        None if tasks is None else jnp.asarray(tasks, jnp.int32),
        k=k,
        capacity=capacity,
        method=method,
        num_threads=num_threads,
        stop_when_full=stop_when_full,
    )


@functools.partial(
    jax.jit, static_argnames=("k", "capacity", "method", "num_threads", "stop_when_full")
)
def _list_ids(
    dag: DAG,
    tasks: jax.Array | None,
    *,
    k: int,
    capacity: int,
    method: str,
    num_threads: int,
    stop_when_full: bool,
) -> tuple[jax.Array, jax.Array]:
    """The listing kernel and the map from ranks to original ids, one program (k >= 3)."""
    if tasks is None:
        tasks = jnp.arange(dag.num_edges, dtype=jnp.int32)
    ranks, count = kernels.clique_list(
        dag.indptr,
        dag.indices,
        dag.src,
        tasks,
        k=k,
        capacity=capacity,
        method=ENUMERATION_METHODS[method],
        lam=-1.0,
        num_threads=num_threads,
        stop_when_full=stop_when_full,
    )
    ids = jnp.where(ranks >= 0, dag.order[jnp.maximum(ranks, 0)], -1)
    return jnp.sort(ids, axis=1), count
