"""k-truss: the public entry points over target ``kcjax_truss`` and the dense formulation.

Convention (``networkx.k_truss``): graphs are undirected and simple (a
directed input is symmetrized by the Graph constructors). The k-truss is the
largest subgraph in which every edge lies in at least k - 2 triangles *of
that subgraph*; vertices left without edges are not part of it. The
trussness of an edge is the largest k whose k-truss holds it (2 for an edge
in no triangle). The maximal k-truss is the non-empty k-truss of largest k.

Every per-edge array is aligned with ``graph.edges()``: entry e belongs to the
edge {src[e], dst[e]}, src < dst, in CSR order.
"""

from __future__ import annotations

import dataclasses
import functools
import operator

import jax
import jax.numpy as jnp
import numpy as np

from kcjax._args import as_int, check_choice
from kcjax.graph.graph import Graph, row_ids
from kcjax.graph.orient import core_numbers, memo
from kcjax.truss import dense, kernels
from kcjax.truss.kernels import (
    MODE_DECOMPOSE,
    MODE_HINDEX,
    MODE_KTRUSS,
    MODE_SUPPORT,
    SUPPORT_METHODS,
    EdgeIndex,
    edge_index,
    edge_list,
    k_argument,
    no_core,
)

#: Every accepted ``method``: the native support passes and "dense" (pure JAX).
METHODS: tuple[str, ...] = (*SUPPORT_METHODS, "dense")

#: Decomposition algorithms of the native target (:func:`truss_numbers`).
ALGORITHMS: dict[str, int] = {
    # local h-index updates over a store of the triangles (falls back to "peel" when the
    # store would pass 2^31 - 1 entries or device memory)
    "hindex": MODE_HINDEX,
    "peel": MODE_DECOMPOSE,  # level-by-level peeling in synchronous rounds (the seed's order)
}


@dataclasses.dataclass(frozen=True)
class TrussGraph:
    """A graph prepared for the truss ops by :func:`prepare_truss`; a pytree, so a
    ``jax.jit`` pipeline takes it as an argument and its traced ops rebuild nothing.

    Attributes:
      graph: the :class:`Graph`.
      index: its edge index (edge ids of the CSR entries, the degree-oriented DAG).
      core: int32[num_nodes]: every vertex's core number (the k-truss prefilter).
      capacity: the h-index triangle store's size, :func:`truss_store_size` (static).
    """

    graph: Graph
    index: EdgeIndex
    core: jax.Array
    capacity: int


jax.tree_util.register_dataclass(
    TrussGraph, data_fields=["graph", "index", "core"], meta_fields=["capacity"]
)

GraphOrTruss = Graph | TrussGraph


def prepare_truss(graph: Graph) -> TrussGraph:
    """Everything the truss ops compute per graph, once (eager).

    The edge index (two sorts and the degree orientation), the core numbers
    and the store size. Eager calls on a Graph memoize the same facts by
    themselves; a jitted pipeline that takes the graph as an argument should
    take a TrussGraph instead, so its traced decomposition neither rebuilds
    them nor reads the store's size back (then as fast as the eager call).

    Args:
      graph: the undirected graph (concrete).

    Returns:
      A :class:`TrussGraph`.

    Raises:
      TypeError: for anything but a concrete Graph.
    """
    _check(graph, "dag")
    if isinstance(graph.indices, jax.core.Tracer):
        raise TypeError("prepare_truss runs eagerly: call it outside jax.jit")
    return TrussGraph(
        graph=graph,
        index=edge_index(graph),
        core=_core(graph),
        capacity=kernels.degree_bound(graph),
    )


def _plain(graph: GraphOrTruss) -> Graph:
    return graph.graph if isinstance(graph, TrussGraph) else graph


def _index(graph: GraphOrTruss) -> EdgeIndex:
    return graph.index if isinstance(graph, TrussGraph) else edge_index(graph)


def _check(graph: GraphOrTruss, method: str) -> None:
    if not isinstance(graph, (Graph, TrussGraph)):
        raise TypeError(
            "expected a kcjax.Graph (the undirected graph, not a DAG) or a TrussGraph,"
            f" got {type(graph).__name__}"
        )
    check_choice(method, "method", METHODS)


def _check_k(k: int | jax.Array) -> int | jax.Array:
    if isinstance(k, jax.core.Tracer):
        if k.shape != () or not jnp.issubdtype(k.dtype, jnp.integer):
            raise TypeError(f"a traced k must be an integer scalar, got {k.dtype}{list(k.shape)}")
        return k
    try:
        k = operator.index(k)
    except TypeError:
        raise TypeError(f"k must be an int, got {type(k).__name__}") from None
    if k < 2:
        raise ValueError(f"k must be >= 2 (the 2-truss is the whole graph), got {k}")
    if k > np.iinfo(np.int32).max:
        raise ValueError(f"k must fit int32, got {k}")
    return k


def _core(graph: GraphOrTruss) -> jax.Array:
    if isinstance(graph, TrussGraph):
        return graph.core
    return memo(graph, "core_numbers", lambda: core_numbers(graph))


def _every_edge(
    graph: GraphOrTruss, mode: int, method: str, num_threads: int, store_entries: int = -1
) -> jax.Array:
    """The native pass ``mode`` over every edge (no core prefilter; k unused). An eager
    call passes arrays kept on the graph's device, so its program runs alone (no copy
    of k, no array created per call)."""
    index, graph = _index(graph), _plain(graph)
    return kernels.truss_call(
        graph,
        index,
        no_core(graph),
        k_argument(graph, 0),
        mode=mode,
        method=SUPPORT_METHODS[method],
        num_threads=num_threads,
        store_entries=store_entries if mode == MODE_HINDEX else -1,
    )


def truss_store_size(graph: GraphOrTruss) -> int:
    """The h-index decomposition's triangle store size for ``graph`` (eager).

    The degree bound, sum over edges {u, v} of min(deg u, deg v) - 1 (no edge
    lies in more triangles; 8 bytes of device memory each). Pass it as
    ``capacity=`` to a :func:`truss_numbers` (or :func:`max_truss`) that
    runs under ``jax.jit`` with the graph as an argument, so the traced
    decomposition sizes its store without counting supports first or reading
    anything back (what an eager call does by itself). Memoized per graph.

    Args:
      graph: the undirected graph (concrete, not traced).

    Returns:
      The bound, a Python int (past 2^31 - 1 the decomposition peels instead).

    Raises:
      TypeError: for a traced graph or anything but a Graph.
    """
    _check(graph, "dag")
    if isinstance(graph, TrussGraph):
        return graph.capacity
    return kernels.degree_bound(graph)


def _store_attr(graph: GraphOrTruss, capacity: int | None) -> int:
    """The target's ``store_entries``: the given capacity (or a TrussGraph's), else the
    memoized bound of an eager graph on one device, else -1 (the handler reads the
    size back)."""
    if capacity is None and isinstance(graph, TrussGraph):
        capacity = graph.capacity
    if capacity is None:
        return kernels.store_entries(graph)
    capacity = as_int(capacity, "capacity", minimum=0)
    return capacity if capacity <= kernels.MAX_STORE_ENTRIES else -1


def edge_support(graph: GraphOrTruss, *, method: str = "dag", num_threads: int = 0) -> jax.Array:
    """Triangles per edge.

    Args:
      graph: the undirected graph, or a :class:`TrussGraph` from :func:`prepare_truss`.
      method: ``"dag"`` (each triangle once from the degree-oriented DAG),
        ``"edge"`` (a warp per edge intersects both neighbour lists),
        ``"vertex"`` (the seed's vertex-strided shared-memory pass),
        ``"auto"`` (per pass by the number of edges it counts: ``"edge"`` up
        to ``TrussPolicy::kEdgeList`` of them, where a warp per edge fills the
        GPU, else ``"dag"``) or ``"dense"`` (pure JAX). All give the same
        numbers.
      num_threads: CPU worker threads (0: all cores; ignored on GPUs).

    Returns:
      int32[m]: entry e is the number of triangles holding edge e of ``graph.edges()``.
      Jit-able.
    """
    _check(graph, method)
    if method == "dense":
        return dense.support_dense(_index(graph), jnp.ones(_plain(graph).num_edges, bool))
    return _every_edge(graph, MODE_SUPPORT, method, num_threads)


def truss_numbers(
    graph: GraphOrTruss,
    *,
    method: str = "dag",
    algorithm: str = "hindex",
    num_threads: int = 0,
    capacity: int | None = None,
) -> jax.Array:
    """Full truss decomposition in one call: the trussness of every edge.

    One run serves every k, not a run per k.

    Args:
      graph: the undirected graph, or a :class:`TrussGraph` from :func:`prepare_truss`.
      method: the support pass (see :func:`edge_support`) or ``"dense"``. The
        h-index on an eager graph counts the supports as it stores the
        triangles and runs no support pass, so there ``method`` changes nothing
        but ``"dense"``.
      algorithm: ``"hindex"`` (default): every triangle is listed once and stored
        with its three edges, then each edge's value t, starting at its
        support, is lowered to the h-index of
        ``min(t(a), t(b))`` over its triangles {e, a, b}, in place and in
        parallel, until nothing changes; t + 2 is the trussness (Sariyuce,
        Seshadhri and Pinar's local algorithm). An edge is revisited only when a
        value it reads fell below its own t. An eager graph's store takes 8 bytes
        per unit of the degree bound, the sum over edges {u, v} of
        min(deg u, deg v) - 1 (at least 24 bytes a triangle; memoized per
        graph), so the call counts no supports first and reads nothing back;
        a traced graph counts supports first and reads the store's exact size
        back. Where the store would pass 2^31 - 1 entries or device memory,
        ``"peel"`` answers instead (``capacity`` gives a traced call the
        store's size). ``"peel"``: level
        by level, each level's removals in synchronous rounds (Wang and Cheng's
        order, the seed's peeling). Both give the same numbers; the dense
        method peels.
      num_threads: CPU worker threads (0: all cores).
      capacity: the h-index store's size, :func:`truss_store_size` of this
        graph (a static int). Under ``jax.jit`` it spares the traced call a
        support pass and a read-back; eagerly it is computed (and memoized)
        when not given. A value below the graph's bound breaks the contract
        (the CUDA handler then writes -1 for every edge; the CPU raises).

    Returns:
      int32[m]: entry e is the largest k whose k-truss holds edge e of
      ``graph.edges()`` (2 for an edge in no triangle). Edge e lies in the
      k-truss iff ``truss[e] >= k``. Jit-able.
    """
    _check(graph, method)
    check_choice(algorithm, "algorithm", ALGORITHMS)
    if method == "dense":
        return dense.truss_numbers_dense(_index(graph))
    mode = ALGORITHMS[algorithm]
    store = _store_attr(graph, capacity) if mode == MODE_HINDEX else -1
    return _every_edge(graph, mode, method, num_threads, store)


def k_truss_mask(
    graph: GraphOrTruss,
    k: int | jax.Array,
    *,
    method: str = "auto",
    prefilter: bool = True,
    num_threads: int = 0,
) -> jax.Array:
    """The edges of the k-truss, as a mask over ``graph.edges()``; jit-able.

    A k <= 3 needs no supports and no peeling (the 3-truss is the set of edges in
    a triangle): an int k = 3 runs one pass of early-exit intersections (target
    ``kcjax_truss_triangle_edges``), whatever ``method`` and ``prefilter`` say
    (neither can change the result), and k = 2 keeps every edge.

    Args:
      graph: the undirected graph, or a :class:`TrussGraph` from :func:`prepare_truss`.
      k: the k of the k-truss: an int >= 2, or under jit a traced int32 scalar
        (a runtime value: one executable serves every k; a traced k <= 2 keeps
        every edge).
      method: the support pass (see :func:`edge_support`) or ``"dense"``. The
        default, ``"auto"``, counts the prefilter's kept edges by ``"edge"``
        when they are few (a large k) and by ``"dag"`` otherwise.
      prefilter: start from the (k-1)-core (the k-truss lies inside it; core
        numbers from :func:`kcjax.core_numbers`, memoized per eager graph).
      num_threads: CPU worker threads (0: all cores).

    Returns:
      bool[m]: True for the edges of ``graph.edges()`` in the k-truss.
    """
    _check(graph, method)
    k = _check_k(k)
    if isinstance(k, int) and k <= 3 and method != "dense":
        if isinstance(graph, TrussGraph):
            src, dst = graph.index.src, graph.index.dst
        else:
            src, dst = edge_list(graph)
        if k == 2:
            return jnp.ones_like(src, dtype=bool)
        return kernels.triangle_edges_call(_plain(graph), src, dst, num_threads=num_threads)
    index = _index(graph)
    core = _core(graph) if prefilter else no_core(_plain(graph))
    graph = _plain(graph)
    if method == "dense":
        alive = jnp.ones(graph.num_edges, bool)
        if prefilter:
            alive = (core[index.src] >= k - 1) & (core[index.dst] >= k - 1)
        return dense.k_truss_mask_dense(index, k, alive)
    return kernels.truss_call(
        graph,
        index,
        core,
        k_argument(graph, k),
        mode=MODE_KTRUSS,
        method=SUPPORT_METHODS[method],
        num_threads=num_threads,
    )


def _subgraph(
    graph: Graph, eid: jax.Array, mask: jax.Array, sizes: jax.Array, relabel: bool
) -> Graph:
    """The edges of ``graph.edges()`` that ``mask`` keeps, as a Graph built on the
    device (no host copy of the edges); ``sizes`` from :func:`_kept_sizes` (the
    shapes depend on them: read back here, two int32)."""
    entries, nodes = (int(x) for x in np.asarray(sizes)[-2:])
    return _kept_graph(graph, eid, mask, entries=entries, nodes=nodes, relabel=relabel)


@jax.jit
def _kept_sizes(graph: Graph, eid: jax.Array, mask: jax.Array) -> jax.Array:
    """int32[2]: the kept subgraph's CSR entries and its vertices with an edge."""
    keep = mask[eid].astype(jnp.int32)
    per_row = jax.ops.segment_sum(
        keep, row_ids(graph.indptr, eid.shape[0]), num_segments=graph.num_nodes
    )
    return jnp.stack([jnp.sum(keep), jnp.sum(per_row > 0, dtype=jnp.int32)])


@jax.jit
def _max_truss_sizes(graph: Graph, eid: jax.Array, truss: jax.Array) -> tuple[jax.Array, jax.Array]:
    """(the maximal truss's edge mask, int32[3]: k_max and :func:`_kept_sizes`)."""
    k_max = jnp.max(truss, initial=0)
    mask = truss >= k_max
    return mask, jnp.concatenate([k_max[None], _kept_sizes(graph, eid, mask)])


@functools.partial(jax.jit, static_argnames=("entries", "nodes", "relabel"))
def _kept_graph(
    graph: Graph, eid: jax.Array, mask: jax.Array, *, entries: int, nodes: int, relabel: bool
) -> Graph:
    """The CSR of the kept edges: rows stay sorted and symmetric, so nothing is sorted
    (with ``relabel``, the vertices with an edge renumbered in increasing id order)."""
    keep = mask[eid]
    before = jnp.concatenate([jnp.zeros(1, jnp.int32), jnp.cumsum(keep, dtype=jnp.int32)])
    indptr = before[graph.indptr]
    (sel,) = jnp.nonzero(keep, size=entries)
    indices = graph.indices[sel]
    if not relabel:
        return Graph(indptr=indptr, indices=indices, num_nodes=graph.num_nodes)
    touched = jnp.diff(indptr) > 0
    new_id = jnp.cumsum(touched, dtype=jnp.int32) - 1
    (kept_rows,) = jnp.nonzero(touched, size=nodes)
    indptr = jnp.concatenate([indptr[kept_rows], indptr[-1:]])
    return Graph(indptr=indptr, indices=new_id[indices], num_nodes=nodes)


def k_truss(
    graph: GraphOrTruss,
    k: int,
    *,
    relabel: bool = False,
    method: str = "auto",
    prefilter: bool = True,
    num_threads: int = 0,
) -> Graph:
    """The k-truss as a Graph (eager).

    Args:
      graph: the undirected graph, or a :class:`TrussGraph` from :func:`prepare_truss`.
      k: the k of the k-truss (>= 2).
      relabel: number the truss's vertices 0..n'-1 in increasing order of their
        ids; by default ids are kept (``num_nodes`` unchanged, vertices outside
        the truss left without edges).
      method, prefilter, num_threads: as in :func:`k_truss_mask`.

    Returns:
      The k-truss. Its vertices are those with at least one truss edge.
    """
    mask = k_truss_mask(graph, k, method=method, prefilter=prefilter, num_threads=num_threads)
    eid = _index(graph).eid
    return _subgraph(_plain(graph), eid, mask, _kept_sizes(_plain(graph), eid, mask), relabel)


def max_truss(
    graph: GraphOrTruss,
    *,
    relabel: bool = False,
    method: str = "dag",
    algorithm: str = "hindex",
    num_threads: int = 0,
) -> tuple[int, Graph]:
    """The maximal k-truss: the non-empty k-truss of largest k (eager).

    Args:
      graph: the undirected graph, or a :class:`TrussGraph` from :func:`prepare_truss`.
      relabel: as in :func:`k_truss`.
      method, algorithm, num_threads: as in :func:`truss_numbers`.

    Returns:
      ``(k_max, truss)``: k_max is the largest trussness (2 if the graph has
      edges but no triangle; 0 if it has no edges, the truss then being empty).
    """
    truss = truss_numbers(graph, method=method, algorithm=algorithm, num_threads=num_threads)
    eid, graph = _index(graph).eid, _plain(graph)
    mask, sizes = _max_truss_sizes(graph, eid, truss)
    k_max = int(np.asarray(sizes)[0]) if graph.num_edges else 0
    return k_max, _subgraph(graph, eid, mask, sizes, relabel)
