"""``kcjax truss``: the k-truss, the maximal truss and the decomposition from the command line."""

from __future__ import annotations

import json

import numpy as np
import pytest

from kcjax import cli

# K4 on 0..3, a triangle 3-4-5 and a pendant 5-6: trussness 4 (K4), 3 (triangle), 2 (pendant).
EDGES = "0 1\n0 2\n0 3\n1 2\n1 3\n2 3\n3 4\n4 5\n3 5\n5 6\n"


@pytest.fixture
def graph_file(tmp_path):
    path = tmp_path / "g.txt"
    path.write_text(EDGES)
    return path


def run(capsys, *argv):
    code = cli.main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_k_truss(capsys, graph_file, tmp_path):
    code, out, _ = run(capsys, "truss", graph_file, "-k", "3", "-o", tmp_path / "t.txt")
    assert code == 0
    assert "k = 3, 9 edges, 6 vertices" in out
    assert np.loadtxt(tmp_path / "t.txt", dtype=int).shape == (9, 2)


def test_max_json(capsys, graph_file):
    code, out, _ = run(capsys, "truss", graph_file, "--max", "--json")
    assert code == 0
    info = json.loads(out)
    assert (info["k"], info["truss_edges"], info["truss_vertices"]) == (4, 6, 4)


@pytest.mark.parametrize("algorithm", ["hindex", "peel"])
def test_decompose(capsys, graph_file, tmp_path, algorithm):
    out_file = tmp_path / "d.txt"
    argv = ["--decompose", "--algorithm", algorithm, "-o", out_file]
    code, out, _ = run(capsys, "truss", graph_file, *argv)
    assert code == 0 and "k_max = 4" in out
    rows = np.loadtxt(out_file, dtype=int)
    assert sorted(rows[:, 2].tolist()) == [2, 3, 3, 3, 4, 4, 4, 4, 4, 4]


@pytest.mark.parametrize(
    ("argv", "match"),
    [
        (["-k", "1"], "k must be >= 2"),
        ([], "give one of -k K, --max or --decompose"),
        (["-k", "3", "--max"], "not allowed with"),
        (["-k", "3", "-o", "out.csv"], "must end in .txt"),
        (["--max", "--method", "nope"], "--method"),
        (["--max", "--algorithm", "nope"], "--algorithm"),
    ],
)
def test_bad_input_one_line_exit_2(capsys, graph_file, argv, match):
    code, out, err = run(capsys, "truss", graph_file, *argv)
    assert code == 2 and out == ""
    lines = err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("kcjax: error: ") and match in lines[0]


def test_missing_file(capsys, tmp_path):
    code, _, err = run(capsys, "truss", tmp_path / "missing.txt", "--max")
    assert code == 2 and "no such file" in err
