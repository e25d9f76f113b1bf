"""A lane-level CPU model of the "cluster" CUDA kernel (ffi/cuda/bfs/bfs_cluster.cu),
checked against a plain BFS on random graphs.

The model follows the kernel's index arithmetic step by step, so its mistakes
would show here without a GPU: a warp's top-down mapping (a frontier word ->
its vertices -> edges by a degree scan and OwnerLane), the bottom-up
lane-group search (GroupSearch), the word ownership of blocks and warps
(every word searched or expanded exactly once), the next-frontier buffers in
rotation (a slot is zero when it is written) and Beamer's direction rule
(not modelled: the block-wide walk of top-down vertices of degree >= 1024, a
plain strided loop; here their warp walks them).
Blocks run one after another in a random order per level, as the hardware
may interleave them. The CUDA kernel itself is compared with the CPU handler
in test_gpu.py.

The grid kernel's bitmap variant (bfs_levels.cu, "auto" from 2^20 vertices)
shares the word search; its model below checks the bitmaps' bookkeeping: the
ping-pong frontier bitmaps, which level clears which, and that the current
one always holds exactly the level's vertices; and its top-down's edge split
(ExpandTopDownFlat): every frontier edge visited exactly once.
"""

from __future__ import annotations

import random
from collections import deque

import pytest
from reference.split import block_count_at_most, last_at_most

WARP, BATCH, GROUP_LANES = 32, 4, 8  # kWarp, BfsPolicy::kEdgeBatch, kClusterGroupLanes
GROUPS = WARP // GROUP_LANES
ALPHA, BETA = 15, 24  # BfsPolicy::kClusterAlpha, kBackToTopDown


def _next_bottom_up(direction, bottom_up, frontier, prev, frontier_edges, unexplored, n) -> bool:
    """kcjax::ClusterBottomUp (policy.h): forced, or Beamer's edge rule and back by size."""
    if direction != "auto":
        return direction == "bottom_up"
    if not bottom_up:
        return frontier_edges * ALPHA > unexplored
    return not (frontier < prev and frontier * BETA < n)


def _popc(x: int) -> int:
    return bin(x).count("1")


def _lowest(x: int) -> int:
    return (x & -x).bit_length() - 1


def _inclusive(values: list[int]) -> list[int]:
    out, total = [], 0
    for v in values:
        total += v
        out.append(total)
    return out


def _owner_lane(incl: list[int], q: int) -> int:
    """warp.cuh OwnerLane: the lanes with incl <= q, by the same binary search."""
    lo, step = 0, WARP // 2
    while step >= 1:
        if incl[lo + step - 1] <= q:
            lo += step
        step //= 2
    return lo


def _nth_bit(bits: int, r: int) -> int:
    for _ in range(r):
        bits &= bits - 1
    return _lowest(bits)


def _top_down_word(front: list[int], w: int, indptr, indices) -> list[tuple[int, int]]:
    """The edges (u, x) one warp walks for frontier word w in TopDown."""
    bits = front[w]
    if bits == 0:
        return []
    u, lo, deg = [-1] * WARP, [0] * WARP, [0] * WARP
    for lane in range(WARP):
        if lane < _popc(bits):
            u[lane] = w * 32 + _nth_bit(bits, lane)
            lo[lane] = indptr[u[lane]]
            deg[lane] = indptr[u[lane] + 1] - lo[lane]
    incl = _inclusive(deg)
    excl = [incl[lane] - deg[lane] for lane in range(WARP)]
    total = incl[-1]
    out = []
    for base in range(0, total, WARP * BATCH):
        for lane in range(WARP):
            for j in range(BATCH):
                q = base + j * WARP + lane
                owner = _owner_lane(incl, min(q, total - 1))
                if q < total:
                    out.append((u[owner], indices[lo[owner] + q - excl[owner]]))
    return out


def _frontier_neighbour(indices, front_bit, e0: int, hi: int, step: int) -> int:
    ids = [indices[e0 + j * step] if e0 + j * step < hi else -1 for j in range(BATCH)]
    return next((x for x in ids if x >= 0 and front_bit(x)), -1)


def _group_search(todo: int, lo, hi, found, indices, front_bit) -> list[int]:
    """GroupSearch, lane by lane in lockstep."""
    found = list(found)
    while todo:
        take = min(_popc(todo), GROUPS)
        o = [
            _nth_bit(todo, lane // GROUP_LANES) if lane // GROUP_LANES < take else -1
            for lane in range(WARP)
        ]
        olo = [lo[max(x, 0)] for x in o]
        ohi = [olo[lane] if o[lane] < 0 else hi[o[lane]] for lane in range(WARP)]
        par, done, base = [-1] * WARP, [x < 0 for x in o], olo[:]
        while not all(done):
            h = [
                -1
                if done[lane]
                else _frontier_neighbour(
                    indices, front_bit, base[lane] + lane % GROUP_LANES, ohi[lane], GROUP_LANES
                )
                for lane in range(WARP)
            ]
            hit_lanes = sum(1 << lane for lane in range(WARP) if h[lane] >= 0)
            after = done[:]
            for lane in range(WARP):
                group = lane // GROUP_LANES
                hits = hit_lanes & (((1 << GROUP_LANES) - 1) << (group * GROUP_LANES))
                first = h[_lowest(hits)] if hits else h[lane]
                if not done[lane] and hits:
                    par[lane] = first
                after[lane] = (
                    done[lane] or hits != 0 or base[lane] + GROUP_LANES * BATCH >= ohi[lane]
                )
            done = after
            base = [b + GROUP_LANES * BATCH for b in base]
        for lane in range(WARP):
            rank = _popc(todo & ((1 << lane) - 1))
            taken = (todo >> lane) & 1 and rank < take
            got = par[rank * GROUP_LANES if taken else 0]
            if taken:
                found[lane] = got
        for _ in range(take):
            todo &= todo - 1
    return found


def _bottom_up_word(w, lanes, n, visited, front_bit, indptr, indices) -> dict[int, int]:
    """{vertex: parent} one warp finds for the `lanes` of word w (thread, lane-group and
    warp tiers)."""
    first = w * 32
    unreached = ~visited[w] & lanes
    if n - first < 32:
        unreached &= (1 << (n - first)) - 1
    lo = [indptr[first + lane] if (unreached >> lane) & 1 else 0 for lane in range(WARP)]
    hi = [indptr[first + lane + 1] if (unreached >> lane) & 1 else 0 for lane in range(WARP)]
    found = [-1] * WARP
    grouped = 0
    for lane in range(WARP):
        if not (unreached >> lane) & 1:
            continue
        deg = hi[lane] - lo[lane]
        if deg < 16:  # kClusterGroupDegree: a thread alone
            for e0 in range(lo[lane], hi[lane], BATCH):
                found[lane] = _frontier_neighbour(indices, front_bit, e0, hi[lane], 1)
                if found[lane] >= 0:
                    break
        elif deg < 256:  # kMiddleMax
            grouped |= 1 << lane
        else:  # the warp: any frontier neighbour
            nbrs = [x for x in indices[lo[lane] : hi[lane]] if front_bit(x)]
            found[lane] = nbrs[0] if nbrs else -1
    found = _group_search(grouped, lo, hi, found, indices, front_bit)
    return {first + lane: found[lane] for lane in range(WARP) if found[lane] >= 0}


def _cluster_bfs(adj, src: int, ranks: int, direction: str, warps: int, rng) -> tuple[list, list]:
    n = len(adj)
    indptr = _inclusive([0] + [len(a) for a in adj])
    indices = [x for a in adj for x in a]
    words = (n + 31) // 32
    slice_ = -(-words // ranks)
    visited = [[0] * words for _ in range(ranks)]
    front = [[0] * words for _ in range(ranks)]
    nxt = [[[0] * slice_ for _ in range(3)] for _ in range(ranks)]
    dist, parent = [-1] * n, [-1] * n
    for r in range(ranks):
        visited[r][src >> 5] = front[r][src >> 5] = 1 << (src & 31)
    dist[src], parent[src] = 0, src
    frontier, frontier_edges = 1, len(adj[src])
    unexplored = len(indices) - frontier_edges
    bottom_up, prev, level = False, 0, 0
    while frontier:
        buf = level % 3
        bu = _next_bottom_up(direction, bottom_up, frontier, prev, frontier_edges, unexplored, n)
        prev, bottom_up = frontier, bu
        reached = edges = 0
        for r in rng.sample(range(ranks), ranks):
            for warp in range(warps):
                if not bu:
                    for fw in range(r * warps + warp, words, ranks * warps):
                        for u, x in _top_down_word(front[r], fw, indptr, indices):
                            if (visited[r][x >> 5] >> (x & 31)) & 1:
                                continue
                            w, bit = x >> 5, 1 << (x & 31)
                            slot = nxt[w % ranks][buf]
                            if slot[w // ranks] & bit:  # claimed already
                                continue
                            slot[w // ranks] |= bit
                            assert dist[x] < 0
                            dist[x], parent[x] = level + 1, u
                            reached, edges = reached + 1, edges + len(adj[x])
                    continue
                parts = 1  # BottomUp: a word's lanes split over warps when words are few
                while parts < WARP and slice_ * parts * 2 <= warps:
                    parts *= 2
                span = WARP // parts
                for item in range(warp, slice_ * parts, warps):
                    k, part = divmod(item, parts)
                    w = r + k * ranks
                    if w >= words:
                        break
                    lanes = ((1 << span) - 1) << (part * span)
                    found = _bottom_up_word(
                        w,
                        lanes,
                        n,
                        visited[r],
                        lambda y, r=r: (front[r][y >> 5] >> (y & 31)) & 1,
                        indptr,
                        indices,
                    )
                    assert nxt[r][buf][k] & lanes == 0  # the rotation cleared it
                    for x, p in found.items():
                        nxt[r][buf][k] |= 1 << (x & 31)
                        assert dist[x] < 0
                        dist[x], parent[x] = level + 1, p
                        reached, edges = reached + 1, edges + len(adj[x])
        for r in range(ranks):  # after the cluster barrier: gather, then clear two levels back
            for w in range(words):
                front[r][w] = nxt[w % ranks][buf][w // ranks]
                visited[r][w] |= front[r][w]
        for r in range(ranks):
            nxt[r][(level + 2) % 3] = [0] * slice_
        frontier, frontier_edges = reached, edges
        unexplored -= edges
        level += 1
    return dist, parent


def _bfs(adj, src: int) -> list[int]:
    dist = [-1] * len(adj)
    dist[src] = 0
    queue = deque([src])
    while queue:
        u = queue.popleft()
        for x in adj[u]:
            if dist[x] < 0:
                dist[x] = dist[u] + 1
                queue.append(x)
    return dist


def _random_graph(rng, n: int) -> list[list[int]]:
    adj = [set() for _ in range(n)]
    for _ in range(rng.randint(0, 4 * n)):
        a, b = rng.randrange(n), rng.randrange(n)
        if a != b:
            adj[a].add(b)
            adj[b].add(a)
    if n > 40 and rng.random() < 0.5:  # a hub of every degree tier
        for y in rng.sample(range(1, n), min(n - 1, rng.choice([20, 100, 300]))):
            adj[0].add(y)
            adj[y].add(0)
    return [sorted(a) for a in adj]


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("ranks", [1, 2, 3, 5])
def test_cluster_model_equals_bfs(seed, ranks):
    rng = random.Random(seed * 10 + ranks)
    n = rng.choice([1, 7, 31, 32, 33, 100, 400])
    adj = _random_graph(rng, n)
    for direction in ("auto", "top_down", "bottom_up"):
        src = rng.randrange(n)
        dist, parent = _cluster_bfs(adj, src, ranks, direction, rng.choice([1, 2, 32]), rng)
        assert dist == _bfs(adj, src)
        for v in range(n):
            if dist[v] > 0:
                assert parent[v] in adj[v] and dist[parent[v]] == dist[v] - 1
            elif dist[v] < 0:
                assert parent[v] == -1


@pytest.mark.parametrize("ranks", [1, 3, 8])
@pytest.mark.parametrize("n", [40, 400, 1500])
def test_cluster_model_split_words(ranks, n):
    """32 warps over few words per block: bottom-up splits each word over warps."""
    rng = random.Random(n + ranks)
    adj = _random_graph(rng, n)
    for direction in ("auto", "bottom_up"):
        src = rng.randrange(n)
        dist, parent = _cluster_bfs(adj, src, ranks, direction, 32, rng)
        assert dist == _bfs(adj, src)
        for v in range(n):
            if dist[v] > 0:
                assert parent[v] in adj[v] and dist[parent[v]] == dist[v] - 1


# The grid kernel's bitmap variant (bfs_levels.cu, BfsSingleKernel<true>, "auto" from
# 2^20 vertices) shares the word search (bfs/bottom_up.cuh, modelled by
# _bottom_up_word) and keeps its level state in global bitmaps: Front(fcur) the
# current frontier, Front(fcur ^ 1) the next one (cleared by the frontier build of
# each top-down level, every word written by a bottom-up level), `visited`.


def _grid_bitmap_bfs(adj, src: int, direction: str) -> tuple[list, list]:
    n = len(adj)
    m = sum(len(a) for a in adj)
    indptr = _inclusive([0] + [len(a) for a in adj])
    indices = [x for a in adj for x in a]
    words = (n + 31) // 32
    visited = [0] * words
    front = [[0] * words, [0] * words]
    dist, parent = [-1] * n, [-1] * n
    dist[src], parent[src] = 0, src
    visited[src >> 5] |= 1 << (src & 31)
    front[0][src >> 5] |= 1 << (src & 31)
    fcur, bottom_up, prev, unexplored = 0, False, 0, m

    def build(level: int) -> tuple[int, int]:
        """BuildFrontier: the level's size and edges from the distances, its bitmap
        (what the frontier-words variant would read instead) checked equal."""
        at = [v for v in range(n) if dist[v] == level]
        bits = [w * 32 + b for w in range(words) for b in range(32) if (front[fcur][w] >> b) & 1]
        assert bits == at, "the current frontier bitmap is the level's vertices"
        front[fcur ^ 1][:] = [0] * words
        return len(at), sum(indptr[v + 1] - indptr[v] for v in at)

    for level in range(n + 1):
        if not bottom_up:
            size, edges = build(level)
        if size == 0:
            break
        unexplored -= edges
        next_bu = _next_bottom_up(direction, bottom_up, size, prev, edges, unexplored, n)
        if bottom_up and not next_bu:
            size, edges = build(level)
        prev, bottom_up = size, next_bu
        nxt = front[fcur ^ 1]
        if bottom_up:

            def front_bit(x: int, cur=front[fcur]) -> bool:
                return bool((cur[x >> 5] >> (x & 31)) & 1)

            size = edges = 0
            for w in range(words):
                got = 0
                for v, par in _bottom_up_word(
                    w, (1 << WARP) - 1, n, visited, front_bit, indptr, indices
                ).items():
                    dist[v], parent[v] = level + 1, par
                    got |= 1 << (v & 31)
                    size += 1
                    edges += indptr[v + 1] - indptr[v]
                nxt[w] = got  # every word, so the buffer is never cleared here
                visited[w] |= got
        else:
            for u in [v for v in range(n) if dist[v] == level]:
                for x in indices[indptr[u] : indptr[u + 1]]:
                    if not (visited[x >> 5] >> (x & 31)) & 1:
                        dist[x], parent[x] = level + 1, u
                        visited[x >> 5] |= 1 << (x & 31)
                        nxt[x >> 5] |= 1 << (x & 31)
        fcur ^= 1
    return dist, parent


@pytest.mark.parametrize("seed", range(8))
@pytest.mark.parametrize("direction", ["auto", "top_down", "bottom_up"])
def test_grid_bitmap_model_equals_bfs(seed, direction):
    """The bitmap variant's level state: distances equal a plain BFS, parents are
    one level up, and at every level's start the current frontier bitmap holds
    exactly that level's vertices (switches both ways, hubs of every tier)."""
    rng = random.Random(seed)
    n = rng.choice([1, 31, 33, 100, 400, 900])
    adj = _random_graph(rng, n)
    src = rng.randrange(n)
    dist, parent = _grid_bitmap_bfs(adj, src, direction)
    assert dist == _bfs(adj, src)
    for v in range(n):
        if dist[v] > 0:
            assert parent[v] in adj[v] and dist[parent[v]] == dist[v] - 1


# The bitmap variant's top-down (bfs_levels.cu, ExpandTopDownFlat): the flat queue of the
# frontier's vertices with edges, each block's even share of the frontier's edges found by
# BlockCountAtMost, and tiles whose vertices are staged and searched by LastAtMost
# (their models: tests/reference/split.py).


def _flat_top_down(frontier, indptr, grid: int, threads: int, batch: int) -> list[tuple[int, int]]:
    """The (CSR position, parent) pairs ExpandTopDownFlat's threads visit, in any order."""
    queue = [v for v in frontier if indptr[v + 1] > indptr[v]]  # BuildFrontier's flat queue
    qedge = _inclusive([0] + [indptr[v + 1] - indptr[v] for v in queue])[:-1]
    qrow = [indptr[v] for v in queue]
    edges, tile = sum(indptr[v + 1] - indptr[v] for v in frontier), threads * batch
    per = (edges + grid - 1) // grid
    out = []
    for block in range(grid):
        e = min(edges, block * per)
        end = min(edges, e + per)
        if e >= end:
            continue
        i0 = block_count_at_most(qedge, len(queue), e, threads) - 1
        while e < end:
            s_edge = [qedge[i0 + t] if i0 + t < len(queue) else edges for t in range(tile + 1)]
            tile_end = min(end, e + tile)
            for x in range(e, tile_end):  # thread x % threads, batch slot (x - e) // threads
                t = last_at_most(s_edge, tile, x)
                assert t < tile and i0 + t < len(queue), "a staged vertex holds every edge"
                out.append((qrow[i0 + t] + x - s_edge[t], queue[i0 + t]))
            i0 += last_at_most(s_edge, tile, tile_end)
            e = tile_end
    return out


@pytest.mark.parametrize("seed", range(12))
def test_flat_top_down_visits_every_edge_once(seed):
    """Every edge of the frontier is visited exactly once, with its own vertex as the
    parent, whatever the degrees (0, 1, a vertex wider than a block's share), the grid
    and the tile size."""
    rng = random.Random(seed)
    degrees = [rng.choice([0, 0, 1, 2, 3, 7, 40, 300]) for _ in range(rng.randrange(1, 60))]
    if seed % 3 == 0:
        degrees[rng.randrange(len(degrees))] = 5000
    indptr = _inclusive([0] + degrees)
    frontier = rng.sample(range(len(degrees)), rng.randrange(1, len(degrees) + 1))
    want = sorted((indptr[v] + j, v) for v in frontier for j in range(degrees[v]))
    for grid, threads, batch in ((1, 4, 1), (3, 8, 2), (7, 32, 4), (50, 8, 1)):
        assert sorted(_flat_top_down(frontier, indptr, grid, threads, batch)) == want
