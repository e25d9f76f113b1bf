"""Cliques for networkx: all cliques from kcjax's listing, maximal cliques and
largest cliques from kcjax's maximal-clique search (kcjax.cliques.maximal).

``enumerate_all_cliques`` yields by increasing size, and within a size in
networkx's order: lexicographic in node order, each clique's nodes in node
order. kcjax lists one size at a time (rows ascending in vertex id, which is
networkx's node order); a size is sorted before it is yielded, so memory holds
one size's cliques at a time.

``find_cliques`` yields the same maximal cliques as networkx, in another order
(networkx documents none): batches streamed from the search, roots by node
order, each clique's root (its node of least degeneracy rank) first.
"""

from __future__ import annotations

import collections
from itertools import accumulate

import numpy as np

from kcjax.nx.convert import KcjaxGraph, paused_gc

#: Vertex entries per batch of ``find_cliques``: the search of the next batch runs
#: (on a helper thread) while the lists of one are built.
FIND_CLIQUES_BATCH = 1 << 18
#: Root order of the searches: (degree, id), computed on the host from the CSR (a
#: degeneracy order would take a peeling pass first; the searches cost alike).
ORDER = "degree"
#: The handler that searches: "cpu" (the host's cores) or "gpu" (the CUDA twin).
PLATFORM = "cpu"


def _rows(G, k: int) -> np.ndarray:
    """int32[c, k]: the k-cliques, rows ascending, rows in lexicographic order."""
    from kcjax.cliques.listing import iter_cliques

    if k == 1:
        return np.arange(len(G), dtype=np.int32)[:, None]
    if k == 2:
        src, dst = (np.asarray(a) for a in G.graph.edges())
        rows = np.stack([src, dst], axis=1)
    else:
        batches = list(iter_cliques(G.dag(), k))
        if not batches:
            return np.zeros((0, k), np.int32)
        rows = np.sort(np.concatenate(batches), axis=1)
    return rows[np.lexsort(rows.T[::-1])]


def enumerate_all_cliques(G):
    """networkx.enumerate_all_cliques: a generator of lists, by increasing size."""
    labels = G.labels
    k = 1
    while True:
        if k > 2 and G.graph.num_edges == 0:
            return
        rows = _rows(G, k)
        if rows.shape[0] == 0:
            return
        for row in rows.tolist():
            yield [labels[i] for i in row]
        k += 1


def find_cliques(G, nodes=None):
    """networkx.find_cliques (``nodes=None``): a generator of lists, each a maximal
    clique, every maximal clique once."""
    from kcjax.cliques.maximal import iter_maximal_cliques

    for verts, sizes in iter_maximal_cliques(
        G.graph, FIND_CLIQUES_BATCH, order=ORDER, platform=PLATFORM
    ):
        # A batch's lists built at once with the collector paused (it would rescan
        # the live graphs as they pile up), then yielded.
        with paused_gc():
            flat = G.to_labels(verts)
            ends = list(accumulate(sizes.tolist()))
            cliques = list(map(flat.__getitem__, map(slice, [0, *ends[:-1]], ends)))
            del flat, ends
        yield from cliques


def find_cliques_recursive(G, nodes=None):
    """networkx.find_cliques_recursive (``nodes=None``): as :func:`find_cliques`."""
    return find_cliques(G)


def node_clique_numbers(g: KcjaxGraph) -> np.ndarray:
    """int32[n]: the largest clique containing every vertex (cached per graph)."""
    from kcjax.cliques.maximal import node_clique_numbers as kc_node_clique_numbers

    return g.cached(
        "node_clique_number",
        lambda: kc_node_clique_numbers(g.graph, order=ORDER, platform=PLATFORM),
    )


def node_clique_number(G, nodes=None, cliques=None, separate_nodes=False):
    """networkx.node_clique_number (``cliques=None``): an int for one node, else a
    dict node -> size of its largest maximal clique (for ``nodes=None`` a
    ``defaultdict(int)`` in node order, as networkx returns one)."""
    import networkx as nx

    best = node_clique_numbers(G)
    if nodes is None:
        return collections.defaultdict(int, zip(G.labels, best.tolist(), strict=True))
    if nodes in G:
        return int(best[G.index[nodes]])
    out = {}
    for u in nodes:
        if u not in G:
            raise nx.NodeNotFound(f"Source {u} is not in G")
        out[u] = int(best[G.index[u]])
    return out


def max_weight_clique(G, weight="weight"):
    """networkx.max_weight_clique for unit weights (``weight=None``, or every node's
    weight the int 1): (a maximum clique as a list of nodes, its size)."""
    from kcjax.cliques.listing import clique_number

    if len(G) == 0:
        return [], 0
    omega, clique = clique_number(G.graph)
    return G.to_labels(np.asarray(clique)), omega
