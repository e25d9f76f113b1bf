"""The CUDA pivot counter's root split, modelled on the CPU (tests/reference/pivot_split.py).

A split root's parts each walk the root's pivot chain and take the chain
frames' held children in turn; the parts' counts must add up to the whole
walk's for every root, and the whole walks to networkx's clique counts. The
GPU tests then check the kernel itself against the CPU handler.
"""

from __future__ import annotations

import pytest
from reference import clique_counts_networkx, edges_of, planted
from reference.pivot_split import root_space, walk_root


@pytest.mark.parametrize(
    ("n", "p", "seed", "hmax", "kmin"), [(30, 0.5, 1, 8, 1), (36, 0.4, 2, 9, 6)]
)
def test_split_parts_add_up_to_the_whole_walk(n, p, seed, hmax, kmin):
    g = planted(n, p, n // 3, seed)
    out_nbrs = [sorted(w for w in g[u] if w > u) for u in range(n)]  # u -> w iff u < w
    total, shared = [0] * (hmax + 1), 0
    for v in range(n):
        adj, d = root_space(out_nbrs, v)
        whole = walk_root(adj, d, hmax, kmin)
        for parts in (2, 3, 8):
            shares = [walk_root(adj, d, hmax, kmin, part=j, parts=parts) for j in range(parts)]
            assert [sum(s[k] for s in shares) for k in range(hmax + 1)] == whole, (v, parts)
            shared += sum(1 for s in shares if any(s)) > 1  # the split divided this tree
        total = [a + b for a, b in zip(total, whole, strict=True)]
    want = clique_counts_networkx(edges_of(g), n, hmax)
    assert total[kmin:] == [want[k] for k in range(kmin, hmax + 1)]
    assert sum(total[kmin:]) > 0 and shared > 0
