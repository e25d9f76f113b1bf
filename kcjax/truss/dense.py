"""The pure-JAX formulation of supports and peeling (``method="dense"``).

Runs on any backend with static shapes. Supports: for every DAG edge (a, b)
and every slot t < out-degree(a), the t-th out-neighbour w of a is searched in
b's sorted out-list (a fixed-depth binary search); a hit is the triangle
(a, b, w), counted once and added to its three edges (masked by the live
edges). Peeling recounts the live supports each round inside
``lax.while_loop`` and removes every live edge at or below the level.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp

from kcjax.truss.kernels import EdgeIndex

_SEARCH_STEPS = 32  # enough halvings for any int32 range


def _lower_bound(values: jax.Array, lo: jax.Array, hi: jax.Array, x: jax.Array) -> jax.Array:
    """Per query, the first position p in [lo, hi) with values[p] >= x (hi if none)."""
    last = jnp.maximum(values.shape[0] - 1, 0)

    def step(_, bounds):
        lo, hi = bounds
        mid = (lo + hi) // 2
        active = lo < hi
        less = values[jnp.minimum(mid, last)] < x
        return jnp.where(active & less, mid + 1, lo), jnp.where(active & ~less, mid, hi)

    lo, _ = jax.lax.fori_loop(0, _SEARCH_STEPS, step, (lo, hi))
    return lo


@jax.jit
def support_dense(index: EdgeIndex, alive: jax.Array) -> jax.Array:
    """int32[m]: triangles of the live edges (``alive`` bool[m]) holding each edge."""
    dag = index.dag
    m = dag.indices.shape[0]
    if m == 0:
        return jnp.zeros(0, jnp.int32)
    a, b, e = dag.src, dag.indices, index.dag_eid
    start_a, end_a = dag.indptr[a], dag.indptr[a + 1]
    start_b, end_b = dag.indptr[b], dag.indptr[b + 1]
    live_e = alive[e]

    def body(t, sup):
        pa = start_a + t
        valid = (pa < end_a) & live_e
        pa = jnp.minimum(pa, m - 1)
        w = dag.indices[pa]
        pb = _lower_bound(dag.indices, start_b, end_b, w)
        hit = valid & (pb < end_b) & (dag.indices[jnp.minimum(pb, m - 1)] == w)
        pb = jnp.minimum(pb, m - 1)
        e1, e2 = index.dag_eid[pa], index.dag_eid[pb]
        tri = (hit & alive[e1] & alive[e2]).astype(jnp.int32)
        return sup.at[e].add(tri).at[e1].add(tri).at[e2].add(tri)

    return jax.lax.fori_loop(0, dag.max_out_degree(), body, jnp.zeros(m, jnp.int32))


@jax.jit
def truss_numbers_dense(index: EdgeIndex) -> jax.Array:
    """int32[m]: trussness of every edge by level-synchronous recount-and-peel."""
    m = index.src.shape[0]
    big = jnp.iinfo(jnp.int32).max

    def cond(state):
        return jnp.any(state[0])

    def body(state):
        alive, truss, level = state
        sup = support_dense(index, alive)
        rem = alive & (sup <= level)
        any_rem = jnp.any(rem)
        truss = jnp.where(rem, level + 2, truss)
        # No removal at this level: the supports stand, jump to the smallest one.
        jump = jnp.min(jnp.where(alive, sup, big), initial=big)
        level = jnp.where(any_rem, level, jump)
        return alive & ~rem, truss, level

    state = (jnp.ones(m, bool), jnp.zeros(m, jnp.int32), jnp.int32(0))
    return jax.lax.while_loop(cond, body, state)[1]


@jax.jit
def k_truss_mask_dense(index: EdgeIndex, k: jax.Array, alive: jax.Array) -> jax.Array:
    """bool[m]: the edges of the k-truss, peeling from the live edges ``alive``."""

    level = jnp.maximum(jnp.asarray(k, jnp.int32), 2) - 3

    def cond(state):
        return state[1]

    def body(state):
        alive, _ = state
        rem = alive & (support_dense(index, alive) <= level)
        return alive & ~rem, jnp.any(rem)

    return jax.lax.while_loop(cond, body, (alive, jnp.bool_(True)))[0]
