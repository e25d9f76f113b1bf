"""Side-by-side table of bench.py results from different builds of one call.

    python experiments/cliques/compare.py tree=a.json tree=a_deep.json base=b.json ... \
        [--out all.json --note TEXT]

Arguments are NAME=PATH; files of one name are merged and missing files are
skipped. Prints, per (graph, k, method), each build's device time (median
device span, or wall clock where no profiler ran), its ratio to the first
build's, and whether every build counted the same. --out writes every row,
tagged with its build, into one JSON (with --note: what the builds are).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path


def _time(row: dict) -> float:
    return row.get("device_s") or row["median_s"]


def _key(row: dict) -> tuple:
    """(graph, k, method); scaling.py rows name their split and device count instead."""
    return row["graph"], row["k"], row.get("method") or f"{row['strategy']}x{row['devices']}"


def main(argv: list[str]) -> int:
    opts: dict[str, str] = {}
    for flag in ("--out", "--note"):
        if flag in argv:
            i = argv.index(flag)
            opts[flag], argv = argv[i + 1], argv[:i] + argv[i + 2 :]
    builds: dict[str, dict[tuple, dict]] = {}
    metas: dict[str, dict] = {}
    for arg in argv:
        name, _, path = arg.partition("=")
        if not path:
            print(f"expected NAME=PATH, got {arg!r}", file=sys.stderr)
            return 2
        rows = builds.setdefault(name, {})
        if Path(path).is_file():
            data = json.loads(Path(path).read_text())
            metas.setdefault(name, data["meta"])
            for r in data["rows"]:
                rows[_key(r)] = {**r, "build": name}
    names = list(builds)
    if not names or not builds[names[0]]:
        print("no rows", file=sys.stderr)
        return 1
    first = builds[names[0]]
    head = f"{'graph':14s} {'k':>2s} {'method':12s} " + " ".join(f"{n:>10s}" for n in names)
    print(head + " " + " ".join(f"{n + '/' + names[0]:>12s}" for n in names[1:]) + "  same")
    mismatch = 0
    for key in first:
        rows = [builds[n].get(key) for n in names]
        cells = " ".join(f"{_time(r):10.6f}" if r else f"{'-':>10s}" for r in rows)
        ratios = " ".join(
            f"{_time(r) / _time(rows[0]):12.3f}" if r else f"{'-':>12s}" for r in rows[1:]
        )
        same = len({r["count"] for r in rows if r}) == 1
        mismatch += not same
        print(f"{key[0]:14s} {key[1]:2d} {key[2]:12s} {cells} {ratios}  {same}")
    if "--out" in opts:
        rows = [r for n in names for r in builds[n].values()]
        meta = {"note": opts.get("--note", ""), "builds": metas}
        Path(opts["--out"]).write_text(json.dumps({"meta": meta, "rows": rows}, indent=1) + "\n")
    return 1 if mismatch else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
