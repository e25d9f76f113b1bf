"""Conversion from nx.Graph by node labelling: the file's int ids, 0..n-1, strings.

For each shared graph (``--graphs``), the graph is read as networkx users
read a SNAP file (``nx.Graph`` with the file's ids as ints), then relabelled
0..n-1 (``nx.convert_node_labels_to_integers``) and as strings; each is
converted by the backend (its ``convert_from_nx``, as networkx calls it;
nothing cached: a fresh conversion each time), least and median of ``--repeats``.

    python3 -P experiments/nx/conversion.py --graphs com-dblp --out F.json

Run it with another tree's interpreter to compare builds (the script imports
the installed kcjax).
"""

from __future__ import annotations

import argparse
import gzip
import json
import platform
import statistics
import time
from pathlib import Path

import networkx as nx

import kcjax

ROOT = Path(__file__).resolve().parents[2]
DATA = next(
    (p for p in (ROOT.parent / "shared" / "data", ROOT / ".gpu") if (p / "graphs").exists()),
    ROOT.parent / "shared" / "data",
)


def read_snap(path: Path) -> nx.Graph:
    """The edge list as ``nx.read_edgelist(path, nodetype=int)`` builds it."""
    G = nx.Graph()
    with gzip.open(path, "rt") as f:
        G.add_edges_from(
            (int(a), int(b)) for a, b, *_ in (line.split() for line in f if line[0] != "#")
        )
    return G


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--graphs", nargs="+", default=["com-dblp"])
    p.add_argument("--repeats", type=int, default=5)
    p.add_argument("--out", type=Path, default=None)
    args = p.parse_args(argv)
    backend = nx.utils.backends._load_backend("kcjax")  # as networkx dispatches to it
    rows = []
    for name in args.graphs:
        G = read_snap(DATA / "graphs" / f"{name}.el.gz")
        H = nx.convert_node_labels_to_integers(G)
        for labels, g in (("file ids", G), ("0..n-1", H), ("strings", nx.relabel_nodes(H, str))):
            times = []
            for _ in range(args.repeats):
                t = time.perf_counter()
                backend.convert_from_nx(g)
                times.append(time.perf_counter() - t)
            rows.append(
                {
                    "graph": name,
                    "labels": labels,
                    "nodes": g.number_of_nodes(),
                    "edges": g.number_of_edges(),
                    "min_s": min(times),
                    "median_s": statistics.median(times),
                }
            )
            print(
                f"{name:12s} {labels:9s} {min(times):.3f} s (median {statistics.median(times):.3f})"
            )
    if args.out:
        meta = {
            "kcjax": kcjax.__version__,
            "python": platform.python_version(),
            "machine": platform.processor() or platform.machine(),
            "repeats": args.repeats,
        }
        args.out.write_text(json.dumps({"meta": meta, "rows": rows}, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
