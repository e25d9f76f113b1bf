"""Breadth-first search: the public entry point and its result type."""

from __future__ import annotations

import dataclasses
import functools
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from jax.sharding import Mesh, NamedSharding, PartitionSpec

from kcjax._args import check_choice
from kcjax.graph.graph import Graph, home_device, int32_on
from kcjax.graph.orient import memo
from kcjax.graph.sharded import ShardedGraph, degree_ordered, shard_graph
from kcjax.traversal import dense
from kcjax.traversal.kernels import (
    BATCHES,
    DIRECTIONS,
    GRID_BITMAP_MIN_VERTICES,
    NATIVE_METHODS,
    bfs_native,
    degree_ordered_indices,
)
from kcjax.traversal.mesh import bfs_mesh

#: Every BFS method, the default first: ``"auto"`` (``"cluster"`` on small
#: graphs, else ``"enterprise"``), ``"cluster"``, then the native ladder from
#: ``"enterprise"`` down to ``"scan"`` (see
#: :data:`kcjax.traversal.kernels.NATIVE_METHODS`) and ``"dense"``, a pure-JAX
#: BFS (frontier as a bool vector, expansion by segment ops in a while loop).
METHODS: tuple[str, ...] = (
    "auto",
    "cluster",
    *(m for m in reversed(tuple(NATIVE_METHODS)) if m not in ("auto", "cluster")),
    "dense",
)


@jax.tree_util.register_dataclass
@dataclasses.dataclass(frozen=True)
class BFSResult:
    """The result of :func:`bfs`; a pytree (it can leave ``jax.jit``).

    Attributes:
      distances: int32[n] (one source) or int32[s, n] (``sources``): hops from
        the source, -1 for vertices it does not reach.
      parents: same shape, or ``None`` when not asked for: a BFS parent of
        every reached vertex (the source is its own parent, Graph500's
        convention), -1 for unreached ones. Any valid BFS parent may be
        returned, so parents can differ between platforms and methods;
        distances never do. Check parents with :func:`validate_bfs_tree`.
      depth: int32[] or int32[s]: the largest distance (the source's
        eccentricity within its component).
    """

    distances: jax.Array
    parents: jax.Array | None
    depth: jax.Array


@jax.tree_util.register_dataclass
@dataclasses.dataclass(frozen=True)
class BFSGraph:
    """A graph prepared for :func:`bfs` by :func:`prepare_bfs`; a pytree (pass it
    through ``jax.jit`` where the traversal is jitted with the graph as an argument).

    Attributes:
      graph: the :class:`Graph`.
      indices: int32[2 * num_edges]: ``graph.indices`` with every row ordered by
        neighbour degree, largest first (ties in id order), read with
        ``graph.indptr``.
    """

    graph: Graph
    indices: jax.Array


def prepare_bfs(graph: Graph) -> BFSGraph:
    """The graph with its adjacency ordered for the GPU's bottom-up search.

    A bottom-up level stops at a vertex's first frontier neighbour; with the
    largest-degree neighbours first it meets the frontier's hubs at once (on a
    Kronecker graph's first bottom-up level 2.3-5x fewer vertices are left to
    longer searches). Distances do not change; parents may (any valid BFS
    parent). One segmented sort of the 2m entries (memory: a second copy of
    the columns). Eagerly, :func:`bfs` prepares a concrete graph of at least
    2^20 vertices on a GPU by itself (method ``"auto"``, one traversal per
    source: one source or ``batch="each"``; once per graph: memoized,
    :func:`kcjax.clear_memo` forgets it); a jitted traversal that
    takes the graph as an argument should take a BFSGraph instead.

    A :class:`~kcjax.graph.sharded.ShardedGraph` gets the same order on its
    devices (:func:`kcjax.graph.sharded.degree_ordered`, memoized), returned
    as a ShardedGraph; an eager :func:`bfs` over a mesh of GPUs orders a graph
    of at least 2^20 vertices by itself.

    Args:
      graph: the graph.

    Returns:
      A :class:`BFSGraph` (a ShardedGraph for a ShardedGraph).

    Raises:
      TypeError: ``graph`` is not a Graph or ShardedGraph.
    """
    if isinstance(graph, ShardedGraph):
        return degree_ordered(graph)
    if not isinstance(graph, Graph):
        raise TypeError(f"graph must be a kcjax.Graph, got {type(graph).__name__}")
    return BFSGraph(graph=graph, indices=degree_ordered_indices(graph.indptr, graph.indices))


def bfs(
    graph: Graph | BFSGraph | ShardedGraph,
    source: Any = None,
    *,
    sources: Any = None,
    parents: bool = True,
    direction: str = "auto",
    method: str = "auto",
    batch: str = "bitset",
    hub_tau: int | None = None,
    mesh: Mesh | None = None,
    axis_name: Any = None,
) -> BFSResult:
    """Breadth-first search from one source or from many at once; jit-able.

    The graph is undirected (a :class:`Graph` is symmetric). On the GPU the
    whole traversal runs on the device (a persistent kernel; no host round
    trip per level). TEPS convention: a traversal covers the edges of the
    source's component, ``traversed_edges(graph, result.distances)`` counts
    each undirected edge once (Graph500); the Enterprise paper counts both
    directions (twice that number).

    With ``mesh`` (or a :class:`~kcjax.graph.sharded.ShardedGraph`) the
    vertices are split over the mesh's devices and every level runs the
    native steps on each device, the frontier exchanged by collectives
    (:mod:`kcjax.traversal.mesh`); the same distances as one device. The
    split is built on the devices once per graph and mesh (memoized, as
    :func:`kcjax.shard_graph`); a graph traced under ``jax.jit`` must be split
    outside (pass the ShardedGraph in). Sources are served one after another.

    Args:
      graph: the graph, or a :class:`BFSGraph` from :func:`prepare_bfs` (the
        native methods read its degree-ordered adjacency; see there for when
        a plain graph is prepared automatically), or a
        :class:`~kcjax.graph.sharded.ShardedGraph` (on its own mesh).
      source: one root vertex id (int or int32 scalar array). Under
        ``jax.vmap`` over ``source`` the traversals are batched as with
        ``sources``.
      sources: int32[s] roots instead of ``source``: results are [s, n].
      parents: also compute BFS parents.
      direction: ``"auto"`` (the method's rule: Enterprise's hub rule, go
        bottom-up when more than 30% of the hubs are in the frontier;
        ``"cluster"`` and ``"auto"`` from 2^20 vertices: Beamer's edge
        rule, bottom-up when the frontier's edges exceed 1/15 of the
        unexplored ones), ``"top_down"`` or
        ``"bottom_up"`` (forced every level, for the ablation). All give the
        same distances.
      method: one of :data:`METHODS`: ``"auto"`` (the default:
        ``"cluster"`` for graphs of at most 2^20 CSR entries whose bitmaps fit
        a cluster's shared memory, else the grid kernel: ``"enterprise"``,
        and from 2^20 vertices its bitmap variant, whose visited and
        frontier bitmaps stay in L2, whose bottom-up searches by bitmap
        words as ``"cluster"`` does, with Beamer's rule);
        ``"cluster"`` (one kernel runs the whole traversal on one thread
        block cluster, level state in shared memory; on the GPU a graph too
        large for it runs
        ``"enterprise"``); the ablation ladder ``"scan"`` -> ``"queue"`` ->
        ``"classes"`` -> ``"direction"`` -> ``"enterprise"``; or ``"dense"``
        (pure JAX). All give the same distances. The CPU handler runs the
        same level rule for every native method (its queues need no
        classes or cache).
      batch: for several sources: ``"bitset"`` (64 traversals per machine
        word share one scan per level) or ``"each"`` (one ``method``
        traversal per source; ``"cluster"`` runs one cluster per source,
        all in one launch).
      hub_tau: hub degree threshold τ of the hub rule (``None``: 4 ×
        average degree, at least 16); ``"cluster"`` has no hubs.
      mesh: a device mesh to split the graph over (``None``: one device,
        unless ``graph`` is a ShardedGraph). ``method`` ``"auto"`` (the
        native level steps) or ``"dense"`` (pure JAX: every level pulls over
        every edge of a shard; the baseline); no ``hub_tau``; ``batch`` does
        not apply; ``direction`` only for ``"auto"``.
      axis_name: the mesh axis to split over (``None``: the mesh's only axis).

    Returns:
      A :class:`BFSResult`.

    Raises:
      TypeError: ``graph`` is not a Graph, BFSGraph or ShardedGraph, or the
        sources are not integers.
      ValueError: for a source outside ``[0, num_nodes)`` given as a Python or
        numpy integer (a jax array is not read back to check: one out of range,
        traced or not, yields a row of -1), both or neither of
        ``source``/``sources``, or an unknown option; over a mesh also for a
        method other than ``"auto"``/``"dense"``, a ``hub_tau``, a traced Graph
        (split it outside the trace) or a ShardedGraph on another mesh than
        ``mesh``.
    """
    if mesh is not None or isinstance(graph, ShardedGraph):
        return _bfs_on_mesh(
            graph,
            source,
            sources,
            mesh=mesh,
            axis_name=axis_name,
            parents=parents,
            direction=direction,
            method=method,
            batch=batch,
            hub_tau=hub_tau,
        )
    prepared = graph if isinstance(graph, BFSGraph) else None
    if prepared is not None:
        graph = prepared.graph
    if not isinstance(graph, Graph):
        raise TypeError(f"graph must be a kcjax.Graph or BFSGraph, got {type(graph).__name__}")
    if (source is None) == (sources is None):
        raise ValueError("give exactly one of source (one root) or sources (int32[s] roots)")
    check_choice(method, "method", METHODS)
    check_choice(direction, "direction", DIRECTIONS)
    check_choice(batch, "batch", BATCHES)
    if hub_tau is not None and not 0 <= int(hub_tau) < 2**31:
        raise ValueError(f"hub_tau must be in [0, 2^31), got {hub_tau}")
    single = sources is None
    roots = _as_roots(source if single else sources, graph.num_nodes, single)
    if method == "dense":
        indices = graph.indices
    elif prepared is not None:
        indices = prepared.indices
    else:
        indices = _bottom_up_indices(graph, method, per_source=batch == "each" or roots.size == 1)
    device = home_device(indices)
    if isinstance(roots, np.integer) and device is not None:  # kept there: nothing copied
        roots = int32_on(int(roots), device)
    return _bfs_program(
        graph,
        indices,
        roots,
        method=method,
        direction=direction,
        batch=batch,
        parents=bool(parents),
        hub_tau=-1 if hub_tau is None else int(hub_tau),
    )


@functools.partial(jax.jit, static_argnames=("method", "direction", "batch", "parents", "hub_tau"))
def _bfs_program(
    graph: Graph,
    indices: jax.Array,
    roots: jax.Array,
    *,
    method: str,
    direction: str,
    batch: str,
    parents: bool,
    hub_tau: int,
) -> BFSResult:
    """The whole traversal as one program: the native (or dense) search, the result's
    shapes and its depth. An eager :func:`bfs` is one dispatch of it (a single source
    already on the device; several travel as its argument)."""
    roots = jnp.asarray(roots, jnp.int32)
    flat = roots.reshape(-1)
    if method == "dense":
        dist, par = dense.bfs_dense(graph, flat, parents=parents)
    else:
        dist, par = bfs_native(
            graph.indptr,
            indices,
            flat,
            method=NATIVE_METHODS[method],
            direction=DIRECTIONS[direction],
            batch=BATCHES[batch],
            parents=parents,
            hub_tau=hub_tau,
        )
    shape = (*roots.shape, graph.num_nodes)
    dist = dist.reshape(shape)
    par = par.reshape(shape) if parents else None
    return BFSResult(distances=dist, parents=par, depth=jnp.max(dist, axis=-1, initial=-1))


def _bfs_on_mesh(
    graph: Any,
    source: Any,
    sources: Any,
    *,
    mesh: Mesh | None,
    axis_name: Any,
    parents: bool,
    direction: str,
    method: str,
    batch: str,
    hub_tau: int | None,
) -> BFSResult:
    """:func:`bfs` over a mesh: checks, the memoized split, the traversal."""
    if isinstance(graph, BFSGraph):
        graph = graph.graph
    if isinstance(graph, ShardedGraph):
        if mesh is not None and (mesh != graph.mesh or (axis_name or graph.axis) != graph.axis):
            raise ValueError("the ShardedGraph is split over another mesh or axis than mesh=")
        sharded = graph
    elif isinstance(graph, Graph):
        sharded = shard_graph(graph, mesh, axis_name)
    else:
        raise TypeError(
            f"graph must be a kcjax.Graph, BFSGraph or ShardedGraph, got {type(graph).__name__}"
        )
    if (source is None) == (sources is None):
        raise ValueError("give exactly one of source (one root) or sources (int32[s] roots)")
    if method not in ("auto", "dense"):
        raise ValueError(f"over a mesh method must be 'auto' or 'dense', got {method!r}")
    check_choice(direction, "direction", DIRECTIONS)
    check_choice(batch, "batch", BATCHES)
    if hub_tau is not None:
        raise ValueError("hub_tau does not apply over a mesh (its rule counts edges, not hubs)")
    single = sources is None
    roots = _as_roots(source if single else sources, sharded.num_nodes, single)
    if isinstance(roots, np.integer):  # kept on the mesh: nothing copied per call
        roots = _root_on(int(roots), sharded.mesh)
    if (
        method == "auto"
        and sharded.num_nodes >= GRID_BITMAP_MIN_VERTICES
        and not isinstance(sharded.cols, jax.core.Tracer)
        and all(d.platform == "gpu" for d in sharded.mesh.devices.flat)
    ):
        sharded = degree_ordered(sharded)  # as a single GPU's "auto" (prepare_bfs)
    if method == "dense":
        from kcjax.traversal.sharded import bfs_dense_mesh  # imports this module

        dist, par, depth = bfs_dense_mesh(sharded, roots, parents=bool(parents))
    else:
        dist, par, depth = bfs_mesh(sharded, roots, direction=direction)
    return BFSResult(distances=dist, parents=par if parents else None, depth=depth)


@functools.lru_cache(maxsize=4096)
def _root_on(root: int, mesh: Mesh) -> jax.Array:
    """An int32 root replicated over ``mesh``, cached (as ``int32_on`` for one device);
    concrete also when first asked for inside a jit trace."""
    with jax.ensure_compile_time_eval():
        return jax.device_put(np.int32(root), NamedSharding(mesh, PartitionSpec()))


def traversed_edges(graph: Graph, distances: Any) -> int | np.ndarray | jax.Array:
    """Undirected edges of the traversed component(s), each counted once.

    The Graph500 TEPS numerator (the Enterprise paper counts twice this).

    Args:
      graph: the graph searched.
      distances: int32[n] or int32[s, n] from :func:`bfs`.

    Returns:
      The sum over reached vertices of their degree, halved: eagerly a Python
      int for int32[n] distances and int64[s] (numpy) for int32[s, n]; under
      jit an int32 array (int64 with x64), [] or [s].
    """
    traced = isinstance(graph.indices, jax.core.Tracer) or isinstance(distances, jax.core.Tracer)
    deg = graph.degrees().astype(jnp.int64 if jax.config.jax_enable_x64 else jnp.int32)
    reached = jnp.asarray(distances) >= 0
    # Degrees sum to 2m < 2^31 (int32 CSR), so the int32 sum cannot overflow.
    edges = jnp.sum(jnp.where(reached, deg, 0), axis=-1) // 2
    if traced:
        return edges
    host = np.asarray(edges, np.int64)
    return int(host) if host.ndim == 0 else host


def _bottom_up_indices(graph: Graph, method: str, per_source: bool) -> jax.Array:
    """The CSR columns the native call reads for a plain graph: for ``"auto"`` traversals
    run one per source (``per_source``; the bitset batch scans whole lists) on a concrete
    graph of at least GRID_BITMAP_MIN_VERTICES vertices on a GPU (the bitmap variant),
    :func:`prepare_bfs`'s order, memoized per graph; else the graph's own."""
    indices = graph.indices
    if (
        not per_source
        or method != "auto"
        or graph.num_nodes < GRID_BITMAP_MIN_VERTICES
        or isinstance(indices, jax.core.Tracer)
        or not any(d.platform == "gpu" for d in indices.devices())
    ):
        return indices
    return memo(graph, "bfs_degree_ordered", lambda: degree_ordered_indices(graph.indptr, indices))


def _as_roots(value: Any, num_nodes: int, single: bool) -> jax.Array | np.ndarray:
    """Checks source ids: their dtype and shape, and the values of Python or numpy
    integers (returned as numpy int32); a jax array is returned as it is, unread (the
    program makes it int32)."""
    what = "source" if single else "sources"
    if type(value) is int and single and 0 <= value < num_nodes:  # the common case, fast
        return np.int32(value)
    if isinstance(value, jax.Array):  # traced or on a device: checked without a read-back
        if not jnp.issubdtype(value.dtype, jnp.integer):
            raise TypeError(f"{what} must hold integer vertex ids, got dtype {value.dtype}")
        arr = value  # made int32 inside the program
    else:
        host = np.asarray(value)
        if host.dtype == bool or not np.issubdtype(host.dtype, np.integer):
            raise TypeError(f"{what} must hold integer vertex ids, got {host.dtype}")
        bad = (host < 0) | (host >= num_nodes)
        if np.any(bad):
            first = int(host.reshape(-1)[np.argmax(bad.reshape(-1))])
            raise ValueError(
                f"{what} must be vertex ids in [0, {num_nodes}), got {first}"
                + (" (the graph has no vertices)" if num_nodes == 0 else "")
            )
        arr = host.astype(np.int32)
    if single and arr.ndim != 0:
        raise ValueError(f"source must be one vertex id (a scalar), got shape {arr.shape}")
    if not single and arr.ndim != 1:
        raise ValueError(f"sources must be a 1-D array of vertex ids, got shape {arr.shape}")
    return arr
