"""Unweighted shortest path lengths and eccentricities for networkx.

Dicts of lengths come in networkx's BFS discovery order (the order
``single_source_shortest_path_length`` inserts them), one native pass per
source (:func:`kcjax.nx.traversal.ordered_layers`); eccentricity and diameter
batch the sources through kcjax's bitset BFS, and a source-target length
takes one kcjax BFS.
"""

from __future__ import annotations

from collections.abc import Hashable
from itertools import chain, repeat

import numpy as np

from kcjax.nx.convert import KcjaxGraph
from kcjax.nx.traversal import distance_rows, distances, ordered_layers


def _lengths(g: KcjaxGraph, s: int, dist: np.ndarray | None, cutoff, source: Hashable) -> dict:
    """{node: hops} in networkx's insertion order (BFS discovery), keyed from ``source``."""
    limit = np.inf if cutoff is None else cutoff
    layers, _ = ordered_layers(g, np.array([s]), dist, limit)
    keys = g.to_labels(np.concatenate(layers))
    keys[0] = source
    hops = chain.from_iterable(map(repeat, range(len(layers)), [x.size for x in layers]))
    return dict(zip(keys, hops, strict=True))


def _source(g: KcjaxGraph, source: Hashable, role: str = "Source") -> int:
    import networkx as nx

    if source not in g:
        raise nx.NodeNotFound(f"{role} {source} is not in G")
    return g.index[source]


def single_source_shortest_path_length(G, source, cutoff=None):
    """networkx.single_source_shortest_path_length: {node: hops} in BFS order."""
    s = _source(G, source)
    return _lengths(G, s, None, cutoff, source)


def single_target_shortest_path_length(G, target, cutoff=None):
    """networkx.single_target_shortest_path_length (undirected: the source form)."""
    t = _source(G, target, "Target")
    return _lengths(G, t, None, cutoff, target)


def all_pairs_shortest_path_length(G, cutoff=None):
    """networkx.all_pairs_shortest_path_length: a generator of (node, {node: hops}).

    Each source's dict needs networkx's discovery order, one native pass per source
    (:func:`ordered_layers`), which finds the distances too: no batched kcjax BFS
    ahead of it (a batch of 256 sources was computed before the first item)."""
    for s, label in enumerate(G.labels):
        yield label, _lengths(G, s, None, cutoff, label)


def shortest_path_length(G, source=None, target=None, weight=None, method="dijkstra"):
    """networkx.shortest_path_length, unweighted (``weight=None``) forms only."""
    import networkx as nx

    if method not in ("dijkstra", "bellman-ford"):
        raise ValueError(f"method not supported: {method}")
    if source is None and target is None:
        return all_pairs_shortest_path_length(G)
    if source is None:
        return single_source_shortest_path_length(G, target)
    if target is None:
        return single_source_shortest_path_length(G, source)
    s = _source(G, source)
    t = _source(G, target, "Target")
    hops = int(distances(G, np.array([s]))[t])
    if hops < 0:
        raise nx.NetworkXNoPath(f"No path between {source} and {target}.")
    return hops


def eccentricity(G, v=None, sp=None, weight=None):
    """networkx.eccentricity, unweighted and without ``sp``: batched kcjax BFS."""
    import networkx as nx

    ids = G.nbunch_ids(v)
    e = {}
    start = 0
    for rows in distance_rows(G, ids):
        if (rows < 0).any():
            raise nx.NetworkXError("Found infinite path length because the graph is not connected")
        for offset, depth in enumerate(rows.max(axis=1, initial=0).tolist()):
            e[G.labels[int(ids[start + offset])]] = depth
        start += len(rows)
    if v in G:
        return e[v]
    return e


def diameter(G, e=None, usebounds=False, weight=None):
    """networkx.diameter, unweighted: the largest eccentricity."""
    if e is None:
        e = eccentricity(G)
    return max(e.values())
