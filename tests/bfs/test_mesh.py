"""kcjax.bfs over a mesh (native level steps, 1-D vertex partition; and the pure-JAX
baseline, method="dense" or bfs_sharded) and Kronecker graphs generated on a mesh.

Distances are checked against scipy's BFS and the single-device kcjax.bfs, parents by
Graph500 validation. Tests named ``test_multidevice_*`` need 4 devices: in a 1-device
run tests/test_multidevice.py runs them in a child pytest on 4 forced host CPU
devices (on 1, 2 and 4 of them). Tests named ``test_gpu_*`` need CUDA: the
level steps' CPU and CUDA handlers agree bit for bit, and the traversal over every
visible GPU (up to 4) gives scipy's distances.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import warnings
from pathlib import Path

import jax
import jax.numpy as jnp
import networkx as nx
import numpy as np
import pytest
import scipy.sparse as sp
from reference import FORCED_DEVICES, has_gpu, multidevice
from scipy.sparse import csgraph

import kcjax
from kcjax import experimental

KRON = (0.57, 0.19, 0.19)
WORKER = Path(__file__).resolve().parent / "_mesh_worker.py"

gpu = pytest.mark.skipif(not has_gpu(), reason="needs a CUDA device")


def _scipy_distances(graph: kcjax.Graph, sources: np.ndarray) -> np.ndarray:
    n = graph.num_nodes
    indptr, indices = np.asarray(graph.indptr), np.asarray(graph.indices)
    a = sp.csr_matrix((np.ones(len(indices)), indices, indptr), shape=(n, n))
    d = csgraph.shortest_path(a, method="D", unweighted=True, indices=sources)
    return np.where(np.isinf(d), -1, d).astype(np.int32).reshape(len(sources), n)


def _check(graph: kcjax.Graph, out: kcjax.BFSResult, sources: np.ndarray) -> None:
    dist = np.asarray(out.distances)
    np.testing.assert_array_equal(dist, _scipy_distances(graph, sources))
    np.testing.assert_array_equal(out.depth, dist.max(axis=-1, initial=-1))
    for i, s in enumerate(sources):
        kcjax.validate_bfs_tree(graph, int(s), (dist[i], np.asarray(out.parents[i])))


def _random_graph(seed: int) -> kcjax.Graph:
    g = nx.gnp_random_graph(150, 0.015, seed=seed)
    g.add_edges_from((150 + i, 151 + i) for i in range(20))  # a long path: many levels
    g.add_edges_from((0, 200 + i) for i in range(60))  # a hub
    edges = np.array(list(g.edges()), np.int64)
    return kcjax.Graph.from_edges(edges[:, 0], edges[:, 1], 290)  # 260.. isolated


def _host_kronecker(scale: int, edge_factor: int, seed: int) -> kcjax.Graph:
    m = edge_factor << scale
    src, dst = experimental.kronecker_edges(0, m, scale, seed, KRON, np)
    return kcjax.Graph.from_edges(src.astype(np.int64), dst.astype(np.int64), 1 << scale)


def _meshes() -> list[jax.sharding.Mesh]:
    return [jax.make_mesh((k,), ("v",), devices=jax.devices()[:k]) for k in (1, 2, 4)]


def test_one_device_mesh_and_errors():
    mesh = jax.make_mesh((1,), ("v",), devices=jax.devices()[:1])
    graph = _random_graph(3)
    sources = np.array([0, 150, 175, 289], np.int32)
    _check(graph, kcjax.bfs(graph, sources=sources, mesh=mesh), sources)
    _check(graph, kcjax.bfs_sharded(graph, sources, mesh), sources)
    split = kcjax.shard_graph(graph, mesh)
    for direction in ("auto", "top_down", "bottom_up"):  # the level steps on one device
        steps = experimental.bfs_mesh(split, sources, direction=direction, one_device="steps")
        out = kcjax.BFSResult(*steps)
        _check(graph, out, sources)
    for per_read in (1, 3):  # any number of levels between the loop's reads
        steps = experimental.bfs_mesh(
            split, sources, direction="auto", one_device="steps", levels_per_read=per_read
        )
        _check(graph, kcjax.BFSResult(*steps), sources)
    with pytest.raises(ValueError, match="levels_per_read"):
        experimental.bfs_mesh(split, sources, direction="auto", levels_per_read=0)
    one = kcjax.bfs(graph, 5, mesh=mesh)
    assert one.distances.shape == (graph.num_nodes,) and int(one.depth) >= 1
    assert kcjax.bfs(graph, 5, mesh=mesh, parents=False).parents is None
    assert kcjax.shard_graph(graph, mesh) is kcjax.shard_graph(graph, mesh)  # memoized
    with pytest.raises(ValueError, match=r"\[0, 290\)"):
        kcjax.bfs(graph, 290, mesh=mesh)
    with pytest.raises(ValueError, match="'auto' or 'dense'"):
        kcjax.bfs(graph, 0, mesh=mesh, method="enterprise")
    with pytest.raises(ValueError, match="hub_tau"):
        kcjax.bfs(graph, 0, mesh=mesh, hub_tau=4)
    with pytest.raises(ValueError, match="traced Graph"):
        jax.jit(lambda g: kcjax.bfs(g, 0, mesh=mesh).distances)(graph)
    with pytest.raises(ValueError, match="on more devices|2\\^32"):
        kcjax.generators.kronecker(31, 16, mesh=mesh)


def test_split_and_order_take_the_graph_as_arguments():
    """The memoized split, degree order and one-device CSR are built by jitted calls that
    take the graph's arrays as arguments: none embeds them as constants (a 4.3 GB shard
    once took 56 s to compile that way)."""
    mesh = jax.make_mesh((1,), ("v",), devices=jax.devices()[:1])
    graph = _random_graph(6)
    before = jax.config.jax_captured_constants_warn_bytes
    jax.config.update("jax_captured_constants_warn_bytes", 1024)
    try:
        with warnings.catch_warnings():
            warnings.filterwarnings("error", message=".*constants were captured")
            split = kcjax.shard_graph(graph, mesh)
            ordered = kcjax.prepare_bfs(split)
            jax.block_until_ready(kcjax.bfs(ordered, 3).distances)
    finally:
        jax.config.update("jax_captured_constants_warn_bytes", before)
    assert ordered.degree_ordered


def test_generated_matches_host_reference_one_device(monkeypatch):
    mesh = jax.make_mesh((1,), ("v",), devices=jax.devices()[:1])
    for scale, edge_factor, rounds in ((6, 8, 1), (0, 4, 1), (3, 0, 1), (7, 8, 4)):
        # Rounds: a device builds its rows in slices when they hold more entries.
        monkeypatch.setattr(
            "kcjax.graph.sharded.ROUND_ENTRIES", (2 * edge_factor << scale) // rounds
        )
        got = kcjax.generators.kronecker(scale, edge_factor, seed=5, mesh=mesh)
        ref = _host_kronecker(scale, edge_factor, 5)
        graph = got.to_graph()
        np.testing.assert_array_equal(graph.indptr, ref.indptr)
        np.testing.assert_array_equal(graph.indices, ref.indices)
        assert got.num_edges == ref.num_edges


def test_id_permutation_is_a_bijection():
    for scale in (1, 5, 12):
        ids = np.arange(1 << scale, dtype=np.uint32)
        out = experimental.kronecker_permute_ids(ids, scale, seed=3, xp=np)
        assert np.array_equal(np.sort(out), ids)


def test_two_processes_two_devices_each():
    """jax.distributed: 2 processes x 2 forced CPU devices (gloo), one mesh of all four."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    env = dict(os.environ, JAX_PLATFORMS="cpu")
    flags = f"{os.environ.get('XLA_FLAGS', '')} --xla_force_host_platform_device_count=2"
    env["XLA_FLAGS"] = flags.strip()
    for name in ("JAX_COORDINATOR_ADDRESS", "JAX_NUM_PROCESSES", "JAX_PROCESS_ID"):
        env.pop(name, None)
    procs = [
        subprocess.Popen(
            [sys.executable, "-P", str(WORKER), f"127.0.0.1:{port}", "2", str(pid), "60"],
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for pid in range(2)
    ]
    results = []
    try:
        for proc in procs:
            out, err = proc.communicate(timeout=240)
            assert proc.returncode == 0, out[-2000:] + err[-4000:]
            line = next(x for x in out.splitlines() if x.startswith("RESULT "))
            results.append(json.loads(line[len("RESULT ") :]))
    finally:
        for proc in procs:
            if proc.poll() is None:
                proc.kill()
                proc.communicate()
    ref = _host_kronecker(9, 8, 3)
    sources = np.array([0, 7, 150, 289], np.int32)
    for r in results:
        assert r["devices"] == 4
        np.testing.assert_array_equal(r["mesh"], r["single"])
        np.testing.assert_array_equal(r["single"], _scipy_distances(_random_graph(1), sources))
        assert r["kron_edges"] == ref.num_edges and sum(r["kron_entries"]) == 2 * ref.num_edges
        np.testing.assert_array_equal(r["kron"], _scipy_distances(ref, sources))
    assert sorted(r["process_index"] for r in results) == [0, 1]


@multidevice
def test_multidevice_distances_and_trees():
    graph = _random_graph(1)
    for mesh in _meshes():
        k = mesh.devices.size
        c = experimental.mesh_chunk_size(graph.num_nodes, k)
        # A source on every shard, an isolated one, the path's end.
        sources = np.array([*(d * c for d in range(k)), 289, 170], np.int32)
        for direction in ("auto", "top_down", "bottom_up"):
            out = kcjax.bfs(graph, sources=sources, mesh=mesh, direction=direction)
            _check(graph, out, sources)
        ref = kcjax.bfs(graph, sources=sources)
        np.testing.assert_array_equal(out.distances, ref.distances)
        # The pure-JAX baseline over the same split.
        _check(graph, kcjax.bfs_sharded(graph, sources, mesh), sources)
        dense = kcjax.bfs(graph, sources=sources, mesh=mesh, method="dense", parents=False)
        assert dense.parents is None
        np.testing.assert_array_equal(dense.distances, ref.distances)


@multidevice
def test_multidevice_uneven_shards_and_tiny_graphs():
    # Every edge in the first shard's range but a bridge to the last vertex; more
    # shards than words; fewer vertices than one word.
    g = nx.complete_graph(40)
    g.add_edge(39, 299)
    edges = np.array(list(g.edges()), np.int64)
    uneven = kcjax.Graph.from_edges(edges[:, 0], edges[:, 1], 300)
    tiny = kcjax.generators.complete(3)
    for mesh in _meshes():
        _check(uneven, kcjax.bfs(uneven, sources=[299, 0, 150], mesh=mesh), np.array([299, 0, 150]))
        _check(tiny, kcjax.bfs(tiny, sources=[1], mesh=mesh), np.array([1]))
        _check(tiny, kcjax.bfs(tiny, sources=[1], mesh=mesh, method="dense"), np.array([1]))


@multidevice
def test_multidevice_under_jit():
    graph = _random_graph(2)
    mesh = _meshes()[-1]
    split = kcjax.shard_graph(graph, mesh)
    ref = kcjax.bfs(graph, sources=np.arange(0, 290, 37, dtype=np.int32)).distances
    ordered = kcjax.prepare_bfs(split)  # rows by neighbour degree: the same distances
    assert ordered.degree_ordered and ordered is kcjax.prepare_bfs(split)
    roots = np.arange(0, 290, 37, dtype=np.int32)
    _check(graph, kcjax.bfs(ordered, sources=roots), roots)  # parents valid, any order
    for i in (0, 3):
        kcjax.validate_bfs_tree(ordered, int(roots[i]), kcjax.bfs(ordered, int(roots[i])))

    @jax.jit
    def run(g, roots):
        return kcjax.bfs(g, sources=roots).distances

    np.testing.assert_array_equal(run(split, jnp.arange(0, 290, 37, dtype=jnp.int32)), ref)
    # A graph closed over: split (and memoized, concrete) while tracing.
    fresh = _random_graph(5)
    closed = jax.jit(lambda s: kcjax.bfs(fresh, s, mesh=mesh).distances)
    np.testing.assert_array_equal(closed(jnp.int32(74)), kcjax.bfs(fresh, 74).distances)
    assert not isinstance(kcjax.shard_graph(fresh, mesh).cols, jax.core.Tracer)
    constant = jax.jit(lambda: kcjax.bfs(fresh, 74, mesh=mesh).distances)  # a root constant
    np.testing.assert_array_equal(constant(), kcjax.bfs(fresh, 74, mesh=mesh).distances)
    fresh_split = kcjax.shard_graph(fresh, mesh)
    inside = jax.jit(lambda s: kcjax.bfs(kcjax.prepare_bfs(fresh_split), s).distances)
    np.testing.assert_array_equal(inside(jnp.int32(74)), kcjax.bfs(fresh, 74).distances)
    assert not isinstance(kcjax.prepare_bfs(fresh_split).cols, jax.core.Tracer)


@multidevice
def test_multidevice_generated_graphs(monkeypatch):
    ref = _host_kronecker(9, 16, 11)
    sources = np.array([0, 1, 300, 511], np.int32)
    want = _scipy_distances(ref, sources)
    monkeypatch.setattr("kcjax.graph.sharded.ROUND_ENTRIES", 4096)  # 2 rounds on 2 devices, 4 on 1
    for mesh in _meshes():
        got = kcjax.generators.kronecker(9, 16, seed=11, mesh=mesh)
        assert got.num_edges == ref.num_edges
        graph = got.to_graph()
        np.testing.assert_array_equal(graph.indptr, ref.indptr)
        np.testing.assert_array_equal(graph.indices, ref.indices)
        np.testing.assert_array_equal(kcjax.bfs(got, sources=sources).distances, want)
        if mesh.devices.size != FORCED_DEVICES:
            continue  # validation on the devices: once
        hub = int(np.argmax(np.diff(np.asarray(ref.indptr))))
        one = kcjax.bfs(got, hub)
        kcjax.validate_bfs_tree(got, hub, one)  # on the devices
        dist, par = np.asarray(one.distances), np.asarray(one.parents)
        v = int(np.flatnonzero(dist == 2)[0])
        wrong = par.copy()
        wrong[v] = int(np.flatnonzero(dist == 2)[1])  # same level: not a parent
        with pytest.raises(kcjax.BFSValidationError, match="consecutive levels"):
            kcjax.validate_bfs_tree(got, hub, (dist, wrong))
        row = np.asarray(ref.indices)[np.asarray(ref.indptr)[v] : np.asarray(ref.indptr)[v + 1]]
        stranger = np.setdiff1d(np.flatnonzero(dist == 1), row)
        if stranger.size:  # a vertex of the previous level that is not v's neighbour
            wrong = par.copy()
            wrong[v] = int(stranger[0])
            with pytest.raises(kcjax.BFSValidationError, match="an edge of the graph"):
                kcjax.validate_bfs_tree(got, hub, (dist, wrong))
        cut = dist.copy()
        cut[v] = -1
        with pytest.raises(kcjax.BFSValidationError, match="iff it has a parent"):
            kcjax.validate_bfs_tree(got, hub, (cut, par))
    counts = got.shard_entries()
    assert counts.max() < 1.3 * counts.mean()  # the hashed ids balance the shards


def _shard_inputs(rng: np.random.Generator, words: int, global_words: int, hub: int):
    """A random shard: rows of mixed degrees (one of ``hub`` neighbours), random bitmaps."""
    c = 32 * words
    degree = rng.integers(0, 40, c)
    degree[rng.integers(0, c)] = hub
    indptr = np.concatenate([[0], np.cumsum(degree)]).astype(np.int32)
    cols = rng.integers(0, 32 * global_words, int(indptr[-1]), dtype=np.int32)
    bits = lambda k, p: np.packbits(rng.random(32 * k) < p, bitorder="little").view(np.uint32)  # noqa: E731
    return indptr, cols, bits


@gpu
def test_gpu_level_steps_match_cpu():
    rng = np.random.default_rng(0)
    cpu, cuda = jax.devices("cpu")[0], jax.devices("cuda")[0]
    for words, global_words, hub in ((4, 12, 5000), (37, 37, 100_000), (1, 3, 0)):
        indptr, cols, bits = _shard_inputs(rng, words, global_words, hub)
        parts = global_words // words
        for p, mode in ((0.01, 0), (0.3, 0), (0.3, 1), (0.3, 2)):  # top-down, bottom-up, idle
            front, visited = bits(words, p), bits(global_words, 0.5)
            whole, got, seen = bits(global_words, p), bits(parts * words, 0.3), bits(words, 0.4)
            # The longest row a top-down candidate: the CUDA pull searches it in chunks.
            v = int(np.argmax(np.diff(indptr)))
            got[v >> 5] |= np.uint32(1 << (v & 31))
            seen[v >> 5] &= ~np.uint32(1 << (v & 31))
            c = 32 * words
            dist = np.where(rng.random(c) < 0.5, 3, -1).astype(np.int32)
            parent = np.full(c, -1, np.int32)
            out = {}
            for dev in (cpu, cuda):
                args = jax.device_put((indptr, cols, front, visited, np.int32(mode)), dev)
                push = experimental.bfs_mesh_push(*args)
                state = (whole, got, seen, np.int32(mode), np.int32(4), dist, parent)
                pull = experimental.bfs_mesh_pull(*jax.device_put((indptr, cols, *state), dev))
                out[dev.platform] = (np.asarray(push), *map(np.asarray, pull))
            np.testing.assert_array_equal(out["cpu"][0], out["gpu"][0])  # push bitmaps
            if mode:  # nothing pushed; nothing reached past the end
                assert not out["gpu"][0].any() and (mode == 1 or not out["gpu"][4].any())
            np.testing.assert_array_equal(out["cpu"][1], out["gpu"][1])  # distances
            np.testing.assert_array_equal(out["cpu"][3], out["gpu"][3])  # seen
            np.testing.assert_array_equal(out["cpu"][4], out["gpu"][4])  # next words, stats
            # Parents: any candidate's frontier neighbour.
            par = out["gpu"][2]
            reached = (out["gpu"][1] == 5) & (dist != 3)
            for v in np.flatnonzero(reached)[:200]:
                row = cols[indptr[v] : indptr[v + 1]]
                assert par[v] in row and (whole[par[v] >> 5] >> (par[v] & 31)) & 1


@gpu
def test_gpu_mesh_distances():
    k = min(4, len(jax.devices("cuda")))
    mesh = jax.make_mesh((k,), ("v",), devices=jax.devices("cuda")[:k])
    gens = kcjax.generators
    graphs = {
        "kron": gens.kronecker(14, 16, seed=1, mesh=mesh).to_graph(),
        "huge_star": gens.disjoint_union(gens.star(70_000), gens.erdos_renyi(500, 0.01, seed=4)),
        "random": _random_graph(4),
    }
    for graph in graphs.values():
        graph = jax.device_put(graph, jax.devices("cuda")[0])
        n = graph.num_nodes
        sources = np.unique(np.array([0, 1, n // 3, n - 1], np.int32))
        for direction in ("auto", "top_down", "bottom_up"):
            _check(
                graph, kcjax.bfs(graph, sources=sources, mesh=mesh, direction=direction), sources
            )
        np.testing.assert_array_equal(
            kcjax.bfs(graph, sources=sources, mesh=mesh).distances,
            kcjax.bfs(graph, sources=sources).distances,
        )
