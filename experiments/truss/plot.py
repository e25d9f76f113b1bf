"""The k-truss figure: kcjax against KTrussExplorer on the shared graphs (one H200).

Left: the full decomposition (``truss_numbers``, one call for every k) after each step of
the h-index kernel (:data:`STEPS`, one committed results file each) beside the peer's two
runs (k = 3 plus k = k_max), which answer two k only. Right: one k-truss (``k_truss_mask``,
the default ``auto+core``) at k = 3 and k = k_max as a multiple of the peer's time for the
same k, with the 2x target (:data:`SINGLE_K`, the newest file with single-k rows). Times are
device spans from the results files; the peer's from ../shared/data/anchors. Needs
matplotlib (an experiments-only dependency).

Usage: python experiments/truss/plot.py [--out experiments/results/truss/fig_truss.png]
"""

from __future__ import annotations

import argparse
import csv
import json
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
RESULTS = ROOT / "experiments" / "results" / "truss"
#: (label, results file) of the decompositions drawn, oldest first.
STEPS = (
    ("h-index rounds", "h200_truss_hindex.json"),
    ("+ tiled DAG pass", "h200_truss_tiled_dag.json"),
    ("+ degree-bound store", "h200_truss_degree_bound.json"),
    ("+ asynchronous tail", "h200_truss_async_tail.json"),
)
#: The newest results file with single-k rows (the asynchronous tail's file has
#: decompositions only).
SINGLE_K = "h200_truss_degree_bound.json"
PEER_TSV = [
    ROOT / ".gpu" / "anchors" / "truss-peer-h200.tsv",
    ROOT.parent / "shared" / "data" / "anchors" / "truss-peer-h200.tsv",
]


def _rows(name: str) -> list[dict]:
    return json.loads((RESULTS / name).read_text())["rows"]


def _span(row: dict) -> float:
    return row.get("device_s", row["median_s"])


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, default=RESULTS / "fig_truss.png")
    args = ap.parse_args(argv)
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    peer: dict[str, dict[int, float]] = {}
    with next(p for p in PEER_TSV if p.exists()).open() as f:
        for r in csv.DictReader(f, delimiter="\t"):
            peer.setdefault(r["graph"], {})[int(r["k"])] = float(r["ktx_s"])
    graphs = sorted(peer)
    fig, (left, right) = plt.subplots(1, 2, figsize=(13, 4.4))
    width = 0.8 / (len(STEPS) + 1)
    for i, (label, name) in enumerate(STEPS):
        spans = {
            r["graph"]: _span(r)
            for r in _rows(name)
            if r["op"] == "decompose" and r["variant"] == "hindex"
        }
        xs = [g for g in range(len(graphs)) if graphs[g] in spans]
        left.bar(
            [x + i * width for x in xs],
            [spans[graphs[x]] * 1e3 for x in xs],
            width,
            label=f"kcjax, every k ({label})",
            color=f"C{i}",
        )
    left.bar(
        [x + len(STEPS) * width for x in range(len(graphs))],
        [sum(peer[g].values()) * 1e3 for g in graphs],
        width,
        label="KTrussExplorer, k = 3 + k_max",
        color="k",
    )
    left.set_xticks([x + 0.4 - width / 2 for x in range(len(graphs))], graphs, rotation=30)
    left.set_ylabel("device span (ms)")
    left.set_title("full truss decomposition", fontsize=10)
    left.set_ylim(top=left.get_ylim()[1] * 1.4)  # room for the legend above the bars
    left.legend(fontsize=7, ncols=2, loc="upper left")
    single = [r for r in _rows(SINGLE_K) if r["op"] == "k_truss" and r["variant"] == "auto+core"]
    for j, (which, marker) in enumerate((("k = 3", "o"), ("k = k_max", "s"))):
        pts = [
            (graphs.index(r["graph"]), peer[r["graph"]][r["k"]] / _span(r))
            for r in single
            if r["graph"] in peer and (r["k"] == 3) == (j == 0)
        ]
        right.plot([p[0] for p in pts], [p[1] for p in pts], marker, label=which, color=f"C{j}")
    right.axhline(2.0, color="k", lw=0.8, ls="--", label="target: 2x")
    right.set_yscale("log")
    right.set_xticks(range(len(graphs)), graphs, rotation=30)
    right.set_ylabel("speed-up over KTrussExplorer")
    right.set_title("one k-truss (k_truss_mask, auto+core)", fontsize=10)
    right.legend(fontsize=7)
    fig.tight_layout()
    args.out.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(args.out, dpi=110)
    print(args.out)


if __name__ == "__main__":
    main()
