"""The inputs of a matching plan, each prepared once and reused: the data graph's
prepared side (padded to a shape bucket, memoized per graph and labels), the query's
spec and packed array, the switches as a device array, and the compiled programs that
plan and count. :func:`prepare_match` builds a plan from them; the counting, listing
and sharded front ends (``count.py``, ``sharded.py``) call them.
"""

from __future__ import annotations

import functools
import weakref
from typing import Any, Literal

import jax
import jax.numpy as jnp
import numpy as np

from kcjax._args import as_int, check_choice
from kcjax.graph.graph import Graph
from kcjax.graph.labeled import LabeledGraph
from kcjax.graph.orient import memo
from kcjax.match import kernels
from kcjax.match import plan as _plan
from kcjax.match import prep as _prep
from kcjax.match import query as _query
from kcjax.match.plan import Order, Prepared, Switches
from kcjax.match.prep import GraphPrep
from kcjax.match.query import QuerySpec, query_spec

Method = Literal["dfs", "prefix_tree", "flat", "dense"]
#: Matching methods (``kcjax.MATCH_METHODS``), the default first: the native
#: depth-first kernels ("dfs"); level-by-level expansion in JAX with partial
#: embeddings as a prefix tree ({vid, parent}) or flat rows; a dense
#: adjacency-matrix formulation for small graphs.
METHODS: tuple[str, ...] = ("dfs", "prefix_tree", "flat", "dense")
#: Matching orders (``kcjax.MATCH_ORDERS``), the default first.
ORDERS: tuple[str, ...] = tuple(_plan.ORDER_CODES)


def check(graph: Any, method: str, order: str) -> None:
    if not isinstance(graph, LabeledGraph):
        raise TypeError(
            f"graph must be a kcjax LabeledGraph (kcjax.load_labeled, LabeledGraph.from_networkx),"
            f" got {type(graph).__name__}"
        )
    check_choice(method, "method", METHODS)
    check_choice(order, "order", ORDERS)


def round_up(x: int) -> int:
    """Shape bucket: powers of two up to 2^10, then steps of an eighth of a power of two."""
    x = max(int(x), 32)
    if x <= 1 << 10:
        return 1 << (x - 1).bit_length()
    step = 1 << ((x - 1).bit_length() - 3)
    return -(-x // step) * step


def traced(data: LabeledGraph) -> bool:
    return isinstance(data.labels, jax.core.Tracer) or isinstance(
        data.graph.indices, jax.core.Tracer
    )


def graph_prep(data: LabeledGraph) -> GraphPrep:
    """The data graph's :class:`~kcjax.match.prep.GraphPrep`, built once per graph.

    Eagerly the graph is padded to a shape bucket (isolated padding vertices,
    never candidates; padding CSR entries past indptr[n]) so that one
    compilation serves every graph of a bucket, and the result is memoized
    per (graph, labels) (:func:`kcjax.clear_memo` forgets it). Traced graphs
    are prepared inline, unpadded.
    """
    if traced(data):
        return _prep.graph_prep(data, jnp.int32(data.num_nodes))
    table = memo(data.graph, "match_graph_prep", dict)
    hit = table.get(id(data.labels))
    if hit is not None and hit[0]() is data.labels:
        return hit[1]
    n, e = data.graph.num_nodes, int(data.graph.indices.shape[0])
    prep = _padded_prep(data, np.int32(n), n_pad=round_up(n), e_pad=round_up(e))
    table[id(data.labels)] = (weakref.ref(data.labels), prep)
    return prep


@functools.partial(jax.jit, static_argnames=("n_pad", "e_pad"))
def _padded_prep(data: LabeledGraph, num_valid: jax.Array, *, n_pad: int, e_pad: int) -> GraphPrep:
    """:func:`kcjax.match.prep.graph_prep` of ``data`` padded to n_pad vertices and
    e_pad CSR entries, in one program (padding vertices are isolated)."""
    g = data.graph
    pad_v, pad_e = n_pad - g.num_nodes, e_pad - g.indices.shape[0]
    padded = LabeledGraph(
        graph=Graph(
            jnp.pad(g.indptr, (0, pad_v), mode="edge"), jnp.pad(g.indices, (0, pad_e)), n_pad
        ),
        labels=jnp.pad(data.labels, (0, pad_v)),
    )
    return _prep.graph_prep(padded, num_valid)


def query_of(query: LabeledGraph | QuerySpec) -> QuerySpec:
    """:func:`~kcjax.match.query.query_spec`, memoized per query graph (no transfer per call)."""
    if isinstance(query, QuerySpec) or not isinstance(query, LabeledGraph) or traced(query):
        return query_spec(query)
    table = memo(query.graph, "match_query_spec", dict)
    hit = table.get(id(query.labels))
    if hit is not None and hit[0]() is query.labels:
        return hit[1]
    spec = query_spec(query)
    table[id(query.labels)] = (weakref.ref(query.labels), spec)
    return spec


@functools.lru_cache(maxsize=256)
def components(spec: QuerySpec) -> int:
    return spec.components()


@functools.lru_cache(maxsize=256)
def _packed_on(spec: QuerySpec, sharding: Any) -> jax.Array:
    return jax.device_put(_query.pack(spec), sharding)


def packed(spec: QuerySpec, data: LabeledGraph) -> jax.Array:
    """The query's :func:`~kcjax.match.query.pack` array where ``data`` lives (cached)."""
    if traced(data):
        return jnp.asarray(_query.pack(spec))
    sharding = data.labels.sharding
    if len(sharding.device_set) != 1:
        return jnp.asarray(_query.pack(spec))
    return _packed_on(spec, jax.sharding.SingleDeviceSharding(next(iter(sharding.device_set))))


def switches(
    induced: bool,
    blacklist: bool,
    refine: bool,
    dominance: bool,
    order: str,
    symmetry: bool = False,
) -> Switches:
    return Switches(
        induced=bool(induced),
        blacklist=bool(blacklist),
        refine=bool(refine),
        dominance=bool(dominance),
        order=_plan.ORDER_CODES[order],
        symmetry=bool(symmetry),
    )


@functools.lru_cache(maxsize=64)
def _flags_on(fl: tuple[int, ...], sharding: Any) -> jax.Array:
    return jax.device_put(np.asarray(fl, np.int32), sharding)


def flags(sw: Switches, data: LabeledGraph) -> jax.Array:
    """The traced switches (:func:`~kcjax.match.plan.flags`) where ``data`` lives (cached)."""
    fl = _plan.flags(sw)
    sharding = None if traced(data) else data.labels.sharding
    if sharding is None or len(sharding.device_set) != 1:
        return jnp.asarray(fl)
    device = next(iter(sharding.device_set))
    return _flags_on(tuple(fl.tolist()), jax.sharding.SingleDeviceSharding(device))


def prepare_match(
    data: LabeledGraph,
    query: LabeledGraph | QuerySpec,
    *,
    induced: bool = False,
    blacklist: bool = True,
    refine: bool = True,
    dominance: bool = True,
    order: Order = "estimate",
    rounds: int | None = None,
    symmetry: bool = False,
) -> Prepared:
    """Pruned data graph and search plan of (data, query); jit-able in ``data``.

    See :mod:`kcjax.match.plan` for the stages and the switches; with
    ``symmetry`` the plan is one to count with (:func:`kcjax.match.kernels.count`
    applies its ``scale``), never to list. Eagerly the data graph is padded to
    a shape bucket (isolated padding vertices, never candidates), so the
    plan's vertex arrays may be longer than ``data``'s.
    ``rounds``: the most filter rounds (default
    :attr:`kcjax.match.plan.PlanPolicy.rounds`); they stop at the fixpoint.
    """
    check(data, "dfs", order)
    args, static = plan_inputs(
        data, query, induced, blacklist, refine, dominance, order, rounds, symmetry
    )
    return _plan.prepare_packed(*args, **static)


def plan_inputs(
    data: LabeledGraph,
    query: LabeledGraph | QuerySpec,
    induced: bool,
    blacklist: bool,
    refine: bool,
    dominance: bool,
    order: str,
    rounds: int | None,
    symmetry: bool = False,
) -> tuple[tuple[Any, Any, Any], dict[str, Any]]:
    """The plan's device inputs (graph side, packed query, switches; each cached) and
    its static options."""
    spec = query_of(query)
    rounds = _plan.POLICY.rounds if rounds is None else as_int(rounds, "rounds", minimum=0)
    sw = switches(induced, blacklist, refine, dominance, order, symmetry)
    static = dict(
        q=spec.size, comps=components(spec), blacklist=sw.blacklist, order=sw.order, rounds=rounds
    )
    return (graph_prep(data), packed(spec, data), flags(sw, data)), static


def _plan_count(
    gp: GraphPrep,
    packed: jax.Array,
    fl: jax.Array,
    *,
    q: int,
    comps: int,
    blacklist: bool,
    order: int,
    rounds: int,
    num_threads: int,
) -> tuple[Prepared, jax.Array]:
    """The plan (on the data graph's prepared side) and its count, uint32[4] limbs."""
    sw = _plan.traced_switches(blacklist, order, fl)
    p = _plan.plan(gp, _query.unpack(packed, q), sw, comps=comps, rounds=rounds)
    return p, kernels.count(p, num_threads=num_threads)


_PLAN_STATIC = ("q", "comps", "blacklist", "order", "rounds", "num_threads")


@functools.partial(jax.jit, static_argnames=_PLAN_STATIC)
def plan_and_count(gp: GraphPrep, packed: jax.Array, fl: jax.Array, **static: Any):
    """The plan and its count in one program, for a listing sized by the count."""
    return _plan_count(gp, packed, fl, **static)


@functools.partial(jax.jit, static_argnames=_PLAN_STATIC)
def count_program(gp: GraphPrep, packed: jax.Array, fl: jax.Array, **static: Any):
    """Plan and search of one count in one program: uint32[4] limbs (the plan's
    arrays stay inside the program)."""
    return _plan_count(gp, packed, fl, **static)[1]
