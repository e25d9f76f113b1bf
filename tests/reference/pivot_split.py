"""Host model of the CUDA pivot counter's walk of one root and its split
(ffi/cuda/cliques/pivot.cu: SmallTask and LargeRoot with kSplit, struct Split).

The walk follows the kernel's control flow (the pending node, the frame
stack, the pivot child before the held children, the pruning by kmin), with
Python ints as the bitmap rows. A terminal node's cliques are counted by
enumeration instead of the kernel's closed forms, so the model checks which
nodes each part reaches, not the arithmetic of a node.
"""

from __future__ import annotations

import itertools
import math

# CliquePolicy::kPivotResolveDepth (ffi/include/kcjax/cliques/policy.h).
RESOLVE_DEPTH = 3


def _members(bits: int) -> list[int]:
    return [i for i in range(bits.bit_length()) if bits >> i & 1]


def _terminal(adj: list[int], P: int, h: int, p: int, hmax: int, leaf: bool, out: list[int]):
    """Adds a terminal node's k-cliques to out[k] for k <= hmax. A leaf's candidates all
    join the pivots (the end of a pivot chain); a resolved node's cliques are h held
    vertices, any pivots and any clique inside P."""
    if leaf:
        for k in range(h, hmax + 1):
            out[k] += math.comb(p + P.bit_count(), k - h)
        return
    members = _members(P)
    for j in range(0, hmax - h + 1):
        cliques = sum(
            1
            for c in itertools.combinations(members, j)
            if all(adj[a] >> b & 1 for a, b in itertools.combinations(c, 2))
        )
        for k in range(h + j, hmax + 1):
            out[k] += cliques * math.comb(p, k - h - j)


def walk_root(
    adj: list[int], d: int, hmax: int, kmin: int, part: int | None = None, parts: int = 8
) -> list[int]:
    """k-clique counts (index k <= hmax) of the tree of a root whose d candidates have
    the symmetric bitmap rows `adj`; part j of `parts` of a split walk (None: whole)."""
    out = [0] * (hmax + 1)
    if 1 + d < kmin:
        return out
    split = part is not None
    chain, countdown, first = 0, part or 0, not part
    frames: list[list[int]] = []  # [TC, TB, th, tp, tn] per frame
    P, ch, cp, cn = (1 << d) - 1, 1, 0, d
    pending = via_pivot = True
    while True:
        if pending:
            pending = False
            top = len(frames) - 1
            on_chain = split and via_pivot and top == chain - 1
            resolve = hmax - ch <= RESOLVE_DEPTH
            leaf = cn <= 1
            best = pivot = 0
            if not leaf and not resolve:
                inside = [((P & adj[u]).bit_count(), -u) for u in _members(P)]
                best, pivot = max(inside)
                pivot = -pivot  # the first member with the most neighbours inside P
                leaf = min(inside)[0] == cn - 1  # P is a clique
            if leaf or resolve:
                if not (on_chain and not first):  # the chain's end is part 0's
                    _terminal(adj, P, ch, cp, hmax, leaf, out)
                continue
            if on_chain:
                chain = top + 2
            bit = 1 << pivot
            frames.append([P & ~bit, P & ~adj[pivot] & ~bit, ch, cp, cn - 1])
            P &= adj[pivot]
            if ch + cp + 1 + best >= kmin:  # the pivot child
                cp, cn = cp + 1, best
                pending = via_pivot = True
            continue
        if not frames:
            return out
        top = len(frames) - 1
        TC, TB, th, tp, tn = frames[top]
        if TB == 0 or th + tp + tn < kmin:  # frame exhausted or every sibling pruned
            if split and top == chain - 1:
                chain = top
            frames.pop()
            continue
        x = (TB & -TB).bit_length() - 1  # the first remaining non-neighbour
        frames[top] = [TC & ~(1 << x), TB & ~(1 << x), th, tp, tn - 1]
        if split and top < chain:  # a chain frame's held children go to the parts in turn
            mine, countdown = countdown == 0, parts - 1 if countdown == 0 else countdown - 1
            if not mine:
                continue
        P = frames[top][0] & adj[x]
        c = P.bit_count()
        if th + 1 + tp + c >= kmin:
            ch, cp, cn = th + 1, tp, c
            pending, via_pivot = True, False


def root_space(out_nbrs: list[list[int]], v: int) -> tuple[list[int], int]:
    """The bitmap rows of root v's candidates N+(v) (adjacency inside them, both ways)."""
    cand = out_nbrs[v]
    at = {u: i for i, u in enumerate(cand)}
    adj = [0] * len(cand)
    for i, u in enumerate(cand):
        for w in out_nbrs[u]:
            if w in at:
                adj[i] |= 1 << at[w]
                adj[at[w]] |= 1 << i
    return adj, len(cand)
