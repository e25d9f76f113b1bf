"""Workload for Nsight Compute (KCMiner Fig. 8 analogue and per-kernel breakdowns).

By default runs, on com-dblp oriented on the CPU backend (so that only the
count's kernels reach the profiler): k = 4 with KCMiner (every kernel of the
call: pre-pass, sort, solve), then k = 7 with the scheduled KCMiner kernels
and with the thread-parallel baseline (no scheduler). ``--graph`` and
``--runs K:METHOD ...`` profile other counts, e.g.
``--graph rmat22-2 --runs 7:kcminer 7:static_l2``.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

_HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(_HERE), str(_HERE.parent / "tools")]  # also under python -P
from bench import load_dag_via_cpu  # noqa: E402

import kcjax  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--graph", default="com-dblp")
    p.add_argument("--runs", nargs="+", default=["4:kcminer", "7:kcminer", "7:thread"])
    args = p.parse_args(argv)
    dag = load_dag_via_cpu(args.graph)
    for run in args.runs:
        k, _, method = run.partition(":")
        print(k, method, kcjax.count_cliques(dag, int(k), method=method), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
