"""The command line's promises, each run in a process of its own: an output file
is one complete result or absent, inputs are never overwritten, memory and time
follow the graph, ids stay the file's under --relabel, and errors are one
line. Most commands run through one driver process (one jax start for all);
what needs a process boundary (a closed pipe, two writers at once, a full
file system) runs ``python -m kcjax`` itself.
"""

from __future__ import annotations

import itertools
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import networkx as nx
import numpy as np
import pytest
from reference.matching import random_labeled

from kcjax import LabeledGraph, save_labeled

ENV = dict(os.environ, JAX_PLATFORMS="cpu")
# K4 on 0..3 plus a triangle 3-4-5 and a pendant 5-6: 5 triangles, one 4-clique.
EDGES = "0 1\n0 2\n0 3\n1 2\n1 3\n2 3\n3 4\n4 5\n3 5\n5 6\n"
# Sparse ids, one past int32: a K4, a triangle sharing 1000, a pendant.
SPARSE = [
    (7, 1000),
    (7, 2_000_000),
    (7, 2_000_000_000),
    (1000, 2_000_000),
    (1000, 2_000_000_000),
    (2_000_000, 2_000_000_000),
    (5, 6),
    (5, 1000),
    (6, 1000),
    (2_000_000_000, 3_000_000_000),
]

DRIVER = r"""
import contextlib, io, json, sys
from kcjax import cli
results = {}
for name, argv in json.loads(sys.argv[1]).items():
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = cli.main(argv)
    results[name] = [code, out.getvalue(), err.getvalue()]
sys.stdout.write(json.dumps(results))
"""


def kcjax_command(*args: str) -> list[str]:
    return [sys.executable, "-P", "-m", "kcjax", *args]


def run_driver(commands: dict[str, list[str]], cwd: Path) -> dict[str, tuple[int, str, str]]:
    """Runs every command in one process through kcjax.cli.main: name -> (rc, out, err)."""
    done = subprocess.run(
        [sys.executable, "-P", "-c", DRIVER, json.dumps(commands)],
        cwd=cwd,
        env=ENV,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return {name: tuple(r) for name, r in json.loads(done.stdout).items()}


def write_inputs(d: Path) -> None:
    (d / "g.txt").write_text(EDGES)
    (d / "link.txt").symlink_to(d / "g.txt")
    os.link(d / "g.txt", d / "hard.txt")
    (d / "sources.txt").write_text("0 4\n")
    (d / "empty.txt").write_text("\n")
    (d / "sparse.txt").write_text("".join(f"{u} {v}\n" for u, v in SPARSE))
    (d / "srcs.txt").write_text("5 3000000000\n")
    (d / "fake.npz").write_bytes(b"not a zip file")
    np.savez(d / "pickled.npz", x=np.array([{"a": 1}], dtype=object))
    g = random_labeled(20, 0.3, 2, seed=5)
    save_labeled(LabeledGraph.from_networkx(g), d / "data.graph")
    triangle = LabeledGraph.from_edges([0, 1, 2], [1, 2, 0], [0, 1, 0])
    save_labeled(triangle, d / "q3.graph")
    shutil.copy(d / "q3.graph", d / "q.txt")
    path33 = LabeledGraph.from_edges(np.arange(32), np.arange(1, 33), np.zeros(33, np.int32))
    save_labeled(path33, d / "q33.graph")
    (d / "bad.graph").write_text("t 2 1\nv 0 1 1\nv 1 1 1\ne 0 5\n")


COMMANDS = {
    # Outputs that would replace an input: refused before any work.
    "list_onto_input": ["list", "g.txt", "-k", "3", "-o", "g.txt"],
    "bfs_onto_input": ["bfs", "g.txt", "-s", "0", "-o", "g.txt"],
    "truss_onto_input": ["truss", "g.txt", "-k", "3", "-o", "g.txt"],
    "match_onto_query": ["match", "data.graph", "q.txt", "--list", "-o", "q.txt"],
    "list_onto_symlinked_input": ["list", "link.txt", "-k", "3", "-o", "g.txt"],
    "list_onto_hard_link": ["list", "g.txt", "-k", "3", "-o", "hard.txt"],
    "bfs_onto_sources": ["bfs", "g.txt", "--sources", "sources.txt", "-o", "sources.txt"],
    "mapping_onto_input": ["count", "g.txt", "-k", "3", "--relabel", "--mapping", "g.txt"],
    "mapping_is_output": [
        *("list", "g.txt", "-k", "3", "--relabel", "-o", "x.txt", "--mapping", "x.txt"),
    ],
    "mapping_without_relabel": ["count", "g.txt", "-k", "3", "--mapping", "m.txt"],
    # Sizes above the largest possible clique cost nothing.
    "count_wide_range": ["count", "g.txt", "-k", "1-100000", "--json"],
    "count_wide_text": ["count", "g.txt", "-k", "3", "-k", "2-100000"],
    "count_short_zero_run": ["count", "g.txt", "-k", "1-8", "--json"],
    "list_huge_k": ["list", "g.txt", "-k", "64", "-o", "huge.npy"],
    # Every query is checked (naming its file) before the data graph is read.
    "match_big_query": ["match", "bad.graph", "q3.graph", "q33.graph"],
    # --relabel: ids in and out are the file's.
    "relabel_list_txt": ["list", "sparse.txt", "-k", "3", "--relabel", "-o", "r3.txt"],
    "relabel_list_npy": [
        *("list", "sparse.txt", "-k", "2", "--relabel", "-o", "r2.npy", "--mapping", "map.txt"),
    ],
    "relabel_bfs": [
        *("bfs", "sparse.txt", "-s", "1000", "--relabel", "--json", "-o", "d.npy"),
        *("--mapping", "map.npy"),
    ],
    "relabel_bfs_sources": [
        *("bfs", "sparse.txt", "--sources", "srcs.txt", "--relabel", "--json", "-q"),
    ],
    "relabel_bfs_no_such_vertex": ["bfs", "sparse.txt", "-s", "6000", "--relabel"],
    "relabel_truss": ["truss", "sparse.txt", "--max", "--relabel", "-o", "t.txt"],
    # The small ones.
    "empty_output": ["list", "g.txt", "-k", "3", "-o", ""],
    "empty_sources": ["bfs", "g.txt", "--sources", "empty.txt"],
    "fake_npz": ["info", "fake.npz"],
    "pickled_npz": ["info", "pickled.npz"],
    "help": ["--help"],
    "info_help": ["info", "--help"],
}


@pytest.fixture(scope="module")
def ran(tmp_path_factory) -> tuple[Path, dict[str, tuple[int, str, str]]]:
    d = tmp_path_factory.mktemp("cli_files")
    write_inputs(d)
    before = {p.name: p.read_bytes() for p in d.iterdir() if p.is_file()}
    results = run_driver(COMMANDS, d)
    for name, data in before.items():  # no command changed an input
        assert (d / name).read_bytes() == data, name
    assert not list(d.glob(".*partial"))
    return d, results


def one_line_error(result: tuple[int, str, str], *needles: str) -> str:
    code, out, err = result
    assert code == 2 and out == "", result
    lines = err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("kcjax: error: "), err
    for needle in needles:
        assert needle in lines[0], (needle, lines[0])
    return lines[0]


@pytest.mark.parametrize(
    ("name", "needles"),
    [
        ("list_onto_input", ["refusing to write -o g.txt", "input g.txt"]),
        ("bfs_onto_input", ["refusing to write -o g.txt"]),
        ("truss_onto_input", ["refusing to write -o g.txt"]),
        ("match_onto_query", ["refusing to write -o q.txt", "input q.txt"]),
        ("list_onto_symlinked_input", ["refusing to write -o g.txt", "input link.txt"]),
        ("list_onto_hard_link", ["refusing to write -o hard.txt", "input g.txt"]),
        ("bfs_onto_sources", ["refusing to write -o sources.txt", "input sources.txt"]),
        ("mapping_onto_input", ["refusing to write --mapping g.txt"]),
        ("mapping_is_output", ["--mapping and -o name the same file"]),
        ("mapping_without_relabel", ["give --relabel too"]),
    ],
)
def test_outputs_never_replace_inputs(ran, name, needles):
    one_line_error(ran[1][name], *needles)


def test_sizes_above_the_bound_cost_nothing(ran):
    d, results = ran
    code, out, err = results["count_wide_range"]
    assert code == 0, err
    want = {1: 7, 2: 10, 3: 5, 4: 1}
    counts = json.loads(out)["counts"]
    (run,) = [k for k in counts if "-" in k]  # one entry for the sizes no clique reaches
    lo, hi = map(int, run.split("-"))
    omega = max(len(c) for c in nx.find_cliques(nx.read_edgelist(d / "g.txt", nodetype=int)))
    assert counts.pop(run) == 0 and hi == 100_000 and lo > omega
    assert counts == {str(k): want.get(k, 0) for k in range(1, lo)}
    code, out, err = results["count_wide_text"]
    assert code == 0, err
    assert f"k = {lo}-100000" in out and out.count("\nk = ") == lo - 1
    # A short run above the bound is still listed size by size.
    code, out, err = results["count_short_zero_run"]
    assert code == 0, err
    assert json.loads(out)["counts"] == {str(k): want.get(k, 0) for k in range(1, 9)}
    code, _, err = results["list_huge_k"]
    assert code == 0, err
    assert np.load(d / "huge.npy").shape == (0, 64)


def test_every_query_is_checked_before_the_data(ran):
    # bad.graph is malformed: a check after loading it would name it instead.
    one_line_error(ran[1]["match_big_query"], "q33.graph", "query size")


def test_relabel_keeps_the_files_ids(ran):
    d, results = ran
    g = nx.Graph(SPARSE)
    for name in (
        "relabel_list_txt",
        "relabel_list_npy",
        "relabel_bfs",
        "relabel_bfs_sources",
        "relabel_truss",
    ):
        assert results[name][0] == 0, results[name]
    triangles = {tuple(sorted(c)) for c in nx.enumerate_all_cliques(g) if len(c) == 3}
    rows = np.loadtxt(d / "r3.txt", dtype=np.int64, ndmin=2)
    assert {tuple(r) for r in rows.tolist()} == triangles
    pairs = np.load(d / "r2.npy")
    assert pairs.dtype == np.int64  # one file id passes int32
    assert {tuple(r) for r in pairs.tolist()} == {tuple(sorted(e)) for e in g.edges}
    mapping = np.loadtxt(d / "map.txt", dtype=np.int64)
    assert mapping.tolist() == sorted(g) == np.load(d / "map.npy").tolist()
    (source,) = json.loads(results["relabel_bfs"][1])["sources"]
    lengths = nx.single_source_shortest_path_length(g, 1000)
    assert source["source"] == 1000 and source["reached"] == len(lengths)
    dist = np.load(d / "d.npy")  # columns in the mapping's order
    assert dist.tolist() == [lengths.get(v, -1) for v in mapping.tolist()]
    got = json.loads(results["relabel_bfs_sources"][1])["sources"]
    assert [s["source"] for s in got] == [5, 3_000_000_000]
    for s in got:
        want = nx.single_source_shortest_path_length(g, s["source"])
        assert s["dist_sum"] == sum(want.values()) and s["reached"] == len(want)
    one_line_error(results["relabel_bfs_no_such_vertex"], "source 6000 has no edge")
    edges = np.loadtxt(d / "t.txt", dtype=np.int64, ndmin=2)
    k4 = [7, 1000, 2_000_000, 2_000_000_000]
    assert {tuple(r) for r in edges.tolist()} == {tuple(sorted(e)) for e in g.subgraph(k4).edges}


def test_small_ones(ran):
    results = ran[1]
    line = one_line_error(results["empty_output"], "-o needs a file name")
    assert "'.'" not in line
    one_line_error(results["empty_sources"], "empty.txt", "no source ids")
    for name in ("fake_npz", "pickled_npz"):
        line = one_line_error(results[name], "not a kcjax .npz graph cache")
        assert "allow_pickle" not in line
    code, out, _ = results["help"]
    assert code == 0 and "Exact k-clique counting" not in out
    assert all(word in out for word in ("k-clique", "k-truss", "BFS", "subgraph matching"))
    code, out, _ = results["info_help"]
    description = out.split("\n\n")[1]
    assert code == 0 and not description.startswith("positional") and "degeneracy" in description


def test_a_closed_pipe_ends_quietly(tmp_path):
    (tmp_path / "g.txt").write_text(EDGES)
    proc = subprocess.Popen(
        kcjax_command("count", "g.txt", "-k", "1-40"),
        cwd=tmp_path,
        env=ENV,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    proc.stdout.close()  # the reader is gone before the report is printed (| head -0)
    err = proc.stderr.read()
    assert proc.wait(timeout=120) == 141 and err == b""


def test_writers_of_one_path_get_temporaries_of_their_own(tmp_path):
    """Two writers of one path at once (here: nested): each writes its own
    temporary, both succeed, the path holds the last one renamed, whole."""
    from kcjax.experimental import partial_file

    target = tmp_path / "out.txt"
    with partial_file(target) as first:
        first.write_text("first\n" * 1000)
        with partial_file(target) as second:
            assert second != first and second.parent == first.parent == tmp_path
            second.write_text("second\n")
        assert target.read_text() == "second\n"
        assert first.read_text() == "first\n" * 1000  # untouched by the other writer
    assert target.read_text() == "first\n" * 1000
    assert [p.name for p in tmp_path.iterdir()] == ["out.txt"]
    umask = os.umask(0)
    os.umask(umask)
    assert target.stat().st_mode & 0o777 == 0o666 & ~umask


def test_two_writers_of_one_output_leave_one_whole_listing(tmp_path):
    for n in (22, 23):
        edges = itertools.combinations(range(n), 2)
        (tmp_path / f"k{n}.txt").write_text("".join(f"{u} {v}\n" for u, v in edges))
    procs = [
        subprocess.Popen(
            kcjax_command("list", f"k{n}.txt", "-k", "5", "-o", "out.txt", "-q"),
            cwd=tmp_path,
            env=ENV,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for n in (22, 23)
    ]
    for proc in procs:
        _, err = proc.communicate(timeout=300)
        assert proc.returncode == 0, err
    rows = np.loadtxt(tmp_path / "out.txt", dtype=np.int64, ndmin=2)
    n = int(rows.max()) + 1  # the listing of K22 or of K23, whole
    assert n in (22, 23)
    assert sorted(map(tuple, rows.tolist())) == list(itertools.combinations(range(n), 5))
    assert sorted(p.name for p in tmp_path.iterdir()) == ["k22.txt", "k23.txt", "out.txt"]


def test_a_full_file_system_is_an_error_not_a_crash(tmp_path):
    """A 64 KiB tmpfs (mounted in a user and mount namespace of its own):
    listings of 118 KiB fail with exit 2 and leave no file, .npy and .txt alike."""
    if shutil.which("unshare") is None:
        pytest.skip("no unshare")
    edges = itertools.combinations(range(40), 2)  # K40: 9,880 triangles
    (tmp_path / "k40.txt").write_text("".join(f"{u} {v}\n" for u, v in edges))
    full = tmp_path / "full"
    full.mkdir()
    commands = {
        suffix: ["list", "k40.txt", "-k", "3", "-o", f"full/out.{suffix}"]
        for suffix in ("npy", "txt")
    }
    script = (
        f"mount -t tmpfs -o size=64k tmpfs {full} || exit 77; "
        f'"$0" -P -c "$1" "$2"; echo; ls -A {full}'
    )
    done = subprocess.run(
        ["unshare", "-rm", "sh", "-c", script, sys.executable, DRIVER, json.dumps(commands)],
        cwd=tmp_path,
        env=ENV,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    if done.returncode == 77 or "unshare:" in done.stderr:
        pytest.skip(f"cannot mount a tmpfs here: {done.stderr.strip()}")
    report, listing = done.stdout.split("\n", 1)
    results = json.loads(report)
    for suffix in ("npy", "txt"):
        one_line_error(
            tuple(results[suffix]), f"cannot write full/out.{suffix}", "No space left on device"
        )
    assert listing.split() == []
