"""Level-by-level matching in JAX: the prefix-tree (GVSM) and flat engines, and
a dense adjacency-matrix formulation for small graphs.

The level engines expand partial embeddings one matched query vertex per
level. ``storage="prefix_tree"`` keeps each level as ``{vid, parent_idx}``
(partial embeddings share prefixes; a leaf-to-root walk restores the images
a check needs); ``storage="flat"`` keeps every partial embedding as a full
row. A level is expanded in chunks cut by a prefix sum of the pivot images'
degrees so that no chunk produces more than :attr:`LevelPolicy.chunk`
candidates, and the chunks are expanded depth-first, so device memory stays
bounded by about ``q * chunk`` entries whatever the number of partial
embeddings. These engines run eagerly (sizes are data-dependent) on the
plan of :func:`kcjax.match.inputs.prepare_match` without branch sharing.
"""

from __future__ import annotations

import dataclasses
import functools

import jax
import jax.numpy as jnp
import numpy as np

from kcjax.graph.labeled import LabeledGraph
from kcjax.match.plan import Prepared


@dataclasses.dataclass(frozen=True)
class LevelPolicy:
    """Tuning constants of the level engines."""

    chunk: int = 1 << 18  # candidates per expansion step: bounded device memory per level
    min_bucket: int = 1 << 8  # smallest padded step: few compiled shapes for tiny steps
    dense_max_nodes: int = 1 << 13  # dense engine limit: an n x n bool matrix per graph


POLICY = LevelPolicy()


def _bucket(x: int) -> int:
    return max(POLICY.min_bucket, 1 << max(0, int(x) - 1).bit_length())


@functools.partial(jax.jit, static_argnames=("steps",))
def _member(indptr: jax.Array, indices: jax.Array, a: jax.Array, b: jax.Array, steps: int = 32):
    """bool: b in row a (vectorized binary search)."""
    lo = indptr[a]
    hi = indptr[a + 1]

    def body(_, s):
        lo, hi = s
        mid = (lo + hi) // 2
        go = (lo < hi) & (indices[jnp.minimum(mid, indices.shape[0] - 1)] < b)
        stay = lo < hi
        return jnp.where(go, mid + 1, lo), jnp.where(stay & ~go, mid, hi)

    lo, hi = jax.lax.fori_loop(0, steps, body, (lo, hi))
    return (lo < indptr[a + 1]) & (indices[jnp.minimum(lo, indices.shape[0] - 1)] == b)


@functools.partial(jax.jit, static_argnames=("level", "size", "others", "nonadj", "free"))
def _expand(
    images: jax.Array,
    src_start: jax.Array,
    src_len: jax.Array,
    indptr: jax.Array,
    indices: jax.Array,
    lists: jax.Array,
    cand: jax.Array,
    *,
    level: int,
    size: int,
    others: tuple[int, ...],
    nonadj: tuple[int, ...],
    free: int,
) -> tuple[jax.Array, jax.Array, jax.Array]:
    """Candidates of ``level`` for every node of a chunk.

    Returns (node int32[size], v int32[size], valid bool[size]).
    """
    ends = jnp.cumsum(src_len)
    pos = jnp.arange(size, dtype=jnp.int32)
    node = jnp.searchsorted(ends, pos, side="right").astype(jnp.int32)
    inside = pos < ends[-1]
    node = jnp.minimum(node, images.shape[0] - 1)
    k = pos - (ends[node] - src_len[node])
    if free >= 0:
        v = lists[free, jnp.clip(k, 0, lists.shape[1] - 1)]
    else:
        v = indices[jnp.clip(src_start[node] + k, 0, indices.shape[0] - 1)]
    vv = jnp.maximum(v, 0)
    ok = inside & (v >= 0) & (((cand[level, vv >> 5] >> (vv & 31).astype(jnp.uint32)) & 1) == 1)
    row = images[node]
    ok &= jnp.all(row[:, :level] != v[:, None], axis=1)
    for j in others:
        ok &= _member(indptr, indices, row[:, j], vv)
    for j in nonadj:
        ok &= ~_member(indptr, indices, row[:, j], vv)
    return node, v, ok


@functools.partial(jax.jit, static_argnames=("size",))
def _compact(node: jax.Array, v: jax.Array, ok: jax.Array, size: int):
    (sel,) = jnp.nonzero(ok, size=size, fill_value=0)
    return node[sel], v[sel]


class _Search:
    def __init__(self, p: Prepared, storage: str, emit: bool):
        self.p = p
        self.storage = storage
        self.emit = emit
        self.plan = np.asarray(p.plan)
        self.q = self.plan.shape[0]
        self.indptr_np = np.asarray(p.indptr)
        self.count = 0
        self.out: list[np.ndarray] = []

    def run(self) -> None:
        roots = np.asarray(self.p.roots)
        roots = roots[roots >= 0].astype(np.int32)
        if self.q == 1:
            self.count += roots.size
            if self.emit:
                self.out.append(roots[:, None])
            return
        for a in range(0, roots.size, POLICY.chunk):
            r = roots[a : a + POLICY.chunk]
            if self.storage == "prefix_tree":
                self._level([(r, None)], 1)
            else:
                self._level(r[:, None], 1)

    def _images(self, state) -> np.ndarray:
        """int32[L, level]: the images of every node (leaf-to-root walk for the tree)."""
        if self.storage == "flat":
            return state
        cols = []
        idx = None
        for vid, parent in reversed(state):
            cols.append(vid if idx is None else vid[idx])
            idx = parent if idx is None else (None if parent is None else parent[idx])
        return np.stack(cols[::-1], axis=1)

    def _level(self, state, level: int) -> None:
        images = self._images(state)
        back, nonadj_mask, row, length = (int(x) for x in self.plan[level, :4])
        back &= 0xFFFFFFFF
        nonadj_mask &= 0xFFFFFFFF
        bj = [j for j in range(level) if back >> j & 1]
        nj = tuple(j for j in range(level) if nonadj_mask >> j & 1)
        if bj:
            degs = np.stack(
                [self.indptr_np[images[:, j] + 1] - self.indptr_np[images[:, j]] for j in bj], 1
            )
            pick = np.argmin(degs, axis=1)
            pivot_img = images[np.arange(images.shape[0]), np.asarray(bj)[pick]]
            src_len = degs[np.arange(images.shape[0]), pick].astype(np.int32)
            src_start = self.indptr_np[pivot_img].astype(np.int32)
            free = -1
            # Checks against every backward neighbour are exact (the pivot's own
            # check is redundant but harmless: v comes from its row).
            others = tuple(bj)
        else:
            src_len = np.full(images.shape[0], length, np.int32)
            src_start = np.zeros(images.shape[0], np.int32)
            free = row
            others = ()
        ends = np.cumsum(src_len, dtype=np.int64)
        a = 0
        total_nodes = images.shape[0]
        while a < total_nodes:
            base = ends[a - 1] if a else 0
            b = int(np.searchsorted(ends, base + POLICY.chunk, side="right"))
            b = max(b, a + 1)
            need = int(ends[b - 1] - base)
            if need == 0:
                a = b
                continue
            size = _bucket(need)
            pad = _bucket(b - a)
            imgs = np.zeros((pad, level), np.int32)
            imgs[: b - a] = images[a:b]
            sl = np.zeros(pad, np.int32)
            sl[: b - a] = src_len[a:b]
            ss = np.zeros(pad, np.int32)
            ss[: b - a] = src_start[a:b]
            node, v, ok = _expand(
                jnp.asarray(imgs),
                jnp.asarray(ss),
                jnp.asarray(sl),
                self.p.indptr,
                self.p.indices,
                self.p.lists,
                self.p.cand,
                level=level,
                size=size,
                others=others,
                nonadj=nj,
                free=free,
            )
            found = int(jnp.sum(ok))
            if level == self.q - 1:
                self.count += found
                if self.emit and found:
                    nd, vv = (np.asarray(x)[:found] for x in _compact(node, v, ok, size))
                    self.out.append(np.concatenate([images[a + nd], vv[:, None]], axis=1))
            elif found:
                nd, vv = (np.asarray(x)[:found] for x in _compact(node, v, ok, size))
                if self.storage == "flat":
                    self._level(np.concatenate([images[a + nd], vv[:, None]], axis=1), level + 1)
                else:
                    sub = self._slice_tree(state, a, b)
                    self._level(sub + [(vv, nd)], level + 1)
            a = b

    def _slice_tree(self, state, a: int, b: int):
        """The tree restricted to leaves a..b-1 of its last level (parents re-indexed lazily)."""
        vid, parent = state[-1]
        return state[:-1] + [(vid[a:b], None if parent is None else parent[a:b])]


def count_levels(p: Prepared, *, storage: str = "prefix_tree") -> int:
    """Counts embeddings with a level engine on a plan without branch sharing."""
    if int(jnp.max(p.mult)) > 1:
        raise ValueError("the level engines need a plan without branch sharing (dominance=False)")
    s = _Search(p, storage, emit=False)
    s.run()
    return s.count


def list_levels(p: Prepared, *, storage: str = "prefix_tree") -> np.ndarray:
    """int32[c, q] embeddings (level order) with a level engine."""
    s = _Search(p, storage, emit=True)
    s.run()
    q = p.plan.shape[0]
    return np.concatenate(s.out) if s.out else np.zeros((0, q), np.int32)


def count_dense(data: LabeledGraph, p: Prepared) -> int:
    """Counts embeddings with dense arrays only (small data graphs).

    The data graph becomes an n x n boolean matrix; partial embeddings are
    rows of an int32 array; a level is ``cand & AND_j A[rows[:, j]] & ~used``
    over all n vertices at once, in chunks of rows. ``p`` is the plan (its
    candidate bitmaps and level masks; no branch sharing).

    Raises:
      ValueError: more than ``LevelPolicy.dense_max_nodes`` vertices.
    """
    n = data.num_nodes
    if n > POLICY.dense_max_nodes:
        raise ValueError(
            f"method='dense' handles up to {POLICY.dense_max_nodes} vertices, got {n}; "
            "use method='dfs'"
        )
    adj = _dense_adjacency(data.graph.indptr, data.graph.indices, n)
    bits = np.unpackbits(np.asarray(p.cand).view(np.uint8), axis=1, bitorder="little")[:, :n]
    cand = jnp.asarray(bits.astype(bool))
    plan = np.asarray(p.plan)
    q = plan.shape[0]
    rows = np.nonzero(bits[0])[0].astype(np.int32)[:, None]
    if q == 1:
        return int(rows.shape[0])
    return _dense_levels(adj, cand, plan, rows, 1, q)


def _dense_levels(adj, cand, plan, rows: np.ndarray, level: int, q: int) -> int:
    back = int(plan[level, 0]) & 0xFFFFFFFF
    nonadj = int(plan[level, 1]) & 0xFFFFFFFF
    bj = tuple(j for j in range(level) if back >> j & 1)
    nj = tuple(j for j in range(level) if nonadj >> j & 1)
    n = adj.shape[0]
    step = max(1, POLICY.chunk // max(n, 1))
    total = 0
    for a in range(0, rows.shape[0], step):
        part = rows[a : a + step]
        pad = np.zeros((_bucket(part.shape[0]), level), np.int32)
        pad[: part.shape[0]] = part
        mask = _dense_step(adj, cand, jnp.asarray(pad), part.shape[0], level=level, bj=bj, nj=nj)
        if level == q - 1:
            total += int(jnp.sum(mask))
        else:
            r, c = np.nonzero(np.asarray(mask))
            nxt = np.concatenate([part[r], c[:, None].astype(np.int32)], axis=1)
            if nxt.shape[0]:
                total += _dense_levels(adj, cand, plan, nxt, level + 1, q)
    return total


@functools.partial(jax.jit, static_argnames=("n",))
def _dense_adjacency(indptr: jax.Array, indices: jax.Array, n: int) -> jax.Array:
    rows = jnp.repeat(jnp.arange(n), jnp.diff(indptr), total_repeat_length=indices.shape[0])
    return jnp.zeros((n, n), bool).at[rows, indices].set(True)


@functools.partial(jax.jit, static_argnames=("level", "bj", "nj"))
def _dense_step(adj, cand, rows, live, *, level, bj, nj):
    n = adj.shape[0]
    mask = jnp.broadcast_to(cand[level][None, :], (rows.shape[0], n))
    for j in bj:
        mask = mask & adj[rows[:, j]]
    for j in nj:
        mask = mask & ~adj[rows[:, j]]
    for j in range(level):
        mask = mask & (rows[:, j][:, None] != jnp.arange(n)[None, :])
    return mask & (jnp.arange(rows.shape[0]) < live)[:, None]
