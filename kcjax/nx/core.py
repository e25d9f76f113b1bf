"""Core numbers, k-cores and k-trusses for networkx, from kcjax's peeling.

networkx refuses graphs with self loops here (NetworkXNotImplemented), so the
backend declines them (``can_run``) and networkx raises its own error.
"""

from __future__ import annotations

import numpy as np

from kcjax.nx.convert import KcjaxGraph, edge_subgraph_copy, subgraph_copy


def core_numbers(g: KcjaxGraph) -> np.ndarray:
    """int32[n] core numbers (cached per graph)."""

    def compute() -> np.ndarray:
        from kcjax.graph.orient import core_numbers as kc_core_numbers

        if len(g) == 0:
            return np.zeros(0, np.int32)
        return np.asarray(kc_core_numbers(g.graph))

    return g.cached("core_numbers", compute)


def core_number(G):
    """networkx.core_number: {node: core number} in node order."""
    return dict(zip(G.labels, core_numbers(G).tolist(), strict=True))


def k_core(G, k=None, core_number=None):
    """networkx.k_core: ``G.subgraph(nodes of core number >= k).copy()``.

    With ``core_number`` given the filter uses it (as networkx does); the
    result keeps the graph, node and edge attributes, in networkx's orders.
    """
    if core_number is None:
        cores = core_numbers(G)
        if k is None:
            k = int(cores.max())
        return subgraph_copy(G, G.to_labels(np.flatnonzero(cores >= k)))
    if k is None:
        k = max(core_number.values())
    return subgraph_copy(G, [v for v in core_number if core_number[v] >= k])


def k_truss(G, k):
    """networkx.k_truss: the edges in at least k - 2 triangles of the truss, and their nodes.

    networkx copies the graph and removes edges of too little support, and
    then isolated nodes, until none is removed; that fixed point is the
    k-truss kcjax peels (:func:`kcjax.k_truss_mask`). For k <= 2 every edge
    stays (networkx still drops isolated nodes); a k-truss with an edge has at
    least k nodes, so k > n keeps none. Orders and attributes as networkx's copy.
    """
    m = G.graph.num_edges
    if k <= 2:
        mask = np.ones(m, dtype=bool)
    elif m == 0 or k > len(G):
        mask = np.zeros(m, dtype=bool)
    else:
        from kcjax.truss.truss import k_truss_mask

        mask = np.asarray(k_truss_mask(G.graph, int(k)))
    return edge_subgraph_copy(G, mask)
