"""CUDA handlers of the matching targets: CPU == GPU exactly, every counts.tsv row.

Skipped without a GPU. Run on the GPU machine:
``python -m pytest -q tests/match/test_gpu.py``.
"""

from __future__ import annotations

import functools
import time

import jax
import numpy as np
import pytest
from reference import has_gpu
from reference.matching import (
    counts_rows,
    data_path,
    nx_embeddings,
    query_path,
    random_labeled,
    twin_star,
    walk_query,
)

import kcjax
from kcjax import LabeledGraph
from kcjax.experimental import limbs_rows_to_ints, match_count_kernel, prepare_match
from kcjax.experimental import match_query_spec as query_spec

pytestmark = pytest.mark.skipif(not has_gpu(), reason="needs a CUDA device")
ROWS = counts_rows()


def _on(platform: str):
    return jax.default_device(jax.devices(platform)[0])


@functools.cache
def _data(name: str, platform: str) -> LabeledGraph:
    with _on(platform):
        return kcjax.load_labeled(data_path(name))


@pytest.mark.skipif(not ROWS, reason="../shared/data/matching is absent")
@pytest.mark.parametrize("row", ROWS, ids=[f"{r['data_graph']}-{r['query']}" for r in ROWS])
def test_counts_tsv_row_gpu(row):
    query = kcjax.load_labeled(query_path(row["data_graph"], row["query"]))
    with _on("cuda"):
        data = _data(row["data_graph"], "cuda")
        kcjax.count_embeddings(data, query)  # compile
        t = time.perf_counter()
        got = kcjax.count_embeddings(data, query)
        seconds = time.perf_counter() - t
    assert got == int(row["embeddings"])
    print(f"{row['data_graph']} {row['query']}: {seconds:.4f} s wall")


@pytest.mark.skipif(not ROWS, reason="../shared/data/matching is absent")
@pytest.mark.parametrize(
    "variant", ["no_blacklist", "no_refine", "no_dominance", "gvsm", "naive", "induced"]
)
def test_variants_cpu_equals_gpu_on_yeast(variant):
    kw = {
        "no_blacklist": {"blacklist": False},
        "no_refine": {"refine": False},
        "no_dominance": {"dominance": False},
        "gvsm": {"order": "gvsm"},
        "naive": {"order": "naive"},
        "induced": {"induced": True},
    }[variant]
    for row in ROWS:
        if row["data_graph"] != "yeast":
            continue
        query = kcjax.load_labeled(query_path("yeast", row["query"]))
        with _on("cpu"):
            cpu = kcjax.count_embeddings(_data("yeast", "cpu"), query, **kw)
        with _on("cuda"):
            gpu = kcjax.count_embeddings(_data("yeast", "cuda"), query, **kw)
        assert cpu == gpu
        if variant != "induced":
            assert gpu == int(row["embeddings"])


@pytest.mark.skipif(not ROWS, reason="../shared/data/matching is absent")
@pytest.mark.parametrize("name", ["hprd", "yeast", "human", "email-Enron", "ca-AstroPh"])
def test_plan_cpu_equals_gpu(name):
    # The whole plan, filter rounds (kcjax_match_filter) included: the same candidate
    # bitmaps, order and statistics (rounds run, fixpoint, totals) on both platforms.
    for row in ROWS:
        if row["data_graph"] != name:
            continue
        query = kcjax.load_labeled(query_path(name, row["query"]))
        plans = {}
        for platform in ("cpu", "cuda"):
            with _on(platform):
                p = prepare_match(_data(name, platform), query)
                plans[platform] = [np.asarray(x) for x in (p.cand, p.order, p.stats, p.rounds)]
        for c, g in zip(plans["cpu"], plans["cuda"], strict=True):
            np.testing.assert_array_equal(c, g, err_msg=row["query"])


@pytest.mark.skipif(not ROWS, reason="../shared/data/matching is absent")
@pytest.mark.parametrize("name", ["hprd", "yeast"])
def test_listing_cpu_equals_gpu(name):
    for row in ROWS:
        if row["data_graph"] != name or int(row["embeddings"]) > 1_000_000:
            continue
        query = kcjax.load_labeled(query_path(name, row["query"]))
        with _on("cpu"):
            cpu = kcjax.find_embeddings(_data(name, "cpu"), query)
        with _on("cuda"):
            gpu = kcjax.find_embeddings(_data(name, "cuda"), query)
        assert np.array_equal(cpu, gpu)
        assert cpu.shape[0] == int(row["embeddings"])


@pytest.mark.parametrize("seed", range(4))
def test_random_cpu_equals_gpu_and_networkx(seed):
    # p = 0.15: at 0.2, seed 0's 7-vertex query has 3.1 M embeddings and networkx alone
    # takes about 2 minutes to list them; here every reference takes under a second.
    g = random_labeled(40, 0.15, 1 + seed, seed=seed)
    for size in (1, 3, 5, 7):
        q = walk_query(g, size, seed=seed + size)
        d, qq = LabeledGraph.from_networkx(g), LabeledGraph.from_networkx(q)
        for induced in (False, True):
            ref = nx_embeddings(g, q, induced=induced)
            with _on("cuda"):
                d_gpu = LabeledGraph.from_networkx(g)
                assert kcjax.count_embeddings(d_gpu, qq, induced=induced) == len(ref)
                rows = kcjax.find_embeddings(d_gpu, qq, induced=induced)
            assert [tuple(r) for r in rows.tolist()] == sorted(ref)
            with _on("cpu"):
                assert kcjax.count_embeddings(d, qq, induced=induced) == len(ref)


def test_gpu_limit_and_iter():
    g = random_labeled(40, 0.3, 2, seed=9)
    q = walk_query(g, 4, seed=1)
    ref = nx_embeddings(g, q)
    qq = LabeledGraph.from_networkx(q)
    with _on("cuda"):
        d = LabeledGraph.from_networkx(g)
        rows, truncated = kcjax.find_embeddings(d, qq, limit=10)
        assert truncated == (len(ref) > 10) and {tuple(r) for r in rows.tolist()} <= ref
        got = [tuple(r) for b in kcjax.iter_embeddings(d, qq, batch=50) for r in b.tolist()]
    assert len(got) == len(ref) and set(got) == ref


def test_gpu_twins_past_2_64():
    with _on("cuda"):
        star, q, expect = twin_star(2000, 7)
        assert kcjax.count_embeddings(star, q) == expect


# Queries whose search starts from one or two roots and a handful of level-1
# vertices: all parallelism comes from work donation.
FEW_ROOTS = ("query_dense_32_1", "query_sparse_16_1", "query_dense_24_1")


@pytest.mark.skipif(not ROWS, reason="../shared/data/matching is absent")
@pytest.mark.parametrize("name", FEW_ROOTS)
def test_donation_per_root_cpu_equals_gpu(name):
    expect = next(
        int(r["embeddings"]) for r in ROWS if r["query"] == name and r["data_graph"] == "yeast"
    )
    query = kcjax.load_labeled(query_path("yeast", name))
    per = {}
    for platform in ("cpu", "cuda"):
        with _on(platform):
            p = prepare_match(_data("yeast", platform), query)
            runs = [
                np.asarray(match_count_kernel(p, p.roots, p.task_ptr, per_root=True))
                for _ in range(3 if platform == "cuda" else 1)
            ]
        for other in runs[1:]:
            assert np.array_equal(runs[0], other), "GPU per-root counts differ between runs"
        per[platform] = runs[0]
    assert np.array_equal(per["cpu"], per["cuda"])
    total = sum(int(x) for x in limbs_rows_to_ints(per["cuda"], exact=True, what="counts"))
    assert total == expect


@pytest.mark.skipif(not ROWS, reason="../shared/data/matching is absent")
def test_donation_listing_limit_gpu():
    query = kcjax.load_labeled(query_path("yeast", "query_sparse_16_1"))
    spec = query_spec(query)
    with _on("cuda"):
        data = _data("yeast", "cuda")
        rows, truncated = kcjax.find_embeddings(data, query, limit=5000)
    assert truncated and rows.shape == (5000, spec.size)
    assert len({tuple(r) for r in rows.tolist()}) == 5000
    ip, ix = (np.asarray(a) for a in (data.graph.indptr, data.graph.indices))
    lab = np.asarray(data.labels)
    for r in rows[:500]:
        assert [lab[v] for v in r] == list(spec.labels) and len(set(r.tolist())) == spec.size
        for u, v in spec.edges:
            assert r[v] in ix[ip[r[u]] : ip[r[u] + 1]]
