"""experiments/match/bench.py and tree_diag.py run end to end on one small query
(shared data needed)."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest
from reference.matching import counts_rows

MATCH = Path(__file__).resolve().parents[2] / "experiments" / "match"
BENCH = MATCH / "bench.py"


def _load(path: Path, name: str):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.skipif(not counts_rows(), reason="../shared/data/matching is absent")
def test_bench_one_query(tmp_path):
    bench = _load(BENCH, "match_bench")
    out = tmp_path / "r.json"
    args = ["--graphs", "hprd", "--max-queries", "1", "--repeats", "1", "--ablation"]
    assert bench.main([*args, "--out", str(out)]) == 0
    rows = json.loads(out.read_text())["rows"]
    assert len(rows) == 1 and rows[0]["correct"] and rows[0]["peer_best_s"] is not None
    assert rows[0]["cand_label"] >= rows[0]["cand_profile"] >= rows[0]["cand_blacklist"]
    assert all(v["correct"] for v in rows[0]["ablation"].values())


@pytest.mark.skipif(not counts_rows(), reason="../shared/data/matching is absent")
def test_tree_diag_walks_to_the_true_count(tmp_path):
    # The host walk of the CUDA search's tree (tree_diag.cc, built with g++) under
    # both orders finishes and counts what counts.tsv says.
    tree_diag = _load(MATCH / "tree_diag.py", "match_tree_diag")
    out = tmp_path / "t.json"
    args = ["--pairs", "hprd:query_dense_16_1", "--cap", "1e7", "--out", str(out)]
    assert tree_diag.main(args) == 0
    rows = json.loads(out.read_text())
    assert {r["method"] for r in rows} == {"estimate", "gvsm"}
    assert all(r["finished"] and r["correct"] for r in rows)
