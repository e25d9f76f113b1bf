"""Workload for Nsight Compute (KCMiner Fig. 8 analogue and the k = 4 breakdown).

Runs, on com-dblp oriented on the CPU backend (so that only the count's
kernels reach the profiler): k = 4 with KCMiner (every kernel of the call:
pre-pass, sort, solve), then k = 7 with the scheduled KCMiner kernels and
with the thread-parallel baseline (no scheduler).
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench import load_dag_via_cpu  # noqa: E402

import kcjax  # noqa: E402

dag = load_dag_via_cpu("com-dblp")
for k, method in ((4, "kcminer"), (7, "kcminer"), (7, "thread")):
    print(k, method, kcjax.count_cliques(dag, k, method=method), flush=True)
