"""Clique enumeration for networkx, streamed from kcjax's listing.

``enumerate_all_cliques`` yields by increasing size, and within a size in
networkx's order: lexicographic in node order, each clique's nodes in node
order. kcjax lists one size at a time (rows ascending in vertex id, which is
networkx's node order); a size is sorted before it is yielded, so memory holds
one size's cliques at a time.
"""

from __future__ import annotations

import numpy as np


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
