"""Side by side: the rows of several bench.py results files (one column each).

Kronecker rows give the median time and the Graph500 GTEPS (harmonic mean, edges
once); shared rows the median time over their sources and the least speedup over
the best peer.

    python3 -P experiments/bfs/compare.py new.json base.json [--names new,base]
"""

from __future__ import annotations

import argparse
import json
import statistics
from collections import defaultdict
from pathlib import Path


def summarize(path: Path) -> dict[tuple[str, str], str]:
    """(graph, method) -> a cell: "ms (GTEPS)" or "ms (least x vs peer)"."""
    shared: dict[tuple[str, str], list[dict]] = defaultdict(list)
    cells = {}
    for row in json.loads(path.read_text())["rows"]:
        key = (row["graph"], row["method"])
        if row["section"] == "kron":
            ms = row["time_median_s"] * 1e3
            cells[key] = f"{ms:.3f} ({row['gteps_hmean_once']:.1f})"
        elif row["section"] == "shared":
            shared[key].append(row)
    for key, rows in shared.items():
        ms = statistics.median(r["time_s"] for r in rows) * 1e3
        least = min(r["speedup_vs_best"] for r in rows)
        cells[key] = f"{ms:.3f} ({least:.2f}x)"
    return cells


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("files", nargs="+", type=Path)
    ap.add_argument("--names", default="", help="column names (default: the file stems)")
    args = ap.parse_args()
    names = args.names.split(",") if args.names else [f.stem for f in args.files]
    columns = [summarize(f) for f in args.files]
    keys = sorted({k for c in columns for k in c})
    print("| graph | method | " + " | ".join(names) + " |")
    print("|---|---|" + "---|" * len(names))
    for key in keys:
        print(f"| {key[0]} | {key[1]} | " + " | ".join(c.get(key, "-") for c in columns) + " |")


if __name__ == "__main__":
    main()
