"""Triangles and transitivity for networkx, from kcjax's clique counters.

Self loops are ignored by networkx's definitions, and dropped by the
conversion, so graphs with self loops are served as they are.
"""

from __future__ import annotations

import numpy as np

from kcjax.nx.convert import KcjaxGraph


def triangle_counts(g: KcjaxGraph) -> np.ndarray:
    """int64-valued uint64[n]: triangles through every vertex (cached per graph)."""

    def compute() -> np.ndarray:
        from kcjax.cliques.local import clique_counts_per_vertex

        if g.graph.num_edges == 0:
            return np.zeros(len(g), np.uint64)
        return clique_counts_per_vertex(g.dag(), 3)

    return g.cached("triangles", compute)


def triangles(G, nodes=None):
    """networkx.triangles: an int for one node, else {node: count}."""
    counts = triangle_counts(G)
    if nodes is not None and nodes in G:
        return int(counts[G.index[nodes]])
    if nodes is None:
        return dict(zip(G.labels, counts.tolist(), strict=True))
    ids = G.nbunch_ids(nodes)
    return dict(zip(G.to_labels(ids), counts[ids].tolist(), strict=True))


def transitivity(G):
    """networkx.transitivity: 3 x triangles / connected triples (0 without triangles)."""
    from kcjax.cliques.auto import transitivity as kc_transitivity

    if G.graph.num_edges == 0:
        return 0
    value = kc_transitivity(G.dag())
    return 0 if value == 0 else value
