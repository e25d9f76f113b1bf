"""Small run for compute-sanitizer: the matching kernels on a few shared queries.

Counts (with donation between warps: yeast query_sparse_32_2 is one root over
a 181 K-node tree; hprd query_dense_16_1 and yeast query_dense_16_2 trees of
20 and 58 nodes; hprd query_dense_16_11 has 4 automorphisms, so its count
checks the order constraints) and, below 1000 embeddings, a listing, each checked against
counts.tsv, so the tool sees the ring of donated units, the tickets and the
termination under its instrumentation.

Usage: python experiments/match/sanitize_run.py [graph:query ...]
"""

from __future__ import annotations

import csv
import sys
from pathlib import Path

import numpy as np

import kcjax

ROOT = Path(__file__).resolve().parents[2]
SHARED = next(
    (p for p in (ROOT.parent / "shared" / "data", ROOT / ".gpu") if (p / "matching").exists()),
    ROOT.parent / "shared" / "data",
)
with open(SHARED / "matching" / "counts.tsv") as f:
    WANT = {
        (r["data_graph"], r["query"]): int(r["embeddings"])
        for r in csv.DictReader(f, delimiter="\t")
    }

PAIRS = [
    "hprd:query_dense_16_1",
    "hprd:query_dense_16_11",
    "yeast:query_dense_16_2",
    "yeast:query_sparse_32_2",
]
for graph, query in (pair.split(":") for pair in sys.argv[1:] or PAIRS):
    data = kcjax.load_labeled(SHARED / "matching" / f"{graph}.graph.gz")
    q = kcjax.load_labeled(SHARED / "matching" / "queries" / graph / f"{query}.graph")
    count = kcjax.count_embeddings(data, q)
    assert count == WANT[graph, query], (graph, query, count)
    if count < 1000:
        rows = np.asarray(kcjax.find_embeddings(data, q))
        assert rows.shape == (count, q.num_nodes), rows.shape
    print(graph, query, count, "ok", flush=True)
