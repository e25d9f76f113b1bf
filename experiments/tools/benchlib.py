"""What the benchmarks share: the shared graphs' names, wall and device timing
of a call, and the results file (``{"meta": ..., "rows": ...}``).

Imported from experiments/tools on ``sys.path`` (as devtime.py is).
"""

from __future__ import annotations

import json
import platform
import time
from collections.abc import Callable
from pathlib import Path

import jax
from devtime import device_times

#: The SNAP graphs of ../shared/data/graphs (``NAME.el.gz``) that every family's ground
#: truth and peer anchors cover.
SHARED_GRAPHS = (
    "ca-AstroPh",
    "ca-CondMat",
    "cit-HepTh",
    "com-amazon",
    "com-dblp",
    "ego-Facebook",
    "email-Enron",
    "soc-Epinions1",
    "wiki-Vote",
)


def wall_times(fn: Callable[[], object], repeats: int) -> tuple[list[float], object]:
    """Seconds of each of ``repeats`` synchronized calls of ``fn`` (no warm-up; the
    caller warms up), and the last call's result."""
    out, times = None, []
    for _ in range(repeats):
        t0 = time.perf_counter()
        out = jax.block_until_ready(fn())
        times.append(time.perf_counter() - t0)
    return times, out


def device_span(fn: Callable[[], object], repeats: int) -> dict[str, float]:
    """``{"device_s", "busy_s"}``: the profiler's median span and busy time of
    ``repeats`` calls of ``fn`` on the first GPU (devtime.py); empty without a GPU."""
    per_device = device_times(fn, repeats)
    if not per_device:
        return {}
    first = per_device[min(per_device)]
    return {"device_s": first["span_s"], "busy_s": first["busy_s"]}


def write_results(
    path: Path, device, repeats: int, rows: list[dict], timer: str, **meta: object
) -> None:
    """Writes ``{"meta": ..., "rows": rows}`` to ``path`` (folders created): the
    device, the versions, the date, ``repeats``, ``timer`` and the extra ``meta``."""
    info = {
        "device": str(device),
        "device_kind": device.device_kind,
        "platform": device.platform,
        "jax": jax.__version__,
        "python": platform.python_version(),
        "date": time.strftime("%Y-%m-%d %H:%M:%S"),
        "repeats": repeats,
        "timer": timer,
        **meta,
    }
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"meta": info, "rows": rows}, indent=1))
