"""``kcjax match``: counts, listing, JSON, one-line errors with exit status 2."""

from __future__ import annotations

import json

import numpy as np
from reference.matching import nx_embeddings, random_labeled, walk_query

from kcjax import LabeledGraph, save_labeled
from kcjax.cli import main


def _files(tmp_path):
    g = random_labeled(24, 0.3, 2, seed=11)
    q = walk_query(g, 3, seed=3)
    save_labeled(LabeledGraph.from_networkx(g), tmp_path / "data.graph.gz")
    save_labeled(LabeledGraph.from_networkx(q), tmp_path / "q.graph")
    return g, q


def test_count_and_json(tmp_path, capsys):
    g, q = _files(tmp_path)
    ref = len(nx_embeddings(g, q))
    args = [str(tmp_path / "data.graph.gz"), str(tmp_path / "q.graph")]
    assert main(["match", *args, "-q"]) == 0
    assert capsys.readouterr().out.split("\t")[1] == str(ref)
    assert main(["match", *args, "--json", "--induced"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["queries"][0]["embeddings"] == len(nx_embeddings(g, q, induced=True))


def test_list_txt_and_npy(tmp_path, capsys):
    g, q = _files(tmp_path)
    ref = nx_embeddings(g, q)
    args = [str(tmp_path / "data.graph.gz"), str(tmp_path / "q.graph"), "--list", "-q"]
    assert main(["match", *args, "-o", str(tmp_path / "e.npy")]) == 0
    assert {tuple(r) for r in np.load(tmp_path / "e.npy").tolist()} == ref
    assert main(["match", *args, "-o", str(tmp_path / "e.txt")]) == 0
    rows = np.loadtxt(tmp_path / "e.txt", dtype=np.int64, comments="#", ndmin=2)
    assert {tuple(r) for r in rows.tolist()} == ref


def test_bad_file_exit_2(tmp_path, capsys):
    (tmp_path / "bad.graph").write_text("t 2 1\nv 0 1 1\nv 1 1 1\ne 0 5\n")
    assert main(["match", str(tmp_path / "bad.graph"), str(tmp_path / "bad.graph")]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("kcjax: error:") and "vertex 5" in err and "\n" not in err
    assert main(["match", str(tmp_path / "missing.graph"), str(tmp_path / "bad.graph")]) == 2
    _files(tmp_path)
    args = [str(tmp_path / "data.graph.gz"), str(tmp_path / "q.graph"), "--list"]
    assert main(["match", *args]) == 2
    assert "needs -o" in capsys.readouterr().err
    assert main(["match", *args[:2], "--devices", "many"]) == 2
    assert "invalid device count" in capsys.readouterr().err
