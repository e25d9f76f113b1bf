"""One truss decomposition per named shared graph, for tools that wrap a process.

Each graph is loaded and indexed first, then ``kcjax.truss_numbers`` runs once
and its k_max is printed. rounds.py uses it for the h-index rounds (a build
whose HIndexKernel stamps each round); Nsight Compute has ended in a
segmentation fault at the process's start on the H200, with or without
sections.

Usage (on the GPU machine):
  python experiments/truss/decompose_run.py com-dblp cit-HepTh
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

import kcjax
from kcjax.experimental import truss_edge_index as edge_index

ROOT = Path(__file__).resolve().parents[2]
DATA_DIRS = [ROOT / ".gpu" / "graphs", ROOT.parent / "shared" / "data" / "graphs"]

for name in sys.argv[1:]:
    path = next(d / f"{name}.el.gz" for d in DATA_DIRS if (d / f"{name}.el.gz").exists())
    graph = kcjax.load(path)
    edge_index(graph)
    trussness = np.asarray(kcjax.truss_numbers(graph))
    print(name, "k_max", int(trussness.max()), flush=True)
