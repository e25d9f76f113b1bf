"""Markdown tables of benchmark results against the published-peer anchors.

Usage: python experiments/report.py experiments/results/h200_kcminer_pivot.json
"""

from __future__ import annotations

import json
import sys
from collections import defaultdict


def main(path: str) -> None:
    data = json.loads(open(path).read())
    by_row: dict[tuple[str, int], dict] = defaultdict(dict)
    for r in data["rows"]:
        by_row[(r["graph"], r["k"])][r["method"]] = r
    print(
        f"{data['meta']['device_kind']}, jax {data['meta']['jax']}; seconds, median of "
        f"{data['meta']['repeats']} synchronized calls\n"
    )
    print("| graph | k | kcminer | pivot | best published enumeration | x | best published | x |")
    print("|---|---|---|---|---|---|---|---|")
    for (graph, k), methods in by_row.items():
        km, pv = methods.get("kcminer"), methods.get("pivot")
        any_row = km or pv
        be, ba = any_row.get("best_enumeration_s"), any_row.get("best_any_s")
        best = min(r["median_s"] for r in methods.values())
        ok = all(r["correct"] is not False for r in methods.values())
        xe = f"{be / km['median_s']:.2f}" if km and be and be != float("inf") else "-"
        xa = f"{ba / best:.2f}" if ba else "-"
        print(
            f"| {graph} | {k} | {km['median_s']:.6f} | {pv['median_s']:.6f} | "
            f"{be if be and be != float('inf') else '-'} ({any_row.get('best_enumeration_peer', '-')}) "
            f"| {xe} | {ba if ba else '-'} ({any_row.get('best_any_peer', '-')}) | {xa} |"
            + ("" if ok else " WRONG")
        )


if __name__ == "__main__":
    main(sys.argv[1])
