"""What ``method="auto"`` stands for, and the graph facts it reads.

The rule weighs an estimate of the enumeration work against an estimate of
how the pivot tree branches (:func:`clique_cost_estimate`); its thresholds
were fitted on one H200 to half of a generated validation set and the
shared graphs, and checked on the other half (docs/tuning.md). Every
estimate is memoized per DAG and k, so repeated calls pay for it once.
"""

from __future__ import annotations

import functools
import math
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

#: ``count_cliques(method="auto")`` on a GPU pivots where the estimated
#: pivot branching (non-neighbours per candidate where the enumeration work
#: sits, :func:`clique_cost_estimate`) is at most AUTO_PIVOT_MAX_BRANCHING,
#: so that work sits in near-cliques, which a pivot tree collapses (in dense
#: non-cliques pivot trees grow with k too), and the enumeration would be
#: slow: its work (KCMiner's search-tree nodes) at least AUTO_PIVOT_MIN_WORK,
#: from where the pivot counter's fixed cost is repaid, or its heaviest root
#: at least AUTO_PIVOT_MIN_ROOT_WORK under a small root out-degree (below).
AUTO_PIVOT_MAX_BRANCHING = 1.5
AUTO_PIVOT_MIN_WORK = 1e8
AUTO_PIVOT_MIN_ROOT_WORK = 5e5
#: Up to AUTO_PIVOT_SHALLOW_K the pivot tree is cut after two levels, so its
#: branching does not matter: it pivots where the enumeration's intersection
#: cost (work times root out-degree: hubs, large cliques) is at least
#: AUTO_PIVOT_MIN_SHALLOW_COST.
AUTO_PIVOT_SHALLOW_K = 4
AUTO_PIVOT_MIN_SHALLOW_COST = 2e8
#: A small root out-degree: the work-weighted root out-degree at most
#: AUTO_PIVOT_SMALL_DEGREE. There the estimate, which spreads each
#: out-neighbourhood's edges evenly, misses the deep cliques of clustered
#: sparse graphs (citation, e-mail, collaboration; 15x at k = 12), while a
#: pivot tree over such small out-neighbourhoods stays small. Dense ego-like
#: graphs, whose pivot trees explode, have root degrees above 60. So from
#: AUTO_PIVOT_DEEP_K on it pivots under a small root degree once the
#: estimated work is at least AUTO_PIVOT_DEEP_MIN_WORK (a small dense block
#: with little work enumerates faster than its pivot tree).
AUTO_PIVOT_SMALL_DEGREE = 45.0
AUTO_PIVOT_DEEP_K = 10
AUTO_PIVOT_DEEP_MIN_WORK = 1e6
#: ``clique_counts_per_vertex(method="auto")`` pivots from
#: AUTO_LOCAL_PIVOT_ALWAYS_K on where the estimated work is at least
#: AUTO_LOCAL_ALWAYS_MIN_WORK (below it the pivot counter's fixed cost
#: dominates), and below that k where the work is at least
#: AUTO_LOCAL_PIVOT_MIN_WORK and the branching at most
#: AUTO_LOCAL_PIVOT_MAX_BRANCHING (per-vertex enumeration pays one atomic per
#: clique member, so pivoting pays earlier than for counts).
AUTO_LOCAL_PIVOT_ALWAYS_K = 7
AUTO_LOCAL_ALWAYS_MIN_WORK = 1.5e6
AUTO_LOCAL_PIVOT_MIN_WORK = 5.6e6
AUTO_LOCAL_PIVOT_MAX_BRANCHING = 16.0


class CliqueCostEstimate(NamedTuple):
    """What the clique counters' ``method="auto"`` weighs (see
    :func:`clique_cost_estimate`).

    Attributes:
      k: the clique size the estimate is for.
      cliques: ``cliques[s]`` for s = 0..k: estimated number of s-cliques
        (exact for s <= 3).
      enumeration_work: estimated nodes of KCMiner's search tree for k, the
        cliques of sizes 3..k-1 (its time grows with it).
      heaviest_root_work: the largest share of that work under one root:
        one warp searches it, so it bounds the time from below however many
        warps run.
      pivot_branching: estimated non-neighbours among the candidates of a
        root, averaged over the roots by their share of ``enumeration_work``
        (0 where the work sits in cliques).
      root_degree: out-degree of a root, averaged the same way (the length
        of the lists its searches intersect).
    """

    k: int
    cliques: tuple[float, ...]
    enumeration_work: float
    heaviest_root_work: float
    pivot_branching: float
    root_degree: float


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


def clique_cost_estimate(
    graph: GraphLike, k: int, *, order: Order = "degree"
) -> CliqueCostEstimate:
    """Estimated clique counts and search costs that ``method="auto"`` decides by.

    Every k-clique has one lowest vertex v (in the DAG's order) and the rest
    among v's d+(v) out-neighbours. If the out-neighbourhood of v has edge
    density p(v) (its triangles over its pairs: exact, from the candidate-set
    sizes of the tasks stage), the s-cliques rooted at v number about
    ``C(d+(v), s - 1) * p(v) ** C(s - 1, 2)``. The sum is exact for s <= 3 and
    for any graph whose out-neighbourhoods are cliques or empty (a planted
    clique, a disjoint union of cliques), and it follows the true counts
    where the work is (within 2x on the shared graphs where k-clique counts
    pass 10^8; below on sparse graphs, where counting is cheap anyway).
    KCMiner's time grows with the nodes of its search tree, the cliques of
    sizes 3..k-1, each an intersection of lists about ``root_degree`` long;
    a pivot tree stays small where that work sits in near-cliques (few
    non-neighbours per candidate, ``pivot_branching``).

    Eager; memoized per DAG and k. Costs one candidate-set-size pass
    (:func:`kcjax.candidate_sizes`) and O(n k) arithmetic.

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
    # One compilation per graph shape serves every k <= 18 (then per power of two).
    slots = 1 << max(4, (k - 3).bit_length())
    out = np.asarray(_estimate(dag, np.int32(k), slots=slots)).astype(np.float64)
    log_cliques, (log_work, branching, degree, log_heaviest, invalid) = (
        out[: k - 2],
        out[slots:],
    )
    if invalid:
        raise ValueError(
            "the DAG is malformed (an edge or row out of range); build it with kcjax.orient"
        )
    cliques = exact + [float(x) for x in np.exp(log_cliques)]
    return CliqueCostEstimate(
        k,
        tuple(cliques),
        float(np.exp(log_work)),
        float(np.exp(log_heaviest)),
        float(branching),
        float(degree),
    )


@functools.partial(jax.jit, static_argnames="slots")
def _estimate(dag: DAG, k: jax.Array, *, slots: int) -> jax.Array:
    """float32[slots + 5]: logs of the estimated s-clique counts (s = 3..k,
    then -inf); the log of the work; the work-weighted non-neighbours per
    candidate and out-degree; the log of the heaviest root's work; and 1 if a
    candidate-set size was flagged invalid (-1). One program: the sizes pass
    and a few fused reductions; k is traced (one compilation serves every
    k <= slots + 2)."""
    n = dag.num_nodes
    sizes = candidate_sizes(dag)
    invalid = jnp.any(sizes < 0)
    tri = jax.ops.segment_sum(jnp.maximum(sizes, 0).astype(jnp.float32), dag.src, num_segments=n)
    d = dag.out_degrees().astype(jnp.float32)
    pairs = d * (d - 1) / 2
    p = jnp.where(pairs > 0, tri / jnp.maximum(pairs, 1), 0.0)
    log_p = jnp.log(jnp.maximum(p, jnp.finfo(jnp.float32).tiny))
    # term[i, v]: log of the (i + 3)-cliques rooted at v, r = i + 2 of its
    # out-neighbours with all C(r, 2) pairs among them adjacent (-inf: none).
    size = jnp.arange(3, 3 + slots, dtype=jnp.int32)[:, None]
    r = (size - 1).astype(jnp.float32)
    log_binom = (
        jax.lax.lgamma(d + 1) - jax.lax.lgamma(r + 1) - jax.lax.lgamma(jnp.maximum(d - r, 0) + 1)
    )
    term = jnp.where(
        (d >= r) & (p > 0) & (size <= k), log_binom + (r * (r - 1) / 2) * log_p, -jnp.inf
    )
    log_cliques = jax.nn.logsumexp(term, axis=1)
    log_root_work = jax.nn.logsumexp(jnp.where(size < k, term, -jnp.inf), axis=0)
    log_work = jax.nn.logsumexp(log_root_work)
    finite = jnp.isfinite(log_work)
    weights = jnp.where(finite, jnp.exp(log_root_work - log_work), 0.0)
    tail = jnp.stack(
        [
            log_work,
            jnp.sum(weights * (1 - p) * d),
            jnp.sum(weights * d),
            jnp.max(log_root_work),
            invalid.astype(jnp.float32),
        ]
    )
    return jnp.concatenate([log_cliques, tail])


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
    """The method eager ``"auto"`` picks on a GPU (see AUTO_PIVOT_MAX_BRANCHING)."""
    kmax = min(kmax, max_out_degree(dag) + 1)  # count_cliques counts no larger size
    if kmax <= 3:  # one intersection pass either way; no estimate needed
        return "kcminer"
    bound, heaviest_bound, cost_bound = work_bounds(dag, kmax)
    if (
        bound < AUTO_PIVOT_MIN_WORK
        and heaviest_bound < AUTO_PIVOT_MIN_ROOT_WORK
        and (kmax > AUTO_PIVOT_SHALLOW_K or cost_bound < AUTO_PIVOT_MIN_SHALLOW_COST)
        and (kmax < AUTO_PIVOT_DEEP_K or bound < AUTO_PIVOT_DEEP_MIN_WORK)
    ):
        return "kcminer"  # no estimate below these bounds can pivot
    est = clique_cost_estimate(dag, kmax)
    work = est.enumeration_work
    small_roots = est.root_degree <= AUTO_PIVOT_SMALL_DEGREE
    heavy_root = est.heaviest_root_work >= AUTO_PIVOT_MIN_ROOT_WORK
    slow = work >= AUTO_PIVOT_MIN_WORK or (heavy_root and small_roots)
    if slow and est.pivot_branching <= AUTO_PIVOT_MAX_BRANCHING:
        return "pivot"
    shallow = kmax <= AUTO_PIVOT_SHALLOW_K
    if shallow and work * est.root_degree >= AUTO_PIVOT_MIN_SHALLOW_COST:
        return "pivot"
    deep = kmax >= AUTO_PIVOT_DEEP_K and work >= AUTO_PIVOT_DEEP_MIN_WORK
    if deep and small_roots:
        return "pivot"
    return "kcminer"


def auto_local_method(dag: DAG, k: int) -> str:
    """The method ``clique_counts_per_vertex(method="auto")`` stands for
    (see AUTO_LOCAL_PIVOT_ALWAYS_K)."""
    if work_bounds(dag, k)[0] < min(AUTO_LOCAL_ALWAYS_MIN_WORK, AUTO_LOCAL_PIVOT_MIN_WORK):
        return "kcminer"  # no estimate below this bound can pivot
    est = clique_cost_estimate(dag, k)
    work = est.enumeration_work
    if k >= AUTO_LOCAL_PIVOT_ALWAYS_K and work >= AUTO_LOCAL_ALWAYS_MIN_WORK:
        return "pivot"
    if work >= AUTO_LOCAL_PIVOT_MIN_WORK and est.pivot_branching <= AUTO_LOCAL_PIVOT_MAX_BRANCHING:
        return "pivot"
    return "kcminer"


def work_bounds(dag: DAG, k: int) -> tuple[float, float, float]:
    """Upper bounds of :func:`clique_cost_estimate`'s ``enumeration_work``,
    ``heaviest_root_work`` and ``enumeration_work * root_degree`` from the
    out-degrees alone.

    Each root v's estimated s-cliques, ``C(d+(v), s - 1) p(v)^C(s-1, 2)``,
    are at most ``C(d+(v), s - 1)`` (p <= 1), so w(v), the sum over
    s = 3..k-1 of those binomials, bounds v's share of the estimate's work:
    the sum of w(v) bounds the work, w at the largest out-degree the heaviest
    root, and the sum of w(v) d+(v) the work times the work-weighted root
    degree. They come from :func:`kcjax.graph.orient.out_degree_moments`
    (the read-back that also gives the largest out-degree), so where they
    already rule pivoting out, ``auto`` decides without the estimate.

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
