"""The candidate filter rounds as one FFI call, and their pure-JAX reference.

``kcjax_match_filter`` (contract in ffi/include/kcjax/match/filter.h) runs
the rounds of :mod:`kcjax.match.plan`'s stage 1 on the device and stops once
a round removes nothing, with no host round trip: round 0 is the
neighbour-label profile test, rounds 1.. add the refinement tests (when
``refine``), synchronously (every vertex reads the previous round's
candidates). :func:`reference_rounds` computes the same rounds with the
plan's array formulation, for the tests.
"""

from __future__ import annotations

import functools

import jax
import jax.numpy as jnp
import numpy as np

from kcjax._native import call


def to_mask(bits: jax.Array) -> jax.Array:
    """uint32[n]: bit u of row v set iff ``bits[v, u]`` (bits: bool[n, q], q <= 32)."""
    q = bits.shape[1]
    weights = jnp.left_shift(jnp.uint32(1), jnp.arange(q, dtype=jnp.uint32))
    return jnp.sum(jnp.where(bits, weights[None, :], jnp.uint32(0)), axis=1, dtype=jnp.uint32)


def from_mask(mask: jax.Array, q: int) -> jax.Array:
    """bool[n, q]: the inverse of :func:`to_mask`."""
    return (jnp.right_shift(mask[:, None], jnp.arange(q, dtype=jnp.uint32)[None, :]) & 1) != 0


@functools.partial(jax.jit, static_argnames=("rounds",))
def filter_rounds(
    indptr: jax.Array,
    indices: jax.Array,
    slot: jax.Array,
    cand: jax.Array,
    need: jax.Array,
    adj: jax.Array,
    refine: jax.Array | bool,
    *,
    rounds: int,
) -> tuple[jax.Array, jax.Array]:
    """Calls ``kcjax_match_filter``.

    Args:
      indptr: int32[n + 1] data CSR (symmetric); indices: int32[e].
      slot: int32[n] query label slot of each vertex, -1 for other labels.
      cand: bool[n, q] the candidates the rounds start from.
      need: int32[q, q] NLC[u, k] (query neighbours of u with label slot k).
      adj: bool[q, q] query adjacency.
      refine: rounds >= 1 also apply the refinement tests (may be traced).
      rounds: the most refinement rounds after round 0 (static).

    Returns:
      (bool[n, q] candidates after the rounds, int32[4 + rounds] info:
      refinement rounds run, rounds that removed a candidate, fixpoint
      reached, then the candidate totals after rounds 0..rounds).
    """
    if rounds < 0:
        raise ValueError(f"rounds must be >= 0, got {rounds}")
    q = cand.shape[1]
    n = cand.shape[0]
    out, info, _ = call(
        "kcjax_match_filter",
        (
            jax.ShapeDtypeStruct((n,), jnp.uint32),
            jax.ShapeDtypeStruct((4 + rounds,), jnp.int32),
            jax.ShapeDtypeStruct((n + 3,), jnp.uint32),  # the handlers' working memory
        ),
        indptr.astype(jnp.int32),
        indices.astype(jnp.int32),
        slot.astype(jnp.int32),
        to_mask(cand),
        need.astype(jnp.int32),
        to_mask(adj),
        jnp.asarray(refine, jnp.int32).reshape(1),
        rounds=np.int32(rounds),
    )
    return from_mask(out, q), info


def reference_rounds(
    round_fn, cand: jax.Array, refine: bool, rounds: int
) -> tuple[jax.Array, list[int]]:
    """The rounds of :func:`filter_rounds` with a Python loop over ``round_fn``.

    ``round_fn(cand, refine)`` is one synchronous round (the plan's
    ``_filter_round``). Returns (candidates, info as a list).
    """
    cand = round_fn(cand, False)
    totals = [int(jnp.sum(cand))]
    run = removed = fixpoint = 0
    for r in range(1, rounds + 1):
        new = round_fn(cand, refine)
        run = r
        same = bool(jnp.all(new == cand))
        cand = new
        totals.append(int(jnp.sum(cand)))
        if same:
            fixpoint = 1
            break
        removed += 1
    totals += [totals[-1]] * (rounds + 1 - len(totals))
    return cand, [run, removed, fixpoint, *totals]
