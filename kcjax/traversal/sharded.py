"""The pure-JAX BFS over a mesh: ``kcjax.bfs(..., mesh=, method="dense")``, the
baseline of the native multi-device BFS (:mod:`kcjax.traversal.mesh`).

The same 1-D vertex partition (:class:`~kcjax.graph.sharded.ShardedGraph`). Each
level every device packs its part of the frontier into a bitmap (1 bit per
vertex), ``all_gather`` assembles the whole frontier bitmap everywhere, and each
device pulls for its own vertices: an unvisited vertex joins the next frontier
when a neighbour's bit is set (a bottom-up step over every edge of the shard,
by segment ops; the graph is undirected, so a vertex's row lists the vertices
that reach it). A ``psum`` of the new vertices ends the loop. Pure JAX inside
the map, so it runs on any platform.
"""

from __future__ import annotations

import functools
from typing import Any

import jax
import jax.numpy as jnp
from jax.sharding import Mesh, NamedSharding, PartitionSpec

from kcjax.graph.graph import Graph, row_ids
from kcjax.graph.sharded import ShardedGraph
from kcjax.parallel import constrain, shard_map
from kcjax.traversal.bfs import BFSResult, bfs
from kcjax.traversal.mesh import shaped

_WORD = 32


def bfs_sharded(
    graph: Graph,
    sources: Any,
    mesh: Mesh,
    *,
    axis_name: Any = None,
    parents: bool = True,
) -> BFSResult:
    """BFS from each of ``sources`` with the vertices split over a mesh axis, in pure JAX.

    The same as ``kcjax.bfs(graph, sources=sources, mesh=mesh, method="dense")``:
    the baseline of the native multi-device BFS (``method="auto"``).

    Args:
      graph: the graph (concrete; or a ShardedGraph on ``mesh``).
      sources: int32[s] roots in ``[0, num_nodes)``.
      mesh: the device mesh.
      axis_name: the mesh axis to split the vertices over (``None``: the
        mesh's only axis).
      parents: also compute parents (for a vertex, its largest-id neighbour
        in the previous level).

    Returns:
      A :class:`BFSResult` with int32[s, n] distances (and parents) and
      int32[s] depths: the same distances as :func:`kcjax.bfs`.

    Raises:
      ValueError, TypeError: as :func:`kcjax.bfs` for bad sources; ValueError
        for a bad axis.
    """
    return bfs(
        graph, sources=sources, mesh=mesh, axis_name=axis_name, parents=parents, method="dense"
    )


@functools.partial(jax.jit, static_argnames=("parents",))
def bfs_dense_mesh(
    graph: ShardedGraph, roots: jax.Array, *, parents: bool
) -> tuple[jax.Array, jax.Array, jax.Array]:
    """Distances, parents and depths from ``roots`` int32[...] over the graph's mesh:
    int32[..., n] each (parents int32[..., 0] when not asked for) and int32[...]."""
    axis, c, n = graph.axis, graph.chunk, graph.num_nodes
    P = PartitionSpec
    roots = jnp.asarray(roots, jnp.int32)
    shape = roots.shape

    def body(indptr: jax.Array, cols: jax.Array, roots: jax.Array):
        me = jax.lax.axis_index(axis)
        ids = me * c + jnp.arange(c, dtype=jnp.int32)
        e = cols.shape[0]
        # Each entry's local row; padding entries get row c (dropped by the scatters).
        local_rows = jnp.where(jnp.arange(e) < indptr[-1], row_ids(indptr, e), c)
        s = roots.shape[0]
        dist = jnp.where(ids[None, :] == roots[:, None], 0, -1).astype(jnp.int32)
        par = jnp.where(dist == 0, ids[None, :], -1) if parents else jnp.zeros((s, 0), jnp.int32)
        weights = jnp.left_shift(jnp.uint32(1), jnp.arange(_WORD, dtype=jnp.uint32))

        def step(state):
            level, dist, par, frontier, _ = state
            packed = jnp.sum(
                frontier.reshape(s, c // _WORD, _WORD).astype(jnp.uint32) * weights,
                axis=-1,
                dtype=jnp.uint32,
            )
            bitmap = jax.lax.all_gather(packed, axis, axis=1, tiled=True)
            bits = jnp.right_shift(bitmap[:, cols >> 5], (cols & 31).astype(jnp.uint32)) & 1
            hit = bits.astype(jnp.bool_) & (local_rows < c)[None, :]
            reach = jnp.zeros((s, c), jnp.bool_).at[:, local_rows].max(hit, mode="drop")
            new = reach & (dist < 0)
            dist = jnp.where(new, level + 1, dist)
            if parents:
                claim = (
                    jnp.full((s, c), -1, jnp.int32)
                    .at[:, local_rows]
                    .max(jnp.where(hit, cols[None, :], -1), mode="drop")
                )
                par = jnp.where(new, claim, par)
            more = jax.lax.psum(jnp.sum(new, dtype=jnp.int32), axis) > 0
            return level + 1, dist, par, new, more

        state = (jnp.int32(0), dist, par, dist == 0, jnp.bool_(True))
        _, dist, par, _, _ = jax.lax.while_loop(lambda st: st[4], step, state)
        return dist, par

    fn = shard_map(
        body, graph.mesh, in_specs=(P(axis), P(axis), P()), out_specs=(P(None, axis), P(None, axis))
    )
    dist, par = fn(graph.indptr, graph.cols, roots.reshape(-1))
    if graph.parts * c != n:
        whole = NamedSharding(graph.mesh, P())
        dist = constrain(dist, whole)[:, :n]
        par = constrain(par, whole)[:, :n] if parents else par
    return shaped(dist, par, shape)
