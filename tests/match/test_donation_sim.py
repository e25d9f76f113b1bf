"""The CUDA kernel's work donation, emulated on the CPU (tests/reference/donation_sim.cc).

The emulation runs the count kernel's unit loop with the warp's lanes as a
loop and splits work at every check; every split must leave the count exact
(networkx on random labeled graphs, counts.tsv on yeast). It covers the split
rules (ballot bits and source ranges, the images above the split, weights of
shared branches, induced masks) that the GPU tests then exercise under real
concurrency.
"""

from __future__ import annotations

import ctypes
import shutil
import subprocess
from pathlib import Path

import networkx as nx
import numpy as np
import pytest
from reference.matching import (
    counts_rows,
    data_path,
    nx_embeddings,
    query_path,
    random_labeled,
    walk_query,
)

import kcjax
from kcjax import LabeledGraph
from kcjax.experimental import prepare_match

SRC = Path(__file__).resolve().parents[1] / "reference" / "donation_sim.cc"
pytestmark = pytest.mark.skipif(shutil.which("g++") is None, reason="needs g++")


@pytest.fixture(scope="module")
def sim(tmp_path_factory):
    out = tmp_path_factory.mktemp("sim") / "donation_sim.so"
    subprocess.run(["g++", "-O2", "-shared", "-fPIC", "-o", str(out), str(SRC)], check=True)
    lib = ctypes.CDLL(str(out))
    i32, i64, ptr = ctypes.c_int32, ctypes.c_int64, ctypes.c_void_p
    lib.donation_sim.restype = i64
    lib.donation_sim.argtypes = [i32, i32, ptr, ptr, ptr, ptr, i64, ptr, ptr, ptr, i64, i32, ptr]
    return lib


def _run(lib, p, every: int) -> tuple[int, int]:
    arrs = [np.ascontiguousarray(np.asarray(x)) for x in (p.indptr, p.indices, p.mult, p.cand)]
    plan, leaf, roots = (np.ascontiguousarray(np.asarray(x)) for x in (p.plan, p.leaf_sum, p.roots))
    count = np.zeros(2, np.uint64)
    ptr = [a.ctypes.data_as(ctypes.c_void_p) for a in (*arrs, plan, leaf, roots, count)]
    q = plan.shape[0]
    made = lib.donation_sim(
        arrs[0].size - 1, q, *ptr[:4], arrs[3].shape[1], *ptr[4:7], roots.size, every, ptr[7]
    )
    return int(count[0]) + (int(count[1]) << 64), int(made)


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("induced", [False, True])
def test_donation_random(sim, seed, induced):
    g = random_labeled(28, 0.3, 2 + seed % 3, seed=seed)
    d = LabeledGraph.from_networkx(g)
    cycle = nx.cycle_graph(4)  # 4 automorphisms: the order masks of symmetry breaking
    nx.set_node_attributes(cycle, {v: v % 2 for v in cycle}, "label")
    for size, q in [(s, walk_query(g, s, seed=seed + s)) for s in (3, 4, 5, 6)] + [(4, cycle)]:
        ref = len(nx_embeddings(g, q, induced=induced))
        for dominance in (True, False):
            p = prepare_match(
                d,
                LabeledGraph.from_networkx(q),
                induced=induced,
                dominance=dominance,
                symmetry=True,
            )
            for every in (0, 1, 3):
                got, _ = _run(sim, p, every)
                assert got * kcjax.limbs_to_int(p.scale) == ref, (size, dominance, every)


@pytest.mark.parametrize("query", ["query_dense_16_1", "query_dense_24_1", "query_sparse_16_2"])
def test_donation_yeast(sim, query):
    rows = {r["query"]: r for r in counts_rows() if r["data_graph"] == "yeast"}
    if query not in rows:
        pytest.skip("../shared/data/matching is absent")
    data = kcjax.load_labeled(data_path("yeast"))
    p = prepare_match(data, kcjax.load_labeled(query_path("yeast", query)))
    got, made = _run(sim, p, 2)
    assert got == int(rows[query]["embeddings"])
    assert made > 0 or int(rows[query]["embeddings"]) < 100
