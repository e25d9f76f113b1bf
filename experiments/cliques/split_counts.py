"""Counts that split themselves: the estimate against the time, and Ctrl-C.

An eager ``count_cliques`` estimated to take at least
``kcjax.cliques.chunked.LONG_COUNT_S`` runs in chunks of estimated work
(interruptible between them); a shorter one stays one dispatch. Per graph,
k and method this prints the estimate, the wall time of one dispatch
(``chunk_size`` = every task) and of the automatic count, how many
dispatches the automatic count made, and checks both counts equal. With
``--interrupt S`` it also sends itself SIGINT S seconds into each automatic
count estimated to be long and reports how long KeyboardInterrupt took.

Usage:
  python experiments/cliques/split_counts.py --graphs com-dblp --ks 7 8 9 10 \\
      --methods kcminer pivot --interrupt 1.0 --out x.json
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import sys
import threading
import time
from pathlib import Path
from unittest import mock

import jax

_HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(_HERE), str(_HERE.parent / "tools")]  # also under python -P
from bench import load_dag_via_cpu  # noqa: E402

import kcjax  # noqa: E402
from kcjax import experimental  # noqa: E402


def timed_count(dag: kcjax.DAG, k: int, method: str, chunk_size: int | None) -> tuple:
    """(seconds, count, dispatches) of one eager count."""
    name = "pivot_chunk" if method == "pivot" else "enumeration_chunk"
    real, calls = getattr(experimental, name), []

    def spy(*args, **kwargs):
        calls.append(1)
        return real(*args, **kwargs)

    with mock.patch(f"kcjax.cliques.count.{name}", spy):
        t0 = time.perf_counter()
        got = kcjax.count_cliques(dag, k, method=method, chunk_size=chunk_size)
        return time.perf_counter() - t0, got, len(calls)


def interrupt_latency(dag: kcjax.DAG, k: int, method: str, after_s: float) -> float | None:
    """Seconds from SIGINT (sent ``after_s`` into the count) to KeyboardInterrupt;
    None if the count finished first."""
    sent = []

    def fire() -> None:
        sent.append(time.perf_counter())
        os.kill(os.getpid(), signal.SIGINT)

    timer = threading.Timer(after_s, fire)
    timer.start()
    try:
        kcjax.count_cliques(dag, k, method=method)
    except KeyboardInterrupt:
        return time.perf_counter() - sent[0]
    finally:
        timer.cancel()
    return None


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--graphs", nargs="+", default=["com-dblp"])
    p.add_argument("--ks", nargs="+", type=int, default=[7, 8, 9])
    p.add_argument("--methods", nargs="+", default=["kcminer", "pivot"])
    p.add_argument("--interrupt", type=float, default=None, metavar="S")
    p.add_argument("--out", type=Path, default=None)
    args = p.parse_args(argv)
    rows = []
    for graph in args.graphs:
        dag = load_dag_via_cpu(graph)
        for method in args.methods:
            kcjax.count_cliques(dag, 3, method=method)  # compile the whole-graph program
            for k in args.ks:
                tasks = dag.num_nodes if method == "pivot" else dag.num_edges
                est = experimental.count_seconds(dag, k, pivot=method == "pivot", num_threads=0)
                one_s, one, _ = timed_count(dag, k, method, tasks)
                auto_s, auto, dispatches = timed_count(dag, k, method, None)
                assert one == auto, (graph, method, k, one, auto)
                row = {
                    "graph": graph,
                    "method": method,
                    "k": k,
                    "count": str(one),
                    "estimate_s": est,
                    "one_dispatch_s": one_s,
                    "auto_s": auto_s,
                    "auto_dispatches": dispatches,
                }
                if args.interrupt is not None and est >= experimental.LONG_COUNT_S:
                    row["interrupt_latency_s"] = interrupt_latency(dag, k, method, args.interrupt)
                rows.append(row)
                print(json.dumps(row), flush=True)
    if args.out:
        meta = {"device": str(jax.devices()[0]), "jax": jax.__version__, "timer": "wall clock"}
        args.out.write_text(json.dumps({"meta": meta, "rows": rows}, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
