"""A sequential model of the CUDA peeling kernel's step protocol (ffi/cuda/truss/peel.cuh).

It runs the kernel's steps literally on the host: edge tags (the step that removes
the edge), the three report slots (written at step s, read at s + 1, cleared at
s + 2), scans of a live-edge list that is compacted as it shrinks, the merged
(short lists) and chunked (long lists) frontier lists with their chunk offsets
from one packed counter, the contiguous chunk ranges of each warp, level jumps,
the silent removal of support-0 edges at level 0, and runs of small steps by
block 0 alone whose state the grid takes back from a record. Within a step the
"threads" run one after another in a random order, so a wrong step boundary or
slot reuse shows up as a wrong result. CPU-only tests compare it with the C++
twin; it documents, and checks, the protocol that the GPU tests then run for
real.
"""

from __future__ import annotations

import numpy as np

LIVE, DEAD = 2**31 - 1, -1
FRESH = {"light": 0, "items": 0, "chunks": 0, "low": LIVE, "kept": 0}


class Model:
    """One decomposition (``k is None``) or one k-truss (k >= 4) by the kernel's steps."""

    def __init__(
        self,
        indptr,
        indices,
        eid,
        src,
        dst,
        *,
        lane_list,
        chunk,
        warps,
        divisor,
        tail,
        seed,
        recount=101,
    ):
        self.indptr, self.indices, self.eid = indptr, indices, eid
        self.src, self.dst = src, dst
        self.m = src.size
        self.lane_list, self.chunk, self.warps, self.divisor = lane_list, chunk, warps, divisor
        self.tail = tail  # (kTailFrontier, kTailChunks, kTailScan, warps of one block)
        self.recount = recount  # TrussPolicy::kRoundRecountPercent (above 100: never)
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

    def round(self, s, level, nl, nh, nc, warps):
        buf, offset = self.frontier[(s - 1) & 1], self.offset[(s - 1) & 1]
        tasks = []
        for i in range(nl):  # a thread per merged edge
            e = int(buf[i])
            a0, a1, b0, b1 = self.ranges(e)
            tasks += [(e, i1, i2) for i1, i2 in self.common(a0, a1, b0, b1)]
        for w in range(warps):  # each warp's contiguous chunks
            c, c_end = nc * w // warps, nc * (w + 1) // warps
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

    def clear(self, s):
        self.slots[s % 3] = dict(FRESH)

    def read(self, st):
        """Step st's report from the last step; takes over a compacted list."""
        r = self.slots[(st["s"] + 2) % 3]
        if st["pending"] is not None:
            st["list"], st["pending"] = st["pending"], None
            st["list_size"] = r["kept"]
            assert st["list"].size == r["kept"]
        return dict(r)

    def small(self, st, r):
        """Whether block 0 alone runs the step (TrussPolicy::kTail*)."""
        if r["light"] + r["items"] > 0:
            return r["light"] <= self.tail[0] and r["chunks"] <= self.tail[1]
        return st["list_size"] <= self.tail[2]

    def step(self, st, r, warps):
        """One step (a round or a scan), or sets st["done"]."""
        # Thread 0 clears slot s + 1 at some point of step s: at its start and end here,
        # so clearing a slot that the step reads or writes would show.
        self.clear(st["s"] + 1)
        nl, nh, nc = r["light"], r["items"], r["chunks"]
        if (
            self.single
            and self.listed
            and st["s"] == 1
            and self.recount <= 100
            and nl + nh > 0
            and (nl + nh) * 100 >= st["list_size"] * self.recount
        ):
            self.recount_step(st["s"], st["list"], st["list_size"])
            self.recounted += 1
            st["died"] += nl + nh
            st["prev"] = "recount"
            return
        if nl + nh > 0:
            self.round(st["s"], st["level"], nl, nh, nc, warps)
            st["died"] += nl + nh
            st["prev"] = "probe"
            return
        if st["prev"] == "probe":
            if self.single:
                st["done"] = True
                return
            st["level"] += 1
        elif st["prev"] == "scan":
            if self.single or r["low"] == LIVE:
                st["done"] = True
                return
            st["level"] = r["low"]
        lst = st["list"]
        compact = lst is None or st["died"] * self.divisor >= st["list_size"]
        items = np.arange(self.m) if lst is None else lst
        out = self.scan(st["s"], st["level"], items, compact)
        if compact:
            st["pending"], st["died"] = out, 0
        st["prev"] = "scan"

    def recount_step(self, s, lst, size):
        """A k-truss's round s replaced by a recount: the frontier (tag s) is dropped and
        every other live listed edge's support among the edges that stay is counted
        afresh (each edge by its own warp: reads tags only, writes its own support)."""
        for t in self.rng.permutation(size):
            e = int(lst[t])
            if self.tag[e] <= s:
                continue
            pairs = self.common(*self.ranges(e))
            self.sup[e] = sum(
                1 for i, j in pairs if self.tag[self.eid[i]] > s and self.tag[self.eid[j]] > s
            )

    def run(self, alive, sup, k=None, listed=False):
        """Returns (trussness or None, live flags) after the kernel's steps. ``listed``
        (k-truss only): start from the list of the alive edges, as the kernel does after
        the prefilter (else from every edge)."""
        m = self.m
        self.tag = np.where(alive, LIVE, DEAD).astype(np.int64)
        self.sup = sup.astype(np.int64).copy()
        self.truss = np.zeros(m, np.int64) if k is None else None
        self.frontier = [np.full(m, -7, np.int64), np.full(m, -7, np.int64)]
        self.offset = [np.full(m, -7, np.int64), np.full(m, -7, np.int64)]
        self.slots = [dict(FRESH) for _ in range(3)]
        self.single = k is not None
        self.listed = listed and self.single
        self.recounted = 0
        start = np.flatnonzero(alive) if self.listed else None
        st = {
            "s": 0,
            "level": k - 3 if self.single else 0,
            "prev": "start",
            "list": start,
            "list_size": m if start is None else start.size,
            "pending": None,
            "died": 0,
            "done": False,
        }
        records = [None, None]
        runs = 0
        self.block_steps = 0
        while True:
            r = self.read(st)
            if self.small(st, r):
                # Block 0 alone (tail_warps warps) while the steps stay small; the other
                # blocks take its state from the record after the grid sync.
                while True:
                    self.step(st, r, self.tail[3])
                    self.block_steps += 1
                    if st["done"]:
                        break
                    self.clear(st["s"] + 1)
                    st["s"] += 1
                    r = self.read(st)
                    if not self.small(st, r):
                        break
                records[runs & 1], records[(runs + 1) & 1] = dict(st), None
                st = dict(records[runs & 1])
                runs += 1
                if st["done"]:
                    break
                continue
            self.step(st, r, self.warps)
            if st["done"]:
                break
            self.clear(st["s"] + 1)
            st["s"] += 1
        self.steps = st["s"] + 1
        return self.truss, self.tag == LIVE


def warp_in_triangle(indptr, indices, src, dst, warp: int = 32) -> tuple[np.ndarray, int]:
    """A model of the CUDA kernel WarpInTriangle, lane by lane: ``(bool[m], rounds)``.

    Each warp owns ``warp`` consecutive edges; per round, the open edges share the
    lanes evenly (``warp // open`` each, in lane order), a lane probes the next
    entry of its edge's shorter list by a lower bound in the longer one, the
    owner closes its edge on a hit and moves its longer range to the round's last
    lower bound. ``rounds`` is the largest number of rounds of any warp.
    """
    indptr, indices = np.asarray(indptr), np.asarray(indices)
    src, dst = np.asarray(src), np.asarray(dst)
    m = src.size
    out = np.zeros(m, bool)
    most = 0
    for first in range(0, m, warp):
        a0, a1, b0, b1 = (np.zeros(warp, np.int64) for _ in range(4))
        for lane in range(warp):
            e = first + lane
            if e < m:
                u, v = int(src[e]), int(dst[e])
                r = [indptr[u], indptr[u + 1], indptr[v], indptr[v + 1]]
                if r[1] - r[0] > r[3] - r[2]:
                    r = r[2:] + r[:2]
                a0[lane], a1[lane], b0[lane], b1[lane] = r
        hit = np.zeros(warp, bool)
        open_ = [lane for lane in range(warp) if a0[lane] < a1[lane]]
        rounds = 0
        while open_:
            rounds += 1
            q = warp // len(open_)
            take = {o: min(a1[o] - a0[o], q) for o in open_}
            found, pos = np.zeros(warp, bool), np.zeros(warp, np.int64)
            for lane in range(warp):
                group, j = divmod(lane, q)
                if group >= len(open_):
                    continue
                o = open_[group]
                if j >= take[o]:
                    continue
                w = indices[a0[o] + j]
                p = b0[o] + np.searchsorted(indices[b0[o] : b1[o]], w)
                pos[lane] = p
                found[lane] = p < b1[o] and indices[p] == w
            for rank, o in enumerate(open_):
                lanes = slice(rank * q, rank * q + take[o])
                hit[o] = found[lanes].any()
                a0[o] += take[o]
                b0[o] = pos[rank * q + take[o] - 1]
            open_ = [o for o in open_ if not hit[o] and a0[o] < a1[o] and b0[o] < b1[o]]
        most = max(most, rounds)
        out[first : first + warp] = hit[: min(warp, m - first)]
    return out, most
