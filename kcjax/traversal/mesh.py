"""BFS over the devices of a mesh with the native level steps (``kcjax.bfs(..., mesh=)``).

A :class:`~kcjax.graph.sharded.ShardedGraph` splits the vertices into
contiguous ranges, one per device. One ``shard_map`` runs the whole traversal:
a ``lax.while_loop`` over levels in which every device

1. takes the level's direction from global sums (the frontier's size and
   its degree sum, which travel with the frontier's words) with the
   single-GPU grid kernel's rule (Beamer's: bottom-up once
   the frontier's edges pass the unexplored ones / ``kClusterAlpha``, back to
   top-down when the frontier shrinks below n / ``kBackToTopDown``);
2. top-down: expands its own frontier vertices (``kcjax_bfs_mesh_push``: the
   unvisited neighbours, as a bitmap of the whole graph), exchanges the
   bitmap's slices with ``all_to_all`` and ORs what it receives (the pushes to
   its vertices from every device); bottom-up: takes all its unvisited vertices;
3. settles those candidates against the whole frontier
   (``kcjax_bfs_mesh_pull``, the single-GPU bitmap variant's bottom-up search:
   a candidate's first frontier neighbour is its parent);
4. ``all_gather`` of every device's words of the new frontier, their
   number and degree sum: the next level's whole frontier bitmap (n / 8 bytes), ORed
   into the visited bitmap.

Per level a device sends n / 8 bytes to gather the frontier and, top-down,
n / 8 more for the pushes.
"""

from __future__ import annotations

import functools

import jax
import jax.numpy as jnp
from jax.sharding import NamedSharding, PartitionSpec

from kcjax._native import bfs_policy
from kcjax.graph.sharded import ShardedGraph
from kcjax.parallel import constrain, shard_map
from kcjax.traversal.kernels import DIRECTIONS, mesh_pull, mesh_push

_WORD = 32


def bfs_mesh(
    graph: ShardedGraph, roots: jax.Array, *, direction: str
) -> tuple[jax.Array, jax.Array]:
    """Distances and parents from each root over the graph's mesh.

    Args:
      graph: the sharded graph.
      roots: int32[s] root ids (one out of ``[0, n)`` gives a row of -1).
      direction: a key of :data:`~kcjax.traversal.kernels.DIRECTIONS`.

    Returns:
      (dist int32[s, n], parent int32[s, n]), sharded over the mesh axis.
    """
    policy = bfs_policy()
    return _traverse(
        graph,
        jnp.asarray(roots, jnp.int32),
        direction=DIRECTIONS[direction],
        alpha=int(policy["cluster_alpha"]),
        beta=int(policy["back_to_top_down"]),
    )


def _pack(bits: jax.Array) -> jax.Array:
    """uint32[len(bits) / 32]: bool bits packed, bit i of word w for bits[32 w + i]."""
    weights = jnp.left_shift(jnp.uint32(1), jnp.arange(_WORD, dtype=jnp.uint32))
    return jnp.sum(bits.reshape(-1, _WORD).astype(jnp.uint32) * weights, axis=1, dtype=jnp.uint32)


@functools.partial(jax.jit, static_argnames=("direction", "alpha", "beta"))
def _traverse(
    graph: ShardedGraph, roots: jax.Array, *, direction: int, alpha: int, beta: int
) -> tuple[jax.Array, jax.Array]:
    axis, parts, c, n = graph.axis, graph.parts, graph.chunk, graph.num_nodes
    words = c // _WORD
    P = PartitionSpec

    def shard(indptr: jax.Array, cols: jax.Array, roots: jax.Array):
        me = jax.lax.axis_index(axis)
        base = me * c
        ids = base + jnp.arange(c, dtype=jnp.int32)
        owned = _pack(ids < n)  # the padding past n is never a candidate
        degree = jnp.diff(indptr)
        total = jax.lax.psum(indptr[-1].astype(jnp.float32), axis)

        def gather(words: jax.Array, stats: jax.Array) -> tuple[jax.Array, jax.Array, jax.Array]:
            """The whole frontier bitmap, its size (int32) and its edges (float32): each
            shard's words and its stats (size, degree sum) in one all_gather."""
            mine = jnp.concatenate([words, jax.lax.bitcast_convert_type(stats, jnp.uint32)])
            every = jax.lax.all_gather(mine, axis).reshape(parts, words.shape[0] + 2)
            stats = jax.lax.bitcast_convert_type(every[:, -2:], jnp.int32)
            count = jnp.sum(stats[:, 0])
            return every[:, :-2].reshape(-1), count, jnp.sum(stats[:, 1].astype(jnp.float32))

        def rule(bottom_up, count, prev, frontier_edges, unexplored):
            if direction == DIRECTIONS["top_down"]:
                return jnp.bool_(False)
            if direction == DIRECTIONS["bottom_up"]:
                return jnp.bool_(True)
            count, prev = count.astype(jnp.float32), prev.astype(jnp.float32)
            stay = ~((count < prev) & (count * beta < n))
            return jnp.where(bottom_up, stay, frontier_edges * alpha > unexplored)

        def one(root: jax.Array):
            start = ids == root
            dist = jnp.where(start, 0, -1).astype(jnp.int32)
            parent = jnp.where(start, root, -1).astype(jnp.int32)
            front = _pack(start)
            stats = jnp.stack([jnp.sum(start), jnp.sum(jnp.where(start, degree, 0))])
            whole, count, frontier_edges = gather(front, stats.astype(jnp.int32))

            def step(state):
                (level, dist, parent, seen, front, whole, count, frontier_edges, visited,
                 bottom_up, prev, explored) = state  # fmt: skip
                explored = explored + frontier_edges
                bu = rule(bottom_up, count, prev, frontier_edges, total - explored)

                def top_down(_):
                    push = mesh_push(indptr, cols, front, visited).reshape(parts, words)
                    got = jax.lax.all_to_all(push, axis, 0, 0, tiled=True)
                    got = jax.lax.reduce(got, jnp.uint32(0), jax.lax.bitwise_or, (0,))
                    return got & ~seen

                def bottom(_):
                    return owned & ~seen

                cand = jax.lax.cond(bu, bottom, top_down, None)
                dist, parent, nxt, stats = mesh_pull(indptr, cols, whole, cand, level, dist, parent)
                whole_next, next_count, next_edges = gather(nxt, stats)
                return (
                    level + 1,
                    dist,
                    parent,
                    seen | nxt,
                    nxt,
                    whole_next,
                    next_count,
                    next_edges,
                    visited | whole_next,
                    bu,
                    count,
                    explored,
                )

            state = (
                jnp.int32(0),
                dist,
                parent,
                front,
                front,
                whole,
                count,
                frontier_edges,
                whole,
                jnp.bool_(False),
                jnp.int32(0),
                jnp.float32(0),
            )
            state = jax.lax.while_loop(lambda st: st[6] > 0, step, state)
            return state[1], state[2]

        return jax.lax.map(one, roots)

    fn = shard_map(
        shard,
        graph.mesh,
        in_specs=(P(axis), P(axis), P()),
        out_specs=(P(None, axis), P(None, axis)),
    )
    dist, parent = fn(graph.indptr, graph.cols, roots)
    if parts * c == n:  # no padding: the result stays split over the devices
        return dist, parent
    whole = NamedSharding(graph.mesh, P())  # a slice of a split axis must divide evenly
    return constrain(dist, whole)[:, :n], constrain(parent, whole)[:, :n]
