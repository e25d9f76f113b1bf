"""Typed wrapper of the BFS FFI target (contract in ffi/include/kcjax/bfs/bfs.h)."""

from __future__ import annotations

import functools
from collections.abc import Mapping

import jax
import jax.numpy as jnp
import numpy as np

from kcjax._native import bfs_mesh_queue_length, call
from kcjax.graph.graph import row_ids

#: The methods of target ``kcjax_bfs`` (kcjax::BfsMethod): the ablation ladder
#: (each adds one of Enterprise's techniques to the one before), the
#: small-graph kernel and the automatic choice between the two fastest.
NATIVE_METHODS: Mapping[str, int] = {
    "scan": 0,  # status-array scan, a thread per vertex, no queue
    "queue": 1,  # + streamlined frontier queue (per-thread bins + prefix sum)
    "classes": 2,  # + out-degree classes (thread / warp / block / grid)
    "direction": 3,  # + hub-based top-down -> bottom-up switching
    "enterprise": 4,  # + shared-memory cache of the last level's hubs
    "cluster": 5,  # small graphs: a whole traversal in one thread block cluster
    "auto": 6,  # "cluster" for graphs within the policy's size bound, else "enterprise"
}

#: kcjax::BfsDirection.
DIRECTIONS: Mapping[str, int] = {"auto": 0, "top_down": 1, "bottom_up": 2}

#: kcjax::BfsBatch: how several sources are served.
BATCHES: Mapping[str, int] = {"bitset": 0, "each": 1}

#: BfsPolicy::kGridBitmapMinVertices: from this many vertices ``"auto"`` on the grid
#: kernel runs its bitmap variant (bottom-up by bitmap words).
GRID_BITMAP_MIN_VERTICES = 1 << 20


@jax.jit
def degree_ordered_indices(indptr: jax.Array, indices: jax.Array) -> jax.Array:
    """The CSR columns with every row ordered by neighbour degree, largest first.

    Ties keep id order. The rows hold the same sets, so a traversal gives the
    same distances; a bottom-up search that stops at its first frontier
    neighbour meets the frontier's hubs first (on a Kronecker graph at the
    first bottom-up level, 2.3-5x fewer vertices left unsettled by their
    first two neighbours: docs/tuning.md).

    Args:
      indptr: int32[n + 1] CSR row pointers.
      indices: int32[m] CSR columns.

    Returns:
      int32[m], to read with the same ``indptr``.
    """
    m = indices.shape[0]
    rows = row_ids(indptr, m)
    degree = jnp.diff(indptr)
    return jax.lax.sort((rows, -degree[indices], indices), num_keys=3)[2]


@functools.partial(
    jax.jit,
    static_argnames=("method", "direction", "batch", "parents", "hub_tau", "cluster"),
)
def bfs_native(
    indptr: jax.Array,
    indices: jax.Array,
    sources: jax.Array,
    *,
    method: int,
    direction: int,
    batch: int,
    parents: bool,
    hub_tau: int = -1,
    cluster: int = -1,
) -> tuple[jax.Array, jax.Array]:
    """Calls target ``kcjax_bfs``.

    Args:
      indptr: int32[n + 1] symmetric CSR row pointers.
      indices: int32[m] CSR columns.
      sources: int32[s] roots.
      method, direction, batch: codes of :data:`NATIVE_METHODS`,
        :data:`DIRECTIONS`, :data:`BATCHES`.
      parents: whether to compute parents.
      hub_tau: hub degree threshold τ (-1: the policy's rule).
      cluster: ``"cluster"`` on CUDA: thread blocks per cluster, 1 to 16 (-1:
        the policy's size for the graph; 0: the grid kernel even where a
        cluster would serve, for ``"cluster"`` and ``"auto"``); a launch
        choice, results do not depend on it (the CPU ignores it).

    Returns:
      (dist int32[s, n], parent int32[s, n] or int32[s, 0]). Under ``vmap``
      the handler sees every mapped source at once (``expand_dims``), so a
      vmapped single-source call takes the batched path.
    """
    n = indptr.shape[-1] - 1
    s = sources.shape[-1]
    return call(
        "kcjax_bfs",
        (
            jax.ShapeDtypeStruct((s, n), jnp.int32),
            jax.ShapeDtypeStruct((s, n if parents else 0), jnp.int32),
        ),
        indptr,
        indices,
        sources,
        vmap_method="expand_dims",
        method=np.int32(method),
        direction=np.int32(direction),
        batch=np.int32(batch),
        hub_tau=np.int32(hub_tau),
        cluster=np.int32(cluster),
    )


def mesh_push(
    indptr: jax.Array, cols: jax.Array, front: jax.Array, visited: jax.Array, mode: jax.Array
) -> jax.Array:
    """Calls target ``kcjax_bfs_mesh_push`` (contract in ffi/include/kcjax/bfs/mesh.h):
    one shard's top-down expansion, inside ``shard_map``.

    Args:
      indptr: int32[c + 1] local row offsets of the shard's c = 32 * words vertices.
      cols: int32[e] global column ids.
      front: uint32[words]: the shard's frontier.
      visited: uint32[W]: every vertex reached so far (the whole graph).
      mode: int32[]: the level's direction, 0 top-down, 1 bottom-up, 2 none (an
        empty frontier).

    Returns:
      uint32[W]: top-down, the unvisited neighbours of the shard's frontier; zeros
      otherwise.
    """
    queue = bfs_mesh_queue_length(front.shape[0], cols.shape[0])
    push, _ = call(
        "kcjax_bfs_mesh_push",
        (
            jax.ShapeDtypeStruct(visited.shape, jnp.uint32),
            jax.ShapeDtypeStruct((queue,), jnp.int32),  # the CUDA kernels' work space
        ),
        indptr,
        cols,
        front,
        visited,
        jnp.asarray(mode, jnp.int32),
    )
    return push


def mesh_pull(
    indptr: jax.Array,
    cols: jax.Array,
    front: jax.Array,
    got: jax.Array,
    seen: jax.Array,
    mode: jax.Array,
    level: jax.Array,
    dist: jax.Array,
    parent: jax.Array,
) -> tuple[jax.Array, jax.Array, jax.Array, jax.Array]:
    """Calls target ``kcjax_bfs_mesh_pull``: settles one shard's candidates.

    Args:
      indptr, cols: the shard's rows as for :func:`mesh_push`.
      front: uint32[W]: the whole frontier.
      got: uint32[p * words]: the pushes each of the p devices sent to the shard's
        vertices (read on top-down levels only).
      seen: uint32[words]: the shard's vertices reached so far, updated in place.
      mode: int32[]: as for :func:`mesh_push`; the candidates are the unseen vertices
        some device pushed (0), every unseen vertex (1) or none (2).
      level: int32[]: the frontier's distance.
      dist, parent: int32[c]: the shard's state, updated in place.

    Returns:
      (dist, parent, seen, msg uint32[words + 2]): a candidate with a frontier
      neighbour gets distance ``level + 1`` and that neighbour as its parent, and its
      bit in ``seen`` and in ``msg``'s words; ``msg``'s last two entries hold their
      number and the sum of their degrees (int32 bits).
    """
    words = seen.shape[0]
    queue = bfs_mesh_queue_length(words, cols.shape[0])
    *out, _ = call(
        "kcjax_bfs_mesh_pull",
        (
            jax.ShapeDtypeStruct(dist.shape, jnp.int32),
            jax.ShapeDtypeStruct(parent.shape, jnp.int32),
            jax.ShapeDtypeStruct((words,), jnp.uint32),
            jax.ShapeDtypeStruct((words + 2,), jnp.uint32),
            jax.ShapeDtypeStruct((queue,), jnp.int32),  # the CUDA kernels' work space
        ),
        indptr,
        cols,
        front,
        got,
        seen,
        jnp.asarray(mode, jnp.int32),
        jnp.asarray(level, jnp.int32),
        dist,
        parent,
        input_output_aliases={4: 2, 7: 0, 8: 1},
    )
    return tuple(out)
