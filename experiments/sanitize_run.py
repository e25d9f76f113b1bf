"""Small run for compute-sanitizer: email-Enron, k = 4..6.

Counts with every native method, then lists the 4-cliques and counts them
per vertex, so every CUDA kernel family runs once under the tool.

Usage: python experiments/sanitize_run.py [METHOD ...] (default: every native method).
"""

from __future__ import annotations

import sys
from pathlib import Path

import kcjax

ROOT = Path(__file__).resolve().parents[1]
for base in (ROOT / ".gpu" / "graphs", ROOT.parent / "shared" / "data" / "graphs"):
    if (base / "email-Enron.el.gz").exists():
        dag = kcjax.orient(kcjax.load(base / "email-Enron.el.gz"))
        break
else:
    sys.exit("email-Enron.el.gz not found")
for method in sys.argv[1:] or ["pivot", *kcjax.ENUMERATION_METHODS]:
    print(method, kcjax.count_cliques(dag, [4, 5, 6], method=method), flush=True)
if not sys.argv[1:]:
    print("list", len(kcjax.list_cliques(dag, 4)), flush=True)
    print("per-vertex", int(kcjax.clique_counts_per_vertex(dag, 4).sum()), flush=True)
