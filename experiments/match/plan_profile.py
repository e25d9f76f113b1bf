"""Where the device time of one eager count goes: its GPU activities grouped by name.

For each graph:query, the activities of ``repeats`` calls of
``kcjax.count_embeddings_limbs`` (one program, or the compacted path with
``--compact``) from the profiler (experiments/tools/devtime.py): per name the
median time per call and the number of launches, the top rows first, and the
call's activity count, busy and span; ``--gaps US`` lists the idle gaps of
the last call longer than US microseconds. Needs a GPU.

    python experiments/match/plan_profile.py hprd:query_dense_16_1 yeast:query_dense_16_2
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from collections import defaultdict
from pathlib import Path

import jax

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tools"))
from devtime import call_activities  # noqa: E402

import kcjax  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
SHARED = next(
    (p for p in (ROOT.parent / "shared" / "data", ROOT / ".gpu") if (p / "matching").exists()),
    ROOT.parent / "shared" / "data",
)


def profile(graph: str, query: str, repeats: int, compact: bool | None) -> dict:
    """Per activity name: median seconds per call and launches per call."""
    data = kcjax.load_labeled(SHARED / "matching" / f"{graph}.graph.gz")
    q = kcjax.load_labeled(SHARED / "matching" / "queries" / graph / f"{query}.graph")
    fn = lambda: kcjax.count_embeddings_limbs(data, q, compact=compact)  # noqa: E731
    jax.block_until_ready(fn())
    calls = call_activities(fn, repeats)
    per_name: dict[str, list[list[float]]] = defaultdict(lambda: [[] for _ in calls])
    for i, acts in enumerate(calls):
        for name, t0, t1 in acts:
            per_name[name][i].append((t1 - t0) * 1e-9)
    rows = sorted(
        (
            {
                "name": name,
                "median_s": statistics.median(sum(c) for c in per_call),
                "launches": statistics.median(len(c) for c in per_call),
            }
            for name, per_call in per_name.items()
        ),
        key=lambda r: -r["median_s"],
    )
    spans = [(max(t1 for _, _, t1 in a) - min(t0 for _, t0, _ in a)) * 1e-9 for a in calls if a]
    last = sorted(calls[-1], key=lambda a: a[1]) if calls else []
    timeline = [
        {"name": name, "start_us": (t0 - last[0][1]) * 1e-3, "us": (t1 - t0) * 1e-3}
        for name, t0, t1 in last
    ]
    return {
        "graph": graph,
        "query": query,
        "activities": statistics.median(len(a) for a in calls),
        "kernel_s": statistics.median(sum(t1 - t0 for _, t0, t1 in a) * 1e-9 for a in calls),
        "span_s": statistics.median(spans),
        "by_name": rows,
        "timeline": timeline,
    }


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("pairs", nargs="+", help="graph:query")
    p.add_argument("--repeats", type=int, default=5)
    p.add_argument("--top", type=int, default=15)
    p.add_argument("--compact", action="store_true", help="the compacted path")
    p.add_argument("--gaps", type=float, default=None, help="list the idle gaps over this (us)")
    p.add_argument("--out", type=Path, default=None)
    args = p.parse_args(argv)
    out = []
    for pair in args.pairs:
        graph, query = pair.split(":")
        res = profile(graph, query, args.repeats, True if args.compact else None)
        out.append(res)
        print(
            f"{graph} {query}: {res['activities']} activities, kernels {res['kernel_s'] * 1e3:.3f}"
            f" ms, span {res['span_s'] * 1e3:.3f} ms"
        )
        for r in res["by_name"][: args.top]:
            print(f"  {r['median_s'] * 1e6:9.1f} us {r['launches']:5.0f}x  {r['name'][:90]}")
        if args.gaps is not None:
            end = 0.0
            for i, a in enumerate(res["timeline"]):
                if a["start_us"] - end > args.gaps:
                    print(
                        f"  gap {a['start_us'] - end:7.1f} us before #{i} at {a['start_us']:7.1f}"
                        f" us: {a['name'][:70]}"
                    )
                end = max(end, a["start_us"] + a["us"])
    if args.out:
        args.out.write_text(json.dumps(out, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
