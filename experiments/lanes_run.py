"""Workload for Nsight Compute's active-lanes metric (KCMiner Fig. 8 analogue).

Runs k = 7 on com-dblp with the scheduled KCMiner kernels and with the
thread-parallel baseline (no scheduler), once each after a warm-up.
"""

from __future__ import annotations

from pathlib import Path

import kcjax

ROOT = Path(__file__).resolve().parents[1]
base = next(
    p
    for p in (ROOT / ".gpu" / "graphs", ROOT.parent / "shared" / "data" / "graphs")
    if (p / "com-dblp.el.gz").exists()
)
dag = kcjax.orient(kcjax.load(base / "com-dblp.el.gz"))
for method in ("kcminer", "thread"):
    print(method, kcjax.count_cliques(dag, 7, method=method), flush=True)
