"""Query analysis, pruning and the matching order (the stages before the search).

The plan of one call is one jitted program (:func:`prepare_packed`) with no
host round trip: the query enters as one small int32 array
(:func:`kcjax.match.query.pack`, cached per query by the callers), the
data-graph side that does not depend on the query (padding, CSR row ids,
twin classes) is a :class:`kcjax.match.prep.GraphPrep` built once per data
graph, and the filter rounds run in one FFI call
(:mod:`kcjax.match.filter`) that loops on the device and stops at the
fixpoint (at most :attr:`PlanPolicy.rounds` rounds), so no loop waits on
the host. One compilation serves every query of a size on a data-graph shape
bucket.

Stages (GVSM's, each switchable for the ablation):

1. Candidate filter. C0(u) = data vertices with u's label whose
   label-matching neighbours cover u's neighbour-label multiset (for every
   query label slot k, at least ``NLC[u, k]`` neighbours with label k; this
   implies deg(v) >= deg(u)). Then rounds (until one removes nothing, at
   most ``rounds`` of them) of
   C(u) <- C(u) ∩ {v : v's neighbours alive (a candidate of some query
   vertex) cover u's multiset} (GVSM's blacklist: removals cascade, so the
   test is repeated) and, with ``refine``, also
   C(u) <- C(u) ∩ {v : for every query neighbour u' of u, N(v) ∩ C(u') ≠ ∅}
   (the neighbour-consistency refinement of CFL / DP-iso) and
   C(u) <- C(u) ∩ {v : for every label slot k, the neighbours of v with
   label k in U(u) = ∪_{u' ∈ N(u)} C(u') number at least NLC[u, k]}
   (Hall's condition of GraphQL's semi-perfect matching between N(u) and
   N(v) for each label group as a whole: candidates of different labels are
   disjoint, so the matching splits by label).
   Soundness (no embedding is lost): let f be an embedding. Initially f(u)
   ∈ C0(u): f maps u's neighbours injectively into N(f(u)) with equal labels.
   Suppose f(w) ∈ C(w) for every query vertex w before a round. For a query
   vertex u, the images f(u') of u's neighbours are distinct neighbours of
   f(u), each in C(u') ⊆ U(u) (so alive) and labelled like u', so the alive
   neighbours of f(u), and those in U(u), cover u's multiset; and each f(u')
   lies in N(f(u)) ∩ C(u'), which is therefore non-empty. So f(u) stays in C(u);
   by induction, after any number of rounds. Every data vertex used by an
   embedding is a candidate of the query vertex it images, whatever the
   number of rounds, so the rounds change the speed, never a count.
2. The data graph restricted to the candidates (every query vertex's
   candidates together): entries to or from other vertices are dropped.
3. Dominance, one level, as branch sharing: data vertices with equal labels
   and equal neighbourhoods (twins, found once per data graph) are
   interchangeable in every embedding, and the filter keeps or drops a twin
   class whole (its members have the same label and neighbours, so every
   test above gives them the same answer), so one representative stands for
   its class with a multiplicity m; the search may use it up to m times and
   weights each use by the members still free (a falling factorial), which
   is exact. (GVSM's rule "if v ⊒ u fails, u fails" adds nothing on top of
   stage 1's filter, which is monotone in the neighbourhood; applied to
   search subtrees it is unsound under injectivity, so it is not used.)
4. Matching order (``order``; any order gives the same count).
   "estimate" (default): the order with the smallest estimated search tree.
   With s(u) = |C(u)| (twin representatives) and E(u, u') the data edges
   between C(u) and C(u'), a partial embedding extends to u with an
   expected s(u) × Π_{u' matched, adjacent} E(u, u') / (s(u) s(u'))
   children (edges independent); the estimated tree is the sum over levels
   of the product of these factors. From every start vertex a greedy takes
   the connected vertex with the fewest expected children (most matched
   neighbours on ties); the start with the smallest estimated tree wins
   (all starts at once, in log space, unrolled: no loop on the device).
   "gvsm": g(u) = alive(label u) / (deg(u) × |labels(Adj(u))|)
   (GVSM's (freq − blacklisted) / (deg × label kinds)); Prim-like greedy:
   the smallest g first, then repeatedly the unmatched vertex adjacent to
   the matched ones with the smallest g (a new component starts at its
   smallest g); ties by vertex id. Computed in rank space with 32-bit masks,
   unrolled. "naive": breadth-first by id.
5. Symmetry breaking (``symmetry``): embeddings come in classes of |Aut(q)|
   (:mod:`kcjax.match.symmetry`); the search counts the one member of each
   class that meets the query's order constraints f(a) < f(b) (each checked
   at the later of the two levels against the earlier image) and the count
   is multiplied by |Aut(q)|, which is exact for any total order of the
   data vertices. With branch sharing the order is class-major (a twin
   class's members consecutive, classes by representative), so a constraint
   between images in two classes is one between their representatives. Two
   adjacent query vertices image into two classes (twins are never adjacent:
   equal open neighbourhoods and no loops). Two non-adjacent ones could share
   a class of several members, where the share of the members' orderings
   that meets the constraints is not a product of per-level weights; where
   their candidates share such a class the plan keeps the branch sharing
   (which can be worth far more: a class of m twins folds up to m! branches)
   and drops the constraints (``scale`` 1).
"""

from __future__ import annotations

import dataclasses
import functools
from typing import Literal, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from kcjax.match.filter import filter_rounds, to_mask
from kcjax.match.prep import GraphPrep
from kcjax.match.query import QueryArrays, unpack

Order = Literal["estimate", "gvsm", "naive"]
#: Matching orders, by their code in :func:`flags`.
ORDER_CODES: dict[str, int] = {"estimate": 0, "gvsm": 1, "naive": 2}


@dataclasses.dataclass(frozen=True)
class PlanPolicy:
    """Tuning constants of the plan (each value's reason and evidence: docs/tuning.md, matching)."""

    rounds: int = 16  # most filter rounds (one grid sync each); the fixpoint usually comes first
    group_vector_max: int = 1 << 24  # largest n*q*q label-group table built at once (else per u)
    profile_vector_max: int = 1 << 27  # largest q*q*n compared at once (above: one u at a time)
    root_buckets: int = 33  # roots grouped by degree bit length (0..31) + "not a root": no sort
    min_vertices: int = 256  # smallest vertex bucket after the first pass: few compilations
    min_entries: int = 1024  # smallest CSR entry bucket after the first pass
    compact_min_entries: int = 1 << 20  # smaller graphs: one program, no host sync (see tuning.md)


POLICY = PlanPolicy()


class Switches(NamedTuple):
    """The plan's switches.

    ``blacklist`` and ``order`` are static in the plan's programs (each picks
    the program: only the order asked for is traced, which keeps a first call's
    tracing short); the others may be traced booleans (:func:`flags`), so one
    compilation serves every ablation variant of them.

    Attributes:
      induced: non-edges of the query map to non-edges.
      blacklist: run the filter rounds and restrict the data graph to the
        candidates (False: the first filter pass only, whole graph).
      refine: the rounds also apply the neighbour-consistency and label-group tests.
      dominance: twins share one branch.
      order: the matching order's code (:data:`ORDER_CODES`).
      symmetry: count one embedding per class of |Aut(q)| (stage 5) where
        the constraints hold under branch sharing.
    """

    induced: bool | jax.Array = False
    blacklist: bool = True
    refine: bool | jax.Array = True
    dominance: bool | jax.Array = True
    order: int | jax.Array = 0
    symmetry: bool | jax.Array = False


def flags(sw: Switches) -> np.ndarray:
    """int32[4]: the traced switches (induced, refine, dominance, symmetry)."""
    return np.asarray([sw.induced, sw.refine, sw.dominance, sw.symmetry], np.int32)


def traced_switches(blacklist: bool, order: int, fl: jax.Array) -> Switches:
    """:class:`Switches` from the static ``blacklist`` and order code and a
    :func:`flags` array."""
    return Switches(
        induced=fl[0] != 0,
        blacklist=blacklist,
        refine=fl[1] != 0,
        dominance=fl[2] != 0,
        order=order,
        symmetry=fl[3] != 0,
    )


def task_width(q: int) -> int:
    """Level-1 entries per GPU task (task_ptr counts tasks of this width).

    One entry per task for q >= 3: a warp per (root, level-1 vertex) spreads a
    heavy root's subtree over many warps; 32 for q <= 2, where level 1 is the
    counted level and a warp checks 32 entries at once.
    """
    return 32 if q <= 2 else 1


def _pack_bits(mask: jax.Array) -> jax.Array:
    """bool[q, n] -> uint32[q, ceil(n/32)]."""
    q, n = mask.shape
    w = (n + 31) // 32
    m = jnp.zeros((q, w * 32), bool).at[:, :n].set(mask).reshape(q, w, 32)
    return jnp.sum(
        m.astype(jnp.uint32) << jnp.arange(32, dtype=jnp.uint32), axis=2, dtype=jnp.uint32
    )


class Prepared(NamedTuple):
    """The pruned data graph and the plan the search kernels take.

    Attributes:
      indptr: int32[n + 1] CSR of the surviving representatives only.
      indices: int32[e] (entries past indptr[n] are padding).
      mult: int32[n] multiplicity (0: removed; 1 without dominance).
      cand: uint32[q, ceil(n/32)] candidate bitmap per level.
      plan: int32[q, 6] per level [back mask, non-adjacency mask, list row, list
        length, above mask, under mask] (the kernels' contract,
        ffi/include/kcjax/match/match.h).
      lists: int32[c, n] candidate lists of the free levels (row 0: level 0,
        the roots), -1 padded.
      roots: int32[n] level-0 candidates, by degree class (largest bit length
        of the pruned degree first), -1 padded.
      task_ptr: int32[n + 1] prefix sum of the GPU tasks per root (see :func:`task_width`).
      order: int32[q] query vertex matched at each level.
      leaf_sum: int32[n] sum of mult over each vertex's neighbours that are
        candidates of the last level (the kernels' count of a last level with
        one backward neighbour).
      scale: uint32[4] the factor of the search's count: |Aut(q)| as 128-bit
        limbs where the plan breaks the query's symmetry, else 1.
      rounds: int32 filter rounds that removed a candidate.
      stats: int32[7 + 3q + R] (R = the ``rounds`` limit; none without
        ``blacklist``): [label matches, alive after the first pass, kept,
        classes, twins, rounds run, fixpoint reached (the last round run
        removed nothing)],
        per query vertex candidates by label, after the first pass, final;
        then the total candidates after each round (rounds not run repeat
        the last total).
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
    scale: jax.Array


def _covers(nlc_v: jax.Array, need: jax.Array) -> jax.Array:
    """bool[n, q]: v's counts cover query vertex u's (nlc_v int32[n, k], need int32[q, k])."""
    n, k = nlc_v.shape
    q = need.shape[0]
    if q * k * n <= POLICY.profile_vector_max:
        return jnp.all(nlc_v[:, None, :] >= need[None, :, :], axis=2)
    return jax.lax.map(lambda row: jnp.all(nlc_v >= row[None, :], axis=1), need).T


def _group_covers(cand: jax.Array, gp: GraphPrep, slot_v: jax.Array, qa: QueryArrays) -> jax.Array:
    """bool[n, q]: the label-group test of stage 1 (module docstring).

    U(u) = ∪ C(u') over u's query neighbours; v passes for u if, for every
    label slot k, at least NLC[u, k] neighbours of v with slot k lie in U(u).
    """
    n, q = cand.shape
    w = gp.indices
    union = (cand.astype(jnp.int32) @ qa.adj.astype(jnp.int32)) > 0  # [n, q]: w in U(u)
    ok_e = gp.live & (slot_v[w] >= 0)
    slot_w = jnp.maximum(slot_v[w], 0)
    if n * q * q <= POLICY.group_vector_max:
        union_w = union[w]  # one row of q counters per entry: a row scatter
        key = jnp.where(ok_e & jnp.any(union_w, axis=1), gp.rows * q + slot_w, n * q)
        add = union_w.astype(jnp.int32)
        cnt = jnp.zeros((n * q, q), jnp.int32).at[key].add(add, mode="drop").reshape(n, q, q)
        return jnp.all(cnt >= qa.nlc.T[None, :, :], axis=1)  # cnt[v, k, u] >= NLC[u, k]

    def one(args):
        u_in, need = args
        key = jnp.where(ok_e & u_in[w], gp.rows * q + slot_w, n * q)
        cnt = jnp.zeros(n * q, jnp.int32).at[key].add(1, mode="drop").reshape(n, q)
        return jnp.all(cnt >= need[None, :], axis=1)

    return jax.lax.map(one, (union.T, qa.nlc)).T


def _filter_round(
    cand: jax.Array, gp: GraphPrep, slot_v: jax.Array, qa: QueryArrays, refine: bool | jax.Array
) -> jax.Array:
    """One round of stage 1: cand bool[n, q] -> its subset that passes."""
    n, q = cand.shape
    alive = jnp.any(cand, axis=1)
    w = gp.indices
    ok_e = gp.live & alive[w]
    key = jnp.where(ok_e, gp.rows * q + jnp.maximum(slot_v[w], 0), n * q)
    nlc_v = jnp.zeros(n * q, jnp.int32).at[key].add(1, mode="drop").reshape(n, q)
    ok = cand & _covers(nlc_v, qa.nlc)
    if refine is False:
        return ok
    upd = cand[w]
    at = jnp.where(gp.live & alive[w], gp.rows, n)
    has = jnp.zeros((n, q), bool).at[at].max(upd, mode="drop")
    strong = _covers(has.astype(jnp.int32), qa.adj.astype(jnp.int32)) & _group_covers(
        cand, gp, slot_v, qa
    )
    return ok & (strong | ~jnp.asarray(refine))


def _greedy_order(adj: jax.Array, g: jax.Array) -> jax.Array:
    """int32[q]: the Prim-like greedy order on g (ties by id), without a device loop.

    Vertices are ranked by (g, id); the greedy then takes the lowest rank of
    the frontier (or of the unmatched vertices when the frontier is empty),
    kept as 32-bit masks in rank space, unrolled over the q steps.
    """
    q = g.shape[0]
    idx = jnp.arange(q, dtype=jnp.int32)
    before = (g[None, :] < g[:, None]) | (
        (g[None, :] == g[:, None]) & (idx[None, :] < idx[:, None])
    )
    rank = jnp.sum(before, axis=1, dtype=jnp.int32)
    inv = jnp.sum(jnp.where(rank[:, None] == idx[None, :], idx[:, None], 0), axis=0)
    adj_mask = to_mask(adj[inv][:, inv])
    everyone = jnp.uint32((1 << q) - 1)
    seen = jnp.uint32(0)
    front = jnp.uint32(0)
    picks = []
    for _ in range(q):
        pool = front & ~seen
        pool = jnp.where(pool == 0, everyone & ~seen, pool)
        low = pool & (~pool + jnp.uint32(1))
        r = jax.lax.population_count(low - jnp.uint32(1)).astype(jnp.int32)
        picks.append(r)
        seen = seen | low
        front = front | adj_mask[r]
    return inv[jnp.stack(picks)]


def _estimate_order(adj: jax.Array, cand: jax.Array, gp: GraphPrep, valid: jax.Array) -> jax.Array:
    """int32[q]: the "estimate" order (module docstring, stage 4), without a device loop.

    Args:
      adj: bool[q, q] query adjacency.
      cand: bool[n, q] candidates (twin representatives).
      gp: the graph (CSR rows and columns of every entry).
      valid: bool[e] entries of the search graph.
    """
    q = adj.shape[0]
    c = cand.astype(jnp.float32)
    size = jnp.sum(c, axis=0)
    n = cand.shape[0]
    c_w = c[gp.indices]
    at = jnp.where(valid & jnp.any(c_w > 0, axis=1), gp.rows, n)
    # near[v, u'] = |N(v) ∩ C(u')|
    near = jnp.zeros((n, q), jnp.float32).at[at].add(c_w, mode="drop")
    edges = c.T @ near  # [q, q]: data edges between C(u) and C(u')
    log_s = jnp.log(jnp.maximum(size, 1.0))
    tiny = jnp.float32(-60.0)  # log of "no edge": such a pair admits no embedding
    log_p = jnp.where(
        edges > 0, jnp.log(jnp.maximum(edges, 1.0)) - log_s[:, None] - log_s[None, :], tiny
    )
    idx = jnp.arange(q, dtype=jnp.int32)
    gain = jnp.where(adj, log_p, 0.0)  # gain[p, u]: log factor u gains once p is matched
    hot = adj.astype(jnp.int32)
    seen = jnp.zeros((q, q), bool)  # [start, u], one greedy per start vertex
    nback = jnp.zeros((q, q), jnp.int32)  # matched neighbours of u
    log_f = jnp.broadcast_to(log_s[None, :], (q, q))  # log expected children of u
    log_est = jnp.zeros(q, jnp.float32)
    log_tree = jnp.full(q, -jnp.inf, jnp.float32)
    picks = []
    for step in range(q):
        if step == 0:
            pick = idx
        else:
            front = (nback > 0) & ~seen
            pool = jnp.where(jnp.any(front, axis=1, keepdims=True), front, ~seen)
            key = jnp.where(pool, log_f - 1e-3 * nback.astype(jnp.float32), jnp.inf)
            pick = jnp.argmin(key, axis=1).astype(jnp.int32)
        log_est = log_est + jnp.take_along_axis(log_f, pick[:, None], axis=1)[:, 0]
        log_tree = jnp.logaddexp(log_tree, log_est)
        seen = seen | (idx[None, :] == pick[:, None])
        log_f = log_f + gain[pick]
        nback = nback + hot[pick]
        picks.append(pick)
    best = jnp.argmin(log_tree)
    return jnp.stack(picks)[:, best]


def _roots_by_degree(cand0: jax.Array, deg: jax.Array) -> jax.Array:
    """int32[n]: the level-0 candidates, larger degree bit length first, -1 padded.

    A counting sort over :attr:`PlanPolicy.root_buckets` classes (one
    cumulative sum; no device sort).
    """
    n = cand0.shape[0]
    b = POLICY.root_buckets
    key = jnp.where(cand0, jax.lax.clz(deg) - 1, b - 1)
    hot = (key[:, None] == jnp.arange(b)[None, :]).astype(jnp.int32)
    within = jnp.cumsum(hot, axis=0, dtype=jnp.int32) - hot
    start = jnp.cumsum(jnp.sum(hot, axis=0, dtype=jnp.int32)) - jnp.sum(hot, axis=0)
    pos = start[key] + jnp.take_along_axis(within, key[:, None], axis=1)[:, 0]
    vid = jnp.arange(n, dtype=jnp.int32)
    return jnp.full(n, -1, jnp.int32).at[jnp.where(cand0, pos, n)].set(vid, mode="drop")


def _compact(gp: GraphPrep, valid: jax.Array) -> tuple[jax.Array, jax.Array]:
    """CSR of the entries ``valid`` (same ids; rows stay sorted; padding 0)."""
    e = valid.shape[0]
    cs = jnp.cumsum(valid, dtype=jnp.int32)
    indices = jnp.zeros(e, jnp.int32).at[jnp.where(valid, cs - 1, e)].set(gp.indices, mode="drop")
    indptr = jnp.concatenate([jnp.zeros(1, jnp.int32), cs])[gp.indptr]
    return indptr, indices


@functools.partial(jax.jit, static_argnames=("q", "comps", "blacklist", "order", "rounds"))
def prepare_packed(
    gp: GraphPrep,
    packed: jax.Array,
    fl: jax.Array,
    *,
    q: int,
    comps: int,
    blacklist: bool,
    order: int = ORDER_CODES["estimate"],
    rounds: int = POLICY.rounds,
) -> Prepared:
    """Prunes the data graph for a query and builds the search plan; jit-able.

    Args:
      gp: :func:`graph_prep` of the data graph.
      packed: :func:`pack` of the query.
      fl: :func:`flags` of the switches.
      q: query size; comps: its connected components.
      blacklist: run the filter rounds (:class:`Switches`).
      order: the matching order's code (:data:`ORDER_CODES`).
      rounds: the most filter rounds (with ``blacklist``; they stop at the fixpoint).
    """
    sw = traced_switches(blacklist, order, fl)
    return plan(gp, unpack(packed, q), sw, comps=comps, rounds=rounds)


def _slots(gp: GraphPrep, qa: QueryArrays) -> tuple[jax.Array, jax.Array]:
    """(int32[n] query label slot of each vertex or -1, bool[n, q] label matches)."""
    q = qa.adj.shape[0]
    labels = gp.labels
    pos = jnp.clip(jnp.searchsorted(qa.qlabels, labels, method="compare_all"), 0, q - 1).astype(
        jnp.int32
    )
    slot_v = jnp.where((qa.qlabels[pos] == labels) & gp.real, pos, -1)
    return slot_v, slot_v[:, None] == qa.qlabel_index[None, :]


class Compacted(NamedTuple):
    """The data graph induced by the first pass's survivors, relabeled (:func:`first_pass`).

    Attributes:
      gp: :class:`GraphPrep` of the induced subgraph (vertices renumbered in
        increasing original id, so rows stay sorted), padded to the input's
        sizes; ``sizes`` says how much of it is real.
      cand0: bool[n, q] the first pass's candidates, renumbered.
      sizes: int32[2] (vertices, CSR entries) of the induced subgraph.
    """

    gp: GraphPrep
    cand0: jax.Array
    sizes: jax.Array


@functools.partial(jax.jit, static_argnames=("q",))
def first_pass(gp: GraphPrep, packed: jax.Array, *, q: int) -> Compacted:
    """Stage 1's first pass and the subgraph induced by its survivors.

    Every vertex of every embedding survives the first pass, so the
    embeddings of the induced subgraph are exactly those of the data graph
    (under the renumbering); twin classes survive whole (module docstring).
    The counting path sends ``sizes`` to the host (its one transfer before
    the count) to pick a small shape bucket for the rest of the plan.
    """
    qa = unpack(packed, q)
    n, e = gp.real.shape[0], gp.indices.shape[0]
    slot_v, by_label = _slots(gp, qa)
    cand0 = _filter_round(by_label, gp, slot_v, qa, refine=False)
    alive = jnp.any(cand0, axis=1)
    new_id = jnp.cumsum(alive, dtype=jnp.int32) - 1
    n_alive = jnp.sum(alive, dtype=jnp.int32)
    valid = gp.live & alive[gp.rows] & alive[gp.indices]
    cs = jnp.cumsum(valid, dtype=jnp.int32)
    e_alive = cs[-1]
    at_e = jnp.where(valid, cs - 1, e)
    at_v = jnp.where(alive, new_id, n)
    starts = jnp.concatenate([jnp.zeros(1, jnp.int32), cs])[gp.indptr[:-1]]
    out = GraphPrep(
        indptr=jnp.full(n + 1, e_alive, jnp.int32).at[at_v].set(starts, mode="drop"),
        indices=jnp.zeros(e, jnp.int32).at[at_e].set(new_id[gp.indices], mode="drop"),
        labels=jnp.zeros(n, jnp.int32).at[at_v].set(gp.labels, mode="drop"),
        rows=jnp.zeros(e, jnp.int32).at[at_e].set(new_id[gp.rows], mode="drop"),
        live=jnp.arange(e) < e_alive,
        real=jnp.arange(n) < n_alive,
        twin_size=jnp.zeros(n, jnp.int32).at[at_v].set(gp.twin_size, mode="drop"),
    )
    cand_c = jnp.zeros((n, q), bool).at[at_v].set(cand0, mode="drop")
    return Compacted(out, cand_c, jnp.stack([n_alive, e_alive]))


def shrink(c: Compacted, n: int, e: int) -> tuple[GraphPrep, jax.Array]:
    """The first ``n`` vertices and ``e`` entries of a :class:`Compacted` (n, e >= its sizes)."""
    g = c.gp
    gp = GraphPrep(
        indptr=g.indptr[: n + 1],
        indices=g.indices[:e],
        labels=g.labels[:n],
        rows=g.rows[:e],
        live=g.live[:e],
        real=g.real[:n],
        twin_size=g.twin_size[:n],
    )
    return gp, c.cand0[:n]


def plan(
    gp: GraphPrep,
    qa: QueryArrays,
    sw: Switches,
    *,
    comps: int,
    rounds: int,
    cand0: jax.Array | None = None,
) -> Prepared:
    """The stages of the module docstring on :class:`GraphPrep` (traceable).

    ``cand0``: the first pass's candidates when already computed
    (:func:`first_pass`).
    """
    n = gp.real.shape[0]
    q = qa.adj.shape[0]
    slot_v, by_label = _slots(gp, qa)
    # The first pass in JAX: the candidates without ``blacklist``, else only the
    # statistics' (the filter's round 0 computes the same; XLA drops it unused).
    first = _filter_round(by_label, gp, slot_v, qa, refine=False) if cand0 is None else cand0
    if sw.blacklist:
        cand, info = filter_rounds(
            gp.indptr,
            gp.indices,
            slot_v,
            by_label if cand0 is None else cand0,
            qa.nlc,
            qa.adj,
            sw.refine,
            rounds=rounds,
        )
        rounds_run, rounds_used, fixpoint, totals = info[0], info[1], info[2], info[4:]
    else:
        cand = first
        rounds_run = rounds_used = fixpoint = jnp.int32(0)
        totals = jnp.zeros(0, jnp.int32)
    dom = jnp.asarray(sw.dominance)
    keep = jnp.any(cand, axis=1)
    keep2 = keep & ((gp.twin_size > 0) | ~dom)
    mult = jnp.where(keep2, jnp.where(dom, gp.twin_size, 1), 0).astype(jnp.int32)
    # Stage 5: the constraints hold under branch sharing unless two non-adjacent
    # query vertices they order share a candidate class of several members.
    shared = (cand & (mult > 1)[:, None]).astype(jnp.int32)
    clash = jnp.any(qa.less & ~qa.adj & ((shared.T @ shared) > 0))
    broken = jnp.asarray(sw.symmetry) & jnp.any(qa.less) & ~clash
    valid = gp.live & keep2[gp.rows] & keep2[gp.indices]
    if not sw.blacklist:
        valid = jnp.where(dom, valid, gp.live)
    indptr, indices = _compact(gp, valid)
    deg_q = jnp.sum(qa.adj, axis=1)
    kinds = jnp.sum(qa.nlc > 0, axis=1)
    freq = jnp.sum(by_label & keep[:, None], axis=0, dtype=jnp.int32)
    g = freq.astype(jnp.float32) / jnp.maximum(deg_q * kinds, 1).astype(jnp.float32)
    orders = {
        ORDER_CODES["naive"]: lambda: qa.naive,
        ORDER_CODES["gvsm"]: lambda: _greedy_order(qa.adj, g),
        ORDER_CODES["estimate"]: lambda: _estimate_order(qa.adj, cand & keep2[:, None], gp, valid),
    }
    if isinstance(sw.order, int):  # static: only the order asked for is traced
        lvl = orders[sw.order]()
    else:
        code = jnp.asarray(sw.order)
        lvl = jnp.where(
            code == ORDER_CODES["naive"],
            orders[ORDER_CODES["naive"]](),
            jnp.where(
                code == ORDER_CODES["gvsm"],
                orders[ORDER_CODES["gvsm"]](),
                orders[ORDER_CODES["estimate"]](),
            ),
        )
    cand_levels = cand.T[lvl] & keep2[None, :]
    adj_l = qa.adj[lvl][:, lvl]
    below = jnp.arange(q)[None, :] < jnp.arange(q)[:, None]
    back = to_mask(adj_l & below)
    nonadj = to_mask(~adj_l & below)
    nonadj = jnp.where(jnp.asarray(sw.induced), nonadj, jnp.uint32(0))
    less_l = qa.less[lvl][:, lvl]  # less_l[i, j]: f(level i) < f(level j)
    above = jnp.where(broken, to_mask(less_l.T & below), jnp.uint32(0))  # img[j] < v
    under = jnp.where(broken, to_mask(less_l & below), jnp.uint32(0))  # v < img[j]
    free = (back == 0).at[0].set(True)
    row = jnp.where(free, jnp.cumsum(free) - 1, -1).astype(jnp.int32)
    deg = jnp.diff(indptr)
    roots = _roots_by_degree(cand_levels[0], deg)
    if comps > 1:
        free_levels = jnp.nonzero(free, size=comps, fill_value=0)[0]
        rest = jax.vmap(lambda m: jnp.nonzero(m, size=n, fill_value=-1)[0].astype(jnp.int32))(
            cand_levels[free_levels[1:]]
        )
        lists = jnp.concatenate([roots[None, :], rest])
        list_len = jnp.sum(cand_levels[free_levels], axis=1, dtype=jnp.int32)
    else:
        lists = roots[None, :]
        list_len = jnp.sum(cand_levels[:1], axis=1, dtype=jnp.int32)
    plan_rows = jnp.stack(
        [
            jax.lax.bitcast_convert_type(back, jnp.int32),
            jax.lax.bitcast_convert_type(nonadj, jnp.int32),
            row,
            jnp.where(row >= 0, list_len[jnp.maximum(row, 0)], 0),
            jax.lax.bitcast_convert_type(above, jnp.int32),
            jax.lax.bitcast_convert_type(under, jnp.int32),
        ],
        axis=1,
    )
    leaf_c = cand_levels[q - 1]
    at = jnp.where(valid & leaf_c[gp.indices], gp.rows, n)
    leaf_sum = jnp.zeros(n, jnp.int32).at[at].add(mult[gp.indices], mode="drop")
    if q == 1:
        width_src = jnp.ones(n, jnp.int32)
    else:
        width_src = jnp.where(back[1] != 0, deg[jnp.maximum(roots, 0)], plan_rows[1, 3])
    width = task_width(q)
    chunks = jnp.where(roots >= 0, (width_src + width - 1) // width, 0)
    task_ptr = jnp.concatenate([jnp.zeros(1, jnp.int32), jnp.cumsum(chunks, dtype=jnp.int32)])
    kept, classes = jnp.sum(keep, dtype=jnp.int32), jnp.sum(keep2, dtype=jnp.int32)
    stats = jnp.concatenate(
        [
            jnp.stack(
                [
                    jnp.sum(slot_v >= 0, dtype=jnp.int32),
                    jnp.sum(jnp.any(first, axis=1), dtype=jnp.int32),
                    kept,
                    classes,
                    jnp.sum(mult, dtype=jnp.int32) - classes,
                    rounds_run,
                    fixpoint,
                ]
            ),
            jnp.sum(by_label, axis=0, dtype=jnp.int32),
            jnp.sum(first, axis=0, dtype=jnp.int32),
            jnp.sum(cand, axis=0, dtype=jnp.int32),
            totals,
        ]
    )
    return Prepared(
        indptr=indptr,
        indices=indices,
        mult=mult,
        cand=_pack_bits(cand_levels),
        plan=plan_rows,
        lists=lists,
        roots=roots,
        task_ptr=task_ptr,
        order=lvl.astype(jnp.int32),
        leaf_sum=leaf_sum,
        rounds=rounds_used,
        stats=stats,
        scale=jnp.where(broken, qa.aut, jnp.asarray([1, 0, 0, 0], jnp.uint32)),
    )
