"""The cliques themselves: listing, streaming, per-vertex counts, clique number."""

from __future__ import annotations

import math
from collections.abc import Iterator

import jax
import jax.numpy as jnp
import numpy as np

from kcjax import _ffi
from kcjax.cliques import (
    ENUMERATION_METHODS,
    GraphLike,
    ProgressFn,
    _histogram_entries,
    _pivot_counts,
    limbs_to_int,
    transitivity,
)
from kcjax.graph import Graph
from kcjax.orient import DAG, Order, orient


class ListingOverflowError(RuntimeError):
    """More cliques exist than the capacity given to :func:`list_cliques`."""


def list_cliques(
    graph: GraphLike,
    k: int,
    capacity: int | None = None,
    *,
    method: str = "kcminer",
    order: Order = "degree",
    num_threads: int = 0,
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

    Returns:
      Eagerly: int32[c, k], one clique per row, each row ascending, rows in
      no particular order. Under jit: (int32[capacity, k] with rows past the
      count set to -1, uint32[4] 128-bit count, bool overflow).
    """
    dag = _as_dag(graph, order)
    _check(k, method)
    traced = isinstance(dag.indices, jax.core.Tracer)
    if traced and capacity is None:
        raise ValueError("list_cliques under jit needs a static capacity")
    if not traced and capacity is None:
        from kcjax.cliques import count_cliques

        capacity = int(count_cliques(dag, k, method=method, num_threads=num_threads))
    cliques, count = _list(dag, k, capacity, method, num_threads, stop_when_full=False)
    if traced:
        return cliques, count, _limbs_exceed(count, capacity)
    found = limbs_to_int(count)
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
    is listed alone with an exact capacity).

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
    dag = _as_dag(graph, order)
    _check(k, method)
    if k < 3:
        raise ValueError("iter_cliques streams k >= 3; use list_cliques for k = 1, 2")
    if batch < 1:
        raise ValueError(f"batch must be >= 1, got {batch}")
    m = dag.num_edges
    start, step = 0, max(1, min(m, 1 << 12))
    while start < m:
        stop = min(start + step, m)
        tasks = np.full(step, -1, np.int32)
        tasks[: stop - start] = np.arange(start, stop, dtype=np.int32)
        cliques, count = _list(dag, k, batch, method, num_threads, False, tasks)
        found = limbs_to_int(count)
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


def clique_counts_per_vertex(
    graph: GraphLike,
    k: int,
    *,
    method: str = "auto",
    order: Order = "degree",
    num_threads: int = 0,
    exact: bool = False,
) -> np.ndarray:
    """How many k-cliques contain each vertex (local clique counts).

    ``method="pivot"`` walks the succinct clique tree of the pivoting counter
    and shares out each node's k-cliques among its vertices (binomial
    coefficients of its held and pivot vertices), so no clique is visited one
    by one; the enumeration methods visit every k-clique. ``"auto"`` pivots
    from k = 7 on and at k = 5, 6 on graphs of high transitivity (see
    ``AUTO_LOCAL_PIVOT_MIN_TRANSITIVITY``), and enumerates with KCMiner
    otherwise. Every method returns the same counts (128-bit on the device,
    CPU and CUDA alike).

    Args:
      graph: a :class:`Graph` or an oriented :class:`DAG`.
      k: clique size, >= 1.
      method: ``"auto"``, ``"pivot"``, or one of ``ENUMERATION_METHODS``.
      order: orientation of a Graph.
      num_threads: CPU worker threads (0: all cores).
      exact: return Python ints (object dtype), exact past 2^64.

    Returns:
      uint64[n] (object[n] of Python ints with ``exact=True``) indexed by
      original vertex id; sums to k times the number of k-cliques.

    Raises:
      OverflowError: if a vertex lies in 2^64 or more k-cliques and ``exact``
        is False, or if k times the number of k-cliques reaches 2^128 (the
        per-vertex totals are 128-bit; checked before any is computed).
    """
    dag = _as_dag(graph, order)
    if k < 1:
        raise ValueError(f"clique size k must be >= 1, got {k}")
    if method not in ("auto", "pivot", *ENUMERATION_METHODS):
        raise ValueError(
            f"method must be 'auto', 'pivot' or one of {tuple(ENUMERATION_METHODS)}, got {method!r}"
        )
    n = dag.num_nodes
    if k <= 2:
        if k == 1:
            small = np.ones(n, np.uint64)
        else:
            src, dst = np.asarray(dag.src), np.asarray(dag.indices)
            small = np.bincount(np.concatenate([src, dst]), minlength=n).astype(np.uint64)
        limbs = np.zeros((n, 4), np.uint64)
        limbs[:, 0] = small & np.uint64(0xFFFFFFFF)
        limbs[:, 1] = small >> np.uint64(32)
    else:
        if method == "auto":
            method = _auto_local_method(dag, k)
        if method == "pivot":
            _check_local_magnitude(dag, k, num_threads)
            limbs = _ffi.clique_pivot_local(
                dag.indptr,
                dag.indices,
                jnp.arange(n, dtype=jnp.int32),
                k=k,
                num_threads=num_threads,
            )
        else:
            limbs = _ffi.clique_per_vertex(
                dag.indptr,
                dag.indices,
                dag.src,
                jnp.arange(dag.num_edges, dtype=jnp.int32),
                k=k,
                method=ENUMERATION_METHODS[method],
                lam=-1.0,
                num_threads=num_threads,
            )
    per_rank = _limbs_per_row(np.asarray(limbs), exact, k)
    out = np.zeros(n, per_rank.dtype)
    out[np.asarray(dag.order)] = per_rank
    return out


#: ``clique_counts_per_vertex(method="auto")`` shares out by pivoting from
#: k = 7 on, and at k = 5 and 6 on graphs whose transitivity (see
#: :func:`kcjax.transitivity`) is at least this; it enumerates otherwise.
#: Fitted to experiments/results/h200_local.json (one H200): per-vertex
#: enumeration pays one atomic per clique member, so pivoting wins earlier
#: than for counts (k = 6: email-Enron 0.085 3.8 -> 3.0 ms, cit-HepTh 0.12
#: 8.1 -> 3.3 ms; loses on soc-Epinions1 0.066, 19 -> 39 ms); at k = 5 only
#: the dense neighbourhoods win (com-dblp 0.31: 10 -> 0.8 ms).
AUTO_LOCAL_PIVOT_MIN_TRANSITIVITY = {5: 0.3, 6: 0.1}
AUTO_LOCAL_PIVOT_ALWAYS_K = 7


def _auto_local_method(dag: DAG, k: int) -> str:
    """The method ``clique_counts_per_vertex(method="auto")`` stands for."""
    if k >= AUTO_LOCAL_PIVOT_ALWAYS_K:
        return "pivot"
    threshold = AUTO_LOCAL_PIVOT_MIN_TRANSITIVITY.get(k)
    if threshold is None or transitivity(dag) < threshold:
        return "kcminer"
    return "pivot"


def _check_local_magnitude(dag: DAG, k: int, num_threads: int) -> None:
    """Raises OverflowError unless k * count_k < 2^128 (the per-vertex totals
    of the pivot counter are 128-bit). Every k-clique has one lowest-ranked
    vertex v and the rest among its d+(v) out-neighbours, so sum_v C(d+(v),
    k - 1) bounds count_k; only when that bound is too large is count_k
    itself computed (by the histogram counter)."""
    degrees, freq = np.unique(np.asarray(dag.out_degrees()), return_counts=True)
    bound = sum(int(f) * math.comb(int(d), k - 1) for d, f in zip(degrees, freq, strict=True))
    if k * bound < 1 << 128:
        return
    if k * _pivot_counts(dag, [k], num_threads)[k] >= 1 << 128:
        raise OverflowError(
            f"k times the number of {k}-cliques reaches 2^128: per-vertex counts are 128-bit"
        )


def _limbs_per_row(limbs: np.ndarray, exact: bool, k: int) -> np.ndarray:
    """uint32[n, 4] 128-bit limbs -> uint64[n], or object[n] of Python ints."""
    a = limbs.astype(np.uint64)
    lo = a[:, 0] | (a[:, 1] << np.uint64(32))
    hi = a[:, 2] | (a[:, 3] << np.uint64(32))
    if exact:
        return lo.astype(object) + (hi.astype(object) << 64)
    if np.any(hi):
        raise OverflowError(f"some vertex lies in 2^64 or more {k}-cliques; pass exact=True")
    return lo


def clique_number(
    graph: GraphLike, *, order: Order = "degeneracy", num_threads: int = 0
) -> tuple[int, np.ndarray]:
    """The size of a largest clique, and one largest clique.

    The size comes from the pivoting counter (the largest held + pivot count
    of a succinct-clique-tree leaf); one clique of that size is then listed
    with a search that stops at the first one found.

    Args:
      graph: a :class:`Graph` or an oriented :class:`DAG`.
      order: orientation of a Graph.
      num_threads: CPU worker threads (0: all cores).

    Returns:
      (omega, int32[omega] vertex ids of one omega-clique, ascending); (0,
      empty) for a graph without vertices.
    """
    dag = _as_dag(graph, order)
    if dag.num_nodes == 0:
        return 0, np.zeros(0, np.int32)
    if dag.num_edges == 0:
        return 1, np.asarray(dag.order[:1])
    pmax = int(dag.max_out_degree())
    hist = _ffi.clique_pivot(
        dag.indptr,
        dag.indices,
        jnp.arange(dag.num_nodes, dtype=jnp.int32),
        hmax=pmax + 1,
        pmax=pmax,
        kmin=1,
        num_threads=num_threads,
    )
    omega = max(h + p for (h, p), _ in _histogram_entries(hist))
    if omega <= 2:
        src, dst = (np.asarray(a[:1]) for a in (dag.src, dag.indices))
        order_ = np.asarray(dag.order)
        return 2, np.sort(order_[np.concatenate([src, dst])]).astype(np.int32)
    cliques, _ = _list(dag, omega, 1, "kcminer", num_threads, stop_when_full=True)
    return omega, np.asarray(cliques)[0]


def _as_dag(graph: GraphLike, order: Order) -> DAG:
    if isinstance(graph, DAG):
        return graph
    if isinstance(graph, Graph):
        return orient(graph, order=order)
    raise TypeError(f"expected a kcjax.Graph or kcjax.DAG, got {type(graph).__name__}")


def _check(k: int, method: str) -> None:
    if k < 1:
        raise ValueError(f"clique size k must be >= 1, got {k}")
    if method not in ENUMERATION_METHODS:
        raise ValueError(f"method must be one of {tuple(ENUMERATION_METHODS)}, got {method!r}")


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
        return rows, _small_count(dag.num_nodes)
    if k == 2:
        pairs = jnp.stack([dag.order[dag.src], dag.order[dag.indices]], axis=1)
        pairs = jnp.sort(pairs, axis=1)
        take = min(capacity, dag.num_edges)
        rows = jnp.full((capacity, 2), -1, jnp.int32).at[:take].set(pairs[:take])
        return rows, _small_count(dag.num_edges)
    if tasks is None:
        tasks = jnp.arange(dag.num_edges, dtype=jnp.int32)
    ranks, count = _ffi.clique_list(
        dag.indptr,
        dag.indices,
        dag.src,
        jnp.asarray(tasks, jnp.int32),
        k=k,
        capacity=capacity,
        method=ENUMERATION_METHODS[method],
        lam=-1.0,
        num_threads=num_threads,
        stop_when_full=stop_when_full,
    )
    ids = jnp.where(ranks >= 0, dag.order[jnp.maximum(ranks, 0)], -1)
    return jnp.sort(ids, axis=1), count


def _small_count(value: int) -> jax.Array:
    return jnp.array([value & 0xFFFFFFFF, value >> 32, 0, 0], jnp.uint32)


def _limbs_exceed(count: jax.Array, capacity: int) -> jax.Array:
    """bool: the 128-bit count in uint32[4] limbs exceeds capacity (< 2^63)."""
    lo = jnp.uint32(capacity & 0xFFFFFFFF)
    hi = jnp.uint32(capacity >> 32)
    return jnp.any(count[2:] != 0) | (count[1] > hi) | ((count[1] == hi) & (count[0] > lo))
