"""Search-tree census of the matching plan under several matching orders (CPU, no GPU needed).

For each (data graph, query) and each order the plan of
:func:`kcjax.match.count.prepare_match` (pruning, candidate bitmaps, branch
sharing, the order: "estimate", "gvsm", "naive"; "candidates" is a host-side
RI-style order on the default plan's candidates) is built; ``tree_diag.cc``
(built here with g++ and loaded with ctypes) walks the depth-first tree and
reports the nodes per level, the source-list entries scanned, the candidates
among them, and how the nodes split over the roots. The count is checked
against counts.tsv when the walk finishes.

    python experiments/match/tree_diag.py --pairs yeast:query_dense_32_1 --cap 2e8
"""

from __future__ import annotations

import argparse
import csv
import ctypes
import json
import subprocess
import tempfile
import time
from pathlib import Path

import numpy as np

import kcjax
from kcjax.experimental import match_query_spec as query_spec
from kcjax.experimental import prepare_match

ROOT = Path(__file__).resolve().parents[2]
SHARED = (
    next(
        (p for p in (ROOT.parent / "shared" / "data", ROOT / ".gpu") if (p / "matching").exists()),
        ROOT.parent / "shared" / "data",
    )
    / "matching"
)


def _lib() -> ctypes.CDLL:
    out = Path(tempfile.gettempdir()) / "kcjax_tree_diag.so"
    src = Path(__file__).with_name("tree_diag.cc")
    if not out.exists() or out.stat().st_mtime < src.stat().st_mtime:
        subprocess.run(["g++", "-O2", "-shared", "-fPIC", "-o", str(out), str(src)], check=True)
    lib = ctypes.CDLL(str(out))
    i32, i64, ptr = ctypes.c_int32, ctypes.c_int64, ctypes.c_void_p
    lib.tree_census.restype = i64
    lib.tree_census.argtypes = [i32, i32, ptr, ptr, ptr, ptr, i64, ptr, ptr, i64, i64] + [ptr] * 5
    return lib


def _ptr(a: np.ndarray):
    return a.ctypes.data_as(ctypes.c_void_p)


def candidates_order(adj: np.ndarray, sizes: np.ndarray) -> np.ndarray:
    """A GraphQL/RI-style order: fewest candidates first, then most backward edges
    (ties: fewest candidates, then most neighbours).

    Args:
      adj: bool[q, q] query adjacency (symmetric, no loops).
      sizes: int[q] candidates per query vertex (after pruning).

    Returns:
      int32[q]: the query vertex matched at each level (a permutation).
    """
    order, seen = [], np.zeros(adj.shape[0], bool)
    deg = adj.sum(1)
    for _ in range(adj.shape[0]):
        backward = (adj & seen[None, :]).sum(1)
        frontier = (backward > 0) & ~seen
        pool = frontier if frontier.any() else ~seen
        key = [
            (-backward[u], sizes[u], -deg[u]) if pool[u] else (1, 0, 0) for u in range(adj.shape[0])
        ]
        u = min(range(adj.shape[0]), key=lambda i: key[i])
        order.append(u)
        seen[u] = True
    return np.asarray(order, np.int32)


def census(lib, p, cand_q: np.ndarray, adj: np.ndarray, order: np.ndarray, cap: int) -> dict:
    """Tree census of plan ``p`` with the levels in ``order`` (query vertex per level)."""
    q = order.size
    cand = np.ascontiguousarray(cand_q[order])
    adj_l = adj[np.ix_(order, order)]
    back = np.array([sum(1 << j for j in range(i) if adj_l[i, j]) for i in range(q)], np.uint32)
    indptr = np.asarray(p.indptr, np.int32)
    n = indptr.size - 1
    deg = np.diff(indptr)
    bits = np.unpackbits(cand[0].view(np.uint8), bitorder="little")[:n].astype(bool)
    roots = np.nonzero(bits)[0].astype(np.int32)
    roots = roots[np.argsort(-deg[roots], kind="stable")]
    nodes, scanned, listed = (np.zeros(q, np.int64) for _ in range(3))
    per_root = np.zeros(roots.size, np.int64)
    count = np.zeros(2, np.uint64)
    t = time.perf_counter()
    total = lib.tree_census(
        n, q, _ptr(indptr), _ptr(np.asarray(p.indices, np.int32)),
        _ptr(np.asarray(p.mult, np.int32)), _ptr(cand), cand.shape[1], _ptr(back),
        _ptr(roots), roots.size, int(cap), _ptr(nodes), _ptr(scanned), _ptr(listed),
        _ptr(per_root), _ptr(count),
    )  # fmt: skip
    heavy = np.sort(per_root)[::-1]
    return {
        "order": order.tolist(),
        "backward": [bin(int(b)).count("1") for b in back],
        "finished": bool(total < cap),
        "seconds": time.perf_counter() - t,
        "nodes_total": int(total),
        "nodes": nodes.tolist(),
        "scanned": scanned.tolist(),
        "scanned_candidates": listed.tolist(),
        "count": int(count[0]) + (int(count[1]) << 64),
        "roots": int(roots.size),
        "roots_with_work": int(np.sum(per_root > 1)),
        "top_root_share": [float(x) for x in heavy[:4] / max(total, 1)],
        "level1_nodes": int(nodes[1]) if q > 1 else 0,
    }


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pairs", nargs="+", required=True, help="graph:query")
    ap.add_argument("--cap", type=float, default=1e8, help="stop after this many tree nodes")
    ap.add_argument("--orders", nargs="+", default=["estimate", "gvsm"])
    ap.add_argument("--out", type=Path, default=None)
    args = ap.parse_args(argv)
    with open(SHARED / "counts.tsv") as f:
        truth = {
            (r["data_graph"], r["query"]): int(r["embeddings"])
            for r in csv.DictReader(f, delimiter="\t")
        }
    lib = _lib()
    out, graphs = [], {}
    for pair in args.pairs:
        g, qn = pair.split(":")
        if g not in graphs:
            graphs[g] = kcjax.load_labeled(SHARED / f"{g}.graph.gz")
        query = kcjax.load_labeled(SHARED / "queries" / g / f"{qn}.graph")
        spec = query_spec(query)
        adj = spec.adjacency()
        for name in args.orders:
            p = prepare_match(graphs[g], spec, order="estimate" if name == "candidates" else name)
            lvl = np.asarray(p.order)
            cand_lvl = np.asarray(p.cand)
            cand_q = np.empty_like(cand_lvl)
            cand_q[lvl] = cand_lvl
            sizes = np.array([int(np.unpackbits(r.view(np.uint8)).sum()) for r in cand_q])
            order = candidates_order(adj, sizes) if name == "candidates" else lvl
            res = census(lib, p, cand_q, adj, np.asarray(order), int(args.cap))
            res.update(graph=g, query=qn, method=name, cand_sizes=sizes.tolist())
            res["correct"] = (res["count"] == truth.get((g, qn))) if res["finished"] else None
            out.append(res)
            print(
                f"{g:11s} {qn:18s} {name:10s} nodes {res['nodes_total']:>12d}"
                f"{'' if res['finished'] else '+'} scanned {sum(res['scanned']):>13d}"
                f" roots {res['roots']:>6d} lvl1 {res['level1_nodes']:>8d}"
                f" top {res['top_root_share'][0]:.3f} ok {res['correct']} {res['seconds']:.1f}s",
                flush=True,
            )
    if args.out:
        args.out.write_text(json.dumps(out, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
