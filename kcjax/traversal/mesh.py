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
   unvisited neighbours, as a bitmap of the whole graph) and exchanges the
   bitmap's slices with ``all_to_all`` (the pushes to its vertices from every
   device); bottom-up the push is empty and exchanged all the same: the level's
   direction is a device value, not a branch, since a ``lax.cond`` reads its
   predicate back to the host;
3. settles its candidates against the whole frontier (``kcjax_bfs_mesh_pull``,
   the single-GPU bitmap variant's bottom-up search: a candidate's first frontier
   neighbour is its parent); the candidates are its unvisited vertices that some
   device pushed (top-down) or all of them (bottom-up);
4. ``all_gather`` of every device's words of the new frontier, their
   number and degree sum: the next level's whole frontier bitmap (n / 8 bytes), ORed
   into the visited bitmap.

Per level a device sends n / 8 bytes to gather the frontier and n / 8 more for the
pushes. The ``lax.while_loop`` over levels reads the frontier's size back to the
host, which stalls every device; its body runs ``mesh_levels_per_read`` levels
(BfsPolicy), a level past the end doing nothing but its two exchanges, and runs
once before the first read. The native steps only enqueue kernels, so XLA may
record them in a command buffer. On a mesh of one device the shard is the whole
graph, and the single-device traversal runs on it (``one_device``).
"""

from __future__ import annotations

import functools
from typing import Any

import jax
import jax.numpy as jnp
from jax.sharding import NamedSharding, PartitionSpec

from kcjax._args import as_int
from kcjax._native import bfs_policy
from kcjax.graph.orient import memo
from kcjax.graph.sharded import ShardedGraph, concrete
from kcjax.parallel import constrain, shard_map
from kcjax.traversal.kernels import (
    BATCHES,
    DIRECTIONS,
    NATIVE_METHODS,
    bfs_native,
    mesh_pull,
    mesh_push,
)

_WORD = 32


def bfs_mesh(
    graph: ShardedGraph,
    roots: Any,
    *,
    direction: str,
    one_device: str = "kernel",
    levels_per_read: int | None = None,
) -> tuple[jax.Array, jax.Array, jax.Array]:
    """Distances, parents and depths from each root over the graph's mesh; one program.

    Args:
      graph: the sharded graph.
      roots: int32[] or int32[s] root ids (one out of ``[0, n)`` gives a row of -1).
      direction: a key of :data:`~kcjax.traversal.kernels.DIRECTIONS`.
      one_device: on a mesh of one device, ``"kernel"`` runs the single-device
        traversal (target ``kcjax_bfs``, method ``"auto"``, one source after
        another) on the shard's arrays, which are the whole graph: nothing to
        exchange, so nothing of the level loop to pay for; ``"steps"`` runs the
        level steps as on several devices (for measurements).
      levels_per_read: levels the level loop runs between two reads of the
        frontier's size (``None``: ``BfsPolicy::kMeshLevelsPerRead``; another
        value for measurements: every value gives the same result).

    Returns:
      (dist int32[..., n], parent int32[..., n], depth int32[...]) for roots of
      shape [...], split over the mesh axis where n fills the shards.
    """
    if one_device not in ("kernel", "steps"):
        raise ValueError(f"one_device must be 'kernel' or 'steps', got {one_device!r}")
    policy = bfs_policy()
    if levels_per_read is None:
        levels_per_read = int(policy["mesh_levels_per_read"])
    levels_per_read = as_int(levels_per_read, "levels_per_read", minimum=1)
    if graph.parts == 1 and one_device == "kernel":
        indptr, indices = _whole(graph)
        return _one_device(indptr, indices, roots, DIRECTIONS[direction])
    return _traverse(
        graph,
        roots,
        direction=DIRECTIONS[direction],
        alpha=int(policy["cluster_alpha"]),
        beta=int(policy["back_to_top_down"]),
        levels_per_read=levels_per_read,
    )


def _whole(graph: ShardedGraph) -> tuple[jax.Array, jax.Array]:
    """The CSR of a one-shard graph: its row offsets to n and its entries (memoized
    eagerly: a copy of the offsets, the columns themselves when they hold no padding)."""

    def view() -> tuple[jax.Array, jax.Array]:
        cols = graph.cols
        if cols.shape[0] != graph.num_entries:
            cols = cols[: graph.num_entries]
        return graph.indptr[: graph.num_nodes + 1], cols

    if isinstance(graph.cols, jax.core.Tracer):
        return view()

    return memo(graph, "mesh_one_device_csr", lambda: concrete(view))


@functools.partial(jax.jit, static_argnums=(3,))
def _one_device(
    indptr: jax.Array, indices: jax.Array, roots: jax.Array, direction: int
) -> tuple[jax.Array, jax.Array, jax.Array]:
    roots = jnp.asarray(roots, jnp.int32)
    dist, parent = bfs_native(
        indptr,
        indices,
        roots.reshape(-1),
        method=NATIVE_METHODS["auto"],
        direction=direction,
        batch=BATCHES["each"],
        parents=True,
    )
    return shaped(dist, parent, roots.shape)


def shaped(
    dist: jax.Array, parent: jax.Array, shape: tuple[int, ...]
) -> tuple[jax.Array, jax.Array, jax.Array]:
    """[s, n] results as roots of ``shape`` [...] ask: [..., n] each, and the depths."""
    n = dist.shape[-1]
    dist, parent = dist.reshape((*shape, n)), parent.reshape((*shape, parent.shape[-1]))
    return dist, parent, jnp.max(dist, axis=-1, initial=-1)


def _pack(bits: jax.Array) -> jax.Array:
    """uint32[len(bits) / 32]: bool bits packed, bit i of word w for bits[32 w + i]."""
    weights = jnp.left_shift(jnp.uint32(1), jnp.arange(_WORD, dtype=jnp.uint32))
    return jnp.sum(bits.reshape(-1, _WORD).astype(jnp.uint32) * weights, axis=1, dtype=jnp.uint32)


@functools.partial(jax.jit, static_argnames=("direction", "alpha", "beta", "levels_per_read"))
def _traverse(
    graph: ShardedGraph,
    roots: jax.Array,
    *,
    direction: int,
    alpha: int,
    beta: int,
    levels_per_read: int,
) -> tuple[jax.Array, jax.Array, jax.Array]:
    axis, parts, c, n = graph.axis, graph.parts, graph.chunk, graph.num_nodes
    roots = jnp.asarray(roots, jnp.int32)
    shape = roots.shape
    words = c // _WORD
    P = PartitionSpec

    def shard(indptr: jax.Array, cols: jax.Array, roots: jax.Array):
        me = jax.lax.axis_index(axis)
        degree = jnp.diff(indptr)
        # Isolated vertices (and the padding past n) start as seen: no level can reach them,
        # and a bottom-up level would search each of them again.
        isolated = _pack(degree == 0)
        total = jax.lax.psum(indptr[-1].astype(jnp.float32), axis)

        def gather(msg: jax.Array) -> tuple[jax.Array, jax.Array, jax.Array]:
            """The whole frontier bitmap, its size (int32) and its edges (float32) from
            every shard's message (its words, then its size and degree sum)."""
            every = jax.lax.all_gather(msg, axis).reshape(parts, words + 2)
            stats = jax.lax.bitcast_convert_type(every[:, -2:], jnp.int32)
            count = jnp.sum(stats[:, 0], dtype=jnp.int32)
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
            # The root's row, if this shard owns it, set by index: no pass over the shard.
            local = root - me * c
            mine = (local >= 0) & (local < c)
            at = jnp.clip(local, 0, c - 1)
            dist = jnp.full(c, -1, jnp.int32).at[at].set(jnp.where(mine, 0, -1))
            parent = jnp.full(c, -1, jnp.int32).at[at].set(jnp.where(mine, root, -1))
            bit = jnp.left_shift(jnp.uint32(1), (at % _WORD).astype(jnp.uint32))
            front = jnp.zeros(words, jnp.uint32).at[at // _WORD].set(jnp.where(mine, bit, 0))
            stats = jnp.stack([mine.astype(jnp.int32), jnp.where(mine, degree[at], 0)])
            msg = jnp.concatenate([front, jax.lax.bitcast_convert_type(stats, jnp.uint32)])
            whole, count, frontier_edges = gather(msg)

            def step(state):
                (level, dist, parent, seen, front, whole, count, frontier_edges, visited,
                 bottom_up, prev, explored) = state  # fmt: skip
                explored = explored + frontier_edges
                bu = rule(bottom_up, count, prev, frontier_edges, total - explored)
                # Every level runs the same steps (no branch: a lax.cond reads its
                # predicate back to the host): the mode says top-down (0), bottom-up (1)
                # or past the end (2: nothing pushed, no candidates).
                live = count > 0
                mode = jnp.where(live, bu.astype(jnp.int32), 2)
                push = mesh_push(indptr, cols, front, visited, mode).reshape(parts, words)
                got = jax.lax.all_to_all(push, axis, 0, 0, tiled=True).reshape(-1)
                dist, parent, seen, msg = mesh_pull(
                    indptr, cols, whole, got, seen, mode, level, dist, parent
                )
                whole_next, next_count, next_edges = gather(msg)
                return (
                    level + live.astype(jnp.int32),
                    dist,
                    parent,
                    seen,
                    msg[:words],
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
                front | isolated,
                front,
                whole,
                count,
                frontier_edges,
                whole,
                jnp.bool_(False),
                jnp.int32(0),
                jnp.float32(0),
            )

            def steps(state):
                for _ in range(levels_per_read):
                    state = step(state)
                return state

            # The first levels run before the loop's first test (a valid root's frontier is
            # never empty): that test would stall every device before any level was enqueued.
            state = jax.lax.while_loop(lambda st: st[6] > 0, steps, steps(state))
            return state[1], state[2]

        return jax.lax.map(one, roots)

    fn = shard_map(
        shard,
        graph.mesh,
        in_specs=(P(axis), P(axis), P()),
        out_specs=(P(None, axis), P(None, axis)),
    )
    dist, parent = fn(graph.indptr, graph.cols, roots.reshape(-1))
    if parts * c != n:  # a slice of a split axis must divide evenly: replicate, then cut
        whole = NamedSharding(graph.mesh, P())
        dist, parent = constrain(dist, whole)[:, :n], constrain(parent, whole)[:, :n]
    return shaped(dist, parent, shape)
