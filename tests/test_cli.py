"""The kcjax command line, run in-process through cli.main."""

from __future__ import annotations

import gzip
import io
import json
import sys
from pathlib import Path

import networkx as nx
import numpy as np
import pytest

from kcjax import cli, generators, load, save, transitivity
from kcjax.experimental import parse_k_values

# K4 on 0..3 plus a triangle 3-4-5 and a pendant 5-6: 1 4-clique, 5 triangles.
EDGES = "0 1\n0 2\n0 3\n1 2\n1 3\n2 3\n3 4\n4 5\n3 5\n5 6\n"
COUNTS = {1: 7, 2: 10, 3: 5, 4: 1, 5: 0}


@pytest.fixture
def graph_file(tmp_path) -> Path:
    path = tmp_path / "small.txt"
    path.write_text("# test graph\n" + EDGES)
    return path


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = cli.main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def count_lines(out: str) -> dict[int, int]:
    """Parses the 'k = K  COUNT' lines of count/demo output."""
    rows = [line.split() for line in out.splitlines() if line.startswith("k = ")]
    return {int(r[2]): int(r[3].replace(",", "")) for r in rows}


@pytest.mark.parametrize("order", ["degree", "degeneracy"])
@pytest.mark.parametrize("method", ["auto", "binary_search"])
def test_count(capsys, graph_file, order, method):
    code, out, err = run(
        capsys, "count", graph_file, "-k", "3", "-k", "4", "--order", order, "--method", method
    )
    assert code == 0, err
    assert count_lines(out) == {3: 5, 4: 1}
    assert "load" in out and "orient" in out and "count" in out


@pytest.mark.parametrize(("spec", "ks"), [(["-k", "1-5"], [1, 2, 3, 4, 5]), (["-k", "4"], [4])])
def test_count_ranges(capsys, graph_file, spec, ks):
    code, out, _ = run(capsys, "count", graph_file, *spec, "-k", "3", "--quiet")
    assert code == 0
    assert count_lines(out) == {k: COUNTS[k] for k in sorted({*ks, 3})}


def test_count_json(capsys, graph_file):
    code, out, err = run(capsys, "count", graph_file, "-k", "2-4", "--json", "--threads", "1")
    assert code == 0, err
    result = json.loads(out)
    assert result["counts"] == {"2": 10, "3": 5, "4": 1}
    assert (result["num_nodes"], result["num_edges"]) == (7, 10)
    assert result["order"] == "degree" and result["method"] == "auto"
    assert set(result["times"]) == {"load_s", "orient_s", "count_s"}


def test_count_gzip_and_npz(capsys, tmp_path):
    gz = tmp_path / "g.el.gz"
    gz.write_bytes(gzip.compress(EDGES.encode()))
    code, out, _ = run(capsys, "count", gz, "-k", "4", "--json")
    assert code == 0 and json.loads(out)["counts"] == {"4": 1}
    cache = tmp_path / "g.npz"
    save(load(gz), cache)
    code, out, _ = run(capsys, "count", cache, "-k", "3", "--json")
    assert code == 0 and json.loads(out)["counts"] == {"3": 5}


def test_count_no_progress_bar_when_not_a_tty(capsys, graph_file):
    code, _, err = run(capsys, "count", graph_file, "-k", "3")
    assert code == 0 and err == ""


@pytest.mark.parametrize("text", ["", "# header only\n", "\n\n"])
def test_count_empty_graph_prints_zeros(capsys, tmp_path, text):
    path = tmp_path / "empty.txt"
    path.write_text(text)
    code, out, err = run(capsys, "count", path, "-k", "1-4", "--json")
    assert code == 0, err
    assert json.loads(out)["counts"] == {"1": 0, "2": 0, "3": 0, "4": 0}


def test_count_interrupted(capsys, graph_file, monkeypatch):
    def interrupt(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr("kcjax.cliques.command.count_cliques", interrupt)
    code, out, err = run(capsys, "count", graph_file, "-k", "3", "--json")
    assert code == 130
    assert out == ""
    assert err.strip() == "kcjax: interrupted"


@pytest.mark.parametrize(("spec", "ks"), [("3", [3]), ("3-6", [3, 4, 5, 6]), (" 2-2 ", [2])])
def test_k_values(spec, ks):
    assert list(parse_k_values(spec)) == ks


def test_info(capsys, graph_file):
    code, out, err = run(capsys, "info", graph_file, "--json")
    assert code == 0, err
    info = json.loads(out)
    assert info["num_nodes"] == 7 and info["num_edges"] == 10
    assert info["max_degree"] == 5  # vertex 3
    assert info["degeneracy"] == 3
    assert info["max_out_degree_by_degeneracy"] == 3
    assert info["max_out_degree_by_degree"] >= 3
    assert info["triangles"] == 5
    assert info["transitivity"] == round(transitivity(load(graph_file)), 6) > 0
    code, text, _ = run(capsys, "info", graph_file)
    assert code == 0 and "triangles" in text and "degeneracy" in text


def test_info_reports_dropped_edges(capsys, tmp_path):
    path = tmp_path / "loops.txt"
    path.write_text("0 1\n1 0\n1 1\n1 2\n")
    code, out, _ = run(capsys, "info", path, "--json")
    info = json.loads(out)
    assert code == 0 and (info["self_loops_dropped"], info["duplicates_dropped"]) == (1, 1)


def test_info_empty_graph(capsys, tmp_path):
    path = tmp_path / "empty.txt"
    path.write_text("# no edges\n")
    code, out, err = run(capsys, "info", path, "--json")
    assert code == 0, err
    info = json.loads(out)
    assert info["num_edges"] == info["triangles"] == info["degeneracy"] == 0


def test_demo_on_file(capsys, tmp_path):
    path = tmp_path / "k7.txt"
    graph = generators.complete(7)
    indptr, indices = graph.indptr.tolist(), graph.indices.tolist()
    lines = [f"{u} {v}" for u in range(7) for v in indices[indptr[u] : indptr[u + 1]] if u < v]
    path.write_text("\n".join(lines))
    code, out, err = run(capsys, "demo", path, "--quiet")
    assert code == 0, err
    assert count_lines(out) == {3: 35, 4: 35, 5: 21, 6: 7, 7: 1, 8: 0}


def test_demo_generated_graph(capsys, monkeypatch):
    # The default demo graph, shrunk so the test runs quickly.
    monkeypatch.setattr(cli, "_DEMO_SCALE", 7)
    code, out, err = run(capsys, "demo", "--json")
    assert code == 0, err
    result = json.loads(out)
    assert sorted(result["counts"]) == [str(k) for k in range(3, 9)]
    assert result["graph"].startswith("rmat(scale=7")
    assert result["num_nodes"] == 128
    graph = generators.rmat(7, 4, seed=0)
    g = nx.Graph(list(zip(*(np.asarray(x).tolist() for x in graph.edges()), strict=True)))
    kmax = result["max_truss"]["k"]
    assert nx.k_truss(g, kmax).number_of_edges() == result["max_truss"]["edges"] > 0
    assert nx.k_truss(g, kmax + 1).number_of_edges() == 0
    source = result["bfs"]["source"]
    assert result["bfs"]["reached"] == len(nx.node_connected_component(g, source))
    assert result["labeled_triangles"] >= 0


def test_count_all(capsys, graph_file):
    code, out, err = run(capsys, "count", graph_file, "--all", "--json")
    assert code == 0, err
    result = json.loads(out)
    assert result["clique_number"] == 4
    assert result["counts"] == {str(k): c for k, c in COUNTS.items() if c}


@pytest.mark.parametrize("k", [1, 2, 3, 4])
@pytest.mark.parametrize("suffix", [".txt", ".npy"])
def test_list(capsys, tmp_path, graph_file, k, suffix):
    out_path = tmp_path / f"cliques{suffix}"
    code, out, err = run(capsys, "list", graph_file, "-k", str(k), "-o", out_path)
    assert code == 0, err
    rows = np.load(out_path) if suffix == ".npy" else np.loadtxt(out_path, dtype=int, ndmin=2)
    assert rows.shape == (COUNTS[k], k)
    assert {tuple(r) for r in rows.tolist()} == {
        tuple(sorted(c))
        for c in nx.enumerate_all_cliques(nx.read_edgelist(graph_file, nodetype=int))
        if len(c) == k
    }
    assert not list(tmp_path.glob(".*partial"))


def test_help_exits_zero(capsys):
    code, out, _ = run(capsys, "count", "--help")
    assert code == 0 and "--order" in out


BAD_FILES = {
    "nonnumeric.txt": b"0 1\n1 two\n",
    "negative.txt": b"0 1\n-1 2\n",
    "onefield.txt": b"0 1\n5\n",
    "badgzip.el.gz": b"\x1f\x8b\x08\x00garbage",
    "plaingzip.el.gz": b"0 1\n",
    "header.mtx": b"%%MatrixMarket matrix array real general\n2 2\n1\n2\n3\n4\n",
    "cache.npz": b"not a zip file",
}


@pytest.mark.parametrize(
    ("argv", "match"),
    [
        (["count", "@missing", "-k", "3"], "no such file"),
        (["info", "@missing"], "no such file"),
        (["demo", "@missing"], "no such file"),
        (["count", "@dir", "-k", "3"], "cannot read"),
        *((["count", f"@{name}", "-k", "3"], name) for name in BAD_FILES),
        (["info", "@nonnumeric.txt"], "line 2"),
        (["demo", "@negative.txt"], "line 2: negative source vertex id"),
        (["count", "@good", "-k", "0"], "k must be >= 1"),
        (["count", "@good", "-k", "-3"], "k must be >= 1, got -3"),
        (["count", "@good", "-k", "0-4"], "k must be >= 1, got 0"),
        (["count", "@good", "-k", "3-x"], "invalid clique size"),
        (["count", "@good", "-k", "x"], "invalid clique size"),
        (["count", "@good", "-k", "5-3"], "empty clique-size range"),
        (["count", "@good", "-k", "3", "--method", "nope"], "--method"),
        (["count", "@good", "-k", "3", "--order", "random"], "--order"),
        (["count", "@good", "-k", "3", "--threads", "-2"], "thread count"),
        (["count", "@good", "-k", "3", "--devices", "0"], "invalid device count"),
        (["count", "@good", "-k", "3", "--devices", "99"], "only"),
        (["count", "@good"], "either -k K"),
        (["count", "@good", "-k", "3", "--all"], "either -k K"),
        (["list", "@good", "-k", "3", "-o", "@out.csv"], "must end in .txt or .npy"),
        (["list", "@good", "-k", "0", "-o", "@out.txt"], "k must be >= 1"),
        (["list", "@missing", "-k", "3", "-o", "@out.txt"], "no such file"),
        (["count"], "required"),
        (["frobnicate"], "invalid choice"),
        ([], "required"),
    ],
)
def test_bad_input_one_line_exit_2(capsys, tmp_path, argv, match):
    paths = {"missing": tmp_path / "missing.txt", "dir": tmp_path, "good": tmp_path / "g.txt"}
    paths["out.csv"], paths["out.txt"] = tmp_path / "out.csv", tmp_path / "out.txt"
    paths["good"].write_text(EDGES)
    for name, data in BAD_FILES.items():
        (tmp_path / name).write_bytes(data)
        paths[name] = tmp_path / name
    args = [str(paths[a[1:]]) if a.startswith("@") else a for a in argv]
    code, out, err = run(capsys, *args)
    assert code == 2
    assert out == ""
    lines = err.splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("kcjax: error: ")
    assert match in lines[0]
    assert "Traceback" not in err


def test_python_dash_m_runs_the_cli(tmp_path):
    import subprocess
    import sys

    path = tmp_path / "g.txt"
    path.write_text(EDGES)
    done = subprocess.run(
        [sys.executable, "-P", "-m", "kcjax", "count", str(path), "-k", "4", "--json"],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["counts"] == {"4": 1}


def test_huge_vertex_id_is_refused_before_allocating(capsys, tmp_path):
    path = tmp_path / "huge.txt"
    path.write_text("0 2000000000\n")
    code, out, err = run(capsys, "info", path, "--json")
    assert code == 2 and out == ""
    assert "2,000,000,001 vertices" in err and "GiB" in err and "--relabel" in err
    code, out, err = run(capsys, "info", path, "--json", "--relabel")
    assert code == 0, err
    assert json.loads(out)["num_nodes"] == 2


def test_list_output_errors_name_the_users_path(capsys, tmp_path, graph_file):
    missing = tmp_path / "missing_dir" / "out.npy"
    code, _, err = run(capsys, "list", graph_file, "-k", "3", "-o", missing)
    assert code == 2 and f"cannot write {missing}: directory" in err and "does not exist" in err
    folder = tmp_path / "d.npy"
    folder.mkdir()
    code, _, err = run(capsys, "list", graph_file, "-k", "3", "-o", folder)
    assert code == 2 and f"cannot write {folder}: it is a directory" in err
    assert ".partial" not in err


def test_list_takes_one_k_and_prints_json(capsys, tmp_path, graph_file):
    code, _, err = run(capsys, "list", graph_file, "-k", "3-4", "-o", tmp_path / "x.npy")
    assert code == 2 and "one clique size per file" in err
    code, out, err = run(capsys, "list", graph_file, "-k", "3", "-o", tmp_path / "x.npy", "--json")
    assert code == 0, err
    summary = json.loads(out)
    assert summary["k"] == 3 and summary["cliques"] == 5
    assert np.load(tmp_path / "x.npy").shape == (5, 3)


def test_count_on_sparse_ids_follows_the_edges(capsys, tmp_path, monkeypatch):
    """4 edges over 200,000 ids, no --relabel: the default count is one dispatch
    (it was one per 100 vertices: the chunk size came from m, the tasks are vertices)."""
    from kcjax import experimental

    path = tmp_path / "sparse.txt"
    path.write_text("0 1\n1 2\n0 2\n199998 199999\n")
    dispatches = []
    for name in ("pivot_chunk", "enumeration_chunk"):
        real = getattr(experimental, name)

        def spy(*args, _real=real, **kwargs):
            dispatches.append(1)
            assert len(dispatches) <= 4, "a dispatch per few vertices"
            return _real(*args, **kwargs)

        monkeypatch.setattr(f"kcjax.cliques.count.{name}", spy)
    for method in ("auto", "kcminer"):
        dispatches.clear()
        code, out, err = run(capsys, "count", path, "-k", "3", "--method", method, "--json")
        assert code == 0, err
        assert json.loads(out)["counts"] == {"3": 1} and len(dispatches) == 1


class _Terminal(io.StringIO):
    """stderr as a terminal, so progress shows."""

    def isatty(self) -> bool:
        return True


@pytest.mark.parametrize(
    ("argv", "stages"),
    [
        (["truss", "@g", "--max"], ["loading", "decomposing"]),
        (["truss", "@g", "-k", "3", "-o", "@out.txt"], ["loading", "truss", "writing"]),
        (["bfs", "@g", "-s", "0", "-o", "@out.npy"], ["loading", "searching", "writing"]),
        (["count", "@g", "-k", "3-4"], ["counting"]),
    ],
)
def test_progress_on_a_terminal(tmp_path, graph_file, monkeypatch, argv, stages):
    """bfs and truss show their stages (a single kernel call has no finer
    progress); counts a bar of the estimated work; -q hides both."""
    paths = {"g": graph_file, "out.txt": tmp_path / "out.txt", "out.npy": tmp_path / "out.npy"}
    args = [str(paths[a[1:]]) if a.startswith("@") else a for a in argv]
    for quiet in (False, True):
        monkeypatch.setattr(sys, "stderr", _Terminal())
        assert cli.main(args + (["-q"] if quiet else [])) == 0
        shown = sys.stderr.getvalue()
        for stage in stages:
            assert (stage in shown) != quiet, shown
