"""BFS over several devices: a 1-D vertex partition under ``shard_map``.

Device d owns the vertices ``[d * c, (d + 1) * c)`` (c = n / devices rounded
up to whole 32-bit words) and the CSR rows of those vertices. Each level every
device packs its part of the frontier into a bitmap (1 bit per vertex),
``all_gather`` assembles the whole frontier bitmap everywhere, and each device
pulls for its own vertices: an unvisited vertex joins the next frontier when a
neighbour's bit is set (a bottom-up step; the graph is undirected, so a
vertex's row lists the vertices that reach it). A ``psum`` of the new
vertices ends the loop. Pure JAX inside the map, so it runs on any platform.
"""

from __future__ import annotations

import functools
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from jax.sharding import Mesh, NamedSharding, PartitionSpec

from kcjax.graph.graph import Graph
from kcjax.parallel import constrain, mesh_axis, shard_map, to_global
from kcjax.traversal.bfs import BFSResult, _as_roots

_WORD = 32


def bfs_sharded(
    graph: Graph,
    sources: Any,
    mesh: Mesh,
    *,
    axis_name: Any = None,
    parents: bool = True,
) -> BFSResult:
    """BFS from each of ``sources`` with the vertices split over a mesh axis.

    The partition is built on the host from the concrete graph (its shard
    sizes are static shapes), so call it eagerly; the traversal itself is one
    jitted ``shard_map``.

    Args:
      graph: the graph (concrete).
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
    if not isinstance(graph, Graph):
        raise TypeError(f"graph must be a kcjax.Graph, got {type(graph).__name__}")
    axis = mesh_axis(mesh, axis_name)
    roots = _as_roots(sources, graph.num_nodes, single=False)
    parts = int(mesh.shape[axis])
    n = graph.num_nodes
    chunk = max(_WORD, -(-n // (parts * _WORD)) * _WORD)
    indptr = np.asarray(graph.indptr).astype(np.int64)
    indices = np.asarray(graph.indices)
    bounds = np.minimum(np.arange(parts + 1) * chunk, n)
    starts, ends = indptr[bounds[:-1]], indptr[bounds[1:]]
    width = max(1, int(np.max(ends - starts)))
    local_rows = np.full((parts, width), chunk, np.int32)  # padding: dropped by the scatters
    cols = np.zeros((parts, width), np.int32)
    for d in range(parts):
        e = int(ends[d] - starts[d])
        deg = np.diff(indptr[bounds[d] : bounds[d + 1] + 1])
        local_rows[d, :e] = np.repeat(np.arange(len(deg), dtype=np.int32), deg)
        cols[d, :e] = indices[starts[d] : ends[d]]
    spec = NamedSharding(mesh, PartitionSpec(axis))
    local_rows = to_global(local_rows.reshape(-1), spec)
    cols = to_global(cols.reshape(-1), spec)
    dist, par = _traverse(mesh, axis, chunk, parents, n, local_rows, cols, roots)
    par = par if parents else None
    return BFSResult(distances=dist, parents=par, depth=jnp.max(dist, axis=-1, initial=-1))


@functools.partial(jax.jit, static_argnums=(0, 1, 2, 3, 4))
def _traverse(
    mesh: Mesh,
    axis: Any,
    chunk: int,
    parents: bool,
    n: int,
    local_rows: jax.Array,
    cols: jax.Array,
    roots: jax.Array,
) -> tuple[jax.Array, jax.Array]:
    P = PartitionSpec

    def body(local_rows: jax.Array, cols: jax.Array, roots: jax.Array):
        me = jax.lax.axis_index(axis)
        ids = me * chunk + jnp.arange(chunk, dtype=jnp.int32)
        s = roots.shape[0]
        dist = jnp.where(ids[None, :] == roots[:, None], 0, -1).astype(jnp.int32)
        par = jnp.where(dist == 0, ids[None, :], -1) if parents else jnp.zeros((s, 0), jnp.int32)
        weights = jnp.left_shift(jnp.uint32(1), jnp.arange(_WORD, dtype=jnp.uint32))

        def step(state):
            level, dist, par, frontier, _ = state
            packed = jnp.sum(
                frontier.reshape(s, chunk // _WORD, _WORD).astype(jnp.uint32) * weights,
                axis=-1,
                dtype=jnp.uint32,
            )
            bitmap = jax.lax.all_gather(packed, axis, axis=1, tiled=True)
            bits = jnp.right_shift(bitmap[:, cols >> 5], (cols & 31).astype(jnp.uint32)) & 1
            hit = bits.astype(jnp.bool_) & (local_rows < chunk)[None, :]
            reach = jnp.zeros((s, chunk), jnp.bool_).at[:, local_rows].max(hit, mode="drop")
            new = reach & (dist < 0)
            dist = jnp.where(new, level + 1, dist)
            if parents:
                claim = (
                    jnp.full((s, chunk), -1, jnp.int32)
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
        body, mesh, in_specs=(P(axis), P(axis), P()), out_specs=(P(None, axis), P(None, axis))
    )
    dist, par = fn(local_rows, cols, roots)
    whole = NamedSharding(mesh, P())
    dist = constrain(dist, whole)[:, :n]
    return dist, (constrain(par, whole)[:, :n] if parents else par)
