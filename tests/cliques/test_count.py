"""k-clique counts against independent references, eagerly and under jit, on
every platform present (the ``platform`` fixture)."""

from __future__ import annotations

import functools
import itertools
import math

import jax
import jax.numpy as jnp
import networkx as nx
import numpy as np
import pytest
from reference import (
    clique_counts_networkx,
    edges_of,
    ground_truth,
    on_platform,
    planted,
    planted_dense_dag,
)

import kcjax

ALL_METHODS = ("pivot", *kcjax.ENUMERATION_METHODS)
KMAX = 8


def _case_graphs() -> dict[str, tuple[np.ndarray, int]]:
    cases = {}
    for seed, (n, p) in enumerate([(30, 0.3), (45, 0.25), (60, 0.15), (25, 0.6)]):
        g = nx.gnp_random_graph(n, p, seed=seed)
        cases[f"gnp{n}_{p}"] = (edges_of(g), n)
    cases["planted"] = (edges_of(planted(80, 0.08, 11, seed=7)), 80)
    cases["complete12"] = (edges_of(nx.complete_graph(12)), 12)
    cases["star"] = (edges_of(nx.star_graph(9)), 10)
    cases["disjoint_k5_k7"] = (
        edges_of(nx.disjoint_union(nx.complete_graph(5), nx.complete_graph(7))),
        12,
    )
    cases["isolated_only"] = (np.zeros((0, 2), np.int64), 6)
    return cases


CASES = _case_graphs()


@pytest.fixture(scope="module")
def references() -> dict[str, dict[int, int]]:
    return {name: clique_counts_networkx(e, n, KMAX) for name, (e, n) in CASES.items()}


@pytest.mark.parametrize("method", ALL_METHODS)
@pytest.mark.parametrize("name", sorted(CASES))
def test_all_sizes_match_networkx(name, method, references, platform):
    edges, n = CASES[name]
    graph = kcjax.Graph.from_edges(edges[:, 0], edges[:, 1], num_nodes=n)
    got = kcjax.count_cliques(graph, range(1, KMAX + 1), method=method)
    assert got == references[name]


PLANTED_KS = list(range(1, 11))


@functools.cache
def _planted_dense_counts(seed: int, method: str) -> dict[int, int]:
    with jax.default_device(jax.devices("cpu")[0]):
        return kcjax.count_cliques(planted_dense_dag(seed), PLANTED_KS, method=method)


@pytest.mark.parametrize("method", ALL_METHODS)
@pytest.mark.parametrize("seed", range(3))
def test_dense_blocks_match_the_other_algorithm(seed, method, platform):
    # About 1e7 10-cliques: each method on each platform against the other
    # algorithm (pivoting against enumeration and back) on the CPU.
    dag = on_platform(planted_dense_dag(seed), platform)
    other = "kcminer" if method == "pivot" else "pivot"
    assert kcjax.count_cliques(dag, PLANTED_KS, method=method) == _planted_dense_counts(seed, other)


@pytest.mark.parametrize("order", kcjax.ORDERS)
@pytest.mark.parametrize("k", range(1, KMAX + 1))
def test_single_k_and_orders(k, order, references):
    edges, n = CASES["planted"]
    graph = kcjax.Graph.from_edges(edges[:, 0], edges[:, 1], num_nodes=n)
    assert kcjax.count_cliques(graph, k, order=order) == references["planted"][k]


@pytest.mark.parametrize("k", [1, 2, 3, 5, 9, 16, 17])
def test_complete_graph_is_binomial(k, platform):
    n = 16
    edges = np.array(list(itertools.combinations(range(n), 2)))
    graph = kcjax.Graph.from_edges(edges[:, 0], edges[:, 1])
    for method in ALL_METHODS:
        assert kcjax.count_cliques(graph, k, method=method) == math.comb(n, k)


def test_dense_method_through_count_cliques(references):
    edges, n = CASES["planted"]
    graph = kcjax.Graph.from_edges(edges[:, 0], edges[:, 1], num_nodes=n)
    assert kcjax.count_cliques(graph, range(1, 7), method="dense") == {
        k: references["planted"][k] for k in range(1, 7)
    }


def test_duplicates_and_self_loops_are_ignored():
    src = np.array([0, 1, 1, 2, 2, 0, 3, 3, 0, 1, 3])
    dst = np.array([1, 0, 2, 1, 0, 2, 3, 0, 3, 3, 2])
    graph = kcjax.Graph.from_edges(src, dst)
    assert kcjax.count_cliques(graph, [2, 3, 4]) == {2: 6, 3: 4, 4: 1}


def test_empty_graph():
    graph = kcjax.Graph.from_edges(np.zeros(0, np.int64), np.zeros(0, np.int64))
    assert graph.num_nodes == 0
    assert kcjax.count_cliques(graph, [1, 2, 3, 4]) == {1: 0, 2: 0, 3: 0, 4: 0}


@pytest.mark.parametrize("method", ["kcminer", "binary_search", "static_l2"])
def test_under_jit_matches_eager(method, references, platform):
    edges, n = CASES["gnp45_0.25"]
    graph = kcjax.Graph.from_edges(edges[:, 0], edges[:, 1], num_nodes=n)

    @jax.jit
    def counts(g):
        return kcjax.count_cliques(g, [1, 2, 3, 4, 5, 6], method=method)

    limbs = counts(graph)
    got = {k: kcjax.limbs_to_int(v) for k, v in limbs.items()}
    assert got == {k: references["gnp45_0.25"][k] for k in range(1, 7)}


def test_jit_single_k_returns_limbs(references, platform):
    edges, n = CASES["planted"]
    graph = kcjax.Graph.from_edges(edges[:, 0], edges[:, 1], num_nodes=n)
    limbs = jax.jit(lambda g: kcjax.count_cliques(g, 6))(graph)
    assert limbs.shape == (4,) and limbs.dtype == jnp.uint32
    assert kcjax.limbs_to_int(limbs) == references["planted"][6]


@pytest.mark.parametrize("method", ["kcminer", "pivot"])
def test_chunks_report_progress(method, references):
    edges, n = CASES["gnp60_0.15"]
    graph = kcjax.Graph.from_edges(edges[:, 0], edges[:, 1], num_nodes=n)
    seen = []
    got = kcjax.count_cliques(
        graph,
        [3, 4],
        method=method,
        chunk_size=17,
        progress=lambda done, total: seen.append((done, total)),
    )
    assert got == {3: references["gnp60_0.15"][3], 4: references["gnp60_0.15"][4]}
    tasks = graph.num_edges if method == "kcminer" else graph.num_nodes  # edge or vertex tasks
    assert seen[-1] == (tasks, tasks) and len(seen) == math.ceil(tasks / 17)
    assert [d for d, _ in seen] == sorted(d for d, _ in seen)


def _path_then_clique(path: int, clique: int) -> kcjax.Graph:
    """A path of light tasks (low degrees: first in the degree order) and a
    clique of heavy ones (last)."""
    g = nx.path_graph(path)
    g.add_edges_from(itertools.combinations(range(path, path + clique), 2))
    e = edges_of(g)
    return kcjax.Graph.from_edges(e[:, 0], e[:, 1], num_nodes=path + clique)


@pytest.mark.parametrize("method", ["kcminer", "pivot"])
def test_long_counts_split_by_estimated_work(method, monkeypatch):
    """A count estimated to be long splits itself into chunks of estimated work
    (here every count is "long" and a chunk aims at almost no time, so chunks
    are a task or a few): the same counts, and progress that reports the share
    of the tasks stage's estimated work done (kcjax.task_costs), not of the
    tasks: the path's light tasks, the first three quarters, are a sliver of it."""
    from kcjax import experimental

    monkeypatch.setattr("kcjax.cliques.chunked.LONG_COUNT_S", 0.0)
    monkeypatch.setattr("kcjax.cliques.chunked.CHUNK_S", 0.0)
    name = "pivot_chunk" if method == "pivot" else "enumeration_chunk"
    chunks, real = [], getattr(experimental, name)

    def spy(*args, step, total, **kwargs):
        start = args[-1]
        chunks.append(min((0 if start is None else int(start)) + step, total))
        return real(*args, step=step, total=total, **kwargs)

    monkeypatch.setattr(f"kcjax.cliques.count.{name}", spy)
    graph = _path_then_clique(120, 10)
    seen = []
    got = kcjax.count_cliques(
        graph, [3, 4, 5], method=method, progress=lambda d, t: seen.append((d, t))
    )
    assert got == {3: math.comb(10, 3), 4: math.comb(10, 4), 5: math.comb(10, 5)}
    dag = kcjax.orient(graph)
    costs = np.asarray(kcjax.task_costs(dag, 5), np.float64)
    if method == "pivot":
        costs = 0.01 + np.bincount(np.asarray(dag.src), costs, minlength=dag.num_nodes)
    work = np.concatenate([[0.0], np.cumsum(costs)])
    tasks = len(costs)
    assert len(seen) == len(chunks) > 10 and seen[-1] == (tasks, tasks)
    for (done, total), stop in zip(seen, chunks, strict=True):
        assert total == tasks
        assert abs(done - work[stop] / work[-1] * tasks) <= 1, (done, stop)
    light = [d for (d, _), stop in zip(seen, chunks, strict=True) if stop <= 0.6 * tasks]
    assert light and max(light) < 0.3 * tasks  # by task count these would reach 0.6


@pytest.mark.parametrize("name", ["gnp45_0.25", "planted", "isolated_only"])
@pytest.mark.parametrize("method", ["kcminer", "pivot"])
def test_split_counts_match_networkx(name, method, references, monkeypatch):
    monkeypatch.setattr("kcjax.cliques.chunked.LONG_COUNT_S", 0.0)
    monkeypatch.setattr("kcjax.cliques.chunked.CHUNK_S", 2e-3)
    edges, n = CASES[name]
    graph = kcjax.Graph.from_edges(edges[:, 0], edges[:, 1], num_nodes=n)
    got = kcjax.count_cliques(graph, range(1, KMAX + 1), method=method)
    assert got == references[name]


def test_short_counts_stay_one_call_on_sparse_ids():
    """Costs follow the edges: 100,000 ids and a triangle count in one dispatch,
    whatever the method."""
    n = 100_000
    graph = kcjax.Graph.from_edges([0, 1, 2, n - 2], [1, 2, 0, n - 1], num_nodes=n)
    for method in ("pivot", "kcminer"):
        seen: list[tuple[int, int]] = []
        got = kcjax.count_cliques(
            graph, [1, 3], method=method, progress=lambda *a, s=seen: s.append(a)
        )
        assert got == {1: n, 3: 1} and len(seen) == 1


@pytest.mark.parametrize("method", ["auto", "kcminer", "pivot"])
def test_sizes_above_the_out_degree_bound_count_zero(method):
    edges, n = CASES["gnp60_0.15"]
    graph = kcjax.Graph.from_edges(edges[:, 0], edges[:, 1], num_nodes=n)
    bound = int(kcjax.orient(graph).max_out_degree()) + 1  # no clique is larger
    ks = [3, bound, bound + 1, bound + 5]
    want = clique_counts_networkx(edges, n, bound + 5)
    assert kcjax.count_cliques(graph, ks, method=method) == {s: want.get(s, 0) for s in ks}
    seen = []
    got = kcjax.count_cliques(graph, bound + 2, method=method, progress=lambda *a: seen.append(a))
    tasks = graph.num_nodes if method == "pivot" else graph.num_edges
    assert got == 0 and seen == [(tasks, tasks)]


def test_lambda_override_keeps_counts(references):
    edges, n = CASES["planted"]
    graph = kcjax.Graph.from_edges(edges[:, 0], edges[:, 1], num_nodes=n)
    for lam in (0.0, 0.3, 2.0):
        assert kcjax.count_cliques(graph, 7, lam=lam) == references["planted"][7]


@pytest.mark.parametrize("name", sorted(CASES))
def test_transitivity_matches_networkx(name):
    edges, n = CASES[name]
    g = nx.Graph()
    g.add_nodes_from(range(n))
    g.add_edges_from(edges.tolist())
    graph = kcjax.Graph.from_edges(edges[:, 0], edges[:, 1], num_nodes=n)
    for order in kcjax.ORDERS:
        dag = kcjax.orient(graph, order=order)
        assert kcjax.transitivity(dag) == pytest.approx(nx.transitivity(g), abs=1e-12)
        assert kcjax.transitivity(dag) == pytest.approx(nx.transitivity(g), abs=1e-12)  # cached


@pytest.mark.parametrize("sizes", [(12, 7), (30,), (9, 9, 4, 1)])
def test_cost_estimate_is_exact_on_unions_of_cliques(sizes):
    from kcjax.experimental import AUTO_MAX_SIZE

    graph = kcjax.generators.disjoint_union(*(kcjax.generators.complete(s) for s in sizes))
    k = min(max(sizes) + 1, AUTO_MAX_SIZE)  # the features hold sizes up to AUTO_MAX_SIZE
    est = kcjax.clique_cost_estimate(graph, k)
    expected = [sum(math.comb(s, j) for s in sizes) for j in range(k + 1)]
    assert est.k == k and len(est.cliques) == k + 1
    assert est.cliques[1:] == pytest.approx(expected[1:], rel=1e-4)
    assert est.enumeration_work == pytest.approx(sum(expected[3:k]), rel=1e-4)
    assert est.pivot_branching == pytest.approx(0.0, abs=1e-6)
    degrees = [d for s in sizes for d in range(s)]  # out-degrees s - 1, ..., 0 per clique
    weights = [sum(math.comb(d, j - 1) for j in range(3, k)) for d in degrees]
    assert est.root_degree == pytest.approx(
        sum(w * d for w, d in zip(weights, degrees, strict=True)) / sum(weights), rel=1e-4
    )
    assert est.heaviest_root_work == pytest.approx(max(weights), rel=1e-4)


@pytest.mark.parametrize("name", ["gnp60_0.15", "planted", "star", "isolated_only"])
def test_cost_estimate_counts_triangles_exactly(name, references):
    edges, n = CASES[name]
    graph = kcjax.Graph.from_edges(edges[:, 0], edges[:, 1], num_nodes=n)
    dag = kcjax.orient(graph)
    est = kcjax.clique_cost_estimate(dag, 6)
    assert est.cliques[:4] == pytest.approx([1, n, len(edges), references[name][3]], rel=1e-5)
    assert kcjax.clique_cost_estimate(dag, 6) is est  # memoized per DAG and k
    with pytest.raises(ValueError, match="k must be >= 1"):
        kcjax.clique_cost_estimate(graph, 0)


def _with_edges(graph: kcjax.Graph, src, dst) -> kcjax.Graph:
    a, b = (np.asarray(x) for x in graph.edges())
    return kcjax.Graph.from_edges(
        np.concatenate([a, src]), np.concatenate([b, dst]), num_nodes=graph.num_nodes
    )


def _adversarial(name: str) -> kcjax.Graph:
    """Small twins of experiments/cliques/auto_graphs.py's adversarial cases."""
    rng = np.random.default_rng(5)
    host = kcjax.generators.chung_lu(4000, 6, 2.1, seed=3)
    a, b = (np.asarray(x) for x in host.edges())
    deg = np.bincount(np.concatenate([a, b]), minlength=4000)
    if name == "hidden_clique":  # low-degree members that all link the same hubs
        members = rng.choice(np.flatnonzero(deg <= 2), 60, replace=False)
        hubs = np.argsort(-deg)[:15]
        i, j = np.triu_indices(60, 1)
        src = np.concatenate([members[i], np.repeat(members, 15)])
        return _with_edges(host, src, np.concatenate([members[j], np.tile(hubs, 60)]))
    if name == "hub_cliques":  # 30 cliques of 30 sharing vertex 0
        members = rng.permutation(np.arange(1, 4000))[:900].reshape(30, 30)
        i, j = np.triu_indices(30, 1)
        src = np.concatenate([members[:, i].ravel(), np.zeros(900, np.int64)])
        return _with_edges(host, src, np.concatenate([members[:, j].ravel(), members.ravel()]))
    members = rng.permutation(4000)[:80]  # a clique of 80 less a 10-edge matching
    i, j = np.triu_indices(80, 1)
    keep = ~((i % 2 == 0) & (j == i + 1) & (i < 20))
    outside = ~(np.isin(a, members) & np.isin(b, members))
    host = kcjax.Graph.from_edges(a[outside], b[outside], num_nodes=4000)
    return _with_edges(host, members[i[keep]], members[j[keep]])


ADVERSARIAL = ("hidden_clique", "hub_cliques", "clique_minus_matching")


@pytest.mark.parametrize("name", ADVERSARIAL)
def test_auto_pivots_on_the_adversarial_cases(name, monkeypatch):
    from kcjax import experimental as auto

    dag = kcjax.orient(_adversarial(name))
    for k in (9, 12):
        est = kcjax.clique_cost_estimate(dag, k)
        assert est.enumeration_work <= est.work_bound * (1 + 1e-5)
        assert auto.auto_gpu_method(dag, k) == "pivot", (k, est)
        assert auto.auto_local_method(dag, k) == "pivot", (k, est)
    # auto's counts (the GPU rule, on this CPU) equal both methods' at small k.
    gpu_rule = auto.auto_gpu_method
    monkeypatch.setattr("kcjax.cliques.count.auto_method", lambda d, k, **_: gpu_rule(d, k))
    ks = range(3, 6)
    counts = {m: kcjax.count_cliques(dag, ks, method=m) for m in ("auto", "kcminer", "pivot")}
    assert counts["auto"] == counts["kcminer"] == counts["pivot"]
    for k in ks:
        local = {m: kcjax.clique_counts_per_vertex(dag, k, method=m) for m in ("kcminer", "pivot")}
        np.testing.assert_array_equal(kcjax.clique_counts_per_vertex(dag, k), local["pivot"])
        np.testing.assert_array_equal(local["kcminer"], local["pivot"])
        assert int(local["pivot"].astype(object).sum()) == k * counts["pivot"][k]


def test_auto_enumerates_a_clique_less_a_perfect_matching(monkeypatch):
    """A 36-clique less a perfect matching in a sparse host: the pivot tree
    doubles at every missing pair, so counts enumerate (the impure-block
    rule); per-vertex counts, which enumerate every clique, pivot from k = 6.
    Counts through auto are exact (both methods agree)."""
    from kcjax import experimental as auto

    rng = np.random.default_rng(5)
    host = kcjax.generators.chung_lu(4000, 6, 2.1, seed=3)
    a, b = (np.asarray(x) for x in host.edges())
    members = rng.permutation(4000)[:36]
    i, j = np.triu_indices(36, 1)
    keep = ~((i % 2 == 0) & (j == i + 1))
    outside = ~(np.isin(a, members) & np.isin(b, members))
    graph = kcjax.Graph.from_edges(
        np.concatenate([a[outside], members[i[keep]]]),
        np.concatenate([b[outside], members[j[keep]]]),
        num_nodes=4000,
    )
    dag = kcjax.orient(graph)
    for k in range(6, 13):
        assert auto.auto_gpu_method(dag, k) == "kcminer", k
        assert auto.auto_local_method(dag, k) == "pivot", k
    monkeypatch.setattr(
        "kcjax.cliques.count.auto_method", lambda d, k, **_: auto.auto_gpu_method(d, k)
    )
    ks = range(3, 13)
    counts = {m: kcjax.count_cliques(dag, ks, method=m) for m in ("auto", "kcminer", "pivot")}
    assert counts["auto"] == counts["kcminer"] == counts["pivot"]
    # The block alone holds C(18, k) 2^k k-cliques: one vertex of each pair.
    assert all(counts["auto"][k] >= math.comb(18, k) * 2**k for k in ks)


def test_auto_enumerates_dense_non_cliques_and_reads_the_device_once(monkeypatch):
    from kcjax import experimental as auto

    sparse = kcjax.generators.chung_lu(3000, 6, 2.5, seed=1)
    dense = kcjax.orient(kcjax.generators.plant_blocks(sparse, [60], density=0.5, seed=2))
    clique = kcjax.orient(kcjax.generators.plant_blocks(sparse, [60], seed=2))
    # A planted 60-clique: enumerate while its work is small, pivot once it explodes.
    assert auto.auto_gpu_method(clique, 5) == "kcminer"
    assert auto.auto_gpu_method(clique, 12) == "pivot"
    assert auto.auto_method(clique, 12, enumeration_only=True) == "kcminer"
    if next(iter(clique.indices.devices())).platform == "cpu":
        assert auto.auto_method(clique, 4) == "pivot"
    # A dense block that is no clique: candidates leave non-neighbours.
    est = kcjax.clique_cost_estimate(dense, 12)
    assert est.pivot_branching > auto.AUTO_PIVOT_MAX_BRANCHING
    assert est.work_bound > auto.AUTO_SAFE_WORK  # no bound settles it: the estimate does
    assert auto.auto_gpu_method(dense, 12) == "kcminer"
    assert auto.auto_local_method(dense, 4) == "kcminer"
    # Every decision on a warm DAG reads the memoized features, nothing else.
    monkeypatch.setattr("kcjax.cliques.auto._features", None)
    for k in range(4, 21):
        for d in (dense, clique):
            assert auto.auto_gpu_method(d, k) in ("kcminer", "pivot")
            assert auto.auto_local_method(d, k) in ("kcminer", "pivot")
            kcjax.clique_cost_estimate(d, k)
    assert auto.auto_gpu_method(clique, 30) == "pivot"  # past the features' sizes
    kcjax.clear_memo()
    with pytest.raises(TypeError):
        auto.auto_gpu_method(clique, 12)  # recomputed after clear_memo


@pytest.mark.parametrize("name", ["gnp60_0.15", "planted", "disjoint_k5_k7", "chung_lu+K60"])
def test_work_bounds_hold_and_bound_the_estimate(name, monkeypatch):
    from kcjax import experimental as auto

    if name == "chung_lu+K60":  # bounds past the safe work: the estimate decides
        sparse = kcjax.generators.chung_lu(3000, 6, 2.5, seed=1)
        graph = kcjax.generators.plant_blocks(sparse, [60], seed=2)
    else:
        edges, n = CASES[name]
        graph = kcjax.Graph.from_edges(edges[:, 0], edges[:, 1], num_nodes=n)
    exact = kcjax.count_all_cliques(graph)
    dag = kcjax.orient(graph)
    picks = {}
    for k in range(4, 13):
        est = kcjax.clique_cost_estimate(dag, k)
        work, heaviest, cost = auto.work_bounds(dag, k)
        true_work = sum(exact.get(s, 0) for s in range(3, k))
        assert est.work_bound >= true_work * (1 - 1e-5)
        assert work >= est.work_bound * (1 - 1e-5) >= est.enumeration_work * (1 - 2e-5)
        assert heaviest >= est.heaviest_root_bound * (1 - 1e-5)
        assert est.heaviest_root_bound >= est.heaviest_root_work * (1 - 1e-5)
        assert cost >= est.enumeration_work * est.root_degree * (1 - 1e-5)
        picks[k] = (auto.auto_gpu_method(dag, k), auto.auto_local_method(dag, k))
    kcjax.clear_memo()
    monkeypatch.setattr("kcjax.cliques.auto.work_bounds", lambda dag, k: (math.inf,) * 3)
    assert picks == {
        k: (auto.auto_gpu_method(dag, k), auto.auto_local_method(dag, k)) for k in picks
    }


@pytest.mark.parametrize(
    "build",
    [
        lambda g: kcjax.generators.plant_blocks(g, [16, 10], seed=3),
        lambda g: kcjax.generators.plant_blocks(g, [16], missing=6, seed=4),
        lambda g: kcjax.generators.plant_blocks(g, [30], density=0.6, seed=5),
    ],
    ids=["cliques", "near_clique", "dense_block"],
)
def test_auto_counts_the_validation_kinds_exactly(build):
    graph = build(kcjax.generators.chung_lu(400, 4, 2.5, seed=6))
    src, dst = (np.asarray(a) for a in graph.edges())
    expected = clique_counts_networkx(np.stack([src, dst], 1), graph.num_nodes, 7)
    for method in ("auto", "kcminer", "pivot"):
        assert kcjax.count_cliques(graph, range(3, 8), method=method) == {
            k: expected[k] for k in range(3, 8)
        }


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"k": 0}, "k must be >= 1"),
        ({"k": 3, "method": "magic"}, "method must be one of"),
        ({"k": 3, "order": "random"}, "order must be one of"),
        ({"k": 3, "chunk_size": 0}, "chunk_size"),
        ({"k": []}, "no clique size"),
    ],
)
def test_bad_arguments(kwargs, message):
    graph = kcjax.Graph.from_edges(np.array([0, 1]), np.array([1, 2]))
    with pytest.raises(ValueError, match=message):
        kcjax.count_cliques(graph, **kwargs)


@pytest.mark.parametrize("method", kcjax.ENUMERATION_METHODS)
@pytest.mark.parametrize("max_degree", [None, 0, 31, 1000])
def test_whole_graph_tasks_equal_explicit_task_ids(method, max_degree):
    # tasks=None counts every edge without a task-id array; max_degree is a
    # routing hint that never changes a count, even when it is wrong (0).
    edges, n = CASES["planted"]
    dag = kcjax.orient(kcjax.Graph.from_edges(edges[:, 0], edges[:, 1], num_nodes=n))
    ids = jnp.arange(dag.num_edges, dtype=jnp.int32)
    want = np.asarray(kcjax.count_cliques_limbs(dag, 6, method=method, tasks=ids))
    for fn in (
        kcjax.count_cliques_limbs,
        jax.jit(kcjax.count_cliques_limbs, static_argnames=("kmax", "method", "max_degree")),
    ):
        got = fn(dag, 6, method=method, max_degree=max_degree)
        np.testing.assert_array_equal(np.asarray(got), want)


@pytest.mark.parametrize("max_degree", [-1, 2**31])
def test_max_degree_out_of_range(max_degree):
    dag = kcjax.orient(kcjax.Graph.from_edges(np.array([0, 1, 0]), np.array([1, 2, 2])))
    with pytest.raises(ValueError, match="max_degree must be in"):
        kcjax.count_cliques_limbs(dag, 3, max_degree=max_degree)


def test_handler_rejects_task_ids_with_all_edges():
    from kcjax.experimental import clique_count

    dag = kcjax.orient(kcjax.Graph.from_edges(np.array([0, 1, 0]), np.array([1, 2, 2])))
    with pytest.raises(Exception, match="all_edges needs an empty tasks array"):
        clique_count(
            dag.indptr,
            dag.indices,
            dag.src,
            jnp.arange(3, dtype=jnp.int32),
            kmax=3,
            method=0,
            lam=-1.0,
            num_threads=0,
            all_edges=True,
        ).block_until_ready()


def test_handler_rejects_a_graph_that_is_not_oriented():
    graph = kcjax.Graph.from_edges(np.array([0, 1, 0]), np.array([1, 2, 2]))
    dag = kcjax.orient(graph)
    broken = kcjax.DAG(dag.indptr, dag.indices[::-1], dag.src, dag.order, dag.num_nodes)
    for method in ("kcminer", "pivot"):
        with pytest.raises(Exception, match="not an oriented DAG"):
            kcjax.count_cliques(broken, 3, method=method)


@pytest.mark.parametrize(
    ("name", "ks", "methods"),
    [
        ("email-Enron", range(3, 9), ("kcminer",)),
        ("email-Enron", range(3, 7), ("binary_search", "static_l1", "static_l2", "pivot")),
        ("com-dblp", range(3, 6), ("kcminer", "pivot")),
        ("ca-CondMat", range(3, 9), ("kcminer", "pivot")),
    ],
)
def test_real_graphs_match_ground_truth(shared_graph, name, ks, methods, platform):
    dag = on_platform(kcjax.orient(shared_graph(name)), platform)
    truth = ground_truth()
    for method in methods:
        got = kcjax.count_cliques(dag, list(ks), method=method)
        assert got == {k: truth[(name, k)] for k in ks}, method


@pytest.mark.parametrize("bad", ["5", "10", 5.0, True, [3, "4"], None])
def test_clique_sizes_must_be_integers(bad):
    graph = kcjax.generators.complete(6)
    with pytest.raises(TypeError, match="clique size k must be an integer"):
        kcjax.count_cliques(graph, bad)


@pytest.mark.parametrize("good", [np.int64(4), [np.int32(3), 4], range(3, 5)])
def test_clique_sizes_accept_numpy_integers_and_iterables(good):
    graph = kcjax.generators.complete(6)
    expected = {3: 20, 4: 15}
    out = kcjax.count_cliques(graph, good)
    assert out == (expected[4] if np.ndim(good) == 0 else {k: expected[k] for k in good})


def test_bad_split_is_named():
    with pytest.raises(ValueError, match="split must be one of"):
        kcjax.count_cliques(kcjax.generators.complete(6), 3, split="nope")


def test_listing_past_memory_is_refused_before_the_work(monkeypatch):
    graph = kcjax.generators.complete(6)
    monkeypatch.setattr("kcjax._memory.host_free_bytes", lambda: 100)
    monkeypatch.setattr("kcjax._memory.free_bytes", lambda device=None: 100)
    with pytest.raises(ValueError, match=r"listing 15 4-cliques needs .* iter_cliques"):
        kcjax.list_cliques(graph, 4)
