"""kcjax.bfs against scipy/networkx on random graphs: every method, direction,
batch mode and platform; parents by Graph500 validation; errors; generators."""

from __future__ import annotations

import itertools

import jax
import jax.numpy as jnp
import networkx as nx
import numpy as np
import pytest
import scipy.sparse as sp
from scipy.sparse import csgraph

import kcjax
from kcjax import BFS_METHODS as METHODS
from kcjax.experimental import BFS_NATIVE_METHODS as NATIVE_METHODS
from kcjax.experimental import bfs_native


def _graph_of(g: nx.Graph, n: int) -> kcjax.Graph:
    edges = np.array(list(g.edges()), np.int64).reshape(-1, 2)
    return kcjax.Graph.from_edges(edges[:, 0], edges[:, 1], n)


def _cases() -> dict[str, kcjax.Graph]:
    cases = {}
    for seed, (n, p) in enumerate([(80, 0.03), (150, 0.02), (60, 0.2)]):
        cases[f"gnp{n}"] = _graph_of(nx.gnp_random_graph(n, p, seed=seed), n)
    # Hubs beside a long path: the hub rule switches to bottom-up and back.
    g = nx.path_graph(40)
    g.add_edges_from((40, 41 + i) for i in range(50))
    g.add_edges_from((41 + i, 41 + (i * 7 + 3) % 50) for i in range(50))
    g.add_edges_from([(39, 40), (91, 92)])  # 93.. isolated
    cases["hubs_path"] = _graph_of(g, 100)
    cases["star_plus"] = kcjax.generators.disjoint_union(
        kcjax.generators.star(70), kcjax.generators.erdos_renyi(50, 0.1, seed=3)
    )
    return cases


CASES = _cases()


def _scipy_dist(graph: kcjax.Graph, sources) -> np.ndarray:
    n = graph.num_nodes
    a = sp.csr_matrix(
        (np.ones(graph.indices.shape[0]), np.asarray(graph.indices), np.asarray(graph.indptr)),
        shape=(n, n),
    )
    d = csgraph.shortest_path(a, method="D", directed=False, unweighted=True, indices=sources)
    return np.where(np.isinf(d), -1, d).astype(np.int64)


def _sources(graph: kcjax.Graph) -> np.ndarray:
    deg = np.asarray(graph.degrees())
    isolated = np.flatnonzero(deg == 0)
    picks = [int(np.argmax(deg)), 0, graph.num_nodes - 1, graph.num_nodes // 2]
    if isolated.size:
        picks.append(int(isolated[0]))
    return np.array(picks, np.int32)


def _check(graph, sources, result, ref) -> None:
    np.testing.assert_array_equal(np.asarray(result.distances), ref)
    np.testing.assert_array_equal(np.asarray(result.depth), ref.max(axis=-1))
    if result.parents is not None:
        for i, s in enumerate(sources):
            kcjax.validate_bfs_tree(graph, int(s), (result.distances[i], result.parents[i]))


# The dense baseline has no direction (every level scans all edges).
MATRIX = [(m, d) for m in METHODS for d in ("auto", "top_down", "bottom_up") if m != "dense"]
MATRIX.append(("dense", "auto"))


@pytest.mark.parametrize("name", ["gnp150", "hubs_path", "star_plus"])
@pytest.mark.parametrize(("method", "direction"), MATRIX)
def test_every_method_and_direction(name, method, direction, platform):
    graph = CASES[name]
    sources = _sources(graph)
    ref = _scipy_dist(graph, sources)
    out = kcjax.bfs(graph, sources=sources, method=method, direction=direction, batch="each")
    _check(graph, sources, out, ref)


@pytest.mark.parametrize("name", sorted(CASES))
def test_single_source_and_networkx(name, platform):
    graph = CASES[name]
    src = int(_sources(graph)[0])
    out = kcjax.bfs(graph, src)
    assert out.distances.shape == (graph.num_nodes,) and out.distances.dtype == jnp.int32
    kcjax.validate_bfs_tree(graph, src, out)
    g = nx.Graph()
    g.add_nodes_from(range(graph.num_nodes))
    rows = np.repeat(np.arange(graph.num_nodes), np.diff(np.asarray(graph.indptr)))
    g.add_edges_from(zip(rows.tolist(), np.asarray(graph.indices).tolist(), strict=True))
    lengths = nx.single_source_shortest_path_length(g, src)
    expect = np.full(graph.num_nodes, -1)
    expect[list(lengths)] = list(lengths.values())
    np.testing.assert_array_equal(np.asarray(out.distances), expect)
    assert int(out.depth) == max(lengths.values())
    edges = kcjax.traversed_edges(graph, out.distances)
    assert type(edges) is int and edges == g.subgraph(lengths).number_of_edges()  # as README shows


@pytest.mark.parametrize("batch", ["bitset", "each"])
@pytest.mark.parametrize("parents", [True, False])
def test_batched_equals_one_at_a_time(batch, parents, platform):
    graph = CASES["gnp150"]
    rng = np.random.default_rng(0)
    sources = rng.integers(0, graph.num_nodes, 70).astype(np.int32)  # two bitset groups
    sources[5] = sources[6]  # a repeated source
    out = kcjax.bfs(graph, sources=sources, batch=batch, parents=parents)
    assert out.distances.shape == (70, graph.num_nodes)
    assert (out.parents is None) == (not parents)
    one = np.stack([np.asarray(kcjax.bfs(graph, int(s)).distances) for s in sources])
    np.testing.assert_array_equal(np.asarray(out.distances), one)
    _check(graph, sources, out, _scipy_dist(graph, sources))
    edges = kcjax.traversed_edges(graph, out.distances)
    assert isinstance(edges, np.ndarray) and edges.dtype == np.int64 and edges.shape == (70,)
    assert edges.tolist() == [kcjax.traversed_edges(graph, row) for row in one]


@pytest.mark.parametrize("method", ["auto", "cluster", "enterprise", "dense"])
def test_jit_and_vmap(method, platform):
    graph = CASES["hubs_path"]
    sources = _sources(graph)
    ref = _scipy_dist(graph, sources)

    @jax.jit
    def run(g, s):
        return kcjax.bfs(g, sources=s, method=method)

    _check(graph, sources, run(graph, jnp.asarray(sources)), ref)
    one = jax.jit(lambda g, s: kcjax.bfs(g, s, method=method))
    np.testing.assert_array_equal(np.asarray(one(graph, jnp.int32(sources[1])).distances), ref[1])
    mapped = jax.vmap(lambda s: kcjax.bfs(graph, s, method=method).distances)(jnp.asarray(sources))
    np.testing.assert_array_equal(np.asarray(mapped), ref)
    # A traced out-of-range source cannot raise: its row is -1.
    bad = run(graph, jnp.array([sources[0], -1, graph.num_nodes], jnp.int32))
    np.testing.assert_array_equal(np.asarray(bad.distances[1:]), -1)
    np.testing.assert_array_equal(np.asarray(bad.distances[0]), ref[0])


@pytest.mark.parametrize("method", ["auto", "cluster", "enterprise", "scan", "dense"])
def test_prepared_graph(method, platform):
    """prepare_bfs keeps every row's set, ordered by neighbour degree (largest first,
    ties by id); a BFSGraph gives the same distances eagerly and as a jit argument."""
    graph = CASES["star_plus"]
    prepared = kcjax.prepare_bfs(graph)
    assert prepared.graph is graph
    indptr, indices = np.asarray(graph.indptr), np.asarray(graph.indices)
    degree, ordered = np.diff(indptr), np.asarray(prepared.indices)
    for v in range(graph.num_nodes):
        row = indices[indptr[v] : indptr[v + 1]].tolist()
        expect = sorted(row, key=lambda u: (-degree[u], u))
        assert ordered[indptr[v] : indptr[v + 1]].tolist() == expect
    sources = _sources(graph)
    ref = _scipy_dist(graph, sources)
    _check(graph, sources, kcjax.bfs(prepared, sources=sources, method=method), ref)
    run = jax.jit(lambda g, s: kcjax.bfs(g, sources=s, method=method))
    _check(graph, sources, run(prepared, jnp.asarray(sources)), ref)
    with pytest.raises(TypeError, match="kcjax.Graph"):
        kcjax.prepare_bfs(prepared)


def test_hub_threshold_override():
    graph = CASES["hubs_path"]
    sources = _sources(graph)
    ref = _scipy_dist(graph, sources)
    for tau in (0, 3, 1000):
        out = kcjax.bfs(graph, sources=sources, batch="each", hub_tau=tau)
        _check(graph, sources, out, ref)


def test_errors():
    graph = CASES["gnp80"]
    with pytest.raises(ValueError, match=r"in \[0, 80\), got 80"):
        kcjax.bfs(graph, 80)
    with pytest.raises(ValueError, match="got -1"):
        kcjax.bfs(graph, sources=[0, -1])
    with pytest.raises(TypeError, match="integer"):
        kcjax.bfs(graph, 1.5)
    with pytest.raises(ValueError, match="exactly one"):
        kcjax.bfs(graph)
    with pytest.raises(ValueError, match="exactly one"):
        kcjax.bfs(graph, 0, sources=[1])
    with pytest.raises(ValueError, match="method must be one of"):
        kcjax.bfs(graph, 0, method="gunrock")
    with pytest.raises(ValueError, match="direction must be one of"):
        kcjax.bfs(graph, 0, direction="sideways")
    with pytest.raises(ValueError, match="a scalar"):
        kcjax.bfs(graph, [0, 1])
    with pytest.raises(TypeError, match="kcjax.Graph"):
        kcjax.bfs(np.eye(3), 0)
    empty = kcjax.Graph.from_edges(np.zeros(0, np.int64), np.zeros(0, np.int64), 0)
    with pytest.raises(ValueError, match="no vertices"):
        kcjax.bfs(empty, 0)


def test_isolated_source():
    graph = CASES["hubs_path"]
    out = kcjax.bfs(graph, 99)
    expect = np.full(100, -1)
    expect[99] = 0
    np.testing.assert_array_equal(np.asarray(out.distances), expect)
    assert int(out.depth) == 0 and int(out.parents[99]) == 99
    kcjax.validate_bfs_tree(graph, 99, out)


def test_validation_catches_bad_trees():
    graph = CASES["gnp60"]
    out = kcjax.bfs(graph, 0)
    dist, par = np.asarray(out.distances).copy(), np.asarray(out.parents).copy()
    kcjax.validate_bfs_tree(graph, 0, (dist, par))
    # A leaf of the tree at distance 2 (which vertex is a leaf depends on the platform's
    # parents): unreaching it breaks no child's level.
    far = int(next(v for v in np.flatnonzero(dist == 2) if not (par == v).any()))
    non_neighbour = next(
        u
        for u in np.flatnonzero(dist == 1)
        if u
        not in set(np.asarray(graph.indices)[int(graph.indptr[far]) : int(graph.indptr[far + 1])])
    )
    cases = {
        "not an edge": (dist, np.where(np.arange(60) == far, non_neighbour, par)),
        "consecutive": (np.where(np.arange(60) == far, 3, dist), par),
        "own parent": (dist, np.where(np.arange(60) == 0, 1, par)),
        "not fully reached": (
            np.where(np.arange(60) == far, -1, dist),
            np.where(np.arange(60) == far, -1, par),
        ),
        "but parent": (dist, np.where(np.arange(60) == far, -1, par)),
    }
    for what, pair in cases.items():
        with pytest.raises(kcjax.BFSValidationError, match=what):
            kcjax.validate_bfs_tree(graph, 0, pair)
    with pytest.raises(ValueError, match="needs parents"):
        kcjax.validate_bfs_tree(graph, 0, kcjax.bfs(graph, 0, parents=False))


def test_kronecker_and_rmat_generators():
    g = kcjax.generators.kronecker(10, 16, seed=3)
    assert g.num_nodes == 1024 and 0 < g.num_edges <= 16 * 1024
    h = kcjax.generators.kronecker(10, 16, seed=3)
    np.testing.assert_array_equal(np.asarray(g.indices), np.asarray(h.indices))
    assert not np.array_equal(
        np.asarray(kcjax.generators.kronecker(10, 16, seed=4).indptr), np.asarray(g.indptr)
    )
    r = kcjax.generators.rmat_graph500(10, 16, seed=3)
    assert r.num_nodes == 1024 and r.num_edges > 0
    # The Kronecker graph is more skewed than the (0.45, 0.15, 0.15) R-MAT.
    assert int(jnp.max(g.degrees())) > int(jnp.max(r.degrees()))
    src = int(jnp.argmax(g.degrees()))
    out = kcjax.bfs(g, src)
    np.testing.assert_array_equal(np.asarray(out.distances), _scipy_dist(g, [src])[0])


@pytest.mark.parametrize("make", [kcjax.generators.kronecker, kcjax.generators.rmat_graph500])
def test_generators_on_device(make):
    """The jax.random draws: reproducible, seed-dependent, and the host draws' statistics."""
    g = make(12, 16, seed=3, on_device=True)
    h = make(12, 16, seed=3, on_device=True)
    np.testing.assert_array_equal(np.asarray(g.indices), np.asarray(h.indices))
    np.testing.assert_array_equal(np.asarray(g.indptr), np.asarray(h.indptr))
    other = make(12, 16, seed=4, on_device=True)
    assert not np.array_equal(np.asarray(other.indptr), np.asarray(g.indptr))
    host = make(12, 16, seed=3)
    deg, host_deg = np.asarray(g.degrees()), np.asarray(host.degrees())
    assert g.num_nodes == host.num_nodes == 4096
    assert abs(g.num_edges - host.num_edges) < 0.02 * host.num_edges
    assert abs(np.count_nonzero(deg) - np.count_nonzero(host_deg)) < 0.05 * np.count_nonzero(
        host_deg
    )
    assert 0.7 < deg.max() / host_deg.max() < 1.4
    src = int(np.argmax(deg))
    np.testing.assert_array_equal(np.asarray(kcjax.bfs(g, src).distances), _scipy_dist(g, [src])[0])


def test_from_edges_device_arrays_match_host():
    rng = np.random.default_rng(0)
    src, dst = rng.integers(0, 300, 2000), rng.integers(0, 300, 2000)
    host = kcjax.Graph.from_edges(src, dst, num_nodes=310, return_report=True)
    dev = kcjax.Graph.from_edges(
        jnp.asarray(src, jnp.int32), jnp.asarray(dst, jnp.int32), num_nodes=310, return_report=True
    )
    assert dev[1] == host[1]
    np.testing.assert_array_equal(np.asarray(dev[0].indptr), np.asarray(host[0].indptr))
    np.testing.assert_array_equal(np.asarray(dev[0].indices), np.asarray(host[0].indices))
    with pytest.raises(ValueError, match="non-negative"):
        kcjax.Graph.from_edges(jnp.asarray([0, -1]), jnp.asarray([1, 2]))
    with pytest.raises(ValueError, match="out of range"):
        kcjax.Graph.from_edges(jnp.asarray([0, 5]), jnp.asarray([1, 2]), num_nodes=4)
    with pytest.raises(ValueError, match="non-integer"):
        kcjax.Graph.from_edges(jnp.asarray([0.5, 1.0]), jnp.asarray([1.0, 2.0]))


def test_methods_constant():
    assert set(METHODS) == {
        "auto",
        "cluster",
        "enterprise",
        "direction",
        "classes",
        "queue",
        "scan",
        "dense",
    }
    assert kcjax.BFS_METHODS == METHODS
    assert list(itertools.islice(METHODS, 1)) == ["auto"]  # the default


@pytest.mark.parametrize("bad", [17, 100])
def test_cluster_size_checked(bad, platform):
    """The cluster-size attribute is checked on every platform (CheckArgs)."""
    graph = CASES["gnp80"]
    with pytest.raises(Exception, match="cluster must be 1 to 16"):
        jax.block_until_ready(
            bfs_native(
                graph.indptr,
                graph.indices,
                jnp.zeros(1, jnp.int32),
                method=NATIVE_METHODS["cluster"],
                direction=0,
                batch=1,
                parents=True,
                cluster=bad,
            )
        )
