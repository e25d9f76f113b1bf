"""Multi-device scaling of count_embeddings: the long counts.tsv queries on 1..D devices.

Rows (``QUERIES``, in priority order): every counts.tsv query of 50 ms or
more on one H200 (experiments/results/match/h200_match_rows_filter_kernel.json), the query
whose embeddings exceed device memory (email-Enron query_sparse_8_2, 2.04 s
on one H200, drawn again by beyond_memory.py), then short queries that check
that no call gets slower on a mesh. For each device count D (a prefix of
``jax.devices()``): D = 1 is the plain ``count_embeddings`` (no mesh), D > 1
``count_embeddings(..., mesh=)`` on a 1-D mesh of D devices (every device
runs). Wall clock of a synchronized call, median of ``--repeats``
after a warm-up; on GPUs each device's busy time (``balance`` = max / mean)
and the host's share. Counts are checked against counts.tsv.

Usage (4 GPUs, about 2 minutes):
  python experiments/match/scaling.py --devices 1,2,4 --time-limit 150 \
      --out experiments/results/match/scaling_mesh.json
"""

from __future__ import annotations

import argparse
import csv
import statistics
import sys
import tempfile
import time
from pathlib import Path

import jax
import numpy as np
from jax.sharding import Mesh

_HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(_HERE), str(_HERE.parent / "tools")]  # also under python -P
from benchlib import wall_times, write_results  # noqa: E402
from beyond_memory import SHARED, dropped  # noqa: E402
from devtime import device_times  # noqa: E402

import kcjax  # noqa: E402

#: (data graph, query), priority order; one-H200 times of h200_match_rows_filter_kernel.json.
QUERIES = [
    ("ca-AstroPh", "query_dense_16_3"),  # 562 ms
    ("ca-AstroPh", "query_dense_16_1"),  # 226 ms
    ("ca-AstroPh", "query_sparse_12_3"),  # 96 ms
    ("ca-AstroPh", "query_dense_12_2"),  # 70 ms
    ("email-Enron", "query_sparse_8_2"),  # 2.04 s, beyond device memory as levels
    # short queries: a mesh call must not be slower than one device
    ("email-Enron", "query_sparse_8_1"),  # 43 ms
    ("email-Enron", "query_dense_8_3"),  # 6.1 ms
    ("human", "query_sparse_12_1"),  # 5.4 ms
    ("ca-AstroPh", "query_dense_8_1"),  # 1.0 ms
    ("hprd", "query_dense_16_1"),  # 0.27 ms
]
#: email-Enron query_sparse_8_2's count (experiments/results/match/h200_beyond_memory.json:
#: the default and GVSM orders on the GPU and the CPU handlers agree).
BEYOND = {("email-Enron", "query_sparse_8_2"): 120204602056}
#: Queries at least this long on one device are the targets (3.3x on 4 devices).
TARGET_MIN_S = 0.05


def _expected() -> dict[tuple[str, str], int]:
    with open(SHARED / "matching" / "counts.tsv") as f:
        rows = {
            (r["data_graph"], r["query"]): int(r["embeddings"])
            for r in csv.DictReader(f, delimiter="\t")
        }
    return {**rows, **BEYOND}


def _query(graph: str, name: str, folder: Path) -> kcjax.LabeledGraph:
    path = SHARED / "matching" / "queries" / graph / f"{name}.graph"
    if not path.exists():  # a dropped random-walk query: drawn again by its recipe
        path = folder / f"{graph}_{name}.graph"
        path.write_text(dropped(graph)[name])
    return kcjax.load_labeled(path)


def measure(data, query, devices: list, repeats: int, profile: bool) -> dict:
    """One (query, device count): wall median, per-device busy time, the count."""
    d = len(devices)
    mesh = Mesh(np.array(devices), ("d",)) if d > 1 else None

    def call():
        return kcjax.count_embeddings(data, query, mesh=mesh)

    t0 = time.perf_counter()
    count = call()  # warm-up: compiles, deals the roots
    first_s = time.perf_counter() - t0
    times, count = wall_times(call, repeats)
    per_dev = device_times(call, min(repeats, 3)) if profile else {}
    row = {
        "devices": d,
        "median_s": statistics.median(times),
        "times_s": times,
        "first_call_s": first_s,
        "count": str(count),
    }
    if per_dev:
        busy = {name: v["busy_s"] for name, v in sorted(per_dev.items())}
        row["busy_s"] = busy
        row["span_s"] = {name: v["span_s"] for name, v in sorted(per_dev.items())}
        row["balance"] = max(busy.values()) / statistics.mean(busy.values())
        row["host_s"] = row["median_s"] - max(row["span_s"].values())
    return row


def _ranges(text: str) -> list[int]:
    return [int(x) for x in text.split(",")]


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--queries", nargs="*", default=None, help="GRAPH:QUERY (default: QUERIES)")
    p.add_argument("--devices", default=None, help="device counts, e.g. 1,2,4 (default: 1..all)")
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--time-limit", type=float, default=None, help="start no query after (s)")
    p.add_argument("--out", type=Path, default=None)
    args = p.parse_args(argv)

    start = time.monotonic()
    all_devices = jax.devices()
    counts = _ranges(args.devices) if args.devices else list(range(1, len(all_devices) + 1))
    counts = [d for d in counts if d <= len(all_devices)]
    profile = all_devices[0].platform == "gpu"
    wanted = [tuple(q.split(":")) for q in args.queries] if args.queries else QUERIES
    expected = _expected()
    rows, data = [], {}
    meta = {"device_count": len(all_devices), "device_counts": counts}
    with tempfile.TemporaryDirectory() as folder:
        for graph, name in wanted:
            if args.time_limit and time.monotonic() - start > args.time_limit:
                print(f"# time limit: stopped before {graph} {name}", file=sys.stderr)
                break
            if graph not in data:
                data.clear()
                data[graph] = kcjax.load_labeled(SHARED / "matching" / f"{graph}.graph.gz")
            query = _query(graph, name, Path(folder))
            group = []
            for d in counts:
                row = measure(data[graph], query, all_devices[:d], args.repeats, profile)
                base = group[0] if group else row
                want = expected.get((graph, name))
                row.update(
                    graph=graph,
                    query=name,
                    device_kind=all_devices[0].device_kind,
                    correct=None if want is None else int(row["count"]) == want,
                    same_as_one_device=row["count"] == base["count"],
                    speedup=base["median_s"] / row["median_s"],
                    target=base["median_s"] >= TARGET_MIN_S,
                )
                group.append(row)
                rows.append(row)
                print(
                    f"{graph:12s} {name:18s} D={d} {row['median_s']:9.4f}s x{row['speedup']:.2f} "
                    f"balance={row.get('balance', float('nan')):.3f} "
                    f"ok={row['correct']}",
                    file=sys.stderr,
                    flush=True,
                )
            if args.out:
                write_results(args.out, all_devices[0], args.repeats, rows, "wall median", **meta)
    print(
        f"{'graph':12s} {'query':18s} {'D':>2s} {'time_s':>9s} {'speedup':>7s} {'balance':>7s} ok"
    )
    for r in rows:
        print(
            f"{r['graph']:12s} {r['query']:18s} {r['devices']:2d} {r['median_s']:9.4f} "
            f"{r['speedup']:7.2f} {r.get('balance', float('nan')):7.3f} "
            f"{r['correct'] is not False and r['same_as_one_device']}"
        )
    return 0 if all(r["correct"] is not False and r["same_as_one_device"] for r in rows) else 1


if __name__ == "__main__":
    raise SystemExit(main())
