"""k-truss: supports, trussness, k-truss and maximal truss vs networkx and ground truth."""

from __future__ import annotations

import functools
import importlib.util
from pathlib import Path

import jax
import networkx as nx
import numpy as np
import pytest
from reference import planted
from reference.truss import (
    TRUSS_TSV,
    edge_set,
    hindex_call,
    masked_edges,
    summary,
    to_nx,
    truss_rows,
    trussness_networkx,
)

import kcjax
from kcjax.experimental import truss_store_entries

METHODS = kcjax.TRUSS_METHODS


def _graphs() -> dict[str, kcjax.Graph]:
    g = kcjax.generators
    return {
        "er": g.erdos_renyi(70, 0.15, seed=1),
        "rmat": g.rmat(7, 8, seed=3),
        "planted": kcjax.Graph.from_networkx(planted(60, 0.08, 9, seed=4)),
        "cliques": g.planted_cliques(80, 0.05, [7, 5, 4], seed=5),
        "disconnected": g.disjoint_union(g.complete(6), g.erdos_renyi(30, 0.2, seed=6), g.star(5)),
        "empty": kcjax.Graph.from_edges([], [], num_nodes=4),
        "no_nodes": kcjax.Graph.from_edges([], [], num_nodes=0),
        "one_edge": kcjax.Graph.from_edges([0], [1]),
        "triangle": kcjax.Graph.from_edges([0, 1, 2], [1, 2, 0]),
        "complete": g.complete(9),
    }


GRAPHS = _graphs()


@functools.cache
def _truss(name: str) -> np.ndarray:
    return trussness_networkx(GRAPHS[name])


# Every graph shape compiles the pipeline once (a few seconds on 2 cores): the default run
# covers these, the rest run with the slow tests.
QUICK = ("rmat", "cliques", "disconnected", "triangle", "empty")


def _params(names, quick):
    return [n if n in quick else pytest.param(n, marks=pytest.mark.slow) for n in sorted(names)]


@pytest.fixture(params=_params(GRAPHS, QUICK))
def case(request, platform):
    graph = jax.device_put(GRAPHS[request.param], jax.devices(platform)[0])
    return request.param, graph


@pytest.mark.parametrize("method", METHODS)
def test_support_matches_networkx(case, method):
    _, graph = case
    g = to_nx(graph)
    src, dst = (np.asarray(a) for a in graph.edges())
    want = [len(set(g[u]) & set(g[v])) for u, v in zip(src.tolist(), dst.tolist(), strict=True)]
    got = np.asarray(kcjax.edge_support(graph, method=method))
    assert got.dtype == np.int32 and got.shape == (graph.num_edges,)
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("method", METHODS)
def test_truss_numbers_match_networkx(case, method):
    name, graph = case
    got = np.asarray(kcjax.truss_numbers(graph, method=method))
    assert got.dtype == np.int32
    np.testing.assert_array_equal(got, _truss(name))


@pytest.mark.parametrize("algorithm", ["hindex", "peel"])
def test_truss_numbers_algorithms(case, algorithm):
    name, graph = case
    got = np.asarray(kcjax.truss_numbers(graph, algorithm=algorithm))
    np.testing.assert_array_equal(got, _truss(name))


def test_truss_numbers_rejects_unknown_algorithm():
    with pytest.raises(ValueError, match="algorithm must be one of"):
        kcjax.truss_numbers(GRAPHS["triangle"], algorithm="bucket")


# Under jit (each graph shape compiles the whole pipeline: a few graphs suffice).
JIT_GRAPHS = ("rmat", "cliques", "triangle", "empty")


@pytest.mark.parametrize(
    ("name", "method"),
    [
        (n, m)
        if (n, m) in {("rmat", "dag"), ("triangle", "dense")}
        else pytest.param(n, m, marks=pytest.mark.slow)
        for n in JIT_GRAPHS
        for m in METHODS
    ],
)
def test_under_jit(name, method, platform):
    graph = jax.device_put(GRAPHS[name], jax.devices(platform)[0])
    want = _truss(name)

    @jax.jit
    def program(g, k):
        return (
            kcjax.edge_support(g, method=method),
            kcjax.truss_numbers(g, method=method),
            kcjax.k_truss_mask(g, k, method=method),
        )

    for k in range(2, int(want.max(initial=2)) + 2):
        support, truss, mask = program(graph, k)
        np.testing.assert_array_equal(np.asarray(truss), want)
        np.testing.assert_array_equal(np.asarray(mask), want >= k)
    np.testing.assert_array_equal(
        np.asarray(support), np.asarray(kcjax.edge_support(GRAPHS[name], method="edge"))
    )


@pytest.mark.parametrize("name", JIT_GRAPHS)
def test_small_k_static_under_jit(name, platform):
    """An int k <= 3 under jit: the one-pass path (k = 3) or every edge (k = 2), from a
    traced graph (its edge list computed in the program)."""
    graph = jax.device_put(GRAPHS[name], jax.devices(platform)[0])
    want = _truss(name)
    for k in (2, 3):
        for prefilter in (True, False):
            got = jax.jit(lambda g, k=k, p=prefilter: kcjax.k_truss_mask(g, k, prefilter=p))(graph)
            assert got.dtype == bool and got.shape == (graph.num_edges,)
            np.testing.assert_array_equal(np.asarray(got), want >= k)


@pytest.mark.parametrize("method", METHODS)
def test_k_truss_matches_networkx_every_k(case, method):
    name, graph = case
    g = to_nx(graph)
    k_top = int(_truss(name).max(initial=2)) + 1
    for k in range(2, k_top + 1):
        want = edge_set(nx.k_truss(g, k))
        for prefilter in (True, False):
            mask = kcjax.k_truss_mask(graph, k, method=method, prefilter=prefilter)
            assert mask.dtype == bool
            assert masked_edges(graph, mask) == want, (k, prefilter)
    sub = kcjax.k_truss(graph, 3, method=method)
    assert sub.num_nodes == graph.num_nodes
    assert edge_set(to_nx(sub)) == edge_set(nx.k_truss(g, 3))


def test_k_truss_relabel_and_max_truss(case):
    name, graph = case
    g = to_nx(graph)
    truss = _truss(name)
    k_max, top = kcjax.max_truss(graph)
    if graph.num_edges == 0:
        assert k_max == 0 and top.num_edges == 0
        return
    assert k_max == truss.max()
    want = nx.k_truss(g, k_max)
    assert edge_set(to_nx(top)) == edge_set(want)
    k_max2, top2 = kcjax.max_truss(graph, relabel=True)
    assert k_max2 == k_max
    assert top2.num_nodes == want.number_of_nodes()
    assert top2.num_edges == want.number_of_edges()
    sub = kcjax.k_truss(graph, k_max, relabel=True)
    np.testing.assert_array_equal(np.asarray(sub.indices), np.asarray(top2.indices))


def test_planted_clique_is_the_max_truss():
    graph, members = kcjax.generators.planted_cliques(200, 0.02, [12], seed=7, return_members=True)
    k_max, top = kcjax.max_truss(graph)
    assert k_max == 12
    assert sorted(np.flatnonzero(np.asarray(top.degrees())).tolist()) == sorted(members[0].tolist())


def test_directed_input_is_symmetrized():
    d = nx.DiGraph([(0, 1), (1, 2), (2, 0), (1, 0), (2, 3)])
    graph = kcjax.Graph.from_networkx(d)
    np.testing.assert_array_equal(np.asarray(kcjax.truss_numbers(graph)), [3, 3, 3, 2])


def test_bad_inputs():
    graph = GRAPHS["triangle"]
    with pytest.raises(ValueError, match="method must be one of"):
        kcjax.truss_numbers(graph, method="nope")
    with pytest.raises(ValueError, match="k must be >= 2"):
        kcjax.k_truss(graph, 1)
    with pytest.raises(TypeError, match="k must be an int"):
        kcjax.k_truss_mask(graph, 3.5)
    with pytest.raises(TypeError, match="expected a kcjax.Graph"):
        kcjax.edge_support(kcjax.orient(graph))
    with pytest.raises(TypeError, match="expected a kcjax.Graph"):
        kcjax.max_truss(np.zeros((3, 3)))


@pytest.mark.parametrize("name", sorted(GRAPHS))
def test_store_entries_is_the_degree_bound(name):
    """kcjax_truss's store_entries: sum over edges of min(deg u, deg v) - 1 (at least
    the triangles' 3 T store entries); -1 under jit, where the graph is traced."""
    graph = GRAPHS[name]
    src, dst = (np.asarray(a) for a in graph.edges())
    deg = np.diff(np.asarray(graph.indptr)).astype(np.int64)
    want = int((np.minimum(deg[src], deg[dst]) - 1).sum())
    assert truss_store_entries(graph) == want
    assert want >= int(np.asarray(kcjax.edge_support(graph)).sum())
    seen = []
    jax.jit(lambda g: seen.append(truss_store_entries(g)) or g.indices)(graph)
    assert seen == [-1]


def test_store_entries_contract_on_the_cpu():
    """The CPU handler rejects a store_entries below the degree bound and gives the same
    trussness with the bound, above it and unknown (-1)."""
    graph = GRAPHS["cliques"]
    bound = truss_store_entries(graph)
    want = _truss("cliques")
    for entries in (bound, bound + 5, -1):
        np.testing.assert_array_equal(np.asarray(hindex_call(graph, entries)), want)
    with pytest.raises(Exception, match="below the degree bound"):
        jax.block_until_ready(hindex_call(graph, bound - 1))


# The shared graphs: every k from 3 to kmax + 1 against truss_counts.tsv.
FAST = ("email-Enron", "ca-CondMat")
SLOW = (
    "wiki-Vote",
    "ca-AstroPh",
    "ego-Facebook",
    "cit-HepTh",
    "soc-Epinions1",
    "com-amazon",
    "com-dblp",
)


def _check_shared(graph: kcjax.Graph, name: str, method: str = "dag") -> None:
    if not TRUSS_TSV.exists():
        pytest.skip(f"{TRUSS_TSV} is absent")
    rows = truss_rows()[name]
    truss = np.asarray(kcjax.truss_numbers(graph, method=method))
    src, dst = (np.asarray(a) for a in graph.edges())
    assert int(truss.max()) == max(rows) - 1
    for k, want in sorted(rows.items()):
        keep = truss >= k
        assert summary(src[keep], dst[keep]) == want, (name, k)
    k_max = max(rows) - 1
    for k in (3, k_max, k_max + 1):
        mask = np.asarray(kcjax.k_truss_mask(graph, k, method=method))
        assert summary(src[mask], dst[mask]) == rows[k], (name, k)


@pytest.mark.parametrize("name", FAST)
def test_shared_graph_ground_truth(shared_graph, name):
    _check_shared(shared_graph(name), name)


@pytest.mark.slow
@pytest.mark.parametrize("name", SLOW)
def test_shared_graph_ground_truth_slow(shared_graph, name):
    _check_shared(shared_graph(name), name)


@pytest.mark.parametrize("method", ["edge", "vertex"])
def test_shared_graph_methods_agree(shared_graph, method):
    graph = shared_graph("email-Enron")
    np.testing.assert_array_equal(
        np.asarray(kcjax.truss_numbers(graph, method=method)),
        np.asarray(kcjax.truss_numbers(graph, method="dag")),
    )


# TrussPolicy::kEdgeList: the longest list that method "auto" counts by the edge pass.
EDGE_LIST = 16384


def test_auto_on_both_sides_of_its_threshold(platform):
    """method="auto" (the k-truss default) picks the edge pass for a short prefilter list
    and the DAG pass for a long one; every k's result equals the DAG pass's trussness."""
    graph = jax.device_put(kcjax.generators.rmat(12, 16, seed=2), jax.devices(platform)[0])
    assert graph.num_edges > EDGE_LIST
    truss = np.asarray(kcjax.truss_numbers(graph, method="dag"))
    np.testing.assert_array_equal(np.asarray(kcjax.truss_numbers(graph, method="auto")), truss)
    np.testing.assert_array_equal(
        np.asarray(kcjax.edge_support(graph, method="auto")),
        np.asarray(kcjax.edge_support(graph, method="edge")),
    )
    core = np.asarray(kcjax.core_numbers(graph))
    src, dst = (np.asarray(a) for a in graph.edges())
    listed = []
    for k in range(4, int(truss.max()) + 2):
        listed.append(int(np.sum((core[src] >= k - 1) & (core[dst] >= k - 1))))
        mask = kcjax.k_truss_mask(graph, k)
        np.testing.assert_array_equal(np.asarray(mask), truss >= k, err_msg=f"k={k}")
    assert min(listed) <= EDGE_LIST < max(listed), listed


def test_store_growth_counts_triangles_and_the_bound():
    """experiments/truss/store_growth.py: networkx's triangles, and a degree bound at
    least the exact store (each edge lies in at most min(deg u, deg v) - 1 triangles)."""
    path = Path(__file__).resolve().parents[2] / "experiments" / "truss" / "store_growth.py"
    spec = importlib.util.spec_from_file_location("truss_store_growth", path)
    growth = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(growth)
    row = growth.measure(8, 8)
    g = to_nx(kcjax.generators.kronecker(8, 8, seed=0))
    assert row["triangles"] == sum(nx.triangles(g).values()) // 3 > 0
    assert row["exact_entries"] == 3 * row["triangles"] <= row["bound_entries"]
    assert row["edges"] == g.number_of_edges()
