"""LabeledGraph, the .graph reader and writer, and their one-line errors."""

from __future__ import annotations

import gzip

import networkx as nx
import numpy as np
import pytest

import kcjax
from kcjax import GraphFormatError, LabeledGraph, load_labeled, save_labeled

GOOD = "t 4 4\nv 0 1 2\nv 1 2 2\nv 2 1 3\nv 3 5 1\ne 0 1\ne 0 2\ne 1 2\ne 2 3\n"


def _write(tmp_path, text: str, name: str = "g.graph"):
    path = tmp_path / name
    if name.endswith(".gz"):
        path.write_bytes(gzip.compress(text.encode()))
    else:
        path.write_text(text)
    return path


@pytest.mark.parametrize("name", ["g.graph", "g.graph.gz"])
def test_read(tmp_path, name):
    g = load_labeled(_write(tmp_path, GOOD, name))
    assert g.num_nodes == 4 and g.num_edges == 4
    assert np.asarray(g.labels).tolist() == [1, 2, 1, 5]
    src, dst = g.edge_arrays()
    assert sorted(zip(src.tolist(), dst.tolist(), strict=True)) == [(0, 1), (0, 2), (1, 2), (2, 3)]


def test_line_parser_accepts_missing_degrees_and_edge_labels(tmp_path):
    text = "t 3 2\nv 0 7\nv 1 7\nv 2 8\ne 0 1 9\ne 1 2 9\n"
    g = load_labeled(_write(tmp_path, text))
    assert np.asarray(g.labels).tolist() == [7, 7, 8] and g.num_edges == 2


@pytest.mark.parametrize("name", ["out.graph", "out.graph.gz"])
def test_roundtrip(tmp_path, name):
    g = nx.gnp_random_graph(30, 0.2, seed=3)
    for v in g:
        g.nodes[v]["label"] = v % 4
    a = LabeledGraph.from_networkx(g)
    save_labeled(a, tmp_path / name)
    b = load_labeled(tmp_path / name)
    assert np.array_equal(np.asarray(a.labels), np.asarray(b.labels))
    assert np.array_equal(np.asarray(a.graph.indptr), np.asarray(b.graph.indptr))
    assert np.array_equal(np.asarray(a.graph.indices), np.asarray(b.graph.indices))
    assert nx.utils.graphs_equal(a.to_networkx(), g)


@pytest.mark.parametrize(
    ("text", "needle"),
    [
        ("t 3 1\nv 0 1 1\nv 1 1 1\ne 0 1\n", "3 vertices but 2 vertex lines"),
        ("t 2 1\nv 0 1 1\nv 1 1 1\ne 0 5\n", "names vertex 5"),
        ("t 2 1\nv 0 1 3\nv 1 1 1\ne 0 1\n", "degree field 3 but 1 edges"),
        ("t 2 2\nv 0 1 1\nv 1 1 1\ne 0 1\n", "2 edges but 1 edge lines"),
        ("x 2 1\n", "header"),
        ("", "empty file"),
        ("t 2 1\nv 0 a 1\nv 1 1 1\ne 0 1\n", "expected integers"),
        ("t 2 1\nv 1 1 1\nv 0 1 1\ne 0 1\n", "out of order"),
    ],
)
def test_bad_files_one_line_errors(tmp_path, text, needle):
    path = _write(tmp_path, text)
    with pytest.raises(GraphFormatError) as err:
        load_labeled(path)
    assert needle in str(err.value) and "\n" not in str(err.value)
    assert str(path) in str(err.value)


def test_bad_gzip(tmp_path):
    path = tmp_path / "g.graph.gz"
    path.write_bytes(b"not gzip")
    with pytest.raises(GraphFormatError, match="gzip"):
        load_labeled(path)


def test_from_edges_canonicalizes_with_labels():
    g = LabeledGraph.from_edges([0, 1, 1, 3, 3], [1, 0, 1, 5, 3], [9, 8, 7, 6, 5, 4])
    assert g.num_nodes == 6 and g.num_edges == 2
    r = LabeledGraph.from_edges([0, 3], [3, 5], [9, 8, 7, 6, 5, 4], relabel=True)
    assert r.num_nodes == 3 and np.asarray(r.labels).tolist() == [9, 6, 4]
    with pytest.raises(ValueError, match="out of range"):
        LabeledGraph.from_edges([0], [7], [1, 2])


def test_from_networkx_needs_labels():
    g = nx.path_graph(3)
    with pytest.raises(ValueError, match="label"):
        LabeledGraph.from_networkx(g)
    g.nodes[0]["kind"], g.nodes[1]["kind"], g.nodes[2]["kind"] = 1, 2, 3
    assert np.asarray(LabeledGraph.from_networkx(g, label="kind").labels).tolist() == [1, 2, 3]


def test_exported():
    assert kcjax.LabeledGraph is LabeledGraph and kcjax.load_labeled is load_labeled
