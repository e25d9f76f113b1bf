"""What only the CUDA handlers do, against the CPU handlers and ground truth
(skipped without a GPU): large candidate sets and heavy-task splits, the
max_degree hint and the small route, the mesh, listing and per-vertex counts
at sizes the CPU tests do not reach, every shared graph. The op tests of
test_count.py and test_listing.py run on every platform present."""

from __future__ import annotations

import math

import jax
import networkx as nx
import numpy as np
import pytest
from reference import DATA_DIR, SHARED_GRAPHS, ground_truth, has_gpu, on_platform

import kcjax

pytestmark = [
    pytest.mark.gpu,
    pytest.mark.skipif(not has_gpu(), reason="no CUDA device"),
]

METHODS = ("pivot", *kcjax.ENUMERATION_METHODS)


def _count(dag: kcjax.DAG, ks, method: str, platform: str) -> dict[int, int]:
    with jax.default_device(jax.devices(platform)[0]):
        return kcjax.count_cliques(on_platform(dag, platform), ks, method=method)


def test_extension_has_cuda_handlers():
    assert kcjax.built_with_cuda()


def _dag_with_a_big_task(d: int, p: float, seed: int) -> kcjax.DAG:
    """Edge (0, 1) whose candidate set is 2..d+1, with random edges among them."""
    rng = np.random.default_rng(seed)
    a, b = np.triu_indices(d, 1)
    keep = rng.random(a.size) < p
    src = np.concatenate([[0], np.zeros(d, int), np.ones(d, int), a[keep] + 2])
    dst = np.concatenate([[1], np.arange(2, d + 2), np.arange(2, d + 2), b[keep] + 2])
    order = np.lexsort((dst, src))
    src, dst = src[order].astype(np.int32), dst[order].astype(np.int32)
    n = d + 2
    indptr = np.concatenate([[0], np.cumsum(np.bincount(src, minlength=n))]).astype(np.int32)
    return kcjax.DAG(indptr, dst, src, np.arange(n, dtype=np.int32), n)


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize(("d", "p"), [(1500, 0.05), (9000, 0.004)])
def test_gpu_handles_big_candidate_sets(method, d, p):
    # Candidate sets in the block (> 1024) and list (> 8192) size classes.
    dag = _dag_with_a_big_task(d, p, seed=d)
    ks = [3, 4, 5, 6, 7]
    assert _count(dag, ks, method, "cuda") == _count(dag, ks, method, "cpu")


@pytest.mark.parametrize("method", ("kcminer", "static_l2", "pivot"))
@pytest.mark.parametrize(("d", "p"), [(80, 0.85), (130, 0.6), (250, 0.35), (600, 0.15)])
def test_gpu_splits_heavy_tasks(method, d, p):
    # KCMiner's heavy-task split: level-3 units at k = 7 (|C| >= 48) and
    # level-4 units with a saved engine level at k = 9 (|C| >= 96: not d = 80),
    # over single- and multi-word spaces; the engine's fused last level runs
    # up to 8 words a row (d = 250) and not beyond (d = 600). CPU pivot is the
    # reference.
    dag = _dag_with_a_big_task(d, p, seed=d)
    ks = list(range(3, 10))
    assert _count(dag, ks, method, "cuda") == _count(dag, ks, "pivot", "cpu")


@pytest.mark.parametrize("method", ("kcminer", "static_l2", "static_l1"))
@pytest.mark.parametrize("hint", ["true", "too_small", None])
@pytest.mark.parametrize(("n", "p"), [(400, 0.02), (250, 0.35)])
def test_gpu_max_degree_hint(n, p, hint, method):
    # The hint routes KCMiner's k = 4 to one list kernel when every candidate
    # set fits one word (the sparse graph), narrows the task sort, and at
    # k = 4, 5 sizes the solve kernels without waiting for the classes
    # (device bounds); a wrong hint (too small: the shallow route on the
    # dense graph, keys above it, solve kernels that must run no task and a
    # re-planned solve) must stay exact.
    dag = kcjax.orient(kcjax.Graph.from_networkx(nx.gnp_random_graph(n, p, seed=n)))
    max_degree = {"true": int(dag.max_out_degree()), "too_small": 3, None: None}[hint]
    for kmax in (4, 5, 6):
        want = np.asarray(kcjax.count_cliques_limbs(on_platform(dag, "cpu"), kmax, method=method))
        got = kcjax.count_cliques_limbs(
            on_platform(dag, "cuda"), kmax, method=method, max_degree=max_degree
        )
        np.testing.assert_array_equal(np.asarray(got), want)


@pytest.mark.parametrize("hint", ["true", "too_small"])
@pytest.mark.parametrize("explicit", [False, True])
def test_gpu_small_route(hint, explicit):
    # KCMiner from k = 5 on, with a hint <= 32, counts every task in one kernel
    # (count.cu, UseSmallRoute). A planted 30-clique fills one-word candidate
    # sets to the brim (|C| up to 28 under the degree order); -1 task ids are
    # padding and a repeated id counts twice. A hint below the true maximum
    # on a graph with larger sets makes the route skip tasks and flag them;
    # the general pipeline then recounts, exactly.
    base = nx.gnp_random_graph(600, 0.01, seed=3)
    if hint == "too_small":
        base.add_edges_from((a, b) for a in range(60) for b in range(a + 1, 60))
    else:
        base.add_edges_from((a, b) for a in range(30) for b in range(a + 1, 30))
    dag = kcjax.orient(kcjax.Graph.from_networkx(base))
    true_max = int(dag.max_out_degree())
    assert (true_max <= 32) == (hint == "true")
    max_degree = true_max if hint == "true" else 4
    tasks = None
    if explicit:
        ids = np.arange(dag.num_edges, dtype=np.int32)[::2]
        tasks = np.concatenate([ids, [-1, 5, -1]]).astype(np.int32)
    for kmax in (5, 6, 8):
        want = kcjax.count_cliques_limbs(on_platform(dag, "cpu"), kmax, tasks=tasks)
        got = kcjax.count_cliques_limbs(
            on_platform(dag, "cuda"), kmax, tasks=tasks, max_degree=max_degree
        )
        np.testing.assert_array_equal(np.asarray(got), np.asarray(want))


@pytest.mark.parametrize("name", SHARED_GRAPHS)
def test_gpu_matches_ground_truth(name, shared_graph):
    dag = kcjax.orient(shared_graph(name))
    truth = ground_truth()
    ks = list(range(3, 9))
    for method in ("kcminer", "pivot"):
        got = _count(dag, ks, method, "cuda")
        assert got == {k: truth.get((name, k), 0) for k in ks}, method


def _planted_random_dag(seed: int) -> kcjax.DAG:
    g = nx.gnp_random_graph(300, 0.12, seed=seed)
    rng = np.random.default_rng(seed)
    members = rng.choice(300, 30, replace=False).tolist()
    g.add_edges_from((a, b) for i, a in enumerate(members) for b in members[i + 1 :])
    return kcjax.orient(kcjax.Graph.from_networkx(g))


@pytest.mark.parametrize("method", ["kcminer", "round_robin", "pivot"])
def test_gpu_mesh_count_equals_cpu(monkeypatch, method):
    # count_cliques(mesh=...) on every GPU (the policy off): task rows dealt on
    # the devices, the planted clique's heaviest tasks split across them, the
    # max_degree hint of the eager sharded path; the pivot counter's roots;
    # every size at once, per-vertex counts and one matching query.

    monkeypatch.setattr("kcjax.cliques.sharded.MESH_MIN_WORK_PER_DEVICE", 0.0)
    monkeypatch.setattr("kcjax.cliques.sharded.MESH_MIN_PIVOT_COST_PER_DEVICE", 0.0)
    monkeypatch.setattr("kcjax.cliques.sharded.MESH_PIVOT_ROOT_SHARE_MARGIN", 0.0)
    dag = _planted_random_dag(5)
    mesh = jax.sharding.Mesh(np.array(jax.devices("cuda")), ("d",))
    ks = list(range(3, 9))
    gpu = on_platform(dag, "cuda")
    split = "round_robin" if method == "round_robin" else "balanced"
    counting = "kcminer" if method == "round_robin" else method
    got = kcjax.count_cliques(gpu, ks, method=counting, mesh=mesh, split=split)
    assert got == _count(dag, ks, "kcminer", "cpu")
    if method != "pivot":
        return
    with jax.default_device(jax.devices("cpu")[0]):
        cpu = on_platform(dag, "cpu")
        want_all = kcjax.count_all_cliques(cpu)
        want_local = kcjax.clique_counts_per_vertex(cpu, 6, method="pivot")
    assert kcjax.count_all_cliques(gpu, mesh=mesh) == want_all
    local = kcjax.clique_counts_per_vertex(gpu, 6, method="pivot", mesh=mesh)
    np.testing.assert_array_equal(local, want_local)
    src, dst = (np.asarray(a) for a in (dag.src, dag.indices))
    data = kcjax.LabeledGraph.from_edges(src, dst, np.arange(dag.num_nodes) % 3)
    path = kcjax.LabeledGraph.from_edges([0, 1, 2], [1, 2, 3], [0, 1, 2, 0])
    with jax.default_device(jax.devices("cpu")[0]):
        want = kcjax.count_embeddings(on_platform(data, "cpu"), on_platform(path, "cpu"))
    assert kcjax.count_embeddings(data, path, mesh=mesh) == want


@pytest.mark.parametrize("k", [3, 4, 6, 9])
def test_gpu_listing_equals_cpu(k):
    dag = _planted_random_dag(k)
    rows = {}
    for platform in ("cuda", "cpu"):
        with jax.default_device(jax.devices(platform)[0]):
            got = kcjax.list_cliques(on_platform(dag, platform), k)
        assert np.all(np.diff(got, axis=1) > 0)
        rows[platform] = set(map(tuple, got.tolist()))
        assert len(rows[platform]) == len(got)
    assert rows["cuda"] == rows["cpu"]


def _per_vertex(dag: kcjax.DAG, k: int, method: str, platform: str) -> np.ndarray:
    with jax.default_device(jax.devices(platform)[0]):
        return kcjax.clique_counts_per_vertex(
            on_platform(dag, platform), k, method=method, exact=True
        )


@pytest.mark.parametrize(("d", "p"), [(80, 0.85), (130, 0.6), (600, 0.15)])
def test_gpu_pivot_per_vertex_big_roots(d, p):
    # Roots with two-word rows in shared memory (d <= 128) and with rows in
    # the warp's global workspace (d > 128).
    dag = _dag_with_a_big_task(d, p, seed=d)
    for k in (3, 5, 8):
        want = _per_vertex(dag, k, "pivot", "cpu")
        np.testing.assert_array_equal(_per_vertex(dag, k, "pivot", "cuda"), want)


@pytest.mark.parametrize(("n", "k"), [(80, 40), (150, 20)])
def test_gpu_pivot_per_vertex_past_2_64(n, k):
    # Every vertex of K_n lies in C(n - 1, k - 1) > 2^64 k-cliques; K_150's
    # first root has 149 candidates (the global-memory path).
    dag = kcjax.orient(kcjax.Graph.from_networkx(nx.complete_graph(n)))
    got = _per_vertex(dag, k, "pivot", "cuda")
    assert got.tolist() == [math.comb(n - 1, k - 1)] * n


@pytest.mark.parametrize("name", SHARED_GRAPHS)
def test_gpu_per_vertex_on_shared_graphs(name, shared_graph):
    dag = kcjax.orient(shared_graph(name))
    truth = ground_truth()
    for k in (4, 6, 8):
        got = _per_vertex(dag, k, "pivot", "cuda")
        assert sum(got.tolist()) == k * truth.get((name, k), 0), k
        if k == 4:
            np.testing.assert_array_equal(got, _per_vertex(dag, k, "kcminer", "cuda"))


def test_gpu_listing_overflow_under_jit():
    dag = on_platform(_planted_random_dag(1), "cuda")
    total = _count(dag, 5, "kcminer", "cpu")
    fn = jax.jit(lambda d, cap: kcjax.list_cliques(d, 5, capacity=cap), static_argnums=1)
    rows, count, overflow = fn(dag, total - 10)
    assert kcjax.limbs_to_int(count) == total and bool(overflow)
    rows = np.asarray(rows)
    assert np.all(rows >= 0) and len(set(map(tuple, rows.tolist()))) == total - 10
    rows, count, overflow = fn(dag, total + 5)
    assert not bool(overflow) and np.all(np.asarray(rows)[total:] == -1)


def test_gpu_clique_number_of_com_dblp():
    path = DATA_DIR / "com-dblp.el.gz"
    if not path.exists():
        pytest.skip(f"{path} missing")
    graph = kcjax.load(path)
    omega, clique = kcjax.clique_number(graph)
    assert omega == 114 and len(clique) == 114
    indptr, indices = np.asarray(graph.indptr), np.asarray(graph.indices)
    for i, a in enumerate(clique.tolist()):
        assert set(clique[i + 1 :].tolist()) <= set(indices[indptr[a] : indptr[a + 1]].tolist())


def _maximal_batches(graph, platform, order, batch):
    return [
        (v.tolist(), s.tolist())
        for v, s in kcjax.iter_maximal_cliques(graph, batch, order=order, platform=platform)
    ]


@pytest.mark.parametrize("seed", range(3))
def test_gpu_maximal_cliques_equal_cpu(seed):
    """The CUDA twin of kcjax_clique_maximal returns the CPU handler's cliques in the
    same order (batches, retries and single-root batches included) and the same
    per-vertex largest cliques; both equal networkx's."""
    rng = np.random.default_rng(seed)
    g = nx.gnp_random_graph(400, 0.03, seed=seed)
    for _ in range(6):  # overlapping dense parts: big P and X sets
        members = rng.choice(400, 40, replace=False).tolist()
        g.add_edges_from(
            (a, b) for i, a in enumerate(members) for b in members[i + 1 :] if rng.random() < 0.8
        )
    g.add_nodes_from(range(400, 405))  # isolated vertices
    graph = kcjax.Graph.from_networkx(g)
    want = sorted(tuple(sorted(c)) for c in nx.find_cliques(g))
    for order in ("degree", "degeneracy"):
        for batch in (64, 1 << 20):
            cpu = _maximal_batches(graph, "cpu", order, batch)
            assert _maximal_batches(graph, "gpu", order, batch) == cpu
            got = sorted(
                tuple(sorted(v[a : a + n]))
                for v, s in cpu
                for a, n in zip(np.cumsum([0, *s[:-1]]).tolist(), s, strict=True)
            )
            assert got == want
        best = kcjax.node_clique_numbers(graph, order=order, platform="gpu")
        assert best.tolist() == kcjax.node_clique_numbers(graph, order=order).tolist()


def test_gpu_maximal_cliques_equal_cpu_on_shared_graph():
    path = DATA_DIR / "ca-AstroPh.el.gz"
    if not path.exists():
        pytest.skip("../shared/data/graphs is absent")
    graph = kcjax.load(path)
    assert _maximal_batches(graph, "gpu", "degree", 1 << 18) == _maximal_batches(
        graph, "cpu", "degree", 1 << 18
    )
    assert (
        kcjax.node_clique_numbers(graph, order="degree", platform="gpu").tolist()
        == kcjax.node_clique_numbers(graph, order="degree").tolist()
    )


def test_gpu_graph_maximal_cliques_on_the_host():
    """The maximal-clique search has a CPU handler only: a graph on the GPU is searched
    on the host's CPU device, with networkx's cliques."""
    g = nx.gnp_random_graph(120, 0.2, seed=4)
    graph = kcjax.Graph.from_networkx(g)
    assert graph.indices.devices() == {jax.devices()[0]}
    got = sorted(
        tuple(sorted(verts[a : a + s].tolist()))
        for verts, sizes in kcjax.iter_maximal_cliques(graph)
        for a, s in zip(np.concatenate([[0], np.cumsum(sizes)[:-1]]), sizes, strict=True)
    )
    assert got == sorted(tuple(sorted(c)) for c in nx.find_cliques(g))
    ncn = nx.node_clique_number(g)
    assert kcjax.node_clique_numbers(graph).tolist() == [ncn[v] for v in range(len(g))]
