"""CUDA handler of kcjax_truss: equal to the CPU handler and to ground truth (needs a GPU)."""

from __future__ import annotations

import jax
import numpy as np
import pytest
from reference import DATA_DIR, SHARED_GRAPHS, has_gpu, on_platform
from reference.truss import (
    TRUSS_TSV,
    hindex_call,
    summary,
    truss_rows,
    trussness_networkx,
    two_hubs,
)

import kcjax
from kcjax.experimental import truss_store_entries

pytestmark = [
    pytest.mark.gpu,
    pytest.mark.skipif(not has_gpu(), reason="no CUDA device"),
]

NATIVE = ("dag", "edge", "vertex", "auto")


def _run(fn, graph: kcjax.Graph, platform: str) -> np.ndarray:
    with jax.default_device(jax.devices(platform)[0]):
        return np.asarray(fn(on_platform(graph, platform)))


RANDOM = {
    "rmat10": lambda: kcjax.generators.rmat(10, 16, seed=1),
    "rmat12": lambda: kcjax.generators.rmat(12, 16, seed=2),
    "cliques": lambda: kcjax.generators.planted_cliques(3000, 0.004, [40, 25, 9], seed=3),
    # Edge {0, 1}: 3000 triangles, trussness 52: its warp's histogram window moves down
    # 11 times (TrussPolicy::kHIndexWindow).
    "hubs": lambda: two_hubs(3000, 50),
    # A 120-clique: every edge's lists exceed TrussPolicy::kLaneList (chunked frontier
    # edges, one round removing 7140 edges at the last level), beside a sparse part.
    "bigclique": lambda: kcjax.generators.disjoint_union(
        kcjax.generators.complete(120), kcjax.generators.rmat(11, 8, seed=6)
    ),
}


@pytest.mark.parametrize("name", sorted(RANDOM))
@pytest.mark.parametrize("method", NATIVE)
def test_gpu_equals_cpu_random(name, method):
    graph = RANDOM[name]()
    k_max = int(_run(kcjax.truss_numbers, graph, "cpu").max(initial=2))
    fns = [
        lambda g: kcjax.edge_support(g, method=method),
        lambda g: kcjax.truss_numbers(g, method=method),  # the h-index rounds
        lambda g: kcjax.truss_numbers(g, method=method, algorithm="peel"),
        lambda g: kcjax.k_truss_mask(g, 5, method=method, prefilter=False),
    ]
    # With the prefilter: the listed path, its recount step and the peeling from the list
    # (k_max: often no round at all; k_max + 1: an empty truss).
    for k in sorted({4, 5, k_max, k_max + 1}):
        fns.append(lambda g, k=k: kcjax.k_truss_mask(g, k, method=method))
    for fn in fns:
        np.testing.assert_array_equal(_run(fn, graph, "cuda"), _run(fn, graph, "cpu"))


@pytest.mark.parametrize("name", sorted(RANDOM))
def test_gpu_small_k_one_pass(name):
    """k <= 3 takes the one-pass path (no supports, no peeling): eager ints and a
    traced k through one executable that also serves k >= 4."""
    graph = RANDOM[name]()
    for k in (2, 3):
        for prefilter in (True, False):

            def fn(g, k=k, p=prefilter):
                return kcjax.k_truss_mask(g, k, prefilter=p)

            np.testing.assert_array_equal(_run(fn, graph, "cuda"), _run(fn, graph, "cpu"))
    static = jax.jit(lambda g: kcjax.k_truss_mask(g, 3))  # the one-pass target under jit
    np.testing.assert_array_equal(_run(static, graph, "cuda"), _run(static, graph, "cpu"))
    traced = jax.jit(lambda g, k: kcjax.k_truss_mask(g, k))
    for k in (2, 3, 4, 6):
        got = _run(lambda g, k=k: traced(g, np.int32(k)), graph, "cuda")
        want = _run(lambda g, k=k: kcjax.k_truss_mask(g, k), graph, "cpu")
        np.testing.assert_array_equal(got, want, err_msg=f"k={k}")


@pytest.mark.parametrize("name", sorted(RANDOM))
def test_gpu_hindex_store_layouts(name):
    """The h-index's two store layouts give the CPU's trussness: slots by the degree
    bound (store_entries: no support pass, no host sync) and slots by the supports of
    every support method (store_entries -1: the store's size read back). A
    store_entries below the bound gives -1 for every edge (the CPU rejects it)."""
    graph = RANDOM[name]()
    bound = truss_store_entries(graph)
    want = _run(kcjax.truss_numbers, graph, "cpu")
    calls = [(method, -1) for method in NATIVE] + [("dag", bound), ("dag", bound + 7)]
    for method, entries in calls:
        got = _run(lambda g, m=method, s=entries: hindex_call(g, s, m), graph, "cuda")
        np.testing.assert_array_equal(got, want, err_msg=f"{method} {entries}")
    short = _run(lambda g: hindex_call(g, bound - 1), graph, "cuda")
    np.testing.assert_array_equal(short, np.full_like(want, -1))


# Graphs whose decompositions end in a long asynchronous tail (many queued edges
# settling by pushes from warps running at once), where a race would show.
REPEAT_SHARED = ("ego-Facebook", "cit-HepTh")


@pytest.mark.parametrize("name", [*sorted(RANDOM), *REPEAT_SHARED])
def test_gpu_hindex_repeatable(name):
    """The h-index decomposition's asynchronous tail updates edges concurrently, in no
    fixed order; its fixed point is unique, so every run must give the CPU's trussness."""
    if name in RANDOM:
        graph = RANDOM[name]()
    else:
        path = DATA_DIR / f"{name}.el.gz"
        if not path.exists():
            pytest.skip("shared data absent")
        graph = kcjax.load(path)
    want = _run(kcjax.truss_numbers, graph, "cpu")
    on_gpu = on_platform(graph, "cuda")
    with jax.default_device(jax.devices("cuda")[0]):
        runs = [kcjax.truss_numbers(on_gpu) for _ in range(20)]
    for i, got in enumerate(runs):
        np.testing.assert_array_equal(np.asarray(got), want, err_msg=f"run {i}")


def test_gpu_matches_networkx_and_dense():
    graph = kcjax.generators.rmat(8, 8, seed=4)
    want = trussness_networkx(graph)
    for method in (*NATIVE, "dense"):
        for algorithm in ("hindex", "peel"):
            got = _run(
                lambda g, m=method, a=algorithm: kcjax.truss_numbers(g, method=m, algorithm=a),
                graph,
                "cuda",
            )
            np.testing.assert_array_equal(got, want)


def test_gpu_jit():
    graph = kcjax.generators.rmat(9, 8, seed=5)
    fn = jax.jit(lambda g: kcjax.truss_numbers(g))
    np.testing.assert_array_equal(_run(fn, graph, "cuda"), trussness_networkx(graph))


@pytest.mark.parametrize("name", SHARED_GRAPHS)
def test_gpu_shared_ground_truth(name):
    """Every method against the shared ground truth (decompositions by the h-index
    rounds, and by peeling with the DAG pass); k = 3, k_max and k_max + 1 masks with
    and without the prefilter."""
    path = DATA_DIR / f"{name}.el.gz"
    if not path.exists() or not TRUSS_TSV.exists():
        pytest.skip("shared data absent")
    graph = kcjax.load(path)
    rows = truss_rows()[name]
    src, dst = (np.asarray(a) for a in graph.edges())
    k_max = max(rows) - 1
    decompositions = [(m, "hindex") for m in NATIVE] + [("dag", "peel")]
    for method, algorithm in decompositions:
        truss = _run(
            lambda g, m=method, a=algorithm: kcjax.truss_numbers(g, method=m, algorithm=a),
            graph,
            "cuda",
        )
        for k, want in rows.items():
            keep = truss >= k
            assert summary(src[keep], dst[keep]) == want, (name, method, algorithm, k)
        for k in (3, k_max, k_max + 1):
            for prefilter in (True, False):
                mask = _run(
                    lambda g, m=method, k=k, p=prefilter: kcjax.k_truss_mask(
                        g, k, method=m, prefilter=p
                    ),
                    graph,
                    "cuda",
                )
                assert summary(src[mask], dst[mask]) == rows[k], (name, method, k, prefilter)
