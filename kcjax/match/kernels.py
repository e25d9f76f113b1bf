"""Typed wrappers of the matching FFI targets (contract in ffi/include/kcjax/match/match.h)."""

from __future__ import annotations

import functools

import jax
import jax.numpy as jnp
import numpy as np

from kcjax import _wide
from kcjax._native import call
from kcjax.match.plan import Prepared, task_width


@functools.partial(jax.jit, static_argnames=("per_root", "num_threads"))
def match_count(
    p: Prepared,
    roots: jax.Array,
    task_ptr: jax.Array,
    *,
    per_root: bool = False,
    num_threads: int = 0,
) -> jax.Array:
    """Calls ``kcjax_match_count`` on the given roots.

    Returns:
      uint32[r if per_root else 1, 4]: 128-bit little-endian counts.
    """
    rows = roots.shape[0] if per_root else 1
    return call(
        "kcjax_match_count",
        jax.ShapeDtypeStruct((rows, 4), jnp.uint32),
        *_operands(p, roots, task_ptr),
        per_root=bool(per_root),
        num_threads=np.int32(num_threads),
        task_width=np.int32(task_width(p.plan.shape[0])),
    )


def count(p: Prepared, *, num_threads: int = 0) -> jax.Array:
    """The plan's count of embeddings over all its roots: uint32[4] limbs, the search's
    count times the plan's ``scale`` (|Aut(q)| where it breaks the symmetry)."""
    return _wide.mul(match_count(p, p.roots, p.task_ptr, num_threads=num_threads)[0], p.scale)


@functools.partial(jax.jit, static_argnames=("capacity", "num_threads"))
def match_list(
    p: Prepared, roots: jax.Array, task_ptr: jax.Array, *, capacity: int, num_threads: int = 0
) -> tuple[jax.Array, jax.Array]:
    """Calls ``kcjax_match_list``: (int32[capacity, q] rows in level order, uint32[4] found).

    The plan must not break the query's symmetry (``symmetry=False``): the
    rows are the embeddings that meet its constraints.
    """
    q = p.plan.shape[0]
    return call(
        "kcjax_match_list",
        (
            jax.ShapeDtypeStruct((capacity, q), jnp.int32),
            jax.ShapeDtypeStruct((4,), jnp.uint32),
        ),
        *_operands(p, roots, task_ptr),
        num_threads=np.int32(num_threads),
        task_width=np.int32(task_width(q)),
    )


def _operands(p: Prepared, roots: jax.Array, task_ptr: jax.Array) -> tuple[jax.Array, ...]:
    """The operands of both matching targets, in the contract's order."""
    return (p.indptr, p.indices, p.mult, p.cand, p.plan, p.lists, roots, task_ptr, p.leaf_sum)
