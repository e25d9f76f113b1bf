"""Pure-JAX dense BFS: the research baseline beside the FFI kernels.

The frontier is a bool vector; a level gathers it over every CSR entry and
scatters (segment max) to the other end, inside ``lax.while_loop``. Every
level touches all m entries, so it does O(m × depth) work: a baseline, not a
fast path.
"""

from __future__ import annotations

import functools

import jax
import jax.numpy as jnp

from kcjax.graph.graph import Graph, row_ids


@functools.partial(jax.jit, static_argnames=("parents",))
def bfs_dense(graph: Graph, sources: jax.Array, *, parents: bool) -> tuple[jax.Array, jax.Array]:
    """BFS from each of ``sources`` with array ops only.

    Args:
      graph: the graph.
      sources: int32[s] roots (one outside [0, n) gives a row of -1).
      parents: also compute parents (the largest-id frontier neighbour).

    Returns:
      (dist int32[s, n], parent int32[s, n] or int32[s, 0]), as the native target.
    """
    n = graph.num_nodes
    rows = row_ids(graph.indptr, graph.indices.shape[0])
    cols = graph.indices

    def one(src: jax.Array) -> tuple[jax.Array, jax.Array]:
        ok = (src >= 0) & (src < n)
        at = jnp.where(ok, src, n)  # out of range: dropped by the scatters
        dist = jnp.full((n,), -1, jnp.int32).at[at].set(0, mode="drop")
        par = jnp.full((n if parents else 0,), -1, jnp.int32)
        if parents:
            par = par.at[at].set(src, mode="drop")

        def body(state):
            level, dist, par, frontier = state
            hit = frontier[rows]
            reach = jnp.zeros((n,), jnp.bool_).at[cols].max(hit)
            new = reach & (dist < 0)
            dist = jnp.where(new, level + 1, dist)
            if parents:
                claim = jax.ops.segment_max(jnp.where(hit, rows, -1), cols, num_segments=n)
                par = jnp.where(new, claim, par)
            return level + 1, dist, par, new

        state = (jnp.int32(0), dist, par, dist == 0)
        _, dist, par, _ = jax.lax.while_loop(lambda s: jnp.any(s[3]), body, state)
        return dist, par

    return jax.vmap(one)(sources)
