"""``kcjax bfs``: output against the ground-truth convention and clear errors."""

from __future__ import annotations

import json

import numpy as np

from kcjax import cli


def _write_graph(tmp_path):
    path = tmp_path / "g.el"
    path.write_text("0 1\n1 2\n2 3\n5 6\n")
    return path


def test_single_source_json(tmp_path, capsys):
    g = _write_graph(tmp_path)
    out = tmp_path / "d.npy"
    assert cli.main(["bfs", str(g), "-s", "0", "--json", "-o", str(out)]) == 0
    row = json.loads(capsys.readouterr().out)["sources"][0]
    assert row == {
        "source": 0,
        "reached": 4,
        "depth": 3,
        "dist_sum": 6,
        "level_sizes": [1, 1, 1, 1],
    }
    np.testing.assert_array_equal(np.load(out), [0, 1, 2, 3, -1, -1, -1])


def test_sources_file_and_count(tmp_path, capsys):
    g = _write_graph(tmp_path)
    ids = tmp_path / "ids.txt"
    ids.write_text("5\n3\n")
    out = tmp_path / "d.txt"
    assert cli.main(["bfs", str(g), "--sources", str(ids), "-o", str(out)]) == 0
    assert "source 5: reached 2, depth 1" in capsys.readouterr().out
    assert np.loadtxt(out, dtype=int).shape == (2, 7)
    assert cli.main(["bfs", str(g), "--sources", "3", "--json"]) == 0
    assert len(json.loads(capsys.readouterr().out)["sources"]) == 3


def test_errors(tmp_path, capsys):
    g = _write_graph(tmp_path)
    assert cli.main(["bfs", str(g), "-s", "9"]) == 2
    assert "[0, 7)" in capsys.readouterr().err
    assert cli.main(["bfs", str(g)]) == 2
    assert "exactly one" in capsys.readouterr().err
    assert cli.main(["bfs", str(g), "-s", "0", "-o", str(tmp_path / "x.csv")]) == 2
    assert cli.main(["bfs", str(tmp_path / "missing.el"), "-s", "0"]) == 2
