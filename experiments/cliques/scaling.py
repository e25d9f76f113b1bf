"""Multi-device scaling of the k-clique counts (KCMiner Fig. 10 analogue), every method.

A row is (graph, method, k): ``kcminer`` (or any enumeration method: edge
tasks dealt by ``--strategies``), ``pivot`` (root vertices dealt by their
estimated pivot cost), or ``allk`` (``count_all_cliques``: every size at
once, k = "all"). For each device count D (a prefix of ``jax.devices()``) the
eager public call is timed: D = 1 is the plain one-device call (no mesh), D >
1 ``count_cliques(..., mesh=)`` on a 1-D mesh of D devices with the
fewer-devices policy switched off (every device runs); ``policy_devices``
says how many the policy would have used (its time is the row of that D).
Wall clock of a synchronized call, median of ``--repeats`` after a warm-up
(the memoized deal and placement are then built). On GPUs the JAX profiler
gives every device's busy time inside a call (``busy_s`` per device;
``balance`` = max / mean) and the host's share (wall minus the longest
device span). Counts are checked against the one-device call and
../shared/data/graphs/clique_counts.tsv.

``--suite mesh`` is the issue's set in priority order (rows of 20 ms and more
on one H200 by experiments/results/cliques/h200_anchors.json,
h200_table2.json, h200_rmat22_table.json, then short rows that check that no
call gets slower); ``--time-limit`` stops starting rows, the results file is
written after every row.

Usage (4 GPUs, about 5 minutes):
  python experiments/cliques/scaling.py --suite mesh --devices 1,2,4 --time-limit 300 \
      --out experiments/results/cliques/scaling_mesh.json
  python experiments/cliques/scaling.py --graphs com-dblp --ks 5-8 --methods kcminer pivot
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import jax
import numpy as np
from jax.sharding import Mesh

import kcjax
from kcjax import experimental

_HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(_HERE), str(_HERE.parent / "tools")]  # also under python -P
from bench import _ranges, ground_truth, load_graph  # noqa: E402
from benchlib import wall_times, write_results  # noqa: E402
from devtime import device_times  # noqa: E402

#: ``--suite mesh``: (graph, method, k) in priority order. One-GPU times (H200)
#: from the committed results; rows below 20 ms close the list (the policy's check).
MESH_SUITE = [
    ("com-dblp", "kcminer", 8),  # 79 ms (anchors)
    ("ego-Facebook", "kcminer", 8),  # 140 ms
    ("ego-Facebook", "pivot", 7),  # 68 ms
    ("ego-Facebook", "pivot", 8),  # 404 ms
    ("soc-Epinions1", "pivot", 7),  # 26 ms
    ("soc-Epinions1", "pivot", 8),  # 70 ms
    # short rows: a mesh call must not be slower than one device
    ("soc-Epinions1", "kcminer", 7),  # about 3 ms: 0.77-0.85x on 2 GPUs before
    ("soc-Epinions1", "kcminer", 8),
    ("com-dblp", "kcminer", 6),  # about 2 ms
    ("com-dblp", "pivot", 8),  # 0.6 ms
    ("com-dblp", "allk", "all"),  # 4 ms
    ("email-Enron", "kcminer", 5),
    # more targets
    ("rmat22-2", "kcminer", 7),  # 36 ms (rmat22_table)
    ("rmat22-2", "kcminer", 8),  # 148 ms
    ("rmat22-2", "pivot", 6),  # 76 ms
    ("ca-AstroPh", "kcminer", 9),  # 109 ms (table2, older kernels)
    ("ego-Facebook", "allk", "all"),
    ("soc-Epinions1", "allk", "all"),
    ("com-dblp", "kcminer", 9),  # about 1 s (7 s in table2, before the level-3 units)
    ("rmat21", "kcminer", 4),  # R-MAT scale 21, edge factor 16: about 1 s
    ("rmat21", "pivot", 4),
    ("soc-Epinions1", "pivot", 9),
    ("ego-Facebook", "kcminer", 9),  # about 1.5 s
    ("ego-Facebook", "pivot", 9),
    ("rmat21", "kcminer", 5),
]
#: Rows at least this long on one device are the targets (3.5x on 4, 1.9x on 2).
TARGET_MIN_S = 0.02


def _call(graph, dag, method: str, k, mesh, strategy: str):
    if method == "allk":  # graph: the degeneracy-ordered DAG count_all_cliques orients by
        return lambda: kcjax.count_all_cliques(graph, mesh=mesh)
    return lambda: kcjax.count_cliques(dag, k, method=method, mesh=mesh, split=strategy)


def measure(graph, dag, method: str, k, devices: list, strategy: str, repeats: int, profile: bool):
    """One (row, device count): wall median, per-device busy time, the count."""
    d = len(devices)
    mesh = Mesh(np.array(devices), ("d",)) if d > 1 else None
    call = _call(graph, dag, method, k, mesh, strategy)
    with experimental.every_mesh_device():
        t0 = time.perf_counter()
        out = call()  # warm-up: compiles, builds the memoized deal and placement
        first_s = time.perf_counter() - t0
        times, out = wall_times(call, repeats)
        per_dev = device_times(call, min(repeats, 3)) if profile else {}
    row = {
        "devices": d,
        "strategy": strategy if method not in ("pivot", "allk") else "roots",
        "median_s": statistics.median(times),
        "times_s": times,
        "first_call_s": first_s,
        "count": {str(s): str(c) for s, c in out.items()} if isinstance(out, dict) else str(out),
    }
    if mesh is not None and method != "allk":
        row["policy_devices"] = experimental.mesh_devices(dag, k, mesh, method=method)
    elif mesh is not None:
        row["policy_devices"] = _allk_policy(graph, mesh)
    if per_dev:
        busy = {name: v["busy_s"] for name, v in sorted(per_dev.items())}
        row["busy_s"] = busy
        row["span_s"] = {name: v["span_s"] for name, v in sorted(per_dev.items())}
        row["balance"] = max(busy.values()) / statistics.mean(busy.values())
        row["host_s"] = row["median_s"] - max(row["span_s"].values())
    return row


def _allk_policy(dag, mesh: Mesh) -> int:
    hmax = experimental.max_out_degree(dag) + 1
    return experimental.mesh_devices(dag, hmax, mesh, method="pivot")


def _correct(row: dict, truth: dict, graph: str, k) -> bool | None:
    if isinstance(row["count"], dict):  # allk: every size against the table
        known = [(int(s), int(c)) for s, c in row["count"].items() if (graph, int(s)) in truth]
        return all(truth[(graph, s)] == c for s, c in known) if known else None
    want = truth.get((graph, k))
    return None if want is None else int(row["count"]) == want


def _fit(rows: list[dict]) -> dict[str, float]:
    """busy(D) = fixed + work / D from the 1-device busy time and the largest
    per-device busy time at the largest D: the per-device cost that more
    devices do not divide (kernel tails, serial units, launches)."""
    by_d = {r["devices"]: max(r["busy_s"].values()) for r in rows if r.get("busy_s")}
    if 1 not in by_d or len(by_d) < 2:
        return {}
    d = max(by_d)
    work = (by_d[1] - by_d[d]) * d / (d - 1)
    return {"fixed_s": by_d[1] - work, "divided_s": work}


def _rows_from_args(args: argparse.Namespace) -> list[tuple[str, str, int | str]]:
    if args.suite == "mesh":
        return list(MESH_SUITE)
    if args.rows:
        out = []
        for spec in args.rows:
            graph, method, ks = spec.split(":")
            out += (
                [(graph, method, "all")]
                if ks == "all"
                else [(graph, method, k) for k in _ranges(ks)]
            )
        return out
    out = []
    for graph in args.graphs:
        for method in args.methods:
            if method == "allk":
                out.append((graph, method, "all"))
            else:
                out += [(graph, method, k) for k in _ranges(args.ks)]
    return out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--suite", choices=("mesh",), default=None, help="the issue's row set")
    p.add_argument("--rows", nargs="*", default=None, help="GRAPH:METHOD:K (K a range or 'all')")
    p.add_argument("--graphs", nargs="+", default=["com-dblp"])
    p.add_argument("--ks", default="5-8")
    p.add_argument("--methods", nargs="+", default=["kcminer"], help="enumeration, pivot, allk")
    p.add_argument("--devices", default=None, help="device counts, e.g. 1,2,4 (default: 1..all)")
    p.add_argument("--strategies", nargs="+", default=None, help="edge-task splits")
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--budget", type=float, default=60.0, help="skip a row past this (s)")
    p.add_argument("--time-limit", type=float, default=None, help="start no row after (s)")
    p.add_argument("--out", type=Path, default=None)
    args = p.parse_args(argv)
    strategies = args.strategies or (["balanced"] if args.suite else list(kcjax.STRATEGIES))

    start = time.monotonic()
    all_devices = jax.devices()
    counts = _ranges(args.devices) if args.devices else list(range(1, len(all_devices) + 1))
    counts = [d for d in counts if d <= len(all_devices)]
    profile = all_devices[0].platform == "gpu"
    truth = ground_truth()
    rows, graphs, slow = [], {}, set()
    meta = {"device_count": len(all_devices), "device_counts": counts, "suite": args.suite}
    for name, method, k in _rows_from_args(args):
        if args.time_limit and time.monotonic() - start > args.time_limit:
            print(f"# time limit: stopped before {name} {method} k={k}", file=sys.stderr)
            break
        if (name, method) in slow:
            continue
        if name not in graphs:  # kept: the suite comes back to its graphs
            graph = load_graph(name)
            graphs[name] = (graph, jax.block_until_ready(kcjax.orient(graph)))
            dag = graphs[name][1]
            print(f"# {name}: n={dag.num_nodes} m={dag.num_edges}", file=sys.stderr, flush=True)
        graph, dag = graphs[name]
        if method == "allk":  # oriented once, so the mesh's memoized deal serves every call
            graph = jax.block_until_ready(kcjax.orient(graph, order="degeneracy"))
        enumeration = method not in ("pivot", "allk")
        for strategy in strategies if enumeration else [strategies[0]]:
            group = []
            for d in counts:
                row = measure(
                    graph, dag, method, k, all_devices[:d], strategy, args.repeats, profile
                )
                row.update(graph=name, method=method, k=k, device_kind=all_devices[0].device_kind)
                row["correct"] = _correct(row, truth, name, k)
                base = group[0] if group else row
                row["same_as_one_device"] = row["count"] == base["count"]
                row["speedup"] = base["median_s"] / row["median_s"]
                row["target"] = base["median_s"] >= TARGET_MIN_S
                group.append(row)
                rows.append(row)
                print(
                    f"{name:14s} {method:8s} k={k!s:4s} {row['strategy']:11s} D={d} "
                    f"{row['median_s']:9.4f}s x{row['speedup']:.2f} "
                    f"balance={row.get('balance', float('nan')):.3f} "
                    f"policy={row.get('policy_devices', 1)} ok={row['correct']}",
                    file=sys.stderr,
                    flush=True,
                )
                if row["median_s"] * (args.repeats + 4) > args.budget:
                    slow.add((name, method))
                    break
            fit = _fit(group)
            for row in group:
                row.update(fit)
            if args.out:  # after every row, so a run cut short keeps its rows
                write_results(args.out, all_devices[0], args.repeats, rows, "wall median", **meta)
    _table(rows)
    return 0 if all(r["correct"] is not False and r["same_as_one_device"] for r in rows) else 1


def _table(rows: list[dict]) -> None:
    print(
        f"{'graph':14s} {'method':8s} {'k':>4s} {'split':11s} {'D':>2s} {'time_s':>9s} "
        f"{'speedup':>7s} {'balance':>7s} {'policy':>6s} ok"
    )
    for r in rows:
        print(
            f"{r['graph']:14s} {r['method']:8s} {r['k']!s:>4s} {r['strategy']:11s} "
            f"{r['devices']:2d} {r['median_s']:9.4f} {r['speedup']:7.2f} "
            f"{r.get('balance', float('nan')):7.3f} {r.get('policy_devices', 1):6d} "
            f"{r['correct'] is not False and r['same_as_one_device']}"
        )


if __name__ == "__main__":
    raise SystemExit(main())
