"""Core numbers and k-cores for networkx, from kcjax's peeling.

networkx refuses graphs with self loops here (NetworkXNotImplemented), so the
backend declines them (``can_run``) and networkx raises its own error.
"""

from __future__ import annotations

import numpy as np

from kcjax.nx.convert import KcjaxGraph, subgraph_copy


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
        core_number = dict(zip(G.labels, core_numbers(G).tolist(), strict=True))
    if k is None:
        k = max(core_number.values())
    return subgraph_copy(G, [v for v in core_number if core_number[v] >= k])
