"""Breadth-first search for networkx: distances from kcjax, networkx's orders on the host.

kcjax's BFS gives every vertex's distance (and any valid parent). networkx's
outputs follow its discovery order: layer d + 1 lists a vertex when the first
vertex of layer d (in layer order) whose adjacency (in networkx's order) holds
it is scanned, and that vertex is its parent. Given the distances this order is
a vectorized pass per layer over the layer's edges (:func:`ordered_layers`), so
``bfs_edges``, ``bfs_tree``, ``bfs_layers``, ``bfs_predecessors`` and
``bfs_successors`` return exactly networkx's sequences, not only the same sets.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterator
from typing import Any

import numpy as np

from kcjax.nx.convert import KcjaxGraph

#: Sources per batched kcjax BFS call (the bitset batch serves 64 per word).
SOURCE_BATCH = 256


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
    g: KcjaxGraph, first: np.ndarray, dist: np.ndarray, depth_limit: float = np.inf
) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """networkx's BFS layers and tree parents, given the distances.

    Args:
      g: the graph.
      first: int32 ids of layer 0, in networkx's order.
      dist: int32[n] distances from layer 0 (-1 unreached).
      depth_limit: last layer to build.

    Returns:
      (layers, parents): layers[d] the ids of layer d in discovery order;
      parents[d] (d >= 1) the id of each one's BFS parent (parents[0] empty).
    """
    indptr, nbrs = g.indptr, g.nx_indices
    layer = np.asarray(first, dtype=np.int64)
    layers, parents = [layer], [np.zeros(0, np.int64)]
    depth = 0
    while depth < depth_limit:
        starts, counts = indptr[layer], indptr[layer + 1] - indptr[layer]
        total = int(counts.sum())
        if total == 0:
            break
        offsets = np.repeat(starts - np.cumsum(counts) + counts, counts)
        positions = offsets + np.arange(total)
        cand = nbrs[positions]
        found = dist[cand] == depth + 1
        if not found.any():
            break
        cand, owner = cand[found], np.repeat(layer, counts)[found]
        ids, where = np.unique(cand, return_index=True)
        order = np.argsort(where, kind="stable")
        layer = ids[order].astype(np.int64)
        layers.append(layer)
        parents.append(owner[where[order]])
        depth += 1
    return layers, parents


def _source_id(g: KcjaxGraph, source: Hashable) -> int:
    import networkx as nx

    if source not in g:
        raise nx.NetworkXError(f"The node {source} is not in the graph.")
    return g.index[source]


def _tree(g: KcjaxGraph, source: Hashable, depth_limit: Any) -> tuple[list, list]:
    """Parent and child labels of networkx's BFS tree edges, in its order."""
    s = _source_id(g, source)
    limit = len(g) if depth_limit is None else depth_limit
    layers, parents = ordered_layers(g, np.array([s]), distances(g, np.array([s])), limit)
    if len(layers) == 1:
        return [], []
    labels = g.labels
    par = np.concatenate(parents[1:]).tolist()
    child = np.concatenate(layers[1:]).tolist()
    return [labels[i] for i in par], [labels[i] for i in child]


def bfs_edges(G, source, reverse=False, depth_limit=None, sort_neighbors=None):
    """networkx.bfs_edges (undirected; no ``sort_neighbors``): a generator."""
    parents, children = _tree(G, source, depth_limit)
    yield from zip(parents, children, strict=True)


def bfs_tree(G, source, reverse=False, depth_limit=None, sort_neighbors=None):
    """networkx.bfs_tree: the BFS tree as a networkx DiGraph."""
    import networkx as nx

    T = nx.DiGraph()
    T.add_node(source)
    T.add_edges_from(bfs_edges(G, source, depth_limit=depth_limit))
    return T


def bfs_predecessors(G, source, depth_limit=None, sort_neighbors=None):
    """networkx.bfs_predecessors: a generator of (node, parent)."""
    parents, children = _tree(G, source, depth_limit)
    yield from zip(children, parents, strict=True)


def bfs_successors(G, source, depth_limit=None, sort_neighbors=None):
    """networkx.bfs_successors: a generator of (parent, [children]) in BFS order."""
    parents, children = _tree(G, source, depth_limit)
    parent, group = source, []
    for p, c in zip(parents, children, strict=True):
        if p == parent:
            group.append(c)
            continue
        yield parent, group
        parent, group = p, [c]
    yield parent, group


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
    layers, _ = ordered_layers(G, ids, distances(G, ids))
    labels = G.labels
    yield first
    for layer in layers[1:]:
        yield [labels[i] for i in layer.tolist()]


def descendants_at_distance(G, source, distance):
    """networkx.descendants_at_distance: the set of nodes ``distance`` hops away."""
    s = _source_id(G, source)
    dist = distances(G, np.array([s]))
    return {G.labels[i] for i in np.flatnonzero(dist == distance).tolist()}
