"""Two k-truss benchmark results side by side (experiments/truss/bench.py JSON files).

Rows are matched by (graph, op, variant, k); times are device spans (the wall
clock where a file has none). ``x`` is base / tree (> 1: the tree is faster),
``x_peer`` the peer's time over the tree's.

Usage: python experiments/truss/compare.py BASE.json TREE.json
"""

from __future__ import annotations

import json
import sys
from pathlib import Path


def _rows(path: Path) -> dict[tuple, dict]:
    rows = json.loads(path.read_text())["rows"]
    return {(r["graph"], r["op"], r["variant"], r["k"]): r for r in rows}


def _time(row: dict | None) -> float | None:
    if row is None:
        return None
    return row.get("device_s", row["median_s"])


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 2:
        raise SystemExit(__doc__.strip().splitlines()[-1])
    base, tree = (_rows(Path(a)) for a in args)
    print(
        f"{'graph':14s} {'op':9s} {'variant':10s} {'k':>4s} {'base_s':>10s} {'tree_s':>10s} "
        f"{'x':>6s} {'peer_s':>10s} {'x_peer':>6s} ok"
    )
    for key in sorted(tree, key=lambda k: (k[0], k[1], k[2], -1 if k[3] is None else k[3])):
        graph, op, variant, k = key
        t, b = _time(tree[key]), _time(base.get(key))
        peer = tree[key].get("peer_s")
        print(
            f"{graph:14s} {op:9s} {variant:10s} {k!s:>4s} "
            f"{'-' if b is None else f'{b:.6f}':>10s} {t:10.6f} "
            f"{'-' if b is None else f'{b / t:.2f}':>6s} "
            f"{'-' if peer is None else f'{peer:.6f}':>10s} "
            f"{'-' if peer is None else f'{peer / t:.2f}':>6s} {tree[key]['correct']}"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
