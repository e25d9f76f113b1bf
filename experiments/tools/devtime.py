"""Device-side timing of JAX calls from the JAX profiler (CUPTI on GPU).

``device_times(fn, repeats)`` runs ``fn`` ``repeats`` times, each call
synchronized and wrapped in a host trace annotation, under
``jax.profiler.trace``. From the trace it takes, per call and per device, the
GPU activities (kernels, copies, memsets) that start inside the call's host
window and reports

* ``span_s``: first activity start to last activity end (what a pair of CUDA
  events around the call would measure, idle gaps inside the call included);
* ``busy_s``: the union of the activity intervals (time the device worked).

The peers' anchors are timed with CUDA events around their kernels, so
``span_s`` is the comparable number. On a machine without a GPU the result is
empty.
"""

from __future__ import annotations

import statistics
import tempfile
from collections.abc import Callable
from pathlib import Path

import jax

_MARK = "kcjax_devtime_call_"
# Lines that summarize other lines (derived by the profiler), not activities.
_DERIVED = ("XLA Modules", "XLA Ops", "Steps", "XLA TraceMe", "Source code", "Framework")


def call_activities(
    fn: Callable[[], object], repeats: int, device: str | None = None
) -> list[list[tuple[str, int, int]]]:
    """The GPU activities of each of ``repeats`` synchronized calls of ``fn``.

    Args:
      fn: the call to trace.
      repeats: number of calls.
      device: the profiler's device plane (``"/device:GPU:0"``...); ``None``:
        the first GPU plane with activity.

    Returns:
      Per call, ``[(name, start_ns, end_ns)]`` of the activities that start
      inside its host window (empty on a machine without a GPU).
    """
    per_device = _trace(fn, repeats)
    if not per_device:
        return []
    return per_device[device if device is not None else min(per_device)]


def device_times(fn: Callable[[], object], repeats: int) -> dict[str, dict[str, float]]:
    """Median span and busy time per GPU device of ``repeats`` calls of ``fn``.

    Returns:
      ``{device_plane_name: {"span_s", "busy_s", "calls"}}``; empty when the
      trace holds no GPU activity.
    """
    out = {}
    for name, per_call in _trace(fn, repeats).items():
        intervals = [[(s, e) for _, s, e in c] for c in per_call]
        out[name] = {
            "span_s": statistics.median(_span(c) for c in intervals) * 1e-9,
            "busy_s": statistics.median(_busy(c) for c in intervals) * 1e-9,
            "calls": len(intervals),
        }
    return out


def labeled_times(
    fns: dict[str, Callable[[], object]], repeats: int
) -> dict[str, dict[str, object]]:
    """Several calls timed in one profiler session (starting a trace costs about a
    second, so a benchmark of many short calls traces them together).

    Returns:
      ``{label: {"span_s", "busy_s", "activities"}}`` on the first GPU with activity:
      the median span and busy time of ``repeats`` calls of ``fns[label]`` (the labels
      called in turn) and the names of the GPU activities of its first call, in
      order; empty without a GPU.
    """
    # Round-robin over the labels, so a clock ramp or a cold cache at the start of the
    # session does not fall on one label's calls alone.
    order = [(label, fn) for _ in range(repeats) for label, fn in fns.items()]
    per_device = _trace_calls([fn for _, fn in order])
    if not per_device:
        return {}
    calls: dict[str, list[list[tuple[str, int, int]]]] = {}
    for (label, _), acts in zip(order, per_device[min(per_device)], strict=True):
        calls.setdefault(label, []).append(acts)
    out = {}
    for label, per_call in calls.items():
        intervals = [[(s, e) for _, s, e in c] for c in per_call]
        out[label] = {
            "span_s": statistics.median(_span(c) if c else 0 for c in intervals) * 1e-9,
            "busy_s": statistics.median(_busy(c) for c in intervals) * 1e-9,
            "activities": [name for name, _, _ in sorted(per_call[0], key=lambda a: a[1])],
        }
    return out


def call_spans(fns: list[Callable[[], object]]) -> list[float | None]:
    """The span (seconds, see the module doc) of one synchronized call of each
    of ``fns``, all under one profiler trace (the trace's start and stop are
    paid once); ``None`` for a call with no GPU activity, every entry
    ``None`` on a machine without a GPU."""
    per_device = _trace_calls(fns)
    if not per_device:
        return [None] * len(fns)
    calls = per_device[min(per_device)]
    return [(_span([(s, e) for _, s, e in c]) * 1e-9 if c else None) for c in calls]


def _trace(fn: Callable[[], object], repeats: int) -> dict[str, list[list[tuple[str, int, int]]]]:
    """``{device_plane_name: per call [(name, start_ns, end_ns)]}`` from one trace
    (calls without activity dropped)."""
    return {name: [c for c in calls if c] for name, calls in _trace_calls([fn] * repeats).items()}


def _trace_calls(
    fns: list[Callable[[], object]],
) -> dict[str, list[list[tuple[str, int, int]]]]:
    """``{device_plane_name: per call of fns [(name, start_ns, end_ns)]}`` from one trace."""
    with tempfile.TemporaryDirectory() as tmp:
        with jax.profiler.trace(tmp):
            for i, fn in enumerate(fns):
                with jax.profiler.TraceAnnotation(f"{_MARK}{i}"):
                    jax.block_until_ready(fn())
        traces = sorted(Path(tmp).rglob("*.xplane.pb"))
        if not traces:
            return {}
        data = jax.profiler.ProfileData.from_file(str(traces[-1]))
    windows: list[tuple[float, float]] = []
    devices: dict[str, list[tuple[str, int, int]]] = {}
    for plane in data.planes:
        is_gpu = plane.name.startswith("/device:GPU")
        for line in plane.lines:
            if is_gpu and line.name.startswith(_DERIVED):
                continue
            for ev in line.events:
                if is_gpu:
                    devices.setdefault(plane.name, []).append(
                        (ev.name, ev.start_ns, ev.start_ns + ev.duration_ns)
                    )
                elif ev.name.startswith(_MARK):
                    windows.append((ev.start_ns, ev.start_ns + ev.duration_ns))
    windows.sort()
    out = {}
    for name, acts in devices.items():
        per_call = [[a for a in acts if lo <= a[1] <= hi] for lo, hi in windows]
        if any(per_call):
            out[name] = per_call
    return out


def _span(acts: list[tuple[float, float]]) -> float:
    return max(e for _, e in acts) - min(s for s, _ in acts)


def _busy(acts: list[tuple[float, float]]) -> float:
    total, end = 0.0, -float("inf")
    for s, e in sorted(acts):
        if e > end:
            total += e - max(s, end)
            end = e
    return total
