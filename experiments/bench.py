"""k-clique counting benchmark: methods side by side on one device.

Scope (as the peers' anchors): the graph is loaded, canonicalized and oriented
on the device first (not timed); each timed call runs the count on the device
and waits for its result. Every (graph, k, method) is warmed up once, then
timed ``--repeats`` times; the median is reported. Counts are checked against
../shared/data/graphs/clique_counts.tsv where it has the value.

Usage:
  python experiments/bench.py --graphs email-Enron com-dblp --ks 4-8 \
      --methods kcminer binary_search pivot --out experiments/results/x.json
"""

from __future__ import annotations

import argparse
import json
import math
import platform
import statistics
import sys
import time
from pathlib import Path

import jax
import numpy as np

import kcjax
from kcjax import _ffi
from kcjax.cliques import ENUMERATION_METHODS, count_cliques_limbs, limbs_to_int
from kcjax.dense import count_cliques_dense

ROOT = Path(__file__).resolve().parents[1]
DATA_DIRS = [ROOT / ".gpu" / "graphs", ROOT.parent / "shared" / "data" / "graphs"]
ANCHORS = [
    ROOT / ".gpu" / "peer-best-h200.tsv",
    ROOT.parent / "shared" / "data" / "anchors" / "peer-best-h200.tsv",
]


def _first(paths: list[Path]) -> Path | None:
    return next((p for p in paths if p.exists()), None)


def _ranges(text: str) -> list[int]:
    out: list[int] = []
    for part in text.split(","):
        lo, _, hi = part.partition("-")
        out.extend(range(int(lo), int(hi or lo) + 1))
    return out


def ground_truth() -> dict[tuple[str, int], int]:
    data = _first(DATA_DIRS)
    if data is None:
        return {}
    table = {}
    for line in (data / "clique_counts.tsv").read_text().splitlines()[1:]:
        name, k, count, _ = line.split("\t")
        table[(name, int(k))] = int(count)
    return table


def anchors() -> dict[tuple[str, int], dict[str, float | str]]:
    path = _first(ANCHORS)
    if path is None:
        return {}
    rows = {}
    for line in path.read_text().splitlines()[1:]:
        f = line.split("\t")
        rows[(f[0], int(f[1]))] = {
            "best_any_s": float(f[2]),
            "best_any_peer": f[3],
            "best_enumeration_s": float(f[4]) if f[4] else math.inf,
            "best_enumeration_peer": f[5],
        }
    return rows


def load_graph(name: str) -> kcjax.Graph:
    if name.startswith("rmat"):
        from kcjax import generators

        scale = int(name[4:])
        return generators.rmat(scale, edge_factor=16, seed=1)
    data = _first(DATA_DIRS)
    if data is None:
        raise SystemExit(f"no graph directory among {DATA_DIRS}")
    return kcjax.load(data / f"{name}.el.gz")


def _timed(fn, repeats: int) -> tuple[float, list[float], object]:
    """Median of synchronized calls; also the per-call time of back-to-back calls.

    The synchronized time includes one Python dispatch and one host wait per
    call; the pipelined time (``repeats`` calls issued before one wait)
    amortizes both, so it is the closer measure of device time.
    """
    out = jax.block_until_ready(fn())  # warm-up: compile, first launch
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        out = jax.block_until_ready(fn())
        times.append(time.perf_counter() - t0)
    t0 = time.perf_counter()
    jax.block_until_ready([fn() for _ in range(repeats)])
    times.append((time.perf_counter() - t0) / repeats)
    return statistics.median(times[:-1]), times, out


def bench_one(dag: kcjax.DAG, k: int, method: str, repeats: int) -> tuple[float, list[float], int]:
    if method == "pivot":
        pmax = int(dag.max_out_degree())
        tasks = jax.numpy.arange(dag.num_nodes, dtype=jax.numpy.int32)

        def run():
            return _ffi.clique_pivot(
                dag.indptr, dag.indices, tasks, hmax=k, pmax=pmax, kmin=k, num_threads=0
            )

        med, times, _ = _timed(run, repeats)
        return med, times, kcjax.count_cliques(dag, k, method="pivot")
    if method == "dense":
        med, times, out = _timed(lambda: count_cliques_dense(dag, k), repeats)
        return med, times, limbs_to_int(np.asarray(out)[k])
    fn = jax.jit(lambda d: count_cliques_limbs(d, k, method=method))
    med, times, out = _timed(lambda: fn(dag), repeats)
    return med, times, limbs_to_int(np.asarray(out)[k])


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--graphs", nargs="+", default=["email-Enron", "com-dblp"])
    p.add_argument("--ks", default="4-8", help="sizes, e.g. 4-8 or 4,6")
    p.add_argument("--methods", nargs="+", default=["kcminer", "pivot"])
    p.add_argument("--repeats", type=int, default=5)
    p.add_argument("--order", default="degree", choices=kcjax.ORDERS)
    p.add_argument("--budget", type=float, default=30.0, help="skip slower methods at larger k (s)")
    p.add_argument("--out", type=Path, default=None)
    args = p.parse_args(argv)

    device = jax.devices()[0]
    truth, anchor = ground_truth(), anchors()
    rows = []
    for name in args.graphs:
        t0 = time.perf_counter()
        graph = load_graph(name)
        t_load = time.perf_counter() - t0
        t0 = time.perf_counter()
        dag = jax.block_until_ready(kcjax.orient(graph, order=args.order))
        t_orient = time.perf_counter() - t0
        print(
            f"# {name}: n={graph.num_nodes} m={graph.num_edges} load {t_load:.2f}s "
            f"orient {t_orient:.2f}s max_out={int(dag.max_out_degree())}",
            file=sys.stderr,
        )
        too_slow: set[str] = set()
        for k in _ranges(args.ks):
            for method in args.methods:
                if method in too_slow:
                    continue
                if method not in ("pivot", "dense", *ENUMERATION_METHODS):
                    raise SystemExit(f"unknown method {method}")
                med, times, count = bench_one(dag, k, method, args.repeats)
                want = truth.get((name, k))
                row = {
                    "graph": name,
                    "k": k,
                    "method": method,
                    "order": args.order,
                    "median_s": med,
                    "pipelined_s": times[-1],
                    "times_s": times[:-1],
                    "count": str(count),
                    "correct": None if want is None else count == want,
                    **anchor.get((name, k), {}),
                }
                rows.append(row)
                print(
                    f"{name:14s} k={k:2d} {method:14s} {med:10.6f}s "
                    f"pipelined {times[-1]:10.6f}s count={count} "
                    f"ok={row['correct']}",
                    file=sys.stderr,
                    flush=True,
                )
                if med * (args.repeats + 1) > args.budget:
                    too_slow.add(method)
    meta = {
        "device": str(device),
        "device_kind": device.device_kind,
        "platform": device.platform,
        "jax": jax.__version__,
        "python": platform.python_version(),
        "date": time.strftime("%Y-%m-%d %H:%M:%S"),
        "repeats": args.repeats,
        "timer": "wall clock around a synchronized call on a device-resident oriented graph",
    }
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps({"meta": meta, "rows": rows}, indent=1))
    _print_table(rows)
    return 0 if all(r["correct"] is not False for r in rows) else 1


def _print_table(rows: list[dict]) -> None:
    print(
        f"{'graph':14s} {'k':>2s} {'method':14s} {'median_s':>10s} {'pipelined':>10s} "
        f"{'best_enum':>10s} {'x_enum':>7s} {'best_any':>10s} {'x_any':>7s} ok"
    )
    for r in rows:
        be, ba = r.get("best_enumeration_s"), r.get("best_any_s")
        xe = f"{be / r['median_s']:7.2f}" if be and math.isfinite(be) else "      -"
        xa = f"{ba / r['median_s']:7.2f}" if ba else "      -"
        print(
            f"{r['graph']:14s} {r['k']:2d} {r['method']:14s} {r['median_s']:10.6f} "
            f"{r['pipelined_s']:10.6f} "
            f"{be if be else float('nan'):10.6f} {xe} {ba if ba else float('nan'):10.6f} {xa} "
            f"{r['correct']}"
        )


if __name__ == "__main__":
    raise SystemExit(main())
