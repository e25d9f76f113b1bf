"""CPU == CUDA for kcjax.bfs: distances exactly, parents by validation (any valid
BFS parent may differ). Skipped without a GPU."""

from __future__ import annotations

import jax
import numpy as np
import pytest
from reference import DATA_DIR, has_gpu, on_platform

import kcjax
from kcjax.traversal.kernels import NATIVE_METHODS

pytestmark = pytest.mark.skipif(not has_gpu(), reason="needs a CUDA device")

DIRECTIONS = ("auto", "top_down", "bottom_up")


def _graphs() -> dict[str, kcjax.Graph]:
    gens = kcjax.generators
    out = {
        "kron12": gens.kronecker(12, 16, seed=1),
        "rmat12": gens.rmat_graph500(12, 16, seed=2),
        "gnp_sparse": gens.erdos_renyi(3000, 0.0008, seed=3),  # many components, long paths
        # A hub above the extreme class (> 65,536 neighbours) beside small pieces.
        "huge_star": gens.disjoint_union(gens.star(70_000), gens.erdos_renyi(500, 0.01, seed=4)),
    }
    return out


GRAPHS = _graphs()


def _sources(graph: kcjax.Graph, count: int = 6) -> np.ndarray:
    deg = np.asarray(graph.degrees())
    rng = np.random.default_rng(0)
    picks = [int(np.argmax(deg))] + rng.integers(0, graph.num_nodes, count - 1).tolist()
    return np.array(picks, np.int32)


def _compare(graph: kcjax.Graph, sources: np.ndarray, **kw) -> None:
    cpu = kcjax.bfs(on_platform(graph, "cpu"), sources=sources, **kw)
    gpu = kcjax.bfs(on_platform(graph, "cuda"), sources=sources, **kw)
    np.testing.assert_array_equal(np.asarray(gpu.distances), np.asarray(cpu.distances))
    np.testing.assert_array_equal(np.asarray(gpu.depth), np.asarray(cpu.depth))
    if gpu.parents is not None:
        for i, s in enumerate(sources):
            kcjax.validate_bfs_tree(graph, int(s), (gpu.distances[i], gpu.parents[i]))


@pytest.mark.parametrize("name", sorted(GRAPHS))
@pytest.mark.parametrize("method", NATIVE_METHODS)
@pytest.mark.parametrize("direction", DIRECTIONS)
def test_cpu_equals_cuda_each(name, method, direction):
    graph = GRAPHS[name]
    _compare(graph, _sources(graph), method=method, direction=direction, batch="each")


@pytest.mark.parametrize("name", sorted(GRAPHS))
@pytest.mark.parametrize("parents", [True, False])
def test_cpu_equals_cuda_bitset(name, parents):
    graph = GRAPHS[name]
    _compare(graph, _sources(graph, 130), parents=parents)  # three 64-source groups


@pytest.mark.parametrize("tau", [0, 8, 1 << 20])
def test_hub_threshold(tau):
    graph = GRAPHS["kron12"]
    _compare(graph, _sources(graph), batch="each", hub_tau=tau)


def test_jit_vmap_and_bad_traced_source_on_gpu():
    graph = on_platform(GRAPHS["kron12"], "cuda")
    src = _sources(GRAPHS["kron12"])
    ref = kcjax.bfs(on_platform(GRAPHS["kron12"], "cpu"), sources=src).distances
    mapped = jax.jit(jax.vmap(lambda s: kcjax.bfs(graph, s).distances))(src)
    np.testing.assert_array_equal(np.asarray(mapped), np.asarray(ref))
    bad = jax.jit(lambda s: kcjax.bfs(graph, sources=s).distances)(np.array([-1, 5000], np.int32))
    np.testing.assert_array_equal(np.asarray(bad), -1)


@pytest.mark.parametrize("name", ["com-dblp", "soc-Epinions1", "ego-Facebook"])
def test_shared_graphs(name, shared_graph):
    graph = shared_graph(name)
    sources = _sources(graph, 5)
    for method in NATIVE_METHODS:
        _compare(graph, sources, method=method, batch="each")
    _compare(graph, sources)
    assert DATA_DIR.exists()
