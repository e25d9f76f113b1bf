"""A host model of the h-index decomposition's rounds and asynchronous tail
(ffi/cuda/truss/hindex.cuh: HIndexKernel, HIndexTailKernel and the resume launch).

The rounds run as the kernel's first launch does: all-edge rounds without queueing
while a round lowers more than m / divisor edges, one all-edge round that queues,
then queued rounds until one queues at most ``async_edges`` edges, whose lists seed
the tail's queue. The tail then runs as interleaved warps: each warp is a generator
that yields after every access to shared state (claiming a queue index, polling the
queue and the pending count, the mark exchange, each value it reads, the lowering,
each push's exchange, reservation and store), and a seeded random scheduler picks
the next warp to step. A warp therefore reads values that other warps lower
meanwhile, updates an edge that another warp updates at once, and pushes onto a
queue that others are claiming from: every interleaving that sequentially consistent
memory allows is reachable, so a protocol step in the wrong order (a mark cleared
after the values are read, a pending count decremented before the pushes) shows
under some schedule as a wrong trussness or as waiting warps that never return (a
hang on the GPU). A push past the queue's end is dropped and flagged, and the
resume runs all-edge rounds to the fixed point, as the kernel does.

It checks the protocol, not the memory model: the fences that make the kernel's
accesses behave as ordered here are argued in hindex.cuh.
"""

from __future__ import annotations

import random
from collections.abc import Iterator

from reference.truss import h_index

IN_QUEUE = -1  # the tail's mark: an edge pushed and not yet claimed


def triangle_store(src, dst) -> list[list[tuple[int, int]]]:
    """Edge e's triangles as the other two edges' ids (the kernel's int2 store)."""
    pos = {(int(u), int(v)): e for e, (u, v) in enumerate(zip(src, dst, strict=True))}
    adj: dict[int, set[int]] = {}
    for u, v in pos:
        adj.setdefault(u, set()).add(v)
        adj.setdefault(v, set()).add(u)
    store: list[list[tuple[int, int]]] = [[] for _ in pos]
    for (u, v), e in pos.items():
        for w in sorted(adj[u] & adj[v]):
            store[e].append((pos[min(u, w), max(u, w)], pos[min(v, w), max(v, w)]))
    return store


def _wanted(h: int, reads: list[tuple[int, int, int, int]]) -> list[int]:
    """The edges an edge lowered to h queues: x of a triangle {e, x, y} read as
    (t(x), t(y)) whose value there fell below t(x), i.e. h < t(x) and t(y) >= h."""
    out = []
    for a, b, ta, tb in reads:
        if h < ta and tb >= h:
            out.append(a)
        if h < tb and ta >= h:
            out.append(b)
    return out


class TailModel:
    """One decomposition: ``run()`` returns t(e) + 2 for every edge (the trussness)."""

    def __init__(
        self,
        store: list[list[tuple[int, int]]],
        *,
        divisor: int = 4,
        async_edges: int = 16384,
        queue_size: int | None = None,
        warps: int = 8,
        seed: int = 0,
        seed_all: bool = False,
        mistake: str | None = None,
    ):
        """A model of one decomposition over ``store`` (triangle_store's lists).

        Args:
            divisor: TrussPolicy::kHIndexAllDivisor (0: no rounds without queueing).
            async_edges: TrussPolicy::kHIndexAsyncEdges (0: the tail never seeded).
            queue_size: the tail's queue; default 4 slots an edge
                (TrussPolicy::kHIndexQueuePerEdge).
            warps: the tail's warps, interleaved by a random scheduler seeded by ``seed``.
            seed_all: no rounds; every edge seeded at t(e) = its triangles (the tail's
                hardest start: all the work, every edge in flight at once).
            mistake: a deliberate protocol error, for the tests to show that the
                schedules expose it: "late_claim" (the mark cleared after the values are
                read) or "early_done" (pending decremented before the pushes).
        """
        self.store = store
        self.m = len(store)
        self.divisor = divisor
        self.async_edges = async_edges
        self.queue_size = 4 * self.m if queue_size is None else queue_size
        self.warps = warps
        self.rng = random.Random(seed)
        assert mistake in (None, "late_claim", "early_done")
        self.mistake = mistake
        self.seed_all = seed_all
        self.t = [len(s) for s in store]
        self.stats = {
            "rounds": 0,
            "tail_updates": 0,
            "full": False,
            "resumed_rounds": 0,
            "stuck": False,
        }

    # The rounds (synchronous: every read of a round before its writes, one of the
    # orders the kernel's in-place rounds allow).
    def _round(self, edges, queue: bool) -> tuple[int, set[int]]:
        new = list(self.t)
        queued: set[int] = set()
        fell = 0
        for e in edges:
            c = self.t[e]
            reads = [(a, b, self.t[a], self.t[b]) for a, b in self.store[e]]
            h = h_index([min(ta, tb) for _, _, ta, tb in reads], c)
            if h < c:
                new[e] = h
                fell += 1
                if queue:
                    queued.update(_wanted(h, reads))
        self.t = new
        self.stats["rounds"] += 1
        return fell, queued

    def _rounds(self) -> set[int] | None:
        """The first launch. Returns the edges seeding the tail, or None at the fixed point."""
        every = range(self.m)
        if self.divisor > 0:
            while True:
                fell, _ = self._round(every, queue=False)
                if fell == 0:
                    return None
                if fell * self.divisor <= self.m:
                    break
        _, queued = self._round(every, queue=True)
        while queued:
            if len(queued) <= self.async_edges and len(queued) <= self.queue_size:
                return queued
            _, queued = self._round(sorted(queued), queue=True)
        return None

    def _resume(self) -> None:
        """The resume launch after a full queue: all-edge rounds to the fixed point."""
        queued = set(range(self.m))
        while queued:
            _, queued = self._round(sorted(queued), queue=True)
            self.stats["resumed_rounds"] += 1

    # The tail.
    def _push(self, xs: list[int]) -> Iterator[None]:
        for x in xs:
            old, self.mark[x] = self.mark[x], IN_QUEUE
            yield
            if old == IN_QUEUE:
                continue
            self.pending += 1
            at, self.tail = self.tail, self.tail + 1
            yield
            if at < self.queue_size:
                self.queue[at] = x
            else:
                self.pending -= 1
                self.full = True
            yield

    def _warp(self) -> Iterator[None]:
        while True:
            i, self.head = self.head, self.head + 1
            yield
            while True:  # wait for the claimed index's edge, or for the fixed point
                e = self.queue[i] if i < self.queue_size else -1
                if e >= 0:
                    break
                if self.pending == 0:
                    return
                yield
            if self.mistake != "late_claim":
                self.mark[e] = 0
                yield
            c = self.t[e]
            yield
            reads = []
            for a, b in self.store[e]:
                ta = self.t[a]
                yield
                tb = self.t[b]
                yield
                reads.append((a, b, ta, tb))
            if self.mistake == "late_claim":
                self.mark[e] = 0
                yield
            self.stats["tail_updates"] += 1
            h = h_index([min(ta, tb) for _, _, ta, tb in reads], c)
            if self.mistake == "early_done":
                self.pending -= 1
                yield
            if h < c:
                self.t[e] = min(self.t[e], h)  # atomicMin: another warp may have gone lower
                yield
                yield from self._push(_wanted(h, reads))
            if self.mistake != "early_done":
                self.pending -= 1
                yield

    def _tail(self, seeds: set[int]) -> None:
        self.mark = [0] * self.m
        self.queue = [-1] * self.queue_size
        for i, e in enumerate(sorted(seeds)):
            self.mark[e] = IN_QUEUE
            self.queue[i] = e
        self.head, self.tail, self.pending, self.full = 0, len(seeds), len(seeds), False
        running = [self._warp() for _ in range(self.warps)]
        # A livelock guard: far more steps than any terminating schedule takes.
        budget = 1000 * (self.m + sum(map(len, self.store)))
        while running:
            budget -= 1
            if budget < 0:
                self.stats["stuck"] = True
                return
            w = self.rng.randrange(len(running))
            try:
                next(running[w])
            except StopIteration:
                running.pop(w)
        self.stats["full"] = self.full

    def run(self) -> list[int] | None:
        """The trussness of every edge, or None if the tail's warps never all returned
        (waiting forever on a queue slot that no push fills: a hang on the GPU)."""
        seeds = set(range(self.m)) if self.seed_all else self._rounds()
        if seeds is not None:
            self._tail(seeds)
            if self.stats["stuck"]:
                return None
            if self.full:
                self._resume()
        return [x + 2 for x in self.t]
