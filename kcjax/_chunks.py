"""Long runs in task ranges: one XLA program per range, the host one range behind.

A family's eager entry point splits its tasks (edges, vertices) into ranges
of ``step``, dispatches one jitted program per range and folds each result on
the host, so Python can show progress and the device never waits for it.
"""

from __future__ import annotations

from collections.abc import Callable

import jax
import jax.numpy as jnp
import numpy as np

#: ``progress(done, total)``, called after every range.
ProgressFn = Callable[[int, int], None]


def chunk_start(start: int) -> np.int32 | None:
    """A range's first task id as a jit argument; ``None`` for 0 (the single
    range of an unchunked run), which spares a host-to-device copy."""
    return None if start == 0 else np.int32(start)


def task_range(start: jax.Array | None, *, step: int, total: int) -> jax.Array:
    """int32[step]: task ids start, start + 1, ... (-1 from ``total`` on);
    traced inside the families' jitted range functions."""
    ids = jnp.arange(step, dtype=jnp.int32)
    if start is not None:
        ids = ids + start
    return jnp.where(ids < total, ids, -1)


def run_chunks(
    total: int,
    step: int,
    dispatch: Callable[[int], jax.Array],
    consume: Callable[[jax.Array], None],
    progress: ProgressFn | None,
) -> None:
    """dispatch(start) for start = 0, step, ... < total, one range ahead of the
    host: range i + 1 is enqueued and the copy of its result started before
    range i's result is read by consume(); progress(stop, total) follows
    every consume. The device never waits for the host between ranges, and
    a single range's result copy is queued behind its kernels."""
    ahead: tuple[jax.Array, int] | None = None
    for start in range(0, total, step):
        out = dispatch(start)
        out.copy_to_host_async()
        if ahead is not None:
            _consume(ahead, total, consume, progress)
        ahead = (out, min(start + step, total))
    if ahead is not None:
        _consume(ahead, total, consume, progress)


def _consume(
    ahead: tuple[jax.Array, int],
    total: int,
    consume: Callable[[jax.Array], None],
    progress: ProgressFn | None,
) -> None:
    out, stop = ahead
    consume(out)
    if progress is not None:
        progress(stop, total)
