"""Exact 128-bit counts as little-endian uint32 limbs, on the host and the device.

Every native counter returns its counts as ``uint32[..., 4]`` limbs (the
128-bit value ``sum(limb[i] << 32 * i)``). This module is the one place that
builds, decodes, adds and compares them.
"""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

#: Limbs of one count.
LIMBS = 4


def to_int(limbs: jax.Array | np.ndarray) -> int:
    """Converts a uint32[4] little-endian 128-bit count to a Python int."""
    a = np.asarray(limbs, dtype=np.uint64).reshape(LIMBS)
    return sum(int(a[i]) << (32 * i) for i in range(LIMBS))


def from_int(value: int) -> jax.Array:
    """uint32[4] limbs of a non-negative int below 2^64 (a device constant)."""
    return jnp.array([value & 0xFFFFFFFF, value >> 32, 0, 0], jnp.uint32)


def rows_to_ints(limbs: np.ndarray, *, exact: bool, what: str) -> np.ndarray:
    """uint32[n, 4] limbs -> uint64[n], or object[n] of Python ints with ``exact``.

    Raises:
      OverflowError: if a row reaches 2^64 and ``exact`` is False (``what``
        names the quantity in the message).
    """
    a = limbs.astype(np.uint64)
    lo = a[:, 0] | (a[:, 1] << np.uint64(32))
    hi = a[:, 2] | (a[:, 3] << np.uint64(32))
    if exact:
        return lo.astype(object) + (hi.astype(object) << 64)
    if np.any(hi):
        raise OverflowError(f"{what} reaches 2^64; pass exact=True")
    return lo


def nonzero_entries(hist: jax.Array | np.ndarray) -> list[tuple[tuple[int, ...], int]]:
    """Nonzero entries (index, value) of a uint32[..., 4] array of 128-bit counts."""
    a = np.asarray(hist).astype(np.uint64)
    lo = a[..., 0] | (a[..., 1] << np.uint64(32))
    hi = a[..., 2] | (a[..., 3] << np.uint64(32))
    return [
        (tuple(int(i) for i in index), int(lo[index]) + (int(hi[index]) << 64))
        for index in zip(*np.nonzero(lo | hi), strict=True)
    ]


def exceeds(count: jax.Array, capacity: int) -> jax.Array:
    """bool: the 128-bit count in uint32[4] limbs exceeds ``capacity`` (< 2^63)."""
    lo = jnp.uint32(capacity & 0xFFFFFFFF)
    hi = jnp.uint32(capacity >> 32)
    return jnp.any(count[2:] != 0) | (count[1] > hi) | ((count[1] == hi) & (count[0] > lo))


def add_small(limbs: jax.Array, value: jax.Array) -> jax.Array:
    """uint32[K, 4] 128-bit limbs plus uint32[K] values, carries propagated."""
    out, carry = [], value
    for i in range(LIMBS):
        s = limbs[:, i] + carry
        carry = (s < carry).astype(jnp.uint32)
        out.append(s)
    return jnp.stack(out, axis=1)


@jax.jit
def add(total: jax.Array, limbs: jax.Array) -> jax.Array:
    """uint32[K, 4] total plus uint32[K', 4] limbs (rows past K' zero) as 128-bit integers."""
    rows = min(total.shape[0], limbs.shape[0])
    b = jnp.zeros_like(total).at[:rows].set(limbs[:rows])
    out, carry = [], jnp.zeros(total.shape[0], jnp.uint32)
    for i in range(LIMBS):
        t = total[:, i] + b[:, i]
        s = t + carry
        carry = ((t < b[:, i]) | (s < carry)).astype(jnp.uint32)
        out.append(s)
    return jnp.stack(out, axis=1)


def psum(limbs: jax.Array, axis_name: Any) -> jax.Array:
    """Sums 128-bit little-endian limb counts over a mapped axis, exactly.

    Each uint32 limb is split into 16-bit halves, the halves are ``psum``-ed
    (no uint32 overflow for fewer than 65536 devices) and the carries are
    propagated into normalized 32-bit limbs; the sum is taken modulo 2^128
    like the native counters. Call inside ``shard_map``, ``pmap`` or any
    context that binds ``axis_name``.

    Args:
      limbs: uint32[..., L] little-endian limbs (L = 4 for the clique counts).
      axis_name: the mapped axis (or tuple of axes) to sum over.

    Returns:
      uint32[..., L]: the exact sum over the axis, identical on every device.
    """
    limbs = jnp.asarray(limbs, jnp.uint32)
    halves = jnp.stack([limbs & 0xFFFF, limbs >> 16], axis=-1)
    halves = halves.reshape(*limbs.shape[:-1], 2 * limbs.shape[-1])
    return _carry_halves(jax.lax.psum(halves, axis_name))


def _carry_halves(halves: jax.Array) -> jax.Array:
    """uint32[..., 2L] 16-bit digits (each < 2^32 - 2^16) -> uint32[..., L] limbs."""
    digits = []
    carry = jnp.zeros(halves.shape[:-1], jnp.uint32)
    for i in range(halves.shape[-1]):
        total = halves[..., i] + carry
        digits.append(total & 0xFFFF)
        carry = total >> 16
    digits = jnp.stack(digits, axis=-1)
    return digits[..., 0::2] | (digits[..., 1::2] << 16)


def mul(a: jax.Array, b: jax.Array) -> jax.Array:
    """The product of two 128-bit counts in uint32[..., 4] limbs, modulo 2^128.

    Schoolbook over 16-bit digits: each digit product is below 2^32 and is
    split into its halves before they are summed per column (at most 16
    halves of 2^16 a column), then the carries are propagated.
    """
    a, b = jnp.asarray(a, jnp.uint32), jnp.asarray(b, jnp.uint32)
    da = [a[..., i // 2] >> (16 * (i % 2)) & 0xFFFF for i in range(2 * LIMBS)]
    db = [b[..., i // 2] >> (16 * (i % 2)) & 0xFFFF for i in range(2 * LIMBS)]
    zero = jnp.zeros(jnp.broadcast_shapes(a.shape, b.shape)[:-1], jnp.uint32)
    cols = [zero] * (2 * LIMBS)
    for i in range(2 * LIMBS):
        for j in range(2 * LIMBS - i):
            p = da[i] * db[j]
            cols[i + j] = cols[i + j] + (p & 0xFFFF)
            if i + j + 1 < 2 * LIMBS:
                cols[i + j + 1] = cols[i + j + 1] + (p >> 16)
    return _carry_halves(jnp.stack(cols, axis=-1))
