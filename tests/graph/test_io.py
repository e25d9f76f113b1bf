"""Graph readers and writers: edge lists, Matrix Market, .npz cache, errors."""

from __future__ import annotations

import csv
import gzip
from pathlib import Path

import numpy as np
import pytest
from reference import DATA_DIR

import kcjax
from kcjax import GraphFormatError, load, save
from kcjax.experimental import read_edge_list

GRAPHS = DATA_DIR

TRIANGLE_PLUS = [(0, 1), (1, 2), (0, 2), (2, 3)]  # a triangle and a pendant edge


def edge_set(graph: kcjax.Graph) -> set[tuple[int, int]]:
    """The edges (u < v), read from the CSR with numpy."""
    indptr = np.asarray(graph.indptr)
    rows = np.repeat(np.arange(graph.num_nodes), np.diff(indptr)).tolist()
    return {(u, v) for u, v in zip(rows, np.asarray(graph.indices).tolist(), strict=True) if u < v}


def write(path: Path, text: str | bytes) -> Path:
    data = text.encode() if isinstance(text, str) else text
    path.write_bytes(gzip.compress(data) if path.name.endswith(".gz") else data)
    return path


@pytest.mark.parametrize(
    ("name", "text"),
    [
        ("plain.txt", "0 1\n1 2\n0 2\n2 3\n"),
        ("plain.el.gz", "0 1\n1 2\n0 2\n2 3\n"),
        ("comments.edges", "# SNAP header\n% konect\n\n0 1\n  # indented comment\n1 2\n0 2\n2 3"),
        ("tabs.tsv", "0\t1\n1\t\t2\n \t0 2\t\n2\t3\n"),
        ("crlf.txt", "# c\r\n0 1\r\n1 2\r\n\r\n0 2\r\n2 3\r\n"),
        ("third.txt", "0 1 1.5\n1 2 7 1234567890\n0 2 x\n2 3\t-4\n"),
        ("dups.txt", "0 1\n1 0\n1 2\n2 2\n0 2\n2 3\n3 2\n"),
        ("konect.out", "% sym unweighted\n% 4 4 4\n0 1\n1 2\n0 2\n2 3\n"),
    ],
)
def test_edge_list_variants(tmp_path, name, text):
    graph = load(write(tmp_path / name, text))
    assert graph.num_nodes == 4
    assert edge_set(graph) == set(TRIANGLE_PLUS)


def test_gzip_detected_by_magic(tmp_path):
    path = tmp_path / "graph.txt"
    path.write_bytes(gzip.compress(b"0 1\n1 2\n0 2\n2 3\n"))
    assert edge_set(load(path)) == set(TRIANGLE_PLUS)


def test_ids_as_given_or_relabeled(tmp_path):
    path = write(tmp_path / "sparse.txt", "10 20\n20 30\n")
    graph = load(path)
    assert graph.num_nodes == 31
    assert edge_set(graph) == {(10, 20), (20, 30)}
    relabeled = load(path, relabel=True)
    assert relabeled.num_nodes == 3
    assert edge_set(relabeled) == {(0, 1), (1, 2)}


def test_report(tmp_path):
    path = write(tmp_path / "g.txt", "0 1\n1 0\n1 1\n1 2\n")
    graph, report = load(path, return_report=True)
    assert (report.input_edges, report.self_loops, report.duplicates) == (4, 1, 1)
    assert report.num_edges == graph.num_edges == 2


def test_read_edge_list_raw(tmp_path):
    src, dst = read_edge_list(write(tmp_path / "g.txt.gz", "# x\n5 3\n3 5\n7 7 1\n"))
    assert src.dtype == dst.dtype == np.int64
    assert src.tolist() == [5, 3, 7] and dst.tolist() == [3, 5, 7]


def test_large_ids_need_relabel(tmp_path):
    path = write(tmp_path / "big.txt", "0 9223372036854775807\n")
    with pytest.raises(GraphFormatError, match="relabel"):
        load(path)
    assert load(path, relabel=True).num_edges == 1


@pytest.mark.parametrize("name", ["empty.txt", "comments.txt", "blank.txt.gz"])
def test_empty_edge_list(tmp_path, name):
    text = {"empty.txt": "", "comments.txt": "# none\n% none\n", "blank.txt.gz": "\n\n"}[name]
    graph = load(write(tmp_path / name, text))
    assert (graph.num_nodes, graph.num_edges) == (0, 0)


@pytest.mark.parametrize(
    ("text", "line", "what"),
    [
        ("0 1\n1 x\n", 2, "non-numeric target"),
        ("0 1\n\n# c\nabc 1\n", 4, "non-numeric source"),
        ("0 1\n1.5 2\n", 2, "non-numeric source"),
        ("0 1\n2 3e4\n", 2, "non-numeric target"),
        ("0 -1\n", 1, "negative target"),
        ("-7 1\n", 1, "negative source"),
        ("0 1\n7\n", 2, "expected 2 fields"),
        ("0 1\n7 \t\r\n", 2, "expected 2 fields"),
        ("0 1\n1 2\n3 99999999999999999999\n", 3, "target vertex id .* overflows int64"),
        ("0,1\n", 1, "non-numeric source"),
    ],
)
@pytest.mark.parametrize("suffix", [".txt", ".txt.gz"])
def test_malformed_edge_list(tmp_path, text, line, what, suffix):
    path = write(tmp_path / f"bad{suffix}", text)
    with pytest.raises(GraphFormatError, match=f"line {line}: {what}") as info:
        load(path)
    assert str(path) in str(info.value)
    with pytest.raises(GraphFormatError, match=f"line {line}: "):
        read_edge_list(path)


@pytest.mark.parametrize("data", [b"\x1f\x8bnot really gzip", b"plain text, not gzip", b""])
def test_bad_gzip(tmp_path, data):
    path = tmp_path / "bad.txt.gz"
    path.write_bytes(data)
    with pytest.raises(GraphFormatError, match="not a valid gzip file") as info:
        load(path)
    assert str(path) in str(info.value)


def test_truncated_gzip(tmp_path):
    path = tmp_path / "cut.el.gz"
    path.write_bytes(gzip.compress(b"0 1\n" * 1000)[:-20])
    with pytest.raises(GraphFormatError, match="gzip"):
        load(path)


@pytest.mark.parametrize("name", ["missing.txt", "missing.mtx", "missing.npz", "gone.txt.gz"])
def test_missing_file(tmp_path, name):
    path = tmp_path / name
    with pytest.raises(FileNotFoundError, match=name):
        load(path)


MM_TRIANGLE_PLUS = {
    "pattern general": "4 4 5\n1 2\n2 3\n3 1\n3 4\n4 3\n",
    "pattern symmetric": "4 4 4\n2 1\n3 2\n3 1\n4 3\n",
    "integer general": "4 4 4\n1 2 5\n2 3 -1\n1 3 0\n3 4 2\n",
    "real symmetric": "4 4 4\n2 1 0.5\n3 2 1e-3\n3 1 -2.5\n4 3 1\n",
    "real skew-symmetric": "4 4 4\n2 1 0.5\n3 2 1.0\n3 1 2.0\n4 3 1\n",
    "real general": "%comment\n\n4  4  4\n1\t2 1.0\r\n2 3 1.0\r\n1 3 1\r\n3 4 1\r\n",
}


@pytest.mark.parametrize("kind", list(MM_TRIANGLE_PLUS))
@pytest.mark.parametrize("suffix", [".mtx", ".mtx.gz"])
def test_matrix_market(tmp_path, kind, suffix):
    text = f"%%MatrixMarket matrix coordinate {kind}\n% a comment\n" + MM_TRIANGLE_PLUS[kind]
    graph = load(write(tmp_path / f"g{suffix}", text))
    assert graph.num_nodes == 4
    assert edge_set(graph) == set(TRIANGLE_PLUS)


def test_matrix_market_keeps_isolated_vertices(tmp_path):
    text = "%%MatrixMarket matrix coordinate pattern symmetric\n10 10 1\n2 1\n"
    path = write(tmp_path / "g.mtx", text)
    assert load(path).num_nodes == 10
    assert load(path, relabel=True).num_nodes == 2


def test_matrix_market_header_case_insensitive(tmp_path):
    text = "%%matrixmarket MATRIX Coordinate Pattern General\n2 2 1\n1 2\n"
    assert load(write(tmp_path / "g.mtx", text)).num_edges == 1


def test_format_override(tmp_path):
    text = "%%MatrixMarket matrix coordinate pattern general\n3 3 1\n1 3\n"
    path = write(tmp_path / "matrix.dat", text)
    assert edge_set(load(path, format="mtx")) == {(0, 2)}
    with pytest.raises(ValueError, match="format"):
        load(path, format="graphml")


MM_HEADER = "%%MatrixMarket matrix coordinate pattern general\n"


@pytest.mark.parametrize(
    ("text", "match"),
    [
        ("3 3 1\n1 2\n", "line 1: expected a Matrix Market header"),
        ("%%MatrixMarket matrix\n3 3 1\n1 2\n", "line 1: expected a Matrix Market header"),
        ("%%MatrixMarket matrix array real general\n3 3\n1\n", "line 1: .*'array'"),
        ("%%MatrixMarket matrix coordinate complex general\n", "line 1: .*'complex'"),
        ("%%MatrixMarket matrix coordinate pattern hermitian\n", "line 1: .*'hermitian'"),
        (MM_HEADER + "% only comments\n", "line 2: missing the size line"),
        (MM_HEADER + "3 3\n1 2\n", "line 2: expected the size line"),
        (MM_HEADER + "%c\n3 x 1\n1 2\n", "line 3: expected the size line"),
        (MM_HEADER + "3 4 1\n1 2\n", "line 2: .*must be square"),
        (MM_HEADER + "3 3 3\n1 2\n2 3\n", "promises 3 entries, found 2"),
        (MM_HEADER + "3 3 1\n1 2\n2 3\n", "promises 1 entries, found 2"),
        (MM_HEADER + "3 3 2\n1 2\n2 x\n", "line 4: non-numeric target"),
        (MM_HEADER + "%c\n3 3 2\n1 2\n-2 3\n", "line 5: negative source"),
        (MM_HEADER + "3 3 2\n1 2\n0 3\n", "line 4: entry \\(0, 3\\) is outside"),
        (MM_HEADER + "3 3 2\n1 2\n\n2 4\n", "line 5: entry \\(2, 4\\) is outside"),
    ],
)
def test_malformed_matrix_market(tmp_path, text, match):
    path = write(tmp_path / "bad.mtx", text)
    with pytest.raises(GraphFormatError, match=match) as info:
        load(path)
    assert str(path) in str(info.value)


def test_npz_round_trip(tmp_path):
    graph = load(write(tmp_path / "g.txt", "0 1\n1 2\n0 2\n2 3\n7 8\n"))
    path = tmp_path / "cache.npz"
    save(graph, path)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["cache.npz", "g.txt"]
    back = load(path)
    assert back.num_nodes == graph.num_nodes == 9
    np.testing.assert_array_equal(back.indptr, graph.indptr)
    np.testing.assert_array_equal(back.indices, graph.indices)
    assert back.indptr.dtype == back.indices.dtype == np.int32
    assert load(path, relabel=True).num_nodes == 6
    _, report = load(path, return_report=True)
    assert report.num_edges == 5 and report.duplicates == report.self_loops == 0


def test_npz_empty_graph(tmp_path):
    graph = load(write(tmp_path / "e.txt", ""))
    save(graph, tmp_path / "e.npz")
    assert load(tmp_path / "e.npz").num_nodes == 0


def _npz(path: Path, **arrays) -> Path:
    base = {
        "format_version": np.int64(1),
        "num_nodes": np.int64(3),
        "indptr": np.array([0, 1, 3, 4], np.int32),
        "indices": np.array([1, 0, 2, 1], np.int32),
    }
    base.update(arrays)
    with open(path, "wb") as f:
        np.savez(f, **{k: v for k, v in base.items() if v is not None})
    return path


@pytest.mark.parametrize(
    ("arrays", "match"),
    [
        ({}, None),
        ({"format_version": np.int64(99)}, "format version 99"),
        ({"indices": None}, "missing"),
        ({"indices": np.array([1, 0, 2, 1], np.int64)}, "dtypes"),
        ({"num_nodes": np.int64(5)}, "indptr shape"),
        ({"indptr": np.array([0, 2, 1, 4], np.int32)}, "row-pointer"),
        ({"indices": np.array([1, 0, 2, 3], np.int32)}, "out of range"),
        ({"indices": np.array([1, 2, 0, 1], np.int32)}, "sorted"),
        ({"indices": np.array([0, 0, 2, 1], np.int32)}, "self loops"),
    ],
)
def test_npz_validation(tmp_path, arrays, match):
    path = _npz(tmp_path / "g.npz", **arrays)
    if match is None:
        assert edge_set(load(path)) == {(0, 1), (1, 2)}
        return
    with pytest.raises(GraphFormatError, match=match):
        load(path)


@pytest.mark.parametrize("data", [b"not a zip", b"PK\x03\x04broken", b""])
def test_npz_not_an_archive(tmp_path, data):
    path = tmp_path / "g.npz"
    path.write_bytes(data)
    with pytest.raises(GraphFormatError, match="not a kcjax .npz graph cache"):
        load(path)


def test_npz_single_array(tmp_path):
    path = tmp_path / "g.npz"
    with open(path, "wb") as f:
        np.save(f, np.arange(3))
    with pytest.raises(GraphFormatError, match="not a kcjax .npz"):
        load(path)


def _manifest() -> list[dict[str, str]]:
    path = GRAPHS / "MANIFEST.tsv"
    if not path.exists():
        return []
    with open(path, newline="") as f:
        return list(csv.DictReader(f, delimiter="\t"))


@pytest.mark.skipif(not GRAPHS.is_dir(), reason="shared graphs not present")
@pytest.mark.parametrize("row", _manifest(), ids=lambda row: row["name"])
def test_real_graph_matches_manifest(row):
    graph = load(GRAPHS / f"{row['name']}.el.gz")
    assert graph.num_nodes == int(row["nodes"])
    assert graph.num_edges == int(row["edges"])
    assert np.diff(np.asarray(graph.indptr)).max() == int(row["max_degree"])
