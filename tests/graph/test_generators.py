"""Seeded graph generators: sizes, reproducibility, structure."""

from __future__ import annotations

import math

import numpy as np
import pytest

import kcjax
from kcjax import generators


def edge_array(graph: kcjax.Graph) -> np.ndarray:
    """int64[m, 2]: the edges (u < v), sorted, read from the CSR with numpy."""
    indptr = np.asarray(graph.indptr)
    rows = np.repeat(np.arange(graph.num_nodes), np.diff(indptr))
    cols = np.asarray(graph.indices)
    return np.stack([rows, cols], axis=1)[rows < cols].astype(np.int64)


def degrees_of(graph: kcjax.Graph) -> np.ndarray:
    return np.diff(np.asarray(graph.indptr))


def assert_canonical(graph: kcjax.Graph) -> None:
    indptr = np.asarray(graph.indptr)
    indices = np.asarray(graph.indices)
    assert indptr.dtype == indices.dtype == np.int32
    assert indptr.shape == (graph.num_nodes + 1,) and indptr[-1] == indices.size
    rows = np.repeat(np.arange(graph.num_nodes), np.diff(indptr))
    assert not np.any(rows == indices)
    forward = set(zip(rows.tolist(), indices.tolist(), strict=True))
    assert forward == {(v, u) for u, v in forward}


def adjacent(graph: kcjax.Graph, u: int, v: int) -> bool:
    indptr = np.asarray(graph.indptr)
    return v in np.asarray(graph.indices)[indptr[u] : indptr[u + 1]]


@pytest.mark.parametrize(
    "make",
    [
        lambda seed: generators.rmat(8, 8, seed=seed),
        lambda seed: generators.rmat(8, 8, seed=seed, permute=False),
        lambda seed: generators.erdos_renyi(300, 0.05, seed=seed),
        lambda seed: generators.planted_cliques(200, 0.02, [6, 5], seed=seed),
    ],
    ids=["rmat", "rmat-unpermuted", "erdos_renyi", "planted_cliques"],
)
def test_seeded_reproducible(make):
    a, b, c = make(1), make(1), make(2)
    assert_canonical(a)
    np.testing.assert_array_equal(a.indptr, b.indptr)
    np.testing.assert_array_equal(a.indices, b.indices)
    assert not np.array_equal(edge_array(a), edge_array(c))


@pytest.mark.parametrize(("scale", "edge_factor"), [(0, 16), (4, 4), (9, 16)])
def test_rmat_size(scale, edge_factor):
    graph = generators.rmat(scale, edge_factor, seed=3)
    assert graph.num_nodes == 2**scale
    assert 0 < graph.num_edges <= edge_factor * 2**scale or scale == 0
    assert_canonical(graph)


def test_rmat_is_skewed():
    degrees = degrees_of(generators.rmat(12, 16, seed=0, permute=False))
    # Unpermuted, the a-quadrant makes vertex 0 the hub and high ids sparse.
    assert degrees[0] == degrees.max() > 20 * np.median(degrees)


def test_rmat_permutation_relabels():
    plain = generators.rmat(9, 8, seed=5, permute=False)
    mixed = generators.rmat(9, 8, seed=5)
    assert plain.num_edges == mixed.num_edges
    assert np.array_equal(np.sort(degrees_of(plain)), np.sort(degrees_of(mixed)))
    assert not np.array_equal(degrees_of(plain), degrees_of(mixed))


@pytest.mark.parametrize(
    "kwargs", [{"scale": -1}, {"scale": 31}, {"a": 0.9, "b": 0.2}, {"edge_factor": -1}]
)
def test_rmat_rejects(kwargs):
    with pytest.raises(ValueError):
        generators.rmat(**{"scale": 4, **kwargs})


@pytest.mark.parametrize(("n", "p"), [(400, 0.02), (100, 0.5), (2000, 0.001)])
def test_erdos_renyi_density(n, p):
    graph = generators.erdos_renyi(n, p, seed=11)
    assert graph.num_nodes == n
    assert_canonical(graph)
    pairs = n * (n - 1) / 2
    assert abs(graph.num_edges - p * pairs) < 5 * math.sqrt(pairs * p * (1 - p))


def test_erdos_renyi_pairs_uniform():
    # The pair sampler (below Graph construction) hits every pair about
    # equally often across draws: no bias from the index-to-pair mapping.
    n, draws, p = 12, 400, 0.3
    rng = np.random.default_rng(0)
    hits = np.zeros((n, n))
    for _ in range(draws):
        src, dst = generators._gnp_pairs(n, p, rng)
        assert np.all(src > dst) and np.all(dst >= 0) and np.all(src < n)
        assert np.unique(src * n + dst).size == src.size
        np.add.at(hits, (dst, src), 1)
    upper = hits[np.triu_indices(n, 1)]
    assert np.all(np.abs(upper - p * draws) < 5 * np.sqrt(draws * p * (1 - p)))


def test_erdos_renyi_pair_mapping_large_indices():
    # Float rounding of the triangular-root mapping is corrected near 2^40 pairs.
    n = 1_500_000
    src, dst = generators._gnp_pairs(n, 1e-9, np.random.default_rng(1))
    assert src.size > 0 and np.all((src < n) & (dst < src) & (dst >= 0))


@pytest.mark.parametrize(("n", "p", "edges"), [(0, 0.5, 0), (1, 1.0, 0), (5, 0.0, 0), (7, 1.0, 21)])
def test_erdos_renyi_extremes(n, p, edges):
    graph = generators.erdos_renyi(n, p)
    assert (graph.num_nodes, graph.num_edges) == (n, edges)


@pytest.mark.parametrize("p", [-0.1, 1.5])
def test_erdos_renyi_rejects(p):
    with pytest.raises(ValueError, match="probability"):
        generators.erdos_renyi(10, p)


@pytest.mark.parametrize("n", [0, 1, 2, 5, 40])
def test_complete(n):
    graph = generators.complete(n)
    assert graph.num_nodes == n
    assert graph.num_edges == n * (n - 1) // 2
    assert np.all(degrees_of(graph) == max(n - 1, 0))
    assert_canonical(graph)


@pytest.mark.parametrize("n", [0, 1, 2, 10])
def test_star(n):
    graph = generators.star(n)
    assert (graph.num_nodes, graph.num_edges) == (n, max(n - 1, 0))
    if n > 1:
        degrees = degrees_of(graph)
        assert degrees[0] == n - 1 and np.all(degrees[1:] == 1)


@pytest.mark.parametrize("sizes", [[8], [5, 4, 3], [], [10, 10]])
def test_planted_cliques_present(sizes):
    graph, members = generators.planted_cliques(60, 0.05, sizes, seed=4, return_members=True)
    assert graph.num_nodes == 60
    assert [m.size for m in members] == sizes
    planted = np.concatenate([np.zeros(0, np.int64), *members])
    assert np.unique(planted).size == planted.size  # disjoint
    for clique in members:
        for i, u in enumerate(clique):
            for v in clique[i + 1 :]:
                assert adjacent(graph, int(u), int(v))


def test_planted_clique_raises_clique_number():
    graph = generators.planted_cliques(200, 0.01, [9], seed=0)
    assert kcjax.count_cliques(graph, 9) >= 1


@pytest.mark.parametrize("sizes", [[-1], [30, 31]])
def test_planted_cliques_rejects(sizes):
    with pytest.raises(ValueError, match="clique sizes"):
        generators.planted_cliques(60, 0.1, sizes)


def test_disjoint_union():
    parts = [generators.complete(4), generators.star(5), generators.complete(0), generators.star(3)]
    union = generators.disjoint_union(*parts)
    assert union.num_nodes == 12
    assert union.num_edges == 6 + 4 + 2
    assert_canonical(union)
    expected = np.concatenate(
        [edge_array(g) + off for g, off in zip(parts, [0, 4, 9, 9], strict=True)]
    )
    np.testing.assert_array_equal(edge_array(union), expected)


def test_disjoint_union_of_nothing():
    union = generators.disjoint_union()
    assert (union.num_nodes, union.num_edges) == (0, 0)


def test_disjoint_union_counts_add():
    union = generators.disjoint_union(generators.complete(5), generators.complete(6))
    assert kcjax.count_cliques(union, [3, 4]) == {3: 10 + 20, 4: 5 + 15}


def test_chung_lu_is_sparse_heavy_tailed_and_seeded():
    g = generators.chung_lu(5000, 8, 2.3, seed=1)
    assert_canonical(g)
    deg = degrees_of(g)
    assert 5 < deg.mean() <= 8 and deg.max() > 10 * deg.mean()
    assert kcjax.transitivity(g) < 0.1
    np.testing.assert_array_equal(edge_array(g), edge_array(generators.chung_lu(5000, 8, 2.3, 1)))
    for bad in ((10, 0, 2.5), (10, 4, 2.0)):
        with pytest.raises(ValueError, match="average_degree"):
            generators.chung_lu(*bad)


@pytest.mark.parametrize(("density", "missing"), [(1.0, 0), (1.0, 7), (0.5, 0)])
def test_plant_blocks(density, missing):
    host = generators.chung_lu(400, 3, 2.5, seed=2)
    g = generators.plant_blocks(host, [20, 12], density=density, missing=missing, seed=3)
    assert_canonical(g)
    assert set(map(tuple, edge_array(host))) - set(map(tuple, edge_array(g))) <= {
        (u, v)
        for u, v in edge_array(host)  # only pairs inside a block can go
    }
    added = g.num_edges - host.num_edges
    if density == 1.0 and missing == 0:
        assert kcjax.clique_number(g)[0] >= 20
        assert kcjax.count_cliques(g, 20) >= 1
    elif density == 1.0:
        assert kcjax.count_cliques(g, 20) == 0  # seven pairs of each block are gone
    else:
        assert 0 < added < (190 + 66) * 0.75
    with pytest.raises(ValueError, match="block sizes"):
        generators.plant_blocks(host, [300, 200])
    with pytest.raises(ValueError, match="density"):
        generators.plant_blocks(host, [5], density=1.5)
