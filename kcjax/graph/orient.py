"""Orientation: an undirected Graph becomes a DAG by a total vertex order.

The DAG relabels every vertex by its rank, so u -> v iff u < v: rows are
sorted, every entry exceeds its row, and each clique is found once, from its
lowest-ranked vertex. Everything here runs on the device and is jit-able (the
DAG of a graph with m edges has exactly m edges, so shapes are static).
"""

from __future__ import annotations

import dataclasses
import functools
import weakref
from collections.abc import Callable
from typing import Literal, NamedTuple, TypeVar

import jax
import jax.numpy as jnp
import numpy as np

from kcjax._args import check_choice
from kcjax.graph.graph import Graph, row_ids

_T = TypeVar("_T")

Order = Literal["degree", "degeneracy"]
ORDERS: tuple[str, ...] = ("degree", "degeneracy")


@dataclasses.dataclass(frozen=True)
class DAG:
    """A degree- or degeneracy-oriented graph, vertices relabeled by rank.

    Attributes:
      indptr: int32[num_nodes + 1] row pointers.
      indices: int32[num_edges] out-neighbours; row u sorted, every entry > u.
      src: int32[num_edges] the row of every edge (``src[e] = u``).
      order: int32[num_nodes] original vertex id of every rank.
      num_nodes: number of vertices (static).
    """

    indptr: jax.Array
    indices: jax.Array
    src: jax.Array
    order: jax.Array
    num_nodes: int

    @property
    def num_edges(self) -> int:
        """Number of edges (static)."""
        return int(self.indices.shape[0])

    def __repr__(self) -> str:
        return f"DAG(num_nodes={self.num_nodes:,}, num_edges={self.num_edges:,})"

    def out_degrees(self) -> jax.Array:
        """int32[num_nodes]: out-degree of every rank."""
        return jnp.diff(self.indptr)

    def max_out_degree(self) -> jax.Array:
        """int32 scalar: the largest out-degree (0 for an empty graph)."""
        return jnp.max(self.out_degrees(), initial=0)


jax.tree_util.register_dataclass(
    DAG, data_fields=["indptr", "indices", "src", "order"], meta_fields=["num_nodes"]
)

#: What the public functions accept: a Graph (oriented on the way in) or a DAG.
GraphLike = Graph | DAG

_DAG_CACHE: dict[tuple[int, str], tuple[weakref.ref, object]] = {}


def as_dag(graph: GraphLike, order: Order = "degree") -> DAG:
    """``graph`` itself if it is a DAG, else ``orient(graph, order)``, memoized per
    eager Graph and order (so the DAG's own memoized facts, such as its out-degree
    moments, are computed once too; :func:`clear_memo` forgets it).

    Raises:
      TypeError: for anything but a :class:`Graph` or a :class:`DAG`.
      ValueError: for an unknown order.
    """
    if isinstance(graph, DAG):
        return graph
    if isinstance(graph, Graph):
        check_choice(order, "order", ORDERS)
        return memo(graph, f"dag_{order}", lambda: orient(graph, order=order))
    raise TypeError(f"expected a kcjax.Graph or kcjax.DAG, got {type(graph).__name__}")


def is_traced(dag: DAG) -> bool:
    """Whether the DAG's arrays are tracers (inside ``jax.jit``)."""
    return isinstance(dag.indices, jax.core.Tracer)


def memo(graph: Graph | DAG, name: str, compute: Callable[[], _T]) -> _T:
    """``compute()``, memoized per Graph or DAG (keyed by its live ``indices`` array).

    Eager facts about a graph (a DAG's largest out-degree, transitivity,
    densest core; a Graph's core numbers and edge index) are computed once
    however many calls ask for them. Traced graphs (under jit) are never
    memoized.
    """
    if isinstance(graph.indices, jax.core.Tracer):
        return compute()
    key = (id(graph.indices), name)
    hit = _DAG_CACHE.get(key)
    if hit is not None and hit[0]() is graph.indices:
        return hit[1]
    value = compute()
    forget = functools.partial(_forget, _DAG_CACHE, key)
    _DAG_CACHE[key] = (weakref.ref(graph.indices, forget), value)
    return value


def _forget(cache: dict, key: tuple[int, str], _: object) -> None:
    """The weakref callback of a memo entry (the cache bound early: it may run at
    interpreter exit, after the module's globals are gone)."""
    cache.pop(key, None)


def clear_memo() -> None:
    """Forgets every memoized DAG fact (benchmarks time their first computation)."""
    _DAG_CACHE.clear()


def max_out_degree(dag: DAG) -> int:
    """The DAG's largest out-degree as a Python int (eager, memoized per DAG)."""
    return out_degree_moments(dag).max_degree


#: :func:`out_degree_moments` sums binomials C(d, j) for j up to this.
MOMENT_MAX_J = 17


class OutDegreeMoments(NamedTuple):
    """Sums of binomials of the out-degrees (see :func:`out_degree_moments`).

    Attributes:
      max_degree: the largest out-degree (0 for an empty DAG).
      binomials: float64[MOMENT_MAX_J + 1]; ``binomials[j]`` is
        ``sum_v C(d+(v), j)`` for j >= 2 (0 below; float32 sums, capped at 1e30).
      weighted: the same for ``sum_v C(d+(v), j) d+(v)``.
    """

    max_degree: int
    binomials: np.ndarray
    weighted: np.ndarray


def out_degree_moments(dag: DAG) -> OutDegreeMoments:
    """The DAG's largest out-degree and binomial sums of its out-degrees.

    sum_v C(d+(v), j) counts the j-subsets of out-neighbourhoods: an upper
    bound of the (j + 1)-cliques, which the clique counters' cost rule reads
    (:func:`kcjax.cliques.auto.work_bounds`). One small program and one read-back,
    eager, memoized per DAG (:func:`max_out_degree` reads it too).
    """

    def compute() -> OutDegreeMoments:
        top, sums = jax.device_get(_out_degree_moments(dag))
        sums = np.asarray(sums, np.float64)
        return OutDegreeMoments(int(top), sums[0], sums[1])

    return memo(dag, "out_degree_moments", compute)


@jax.jit
def _out_degree_moments(dag: DAG) -> tuple[jax.Array, jax.Array]:
    # Each C(d, j) row is reduced as it is made: memory stays a few float32[n]
    # (a stacked [MOMENT_MAX_J + 1, n] table took 2 GB for 20 M vertices).
    d = dag.out_degrees().astype(jnp.float32)
    binom = jnp.ones_like(d)  # C(d, 0)
    plain, weighted = [], []
    for j in range(MOMENT_MAX_J + 1):
        plain.append(jnp.sum(binom))
        weighted.append(jnp.sum(jnp.minimum(binom * d, 1e30)))
        binom = jnp.minimum(jnp.where(d > j, binom * (d - j) / (j + 1), 0.0), 1e30)
    sums = jnp.stack([jnp.stack(plain), jnp.stack(weighted)])
    sums = jnp.minimum(sums, 1e30).at[:, :2].set(0.0)
    return dag.max_out_degree(), sums


@functools.partial(jax.jit, static_argnames="order")
def orient(graph: Graph, order: Order = "degree") -> DAG:
    """Orients ``graph`` by a total order of its vertices.

    Args:
      graph: the undirected graph.
      order: ``"degree"``: u -> v iff (deg u, u) < (deg v, v);
        ``"degeneracy"``: by core-peeling round (a degeneracy order: every
        out-degree is at most the degeneracy), ties by id.

    Returns:
      The DAG, vertices relabeled by rank.
    """
    n = graph.num_nodes
    ids = jnp.arange(n, dtype=jnp.int32)
    if order == "degree":
        _, perm = jax.lax.sort((graph.degrees(), ids), num_keys=2)
    elif order == "degeneracy":
        rounds, _ = _peel(graph)
        _, perm = jax.lax.sort((rounds, ids), num_keys=2)
    else:
        check_choice(order, "order", ORDERS)
    rank = jnp.zeros(n, jnp.int32).at[perm].set(ids)
    return _orient_by_rank(graph, rank, perm)


@jax.jit
def core_numbers(graph: Graph) -> jax.Array:
    """int32[num_nodes]: the core number of every vertex (k-core peeling)."""
    return _peel(graph)[1]


def degeneracy(graph: Graph) -> jax.Array:
    """int32 scalar: the graph's degeneracy (largest core number)."""
    return jnp.max(core_numbers(graph), initial=0)


def _orient_by_rank(graph: Graph, rank: jax.Array, perm: jax.Array) -> DAG:
    n, nnz, m = graph.num_nodes, graph.indices.shape[0], graph.num_edges
    ru = rank[row_ids(graph.indptr, nnz)]
    rv = rank[graph.indices]
    drop = (ru > rv).astype(jnp.int32)  # keep each edge once, low rank -> high rank
    _, src, dst = jax.lax.sort((drop, ru, rv), num_keys=3)
    src, dst = src[:m], dst[:m]
    counts = jnp.zeros(n, jnp.int32).at[src].add(1)
    indptr = jnp.concatenate([jnp.zeros(1, jnp.int32), jnp.cumsum(counts, dtype=jnp.int32)])
    return DAG(indptr=indptr, indices=dst, src=src, order=perm, num_nodes=n)


def _peel(graph: Graph) -> tuple[jax.Array, jax.Array]:
    """Batch core peeling. Returns (removal round, core number), int32[n] each.

    Each round removes every live vertex whose live degree is at most the
    current level; a vertex's live neighbours at its round are exactly the
    neighbours removed in the same or a later round, so ordering by round gives
    out-degrees bounded by the level, i.e. by the degeneracy.
    """
    rows = row_ids(graph.indptr, graph.indices.shape[0])
    return _peel_arcs(rows, graph.indices, graph.degrees(), graph.num_nodes)


@jax.jit
def dag_core_numbers(dag: DAG) -> jax.Array:
    """int32[num_nodes]: the core number of every vertex of the DAG's
    undirected graph, indexed by rank (as the DAG's vertices)."""
    rows = jnp.concatenate([dag.src, dag.indices])
    cols = jnp.concatenate([dag.indices, dag.src])
    degrees = jnp.zeros(dag.num_nodes, jnp.int32).at[rows].add(1)
    return _peel_arcs(rows, cols, degrees, dag.num_nodes)[1]


def _peel_arcs(
    rows: jax.Array, cols: jax.Array, degrees: jax.Array, n: int
) -> tuple[jax.Array, jax.Array]:
    """_peel over the arcs rows[i] -> cols[i] (every undirected edge both ways)."""
    big = jnp.iinfo(jnp.int32).max

    def cond(state):
        alive = state[0]
        return jnp.any(alive)

    def body(state):
        alive, deg, level, rnd, rounds, cores = state
        level = jnp.maximum(level, jnp.min(jnp.where(alive, deg, big), initial=big))
        peel = alive & (deg <= level)
        rounds = jnp.where(peel, rnd, rounds)
        cores = jnp.where(peel, level, cores)
        alive = alive & ~peel
        lost = jax.ops.segment_sum(peel[cols].astype(jnp.int32), rows, num_segments=n)
        return alive, deg - lost, level, rnd + 1, rounds, cores

    zeros = jnp.zeros(n, jnp.int32)
    state = (jnp.ones(n, bool), degrees, jnp.int32(0), jnp.int32(0), zeros, zeros)
    _, _, _, _, rounds, cores = jax.lax.while_loop(cond, body, state)
    return rounds, cores
