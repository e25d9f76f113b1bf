"""Long runs in task ranges: one XLA program per range, the host one range behind.

A family's eager entry point splits its tasks (edges, vertices) into ranges
of ``step``, dispatches one jitted program per range and folds each result on
the host, so Python can show progress and the device never waits for it.
:func:`run_weighted_chunks` sizes the ranges by estimated work and measured
time instead, for long runs that split themselves (interruptible between
ranges, progress that follows the work).
"""

from __future__ import annotations

import time
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


class WorkProfile:
    """Where the estimated work of ``total`` tasks lies, for :func:`run_weighted_chunks`.

    Holds the cumulative estimated work at block boundaries (the tasks are
    summed in at most a few thousand blocks on the device, so this stays small
    however many tasks there are); work inside a block is taken as evenly
    spread.

    Args:
      bounds: int64[B + 1], ascending task ids from 0 to ``total``.
      cumulative: float64[B + 1], ascending: the work of tasks before each bound.
    """

    def __init__(self, bounds: np.ndarray, cumulative: np.ndarray) -> None:
        self.bounds = np.asarray(bounds, np.float64)
        self.cumulative = np.asarray(cumulative, np.float64)
        self.total = int(bounds[-1])
        self.work = float(self.cumulative[-1])

    def done(self, task: int) -> float:
        """The estimated work of tasks 0 .. task - 1."""
        return float(np.interp(task, self.bounds, self.cumulative))

    def reach(self, work: float) -> float:
        """The (fractional) task id where the cumulative work reaches ``work``."""
        return float(np.interp(work, self.cumulative, self.bounds))


def run_weighted_chunks(
    profile: WorkProfile,
    seconds: float,
    target_s: float,
    dispatch: Callable[[int, int], jax.Array],
    consume: Callable[[jax.Array], None],
    progress: ProgressFn | None,
) -> None:
    """Runs the tasks in chunks of about ``target_s`` seconds each, one ahead of the host.

    dispatch(start, step) runs tasks start .. start + step - 1 (ids past the
    total are padding); steps are powers of 4 (the last one a power of 2), so
    a run compiles few programs. The first two chunks (sent before any is
    timed) take an eighth of ``target_s`` by the estimate (``seconds`` for all
    the work); later ones follow the measured rate of the chunks before, so a
    wrong estimate costs a few chunks, not an uninterruptible one. As in
    :func:`run_chunks`, chunk i + 1 is enqueued before chunk i is read, and
    progress(done, total) follows every read: total is the number of tasks,
    done the share of the estimated work finished, in tasks.
    """
    total = profile.total
    rate = profile.work / max(seconds, 1e-9)  # work per second
    ahead: tuple[jax.Array, int, int, float] | None = None
    last_read: float | None = None
    start = 0
    while start < total:
        timed_yet = last_read is not None
        goal = profile.done(start) + rate * target_s * (1.0 if timed_yet else 0.125)
        want = max(1, int(profile.reach(goal)) - start)
        rest = total - start
        step = _tail_step(rest) if want >= rest else _power_of_4(want)
        out = dispatch(start, step)
        out.copy_to_host_async()
        sent = time.perf_counter()
        if ahead is not None:
            rate, last_read = _read(ahead, profile, rate, last_read, consume, progress)
        ahead = (out, start, min(start + step, total), sent)
        start += step
    if ahead is not None:
        _read(ahead, profile, rate, last_read, consume, progress)


def _power_of_4(x: int) -> int:
    """The largest power of 4 at most ``x`` (>= 1)."""
    p = 1
    while p * 4 <= x:
        p *= 4
    return p


def _tail_step(rest: int) -> int:
    """The step of a last chunk of ``rest`` tasks: the power of 2 at least
    ``rest`` (padding under 2x, one more compiled program at most)."""
    return 1 << max(0, (rest - 1).bit_length())


def _read(
    ahead: tuple[jax.Array, int, int, float],
    profile: WorkProfile,
    rate: float,
    last_read: float | None,
    consume: Callable[[jax.Array], None],
    progress: ProgressFn | None,
) -> tuple[float, float]:
    """Reads one chunk; returns the updated (rate, time of this read)."""
    out, start, stop, sent = ahead
    consume(out)
    now = time.perf_counter()
    busy = now - max(sent, last_read or sent)  # the device ran the chunks back to back
    work = profile.done(stop) - profile.done(start)
    if work > 0:  # at most 64x faster per chunk; below a millisecond, timing is noise
        rate = min(work / max(busy, 1e-3), 64 * rate)
    if progress is not None:
        share = profile.done(stop) / profile.work if profile.work > 0 else stop / profile.total
        done = profile.total if stop >= profile.total else int(share * profile.total)
        progress(done, profile.total)
    return rate, now
