"""The CUDA pivot counter's root split, modelled on the CPU (tests/reference/pivot_split.py).

A split root's parts each walk the root's pivot chain and take the chain
frames' held children in turn; the parts' counts must add up to the whole
walk's for every root, and the whole walks to networkx's clique counts. The
GPU tests then check the kernel itself against the CPU handler.
"""

from __future__ import annotations

import networkx as nx
import pytest
from reference.pivot_split import root_space, walk_root


def _graph(n: int, p: float, seed: int) -> list[list[int]]:
    """Out-neighbours u -> w (u < w) of a G(n, p) graph with a planted clique of n // 3."""
    g = nx.gnp_random_graph(n, p, seed=seed)
    g.add_edges_from((a, b) for a in range(n // 3) for b in range(a + 1, n // 3))
    return [sorted(w for w in g[u] if w > u) for u in range(n)]


def _nx_counts(out_nbrs: list[list[int]], hmax: int) -> list[int]:
    g = nx.Graph((u, w) for u, ws in enumerate(out_nbrs) for w in ws)
    g.add_nodes_from(range(len(out_nbrs)))
    counts = [0] * (hmax + 1)
    for c in nx.enumerate_all_cliques(g):
        if len(c) > hmax:
            break
        counts[len(c)] += 1
    return counts


@pytest.mark.parametrize(
    ("n", "p", "seed", "hmax", "kmin"), [(30, 0.5, 1, 8, 1), (36, 0.4, 2, 9, 6)]
)
def test_split_parts_add_up_to_the_whole_walk(n, p, seed, hmax, kmin):
    out_nbrs = _graph(n, p, seed)
    total, shared = [0] * (hmax + 1), 0
    for v in range(n):
        adj, d = root_space(out_nbrs, v)
        whole = walk_root(adj, d, hmax, kmin)
        for parts in (2, 3, 8):
            shares = [walk_root(adj, d, hmax, kmin, part=j, parts=parts) for j in range(parts)]
            assert [sum(s[k] for s in shares) for k in range(hmax + 1)] == whole, (v, parts)
            shared += sum(1 for s in shares if any(s)) > 1  # the split divided this tree
        total = [a + b for a, b in zip(total, whole, strict=True)]
    want = _nx_counts(out_nbrs, hmax)
    assert total[kmin:] == want[kmin:]
    assert sum(total[kmin:]) > 0 and shared > 0
