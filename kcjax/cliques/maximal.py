"""Maximal cliques, and every vertex's largest clique.

Bron-Kerbosch with Tomita's pivot, one search per root vertex over its
later neighbours in a degeneracy order (Eppstein, Loffler & Strash), in the
native target ``kcjax_clique_maximal``. Both handlers (CPU, and CUDA where the
extension has it) return the same cliques in the same order. ``platform``
picks the one that runs: ``"cpu"`` by default (on a GPU machine too: the
graph's arrays are copied to JAX's CPU device once per graph), ``"gpu"`` for
the CUDA handler (one thread per root; it reads the graph back to check it).
"""

from __future__ import annotations

import concurrent.futures
from collections.abc import Iterator

import jax
import numpy as np

from kcjax._args import as_int, check_choice
from kcjax.cliques import kernels
from kcjax.graph.graph import Graph
from kcjax.graph.orient import ORDERS, Order, as_dag, memo

#: Root vertices per call of the first range (ranges then adapt to ``batch``).
_FIRST_STEP = 1 << 12
#: Largest range of root vertices per call.
_MAX_STEP = 1 << 20


def _host_inputs(
    graph: Graph, order: Order, platform: str = "cpu"
) -> tuple[jax.Array, jax.Array, jax.Array]:
    """(indptr, indices, rank) on ``platform``'s first device, memoized per graph,
    order and platform. The
    degree order ((degree, id) ascending, as :func:`kcjax.orient`'s) is computed on
    the host; the degeneracy order comes from :func:`kcjax.orient`."""
    check_choice(order, "order", ORDERS)

    def compute() -> tuple[jax.Array, jax.Array, jax.Array]:
        n = graph.num_nodes
        if order == "degree":
            ranked = np.argsort(np.diff(np.asarray(graph.indptr)), kind="stable")
        else:
            ranked = np.asarray(as_dag(graph, order).order)
        rank = np.empty(n, np.int32)
        rank[ranked] = np.arange(n, dtype=np.int32)
        try:
            device = jax.devices(platform)[0]
        except RuntimeError as err:
            raise RuntimeError(
                f"the maximal-clique search on {platform!r} needs JAX's {platform} backend "
                "(for the default 'cpu', JAX_PLATFORMS must include cpu)"
            ) from err
        return tuple(
            jax.device_put(np.asarray(a, np.int32), device)
            for a in (graph.indptr, graph.indices, rank)
        )

    if platform not in ("cpu", "gpu"):
        raise ValueError(f"platform must be 'cpu' or 'gpu', got {platform!r}")
    return memo(graph, f"maximal_inputs_{order}_{platform}", compute)


def _check_graph(graph: Graph) -> None:
    if not isinstance(graph, Graph):
        raise TypeError(f"expected a kcjax.Graph, got {type(graph).__name__}")


def node_clique_numbers(
    graph: Graph, *, order: Order = "degeneracy", num_threads: int = 0, platform: str = "cpu"
) -> np.ndarray:
    """The size of the largest clique containing each vertex.

    One pass of the maximal-clique search that keeps, per vertex, the largest
    maximal clique found through it (no clique is listed).

    Args:
      graph: an undirected :class:`Graph`.
      order: the root order of the searches.
      num_threads: CPU worker threads (0: all cores).
      platform: ``"cpu"`` or ``"gpu"``: the handler that searches.

    Returns:
      int32[n]: ``out[v]`` = the largest clique containing v (1 for an
      isolated vertex).
    """
    _check_graph(graph)
    num_threads = as_int(num_threads, "num_threads", minimum=0)
    n = graph.num_nodes
    if n == 0:
        return np.zeros(0, np.int32)
    indptr, indices, rank = _host_inputs(graph, order, platform)
    tasks = jax.device_put(np.arange(n, dtype=np.int32), indptr.device)
    *_, best = kernels.clique_maximal(
        indptr, indices, rank, tasks, capacity=0, num_threads=num_threads
    )
    return np.asarray(best)


def iter_maximal_cliques(
    graph: Graph,
    batch: int = 1 << 20,
    *,
    order: Order = "degeneracy",
    num_threads: int = 0,
    platform: str = "cpu",
) -> Iterator[tuple[np.ndarray, np.ndarray]]:
    """Streams the maximal cliques to the host in batches.

    Root vertices are searched range by range (ranges of ascending vertex
    ids); a range whose cliques hold more than ``batch`` vertex entries is
    split in half and retried, and a single root with more is searched alone
    with an exact capacity. Every maximal clique is yielded once.

    Args:
      graph: an undirected :class:`Graph`.
      batch: the most vertex entries (sum of clique sizes) per yielded batch,
        unless one root alone has more.
      order: the root order of the searches.
      num_threads: CPU worker threads (0: all cores).
      platform: ``"cpu"`` or ``"gpu"``: the handler that searches.

    Yields:
      (int32[e] vertex ids, int32[c] clique sizes): c cliques, the vertices
      of each in turn (its root, the vertex of least rank, first), roots in
      ascending vertex id.
    """
    _check_graph(graph)
    batch = as_int(batch, "batch", minimum=1)
    num_threads = as_int(num_threads, "num_threads", minimum=0)
    n = graph.num_nodes
    if n == 0:
        return
    indptr, indices, rank = _host_inputs(graph, order, platform)
    cpu = indptr.device

    def search(start: int, step: int, capacity: int) -> tuple[int, int, int, int, tuple]:
        """(start, stop, cliques, entries, (verts, sizes)) of roots start..start+step."""
        stop = min(start + step, n)
        tasks = np.full(step, -1, np.int32)
        tasks[: stop - start] = np.arange(start, stop, dtype=np.int32)
        verts, sizes, totals, _ = kernels.clique_maximal(
            indptr,
            indices,
            rank,
            jax.device_put(tasks, cpu),
            capacity=capacity,
            num_threads=num_threads,
        )
        cliques, entries = (int(x) for x in np.asarray(totals))
        return start, stop, cliques, entries, (verts, sizes)

    # Ranges of a power of two roots (the last one padded): few compiled shapes. The
    # next range is searched on a helper thread while the caller consumes a batch (the
    # CPU handler runs on the thread that calls it).
    step = min(1 << (n - 1).bit_length(), _FIRST_STEP)
    with concurrent.futures.ThreadPoolExecutor(1, thread_name_prefix="kcjax-maximal") as ahead:
        pending = ahead.submit(search, 0, step, batch)
        try:
            while pending is not None:
                start, stop, cliques, entries, (verts, sizes) = pending.result()
                if entries > batch and stop - start > 1:
                    step = max(1, step // 2)
                    pending = ahead.submit(search, start, step, batch)
                    continue
                if entries > batch:  # one root alone holds more than a batch
                    if entries >= np.iinfo(np.int32).max:
                        raise ValueError(
                            f"vertex {start}'s maximal cliques hold 2^31 or more vertex entries"
                        )
                    exact = min(1 << (entries - 1).bit_length(), np.iinfo(np.int32).max)
                    *_, (verts, sizes) = search(start, step, exact)
                if entries < batch // 4:
                    step = min(step * 2, _MAX_STEP)
                pending = ahead.submit(search, stop, step, batch) if stop < n else None
                if cliques:
                    yield np.asarray(verts)[:entries], np.asarray(sizes)[:cliques]
        finally:
            if pending is not None:
                pending.cancel()
