"""The query-independent side of a data graph: built once per graph.

:func:`graph_prep` pads nothing itself (:func:`kcjax.match.inputs.graph_prep`
pads to a shape bucket and memoizes); it computes every CSR entry's row, the
live entries and the twin classes (vertices of equal label and equal
neighbourhood, which share one branch of the search: :mod:`kcjax.match.plan`,
stage 3).
"""

from __future__ import annotations

from typing import NamedTuple

import jax
import jax.numpy as jnp

from kcjax.graph.labeled import LabeledGraph


class GraphPrep(NamedTuple):
    """The query-independent side of a data graph (built once per graph).

    Attributes:
      indptr: int32[n + 1] CSR (possibly padded: isolated padding vertices).
      indices: int32[e] columns; entries past indptr[n] are 0.
      labels: int32[n].
      rows: int32[e] the row of every entry.
      live: bool[e] entry below indptr[n].
      real: bool[n] a real (not padding) vertex.
      twin_size: int32[n] size of the vertex's twin class (equal label and
        neighbourhood) if it is the class representative, else 0.
    """

    indptr: jax.Array
    indices: jax.Array
    labels: jax.Array
    rows: jax.Array
    live: jax.Array
    real: jax.Array
    twin_size: jax.Array


@jax.jit
def graph_prep(data: LabeledGraph, num_valid: jax.Array) -> GraphPrep:
    """:class:`GraphPrep` of ``data`` whose first ``num_valid`` vertices are real."""
    g = data.graph
    n, e = g.num_nodes, g.indices.shape[0]
    live = jnp.arange(e) < g.indptr[n]
    nbr = jnp.where(live, g.indices, 0)
    real = jnp.arange(n) < num_valid
    _, size = _twin_classes(g.indptr, nbr, real, data.labels)
    return GraphPrep(g.indptr, nbr, data.labels, _rows(g.indptr, e), live, real, size)


def _rows(indptr: jax.Array, e: int) -> jax.Array:
    """int32[e]: the row of every CSR entry (entries past indptr[n] get row n - 1).

    A scatter and a cumulative sum (cheaper to compile than a repeat).
    """
    n = indptr.shape[0] - 1
    mark = jnp.zeros(e + 1, jnp.int32).at[indptr[1:]].add(1)[:e]
    return jnp.minimum(jnp.cumsum(mark, dtype=jnp.int32), max(n - 1, 0))


def _mix(x: jax.Array, a: int, b: int) -> jax.Array:
    h = (x.astype(jnp.uint32) + jnp.uint32(a)) * jnp.uint32(0x9E3779B1)
    h = h ^ (h >> 15)
    h = h * jnp.uint32(b)
    return h ^ (h >> 13)


def _twin_classes(
    indptr: jax.Array, indices: jax.Array, keep: jax.Array, labels: jax.Array
) -> tuple[jax.Array, jax.Array]:
    """(is_rep bool[n], class size int32[n]) of kept vertices with equal label and row.

    Vertices are sorted by (label, degree, two neighbourhood hashes); a vertex
    joins its predecessor's class only if their rows are equal entry by entry,
    so a hash collision can only split a class, never merge unequal rows.
    """
    n = indptr.shape[0] - 1
    e = indices.shape[0]
    deg = jnp.diff(indptr)
    rows = _rows(indptr, e)
    live = jnp.arange(e) < indptr[n]
    h1 = jnp.zeros(n, jnp.uint32).at[rows].add(jnp.where(live, _mix(indices, 1, 0x85EBCA6B), 0))
    h2 = jnp.zeros(n, jnp.uint32).at[rows].add(jnp.where(live, _mix(indices, 7, 0xC2B2AE35), 0))
    vid = jnp.arange(n, dtype=jnp.int32)
    gone = (~keep).astype(jnp.int32)
    *_, perm = jax.lax.sort((gone, labels, deg, h1, h2, vid), num_keys=6)
    prev = jnp.concatenate([jnp.array([-1], jnp.int32), perm[:-1]])
    pv = jnp.maximum(prev, 0)
    same_key = (
        (prev >= 0)
        & keep[perm]
        & keep[pv]
        & (labels[perm] == labels[pv])
        & (deg[perm] == deg[pv])
        & (h1[perm] == h1[pv])
        & (h2[perm] == h2[pv])
    )
    pred = jnp.full(n, -1, jnp.int32).at[perm].set(jnp.where(same_key, prev, -1))
    r = rows
    p = pred[r]
    k = jnp.arange(e, dtype=jnp.int32) - indptr[r]
    other = indices[jnp.clip(indptr[jnp.maximum(p, 0)] + k, 0, e - 1)]
    mismatch = live & (p >= 0) & (other != indices)
    row_bad = jnp.zeros(n, bool).at[r].max(mismatch)
    joined = (pred >= 0) & ~row_bad  # equal to its predecessor in sorted order
    joined_sorted = joined[perm]
    pos = jnp.arange(n, dtype=jnp.int32)
    start = jax.lax.cummax(jnp.where(joined_sorted, 0, pos))
    size_sorted = jnp.zeros(n, jnp.int32).at[start].add(1)
    is_rep = jnp.zeros(n, bool).at[perm].set(~joined_sorted) & keep
    size = jnp.zeros(n, jnp.int32).at[perm].set(size_sorted)
    return is_rep, jnp.where(is_rep, size, 0)
