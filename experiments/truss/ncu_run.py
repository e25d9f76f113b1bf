"""Small run for Nsight Compute: one truss decomposition per named shared graph.

Each graph is loaded and indexed first (the edge index's kernels are XLA's and
ours alike: filter ncu by kernel name), then ``kcjax.truss_numbers`` runs once.

Usage (on the GPU machine):
  ncu --section SpeedOfLight --section WarpStateStats \
      --kernel-name "regex:SupportDagFlat|StoreKernel|HIndexKernel" \
      python experiments/truss/ncu_run.py com-dblp cit-HepTh
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

import kcjax
from kcjax.truss.kernels import edge_index

ROOT = Path(__file__).resolve().parents[2]
DATA_DIRS = [ROOT / ".gpu" / "graphs", ROOT.parent / "shared" / "data" / "graphs"]

for name in sys.argv[1:]:
    path = next(d / f"{name}.el.gz" for d in DATA_DIRS if (d / f"{name}.el.gz").exists())
    graph = kcjax.load(path)
    edge_index(graph)
    trussness = np.asarray(kcjax.truss_numbers(graph))
    print(name, "k_max", int(trussness.max()), flush=True)
