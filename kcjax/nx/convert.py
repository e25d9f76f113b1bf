"""networkx <-> kcjax conversion: the backend graph type and its caches.

A :class:`KcjaxGraph` wraps a :class:`kcjax.Graph` (vertices 0..n-1 in the
networkx graph's node order) with the node labels (any hashables) and a copy
of networkx's adjacency order (``nx_indices``), which the traversals need to
reproduce networkx's discovery order exactly. The CSR is built with numpy on
the host (no device compile per graph shape) and is canonical: rows
ascending, symmetric, no self loops.

Three caches live on the graph: ``structure`` (host arrays that are functions
of the converted graph alone, like the conversion itself: row ids, edge ids of
the adjacency entries; built on first use and kept), ``_dags`` (oriented DAGs)
and ``_cache`` (results: core numbers, triangle counts). Benchmarks time cold
calls by clearing the last two (experiments/nx/bench.py).
"""

from __future__ import annotations

import contextlib
import gc
import operator
from collections.abc import Hashable, Iterable, Iterator
from itertools import chain, compress, repeat
from typing import Any

import numpy as np

from kcjax.graph.graph import Graph


class KcjaxGraph:
    """An undirected simple graph served by the kcjax backend.

    Attributes:
      graph: the :class:`kcjax.Graph` (vertex i is ``labels[i]``).
      labels: list of the n node labels, in networkx's node order.
      index: dict label -> vertex id.
      indptr: int64[n + 1] host row pointers (shared by both orders).
      nx_indices: int32[2m] host neighbour ids, each row in networkx's
        adjacency order (the order a networkx traversal visits them).
      identity: whether ``labels[i] == i`` (an int) for every i: ids are
        then the labels, and results need no label mapping.
      structure: dict of host arrays derived from the graph alone (see
        :meth:`derived`).
      self_loops: number of self loops the networkx graph had (dropped here;
        functions whose results depend on them decline such graphs).
      graph_attrs, node_attrs, edge_attrs: the networkx attribute dicts when
        the conversion was asked to preserve them, else None.
    """

    __networkx_backend__ = "kcjax"

    def __init__(
        self,
        labels: list[Hashable],
        indptr: np.ndarray,
        nx_indices: np.ndarray,
        *,
        index: dict[Hashable, int] | None = None,
        identity: bool | None = None,
        self_loops: int = 0,
        loop_free: np.ndarray | None = None,
        graph_attrs: dict | None = None,
        node_attrs: list[dict] | None = None,
        edge_attrs: dict | None = None,
    ) -> None:
        import jax.numpy as jnp

        self.labels = labels
        self._index = index
        self.indptr = indptr
        self.nx_indices = nx_indices
        self.identity = _identity_labels(labels) if identity is None else identity
        self.self_loops = self_loops
        self._loop_free = loop_free
        self.graph_attrs = graph_attrs
        self.node_attrs = node_attrs
        self.edge_attrs = edge_attrs
        n = len(labels)
        self.structure: dict[str, Any] = {}
        self.graph = Graph(
            indptr=jnp.asarray(indptr.astype(np.int32)),
            indices=jnp.asarray(_sorted_rows(indptr, nx_indices, n)),
            num_nodes=n,
        )
        self._dags: dict[str, Any] = {}
        self._cache: dict[str, Any] = {}
        self.__networkx_cache__: dict = {}

    @property
    def index(self) -> dict[Hashable, int]:
        """dict label -> vertex id (built on first use when the labels are 0..n-1)."""
        if self._index is None:
            self._index = dict(zip(self.labels, range(len(self.labels)), strict=True))
        return self._index

    def with_attributes(
        self, G: Any, keep_edges: bool, keep_nodes: bool, keep_graph: bool
    ) -> KcjaxGraph:
        """This conversion of ``G`` keeping other attribute dicts: the arrays, structure,
        DAGs and results are shared (they do not depend on attributes)."""
        other = object.__new__(KcjaxGraph)
        other.__dict__.update(self.__dict__)
        other.graph_attrs = dict(G.graph) if keep_graph else None
        other.node_attrs = list(G._node.values()) if keep_nodes else None
        other.edge_attrs = G._adj if keep_edges else None
        other.__networkx_cache__ = {}
        return other

    # The few networkx graph methods the dispatcher and our checks use.
    def is_directed(self) -> bool:
        return False

    def is_multigraph(self) -> bool:
        return False

    def __len__(self) -> int:
        return len(self.labels)

    def __iter__(self) -> Iterator[Hashable]:
        return iter(self.labels)

    def __contains__(self, node: Any) -> bool:
        try:
            return node in self.index
        except TypeError:
            return False

    def number_of_nodes(self) -> int:
        return len(self.labels)

    def number_of_edges(self) -> int:
        return int(self.nx_indices.size) // 2

    def __repr__(self) -> str:
        return f"KcjaxGraph(num_nodes={len(self):,}, num_edges={self.number_of_edges():,})"

    def dag(self, order: str = "degree") -> Any:
        """The graph oriented by ``order`` (cached)."""
        if order not in self._dags:
            from kcjax.graph.orient import orient

            self._dags[order] = orient(self.graph, order)
        return self._dags[order]

    def cached(self, key: str, compute: Any) -> Any:
        """``compute()`` once per graph: results (core numbers, triangle counts, ...)."""
        if key not in self._cache:
            self._cache[key] = compute()
        return self._cache[key]

    def derived(self, key: str, compute: Any) -> Any:
        """``compute()`` once per graph: host arrays of the graph's structure alone."""
        if key not in self.structure:
            self.structure[key] = compute()
        return self.structure[key]

    def rows(self) -> np.ndarray:
        """int32[2m]: the row (vertex id) of every entry of ``nx_indices``."""
        return self.derived(
            "rows",
            lambda: np.repeat(np.arange(len(self.labels), dtype=np.int32), np.diff(self.indptr)),
        )

    def lower_entries(self) -> np.ndarray:
        """int64[m]: for every edge id of ``graph.edges()`` (u < v), the index of
        its entry (u -> v) in ``nx_indices``."""

        def compute() -> np.ndarray:
            lower = np.zeros(self.graph.num_edges, dtype=np.int64)
            first = np.flatnonzero(self.rows() < self.nx_indices)
            lower[self.nx_edge_ids()[first]] = first
            return lower

        return self.derived("lower_entries", compute)

    def copy_order(self) -> np.ndarray:
        """int64[2m]: the entries of ``nx_indices`` in the adjacency order of
        networkx's ``G.copy()``: rows in node order, each row's neighbours in the
        order the copy adds its edges (every edge added from its earlier end, as
        that end's adjacency is scanned)."""

        def compute() -> np.ndarray:
            added = self.lower_entries()[self.nx_edge_ids()]
            keys = self.rows().astype(np.int64) * max(added.size, 1) + added
            return np.argsort(keys, kind="stable")

        return self.derived("copy_order", compute)

    def entry_data(self) -> list[dict]:
        """The networkx edge data dict of every entry of ``nx_indices`` (needs
        ``edge_attrs``); the dicts are the networkx graph's own."""

        def compute() -> list[dict]:
            flat = chain.from_iterable(map(dict.values, self.edge_attrs.values()))
            if self.self_loops:
                flat = compress(flat, self._loop_free)
            return list(flat)

        return self.derived("entry_data", compute)

    def to_labels(self, ids: np.ndarray) -> list:
        """The labels of vertex ``ids`` (int array) as a list (the graph's own label
        objects, taken from an object array: no int object per id)."""
        if self.identity:
            return ids.tolist()
        return self.label_array()[ids].tolist()

    def label_array(self) -> np.ndarray:
        """object[n]: ``labels`` as a numpy object array (references, not copies)."""
        return self.derived(
            "label_array", lambda: np.fromiter(self.labels, dtype=object, count=len(self.labels))
        )

    def nx_edge_ids(self) -> np.ndarray:
        """int32[2m]: for every entry of ``nx_indices``, its edge id in ``graph.edges()``."""

        def compute() -> np.ndarray:
            n = len(self.labels)
            rows = self.rows().astype(np.int64)
            cols = self.nx_indices.astype(np.int64)
            keys = np.minimum(rows, cols) * n + np.maximum(rows, cols)
            src, dst = (np.asarray(a, dtype=np.int64) for a in self.graph.edges())
            return np.searchsorted(src * n + dst, keys).astype(np.int32)

        return self.derived("nx_edge_ids", compute)

    def ids(self, nodes: Iterable[Hashable]) -> np.ndarray:
        """int32 ids of ``nodes`` (all must be in the graph)."""
        index = self.index
        return np.fromiter((index[u] for u in nodes), dtype=np.int32)

    def nbunch_ids(self, nbunch: Any) -> np.ndarray:
        """networkx's ``nbunch_iter``: the ids of the nodes of ``nbunch`` in the graph."""
        import networkx as nx

        if nbunch is None:
            return np.arange(len(self), dtype=np.int32)
        if nbunch in self:
            return np.array([self.index[nbunch]], dtype=np.int32)
        try:
            return np.fromiter((self.index[u] for u in nbunch if u in self.index), dtype=np.int32)
        except TypeError as err:
            raise nx.NetworkXError(f"nbunch is not a node or a sequence of nodes: {err}") from err


@contextlib.contextmanager
def paused_gc() -> Iterator[None]:
    """Pauses the cyclic collector while a result of O(n) fresh dicts and lists is built:
    each allocation burst would let it rescan every live networkx graph (millions of
    dicts), which costs more than the build. Nothing built here forms cycles."""
    collecting = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if collecting:
            gc.enable()


def convert_from_nx(
    G: Any,
    edge_attrs: Any = None,
    node_attrs: Any = None,
    preserve_edge_attrs: bool = False,
    preserve_node_attrs: bool = False,
    preserve_graph_attrs: bool = False,
    name: str | None = None,
    graph_name: str | None = None,
) -> KcjaxGraph:
    """A networkx Graph as a :class:`KcjaxGraph` (``G`` itself if it is one).

    Raises:
      NotImplementedError: for directed graphs and multigraphs (networkx
        then falls back to its own implementation).
    """
    if isinstance(G, KcjaxGraph):
        return G
    if G.is_directed() or G.is_multigraph():
        kind = "multigraphs" if G.is_multigraph() else "directed graphs"
        raise NotImplementedError(f"the kcjax backend does not convert {kind}")
    keep = (
        preserve_edge_attrs or bool(edge_attrs),
        preserve_node_attrs or bool(node_attrs),
        preserve_graph_attrs,
    )
    cached = _cached_conversion(G)
    if cached is not None:
        return cached.with_attributes(G, *keep)
    with paused_gc():
        return _from_adjacency(G, *keep)


def _cached_conversion(G: Any) -> KcjaxGraph | None:
    """A conversion of ``G`` in networkx's cache (``G.__networkx_cache__``), whatever
    attributes it kept: networkx looks up its cache by the attributes a call needs,
    so a call needing other attributes converts again; the arrays are reused then."""
    import networkx as nx

    cache = getattr(G, "__networkx_cache__", None)
    if not nx.config.cache_converted_graphs or not isinstance(cache, dict):
        return None
    for graph in cache.get("backends", {}).get("kcjax", {}).values():
        if isinstance(graph, KcjaxGraph) and len(graph) == len(G):
            return graph
    return None


def _from_adjacency(G: Any, keep_edges: bool, keep_nodes: bool, keep_graph: bool) -> KcjaxGraph:
    from kcjax import _native

    adj = G._adj
    labels = list(adj)
    native = isinstance(adj, dict)
    identity = _native.is_range(adj) if native else _identity_labels(labels)
    built: list[dict] = []  # the label -> id dict, where the conversion needed it

    def index() -> dict:
        if not built:
            built.append(dict(zip(labels, range(len(labels)), strict=True)))
        return built[0]

    try:
        if not native:
            raise TypeError("not a dict of dicts")
        # One native pass over the dicts (no Python frame per edge); int labels need
        # no dict.
        indptr, cols, loop_free, loops = _native.adjacency_csr(adj, None if identity else index)
    except TypeError:  # adjacencies that are not dicts: the generic pass
        indptr, cols, loop_free, loops = _adjacency_csr(adj, labels, None if identity else index())
    return KcjaxGraph(
        labels,
        indptr,
        cols,
        index=built[0] if built else None,
        identity=identity,
        self_loops=loops,
        loop_free=loop_free,
        graph_attrs=dict(G.graph) if keep_graph else None,
        node_attrs=list(G._node.values()) if keep_nodes else None,
        # networkx clears its conversion cache when edges change; the
        # attribute dicts are shared with G as a copy of G._adj would share them.
        edge_attrs=adj if keep_edges else None,
    )


def _adjacency_csr(
    adj: Any, labels: list, index: dict | None
) -> tuple[np.ndarray, np.ndarray, np.ndarray | None, int]:
    """What ``_native.adjacency_csr`` returns, for any mapping of mappings."""
    n = len(labels)
    lengths = np.fromiter(map(len, adj.values()), dtype=np.int64, count=n)
    flat = chain.from_iterable(adj.values())
    if index is not None:
        flat = map(index.__getitem__, flat)
    cols = np.fromiter(flat, dtype=np.int32, count=int(lengths.sum()))
    rows = np.repeat(np.arange(n, dtype=np.int32), lengths)
    loop_free = rows != cols
    indptr = np.zeros(n + 1, dtype=np.int64)
    loops = int(cols.size - np.count_nonzero(loop_free))
    if loops:
        cols = cols[loop_free]
        lengths -= np.bincount(rows[~loop_free], minlength=n)
    np.cumsum(lengths, out=indptr[1:])
    return indptr, cols, loop_free if loops else None, loops


def _sorted_rows(indptr: np.ndarray, cols: np.ndarray, n: int) -> np.ndarray:
    """int32: ``cols`` with each row sorted ascending (``cols`` itself when it is)."""
    cols = cols.astype(np.int32, copy=False)
    falls = np.flatnonzero(cols[1:] <= cols[:-1]) + 1
    if not falls.size or np.isin(falls, indptr).all():
        return cols
    rows = np.repeat(np.arange(n, dtype=np.int64), np.diff(indptr))
    # networkx's adjacencies are often sorted runs, which the stable sort merges fast.
    keys = np.sort(rows * max(n, 1) + cols, kind="stable")
    return (keys - rows * max(n, 1)).astype(np.int32)


def _identity_labels(labels: list) -> bool:
    """Whether node i is the int i for every i (ids need no mapping)."""
    n = len(labels)
    if n == 0 or type(labels[0]) is not int or type(labels[-1]) is not int:
        return False
    if labels[0] != 0 or labels[-1] != n - 1:
        return False
    return all(map(operator.is_, map(type, labels), repeat(int))) and labels == list(range(n))


def convert_to_nx(obj: Any, *, name: str | None = None) -> Any:
    """A :class:`KcjaxGraph` as a networkx Graph; anything else unchanged."""
    if isinstance(obj, KcjaxGraph):
        return induced_nx_graph(obj, np.ones(len(obj), dtype=bool))
    return obj


def induced_nx_graph(g: KcjaxGraph, keep: np.ndarray) -> Any:
    """The networkx Graph induced by the vertices where ``keep`` (bool[n]) holds,
    nodes and adjacencies in node and adjacency order (self loops dropped)."""
    labels = g.labels
    nodes = [labels[i] for i in np.flatnonzero(keep).tolist()]
    return _build(g, nodes, keep)


def subgraph_copy(g: KcjaxGraph, nbunch: list[Hashable]) -> Any:
    """``G.subgraph(nbunch).copy()`` exactly as networkx builds it, orders included.

    networkx's filtered view iterates the kept-node set instead of the graph
    when it is less than half as long, so the node order (and the order the
    copy adds edges in) follows that set's iteration order; it is rebuilt here
    from the same sequence. Each adjacency is filtered in the graph's own
    order (the view's per-node filter has no node set to iterate).
    """
    index = g.index
    kept = set()
    for u in nbunch:
        if u in index:
            kept.add(u)
    keep = np.zeros(len(g), dtype=bool)
    keep[g.ids(kept)] = True
    labels = g.labels
    if 2 * len(kept) < len(g):
        nodes = list(kept)
    else:
        nodes = [labels[i] for i in np.flatnonzero(keep).tolist()]
    return _build(g, nodes, keep)


def edge_subgraph_copy(g: KcjaxGraph, edge_mask: np.ndarray) -> Any:
    """The networkx Graph of the edges where ``edge_mask`` (bool[m], over
    ``g.graph.edges()``) holds and the nodes they touch, as networkx builds it
    by ``G.copy()`` then removing the other edges and the isolated nodes:
    nodes in node order, adjacencies in the copy's order
    (:meth:`KcjaxGraph.copy_order`), graph, node and edge attributes copied
    (one fresh data dict per edge, shared by its two adjacency entries). The
    dicts are assembled in bulk into the new graph's ``_node`` and ``_adj``.
    """
    import networkx as nx

    H = nx.Graph()
    if g.graph_attrs is not None:
        H.graph.update(g.graph_attrs)
    kept_edges = np.flatnonzero(edge_mask)
    if not kept_edges.size:
        return H
    order = g.copy_order()
    copy_eids = g.derived("copy_edge_ids", lambda: g.nx_edge_ids()[order])
    keep = edge_mask[copy_eids]
    # copy_order keeps the rows in node order: entry i of it is in row rows()[i].
    counts = np.bincount(g.rows()[keep], minlength=len(g))
    nodes = np.flatnonzero(counts)
    slot = np.zeros(edge_mask.size, dtype=np.int64)
    slot[kept_edges] = np.arange(kept_edges.size)
    entries, slots = order[keep], slot[copy_eids[keep]]
    with paused_gc():
        _fill_subgraph(H, g, nodes, counts[nodes], entries, slots, kept_edges)
    return H


def _fill_subgraph(
    H: Any,
    g: KcjaxGraph,
    nodes: np.ndarray,
    degrees: np.ndarray,
    entries: np.ndarray,
    slots: np.ndarray,
    kept_edges: np.ndarray,
) -> None:
    """Fills ``H._node`` and ``H._adj``: rows of ``nodes`` (their ``degrees``
    entries of ``entries`` each), entry i holding the data dict of kept edge
    ``slots[i]`` (its temporaries die before the collector resumes)."""
    if g.edge_attrs is None:
        data = list(map(dict.copy, repeat({}, kept_edges.size)))
    else:
        refs = g.entry_data()
        lower = g.lower_entries()[kept_edges].tolist()
        data = list(map(dict.copy, map(refs.__getitem__, lower)))
    labels = g.to_labels(nodes)
    if g.node_attrs is not None:
        attrs = map(dict.copy, map(g.node_attrs.__getitem__, nodes.tolist()))
    else:
        attrs = map(dict.copy, repeat({}, nodes.size))
    H._node.update(zip(labels, attrs, strict=True))
    ends = np.cumsum(degrees).tolist()
    nbrs = g.to_labels(g.nx_indices[entries])
    pairs = list(zip(nbrs, map(data.__getitem__, slots.tolist()), strict=True))
    rows = map(dict, map(pairs.__getitem__, map(slice, [0, *ends[:-1]], ends)))
    H._adj.update(zip(labels, rows, strict=True))


def _build(g: KcjaxGraph, nodes: list, keep: np.ndarray) -> Any:
    import networkx as nx

    H = nx.Graph()
    if g.graph_attrs is not None:
        H.graph.update(g.graph_attrs)
    labels, index, indptr, nbrs = g.labels, g.index, g.indptr, g.nx_indices
    if g.node_attrs is not None:
        H.add_nodes_from((u, g.node_attrs[index[u]].copy()) for u in nodes)
    else:
        H.add_nodes_from(nodes)
    edges = []
    for u in nodes:
        i = index[u]
        row = nbrs[indptr[i] : indptr[i + 1]]
        edges.extend((u, labels[j]) for j in row[keep[row]].tolist())
    if g.edge_attrs is not None:
        ea = g.edge_attrs
        H.add_edges_from((u, v, ea[u][v].copy()) for u, v in edges)
    else:
        H.add_edges_from(edges)
    return H
