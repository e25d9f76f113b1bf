"""Timeline of one truss decomposition: levels, rounds, frontier and live sizes.

A host replay (numpy) of exactly the synchronous rounds the CUDA peeling runs,
from the public API only (``Graph.edges()``, the CSR): the triangles are
listed once from the degree orientation; then, level by level, every live edge
with support <= level forms the first frontier, and each round removes the
frontier, takes one support from every other live edge of each live triangle
it closes (a triangle dies with its first removed edge, so it costs each other
edge one support once), and makes the edges that fall to the level the next
frontier. Levels without a frontier are jumped to the smallest live support.
The replay's trussness is checked against ``kcjax.truss_numbers`` (CPU).

The device time of each phase (kernels) comes from the profiler in bench.py;
this replay gives the shape of the work: how many levels and rounds, and how
large the frontiers and the live set are when they run.

Usage:
  python experiments/truss/timeline.py com-dblp soc-Epinions1 --out timeline.json
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import jax
import numpy as np

import kcjax

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE)]
from bench import load_graph  # noqa: E402


def triangles(graph: kcjax.Graph, max_pairs: int = 400_000_000) -> np.ndarray:
    """int64[T, 3]: the edge ids (positions in ``graph.edges()``) of every triangle.

    Raises:
      ValueError: when listing would test more than ``max_pairs`` wedges.
    """
    src, dst = (np.asarray(a).astype(np.int64) for a in graph.edges())
    n = graph.num_nodes
    m = src.size
    deg = np.diff(np.asarray(graph.indptr)).astype(np.int64)
    # Orient each edge from its lower (degree, id) endpoint; out-lists sorted by head.
    low = (deg[src] < deg[dst]) | ((deg[src] == deg[dst]) & (src < dst))
    a = np.where(low, src, dst)
    b = np.where(low, dst, src)
    ids = np.arange(m, dtype=np.int64)
    order = np.lexsort((b, a))
    a, b, ids = a[order], b[order], ids[order]
    outdeg = np.bincount(a, minlength=n)
    ptr = np.concatenate([[0], np.cumsum(outdeg)])
    pos_in_list = np.arange(m) - ptr[a]
    follow = outdeg[a] - 1 - pos_in_list  # later entries of the same out-list
    total = int(follow.sum())
    if total > max_pairs:
        raise ValueError(f"{total} wedges exceed max_pairs={max_pairs}")
    keys = src * n + dst  # sorted: edges() is in CSR order with src < dst
    out = []
    chunk = 1 << 22
    start = 0
    while start < m:
        # Out-edges [start, stop) with at most ~chunk wedges.
        cum = np.cumsum(follow[start:])
        stop = start + max(1, int(np.searchsorted(cum, chunk, side="right")))
        f = follow[start:stop]
        p = np.repeat(np.arange(start, stop), f)
        first = np.repeat(np.cumsum(f) - f, f)
        q = p + 1 + (np.arange(p.size) - first)
        v, w = b[p], b[q]
        lo, hi = np.minimum(v, w), np.maximum(v, w)
        key = lo * n + hi
        j = np.searchsorted(keys, key)
        j = np.minimum(j, m - 1)
        hit = keys[j] == key
        out.append(np.stack([ids[p][hit], ids[q][hit], j[hit]], axis=1))
        start = stop
    return np.concatenate(out) if out else np.zeros((0, 3), np.int64)


def replay(m: int, tri: np.ndarray, compact_divisor: int = 8) -> tuple[np.ndarray, list[dict]]:
    """Trussness per edge and the per-level timeline of the CUDA kernel's steps.

    Each entry: ``level``, ``live`` (live edges when the level starts), ``scans``
    (entries of the live-edge list that each scan before the level's first round
    read; more than one when the level was jumped to), ``compacted`` (whether each
    of those scans compacted the list: TrussPolicy::kCompactDivisor is
    ``compact_divisor``), ``frontiers`` (edges per round; level 0's support-0
    edges are removed by its scan, no round), ``rounds`` and ``removed``. The
    kernel takes one step (one grid-wide sync) per scan and per round.
    """
    t = tri.shape[0]
    flat = tri.reshape(-1)
    inc_order = np.argsort(flat, kind="stable")
    inc_tri = inc_order // 3
    inc_ptr = np.concatenate([[0], np.cumsum(np.bincount(flat, minlength=m))])
    sup = np.bincount(flat, minlength=m).astype(np.int64)
    live = np.ones(m, bool)
    tri_live = np.ones(t, bool)
    truss = np.zeros(m, np.int32)
    levels: list[dict] = []
    level, remaining = 0, m
    list_size, died, first = m, 0, True
    scans: list[int] = []
    compacted: list[bool] = []
    while True:
        # One scan step at `level`: its first frontier, and maybe a compaction.
        frontier = np.flatnonzero(live & (sup <= level))
        compact = first or died * compact_divisor >= list_size
        scans.append(list_size)
        compacted.append(bool(compact))
        if compact:
            list_size, died, first = remaining - frontier.size, 0, False
        if frontier.size == 0:
            if remaining == 0:
                break
            level = int(sup[live].min())  # jump: the next step scans again
            continue
        entry = {"level": level, "live": remaining, "scans": scans, "compacted": compacted}
        entry["frontiers"] = []
        scans, compacted = [], []
        in_f = np.zeros(m, bool)
        silent = level == 0
        while frontier.size:
            if not silent:
                entry["frontiers"].append(int(frontier.size))
                died += frontier.size
            in_f[frontier] = True
            lens = inc_ptr[frontier + 1] - inc_ptr[frontier]
            base = np.repeat(inc_ptr[frontier] - (np.cumsum(lens) - lens), lens)
            ts = inc_tri[base + np.arange(int(lens.sum()))]
            ts = np.unique(ts[tri_live[ts]])
            tri_live[ts] = False
            e = tri[ts].reshape(-1)
            e = e[~in_f[e]]
            before = sup > level
            sup -= np.bincount(e, minlength=m)
            live[frontier] = False
            truss[frontier] = level + 2
            remaining -= frontier.size
            in_f[frontier] = False
            nxt = live & before & (sup <= level)
            sup[nxt] = level
            frontier = np.flatnonzero(nxt)
        entry["rounds"] = len(entry["frontiers"])
        entry["removed"] = entry["live"] - remaining
        levels.append(entry)
        if silent:  # the next step sees no round and jumps to the smallest support
            if remaining == 0:
                scans.append(list_size)
                compacted.append(False)
                break
            level = int(sup[live].min())
        else:
            level += 1
    if levels:
        levels[-1]["final_scans"] = scans
    return truss, levels


def timeline(name: str) -> dict:
    """The replay of graph ``name`` (a shared graph or ``rmatS-EF``), checked."""
    cpu = jax.devices("cpu")[0]
    graph = jax.device_put(load_graph(name), cpu)
    tri = triangles(graph)
    truss, levels = replay(graph.num_edges, tri)
    with jax.default_device(cpu):
        want = np.asarray(kcjax.truss_numbers(graph))  # the C++ twin
    rounds = [lv["rounds"] for lv in levels]
    scans = [n for lv in levels for n in lv["scans"] + lv.get("final_scans", [])]
    return {
        "graph": name,
        "edges": graph.num_edges,
        "triangles": int(tri.shape[0]),
        "k_max": int(truss.max(initial=2)),
        "levels": len(levels),
        "rounds": int(sum(rounds)),
        "max_rounds": max(rounds, default=0),
        "scans": len(scans),
        "scanned": int(sum(scans)),
        "steps": int(sum(rounds)) + len(scans),
        "matches_cpu": bool(np.array_equal(truss, want)),
        "per_level": levels,
    }


def print_timeline(t: dict, width: int = 12) -> None:
    """A short per-level table: level, live edges, list entries scanned, rounds,
    removed edges and the first frontier sizes."""
    print(
        f"{t['graph']}: m={t['edges']} triangles={t['triangles']} k_max={t['k_max']} "
        f"levels={t['levels']} rounds={t['rounds']} (max {t['max_rounds']}) "
        f"scans={t['scans']} (entries read {t['scanned']} = {t['scanned'] / t['edges']:.1f} m) "
        f"steps={t['steps']} matches_cpu={t['matches_cpu']}"
    )
    print(
        f"  {'level':>5s} {'live':>8s} {'scanned':>15s} {'rounds':>6s} {'removed':>7s}  frontiers"
    )
    for lv in t["per_level"]:
        sizes = lv["frontiers"]
        shown = " ".join(str(s) for s in sizes[:width]) + (" ..." if len(sizes) > width else "")
        scanned = "+".join(str(n) for n in lv["scans"])
        print(
            f"  {lv['level']:5d} {lv['live']:8d} {scanned:>15s} {lv['rounds']:6d} "
            f"{lv['removed']:7d}  {shown}"
        )


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("graphs", nargs="+", help="shared graph names or rmatS-EF")
    ap.add_argument("--out", type=Path, default=None, help="JSON file for every timeline")
    args = ap.parse_args(argv)
    results = []
    for name in args.graphs:
        t = timeline(name)
        print_timeline(t)
        results.append(t)
    if args.out is not None:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps(results))
    return 0 if all(t["matches_cpu"] for t in results) else 1


if __name__ == "__main__":
    raise SystemExit(main())
