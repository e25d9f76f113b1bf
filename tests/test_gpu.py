"""CUDA handlers: equal to the CPU handlers and to ground truth (skipped without a GPU)."""

from __future__ import annotations

import jax
import networkx as nx
import numpy as np
import pytest
from conftest import has_gpu
from reference import DATA_DIR, ground_truth

import kcjax
from kcjax import _ffi

pytestmark = [
    pytest.mark.gpu,
    pytest.mark.skipif(not has_gpu(), reason="no CUDA device"),
]

METHODS = ("pivot", *kcjax.ENUMERATION_METHODS)
SHARED = (
    "email-Enron", "ca-AstroPh", "soc-Epinions1", "wiki-Vote",
    "ego-Facebook", "ca-CondMat", "cit-HepTh", "com-amazon", "com-dblp",
)


def _on(dag: kcjax.DAG, platform: str) -> kcjax.DAG:
    return jax.device_put(dag, jax.devices(platform)[0])


def _count(dag: kcjax.DAG, ks, method: str, platform: str) -> dict[int, int]:
    with jax.default_device(jax.devices(platform)[0]):
        return kcjax.count_cliques(_on(dag, platform), ks, method=method)


def test_extension_has_cuda_handlers():
    assert _ffi.built_with_cuda()


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("seed", range(3))
def test_gpu_equals_cpu_on_random_graphs(seed, method):
    g = nx.gnp_random_graph(300, 0.12, seed=seed)
    # Plant a dense part so deep levels and big candidate sets occur.
    rng = np.random.default_rng(seed)
    members = rng.choice(300, 40, replace=False).tolist()
    g.add_edges_from((a, b) for i, a in enumerate(members) for b in members[i + 1 :] if rng.random() < 0.9)
    dag = kcjax.orient(kcjax.Graph.from_networkx(g))
    ks = list(range(1, 11))
    assert _count(dag, ks, method, "cuda") == _count(dag, ks, method, "cpu")


@pytest.mark.parametrize("method", METHODS)
def test_gpu_handles_a_big_candidate_set(method):
    # K_40 plus a hub adjacent to 1500 leaves and to the clique: tasks with
    # candidate sets in every size class.
    n_clique, n_leaves = 40, 1500
    src, dst = np.triu_indices(n_clique, 1)
    hub = n_clique + n_leaves
    leaf_src = np.arange(n_clique, n_clique + n_leaves)
    src = np.concatenate([src, leaf_src, np.full(n_clique, hub)])
    dst = np.concatenate([dst, np.full(n_leaves, hub), np.arange(n_clique)])
    dag = kcjax.orient(kcjax.Graph.from_edges(src, dst), order="degeneracy")
    ks = [3, 5, 9, 20, 41, 42]
    assert _count(dag, ks, method, "cuda") == _count(dag, ks, method, "cpu")


@pytest.mark.parametrize("name", SHARED)
def test_gpu_matches_ground_truth(name):
    path = DATA_DIR / f"{name}.el.gz"
    if not path.exists():
        pytest.skip(f"{path} missing")
    truth = ground_truth()
    dag = kcjax.orient(kcjax.load(path))
    ks = list(range(3, 9))
    for method in ("kcminer", "pivot"):
        got = _count(dag, ks, method, "cuda")
        assert got == {k: truth[(name, k)] for k in ks}, method
