"""Chunked eager counts: one chunk in flight ahead of the host vs one at a time.

``count_cliques(..., chunk_size=c)`` (what the CLI runs, for its progress bar)
enqueues chunk i + 1 before it reads chunk i's result. This script times it
against the same chunks dispatched and read one at a time (the loop it
replaced), wall clock, median of ``--repeats``, on one device.

Usage: python experiments/cliques/chunks.py --graphs com-dblp --ks 6 7 --chunks 8 64 --out x.json
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from pathlib import Path

import jax
import numpy as np

_HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(_HERE), str(_HERE.parent / "tools")]  # also under python -P
from bench import load_dag_via_cpu  # noqa: E402
from benchlib import wall_times  # noqa: E402

import kcjax  # noqa: E402
from kcjax.experimental import chunk_start, enumeration_chunk, max_out_degree  # noqa: E402


def one_at_a_time(dag: kcjax.DAG, k: int, method: str, step: int) -> int:
    """The chunks dispatched and read back one after the other."""
    m, total = dag.num_edges, 0
    hint = max_out_degree(dag)
    for start in range(0, m, step):
        limbs = np.asarray(
            enumeration_chunk(
                dag,
                chunk_start(start),
                kmax=k,
                method=method,
                lam=None,
                num_threads=0,
                step=step,
                total=m,
                max_degree=hint,
            )
        )
        total += kcjax.limbs_to_int(limbs[k])
    return total


def count_chunked(dag: kcjax.DAG, k: int, method: str, step: int) -> int:
    """``count_cliques`` in chunks of ``step`` tasks (one chunk ahead)."""
    return kcjax.count_cliques(dag, k, method=method, chunk_size=step)


def median_wall(fn, *args, repeats: int) -> tuple[float, object]:
    """Median wall time of fn(*args) after one warm-up call, and its result."""
    fn(*args)  # warm-up: compiles
    times, out = wall_times(lambda: fn(*args), repeats)
    return statistics.median(times), out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--graphs", nargs="+", default=["com-dblp"])
    p.add_argument("--ks", nargs="+", type=int, default=[6])
    p.add_argument("--chunks", nargs="+", type=int, default=[8, 64])
    p.add_argument("--method", default="kcminer")
    p.add_argument("--repeats", type=int, default=5)
    p.add_argument("--out", type=Path, default=None)
    args = p.parse_args(argv)
    rows = []
    for graph in args.graphs:
        dag = load_dag_via_cpu(graph)
        for k in args.ks:
            for chunks in args.chunks:
                step = -(-dag.num_edges // chunks)
                ahead, a = median_wall(
                    count_chunked, dag, k, args.method, step, repeats=args.repeats
                )
                serial, b = median_wall(
                    one_at_a_time, dag, k, args.method, step, repeats=args.repeats
                )
                assert a == b, (a, b)
                rows.append(
                    {
                        "graph": graph,
                        "k": k,
                        "chunks": chunks,
                        "count": str(a),
                        "one_ahead_s": ahead,
                        "one_at_a_time_s": serial,
                    }
                )
                print(
                    f"{graph} k={k} chunks={chunks}: one ahead {ahead * 1e3:.3f} ms, "
                    f"one at a time {serial * 1e3:.3f} ms, x{serial / ahead:.2f}",
                    flush=True,
                )
    if args.out:
        meta = {
            "device": str(jax.devices()[0]),
            "jax": jax.__version__,
            "repeats": args.repeats,
            "timer": "wall clock of an eager count, median",
        }
        args.out.write_text(json.dumps({"meta": meta, "rows": rows}, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
