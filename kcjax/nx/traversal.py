"""Breadth-first search for networkx: networkx's orders by a native pass on the host.

networkx's outputs follow its discovery order: layer d + 1 lists a vertex when
the first vertex of layer d (in layer order) whose adjacency (in networkx's
order) holds it is scanned, and that vertex is its parent. That order is one
native pass over the scanned rows in networkx's adjacency order
(:func:`ordered_layers`), which finds the distances too, so ``bfs_edges``,
``bfs_tree``, ``bfs_layers``, ``bfs_predecessors`` and ``bfs_successors``
return exactly networkx's sequences, not only the same sets. kcjax's BFS
serves the calls that need distances alone (``descendants_at_distance``
beyond its host ball, eccentricities, source-target lengths).
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Iterator
from itertools import repeat
from typing import Any

import numpy as np

from kcjax.nx.convert import KcjaxGraph, paused_gc

#: Sources per batched kcjax BFS call (the bitset batch serves 64 per word).
SOURCE_BATCH = 256
#: ``descendants_at_distance`` expands the source's ball on the host while its
#: levels scan at most this many adjacency entries (a few numpy passes over
#: them, under a millisecond), and runs kcjax's whole-component BFS beyond.
BALL_MAX_ENTRIES = 1 << 18


def distances(g: KcjaxGraph, sources: np.ndarray) -> np.ndarray:
    """int32[n]: hops from the nearest of ``sources`` (ids), -1 where unreached."""
    from kcjax.traversal.bfs import bfs

    sources = np.unique(sources)
    if sources.size == 1:
        return np.asarray(bfs(g.graph, int(sources[0]), parents=False).distances)
    best = np.full(len(g), -1, dtype=np.int32)
    for rows in distance_rows(g, sources):
        rows = np.where(rows < 0, np.iinfo(np.int32).max, rows).min(axis=0)
        best = np.where(best < 0, rows, np.minimum(best, rows))
    best[best == np.iinfo(np.int32).max] = -1
    return best


def distance_rows(g: KcjaxGraph, sources: np.ndarray) -> Iterator[np.ndarray]:
    """int32[s, n] distance rows of ``sources`` (ids), in batches of :data:`SOURCE_BATCH`."""
    import jax.numpy as jnp

    from kcjax.traversal.bfs import bfs

    for start in range(0, len(sources), SOURCE_BATCH):
        chunk = jnp.asarray(sources[start : start + SOURCE_BATCH], dtype=jnp.int32)
        yield np.asarray(bfs(g.graph, sources=chunk, parents=False).distances)


def ordered_layers(
    g: KcjaxGraph,
    first: np.ndarray,
    dist: np.ndarray | None = None,
    depth_limit: float = np.inf,
) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """networkx's BFS layers and tree parents.

    networkx scans layer d in order, each vertex's adjacency in order, and
    appends every vertex not seen yet: layer d + 1 is the neighbours of layer
    d not met before, in that scan order, each kept at its first meeting,
    whose scanned vertex is its parent. One native pass over the scanned rows
    in networkx's adjacency order (``kcjax._native.bfs_order``, O(n + m) for
    a whole component): the order needs that pass whatever computed the
    distances, so single-source calls take no kcjax BFS (a device BFS plus
    a numpy pass per layer over the BFS DAG cost more, see docs/networkx.md).

    Args:
      g: the graph.
      first: int ids of layer 0, in networkx's order.
      dist: None, or int32[n] distances from layer 0 (-1 unreached), e.g. a
        row of kcjax's batched BFS: only neighbours one hop farther are taken.
      depth_limit: last layer to build.

    Returns:
      (layers, parents): layers[d] the int ids of layer d in discovery
      order; parents[d] (d >= 1) the id of each one's BFS parent (parents[0] empty).
    """
    from kcjax import _native

    # Layers d + 1 for every depth d < depth_limit (a float limit as networkx's cutoff).
    limit = len(g) + 1 if depth_limit >= len(g) + 1 else math.ceil(depth_limit)
    order, parent, sizes = _native.bfs_order(
        g.indptr, g.nx_indices, dist, np.asarray(first, dtype=np.int64), limit
    )
    cuts = np.cumsum(sizes)[:-1]
    layers = np.split(order, cuts)
    parents = [np.zeros(0, np.int32), *np.split(parent, cuts)[1:]]
    return layers, parents


def _source_id(g: KcjaxGraph, source: Hashable) -> int:
    import networkx as nx

    if source not in g:
        raise nx.NetworkXError(f"The node {source} is not in the graph.")
    return g.index[source]


def _tree(g: KcjaxGraph, source: Hashable, depth_limit: Any) -> tuple[np.ndarray, np.ndarray]:
    """(parents, children): int64 ids of networkx's BFS tree edges, in its order."""
    s = _source_id(g, source)
    limit = len(g) if depth_limit is None else depth_limit
    layers, parents = ordered_layers(g, np.array([s]), None, limit)
    if len(layers) == 1:
        return np.zeros(0, np.int64), np.zeros(0, np.int64)
    return np.concatenate(parents[1:]), np.concatenate(layers[1:])


def _parent_labels(g: KcjaxGraph, source: Hashable, parents: np.ndarray) -> list:
    """Labels of ``parents``; networkx's own ``source`` object for the source's edges."""
    out = g.to_labels(parents)
    if parents.size:
        later = parents != parents[0]
        first = int(later.argmax()) if later.any() else parents.size
        out[:first] = repeat(source, first)
    return out


def bfs_edges(G, source, reverse=False, depth_limit=None, sort_neighbors=None):
    """networkx.bfs_edges (undirected; no ``sort_neighbors``): a generator of edges."""
    parents, children = _tree(G, source, depth_limit)
    yield from zip(_parent_labels(G, source, parents), G.to_labels(children), strict=True)


def bfs_tree(G, source, reverse=False, depth_limit=None, sort_neighbors=None):
    """networkx.bfs_tree: the BFS tree as a networkx DiGraph.

    Built as networkx's ``T.add_node(source); T.add_edges_from(bfs_edges)``
    leaves it: nodes in discovery order, each a fresh attribute dict, one
    fresh data dict per edge shared by ``T._succ`` and ``T._pred``; the dicts
    are filled in bulk (C-level ``dict.update``), the collector paused.
    """
    import networkx as nx

    parents, children = _tree(G, source, depth_limit)
    T = nx.DiGraph()
    with paused_gc():
        _fill_tree(T, G, source, parents, children)
    return T


def _fill_tree(T, g: KcjaxGraph, source: Hashable, parents: np.ndarray, children: np.ndarray):
    """Fills ``T``'s dicts with the tree edges (its temporaries die before the
    collector resumes, so its young-generation pass sees only ``T``'s dicts)."""
    m = children.size
    kids = g.to_labels(children)
    nodes = [source, *kids]
    data = list(map(dict.copy, repeat({}, m)))
    T._node.update(zip(nodes, map(dict.copy, repeat({}, m + 1)), strict=True))
    T._succ.update(zip(nodes, map(dict.copy, repeat({}, m + 1)), strict=True))
    dads = _parent_labels(g, source, parents)
    T._pred[source] = {}
    if m:
        # Each parent's children are one run of the edge sequence.
        cuts = (np.flatnonzero(parents[1:] != parents[:-1]) + 1).tolist()
        pairs = list(zip(kids, data, strict=True))
        heads = list(map(dads.__getitem__, [0, *cuts]))
        runs = map(slice, [0, *cuts], [*cuts, m])
        T._succ.update(zip(heads, map(dict, map(pairs.__getitem__, runs)), strict=True))
        T._pred.update(zip(kids, [{p: d} for p, d in zip(dads, data, strict=True)], strict=True))


def bfs_predecessors(G, source, depth_limit=None, sort_neighbors=None):
    """networkx.bfs_predecessors: a generator of (node, parent)."""
    parents, children = _tree(G, source, depth_limit)
    yield from zip(G.to_labels(children), _parent_labels(G, source, parents), strict=True)


def bfs_successors(G, source, depth_limit=None, sort_neighbors=None):
    """networkx.bfs_successors: a generator of (parent, [children]) in BFS order."""
    parents, children = _tree(G, source, depth_limit)
    if not children.size:
        yield source, []
        return
    kids = G.to_labels(children)
    cuts = (np.flatnonzero(parents[1:] != parents[:-1]) + 1).tolist()
    heads = _parent_labels(G, source, parents[[0, *cuts]])
    with paused_gc():
        groups = map(kids.__getitem__, map(slice, [0, *cuts], [*cuts, children.size]))
        pairs = list(zip(heads, groups, strict=True))
    yield from pairs


def bfs_layers(G, sources):
    """networkx.bfs_layers: a generator of lists of nodes, one per layer."""
    import networkx as nx

    if sources in G:
        sources = [sources]
    first = list(set(sources))
    for source in first:
        if source not in G:
            raise nx.NetworkXError(f"The node {source} is not in the graph.")
    ids = G.ids(first)
    if ids.size == 0:
        return
    layers, _ = ordered_layers(G, ids)
    yield first
    for layer in layers[1:]:
        yield G.to_labels(layer)


def ball_layer(g: KcjaxGraph, s: int, distance: int, budget: int) -> np.ndarray | None:
    """int64 ids ``distance`` hops from ``s`` by a host BFS that stops there (as
    networkx's does), or None once its levels would scan more than ``budget``
    adjacency entries (``distance`` >= 1)."""
    indptr, cols = g.indptr, g.nx_indices
    seen = np.zeros(len(g), dtype=bool)
    seen[s] = True
    frontier = np.array([s], dtype=np.int64)
    for _ in range(distance):
        starts = indptr[frontier]
        counts = indptr[frontier + 1] - starts
        total = int(counts.sum())
        budget -= total
        if budget < 0:
            return None
        ends = np.cumsum(counts)
        nbrs = cols[np.arange(total, dtype=np.int64) + np.repeat(starts - ends + counts, counts)]
        new = np.zeros(len(g), dtype=bool)
        new[nbrs] = True
        new &= ~seen
        seen |= new
        frontier = np.flatnonzero(new)
        if not frontier.size:
            break
    return frontier


def descendants_at_distance(G, source, distance):
    """networkx.descendants_at_distance: the set of nodes ``distance`` hops away.

    Near balls (:data:`BALL_MAX_ENTRIES`) are expanded on the host up to
    ``distance`` levels, as networkx stops there; farther ones take kcjax's BFS.
    """
    s = _source_id(G, source)
    if distance == 0:
        return {source}
    if distance < 0 or not float(distance).is_integer():
        return set()
    ids = ball_layer(G, s, int(distance), BALL_MAX_ENTRIES)
    if ids is None:
        ids = np.flatnonzero(distances(G, np.array([s])) == distance)
    return set(G.to_labels(ids))
