"""experiments/match/bench.py runs end to end on one small query (shared data needed)."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest
from reference.matching import counts_rows

BENCH = Path(__file__).resolve().parents[2] / "experiments" / "match" / "bench.py"


@pytest.mark.skipif(not counts_rows(), reason="../shared/data/matching is absent")
def test_bench_one_query(tmp_path):
    spec = importlib.util.spec_from_file_location("match_bench", BENCH)
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    out = tmp_path / "r.json"
    args = ["--graphs", "hprd", "--max-queries", "1", "--repeats", "1", "--ablation"]
    assert bench.main([*args, "--out", str(out)]) == 0
    rows = json.loads(out.read_text())["rows"]
    assert len(rows) == 1 and rows[0]["correct"] and rows[0]["peer_best_s"] is not None
    assert rows[0]["cand_label"] >= rows[0]["cand_profile"] >= rows[0]["cand_blacklist"]
    assert all(v["correct"] for v in rows[0]["ablation"].values())
