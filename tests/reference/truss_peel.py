"""A sequential model of the CUDA peeling kernel's step protocol (ffi/cuda/truss/truss.cu).

It runs the kernel's steps literally on the host: edge tags (the step that removes
the edge), the three report slots (written at step s, read at s + 1, cleared at
s + 2), scans of a live-edge list that is compacted as it shrinks, the merged
(short lists) and chunked (long lists) frontier lists with their chunk offsets
from one packed counter, the contiguous chunk ranges of each warp, level jumps
and the silent removal of support-0 edges at level 0. Within a step the
"threads" run one after another in a random order, so a wrong step boundary or
slot reuse shows up as a wrong result. CPU-only tests compare it with the C++
twin; it documents, and checks, the protocol that the GPU tests then run for
real.
"""

from __future__ import annotations

import numpy as np

LIVE, DEAD = 2**31 - 1, -1


class Model:
    """One decomposition (``k is None``) or one k-truss (k >= 4) by the kernel's steps."""

    def __init__(self, indptr, indices, eid, src, dst, *, lane_list, chunk, warps, divisor, seed):
        self.indptr, self.indices, self.eid = indptr, indices, eid
        self.src, self.dst = src, dst
        self.m = src.size
        self.lane_list, self.chunk, self.warps, self.divisor = lane_list, chunk, warps, divisor
        self.rng = np.random.default_rng(seed)
        self.steps = 0

    def ranges(self, e):
        u, v = int(self.src[e]), int(self.dst[e])
        a0, a1 = int(self.indptr[u]), int(self.indptr[u + 1])
        b0, b1 = int(self.indptr[v]), int(self.indptr[v + 1])
        if a1 - a0 > b1 - b0:
            a0, a1, b0, b1 = b0, b1, a0, a1
        return a0, a1, b0, b1

    def common(self, a0, a1, b0, b1):
        """Positions (i, j) of the common entries of two sorted ranges."""
        col = self.indices
        pos = {int(col[j]): j for j in range(b0, b1)}
        return [(i, pos[int(col[i])]) for i in range(a0, a1) if int(col[i]) in pos]

    def push(self, x, s, level):
        self.tag[x] = s + 1
        if self.truss is not None:
            self.truss[x] = level + 2
        if level == 0:
            return
        a0, a1, b0, b1 = self.ranges(x)
        slot = self.slots[s % 3]
        buf = self.frontier[s & 1]
        if b1 - b0 <= self.lane_list:
            buf[slot["light"]] = x
            slot["light"] += 1
        else:
            chunks = -(-(a1 - a0) // self.chunk)
            pos, off = slot["items"], slot["chunks"]
            slot["items"] += 1
            slot["chunks"] += chunks
            buf[self.m - 1 - pos] = x
            self.offset[s & 1][pos] = off

    def decrement(self, x, s, level):
        if self.sup[x] <= level:
            return
        self.sup[x] -= 1
        if self.sup[x] == level:
            self.push(x, s, level)

    def on_triangle(self, e, e1, e2, s, level):
        t1, t2 = self.tag[e1], self.tag[e2]
        if t1 < s or t2 < s:
            return
        f1, f2 = t1 == s, t2 == s
        if f1 and f2:
            return
        if f1:
            if e < e1:
                self.decrement(e2, s, level)
            return
        if f2:
            if e < e2:
                self.decrement(e1, s, level)
            return
        self.decrement(e1, s, level)
        self.decrement(e2, s, level)

    def round(self, s, level, nl, nh, nc):
        buf, offset = self.frontier[(s - 1) & 1], self.offset[(s - 1) & 1]
        tasks = []
        for i in range(nl):  # a thread per merged edge
            e = int(buf[i])
            a0, a1, b0, b1 = self.ranges(e)
            tasks += [(e, i1, i2) for i1, i2 in self.common(a0, a1, b0, b1)]
        for w in range(self.warps):  # each warp's contiguous chunks
            c, c_end = nc * w // self.warps, nc * (w + 1) // self.warps
            if c >= c_end:
                continue
            i = int(np.searchsorted(offset[:nh], c, side="right")) - 1
            while c < c_end:
                e = int(buf[self.m - 1 - i])
                first = int(offset[i])
                last = int(offset[i + 1]) if i + 1 < nh else nc
                stop = min(last, c_end)
                a0, a1, b0, b1 = self.ranges(e)
                p0 = a0 + (c - first) * self.chunk
                p1 = min(a1, a0 + (stop - first) * self.chunk)
                tasks += [(e, i1, i2) for i1, i2 in self.common(p0, p1, b0, b1)]
                c = stop
                i += 1
        for t in self.rng.permutation(len(tasks)):
            e, i1, i2 = tasks[t]
            self.on_triangle(e, int(self.eid[i1]), int(self.eid[i2]), s, level)

    def scan(self, s, level, items, compact):
        slot = self.slots[s % 3]
        kept = []
        for e in self.rng.permutation(items):
            e = int(e)
            if self.tag[e] <= s:
                continue
            if self.sup[e] <= level:
                self.push(e, s, level)
            else:
                kept.append(e)
                slot["low"] = min(slot["low"], int(self.sup[e]))
        if compact:
            slot["kept"] = len(kept)
            return np.array(sorted(kept), np.int64)  # order within a list is free
        return None

    def run(self, alive, sup, k=None):
        """Returns (trussness or None, live flags) after the kernel's steps."""
        m = self.m
        self.tag = np.where(alive, LIVE, DEAD).astype(np.int64)
        self.sup = sup.astype(np.int64).copy()
        self.truss = np.zeros(m, np.int64) if k is None else None
        self.frontier = [np.full(m, -7, np.int64), np.full(m, -7, np.int64)]
        self.offset = [np.full(m, -7, np.int64), np.full(m, -7, np.int64)]
        fresh = {"light": 0, "items": 0, "chunks": 0, "low": LIVE, "kept": 0}
        self.slots = [dict(fresh) for _ in range(3)]
        single = k is not None
        level = k - 3 if single else 0
        prev = "start"
        lst, pending, died = None, None, 0
        s = 0
        while True:
            # Thread 0 clears slot s + 1 at some point of step s: at its start and end here,
            # so clearing a slot that the step reads or writes would show.
            self.slots[(s + 1) % 3] = dict(fresh)
            inp = self.slots[(s + 2) % 3]
            nl, nh, nc = inp["light"], inp["items"], inp["chunks"]
            if pending is not None:
                lst, pending = pending, None
                assert lst.size == inp["kept"]
            if nl + nh > 0:
                self.round(s, level, nl, nh, nc)
                died += nl + nh
                prev = "probe"
            else:
                if prev == "probe":
                    if single:
                        break
                    level += 1
                elif prev == "scan":
                    if single or inp["low"] == LIVE:
                        break
                    level = inp["low"]
                size = m if lst is None else lst.size
                compact = lst is None or died * self.divisor >= size
                items = np.arange(m) if lst is None else lst
                out = self.scan(s, level, items, compact)
                if compact:
                    pending, died = out, 0
                prev = "scan"
            self.slots[(s + 1) % 3] = dict(fresh)
            s += 1
        self.steps = s + 1
        return self.truss, self.tag == LIVE
