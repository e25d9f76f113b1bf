"""Listing, streaming, per-vertex counts and the clique number, on every
platform present (the ``platform`` fixture) where the op has a CUDA handler."""

from __future__ import annotations

import functools
import itertools
import math

import jax
import networkx as nx
import numpy as np
import pytest
from reference import ground_truth, on_platform, planted_dense_dag

import kcjax

METHODS = tuple(kcjax.ENUMERATION_METHODS)


def _graph_and_cliques(seed: int) -> tuple[kcjax.Graph, nx.Graph, dict[int, set]]:
    g = nx.gnp_random_graph(45, 0.3, seed=seed)
    members = np.random.default_rng(seed).choice(45, 9, replace=False).tolist()
    g.add_edges_from(itertools.combinations(members, 2))
    by_size: dict[int, set] = {}
    for c in nx.enumerate_all_cliques(g):
        by_size.setdefault(len(c), set()).add(tuple(sorted(c)))
    return kcjax.Graph.from_networkx(g), g, by_size


@pytest.fixture(scope="module", params=range(2))
def case(request):
    return _graph_and_cliques(request.param)


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("k", range(1, 9))
def test_list_matches_networkx(case, k, method, platform):
    graph, _, cliques = case
    got = kcjax.list_cliques(on_platform(graph, platform), k, method=method)
    assert got.dtype == np.int32 and got.shape == (len(cliques.get(k, ())), k)
    assert np.all(np.diff(got, axis=1) > 0)  # rows ascending
    assert set(map(tuple, got.tolist())) == cliques.get(k, set())


@pytest.mark.parametrize("k", range(3, 8))
def test_iter_cliques_streams_everything(case, k):
    graph, _, cliques = case
    seen = []
    batches = list(kcjax.iter_cliques(graph, k, batch=5, progress=lambda d, t: seen.append(d)))
    assert all(len(b) <= max(5, len(b)) for b in batches)
    rows = np.concatenate(batches) if batches else np.zeros((0, k), np.int32)
    assert len(rows) == len(cliques.get(k, ()))
    assert set(map(tuple, rows.tolist())) == cliques.get(k, set())
    assert seen[-1] == graph.num_edges


def test_sizes_above_the_out_degree_bound_cost_nothing(case, monkeypatch):
    """No k-clique exists above the largest out-degree + 1: listing, streaming and
    per-vertex counts answer at once, without a kernel call (whose buffers would
    be sized by k: a k = 1000 listing took 14.6 GB)."""
    graph, _, _ = case
    dag = kcjax.orient(graph)
    k = int(dag.max_out_degree()) + 2

    def no_search(*args, **kwargs):
        raise AssertionError("a kernel ran for a size no clique reaches")

    for target in ("listing._list", "kernels.clique_per_vertex", "kernels.clique_pivot_local"):
        monkeypatch.setattr(f"kcjax.cliques.{target}", no_search)
    for size in (k, 1000):
        assert kcjax.list_cliques(dag, size).shape == (0, size)
        assert kcjax.list_cliques(dag, size, capacity=10).shape == (0, size)
        seen: list[tuple[int, int]] = []
        assert list(kcjax.iter_cliques(dag, size, progress=lambda *a, s=seen: s.append(a))) == []
        assert seen == [(dag.num_edges, dag.num_edges)]
        for method in ("auto", "pivot", "kcminer"):
            counts = kcjax.clique_counts_per_vertex(dag, size, method=method)
            assert counts.shape == (graph.num_nodes,) and not counts.any()


def test_capacity_overflow_is_an_error(case):
    graph, _, cliques = case
    with pytest.raises(kcjax.ListingOverflowError):
        kcjax.list_cliques(graph, 4, capacity=len(cliques[4]) - 1)


def test_list_under_jit_reports_overflow(case):
    graph, _, cliques = case
    n4 = len(cliques[4])
    fn = jax.jit(lambda g, cap: kcjax.list_cliques(g, 4, capacity=cap), static_argnums=1)
    rows, count, overflow = fn(graph, n4 + 3)
    assert kcjax.limbs_to_int(count) == n4 and not bool(overflow)
    rows = np.asarray(rows)
    assert np.all(rows[n4:] == -1)
    assert set(map(tuple, rows[:n4].tolist())) == cliques[4]
    _, count, overflow = fn(graph, n4 - 2)
    assert kcjax.limbs_to_int(count) == n4 and bool(overflow)


@pytest.mark.parametrize("method", ["auto", "pivot", "kcminer", "binary_search", "static_l1"])
@pytest.mark.parametrize("k", range(1, 10))
def test_per_vertex_counts(case, k, method, platform):
    graph, g, cliques = case
    got = kcjax.clique_counts_per_vertex(on_platform(graph, platform), k, method=method)
    want = np.zeros(g.number_of_nodes(), np.uint64)
    for c in cliques.get(k, ()):
        want[list(c)] += 1
    np.testing.assert_array_equal(got, want)
    assert int(got.sum()) == k * len(cliques.get(k, ()))


@functools.cache
def _planted_dense_per_vertex(seed: int, k: int, method: str) -> np.ndarray:
    with jax.default_device(jax.devices("cpu")[0]):
        return kcjax.clique_counts_per_vertex(planted_dense_dag(seed), k, method=method)


@pytest.mark.parametrize("method", ["kcminer", "pivot"])
@pytest.mark.parametrize("k", [3, 5, 7])
def test_per_vertex_dense_blocks_match_the_other_algorithm(k, method, platform):
    # Up to 3e7 7-cliques: each platform's counts against the other
    # algorithm's (pivoting against enumeration and back) on the CPU.
    dag = on_platform(planted_dense_dag(k + 10), platform)
    got = kcjax.clique_counts_per_vertex(dag, k, method=method)
    other = "kcminer" if method == "pivot" else "pivot"
    np.testing.assert_array_equal(got, _planted_dense_per_vertex(k + 10, k, other))


def test_per_vertex_exact_past_2_64():
    # Every vertex of K_80 lies in C(79, 39) ~ 5e22 40-cliques.
    k80 = kcjax.Graph.from_networkx(nx.complete_graph(80))
    got = kcjax.clique_counts_per_vertex(k80, 40, method="pivot", exact=True)
    assert got.dtype == object and got.tolist() == [math.comb(79, 39)] * 80
    with pytest.raises(OverflowError, match="exact=True"):
        kcjax.clique_counts_per_vertex(k80, 40, method="pivot")


def test_per_vertex_refuses_totals_past_2_128():
    k140 = kcjax.Graph.from_networkx(nx.complete_graph(140))
    with pytest.raises(OverflowError, match="2\\^128"):
        kcjax.clique_counts_per_vertex(k140, 70, method="pivot", exact=True)
    # Large degrees but no triangles: the degree bound is past 2^128, the
    # true count (0) is not.
    bipartite = kcjax.Graph.from_networkx(nx.complete_bipartite_graph(150, 150))
    got = kcjax.clique_counts_per_vertex(bipartite, 60, method="pivot")
    assert got.shape == (300,) and not got.any()


def test_per_vertex_rejects_unknown_method(case):
    with pytest.raises(ValueError, match="method must be"):
        kcjax.clique_counts_per_vertex(case[0], 4, method="dense")


@pytest.mark.parametrize("order", kcjax.ORDERS)
def test_clique_number_and_one_largest_clique(case, order, platform):
    graph, g, cliques = case
    omega, clique = kcjax.clique_number(on_platform(graph, platform), order=order)
    assert omega == max(cliques)
    assert tuple(clique.tolist()) in cliques[omega]


def test_count_all_cliques(case, platform):
    graph, _, cliques = case
    assert kcjax.count_all_cliques(on_platform(graph, platform)) == {
        k: len(v) for k, v in cliques.items()
    }


def test_small_graphs():
    empty = kcjax.Graph.from_edges(np.zeros(0, int), np.zeros(0, int), num_nodes=3)
    assert kcjax.clique_number(empty)[0] == 1
    assert kcjax.list_cliques(empty, 2).shape == (0, 2)
    k5 = kcjax.Graph.from_networkx(nx.complete_graph(5))
    omega, clique = kcjax.clique_number(k5)
    assert omega == 5 and clique.tolist() == [0, 1, 2, 3, 4]
    assert kcjax.count_all_cliques(k5) == {1: 5, 2: 10, 3: 10, 4: 5, 5: 1}


def test_com_dblp_clique_number(shared_graph):
    graph = shared_graph("com-dblp")
    omega, clique = kcjax.clique_number(graph)
    truth = ground_truth()
    assert omega == max(k for (name, k) in truth if name == "com-dblp") == 114
    # The clique really is one: every pair adjacent.
    indptr, indices = np.asarray(graph.indptr), np.asarray(graph.indices)
    for a, b in itertools.combinations(clique.tolist(), 2):
        assert b in indices[indptr[a] : indptr[a + 1]]


def test_email_enron_per_vertex_sums(shared_graph):
    graph = shared_graph("email-Enron")
    for k in (3, 5):
        per_vertex = kcjax.clique_counts_per_vertex(graph, k)
        assert int(per_vertex.sum()) == k * ground_truth()[("email-Enron", k)]
    for k in (4, 6):
        np.testing.assert_array_equal(
            kcjax.clique_counts_per_vertex(graph, k, method="pivot"),
            kcjax.clique_counts_per_vertex(graph, k, method="kcminer"),
        )


@pytest.mark.parametrize("name", ["ca-AstroPh", "ego-Facebook", "com-dblp"])
def test_pivot_per_vertex_sums_on_shared_graphs(shared_graph, name):
    graph = shared_graph(name)
    truth = ground_truth()
    for k in (4, 8):
        per_vertex = kcjax.clique_counts_per_vertex(graph, k, method="pivot", exact=True)
        assert sum(per_vertex.tolist()) == k * truth.get((name, k), 0)


def _maximal(graph: kcjax.Graph, batch: int) -> list[tuple[int, ...]]:
    out = []
    for verts, sizes in kcjax.iter_maximal_cliques(graph, batch):
        assert verts.dtype == sizes.dtype == np.int32 and sizes.sum() == verts.size
        starts = np.concatenate([[0], np.cumsum(sizes)[:-1]])
        for a, s in zip(starts, sizes, strict=True):
            out.append(tuple(sorted(verts[a : a + s].tolist())))
    return out


@pytest.mark.parametrize("seed", range(2))
def test_maximal_cliques_match_networkx(seed):
    """Every maximal clique once (batches smaller than a root's cliques included), and
    each vertex's largest clique, against networkx; isolated vertices are cliques."""
    _, g, _ = _graph_and_cliques(seed)
    g.add_nodes_from([45, 46])
    g.add_edge(47, 48)
    graph = kcjax.Graph.from_networkx(g)
    want = sorted(tuple(sorted(c)) for c in nx.find_cliques(g))
    for batch in (5, 1 << 20):
        got = _maximal(graph, batch)
        assert len(got) == len(set(got)) and sorted(got) == want
    best = kcjax.node_clique_numbers(graph)
    ncn = nx.node_clique_number(g)
    assert best.dtype == np.int32 and best.tolist() == [ncn[v] for v in range(len(g))]
    assert kcjax.node_clique_numbers(graph, order="degree").tolist() == best.tolist()


def test_maximal_cliques_edge_cases_and_errors():
    empty = kcjax.Graph.from_networkx(nx.empty_graph(0))
    assert list(kcjax.iter_maximal_cliques(empty)) == []
    assert kcjax.node_clique_numbers(empty).shape == (0,)
    graph = kcjax.Graph.from_networkx(nx.complete_graph(5))
    assert _maximal(graph, 2) == [(0, 1, 2, 3, 4)]  # one root alone above the batch
    with pytest.raises(ValueError, match="batch"):
        next(kcjax.iter_maximal_cliques(graph, 0))
    with pytest.raises(TypeError, match="kcjax.Graph"):
        kcjax.node_clique_numbers(nx.complete_graph(3))
    from kcjax.experimental import clique_maximal

    cpu = jax.devices("cpu")[0]
    args = [jax.device_put(np.asarray(a, np.int32), cpu) for a in (graph.indptr, graph.indices)]
    bad_rank = jax.device_put(np.zeros(5, np.int32), cpu)
    tasks = jax.device_put(np.arange(5, dtype=np.int32), cpu)
    with pytest.raises(Exception, match="rank must be a permutation"):
        clique_maximal(*args, bad_rank, tasks, capacity=8, num_threads=1)
