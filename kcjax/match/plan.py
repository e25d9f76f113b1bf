"""Query analysis, pruning and the matching order (the stages before the search).

Everything here is jit-able in the data graph; the query is concrete (a
:class:`QuerySpec` on the host) and enters the compiled stages as small
device arrays, so one compilation serves every query of a size on a data
graph.

Stages (GVSM's, each switchable for the ablation):

1. Blacklist pre-pruning. Every query vertex u has a label and a multiset of
   neighbour labels (``NLC[u, k]``: neighbours with the k-th query label). A
   data vertex v survives a round if some query vertex u has v's label and
   v's surviving neighbours cover u's multiset (for every k, at least
   ``NLC[u, k]`` surviving neighbours with label k; this implies
   deg(v) >= deg(u)). A vertex used by any embedding survives every round,
   so removing the others never changes a count; removals cascade, so the
   rounds repeat until nothing changes (``rounds`` reports how many).
2. Candidate sets: C(u) = surviving vertices that pass u's test above.
3. Dominance, one level, as branch sharing: data vertices with equal labels
   and equal (surviving) neighbourhoods are interchangeable in every
   embedding, so one representative stands for its class with a
   multiplicity m; the search may use it up to m times and weights each use
   by the members still free (a falling factorial), which is exact. (GVSM's
   rule "if v ⊒ u fails, u fails" adds nothing on top of stage 1's filter,
   which is monotone in the neighbourhood; applied to search subtrees it is
   unsound under injectivity, so it is not used.)
4. Matching order: g(u) = (freq(label u) − blacklisted(label u)) /
   (deg(u) × |labels(Adj(u))|); Prim-like greedy: the smallest g first, then
   repeatedly the unmatched vertex adjacent to the matched ones with the
   smallest g (a new component starts at its smallest g).
"""

from __future__ import annotations

import dataclasses
import functools
from typing import Literal, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from kcjax.graph.graph import Graph
from kcjax.graph.labeled import LabeledGraph

#: Largest query handled (level masks are 32-bit words).
MAX_QUERY = 32

Order = Literal["gvsm", "naive"]


@dataclasses.dataclass(frozen=True)
class QuerySpec:
    """A concrete query graph on the host (hashable: a static jit argument).

    Attributes:
      labels: label of query vertex i.
      edges: undirected edges (u, v), u < v, sorted, no duplicates.
    """

    labels: tuple[int, ...]
    edges: tuple[tuple[int, int], ...]

    @property
    def size(self) -> int:
        return len(self.labels)

    def adjacency(self) -> np.ndarray:
        """bool[q, q] adjacency matrix."""
        a = np.zeros((self.size, self.size), bool)
        for u, v in self.edges:
            a[u, v] = a[v, u] = True
        return a

    def components(self) -> int:
        """Number of connected components."""
        adj, seen, comps = self.adjacency(), np.zeros(self.size, bool), 0
        for s in range(self.size):
            if seen[s]:
                continue
            comps += 1
            stack = [s]
            seen[s] = True
            while stack:
                u = stack.pop()
                for w in np.nonzero(adj[u] & ~seen)[0]:
                    seen[w] = True
                    stack.append(int(w))
        return comps

    def naive_order(self) -> np.ndarray:
        """Breadth-first order by vertex id (each component from its lowest id)."""
        adj, seen, order = self.adjacency(), np.zeros(self.size, bool), []
        for s in range(self.size):
            if seen[s]:
                continue
            seen[s] = True
            queue = [s]
            while queue:
                u = queue.pop(0)
                order.append(u)
                for w in np.nonzero(adj[u] & ~seen)[0]:
                    seen[w] = True
                    queue.append(int(w))
        return np.asarray(order, np.int32)


def query_spec(query: LabeledGraph | QuerySpec) -> QuerySpec:
    """The host spec of a concrete query graph.

    Raises:
      TypeError: the query is traced (close over it instead of passing it
        through jit) or not a LabeledGraph.
      ValueError: the query is empty or has more than 32 vertices.
    """
    if isinstance(query, QuerySpec):
        spec = query
    else:
        if not isinstance(query, LabeledGraph):
            raise TypeError(f"query must be a kcjax LabeledGraph, got {type(query).__name__}")
        if isinstance(query.labels, jax.core.Tracer) or isinstance(
            query.graph.indices, jax.core.Tracer
        ):
            raise TypeError(
                "the query must be concrete: close over it instead of passing it to jit"
            )
        src, dst = query.edge_arrays()
        spec = QuerySpec(
            labels=tuple(int(x) for x in np.asarray(query.labels)),
            edges=tuple(sorted(zip(src.tolist(), dst.tolist(), strict=True))),
        )
    if not 1 <= spec.size <= MAX_QUERY:
        raise ValueError(f"query size must be in [1, {MAX_QUERY}], got {spec.size}")
    return spec


class QueryArrays(NamedTuple):
    """Device arrays of a query (q vertices; label slots padded to q)."""

    qlabels: jax.Array  # int32[q]: distinct query labels ascending, padded with the largest
    qlabel_index: jax.Array  # int32[q]: slot of vertex u's label in qlabels
    adj: jax.Array  # bool[q, q]
    nlc: jax.Array  # int32[q, q]: NLC[u, k] = neighbours of u with label slot k
    naive: jax.Array  # int32[q]: the naive order


def query_arrays(spec: QuerySpec) -> QueryArrays:
    """The query's :class:`QueryArrays` as device arrays."""
    return QueryArrays(*(jnp.asarray(a) for a in _query_numpy(spec)))


def _query_numpy(spec: QuerySpec) -> QueryArrays:
    """:class:`QueryArrays` fields as host numpy arrays."""
    q = spec.size
    lab = np.asarray(spec.labels, np.int64)
    distinct = np.unique(lab)
    qlabels = np.concatenate([distinct, np.full(q - distinct.size, distinct[-1])])
    slot = np.searchsorted(distinct, lab)
    adj = spec.adjacency()
    nlc = np.zeros((q, q), np.int32)
    for u in range(q):
        np.add.at(nlc[u], slot[adj[u]], 1)
    return QueryArrays(
        qlabels=qlabels.astype(np.int32),
        qlabel_index=slot.astype(np.int32),
        adj=adj,
        nlc=nlc,
        naive=spec.naive_order(),
    )


class Prepared(NamedTuple):
    """The pruned data graph and the plan the search kernels take.

    Attributes:
      indptr: int32[n + 1] CSR of the surviving representatives only.
      indices: int32[e] (entries past indptr[n] are padding).
      mult: int32[n] multiplicity (0: removed; 1 without dominance).
      cand: uint32[q, ceil(n/32)] candidate bitmap per level.
      plan: int32[q, 4] per level [back mask, non-adjacency mask, list row, list length].
      lists: int32[c, n] candidate lists of the free levels (row 0: level 0), -1 padded.
      roots: int32[n] level-0 candidates, most expensive first, -1 padded.
      task_ptr: int32[n + 1] prefix sum of the GPU tasks per root (see :func:`task_width`).
      order: int32[q] query vertex matched at each level.
      leaf_sum: int32[n] sum of mult over each vertex's neighbours that are
        candidates of the last level (the kernels' count of a last level with
        one backward neighbour).
      rounds: int32 blacklist rounds taken.
      stats: int32[5 + 3q]: [label matches, survivors, kept, classes, twins] then
        per query vertex: candidates by label, after the profile filter (no
        blacklist), after the blacklist.
    """

    indptr: jax.Array
    indices: jax.Array
    mult: jax.Array
    cand: jax.Array
    plan: jax.Array
    lists: jax.Array
    roots: jax.Array
    task_ptr: jax.Array
    order: jax.Array
    leaf_sum: jax.Array
    rounds: jax.Array
    stats: jax.Array


#: Largest q * n * q compared at once by the profile test (above it, one query
#: vertex at a time: bounded memory on large graphs, fewer kernels on small ones).
PROFILE_VECTOR_MAX = 1 << 27


def _profile_ok(nlc_v: jax.Array, slot_v: jax.Array, qa: QueryArrays) -> jax.Array:
    """bool[q, n]: v passes query vertex u's label and neighbour-label test."""
    q, n = qa.adj.shape[0], slot_v.shape[0]
    if q * q * n <= PROFILE_VECTOR_MAX:
        covers = jnp.all(nlc_v[None, :, :] >= qa.nlc[:, None, :], axis=2)
        return (slot_v[None, :] == qa.qlabel_index[:, None]) & covers

    def one(args):
        u_slot, u_nlc = args
        return (slot_v == u_slot) & jnp.all(nlc_v >= u_nlc[None, :], axis=1)

    return jax.lax.map(one, (qa.qlabel_index, qa.nlc))


def task_width(q: int) -> int:
    """Level-1 entries per GPU task (task_ptr counts tasks of this width).

    One entry per task for q >= 3: a warp per (root, level-1 vertex) spreads a
    heavy root's subtree over many warps; 32 for q <= 2, where level 1 is the
    counted level and a warp checks 32 entries at once.
    """
    return 32 if q <= 2 else 1


def _rows(indptr: jax.Array, e: int) -> jax.Array:
    """int32[e]: the row of every CSR entry (entries past indptr[n] get row n - 1).

    A scatter and a cumulative sum (cheaper to compile than a repeat).
    """
    n = indptr.shape[0] - 1
    mark = jnp.zeros(e + 1, jnp.int32).at[indptr[1:]].add(1)[:e]
    return jnp.minimum(jnp.cumsum(mark, dtype=jnp.int32), max(n - 1, 0))


def _neighbour_label_counts(
    rows: jax.Array,
    nbr: jax.Array,
    alive: jax.Array,
    slot_v: jax.Array,
    n: int,
    q: int,
    live: jax.Array,
) -> jax.Array:
    """int32[n, q]: per vertex, alive neighbours per query label slot."""
    ok = live & alive[nbr] & alive[rows]
    key = jnp.where(ok, rows * q + jnp.maximum(slot_v[nbr], 0), n * q)
    return jnp.zeros(n * q + 1, jnp.int32).at[key].add(1)[: n * q].reshape(n, q)


def _filter_csr(
    indptr: jax.Array, indices: jax.Array, rows: jax.Array, keep: jax.Array
) -> tuple[jax.Array, jax.Array]:
    """CSR of the subgraph induced by ``keep`` (same ids; rows stay sorted)."""
    n = indptr.shape[0] - 1
    e = indices.shape[0]
    valid = (jnp.arange(e) < indptr[n]) & keep[rows] & keep[indices]
    counts = jnp.zeros(n, jnp.int32).at[rows].add(valid.astype(jnp.int32))
    new_ptr = jnp.concatenate([jnp.zeros(1, jnp.int32), jnp.cumsum(counts, dtype=jnp.int32)])
    (sel,) = jnp.nonzero(valid, size=e, fill_value=0)
    return new_ptr, indices[sel]


def _mix(x: jax.Array, a: int, b: int) -> jax.Array:
    h = (x.astype(jnp.uint32) + jnp.uint32(a)) * jnp.uint32(0x9E3779B1)
    h = h ^ (h >> 15)
    h = h * jnp.uint32(b)
    return h ^ (h >> 13)


def _twin_classes(
    indptr: jax.Array, indices: jax.Array, keep: jax.Array, labels: jax.Array
) -> tuple[jax.Array, jax.Array]:
    """(is_rep bool[n], class size int32[n]) of kept vertices with equal label and row.

    Vertices are sorted by (label, degree, two neighbourhood hashes); a vertex
    joins its predecessor's class only if their rows are equal entry by entry,
    so a hash collision can only split a class, never merge unequal rows.
    """
    n = indptr.shape[0] - 1
    e = indices.shape[0]
    deg = jnp.diff(indptr)
    rows = _rows(indptr, e)
    live = jnp.arange(e) < indptr[n]
    h1 = jnp.zeros(n, jnp.uint32).at[rows].add(jnp.where(live, _mix(indices, 1, 0x85EBCA6B), 0))
    h2 = jnp.zeros(n, jnp.uint32).at[rows].add(jnp.where(live, _mix(indices, 7, 0xC2B2AE35), 0))
    vid = jnp.arange(n, dtype=jnp.int32)
    gone = (~keep).astype(jnp.int32)
    *_, perm = jax.lax.sort((gone, labels, deg, h1, h2, vid), num_keys=6)
    prev = jnp.concatenate([jnp.array([-1], jnp.int32), perm[:-1]])
    pv = jnp.maximum(prev, 0)
    same_key = (
        (prev >= 0)
        & keep[perm]
        & keep[pv]
        & (labels[perm] == labels[pv])
        & (deg[perm] == deg[pv])
        & (h1[perm] == h1[pv])
        & (h2[perm] == h2[pv])
    )
    pred = jnp.full(n, -1, jnp.int32).at[perm].set(jnp.where(same_key, prev, -1))
    r = rows
    p = pred[r]
    k = jnp.arange(e, dtype=jnp.int32) - indptr[r]
    other = indices[jnp.clip(indptr[jnp.maximum(p, 0)] + k, 0, e - 1)]
    mismatch = live & (p >= 0) & (other != indices)
    row_bad = jnp.zeros(n, bool).at[r].max(mismatch)
    joined = (pred >= 0) & ~row_bad  # equal to its predecessor in sorted order
    joined_sorted = joined[perm]
    pos = jnp.arange(n, dtype=jnp.int32)
    start = jax.lax.cummax(jnp.where(joined_sorted, 0, pos))
    size_sorted = jnp.zeros(n, jnp.int32).at[start].add(1)
    is_rep = jnp.zeros(n, bool).at[perm].set(~joined_sorted) & keep
    size = jnp.zeros(n, jnp.int32).at[perm].set(size_sorted)
    return is_rep, jnp.where(is_rep, size, 0)


def _gvsm_order(qa: QueryArrays, freq_alive: jax.Array) -> jax.Array:
    """int32[q]: Prim-like greedy on g(u) = alive(label u) / (deg(u) * |labels(Adj(u))|)."""
    q = qa.adj.shape[0]
    deg = jnp.sum(qa.adj, axis=1)
    kinds = jnp.sum(qa.nlc > 0, axis=1)
    g = freq_alive.astype(jnp.float32) / jnp.maximum(deg * kinds, 1).astype(jnp.float32)

    def step(t, state):
        order, seen = state
        frontier = jnp.any(qa.adj & seen[None, :], axis=1) & ~seen
        pool = jnp.where(jnp.any(frontier), frontier, ~seen)
        u = jnp.argmin(jnp.where(pool, g, jnp.inf)).astype(jnp.int32)
        return order.at[t].set(u), seen.at[u].set(True)

    order, _ = jax.lax.fori_loop(0, q, step, (jnp.zeros(q, jnp.int32), jnp.zeros(q, bool)))
    return order


def _pack_bits(mask: jax.Array) -> jax.Array:
    """bool[q, n] -> uint32[q, ceil(n/32)]."""
    q, n = mask.shape
    w = (n + 31) // 32
    m = jnp.zeros((q, w * 32), bool).at[:, :n].set(mask).reshape(q, w, 32)
    return jnp.sum(
        m.astype(jnp.uint32) << jnp.arange(32, dtype=jnp.uint32), axis=2, dtype=jnp.uint32
    )


class Flags(NamedTuple):
    """The ablation switches as traced booleans (one compilation serves all)."""

    induced: jax.Array
    blacklist: jax.Array
    dominance: jax.Array
    naive_order: jax.Array


def pack(spec: QuerySpec, fl: tuple[bool, bool, bool, bool], num_valid: int) -> np.ndarray:
    """The query arrays, the four flags and num_valid in one int32 host array.

    Layout: labels slots [q], label index [q], adjacency [q*q], NLC [q*q],
    naive order [q], flags [4], num_valid [1]. One transfer per call instead
    of ten (see :func:`prepare_packed`).
    """
    qa = _query_numpy(spec)
    parts = [
        np.asarray(qa.qlabels),
        np.asarray(qa.qlabel_index),
        np.asarray(qa.adj, np.int32).reshape(-1),
        np.asarray(qa.nlc).reshape(-1),
        np.asarray(qa.naive),
        np.asarray(fl, np.int32),
        np.asarray([num_valid], np.int32),
    ]
    return np.concatenate(parts).astype(np.int32)


@functools.partial(jax.jit, static_argnames=("q", "comps"))
def prepare_packed(data: LabeledGraph, packed: jax.Array, *, q: int, comps: int) -> Prepared:
    """:func:`prepare` with its query inputs in one :func:`pack` array; jit-able."""
    o = np.cumsum([0, q, q, q * q, q * q, q, 4, 1])
    qa = QueryArrays(
        qlabels=packed[o[0] : o[1]],
        qlabel_index=packed[o[1] : o[2]],
        adj=packed[o[2] : o[3]].reshape(q, q) != 0,
        nlc=packed[o[3] : o[4]].reshape(q, q),
        naive=packed[o[4] : o[5]],
    )
    fl = Flags(*(packed[o[5] + i] != 0 for i in range(4)))
    return _prepare(data, qa, fl, packed[o[6]], comps=comps)


@functools.partial(jax.jit, static_argnames=("comps",))
def prepare(
    data: LabeledGraph, qa: QueryArrays, fl: Flags, num_valid: jax.Array, *, comps: int
) -> Prepared:
    """Prunes the data graph for a query and builds the search plan; jit-able.

    The stages are :func:`_prepare`'s; :func:`prepare_packed` takes the same
    inputs as one array.
    """
    return _prepare(data, qa, fl, num_valid, comps=comps)


def _prepare(
    data: LabeledGraph, qa: QueryArrays, fl: Flags, num_valid: jax.Array, *, comps: int
) -> Prepared:
    """Prunes the data graph for a query and builds the search plan; jit-able.

    Args:
      data: the labeled data graph (possibly padded: vertices >= num_valid are
        isolated padding and never candidates; CSR entries past indptr[n]
        are ignored).
      qa: :func:`query_arrays` of the query.
      fl: :class:`Flags`: induced (non-edges map to non-edges); blacklist
        (iterate the neighbour-label pruning to a fixpoint and drop the
        removed vertices; False: one filter pass on the whole graph);
        dominance (share one branch among vertices of equal neighbourhoods);
        naive_order (breadth-first by id instead of GVSM's greedy order).
      num_valid: int32, the number of real vertices.
      comps: connected components of the query (static).
    """
    g: Graph = data.graph
    n = g.num_nodes
    q = qa.adj.shape[0]
    e = g.indices.shape[0]
    labels = data.labels
    rows = _rows(g.indptr, e)
    nbr = jnp.where(jnp.arange(e) < g.indptr[n], g.indices, 0)
    pos = jnp.clip(jnp.searchsorted(qa.qlabels, labels), 0, q - 1).astype(jnp.int32)
    real = jnp.arange(n) < num_valid
    slot_v = jnp.where((qa.qlabels[pos] == labels) & real, pos, -1)
    alive0 = slot_v >= 0
    live_e = jnp.arange(e) < g.indptr[n]

    def survive(alive):
        nlc_v = _neighbour_label_counts(rows, nbr, alive, slot_v, n, q, live_e)
        return _profile_ok(nlc_v, slot_v, qa) & alive[None, :]

    ok0 = survive(alive0)

    def cond(state):
        return state[2]

    def body(state):
        alive, rounds, _ = state
        new = alive & jnp.any(survive(alive), axis=0)
        return new, rounds + 1, jnp.any(new != alive)

    alive_bl, rounds_bl, _ = jax.lax.while_loop(
        cond, body, (alive0 & jnp.any(ok0, axis=0), jnp.int32(1), fl.blacklist)
    )
    alive = jnp.where(fl.blacklist, alive_bl, alive0)
    rounds = jnp.where(fl.blacklist, rounds_bl, 0)
    ok = survive(alive)
    keep = jnp.any(ok, axis=0)
    fptr, fidx = _filter_csr(g.indptr, nbr, rows, keep)
    indptr = jnp.where(fl.blacklist, fptr, g.indptr)
    indices = jnp.where(fl.blacklist, fidx, nbr)
    is_rep, size = _twin_classes(indptr, indices, keep, labels)
    rptr, ridx = _filter_csr(indptr, indices, _rows(indptr, e), is_rep)
    indptr = jnp.where(fl.dominance, rptr, indptr)
    indices = jnp.where(fl.dominance, ridx, indices)
    mult = jnp.where(fl.dominance, size, keep.astype(jnp.int32))
    keep2 = jnp.where(fl.dominance, is_rep, keep)
    freq = jnp.zeros(q + 1, jnp.int32).at[jnp.where(alive, slot_v, q)].add(1)
    lvl = jnp.where(fl.naive_order, qa.naive, _gvsm_order(qa, freq[qa.qlabel_index]))
    cand_levels = ok[lvl] & keep2[None, :]
    adj_l = qa.adj[lvl][:, lvl]
    below = jnp.arange(q)[None, :] < jnp.arange(q)[:, None]
    bits = jnp.left_shift(jnp.uint32(1), jnp.arange(q, dtype=jnp.uint32))[None, :]
    back = jnp.sum(jnp.where(adj_l & below, bits, 0), axis=1, dtype=jnp.uint32)
    nonadj = jnp.sum(jnp.where(~adj_l & below, bits, 0), axis=1, dtype=jnp.uint32)
    nonadj = jnp.where(fl.induced, nonadj, jnp.uint32(0))
    free = (back == 0).at[0].set(True)
    row = jnp.where(free, jnp.cumsum(free) - 1, -1).astype(jnp.int32)
    free_levels = jnp.nonzero(free, size=comps, fill_value=0)[0]
    lists = jax.vmap(lambda m: jnp.nonzero(m, size=n, fill_value=-1)[0].astype(jnp.int32))(
        cand_levels[free_levels]
    )
    list_len = jnp.sum(cand_levels[free_levels], axis=1, dtype=jnp.int32)
    plan = jnp.stack(
        [
            jax.lax.bitcast_convert_type(back, jnp.int32),
            jax.lax.bitcast_convert_type(nonadj, jnp.int32),
            row,
            jnp.where(row >= 0, list_len[jnp.maximum(row, 0)], 0),
        ],
        axis=1,
    )
    deg = jnp.diff(indptr)
    leaf_c = cand_levels[q - 1]
    rows2 = _rows(indptr, e)
    live2 = jnp.arange(e) < indptr[n]
    leaf_sum = (
        jnp.zeros(n, jnp.int32).at[rows2].add(jnp.where(live2 & leaf_c[indices], mult[indices], 0))
    )
    cost = jnp.where(cand_levels[0], deg, -1)
    roots = jnp.argsort(-cost, stable=True).astype(jnp.int32)
    roots = jnp.where(cost[roots] >= 0, roots, -1)
    if q == 1:
        first = jnp.ones(n, jnp.int32)
    else:
        first = jnp.where(back[1] != 0, deg[jnp.maximum(roots, 0)], plan[1, 3])
    width = task_width(q)
    chunks = jnp.where(roots >= 0, (first + width - 1) // width, 0)
    task_ptr = jnp.concatenate([jnp.zeros(1, jnp.int32), jnp.cumsum(chunks, dtype=jnp.int32)])
    by_label = jnp.sum(slot_v[None, :] == qa.qlabel_index[:, None], axis=1, dtype=jnp.int32)
    stats = jnp.concatenate(
        [
            jnp.stack(
                [
                    jnp.sum(alive0, dtype=jnp.int32),
                    jnp.sum(alive, dtype=jnp.int32),
                    jnp.sum(keep, dtype=jnp.int32),
                    jnp.sum(keep2, dtype=jnp.int32),
                    jnp.sum(keep, dtype=jnp.int32) - jnp.sum(keep2, dtype=jnp.int32),
                ]
            ),
            by_label,
            jnp.sum(ok0, axis=1, dtype=jnp.int32),
            jnp.sum(ok, axis=1, dtype=jnp.int32),
        ]
    )
    return Prepared(
        indptr=indptr,
        indices=indices,
        mult=mult,
        cand=_pack_bits(cand_levels),
        plan=plan,
        lists=lists,
        roots=roots,
        task_ptr=task_ptr,
        order=lvl,
        leaf_sum=leaf_sum,
        rounds=rounds,
        stats=stats,
    )
