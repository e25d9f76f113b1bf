"""bfs_sharded (1-D vertex partition, bitmap all_gather per level) on 4 forced
host devices: run in a child pytest (the device count is fixed when JAX starts)."""

from __future__ import annotations

import jax
import networkx as nx
import numpy as np
import pytest
from reference import run_multidevice_tests

import kcjax

FORCED_DEVICES = 4

multidevice = pytest.mark.skipif(
    jax.device_count() < FORCED_DEVICES,
    reason="needs 4 devices; run by test_forced_host_devices_subprocess",
)


def test_one_device_mesh():
    g = kcjax.generators.erdos_renyi(70, 0.05, seed=2)
    mesh = jax.make_mesh((1,), ("v",))
    sources = np.array([0, 5, 69], np.int32)
    out = kcjax.bfs_sharded(g, sources, mesh)
    np.testing.assert_array_equal(out.distances, kcjax.bfs(g, sources=sources).distances)
    with pytest.raises(ValueError, match=r"\[0, 70\)"):
        kcjax.bfs_sharded(g, [70], mesh)


def test_forced_host_devices_subprocess():
    proc = run_multidevice_tests(__file__, FORCED_DEVICES)
    assert proc.returncode == 0, proc.stdout[-6000:] + proc.stderr[-3000:]
    assert " passed" in proc.stdout and "failed" not in proc.stdout


@multidevice
def test_multidevice_matches_single_device():
    mesh = jax.make_mesh((FORCED_DEVICES,), ("v",))
    g = nx.gnp_random_graph(150, 0.015, seed=1)
    g.add_edges_from((150 + i, 151 + i) for i in range(20))  # a long path: many levels
    edges = np.array(list(g.edges()), np.int64)
    graph = kcjax.Graph.from_edges(edges[:, 0], edges[:, 1], 180)  # 171.. isolated
    sources = np.array([0, 150, 170, 175, 77], np.int32)
    for parents in (True, False):
        out = kcjax.bfs_sharded(graph, sources, mesh, parents=parents)
        ref = kcjax.bfs(graph, sources=sources)
        np.testing.assert_array_equal(out.distances, ref.distances)
        np.testing.assert_array_equal(out.depth, ref.depth)
        if parents:
            for i, s in enumerate(sources):
                kcjax.validate_bfs_tree(graph, int(s), (out.distances[i], out.parents[i]))
    tiny = kcjax.generators.complete(3)  # fewer vertices than a shard's word
    np.testing.assert_array_equal(kcjax.bfs_sharded(tiny, [1], mesh).distances, [[1, 0, 1]])
