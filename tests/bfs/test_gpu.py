"""CPU == CUDA for kcjax.bfs: distances exactly, parents by validation (any valid
BFS parent may differ). Skipped without a GPU.

The "cluster" method is forced here (method="cluster", so it runs where "auto"
would not pick it) with each cluster size through ``cluster`` (1: one block,
its claims in local shared memory; 2, 3, 8: distributed next-frontier words,
3 not dividing the bitmap; 16: the non-portable size; -1: the policy's), in
every direction, on long paths (many levels and buffer rotations), hubs above
the block-walk degree, disconnected graphs, graphs of fewer than 32 vertices,
isolated and invalid sources, many sources in one launch (one cluster each),
directed CSR (top-down only: bottom-up reads a CSR row as in-neighbours), a
graph too large for any cluster (it runs "enterprise"), and the shared graphs
against their ground truth."""

from __future__ import annotations

import functools

import jax
import jax.numpy as jnp
import numpy as np
import pytest
import scipy.sparse as sp
from reference import DATA_DIR, has_gpu, on_platform
from scipy.sparse import csgraph

import kcjax
from kcjax.experimental import BFS_BATCHES as BATCHES
from kcjax.experimental import BFS_DIRECTIONS as DIRECTION_CODES
from kcjax.experimental import BFS_NATIVE_METHODS as NATIVE_METHODS
from kcjax.experimental import bfs_native

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
        # 3000 levels, and a hub of each class (middle, large) hanging off the path.
        "path_hubs": _path_with_hubs(3000, (100, 1000)),
        # Fewer vertices than one bitmap word: a triangle, a pendant, isolated ones.
        "tiny": kcjax.Graph.from_edges(np.array([0, 1, 2, 2]), np.array([1, 2, 0, 3]), 7),
    }
    return out


def _path_with_hubs(length: int, hub_degrees: tuple[int, ...]) -> kcjax.Graph:
    src = list(range(length - 1))
    dst = list(range(1, length))
    n = length
    for at, deg in zip((length // 3, 2 * length // 3), hub_degrees, strict=False):
        src += [at] * deg
        dst += list(range(n, n + deg))
        n += deg
    return kcjax.Graph.from_edges(np.array(src), np.array(dst), num_nodes=n + 5)  # 5 isolated


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


def _truth_sources(name: str) -> list[int]:
    truth = DATA_DIR.parent / "bfs" / "bfs_truth.tsv"
    if not truth.exists():
        return []
    rows = (line.split("\t") for line in truth.read_text().splitlines()[1:])
    return [int(r[1]) for r in rows if r[0] == name]


@pytest.mark.parametrize("name", ["com-dblp", "soc-Epinions1", "ego-Facebook", "com-amazon"])
def test_shared_graphs(name, shared_graph):
    graph = shared_graph(name)
    sources = np.array(_sources(graph, 5).tolist() + _truth_sources(name), np.int32)
    for method in NATIVE_METHODS:
        _compare(graph, sources, method=method, batch="each")
    _compare(graph, sources)
    assert DATA_DIR.exists()


def _native(graph_or_csr, sources: np.ndarray, platform: str, **kw):
    indptr, indices = graph_or_csr
    dev = jax.devices(platform)[0]
    args = [jax.device_put(np.asarray(a, np.int32), dev) for a in (indptr, indices, sources)]
    dist, par = bfs_native(*args, **kw)
    return np.asarray(dist), np.asarray(par)


def _compare_native(graph: kcjax.Graph, sources: np.ndarray, **kw) -> np.ndarray:
    csr = (np.asarray(graph.indptr), np.asarray(graph.indices))
    d_cpu, _ = _native(csr, sources, "cpu", **kw)
    d_gpu, p_gpu = _native(csr, sources, "cuda", **kw)
    np.testing.assert_array_equal(d_gpu, d_cpu)
    for i, s in enumerate(sources):
        if 0 <= s < graph.num_nodes:
            kcjax.validate_bfs_tree(graph, int(s), (d_gpu[i], p_gpu[i]))
        else:
            assert (d_gpu[i] == -1).all() and (p_gpu[i] == -1).all()
    return d_gpu


CLUSTERS = (1, 2, 3, 8, 16, -1)


def _cluster(direction: str, cluster: int, batch: str = "each") -> dict:
    return {
        "method": NATIVE_METHODS["cluster"],
        "direction": DIRECTION_CODES[direction],
        "batch": BATCHES[batch],
        "parents": True,
        "cluster": cluster,
    }


@pytest.mark.parametrize("name", sorted(GRAPHS))
@pytest.mark.parametrize("cluster", CLUSTERS)
@pytest.mark.parametrize("direction", DIRECTIONS)
def test_cluster_paths(name, cluster, direction):
    graph = GRAPHS[name]
    _compare_native(graph, _sources(graph), **_cluster(direction, cluster))


def _grid_auto(direction: str, parents: bool = True) -> dict:
    """ "auto" forced onto the grid kernel (cluster=0): its bitmap variant."""
    return {
        "method": NATIVE_METHODS["auto"],
        "direction": DIRECTION_CODES[direction],
        "batch": BATCHES["each"],
        "parents": parents,
        "cluster": 0,
    }


@pytest.mark.parametrize("name", sorted(GRAPHS))
@pytest.mark.parametrize("direction", DIRECTIONS)
def test_grid_auto_paths(name, direction):
    """ "auto" on the grid below the bitmaps' size bound: long paths, the extreme-degree
    hub, fewer vertices than a word; several sources in one launch, invalid ones."""
    graph = GRAPHS[name]
    n = graph.num_nodes
    sources = np.concatenate([_sources(graph), np.array([-1, n], np.int32)])
    dist = _compare_native(graph, sources, **_grid_auto(direction))
    assert (dist[-2:] == -1).all()


#: BfsPolicy::kGridBitmapMinVertices: from here "auto" on the grid runs its bitmap variant.
BITMAP_MIN_VERTICES = 1 << 20


@pytest.mark.parametrize("name", ["kron12", "rmat12", "huge_star", "tiny"])
@pytest.mark.parametrize("direction", DIRECTIONS)
def test_grid_auto_bitmaps(name, direction):
    """The bitmap variant (bottom-up by bitmap words, Beamer's rule): the graph among
    2^20 + 7 vertices (the rest isolated), sources at both ends of the id range and
    several in one launch (the bitmaps are reset per source)."""
    small = GRAPHS[name]
    src, dst = (np.asarray(a) for a in small.edges())
    n = BITMAP_MIN_VERTICES + 7
    graph = kcjax.Graph.from_edges(src, dst, num_nodes=n)
    sources = np.concatenate([_sources(small, 3), np.array([n - 1, -1], np.int32)])
    dist = _compare_native(graph, sources, **_grid_auto(direction))
    assert (dist[-1] == -1).all() and (dist[-2] >= 0).sum() == 1


@pytest.mark.parametrize("parents", [True, False])
def test_grid_auto_kron20(parents):
    """The bitmap variant on a Graph500 graph (scale 20, drawn on the device): bottom-up
    levels whose first batches leave many vertices to the warps' pending searches."""
    graph = kcjax.generators.kronecker(20, 16, seed=1, on_device=True)
    sources = _sources(graph, 3)
    _compare(graph, sources, batch="each", parents=parents)  # prepared by kcjax.bfs itself
    prepared = kcjax.prepare_bfs(on_platform(graph, "cuda"))
    run = jax.jit(lambda g, s: kcjax.bfs(g, sources=s, batch="each", parents=parents))
    got = run(prepared, jnp.asarray(sources))
    cpu = kcjax.bfs(on_platform(graph, "cpu"), sources=sources, batch="each", parents=False)
    np.testing.assert_array_equal(np.asarray(got.distances), np.asarray(cpu.distances))
    if parents:
        for i, s in enumerate(sources):
            kcjax.validate_bfs_tree(graph, int(s), (got.distances[i], got.parents[i]))


@pytest.mark.parametrize("direction", ["auto", "bottom_up"])
def test_grid_auto_flat_rmat20(direction):
    """The bitmap variant on a flatter R-MAT graph of 2^20 vertices (a, b, c = 0.45, 0.15,
    0.15, edge factor 4): few isolated vertices, so both words of a warp's round leave
    most of their vertices to the pending list (a lost entry once made distances wrong)."""
    graph = kcjax.generators.rmat(20, 4, 0.45, 0.15, 0.15, seed=3, on_device=True)
    _compare(graph, _sources(graph, 3), direction=direction, batch="each", parents=False)


def test_grid_auto_large_graph():
    """Above the cluster bound "auto" runs the grid kernel by itself (kron16: 1.8 M CSR
    entries, below the bitmaps' bound), every direction, parents and not."""
    graph = kcjax.generators.kronecker(16, 16, seed=2, on_device=True)
    assert graph.indices.shape[0] > 1 << 20
    for direction in DIRECTIONS:
        for parents in (True, False):
            _compare(graph, _sources(graph, 4), direction=direction, batch="each", parents=parents)


@pytest.mark.parametrize("cluster", CLUSTERS)
def test_cluster_odd_sources(cluster):
    """Invalid, isolated and repeated sources in one call (one cluster each)."""
    graph = GRAPHS["path_hubs"]
    n = graph.num_nodes
    sources = np.array([-1, n - 1, 0, n, 0, 1500, 2 * n], np.int32)
    dist = _compare_native(graph, sources, **_cluster("auto", cluster))
    assert (dist[0] == -1).all() and (dist[3] == -1).all() and (dist[6] == -1).all()
    assert (dist[1] >= 0).sum() == 1  # an isolated vertex reaches itself only
    np.testing.assert_array_equal(dist[2], dist[4])


@pytest.mark.parametrize("parents", [True, False])
def test_cluster_many_sources(parents):
    """300 sources of batch "each" in one launch: a cluster per source."""
    graph = GRAPHS["kron12"]
    _compare(graph, _sources(graph, 300), method="cluster", batch="each", parents=parents)


def test_cluster_too_large_runs_enterprise():
    """Bitmaps of 2^21 vertices fit no cluster's shared memory: "cluster" and
    "auto" run the grid kernel, with the same distances."""
    rng = np.random.default_rng(5)
    n = 1 << 21
    # A giant component on 4000 low ids with 5000 pendants anywhere in [0, n).
    src = rng.integers(0, 4000, 25_000)
    dst = np.concatenate([rng.integers(0, 4000, 20_000), rng.integers(0, n, 5000)])
    graph = kcjax.Graph.from_edges(src, dst, n)
    sources = np.array([0, 17, n - 1], np.int32)
    for method in ("cluster", "auto"):
        _compare(graph, sources, method=method, batch="each")


def _truth_rows() -> dict[str, list[tuple[int, int, int, int]]]:
    """{graph: [(source, reached, depth, dist_sum)]} from bfs_truth.tsv."""
    truth = DATA_DIR.parent / "bfs" / "bfs_truth.tsv"
    rows: dict[str, list] = {}
    if truth.exists():
        for line in truth.read_text().splitlines()[1:]:
            graph, source, reached, depth, dist_sum = line.split("\t")[:5]
            row = (int(source), int(reached), int(depth), int(dist_sum))
            rows.setdefault(graph, []).append(row)
    return rows


SMALL_SHARED = (
    "ca-AstroPh",
    "ca-CondMat",
    "cit-HepTh",
    "ego-Facebook",
    "email-Enron",
    "soc-Epinions1",
    "wiki-Vote",
    "com-dblp",
)


@pytest.mark.parametrize("name", SMALL_SHARED)
@pytest.mark.parametrize("cluster", [1, 4, -1])
def test_cluster_shared_graphs(name, cluster, shared_graph):
    """The forced cluster path on the shared graphs: == CPU, valid parents, and
    each ground-truth source's reached count, depth and distance sum."""
    graph = shared_graph(name)
    rows = _truth_rows().get(name, [])
    sources = np.array([r[0] for r in rows] + _sources(graph, 3).tolist(), np.int32)
    dist = _compare_native(graph, sources, **_cluster("auto", cluster))
    for i, (_, reached, depth, dist_sum) in enumerate(rows):
        row = dist[i][dist[i] >= 0]
        assert (row.size, int(row.max()), int(row.sum())) == (reached, depth, dist_sum)


@functools.cache
def _directed() -> tuple[np.ndarray, np.ndarray, int]:
    """A random directed CSR (out-neighbours) with a high out-degree vertex."""
    rng = np.random.default_rng(7)
    n = 5000
    src = np.concatenate([rng.integers(0, n, 12_000), np.zeros(2000, np.int64)])
    dst = np.concatenate([rng.integers(0, n, 12_000), rng.integers(0, n, 2000)])
    a = sp.csr_matrix((np.ones(src.size), (src, dst)), shape=(n, n))
    a.sum_duplicates()
    a.setdiag(0)
    a.eliminate_zeros()
    return a.indptr.astype(np.int32), a.indices.astype(np.int32), n


@pytest.mark.parametrize("method", NATIVE_METHODS)
@pytest.mark.parametrize("cluster", [1, 3, -1])
def test_directed_top_down(method, cluster):
    indptr, indices, n = _directed()
    sources = np.array([0, 1, 17, 4999], np.int32)
    kw = {
        "method": NATIVE_METHODS[method],
        "direction": DIRECTION_CODES["top_down"],
        "batch": BATCHES["each"],
        "parents": False,
        "cluster": cluster,
    }
    d_cpu, _ = _native((indptr, indices), sources, "cpu", **kw)
    d_gpu, _ = _native((indptr, indices), sources, "cuda", **kw)
    a = sp.csr_matrix((np.ones(indices.size), indices, indptr), shape=(n, n))
    ref = csgraph.shortest_path(a, directed=True, unweighted=True, indices=sources)
    ref = np.where(np.isinf(ref), -1, ref).astype(np.int32)
    np.testing.assert_array_equal(d_cpu, ref)
    np.testing.assert_array_equal(d_gpu, ref)
