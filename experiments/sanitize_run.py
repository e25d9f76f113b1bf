"""Small run for compute-sanitizer: email-Enron, k = 4..6.

Counts with every native method, then lists the 4-cliques and counts them
per vertex, so every CUDA kernel family runs once under the tool. The graph
is oriented on the CPU backend so that XLA's GPU compilations stay out of
the instrumented process.

Usage: python experiments/sanitize_run.py [METHOD ...] (default: every native method).
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench import load_dag_via_cpu  # noqa: E402

import kcjax  # noqa: E402

dag = load_dag_via_cpu("email-Enron")
for method in sys.argv[1:] or ["pivot", *kcjax.ENUMERATION_METHODS]:
    print(method, kcjax.count_cliques(dag, [4, 5, 6], method=method), flush=True)
if not sys.argv[1:]:
    print("list", len(kcjax.list_cliques(dag, 4)), flush=True)
    print("per-vertex", int(kcjax.clique_counts_per_vertex(dag, 4).sum()), flush=True)
