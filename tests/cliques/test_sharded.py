"""Multi-device and multi-host counting: task splits, the exact limb psum, shard_map, pmap.

Tests named ``test_multidevice_*`` need 4 devices. In a normal (1-device) run
tests/test_multidevice.py runs them in a child pytest with 4 forced host CPU
devices (the flag must be set before JAX starts); on a machine with 4 or more
devices they run directly. The multi-process tests start
``_two_process_worker.py`` processes on a local coordinator.
"""

from __future__ import annotations

import itertools
import json
import math
import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import jax
import jax.numpy as jnp
import networkx as nx
import numpy as np
import pytest
from jax.sharding import Mesh, NamedSharding
from jax.sharding import PartitionSpec as P
from reference import FORCED_DEVICES, clique_counts_networkx, ground_truth, multidevice

import kcjax
from kcjax import experimental as sharded
from kcjax import parallel

KMAX = 6
TESTS = Path(__file__).resolve().parent
WORKER = TESTS / "_two_process_worker.py"


def _graph(edges: np.ndarray, n: int) -> kcjax.Graph:
    edges = np.asarray(edges, np.int64).reshape(-1, 2)
    return kcjax.Graph.from_edges(edges[:, 0], edges[:, 1], n)


def _random_cases() -> dict[str, tuple[np.ndarray, int]]:
    cases = {}
    for seed, (n, p) in enumerate([(60, 0.25), (120, 0.08)]):
        g = nx.gnp_random_graph(n, p, seed=seed)
        cases[f"gnp{n}"] = (np.array(g.edges(), np.int64), n)
    g = nx.gnp_random_graph(90, 0.05, seed=5)
    g.add_edges_from(itertools.combinations(range(20, 33), 2))  # a planted 13-clique
    cases["planted"] = (np.array(g.edges(), np.int64), 90)
    cases["tiny"] = (np.array([[0, 1], [1, 2], [0, 2]], np.int64), 4)  # fewer edges than shards
    return cases


CASES = _random_cases()


def _ints(limbs: jax.Array) -> list[int]:
    return [kcjax.limbs_to_int(row) for row in np.asarray(limbs)]


def _single(dag: kcjax.DAG) -> list[int]:
    return _ints(kcjax.count_cliques_limbs(dag, KMAX))


def _mesh() -> Mesh:
    return jax.make_mesh((jax.device_count(),), ("d",))


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


# ---------------------------------------------------------------- one device


def test_psum_limbs_carries_exactly():
    rng = np.random.default_rng(0)
    rows = rng.integers(0, 2**32, size=(1000, 3, 4), dtype=np.uint64).astype(np.uint32)
    rows[:600] = 0xFFFFFFFF  # every limb carries, and the 128-bit sum wraps
    rows[600:, 1, 2:] = 0
    out = jax.vmap(lambda x: kcjax.psum_limbs(x, "d"), axis_name="d")(jnp.asarray(rows))
    out = np.asarray(out)
    for i in range(3):
        expected = sum(kcjax.limbs_to_int(r) for r in rows[:, i]) % 2**128
        assert all(kcjax.limbs_to_int(row) == expected for row in out[:, i])


def test_candidate_sizes_are_common_out_neighbours():
    for edges, n in (CASES["gnp60"], CASES["planted"]):
        dag = kcjax.orient(_graph(edges, n))
        ip, ix, src = (np.asarray(a) for a in (dag.indptr, dag.indices, dag.src))
        expected = [
            len(set(ix[ip[u] : ip[u + 1]]) & set(ix[ip[v] : ip[v + 1]]))
            for u, v in zip(src, ix, strict=True)
        ]
        np.testing.assert_array_equal(kcjax.candidate_sizes(dag), expected)


@pytest.mark.parametrize("num_shards", [1, 3, 8])
@pytest.mark.parametrize("strategy", kcjax.STRATEGIES)
def test_split_tasks_deals_every_edge_once(strategy, num_shards):
    edges, n = CASES["planted"]
    dag = kcjax.orient(_graph(edges, n))
    m = dag.num_edges
    tasks, costs = kcjax.split_tasks(
        dag, num_shards, strategy=strategy, kmax=KMAX, return_costs=True
    )
    tasks = np.asarray(tasks)
    assert tasks.dtype == np.int32 and tasks.shape == (num_shards, -(-m // num_shards))
    np.testing.assert_array_equal(np.sort(tasks[tasks >= 0]), np.arange(m))
    assert np.all(np.abs(np.sum(tasks >= 0, axis=1) - m / num_shards) < 1)
    per_task = np.asarray(kcjax.task_costs(dag, KMAX))
    expected = [per_task[row[row >= 0]].sum() for row in tasks]
    np.testing.assert_allclose(costs, expected, rtol=1e-5)
    if strategy == "round_robin":
        ids = np.arange(tasks.size).reshape(-1, num_shards).T
        np.testing.assert_array_equal(tasks, np.where(ids < m, ids, -1))
    else:  # heaviest first in every row
        sizes = np.asarray(kcjax.candidate_sizes(dag))
        for row in tasks:
            assert np.all(np.diff(sizes[row[row >= 0]]) <= 0)


def test_balanced_split_evens_estimated_cost():
    edges, n = CASES["planted"]
    dag = kcjax.orient(_graph(edges, n))
    heaviest = float(np.max(kcjax.task_costs(dag, KMAX)))
    spread = {}
    for strategy in kcjax.STRATEGIES:
        _, costs = kcjax.split_tasks(dag, 4, strategy=strategy, kmax=KMAX, return_costs=True)
        spread[strategy] = np.asarray(costs)
    balanced, round_robin = spread["balanced"], spread["round_robin"]
    assert balanced.max() - balanced.min() <= heaviest
    assert balanced.max() <= round_robin.max() * (1 + 1e-6)


def test_split_tasks_under_jit_and_errors():
    edges, n = CASES["gnp60"]
    graph = _graph(edges, n)
    eager = kcjax.split_tasks(kcjax.orient(graph), 3)
    jitted = jax.jit(lambda g: kcjax.split_tasks(kcjax.orient(g), 3))(graph)
    np.testing.assert_array_equal(eager, jitted)
    with pytest.raises(ValueError, match="num_shards"):
        kcjax.split_tasks(kcjax.orient(graph), 0)
    with pytest.raises(ValueError, match="strategy"):
        kcjax.split_tasks(kcjax.orient(graph), 2, strategy="random")


def test_split_tasks_of_an_empty_graph():
    dag = kcjax.orient(_graph(np.zeros((0, 2)), 5))
    tasks = kcjax.split_tasks(dag, 3)
    np.testing.assert_array_equal(tasks, np.full((3, 1), -1))


@pytest.mark.parametrize("num_shards", [1, 3])
def test_split_roots_deals_every_vertex_once_heaviest_first(num_shards):
    dag = kcjax.orient(_graph(*CASES["planted"]))
    costs = sharded.pivot_root_costs(dag, KMAX)
    assert costs.shape == (dag.num_nodes,) and bool(jnp.all(costs >= 0))
    rows = np.asarray(sharded.split_roots(dag, num_shards, costs))
    assert rows.shape == (num_shards, -(-dag.num_nodes // num_shards))
    np.testing.assert_array_equal(np.sort(rows[rows >= 0]), np.arange(dag.num_nodes))
    host = np.asarray(costs)
    for row in rows:
        assert np.all(np.diff(host[row[row >= 0]]) <= 0)
    out_degrees = np.asarray(dag.out_degrees())
    assert np.all((host > 0) == (out_degrees > 0))
    # a clique's out-neighbourhoods are cliques: each root's tree is a path of
    # hmax - 1 nodes of d candidates, (d + 1)(1 + d / 64) each (one node where
    # d = 1: a single candidate has no pair to be dense in)
    clique = kcjax.orient(kcjax.generators.complete(13))
    d = np.asarray(clique.out_degrees()).astype(np.float64)
    node = (d + 1) * (1 + d / 64)
    expected = np.where(d >= 2, 7 * node, np.where(d == 1, node, 0.0))
    np.testing.assert_allclose(sharded.pivot_root_costs(clique, 8), expected, rtol=1e-5)
    with pytest.raises(ValueError, match="num_shards"):
        sharded.split_roots(dag, 0)


def test_mesh_helpers():
    mesh = jax.make_mesh((1,), ("d",))
    assert parallel.sub_mesh(mesh, "d", 1) is mesh
    with pytest.raises(ValueError, match="size"):
        parallel.sub_mesh(mesh, "d", 2)
    assert parallel.parse_devices(" ALL ") == "all" and parallel.parse_devices("3") == 3
    for bad in ("0", "-1", "two", ""):
        with pytest.raises(ValueError, match="device count"):
            parallel.parse_devices(bad)
    assert parallel.device_mesh(1) is None
    with pytest.raises(ValueError, match="visible"):
        parallel.device_mesh(jax.device_count() + 1)
    dag = kcjax.orient(_graph(*CASES["gnp60"]))
    assert sharded.mesh_devices(dag, 5, mesh, method="kcminer") == 1
    assert sharded.mesh_devices(dag, 5, mesh, method="pivot") == 1


@pytest.mark.parametrize("strategy", kcjax.STRATEGIES)
def test_sharded_on_a_one_device_mesh(strategy):
    edges, n = CASES["gnp60"]
    dag = kcjax.orient(_graph(edges, n))
    mesh = jax.make_mesh((1,), ("d",))
    out = kcjax.count_cliques_sharded(dag, KMAX, mesh, strategy=strategy)
    assert out.shape == (KMAX + 1, 4) and out.dtype == jnp.uint32
    assert _ints(out) == _single(dag)


def test_sharded_argument_errors():
    dag = kcjax.orient(_graph(*CASES["tiny"]))
    mesh = jax.make_mesh((1,), ("d",))
    with pytest.raises(ValueError, match="kmax"):
        kcjax.count_cliques_sharded(dag, 2, mesh)
    with pytest.raises(ValueError, match="method"):
        kcjax.count_cliques_sharded(dag, 4, mesh, method="nope")
    with pytest.raises(ValueError, match="strategy"):
        kcjax.count_cliques_sharded(dag, 4, mesh, strategy="nope")
    with pytest.raises(ValueError, match="not an axis"):
        kcjax.count_cliques_sharded(dag, 4, mesh, axis_name="x")
    with pytest.raises(ValueError, match="axis_name is required"):
        kcjax.count_cliques_sharded(dag, 4, jax.make_mesh((1, 1), ("a", "b")))


_ENV = ("JAX_COORDINATOR_ADDRESS", "JAX_NUM_PROCESSES", "JAX_PROCESS_ID")


def test_initialize_without_settings_is_single_process(monkeypatch):
    for name in _ENV:
        monkeypatch.delenv(name, raising=False)
    assert kcjax.initialize_from_env_or_args() is False


@pytest.mark.parametrize(
    ("args", "env", "match"),
    [
        (("127.0.0.1:1234", 2, None), {}, "process_id"),
        ((None, None, None), {"JAX_COORDINATOR_ADDRESS": "127.0.0.1:1234"}, "num_processes"),
        (("127.0.0.1:1234", 2, 2), {}, "process_id < num_processes"),
        (("127.0.0.1", 2, 0), {}, "host:port"),
        ((None, None, None), {"JAX_NUM_PROCESSES": "two"}, "JAX_NUM_PROCESSES must be"),
    ],
)
def test_initialize_rejects_bad_settings(monkeypatch, args, env, match):
    for name in _ENV:
        monkeypatch.delenv(name, raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    with pytest.raises(ValueError, match=match):
        kcjax.initialize_from_env_or_args(*args)


# ---------------------------------------------------- 4 devices (subprocess)


@multidevice
@pytest.mark.parametrize("strategy", kcjax.STRATEGIES)
def test_multidevice_under_jit(strategy):
    mesh = _mesh()

    @jax.jit
    def count(graph: kcjax.Graph) -> jax.Array:
        return kcjax.count_cliques_sharded(kcjax.orient(graph), KMAX, mesh, strategy=strategy)

    for name in ("planted", "tiny"):
        graph = _graph(*CASES[name])
        assert _ints(count(graph)) == _single(kcjax.orient(graph)), name


@multidevice
def test_count_cliques_with_a_mesh():
    edges, n = CASES["planted"]
    graph = _graph(edges, n)
    reference = clique_counts_networkx(edges, n, KMAX)
    for split in kcjax.STRATEGIES:
        got = kcjax.count_cliques(graph, range(1, KMAX + 1), mesh=_mesh(), split=split)
        assert got == reference, split
    limbs = jax.jit(lambda g: kcjax.count_cliques(g, 5, mesh=_mesh()))(graph)
    assert kcjax.limbs_to_int(limbs) == reference[5]


@multidevice
@pytest.mark.parametrize("strategy", kcjax.STRATEGIES)
def test_multidevice_email_enron(shared_graph, strategy):
    dag = kcjax.orient(shared_graph("email-Enron"))
    out = _ints(kcjax.count_cliques_sharded(dag, KMAX, _mesh(), strategy=strategy))
    for k in range(3, KMAX + 1):
        assert out[k] == ground_truth()[("email-Enron", k)], k


def _everywhere(monkeypatch) -> None:
    """Every device of the mesh runs, however small the work."""
    monkeypatch.setattr("kcjax.cliques.sharded.MESH_MIN_WORK_PER_DEVICE", 0.0)
    monkeypatch.setattr("kcjax.cliques.sharded.MESH_MIN_PIVOT_COST_PER_DEVICE", 0.0)
    monkeypatch.setattr("kcjax.cliques.sharded.MESH_PIVOT_ROOT_SHARE_MARGIN", 0.0)


def _meshes() -> list[Mesh]:
    """4 devices, and 3 (shards of uneven length)."""
    return [_mesh(), Mesh(np.array(jax.devices()[:3]), ("d",))]


@multidevice
@pytest.mark.parametrize("method", ["pivot", "kcminer", "auto"])
def test_multidevice_every_method_counts_exactly(monkeypatch, method):
    _everywhere(monkeypatch)
    # enumeration: the balanced split (the planted clique's heaviest tasks split
    # across the devices) on 4 devices, round robin on 3 (uneven shards)
    for mesh, split in zip(_meshes(), kcjax.STRATEGIES, strict=True):
        for name, (edges, n) in CASES.items():
            graph = _graph(edges, n)
            reference = clique_counts_networkx(edges, n, KMAX)
            got = kcjax.count_cliques(
                graph, range(1, KMAX + 1), method=method, mesh=mesh, split=split, num_threads=1
            )
            assert got == reference, (name, mesh.devices.size)
    # (count_cliques_sharded itself: the eager counts above call it on every
    # mesh and split; test_multidevice_under_jit traces it.)


@multidevice
def test_multidevice_auto_decides_as_on_one_device(monkeypatch):
    _everywhere(monkeypatch)
    calls = []
    histogram = sharded.pivot_histogram_sharded

    def spy(*args, **kwargs):
        calls.append(args[1].devices.size)
        return histogram(*args, **kwargs)

    monkeypatch.setattr("kcjax.cliques.sharded.pivot_histogram_sharded", spy)
    graph = _graph(*CASES["planted"])
    dag = kcjax.orient(graph)
    assert sharded.auto_method(dag, 5) == "pivot"  # on the CPU
    assert kcjax.count_cliques(dag, 5, mesh=_mesh()) == kcjax.count_cliques(dag, 5)
    assert calls == [FORCED_DEVICES]
    with pytest.raises(ValueError, match="eagerly only"):
        jax.jit(lambda g: kcjax.count_cliques(g, 5, method="pivot", mesh=_mesh()))(graph)
    with pytest.raises(ValueError, match="native methods"):
        kcjax.count_cliques(dag, 5, method="dense", mesh=_mesh())
    with pytest.raises(ValueError, match="chunks"):
        kcjax.count_cliques(dag, 5, mesh=_mesh(), chunk_size=10)


@multidevice
def test_multidevice_all_sizes_clique_number_and_per_vertex(monkeypatch):
    _everywhere(monkeypatch)
    edges, n = CASES["planted"]
    graph = _graph(edges, n)
    g = nx.Graph(edges.tolist())
    g.add_nodes_from(range(n))
    omega = max(len(c) for c in nx.find_cliques(g))
    per_vertex = np.zeros(n, np.int64)
    for clique in nx.enumerate_all_cliques(g):
        if len(clique) == 5:
            per_vertex[clique] += 1
        elif len(clique) > 5:
            break
    for mesh in _meshes():
        assert kcjax.count_all_cliques(graph, mesh=mesh) == kcjax.count_all_cliques(graph)
        size, clique = kcjax.clique_number(graph, mesh=mesh)
        assert size == omega and all(g.has_edge(u, v) for u, v in itertools.combinations(clique, 2))
        for method in ("pivot", "kcminer"):
            got = kcjax.clique_counts_per_vertex(graph, 5, method=method, mesh=mesh)
            np.testing.assert_array_equal(got, per_vertex)


@multidevice
def test_multidevice_small_work_runs_on_fewer_devices(monkeypatch):
    graph = _graph(*CASES["planted"])
    dag = kcjax.orient(graph)
    mesh = _mesh()
    est = kcjax.clique_cost_estimate(dag, 6)
    work = math.sqrt(est.enumeration_work * est.work_bound)  # the estimate and its bound
    monkeypatch.setattr("kcjax.cliques.sharded.MESH_MIN_WORK_PER_DEVICE", work / 2.5)
    assert sharded.mesh_devices(dag, 6, mesh, method="kcminer") == 2
    monkeypatch.setattr("kcjax.cliques.sharded.MESH_MIN_WORK_PER_DEVICE", work * 2)
    assert sharded.mesh_devices(dag, 6, mesh, method="kcminer") == 1
    monkeypatch.setattr("kcjax.cliques.sharded.MESH_MIN_PIVOT_COST_PER_DEVICE", 1e30)
    assert sharded.mesh_devices(dag, 6, mesh, method="pivot") == 1
    # no more devices than the heaviest root's share of the pivot cost allows
    monkeypatch.setattr("kcjax.cliques.sharded.MESH_MIN_PIVOT_COST_PER_DEVICE", 0.0)
    costs = sharded.pivot_root_costs(dag, 6)
    total, heaviest = float(jnp.sum(costs, dtype=jnp.float32)), float(jnp.max(costs))
    cap = int(total // (sharded.MESH_PIVOT_ROOT_SHARE_MARGIN * heaviest))
    assert sharded.mesh_devices(dag, 6, mesh, method="pivot") == max(1, min(4, cap))
    monkeypatch.setattr("kcjax.cliques.sharded.MESH_PIVOT_ROOT_SHARE_MARGIN", total / heaviest)
    assert sharded.mesh_devices(dag, 6, mesh, method="pivot") == 1
    monkeypatch.setattr("kcjax.cliques.sharded.MESH_PIVOT_ROOT_SHARE_MARGIN", 0.0)
    assert sharded.mesh_devices(dag, 6, mesh, method="pivot") == 4
    reference = kcjax.count_cliques(dag, range(3, 7), method="kcminer")
    for method in ("kcminer", "pivot"):
        assert kcjax.count_cliques(dag, range(3, 7), method=method, mesh=mesh) == reference
    # the deal and the replicated DAG are memoized per (DAG, mesh, axis, strategy)
    rows = sharded.edge_rows(dag, mesh, "d", "balanced")
    assert sharded.edge_rows(dag, mesh, "d", "balanced") is rows
    assert rows.sharding.spec[0] == "d" and rows.shape[0] == FORCED_DEVICES
    np.testing.assert_array_equal(rows, kcjax.split_tasks(dag, FORCED_DEVICES))
    roots = np.asarray(sharded.root_rows(dag, mesh, "d", 6))
    np.testing.assert_array_equal(np.sort(roots[roots >= 0]), np.arange(dag.num_nodes))
    # the planted clique's heaviest edge tasks are split across the devices (the
    # counts above went through it); the rest keep their balanced deal
    heavy = sharded.heavy_split(dag, 6, mesh)
    assert heavy is not None and heavy.tasks.size > 0 and heavy.sub.num_edges > 0
    light = np.asarray(heavy.rows)
    assert not np.isin(heavy.tasks, light).any()
    np.testing.assert_array_equal(
        np.sort(np.concatenate([light[light >= 0], heavy.tasks])), np.arange(dag.num_edges)
    )
    assert sharded.heavy_split(dag, 4, mesh) is None  # below k = 5 nothing splits


@multidevice
def test_multidevice_pivot_email_enron(shared_graph):
    dag = kcjax.orient(shared_graph("email-Enron"))
    got = kcjax.count_cliques(dag, range(3, KMAX + 1), method="pivot", mesh=_mesh())
    assert got == {k: ground_truth()[("email-Enron", k)] for k in range(3, KMAX + 1)}


@multidevice
def test_multidevice_cli_devices(monkeypatch, tmp_path, capsys):
    from reference.matching import nx_embeddings, random_labeled, walk_query

    _everywhere(monkeypatch)
    edges, n = CASES["planted"]
    path = tmp_path / "g.txt"
    np.savetxt(path, edges, fmt="%d")
    reference = clique_counts_networkx(edges, n, KMAX)
    for extra in (["-k", "3-6", "--method", "pivot"], ["-k", "5", "--split", "round_robin"]):
        assert kcjax.cli.main(["count", str(path), "--devices", "all", "--json", *extra]) == 0
        out = json.loads(capsys.readouterr().out)
        assert (out["devices"], out["devices_used"], out["processes"]) == (4, 4, 1)
        assert {int(k): c for k, c in out["counts"].items()} == {
            int(k): reference[int(k)] for k in out["counts"]
        }
    assert kcjax.cli.main(["count", str(path), "--all", "--devices", "3", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["devices"] == 3 and out["clique_number"] == 13
    g = random_labeled(24, 0.3, 2, seed=11)
    q = walk_query(g, 4, seed=3)
    kcjax.save_labeled(kcjax.LabeledGraph.from_networkx(g), tmp_path / "d.graph")
    kcjax.save_labeled(kcjax.LabeledGraph.from_networkx(q), tmp_path / "q.graph")
    argv = ["match", str(tmp_path / "d.graph"), str(tmp_path / "q.graph"), "--devices", "2"]
    assert kcjax.cli.main([*argv, "--json"]) == 0
    (result,) = json.loads(capsys.readouterr().out)["queries"]
    assert result["embeddings"] == len(nx_embeddings(g, q)) and result["devices"] == 2


@multidevice
def test_multidevice_pmap():
    dag = kcjax.orient(_graph(*CASES["planted"]))
    num = jax.local_device_count()
    tasks = kcjax.split_tasks(dag, num, kmax=KMAX)

    def local(dag: kcjax.DAG, rows: jax.Array) -> jax.Array:
        return kcjax.count_cliques_limbs(dag, KMAX, tasks=rows)

    summed = jax.pmap(
        lambda d, t: kcjax.psum_limbs(local(d, t), "d"), axis_name="d", in_axes=(None, 0)
    )(dag, tasks)
    assert summed.shape == (num, KMAX + 1, 4)
    for row in np.asarray(summed):
        assert _ints(row) == _single(dag)
    partial = np.asarray(jax.pmap(local, in_axes=(None, 0))(dag, tasks))
    totals = [sum(kcjax.limbs_to_int(p[k]) for p in partial) for k in range(KMAX + 1)]
    assert totals == _single(dag)


@multidevice
def test_multidevice_psum_limbs_carries():
    mesh = _mesh()
    num = mesh.devices.size
    limbs = np.zeros((num, 3, 4), np.uint32)
    limbs[:, 0] = 0xFFFFFFFF  # 2^128 - 1 on every device: wraps
    limbs[:, 1, 0] = 0xFFFFFFFF  # carries into limb 1
    limbs[:, 2, :3] = 0xFFFFFFFF  # carries through three limbs
    sharded = jax.device_put(limbs, NamedSharding(mesh, P("d")))
    out = parallel.shard_map(
        lambda x: kcjax.psum_limbs(x[0], "d"), mesh, in_specs=P("d"), out_specs=P()
    )(sharded)
    assert _ints(out) == [num * kcjax.limbs_to_int(row) % 2**128 for row in limbs[0]]


@multidevice
def test_multidevice_axis_of_a_2d_auto_mesh():
    devices = np.array(jax.devices()[:FORCED_DEVICES]).reshape(2, 2)
    mesh = Mesh(devices, ("x", "y"))  # Auto axes (make_mesh gives Explicit ones)
    graph = _graph(*CASES["gnp120"])
    dag = kcjax.orient(graph)
    out = kcjax.count_cliques_sharded(dag, KMAX, mesh, axis_name="x")
    assert _ints(out) == _single(dag)
    jitted = jax.jit(
        lambda g: kcjax.count_cliques_sharded(kcjax.orient(g), KMAX, mesh, axis_name="y")
    )
    assert _ints(jitted(graph)) == _single(dag)


# ------------------------------------------------------------ two processes


def _start_worker(
    port: int, process_id: int, num_processes: int, timeout_s: int, *, via_env: bool = False
) -> subprocess.Popen:
    env = dict(os.environ, JAX_PLATFORMS="cpu")
    env["XLA_FLAGS"] = (
        f"{os.environ.get('XLA_FLAGS', '')} --xla_force_host_platform_device_count=2".strip()
    )
    settings = [f"127.0.0.1:{port}", str(num_processes), str(process_id)]
    for name, value in zip(_ENV, settings, strict=True):
        env.pop(name, None)
        if via_env:
            env[name] = value
    cmd = [sys.executable, "-P", str(WORKER), *(["-"] * 3 if via_env else settings), str(timeout_s)]
    return subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def _finish(procs: list[subprocess.Popen], timeout_s: float) -> list[tuple[int, str, str]]:
    deadline = time.monotonic() + timeout_s
    results = []
    try:
        for proc in procs:
            out, err = proc.communicate(timeout=max(1.0, deadline - time.monotonic()))
            results.append((proc.returncode, out, err))
    finally:
        for proc in procs:
            if proc.poll() is None:
                proc.kill()
                proc.communicate()
    return results


@pytest.fixture(scope="module")
def worker_runs() -> dict[str, object]:
    """Two workers of one run, and a lone worker of another whose peer never
    comes, started together: the lone one's wait overlaps the pair's work."""
    port = _free_port()
    # Process 0 gets its settings as arguments, process 1 from the environment.
    procs = [_start_worker(port, pid, 2, timeout_s=60, via_env=pid == 1) for pid in range(2)]
    start = time.monotonic()
    lone = _start_worker(_free_port(), 0, 2, timeout_s=1)
    (lone_result,) = _finish([lone], timeout_s=60)
    return {
        "pair": _finish(procs, timeout_s=180),
        "lone": lone_result,
        "lone_s": time.monotonic() - start,
    }


def test_two_processes_two_devices_each(worker_runs):
    results = worker_runs["pair"]
    parsed = []
    for rc, out, err in results:
        assert rc == 0, out[-2000:] + err[-4000:]
        (line,) = [x for x in out.splitlines() if x.startswith("RESULT ")]
        parsed.append(json.loads(line.removeprefix("RESULT ")))
    assert [r["process_index"] for r in parsed] == [0, 1]
    for r in parsed:
        assert r["joined"] and r["process_count"] == 2
        assert (r["local_devices"], r["devices"]) == (2, 4)
        for name, counts in r["counts"].items():
            assert counts == r["local"], name
        for name, (mesh, single) in r["pairs"].items():
            assert mesh == single, name
    assert parsed[0]["local"] == parsed[1]["local"]
    assert parsed[0]["pairs"] == parsed[1]["pairs"]


def test_missing_peer_fails_clearly(worker_runs):
    rc, out, err = worker_runs["lone"]
    assert rc != 0
    assert "RESULT" not in out
    assert "process 0 of 2 gave up waiting for the other processes" in err
    assert "process ids 0..1" in err
    assert worker_runs["lone_s"] < 45
