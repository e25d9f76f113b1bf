"""Per-kernel device timeline of one count: where a short call's span goes.

For each (graph, k, method) the jitted count is warmed up and called
``--repeats`` times under the JAX profiler (devtime.py); the call with the
median span is printed as a timeline: every GPU activity (kernel, copy,
memset) with its start offset and duration, and the idle gaps between them
(host work inside the call, such as a read-back that sizes the next phase).

Usage (on the GPU machine):
  python experiments/cliques/timeline.py --graphs email-Enron wiki-Vote --ks 4 \
      --methods kcminer binary_search --out timeline.json
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from pathlib import Path

import jax

_HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(_HERE), str(_HERE.parent / "tools")]  # also under python -P
from bench import load_dag_via_cpu  # noqa: E402
from devtime import call_activities  # noqa: E402

from kcjax import count_cliques_limbs  # noqa: E402


def timeline(dag, k: int, method: str, repeats: int) -> list[dict]:
    """The activities of the median-span call: [{name, start_us, dur_us}]."""
    name, _, lam = method.partition("@")
    hint = int(dag.max_out_degree())  # as eager count_cliques passes it
    fn = jax.jit(
        lambda d: count_cliques_limbs(
            d, k, method=name, lam=float(lam) if lam else None, max_degree=hint
        )
    )
    jax.block_until_ready(fn(dag))
    calls = call_activities(lambda: fn(dag), repeats)
    if not calls:
        return []
    spans = [max(a[2] for a in c) - min(a[1] for a in c) for c in calls]
    mid = calls[spans.index(statistics.median_low(spans))]
    t0 = min(a[1] for a in mid)
    return [
        {"name": n, "start_us": (s - t0) / 1e3, "dur_us": (e - s) / 1e3}
        for n, s, e in sorted(mid, key=lambda a: a[1])
    ]


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--graphs", nargs="+", default=["email-Enron"])
    p.add_argument("--ks", nargs="+", type=int, default=[4])
    p.add_argument("--methods", nargs="+", default=["kcminer"])
    p.add_argument("--repeats", type=int, default=7)
    p.add_argument("--out", type=Path, default=None)
    args = p.parse_args(argv)
    rows = []
    for graph in args.graphs:
        dag = load_dag_via_cpu(graph)
        for k in args.ks:
            for method in args.methods:
                acts = timeline(dag, k, method, args.repeats)
                end = max((a["start_us"] + a["dur_us"] for a in acts), default=0.0)
                rows.append(
                    {"graph": graph, "k": k, "method": method, "span_us": end, "acts": acts}
                )
                print(f"## {graph} k={k} {method}: span {end:.1f} us")
                prev_end = 0.0
                for a in acts:
                    gap = a["start_us"] - prev_end
                    print(
                        f"  {a['start_us']:8.1f} +{a['dur_us']:7.1f}  (gap {gap:6.1f})  "
                        f"{a['name'][:90]}"
                    )
                    prev_end = max(prev_end, a["start_us"] + a["dur_us"])
    if args.out:
        args.out.write_text(json.dumps({"device": str(jax.devices()[0]), "rows": rows}, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
