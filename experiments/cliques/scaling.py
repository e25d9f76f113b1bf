"""Multi-device scaling of the sharded k-clique count (KCMiner Fig. 10 analogue).

For every graph, k and device count D (a prefix of ``jax.devices()``), the
edge tasks are split once with :func:`kcjax.split_tasks`
(``balanced`` and ``round_robin``), placed on a 1-D mesh of D devices, and
the sharded count (``shard_map`` + exact ``psum``) is timed: wall clock of a
synchronized call, median of ``--repeats`` after a warm-up. On GPUs the JAX
profiler also gives every device's busy time inside a call (the load
balance: max / mean busy). The split itself (one triangle pass and a sort) is
timed separately. Speedup is the 1-device time over the D-device time, same
split.

Usage:
  python experiments/cliques/scaling.py --graphs com-dblp rmat21 --ks 5-8 \
      --out experiments/results/cliques/scaling.json
"""

from __future__ import annotations

import argparse
import json
import platform
import statistics
import sys
import time
from pathlib import Path

import jax
import numpy as np
from jax.sharding import Mesh, NamedSharding
from jax.sharding import PartitionSpec as P

import kcjax
from kcjax import limbs_to_int

_HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(_HERE), str(_HERE.parent / "tools")]  # also under python -P
from bench import _ranges, ground_truth, load_graph  # noqa: E402
from devtime import device_times  # noqa: E402


def run(dag: kcjax.DAG, k: int, devices: list, strategy: str, repeats: int, profile: bool):
    mesh = Mesh(np.array(devices), ("d",))
    t0 = time.perf_counter()
    tasks = jax.block_until_ready(kcjax.split_tasks(dag, len(devices), strategy=strategy))
    split_s = time.perf_counter() - t0
    dag_g = jax.tree.map(lambda x: jax.device_put(x, NamedSharding(mesh, P())), dag)
    tasks_g = jax.device_put(tasks, NamedSharding(mesh, P("d")))

    def call():
        return kcjax.count_cliques_sharded(dag_g, k, mesh, tasks=tasks_g)

    out = jax.block_until_ready(call())  # warm-up
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        out = jax.block_until_ready(call())
        times.append(time.perf_counter() - t0)
    row = {
        "devices": len(devices),
        "strategy": strategy,
        "median_s": statistics.median(times),
        "times_s": times,
        "split_s": split_s,
        "count": str(limbs_to_int(np.asarray(out.addressable_data(0))[k])),
    }
    if profile:
        per_dev = device_times(call, min(repeats, 3))
        busy = [v["busy_s"] for v in per_dev.values()]
        row["busy_s"] = {name: v["busy_s"] for name, v in sorted(per_dev.items())}
        row["span_s"] = {name: v["span_s"] for name, v in sorted(per_dev.items())}
        if busy:
            row["imbalance"] = max(busy) / statistics.mean(busy)
    return row


def _write(path: Path, devices: list, repeats: int, rows: list[dict]) -> None:
    meta = {
        "devices": [str(d) for d in devices],
        "device_kind": devices[0].device_kind,
        "jax": jax.__version__,
        "python": platform.python_version(),
        "date": time.strftime("%Y-%m-%d %H:%M:%S"),
        "repeats": repeats,
    }
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"meta": meta, "rows": rows}, indent=1))


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--graphs", nargs="+", default=["com-dblp"])
    p.add_argument("--ks", default="5-8")
    p.add_argument("--devices", default=None, help="device counts, e.g. 1,2 (default: 1..all)")
    p.add_argument("--strategies", nargs="+", default=list(kcjax.STRATEGIES))
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--budget", type=float, default=60.0, help="skip larger k past this (s)")
    p.add_argument("--out", type=Path, default=None)
    args = p.parse_args(argv)

    all_devices = jax.devices()
    counts = _ranges(args.devices) if args.devices else list(range(1, len(all_devices) + 1))
    counts = [d for d in counts if d <= len(all_devices)]
    profile = all_devices[0].platform == "gpu"
    truth = ground_truth()
    rows = []
    for name in args.graphs:
        dag = jax.block_until_ready(kcjax.orient(load_graph(name)))
        print(f"# {name}: n={dag.num_nodes} m={dag.num_edges}", file=sys.stderr, flush=True)
        for k in _ranges(args.ks):
            slow = False
            for strategy in args.strategies:
                base = None
                for d in counts:
                    row = run(dag, k, all_devices[:d], strategy, args.repeats, profile)
                    row.update(graph=name, k=k)
                    want = truth.get((name, k))
                    row["correct"] = None if want is None else int(row["count"]) == want
                    base = base or row["median_s"]
                    row["speedup"] = base / row["median_s"]
                    rows.append(row)
                    if args.out:  # after every row, so a run cut short keeps its rows
                        _write(args.out, all_devices, args.repeats, rows)
                    print(
                        f"{name:12s} k={k} {strategy:11s} D={d} {row['median_s']:9.4f}s "
                        f"x{row['speedup']:.2f} imbalance={row.get('imbalance', float('nan')):.3f} "
                        f"ok={row['correct']}",
                        file=sys.stderr,
                        flush=True,
                    )
                    slow |= row["median_s"] * (args.repeats + 4) > args.budget
            if slow:
                break
    head = f"{'graph':12s} {'k':>2s} {'split':11s} {'D':>2s} {'time_s':>9s} {'speedup':>7s}"
    print(head + " imbal ok")
    for r in rows:
        print(
            f"{r['graph']:12s} {r['k']:2d} {r['strategy']:11s} {r['devices']:2d} "
            f"{r['median_s']:9.4f} {r['speedup']:7.2f} {r.get('imbalance', float('nan')):5.3f} "
            f"{r['correct']}"
        )
    return 0 if all(r["correct"] is not False for r in rows) else 1


if __name__ == "__main__":
    raise SystemExit(main())
