"""What ``method="auto"`` stands for, and the graph facts it reads.

The rule bounds the regret of a wrong pick rather than fitting the average
(issue 51). Pivoting's cost stays flat in k where the work sits in
near-cliques, while enumeration grows combinatorially there; enumeration
wins where the work sits in dense non-cliques, whose pivot trees grow
faster than the enumeration. So, for a count of sizes up to k on a GPU:

1. **Provably cheap enumeration.** Upper bounds that hold for every graph
   bound KCMiner's work (its search-tree nodes: the cliques of sizes
   3..k-1): first ``sum_v C(d+(v), s - 1)`` from the out-degrees (no pass
   over the edges), then ``sum_v min(C(d+(v), s - 1), sum_w C(c(v, w),
   s - 2))`` over the exact candidate-set sizes c(v, w) of the edge tasks
   (an s-clique rooted at v is v, its next vertex w, and an
   (s - 2)-clique of the candidate set of (v, w)). Where the bound is at
   most AUTO_SAFE_WORK nodes, enumeration is no slower than pivoting's
   fixed cost on any graph: KCMiner.
2. **Otherwise an estimate that a hidden clique cannot fool.** Per root v,
   the candidate sizes sorted in decreasing order trace the density of
   v's out-neighbourhood where the work is: inside a block of density rho
   consecutive candidates' sizes drop by about rho per rank, whatever else
   v links to (hubs shared by a clique's members add a constant). Each
   edge task's (s - 2)-cliques are estimated as ``C(c, s - 2) *
   rho^C(s - 2, 2)`` with rho that slope (over c ranks; over c / 2 from
   AUTO_SLOPE_HALF_SIZE on, so that the constant does not reach it), so
   a large clique among low-degree vertices with large, sparse
   out-neighbourhoods (the web crawl of issue 51, whose per-root densities
   the previous estimate diluted) counts at full density. It is
   capped by the bound above. The same slope gives the pivot tree's
   branching where the work sits: ``(1 - rho) c`` non-neighbours per
   candidate.
3. **Pivot where the work sits in near-cliques** (branching at most
   AUTO_PIVOT_MAX_BRANCHING) and enumeration would be slow (estimated work
   at least AUTO_PIVOT_MIN_WORK, or a heavy root over small candidate
   sets), unless the block is *impure*: a small block whose deepest
   cliques' candidates each miss a pair or more (AUTO_IMPURE_*; a clique
   minus a matching), where the pivot tree branches at every step and
   saves at most 2x per level; at k <= AUTO_PIVOT_SHALLOW_K where the
   intersections are long (AUTO_PIVOT_MIN_SHALLOW_COST); from
   AUTO_PIVOT_DEEP_K on over small candidate sets (AUTO_PIVOT_DEEP_*,
   where sparse clustered graphs' deep cliques outgrow the estimate while
   their pivot trees stay small), from AUTO_PIVOT_DEEPEST_K on where
   one root's serial walk alone costs pivoting's fixed cost, and from
   AUTO_PIVOT_SPREAD_K on where the work is spread over a sparse remainder
   and the deepest cliques branch no more than the shallower ones
   (AUTO_PIVOT_SPREAD_*: clustered real graphs' cores).
   Otherwise enumerate: the estimate says the work sits in non-cliques,
   where pivoting lost up to 140x on the measured graphs.

A measured race (start the cheaper-looking method with a work budget,
switch when exceeded) was not taken: KCMiner's kernels have no budget or
abort, each eager count is becoming one compiled program (a race needs a
device read mid-call), and the budget itself is regret of the same size as
the fixed costs the rule arbitrates (about 1 ms).

Every feature comes from one program per DAG (:func:`auto_features`: the
candidate-size pass, one sort of the edge tasks and fused reductions for
every size s = 3..AUTO_MAX_SIZE), read back once and memoized: deciding on
a warm DAG reads nothing from the device; the decisions themselves are
pure functions of those facts (:func:`count_pick`, :func:`local_pick`), so
experiments/cliques/auto_replay.py replays them on every recorded row on a
CPU. The thresholds were fitted on one H200's times of the shared graphs,
the generated validation set of experiments/cliques/auto_validation.py
(all its halves) and the graphs of experiments/cliques/auto_graphs.py's
first check (adversarial, public); docs/tuning.md says when each last
changed and on which data. A pivot-tree size model (C(steps, j) branches
from the slope's non-neighbours) was tried and dropped: the slope's
per-candidate misses cannot tell a clique minus a perfect matching (every
candidate misses one: the tree doubles per pair) from a larger clique
minus a few pairs (0.3 per candidate on average, a small tree).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from kcjax import _wide
from kcjax._args import as_int
from kcjax.cliques.kernels import count_cliques_limbs
from kcjax.graph.orient import (
    DAG,
    MOMENT_MAX_J,
    GraphLike,
    Order,
    as_dag,
    is_traced,
    max_out_degree,
    memo,
    out_degree_moments,
)
from kcjax.graph.tasks import candidate_sizes

#: The per-DAG features hold clique sizes s = 3..AUTO_MAX_SIZE: counts of up
#: to AUTO_MAX_SIZE + 1 (per-vertex counts of up to AUTO_MAX_SIZE) are
#: weighed; larger sizes pivot (no bound is at hand; pivoting's tree is cut
#: at k, and enumeration's work at such k is combinatorial wherever a
#: clique that large exists).
AUTO_MAX_SIZE = 18
#: The density slope of a task's candidate sizes is read over c ranks below
#: this candidate size c, over c / 2 from it on (module doc, step 2).
AUTO_SLOPE_HALF_SIZE = 64
#: Enumeration whose bounded work is at most this many search-tree nodes
#: costs no more than pivoting's fixed cost (0.5-2 ms on one H200): KCMiner.
AUTO_SAFE_WORK = 3e5
#: ``count_cliques(method="auto")`` on a GPU pivots where the estimated
#: branching (non-neighbours per candidate where the work sits) is at most
#: AUTO_PIVOT_MAX_BRANCHING and the estimated work is at least
#: AUTO_PIVOT_MIN_WORK nodes, or its heaviest root at least
#: AUTO_PIVOT_MIN_ROOT_WORK over candidate sets of at most
#: AUTO_PIVOT_SMALL_CANDIDATES vertices (work-weighted: one warp walks such
#: a root alone, large candidate sets are split), unless the block is impure
#: (below). The branching limit sits between the largest branching where
#: pivoting won (1.48, a web crawl with a 100-clique and 300 hubs at k = 8,
#: since the pivot counter splits its heaviest roots over several warps)
#: and the smallest where it lost (1.56, pgp-strong-2009 k = 6).
AUTO_PIVOT_MAX_BRANCHING = 1.5
#: Enumeration of 1e8 nodes takes about 1 ms or more on one H200: pivoting's fixed cost.
AUTO_PIVOT_MIN_WORK = 1e8
#: A root of 5e5 nodes walked by one warp takes about pivoting's fixed cost.
AUTO_PIVOT_MIN_ROOT_WORK = 5e5
#: Larger candidate sets are split across warps, so a heavy root no longer serializes.
AUTO_PIVOT_SMALL_CANDIDATES = 45.0
#: Up to AUTO_PIVOT_SHALLOW_K the pivot tree is cut after two levels: it
#: pivots where work x candidate size (the intersections' length: hubs,
#: large cliques) is at least AUTO_PIVOT_MIN_SHALLOW_COST.
AUTO_PIVOT_SHALLOW_K = 4
AUTO_PIVOT_MIN_SHALLOW_COST = 3e8
#: From AUTO_PIVOT_DEEP_K on it pivots over candidate sets of at most
#: AUTO_PIVOT_DEEP_CANDIDATES vertices once the estimated work is at least
#: AUTO_PIVOT_DEEP_MIN_WORK (e-mail and citation graphs: their deep
#: cliques outgrow the estimate while pivot trees over small sets stop
#: growing).
AUTO_PIVOT_DEEP_K = 10
AUTO_PIVOT_DEEP_CANDIDATES = 25.0
AUTO_PIVOT_DEEP_MIN_WORK = 1e7
#: From AUTO_PIVOT_DEEPEST_K on, KCMiner's deepest levels cost a root's
#: serial walk: it pivots over the same small candidate sets where the
#: heaviest root holds at least AUTO_PIVOT_DEEPEST_MIN_ROOT_WORK nodes (about
#: 1 ms of one warp, pivoting's fixed cost) and the branching is at most
#: AUTO_PIVOT_DEEPEST_MAX_BRANCHING (sparse clustered graphs, 0.06-2.0;
#: dense random blocks, 12, lose with pivoting).
AUTO_PIVOT_DEEPEST_K = 12
AUTO_PIVOT_DEEPEST_MIN_ROOT_WORK = 3e4
AUTO_PIVOT_DEEPEST_MAX_BRANCHING = 3.0
#: From AUTO_PIVOT_SPREAD_K on it also pivots where the work is spread:
#: the bound at least AUTO_PIVOT_SPREAD_MIN_BOUND_RATIO times the estimate
#: (a sparse remainder, not one dense block) and the deepest size branching
#: no more than the shallower ones (near-cliques at the core of a clustered
#: graph; a Moon-Moser graph or a clique minus a matching branches as much
#: at every depth), over candidate sets of at most
#: AUTO_PIVOT_SPREAD_CANDIDATES with a branching of at most
#: AUTO_PIVOT_SPREAD_MAX_BRANCHING (dense random blocks branch 12) once the
#: estimated work is at least AUTO_PIVOT_SPREAD_MIN_WORK: there pivoting
#: stays flat while enumeration grows (docs/tuning.md).
AUTO_PIVOT_SPREAD_K = 9
AUTO_PIVOT_SPREAD_CANDIDATES = 46.0
AUTO_PIVOT_SPREAD_MAX_BRANCHING = 7.0
AUTO_PIVOT_SPREAD_MIN_WORK = 5e6
AUTO_PIVOT_SPREAD_MIN_BOUND_RATIO = 4.0
#: An impure block: where the branching of the deepest size alone is at
#: least AUTO_IMPURE_MIN_BRANCHING (every other candidate misses a pair
#: there, so the pivot tree branches at every step and saves at most a
#: factor 2 per level over enumeration, at a higher cost per node), over
#: candidate sets of at most AUTO_IMPURE_MAX_CANDIDATES (enumeration won on
#: such blocks of up to 38 candidates; pivoting won on impure blocks of 85
#: and more, where enumeration grows faster), where the bound is at
#: most AUTO_IMPURE_MAX_BOUND_RATIO times the estimate (the work is the
#: whole block, not a sparse remainder) and one root holds at least
#: AUTO_IMPURE_MIN_ROOT_SHARE of it (one block, not spread clustering like
#: co-authorship graphs'), near-clique pivoting is not taken: a 48-clique
#: minus a perfect matching pivots 2.1-7.3x slower than KCMiner at k = 7..12.
AUTO_IMPURE_MIN_BRANCHING = 0.6
AUTO_IMPURE_MAX_CANDIDATES = 64.0
AUTO_IMPURE_MAX_BOUND_RATIO = 3.0
AUTO_IMPURE_MIN_ROOT_SHARE = 0.05
#: ``clique_counts_per_vertex(method="auto")`` visits every k-clique when it
#: enumerates (one atomic per member), so it weighs the cliques of sizes
#: 3..k: it pivots where the geometric mean of their estimate and bound
#: (the estimate misses clustered sparse graphs' k-cliques by up to 10x,
#: the bound overshoots) is at least AUTO_LOCAL_MIN_WORK (up to
#: AUTO_PIVOT_SHALLOW_K: AUTO_LOCAL_SHALLOW_MIN_WORK, where its pivot counter
#: costs 4-5 ms on graphs of 10^5 vertices) with a branching of at most
#: AUTO_LOCAL_MAX_BRANCHING, and from AUTO_LOCAL_DEEP_K on where the
#: heaviest root holds at least AUTO_LOCAL_MIN_ROOT_WORK nodes (one warp's
#: serial walk of them, at 20-120 ns a node with an atomic per member,
#: takes about the pivot counter's 2-3 ms) with a branching of at most
#: AUTO_LOCAL_DEEP_MAX_BRANCHING (sparse real graphs' near-cliques).
AUTO_LOCAL_MIN_WORK = 3.2e7
AUTO_LOCAL_SHALLOW_MIN_WORK = 1e9
AUTO_LOCAL_MAX_BRANCHING = 11.0
AUTO_LOCAL_DEEP_K = 6
AUTO_LOCAL_MIN_ROOT_WORK = 3e4
AUTO_LOCAL_DEEP_MAX_BRANCHING = 3.0


class CliqueCostEstimate(NamedTuple):
    """What the clique counters' ``method="auto"`` weighs (see
    :func:`clique_cost_estimate`).

    Attributes:
      k: the clique size the estimate is for.
      cliques: ``cliques[s]`` for s = 0..k: estimated number of s-cliques
        (exact for s <= 3; 0 above AUTO_MAX_SIZE).
      enumeration_work: estimated nodes of KCMiner's search tree for k, the
        cliques of sizes 3..k-1 (its time grows with it).
      heaviest_root_work: the largest share of that work under one root
        vertex.
      pivot_branching: estimated non-neighbours among the candidates of an
        edge task, averaged over the tasks by their share of
        ``enumeration_work`` (0 where the work sits in cliques).
      root_degree: out-degree of a task's root, averaged the same way.
      candidate_size: candidate-set size of a task, averaged the same way
        (the length of the lists its searches intersect).
      work_bound: an upper bound of the search-tree nodes that holds for
        every graph (``inf`` above AUTO_MAX_SIZE).
      heaviest_root_bound: the same for one root vertex.
    """

    k: int
    cliques: tuple[float, ...]
    enumeration_work: float
    heaviest_root_work: float
    pivot_branching: float
    root_degree: float
    candidate_size: float = 0.0
    work_bound: float = 0.0
    heaviest_root_bound: float = 0.0


class AutoFeatures(NamedTuple):
    """The per-DAG facts ``method="auto"`` decides by (see :func:`auto_features`).

    Every array is float64[AUTO_MAX_SIZE - 2], entry i for clique size
    s = i + 3, natural logarithms (``-inf`` for 0).

    Attributes:
      cliques: estimated s-cliques.
      work: estimated s'-cliques of s' = 3..s summed (KCMiner's nodes for
        k = s + 1).
      heaviest_root: the largest per-root share of ``work``.
      bound: upper bound of the s-cliques.
      heaviest_root_bound: the largest per-root share of the bound's sum
        over 3..s.
      branching, candidates, degree, weight: over the edge tasks e, the
        sums of ``x_e(s) * f_e`` where x_e(s) is e's estimated
        (s - 2)-cliques and f_e its estimated non-neighbours per candidate,
        its candidate size, its root's out-degree and 1.
    """

    cliques: np.ndarray
    work: np.ndarray
    heaviest_root: np.ndarray
    bound: np.ndarray
    heaviest_root_bound: np.ndarray
    branching: np.ndarray
    candidates: np.ndarray
    degree: np.ndarray
    weight: np.ndarray


def transitivity(graph: GraphLike, *, order: Order = "degree") -> float:
    """Global clustering coefficient: 3 x triangles / wedges (paths of length 2).

    Eager only. The value is cached per DAG (by its ``indices`` array), so
    repeated ``method="auto"`` counts on one DAG pay for the triangle count once.

    Args:
      graph: a :class:`Graph` or an oriented :class:`DAG`.
      order: orientation of a Graph.

    Returns:
      A float in [0, 1] (0 for a graph without wedges).
    """
    dag = as_dag(graph, order)
    if is_traced(dag):
        raise ValueError("transitivity runs eagerly only")
    return memo(dag, "transitivity", lambda: _transitivity(dag))


def _transitivity(dag: DAG) -> float:
    triangles = _wide.to_int(np.asarray(count_cliques_limbs(dag, 3))[3]) if dag.num_edges else 0
    out_deg = np.asarray(dag.out_degrees(), dtype=np.int64)
    in_deg = np.bincount(np.asarray(dag.indices), minlength=dag.num_nodes)[: dag.num_nodes]
    deg = out_deg + in_deg
    wedges = int((deg * (deg - 1) // 2).sum())
    return 3 * triangles / wedges if wedges else 0.0


def auto_features(graph: GraphLike, *, order: Order = "degree") -> AutoFeatures:
    """Everything ``method="auto"`` reads about a DAG, once (see the module doc).

    One program (the candidate-size pass, a sort of the edge tasks by root
    and decreasing candidate size, and fused reductions for every size
    s = 3..AUTO_MAX_SIZE) and one read-back; eager, memoized per DAG.

    Args:
      graph: a :class:`Graph` or an oriented :class:`DAG`.
      order: orientation of a Graph.

    Returns:
      An :class:`AutoFeatures`.

    Raises:
      ValueError: under jit, or for a malformed DAG.
    """
    dag = as_dag(graph, order)
    if is_traced(dag):
        raise ValueError("auto_features runs eagerly only")

    def compute() -> AutoFeatures:
        slots = AUTO_MAX_SIZE - 2
        if dag.num_edges == 0:
            empty = np.full(slots, -np.inf)
            return AutoFeatures(*([empty] * 9))
        table, invalid = jax.device_get(_features(dag))
        if invalid:
            raise ValueError(
                "the DAG is malformed (an edge or row out of range); build it with kcjax.orient"
            )
        t = np.asarray(table, np.float64)
        return AutoFeatures(*(t[:, i] for i in range(9)))

    return memo(dag, "auto_features", compute)


def _segment_logsumexp(x: jax.Array, segments: jax.Array, n: int) -> jax.Array:
    """float32[n]: log of the sum of exp(x) per (sorted) segment; -inf where empty."""
    top = jax.ops.segment_max(x, segments, num_segments=n, indices_are_sorted=True)
    top = jnp.where(jnp.isfinite(top), top, 0.0)
    total = jax.ops.segment_sum(
        jnp.exp(x - top[segments]), segments, num_segments=n, indices_are_sorted=True
    )
    return jnp.where(total > 0, top + jnp.log(jnp.maximum(total, 1e-38)), -jnp.inf)


def _logsumexp(x: jax.Array) -> jax.Array:
    top = jnp.max(x)
    top = jnp.where(jnp.isfinite(top), top, 0.0)
    total = jnp.sum(jnp.exp(x - top))
    return jnp.where(total > 0, top + jnp.log(jnp.maximum(total, 1e-38)), -jnp.inf)


@jax.jit
def _features(dag: DAG) -> tuple[jax.Array, jax.Array]:
    """(float32[AUTO_MAX_SIZE - 2, 9] the AutoFeatures columns, bool: a
    candidate size was flagged invalid). One program."""
    n, m = dag.num_nodes, dag.num_edges
    f32 = jnp.float32
    sizes = candidate_sizes(dag)
    invalid = jnp.any(sizes < 0)
    # Each root's tasks by decreasing candidate size (rows stay in place).
    root, neg = jax.lax.sort((dag.src, -jnp.maximum(sizes, 0)), num_keys=2)
    c = -neg
    # rho: how fast the sizes fall past a task, over c ranks (half of them
    # from AUTO_SLOPE_HALF_SIZE on: hubs that a large clique's members share
    # raise every size by about as much, which a slope over c ranks would
    # read as non-neighbours).
    span = jnp.where(c >= AUTO_SLOPE_HALF_SIZE, (c + 1) // 2, jnp.maximum(c, 1))
    ahead = jnp.arange(m, dtype=jnp.int32) + span
    later = jnp.where(ahead < dag.indptr[root + 1], c[jnp.minimum(ahead, m - 1)], 0)
    rho = jnp.where(c > 0, jnp.clip((c - later).astype(f32) / span.astype(f32), 0.0, 1.0), 0.0)
    log_rho = jnp.log(jnp.maximum(rho, jnp.finfo(f32).tiny))
    cf = c.astype(f32)
    d = dag.out_degrees().astype(f32)
    log_miss = jnp.log(jnp.maximum((1.0 - rho) * cf, 0.0))
    log_c = jnp.log(cf)
    log_deg = jnp.log(d)[root]

    def step(carry, s):
        lb_e, lb_v, cum_est, cum_ub = carry
        r_e, r_v = (s - 2).astype(f32), (s - 1).astype(f32)
        # log C(c, s - 2) and log C(d, s - 1) from the previous size's.
        step_e = jnp.log(jnp.maximum(cf - r_e + 1, 1)) - jnp.log(r_e)
        step_v = jnp.log(jnp.maximum(d - r_v + 1, 1)) - jnp.log(r_v)
        lb_e = jnp.where(cf >= r_e, lb_e + step_e, -jnp.inf)
        lb_v = jnp.where(d >= r_v, lb_v + step_v, -jnp.inf)
        est_e = jnp.where(cf >= r_e, lb_e + (r_e * (r_e - 1) / 2) * log_rho, -jnp.inf)
        ub_root = jnp.minimum(_segment_logsumexp(lb_e, root, n), lb_v)
        est_root = jnp.minimum(_segment_logsumexp(est_e, root, n), ub_root)
        cum_est = jnp.logaddexp(cum_est, est_root)
        cum_ub = jnp.logaddexp(cum_ub, ub_root)
        row = jnp.stack(
            [
                _logsumexp(est_root),
                _logsumexp(cum_est),
                jnp.max(cum_est),
                _logsumexp(ub_root),
                jnp.max(cum_ub),
                _logsumexp(est_e + log_miss),
                _logsumexp(est_e + log_c),
                _logsumexp(est_e + log_deg),
                _logsumexp(est_e),
            ]
        )
        return (lb_e, lb_v, cum_est, cum_ub), row

    none = jnp.full(n, -jnp.inf, f32)
    init = (jnp.zeros(m, f32), jnp.where(d >= 1, jnp.log(d), -jnp.inf), none, none)
    sizes_s = jnp.arange(3, AUTO_MAX_SIZE + 1, dtype=jnp.int32)
    _, table = jax.lax.scan(step, init, sizes_s)
    return table, invalid


def _exp_sum(logs: np.ndarray) -> float:
    logs = logs[np.isfinite(logs)]
    if logs.size == 0:
        return 0.0
    top = logs.max()
    return float(math.exp(top) * np.exp(logs - top).sum()) if top < 700 else math.inf


def _ratio(num: np.ndarray, den: np.ndarray) -> float:
    """sum(exp(num)) / sum(exp(den)) in log space (0 where den is empty)."""
    den = den[np.isfinite(den)]
    if den.size == 0:
        return 0.0
    num = num[np.isfinite(num)]
    if num.size == 0:
        return 0.0
    top = den.max()
    return float(np.exp(num - top).sum() / np.exp(den - top).sum())


class _View(NamedTuple):
    """The features of a count of sizes up to k (the cliques of sizes 3..k-1)."""

    work: float
    heaviest_root: float
    bound: float
    heaviest_root_bound: float
    branching: float
    candidates: float
    degree: float
    deep_branching: float
    deep_candidates: float


def _view(f: AutoFeatures, k: int) -> _View:
    """Work-weighted features of KCMiner's tree for k (sizes 3..k-1), k >= 4."""
    top = k - 4  # index of size k - 1
    sl = slice(0, top + 1)
    ew = _exp_sum(np.asarray([f.work[top]]))
    return _View(
        work=ew,
        heaviest_root=_exp_sum(np.asarray([f.heaviest_root[top]])),
        bound=_exp_sum(f.bound[sl]),
        heaviest_root_bound=_exp_sum(np.asarray([f.heaviest_root_bound[top]])),
        branching=_ratio(f.branching[sl], f.weight[sl]),
        candidates=_ratio(f.candidates[sl], f.weight[sl]),
        degree=_ratio(f.degree[sl], f.weight[sl]),
        deep_branching=_ratio(f.branching[top : top + 1], f.weight[top : top + 1]),
        deep_candidates=_ratio(f.candidates[top : top + 1], f.weight[top : top + 1]),
    )


def clique_cost_estimate(
    graph: GraphLike, k: int, *, order: Order = "degree"
) -> CliqueCostEstimate:
    """Estimated clique counts, bounds and search costs that ``method="auto"`` decides by.

    Every k-clique has one lowest vertex v (in the DAG's order) and its next
    vertex w among v's out-neighbours; the rest is a (k - 2)-clique of the
    edge task's candidate set ``N+(v) ∩ N+(w)``, whose size c is exact (the
    tasks stage). The estimate takes the candidate set's density from how
    fast the candidate sizes of v's tasks fall when sorted (module doc), so
    it is exact for s <= 3 and on any union of cliques, and a clique hidden
    in a large sparse out-neighbourhood counts in full. The bounds
    (``work_bound``, ``heaviest_root_bound``) hold for every graph.

    Eager; computed once per DAG for every k (:func:`auto_features`).

    Args:
      graph: a :class:`Graph` or an oriented :class:`DAG`.
      k: the clique size to count, >= 1.
      order: orientation of a Graph.

    Returns:
      A :class:`CliqueCostEstimate`.
    """
    k = as_int(k, "k", minimum=1)
    dag = as_dag(graph, order)
    if is_traced(dag):
        raise ValueError("clique_cost_estimate runs eagerly only")
    return memo(dag, f"cost_estimate_{k}", lambda: _cost_estimate(dag, k))


def _cost_estimate(dag: DAG, k: int) -> CliqueCostEstimate:
    exact = [1.0, float(dag.num_nodes), float(dag.num_edges)][: k + 1]
    if k < 3 or dag.num_edges == 0:
        cliques = exact + [0.0] * (k + 1 - len(exact))
        return CliqueCostEstimate(k, tuple(cliques), 0.0, 0.0, 0.0, 0.0)
    f = auto_features(dag)
    sizes = range(3, k + 1)
    cliques = exact + [
        _exp_sum(np.asarray([f.cliques[s - 3]])) if s <= AUTO_MAX_SIZE else 0.0 for s in sizes
    ]
    if k == 3:
        return CliqueCostEstimate(k, tuple(cliques), 0.0, 0.0, 0.0, 0.0)
    if k > AUTO_MAX_SIZE + 1:
        return CliqueCostEstimate(
            k, tuple(cliques), math.inf, math.inf, 0.0, 0.0, 0.0, math.inf, math.inf
        )
    v = _view(f, k)
    return CliqueCostEstimate(
        k,
        tuple(cliques),
        v.work,
        v.heaviest_root,
        v.branching,
        v.degree,
        v.candidates,
        v.bound,
        v.heaviest_root_bound,
    )


def auto_method(dag: DAG, kmax: int, *, enumeration_only: bool = False) -> str:
    """The method ``count_cliques(method="auto")`` stands for.

    Args:
      dag: the oriented graph to count on.
      kmax: the largest clique size asked for.
      enumeration_only: the caller cannot pivot (under jit, over a mesh).

    Returns:
      ``"kcminer"`` or ``"pivot"``: KCMiner wherever only enumeration runs;
      else pivoting on the CPU (it won at every k measured there) and, on a
      GPU, by :func:`auto_gpu_method`.
    """
    if enumeration_only:
        return "kcminer"
    if next(iter(dag.indices.devices())).platform == "cpu":
        return "pivot"
    return auto_gpu_method(dag, kmax)


def auto_gpu_method(dag: DAG, kmax: int) -> str:
    """The method eager ``"auto"`` picks on a GPU (the module doc's rule)."""
    return count_pick(None, kmax, max_out_degree(dag), lambda k: work_bounds(dag, k)[0], dag)


def auto_local_method(dag: DAG, k: int) -> str:
    """The method ``clique_counts_per_vertex(method="auto")`` stands for on a
    GPU or CPU (see AUTO_LOCAL_MIN_WORK): it weighs the cliques of sizes
    3..k, KCMiner's tree for k + 1."""
    return local_pick(None, k, max_out_degree(dag), lambda kk: work_bounds(dag, kk)[0], dag)


def count_pick(
    features: AutoFeatures | None,
    kmax: int,
    max_degree: int,
    degree_work: Callable[[int], float],
    dag: DAG | None = None,
) -> str:
    """:func:`auto_gpu_method`'s decision from the facts it reads.

    Args:
      features: :func:`auto_features` of the DAG, or None to compute them
        from ``dag`` only where they are read.
      kmax: the largest clique size asked for.
      max_degree: the DAG's largest out-degree.
      degree_work: k -> ``work_bounds(dag, k)[0]``.
      dag: the DAG (only where ``features`` is None).

    Returns:
      ``"kcminer"`` or ``"pivot"``.
    """
    k = min(kmax, max_degree + 1)  # count_cliques counts no larger size
    if k <= 3:  # one intersection pass either way
        return "kcminer"
    if k > AUTO_MAX_SIZE + 1:
        return "pivot"
    if degree_work(k) <= AUTO_SAFE_WORK:
        return "kcminer"  # bounded from the out-degrees alone
    v = _view(features if features is not None else auto_features(dag), k)
    if v.bound <= AUTO_SAFE_WORK:
        return "kcminer"  # bounded from the candidate sizes
    impure = (  # a small block that misses pairs everywhere: pivoting branches at every step
        v.deep_branching >= AUTO_IMPURE_MIN_BRANCHING
        and v.deep_candidates <= AUTO_IMPURE_MAX_CANDIDATES
        and v.bound <= AUTO_IMPURE_MAX_BOUND_RATIO * v.work
        and v.heaviest_root >= AUTO_IMPURE_MIN_ROOT_SHARE * v.work
    )
    heavy_root = (
        v.heaviest_root >= AUTO_PIVOT_MIN_ROOT_WORK and v.candidates <= AUTO_PIVOT_SMALL_CANDIDATES
    )
    slow = v.work >= AUTO_PIVOT_MIN_WORK or heavy_root
    if slow and v.branching <= AUTO_PIVOT_MAX_BRANCHING and not impure:
        return "pivot"
    if k <= AUTO_PIVOT_SHALLOW_K and v.work * v.candidates >= AUTO_PIVOT_MIN_SHALLOW_COST:
        return "pivot"
    if (
        k >= AUTO_PIVOT_DEEP_K
        and v.candidates <= AUTO_PIVOT_DEEP_CANDIDATES
        and v.work >= AUTO_PIVOT_DEEP_MIN_WORK
    ):
        return "pivot"
    if (
        k >= AUTO_PIVOT_DEEPEST_K
        and v.candidates <= AUTO_PIVOT_DEEP_CANDIDATES
        and v.heaviest_root >= AUTO_PIVOT_DEEPEST_MIN_ROOT_WORK
        and v.branching <= AUTO_PIVOT_DEEPEST_MAX_BRANCHING
    ):
        return "pivot"
    if (
        k >= AUTO_PIVOT_SPREAD_K
        and v.candidates <= AUTO_PIVOT_SPREAD_CANDIDATES
        and v.branching <= AUTO_PIVOT_SPREAD_MAX_BRANCHING
        and v.work >= AUTO_PIVOT_SPREAD_MIN_WORK
        and v.bound >= AUTO_PIVOT_SPREAD_MIN_BOUND_RATIO * v.work
        and v.deep_branching <= v.branching
    ):
        return "pivot"
    return "kcminer"


def local_pick(
    features: AutoFeatures | None,
    k: int,
    max_degree: int,
    degree_work: Callable[[int], float],
    dag: DAG | None = None,
) -> str:
    """:func:`auto_local_method`'s decision from the facts it reads (the
    arguments of :func:`count_pick`)."""
    k = min(k, max_degree + 1)
    if k <= 2:
        return "kcminer"
    if k + 1 > AUTO_MAX_SIZE + 1:
        return "pivot"
    if degree_work(k + 1) <= AUTO_SAFE_WORK:
        return "kcminer"
    v = _view(features if features is not None else auto_features(dag), k + 1)
    if v.bound <= AUTO_SAFE_WORK:
        return "kcminer"
    min_work = AUTO_LOCAL_SHALLOW_MIN_WORK if k <= AUTO_PIVOT_SHALLOW_K else AUTO_LOCAL_MIN_WORK
    if math.sqrt(v.work * v.bound) >= min_work and v.branching <= AUTO_LOCAL_MAX_BRANCHING:
        return "pivot"
    if (
        k >= AUTO_LOCAL_DEEP_K
        and v.heaviest_root >= AUTO_LOCAL_MIN_ROOT_WORK
        and v.branching <= AUTO_LOCAL_DEEP_MAX_BRANCHING
    ):
        return "pivot"
    return "kcminer"


def work_bounds(dag: DAG, k: int) -> tuple[float, float, float]:
    """Upper bounds of KCMiner's search-tree nodes for k (the cliques of
    sizes 3..k-1), of one root's share and of nodes x root out-degree, from
    the out-degrees alone.

    Every s-clique is its lowest vertex v and s - 1 of v's d+(v)
    out-neighbours, so w(v) = sum over s = 3..k-1 of C(d+(v), s - 1)
    bounds v's share: the sum of w(v) bounds the work (and the estimate's
    and :func:`auto_features`' bound), w at the largest out-degree the
    heaviest root, and the sum of w(v) d+(v) the work times the
    work-weighted root degree. They come from
    :func:`kcjax.graph.orient.out_degree_moments` (the read-back that also
    gives the largest out-degree), so where they already bound the work
    below AUTO_SAFE_WORK, ``auto`` decides without :func:`auto_features`.

    Returns:
      ``(work, heaviest_root, work_times_degree)`` bounds as floats (``inf``
      above k = MOMENT_MAX_J + 2).
    """
    if k > MOMENT_MAX_J + 2:
        return math.inf, math.inf, math.inf
    m = out_degree_moments(dag)
    js = range(2, k - 1)
    return (
        float(sum(m.binomials[j] for j in js)),
        float(sum(math.comb(m.max_degree, j) for j in js)),
        float(sum(m.weighted[j] for j in js)),
    )
