"""Every row of ../shared/data/matching/counts.tsv on the CPU handler, but two.

The cheap rows (hprd, yeast's 16-vertex queries) are the default set; the rest
are marked ``slow`` (tests/match/test_gpu.py covers every row on a GPU).
``GPU_ONLY`` rows take minutes of CPU search (about 2/3 of this file's time on
2 cores) and take no path the other rows do not: 16-vertex dense queries run
on yeast and hprd, ca-AstroPh runs 4- to 12-vertex queries here, and their
counts (< 2^32) need no wider sum than the rest; test_gpu.py counts them.
"""

from __future__ import annotations

import functools

import jax
import pytest
from reference.matching import counts_rows, data_path, query_path

import kcjax

ROWS = counts_rows()
CHEAP = {("hprd", None), ("yeast", 16)}
GPU_ONLY = {("ca-AstroPh", "query_dense_16_1"), ("ca-AstroPh", "query_dense_16_3")}


def _cheap(row: dict[str, str]) -> bool:
    q = int(row["query_vertices"])
    return (row["data_graph"], None) in CHEAP or (row["data_graph"], q) in CHEAP


PARAMS = [
    pytest.param(
        r, id=f"{r['data_graph']}-{r['query']}", marks=() if _cheap(r) else pytest.mark.slow
    )
    for r in ROWS
    if (r["data_graph"], r["query"]) not in GPU_ONLY
]


@functools.cache
def load_data(name: str) -> kcjax.LabeledGraph:
    return kcjax.load_labeled(data_path(name))


@pytest.mark.skipif(not ROWS, reason="../shared/data/matching is absent")
@pytest.mark.parametrize("row", PARAMS)
def test_counts_tsv_row_cpu(row):
    with jax.default_device(jax.devices("cpu")[0]):
        data = load_data(row["data_graph"])
        query = kcjax.load_labeled(query_path(row["data_graph"], row["query"]))
        assert query.num_nodes == int(row["query_vertices"])
        assert query.num_edges == int(row["query_edges"])
        assert kcjax.count_embeddings(data, query) == int(row["embeddings"])


@pytest.mark.skipif(not ROWS, reason="../shared/data/matching is absent")
def test_hprd_listing_matches_count():
    with jax.default_device(jax.devices("cpu")[0]):
        data = load_data("hprd")
        for row in ROWS:
            if row["data_graph"] != "hprd":
                continue
            query = kcjax.load_labeled(query_path("hprd", row["query"]))
            rows = kcjax.find_embeddings(data, query)
            assert rows.shape == (int(row["embeddings"]), query.num_nodes)
            assert len({tuple(r) for r in rows.tolist()}) == rows.shape[0]


@pytest.mark.skipif(not ROWS, reason="../shared/data/matching is absent")
@pytest.mark.parametrize("refine", [False, True])
def test_hprd_rows_with_and_without_refinement_under_jit(refine):
    """The old filter (refine=False) and the whole-graph program (traced, no
    first-pass compaction) give every hprd count too: the old filter eagerly on
    every row (test_counts_tsv_row_cpu counts them with refine=True), and the
    whole-graph program on every row once, half of them with each filter (each
    row compiles a program of its own)."""
    with jax.default_device(jax.devices("cpu")[0]):
        data = load_data("hprd")
        hprd = [row for row in ROWS if row["data_graph"] == "hprd"]
        for i, row in enumerate(hprd):
            query = kcjax.load_labeled(query_path("hprd", row["query"]))
            if not refine:
                assert kcjax.count_embeddings(data, query, refine=False) == int(row["embeddings"])
            if i % 2 != refine:
                continue
            limbs = jax.jit(lambda d, q=query: kcjax.count_embeddings_limbs(d, q, refine=refine))(
                data
            )
            assert kcjax.limbs_to_int(limbs) == int(row["embeddings"])
