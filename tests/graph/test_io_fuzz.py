"""Property-based fuzzing of the readers: every input loads the graph a reference
parser reads, or raises GraphFormatError; never another error, a crash or a hang."""

from __future__ import annotations

import gzip
import re
import zlib

import numpy as np
import pytest

hypothesis = pytest.importorskip("hypothesis")
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

import kcjax  # noqa: E402
from kcjax import GraphFormatError  # noqa: E402

FUZZ = settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
# Ids are small, or at/over the int32 limit (refused before any allocation):
# never a few hundred million, which would build a big graph for nothing.
IDS = st.one_of(
    st.integers(0, 40),
    st.sampled_from([2**31 - 1, 2**31, 2**62, 2**63 - 1, 2**63, 2**64]),
)
BLANK = st.sampled_from([" ", "\t", "  ", " \t", "\t\t"])
EOL = st.sampled_from(["\n", "\r\n", " \n", "\t\n"])


class Refused(Exception):
    """The reference parser refuses the text (the reader must raise GraphFormatError)."""


def reference_edges(text: bytes) -> tuple[list[int], list[int]]:
    """The edge-list grammar, independently: per line, blanks (space, tab, CR)
    skipped; empty, '#' and '%' lines skipped; else two non-negative decimal ids
    that each end at a blank or the end of the line; further columns ignored."""
    src, dst = [], []
    for line in text.split(b"\n"):
        body = line.lstrip(b" \t\r")
        if not body or body[:1] in (b"#", b"%"):
            continue
        fields = re.match(rb"([0-9]+)(?=[ \t\r]|$)[ \t\r]*([0-9]*)(.?)", body)
        if (
            fields is None
            or not fields.group(2)
            or fields.group(3) not in (b"", b" ", b"\t", b"\r")
        ):
            raise Refused
        u, v = int(fields.group(1)), int(fields.group(2))
        if max(u, v) >= 2**63:
            raise Refused
        src.append(u)
        dst.append(v)
    return src, dst


def edge_set(graph: kcjax.Graph) -> set[tuple[int, int]]:
    s, d = (np.asarray(a).tolist() for a in graph.edges())
    return set(zip(s, d, strict=True))


def expected_graph(text: bytes) -> set[tuple[int, int]] | None:
    """The reference graph's edge set, or None where the file must be refused."""
    try:
        src, dst = reference_edges(text)
    except Refused:
        return None
    if src and max(max(src), max(dst)) >= 2**31 - 1:
        return None  # beyond int32 (or refused by the memory guard)
    return {(min(u, v), max(u, v)) for u, v in zip(src, dst, strict=True) if u != v}


def check_reader(path, text: bytes) -> None:
    expected = expected_graph(text)
    try:
        graph = kcjax.load(path)
    except GraphFormatError:
        assert expected is None, f"refused a valid file {text[:200]!r}"
        return
    assert expected is not None, f"accepted an invalid file {text[:200]!r}"
    assert edge_set(graph) == expected


@st.composite
def edge_list_text(draw) -> bytes:
    lines = []
    for _ in range(draw(st.integers(0, 12))):
        kind = draw(st.sampled_from(["edge", "edge", "edge", "comment", "blank", "extra", "bad"]))
        lead = draw(st.sampled_from(["", " ", "\t"]))
        if kind == "edge":
            lines.append(f"{lead}{draw(IDS)}{draw(BLANK)}{draw(IDS)}")
        elif kind == "extra":
            lines.append(f"{lead}{draw(IDS)}{draw(BLANK)}{draw(IDS)}{draw(BLANK)}1.5 x")
        elif kind == "comment":
            lines.append(lead + draw(st.sampled_from(["# a b", "% c", "#", "%%MatrixMarket"])))
        elif kind == "blank":
            lines.append(lead)
        else:
            lines.append(
                draw(st.sampled_from(["1,2", "-1 2", "1", "a b", "1 2x", "3\x00 4", "é 1"]))
            )
    text = "".join(line + draw(EOL) for line in lines)
    if lines and draw(st.booleans()):
        text = text.rstrip("\r\n")  # no newline at the end
    return text.encode()


@FUZZ
@given(text=edge_list_text(), suffix=st.sampled_from([".el", ".txt", ".el.gz", ".txt.gz"]))
def test_edge_lists_match_the_reference(tmp_path_factory, text, suffix):
    path = tmp_path_factory.mktemp("fuzz") / f"g{suffix}"
    path.write_bytes(gzip.compress(text) if suffix.endswith(".gz") else text)
    check_reader(path, text)


@FUZZ
@given(data=st.binary(max_size=300), suffix=st.sampled_from([".el", ".el.gz", ".mtx"]))
def test_random_bytes_load_or_raise_format_errors(tmp_path_factory, data, suffix):
    path = tmp_path_factory.mktemp("fuzz") / f"g{suffix}"
    path.write_bytes(data)
    try:
        graph = kcjax.load(path)
    except GraphFormatError:
        return
    if suffix == ".el":
        assert edge_set(graph) == expected_graph(data)


@FUZZ
@given(text=edge_list_text(), cut=st.floats(0.0, 1.0))
def test_truncated_gzip_raises_format_errors(tmp_path_factory, text, cut):
    whole = gzip.compress(text)
    path = tmp_path_factory.mktemp("fuzz") / "g.el.gz"
    path.write_bytes(whole[: int(cut * (len(whole) - 1))])
    with pytest.raises(GraphFormatError):
        kcjax.load(path)


@st.composite
def matrix_market(draw) -> tuple[bytes, set[tuple[int, int]] | None]:
    n = draw(st.integers(1, 12))
    field = draw(st.sampled_from(["pattern", "integer", "real"]))
    symmetry = draw(st.sampled_from(["general", "symmetric"]))
    entries = draw(st.lists(st.tuples(st.integers(1, n), st.integers(1, n)), max_size=20))
    value = {"pattern": "", "integer": " 3", "real": " 0.5"}[field]
    body = "".join(f"{i} {j}{value}\n" for i, j in entries)
    text = f"%%MatrixMarket matrix coordinate {field} {symmetry}\n% c\n{n} {n} {len(entries)}\n"
    expected = {(min(i, j) - 1, max(i, j) - 1) for i, j in entries if i != j}
    return (text + body).encode(), expected


@FUZZ
@given(
    mm=matrix_market(),
    damage=st.one_of(st.none(), st.tuples(st.floats(0, 1), st.binary(max_size=3))),
)
def test_matrix_market_loads_or_raises_format_errors(tmp_path_factory, mm, damage):
    text, expected = mm
    if damage is not None:
        at = int(damage[0] * len(text))
        text = text[:at] + damage[1] + text[at + len(damage[1]) + 1 :]
    path = tmp_path_factory.mktemp("fuzz") / "g.mtx"
    path.write_bytes(text)
    try:
        graph = kcjax.load(path)
    except GraphFormatError:
        assert damage is not None, "refused a valid Matrix Market file"
        return
    if damage is None:
        assert edge_set(graph) == expected


def test_zlib_garbage_after_a_valid_member(tmp_path):
    path = tmp_path / "g.el.gz"
    path.write_bytes(gzip.compress(b"0 1\n1 2\n") + zlib.compress(b"junk")[:5])
    with pytest.raises(GraphFormatError):
        kcjax.load(path)


@st.composite
def labeled_graph_text(draw) -> tuple[bytes, set[tuple[int, int]], list[int]]:
    n = draw(st.integers(1, 10))
    labels = draw(st.lists(st.integers(0, 3), min_size=n, max_size=n))
    pairs = draw(st.lists(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1)), max_size=15))
    edges = {(min(u, v), max(u, v)) for u, v in pairs if u != v}
    degree = [sum(v in e for e in edges) for v in range(n)]
    lines = [f"t {n} {len(edges)}"]
    lines += [f"v {v} {labels[v]} {degree[v]}" for v in range(n)]
    lines += [f"e {u} {v}" for u, v in sorted(edges)]
    return ("\n".join(lines) + "\n").encode(), edges, labels


@FUZZ
@given(
    g=labeled_graph_text(),
    damage=st.one_of(st.none(), st.tuples(st.floats(0, 1), st.binary(max_size=3))),
    gz=st.booleans(),
)
def test_labeled_graph_files_load_or_raise_format_errors(tmp_path_factory, g, damage, gz):
    text, edges, labels = g
    if damage is not None:
        at = int(damage[0] * len(text))
        text = text[:at] + damage[1] + text[at + len(damage[1]) + 1 :]
    path = tmp_path_factory.mktemp("fuzz") / ("q.graph.gz" if gz else "q.graph")
    path.write_bytes(gzip.compress(text) if gz else text)
    try:
        graph = kcjax.load_labeled(path)
    except GraphFormatError:
        assert damage is not None, "refused a valid .graph file"
        return
    if damage is None:
        s, d = graph.edge_arrays()
        assert set(zip(s.tolist(), d.tolist(), strict=True)) == edges
        assert np.asarray(graph.labels).tolist() == labels
