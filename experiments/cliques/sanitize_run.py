"""Small run for compute-sanitizer: email-Enron, k = 4..6, and a planted clique.

Sizes the edge tasks (the tasks stage's candidate sets, which the cost estimate of
``method="auto"`` reads; the estimate's own XLA program is left out: its compilation
under the tool takes minutes), counts with every native method, then lists the 4-cliques and
counts them per vertex (enumeration, and the pivot counter at k = 4..6), so every CUDA
kernel family runs once under the tool. The planted 52-clique runs KCMiner's heavy-task
split at k = 7 (candidate sets of 48 and more) and its level-3 units at k = 8, whose
engine stores one level before the fused last one; the planted 140-clique the pivot
counter's global-memory roots (more than 128 candidates), per vertex and counted (the
count splits the heaviest roots over several warps, as it does email-Enron's). The graphs are
oriented on the CPU backend so that XLA's GPU compilations stay out of the instrumented
process.

Usage: python experiments/cliques/sanitize_run.py [METHOD ...] (default: every native method).
"""

from __future__ import annotations

import sys
from pathlib import Path

_HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(_HERE), str(_HERE.parent / "tools")]  # also under python -P
import jax  # noqa: E402
from bench import load_dag_via_cpu  # noqa: E402

import kcjax  # noqa: E402
from kcjax import generators  # noqa: E402

dag = load_dag_via_cpu("email-Enron")
print("task sizes", int(kcjax.candidate_sizes(dag).sum()), flush=True)
for method in sys.argv[1:] or ["pivot", *kcjax.ENUMERATION_METHODS]:
    print(method, kcjax.count_cliques(dag, [4, 5, 6], method=method), flush=True)
if not sys.argv[1:]:
    with jax.default_device(jax.devices("cpu")[0]):
        dense = kcjax.orient(generators.planted_cliques(400, 0.02, [52], seed=1))
    dense = jax.device_put(dense, jax.devices()[0])
    print("heavy split", kcjax.count_cliques(dense, [7, 8], method="kcminer"), flush=True)
    print("list", len(kcjax.list_cliques(dag, 4)), flush=True)
    local = kcjax.clique_counts_per_vertex(dag, 4, method="kcminer")
    print("per-vertex", int(local.sum()), flush=True)
    for k in (4, 5, 6):
        local = kcjax.clique_counts_per_vertex(dag, k, method="pivot")
        print("per-vertex pivot", k, int(local.sum()), flush=True)
    with jax.default_device(jax.devices("cpu")[0]):
        big = kcjax.orient(generators.planted_cliques(400, 0.05, [140], seed=2))
    big = jax.device_put(big, jax.devices()[0])
    local = kcjax.clique_counts_per_vertex(big, 5, method="pivot")
    print("per-vertex pivot, large roots", int(local.sum()), flush=True)
    print("pivot, large roots split", kcjax.count_cliques(big, [5, 8], method="pivot"), flush=True)
