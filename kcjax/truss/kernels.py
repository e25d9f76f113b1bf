"""The edge index of a Graph and the typed wrappers of targets ``kcjax_truss`` and
``kcjax_truss_triangle_edges``.

Contracts of the targets: ffi/include/kcjax/truss/truss.h (policy.h, args.h beside it).
"""

from __future__ import annotations

import dataclasses
import functools

import jax
import jax.numpy as jnp
import numpy as np

from kcjax._native import call
from kcjax.graph.graph import Graph, home_device, int32_on, row_ids
from kcjax.graph.orient import DAG, memo, orient

#: Support-counting passes of the native target (kcjax::SupportMethod).
SUPPORT_METHODS: dict[str, int] = {
    "dag": 0,  # each triangle once from the degree-oriented DAG, +1 to its three edges
    "edge": 1,  # one warp per edge intersects both full neighbour lists
    "vertex": 2,  # the seed's vertex-strided pass, the vertex's list in shared memory
    # per pass by its edge count: "edge" for short lists, else "dag" (TrussPolicy::kEdgeList)
    "auto": 3,
}

MODE_SUPPORT, MODE_DECOMPOSE, MODE_KTRUSS, MODE_HINDEX = 0, 1, 2, 3

#: TrussPolicy::kHIndexMaxEntries: the largest triangle store the h-index builds.
MAX_STORE_ENTRIES = 2**31 - 1


@dataclasses.dataclass(frozen=True)
class EdgeIndex:
    """Maps between a Graph's CSR entries, its edge list and its degree-oriented DAG.

    Attributes:
      src, dst: int32[m], ``graph.edges()`` (src < dst): edge e is {src[e], dst[e]}.
      eid: int32[2m], the edge id of every symmetric CSR entry.
      dag: the degree-oriented DAG (:func:`kcjax.orient`).
      dag_eid: int32[m], the edge id of every DAG edge.
    """

    src: jax.Array
    dst: jax.Array
    eid: jax.Array
    dag: DAG
    dag_eid: jax.Array


jax.tree_util.register_dataclass(
    EdgeIndex, data_fields=["src", "dst", "eid", "dag", "dag_eid"], meta_fields=[]
)


@jax.jit
def build_edge_index(graph: Graph) -> EdgeIndex:
    """The :class:`EdgeIndex` of ``graph``; jit-able (two sorts on the device).

    Graph.edges() lists the pairs (lo, hi), lo < hi, sorted, so the rank of a
    pair in (lo, hi) order is its edge id.
    """
    nnz = graph.indices.shape[0]
    src, dst = graph.edges()
    rows = row_ids(graph.indptr, nnz)
    lo = jnp.minimum(rows, graph.indices)
    hi = jnp.maximum(rows, graph.indices)
    _, _, pos = jax.lax.sort((lo, hi, jnp.arange(nnz, dtype=jnp.int32)), num_keys=2)
    eid = jnp.zeros(nnz, jnp.int32).at[pos].set(jnp.arange(nnz, dtype=jnp.int32) // 2)
    dag = orient(graph, order="degree")
    a = dag.order[dag.src]
    b = dag.order[dag.indices]
    m = dag.indices.shape[0]
    _, _, dpos = jax.lax.sort(
        (jnp.minimum(a, b), jnp.maximum(a, b), jnp.arange(m, dtype=jnp.int32)), num_keys=2
    )
    dag_eid = jnp.zeros(m, jnp.int32).at[dpos].set(jnp.arange(m, dtype=jnp.int32))
    return EdgeIndex(src=src, dst=dst, eid=eid, dag=dag, dag_eid=dag_eid)


def edge_index(graph: Graph) -> EdgeIndex:
    """:func:`build_edge_index`, memoized per eager Graph."""
    return memo(graph, "edge_index", lambda: build_edge_index(graph))


@jax.jit
def degree_bound_parts(graph: Graph, src: jax.Array, dst: jax.Array) -> jax.Array:
    """Per 1024 edges, the sums of the high and low 16 bits of min(deg u, deg v) - 1
    (int32[2, ceil(m / 1024)], each sum below 2^26: no int32 overflow)."""
    deg = jnp.diff(graph.indptr)
    x = jnp.minimum(deg[src], deg[dst]) - 1
    x = jnp.pad(x, (0, -x.shape[0] % 1024)).reshape(-1, 1024)
    return jnp.stack([jnp.sum(x >> 16, axis=1), jnp.sum(x & 0xFFFF, axis=1)])


def store_entries(graph: Graph) -> int:
    """The ``store_entries`` attribute of a kHIndex call: the degree bound of the
    triangle store (:func:`degree_bound`) for an eager graph on one device, -1 for a
    traced graph or a bound past :data:`MAX_STORE_ENTRIES` (the handler then reads
    the store's exact size back)."""
    if home_device(graph.indices) is None:
        return -1
    bound = degree_bound(graph)
    return bound if bound <= MAX_STORE_ENTRIES else -1


def degree_bound(graph: Graph) -> int:
    """Sum over edges {u, v} of min(deg u, deg v) - 1 (no edge lies in more
    triangles): the triangle store's size bound, a Python int; memoized per eager
    Graph. One small program and one read-back.

    Raises:
      TypeError: for a traced graph (under jit: compute it eagerly first).
    """
    if isinstance(graph.indices, jax.core.Tracer):
        raise TypeError("the store's size is computed eagerly: call it outside jax.jit")

    def bound() -> int:
        if graph.num_edges == 0:
            return 0
        hi, lo = np.asarray(degree_bound_parts(graph, *edge_list(graph)), np.int64)
        return int(hi.sum()) * 65536 + int(lo.sum())

    return memo(graph, "truss_degree_bound", bound)


def edge_list(graph: Graph) -> tuple[jax.Array, jax.Array]:
    """``graph.edges()``, memoized per eager Graph."""
    return memo(graph, "edges", graph.edges)


def k_argument(graph: Graph, k: int | jax.Array) -> int | jax.Array:
    """The ``k`` to pass to :func:`truss_call`: an eager int becomes an int32[1] kept on
    the graph's device (cached per k), so a call copies nothing to the device."""
    device = home_device(graph.indices)
    if isinstance(k, int) and device is not None:
        return int32_on((k,), device)
    return k


def no_core(graph: Graph) -> jax.Array:
    """The ``core`` argument of :func:`truss_call` without the prefilter: int32[0], kept
    on an eager graph's device (cached), so a call creates no array."""
    device = home_device(graph.indices)
    return jnp.zeros(0, jnp.int32) if device is None else int32_on((), device)


@functools.partial(jax.jit, static_argnames=("mode", "method", "num_threads", "store_entries"))
def truss_call(
    graph: Graph,
    index: EdgeIndex,
    core: jax.Array,
    k: jax.Array,
    *,
    mode: int,
    method: int,
    num_threads: int,
    store_entries: int = -1,
) -> jax.Array:
    """Calls target ``kcjax_truss``; ``k`` is an int32 scalar or int32[1] (runtime);
    ``store_entries``: :func:`store_entries` for ``MODE_HINDEX`` (-1: unknown).

    Returns bool[m] for ``MODE_KTRUSS``, int32[m] for the other modes.
    """
    m = graph.num_edges
    dag = index.dag
    return call(
        "kcjax_truss",
        jax.ShapeDtypeStruct((m,), jnp.bool_ if mode == MODE_KTRUSS else jnp.int32),
        graph.indptr,
        graph.indices,
        index.eid,
        index.src,
        index.dst,
        dag.indptr,
        dag.indices,
        dag.src,
        index.dag_eid,
        core,
        jnp.reshape(jnp.asarray(k, jnp.int32), (1,)),
        mode=np.int32(mode),
        method=np.int32(method),
        num_threads=np.int32(num_threads),
        store_entries=np.int64(store_entries),
    )


@functools.partial(jax.jit, static_argnames=("num_threads",))
def triangle_edges_call(
    graph: Graph, src: jax.Array, dst: jax.Array, *, num_threads: int = 0
) -> jax.Array:
    """Calls target ``kcjax_truss_triangle_edges``: bool[m], edge e = {src[e], dst[e]}
    (``graph.edges()``) lies in a triangle (the 3-truss)."""
    return call(
        "kcjax_truss_triangle_edges",
        jax.ShapeDtypeStruct((graph.num_edges,), jnp.bool_),
        graph.indptr,
        graph.indices,
        src,
        dst,
        num_threads=np.int32(num_threads),
    )
