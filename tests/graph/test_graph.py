"""Graph construction, canonicalization and orientation."""

from __future__ import annotations

import jax
import networkx as nx
import numpy as np
import pytest
import scipy.sparse as sp

import kcjax


def _random_nx(seed: int, n: int = 50, p: float = 0.12) -> nx.Graph:
    return nx.gnp_random_graph(n, p, seed=seed)


def _edge_set(graph: kcjax.Graph) -> set[tuple[int, int]]:
    src, dst = (np.asarray(a) for a in graph.edges())
    return set(zip(src.tolist(), dst.tolist(), strict=True))


def test_canonicalization_report():
    src = np.array([0, 1, 2, 2, 3, 1, 0, 4])
    dst = np.array([1, 0, 2, 3, 2, 2, 1, 4])
    graph, report = kcjax.Graph.from_edges(src, dst, return_report=True)
    assert report == kcjax.CanonReport(
        input_edges=8, self_loops=2, duplicates=3, num_nodes=5, num_edges=3
    )
    assert _edge_set(graph) == {(0, 1), (1, 2), (2, 3)}
    indptr, indices = np.asarray(graph.indptr), np.asarray(graph.indices)
    assert indptr.tolist() == [0, 1, 3, 5, 6, 6]
    assert indices.tolist() == [1, 0, 2, 1, 3, 2]


@pytest.mark.parametrize("on_device", [False, True])
def test_edge_lists_past_int32_are_deduplicated_first(monkeypatch, on_device):
    """An edge list whose symmetrized form would pass int32 indexing (here a limit
    lowered to 1,000) is deduplicated as undirected pairs first: the same graph and
    report as below the limit; a list still too large after that is refused."""
    rng = np.random.default_rng(4)
    pairs = rng.integers(0, 40, size=(200, 2))
    src = np.concatenate([pairs[:, 0], pairs[:, 1], pairs[:, 0], np.arange(40)])
    dst = np.concatenate([pairs[:, 1], pairs[:, 0], pairs[:, 1], np.arange(40)])
    as_input = (lambda a: jax.numpy.asarray(a, np.int32)) if on_device else (lambda a: a)
    want, want_report = kcjax.Graph.from_edges(src, dst, num_nodes=45, return_report=True)
    monkeypatch.setattr("kcjax.graph.graph._INT32_MAX", 1_000)
    assert 2 * src.size > 1_000 >= 2 * want.num_edges
    got, report = kcjax.Graph.from_edges(
        as_input(src), as_input(dst), num_nodes=45, return_report=True
    )
    assert report == want_report and report.self_loops == 40 + 3 * np.sum(
        pairs[:, 0] == pairs[:, 1]
    )
    np.testing.assert_array_equal(np.asarray(got.indptr), np.asarray(want.indptr))
    np.testing.assert_array_equal(np.asarray(got.indices), np.asarray(want.indices))
    wide = np.arange(600)
    with pytest.raises(ValueError, match="beyond 2\\^31 - 1"):
        kcjax.Graph.from_edges(as_input(wide), as_input(wide + 1))


def test_relabel_compacts_ids():
    graph = kcjax.Graph.from_edges(np.array([10, 30]), np.array([30, 20]), relabel=True)
    assert graph.num_nodes == 3
    assert _edge_set(graph) == {(0, 2), (1, 2)}


@pytest.mark.parametrize(
    ("src", "dst", "kwargs", "message"),
    [
        ([0, -1], [1, 2], {}, "non-negative"),
        ([0, 1], [1], {}, "equal length"),
        ([0, 5], [1, 2], {"num_nodes": 3}, "out of range"),
        ([0.5], [1.0], {}, "non-integer"),
    ],
)
def test_bad_edges(src, dst, kwargs, message):
    with pytest.raises(ValueError, match=message):
        kcjax.Graph.from_edges(np.array(src), np.array(dst), **kwargs)


def test_from_networkx_and_scipy_agree():
    g = _random_nx(3)
    a = kcjax.Graph.from_networkx(g)
    b = kcjax.Graph.from_scipy(sp.csr_matrix(nx.to_scipy_sparse_array(g)))
    assert a.num_nodes == b.num_nodes == g.number_of_nodes()
    assert _edge_set(a) == _edge_set(b) == {tuple(sorted(e)) for e in g.edges()}


@pytest.mark.parametrize("order", kcjax.ORDERS)
@pytest.mark.parametrize("seed", range(4))
def test_orientation_invariants(order, seed):
    g = _random_nx(seed, n=70, p=0.1)
    graph = kcjax.Graph.from_networkx(g)
    dag = kcjax.orient(graph, order=order)
    indptr, indices, src = (np.asarray(a) for a in (dag.indptr, dag.indices, dag.src))
    perm = np.asarray(dag.order)
    assert sorted(perm.tolist()) == list(range(graph.num_nodes))
    assert dag.num_edges == g.number_of_edges()
    for u in range(dag.num_nodes):
        row = indices[indptr[u] : indptr[u + 1]]
        assert np.all(row > u) and np.all(np.diff(row) > 0)
        assert np.all(src[indptr[u] : indptr[u + 1]] == u)
    # Same edges, in original ids.
    oriented = {tuple(sorted((perm[a], perm[b]))) for a, b in zip(src, indices, strict=True)}
    assert oriented == {tuple(sorted(e)) for e in g.edges()}
    degeneracy = max(nx.core_number(g).values())
    assert int(kcjax.degeneracy(graph)) == degeneracy
    if order == "degeneracy":
        assert int(dag.max_out_degree()) <= degeneracy


def test_core_numbers_match_networkx():
    g = _random_nx(11, n=120, p=0.08)
    cores = np.asarray(kcjax.core_numbers(kcjax.Graph.from_networkx(g)))
    assert cores.tolist() == [nx.core_number(g)[v] for v in range(g.number_of_nodes())]


@pytest.mark.parametrize("order", ["degree", "degeneracy"])
def test_dag_core_numbers_match_networkx(order):
    from kcjax.experimental import dag_core_numbers

    g = _random_nx(12, n=150, p=0.07)
    dag = kcjax.orient(kcjax.Graph.from_networkx(g), order=order)
    cores = np.asarray(dag_core_numbers(dag))  # by rank
    perm = np.asarray(dag.order)
    assert cores.tolist() == [nx.core_number(g)[int(perm[r])] for r in range(dag.num_nodes)]


def test_orient_under_jit_matches_eager():
    graph = kcjax.Graph.from_networkx(_random_nx(5))
    eager = kcjax.orient(graph, order="degeneracy")
    jitted = jax.jit(lambda g: kcjax.orient(g, order="degeneracy"))(graph)
    for a, b in zip(jax.tree.leaves(eager), jax.tree.leaves(jitted), strict=True):
        np.testing.assert_array_equal(np.asarray(a), np.asarray(b))


def test_repr_shows_sizes_not_arrays():
    graph = kcjax.generators.complete(4)
    assert repr(graph) == "Graph(num_nodes=4, num_edges=6)"
    assert repr(kcjax.orient(graph)) == "DAG(num_nodes=4, num_edges=6)"


def test_huge_ids_are_refused_before_allocating():
    with pytest.raises(ValueError, match=r"2,000,000,001 vertices .* relabel=True"):
        kcjax.Graph.from_edges([0], [2_000_000_000])
    assert kcjax.Graph.from_edges([0], [2_000_000_000], relabel=True).num_nodes == 2
