"""count_embeddings(..., mesh=) on 4 and 3 forced host CPU devices (in a child pytest)."""

from __future__ import annotations

import jax
import numpy as np
import pytest
from jax.sharding import Mesh
from reference import run_multidevice_tests
from reference.matching import nx_embeddings, random_labeled, twin_star, walk_query

import kcjax
from kcjax import LabeledGraph
from kcjax.match import kernels, sharded
from kcjax.match.count import prepare_match

FORCED_DEVICES = 4
multidevice = pytest.mark.skipif(
    jax.device_count() < FORCED_DEVICES,
    reason="needs 4 devices; run by test_forced_host_devices_subprocess",
)


def _case(seed: int, size: int) -> tuple[object, object, LabeledGraph, LabeledGraph]:
    g = random_labeled(24, 0.3, 2, seed=seed)
    q = walk_query(g, size, seed=seed)
    return g, q, LabeledGraph.from_networkx(g), LabeledGraph.from_networkx(q)


@pytest.mark.parametrize("shards", [1, 3, 4])
def test_deal_roots_and_level1_shares_partition_the_embeddings(shards):
    g, q, d, qq = _case(5, 4)
    p = prepare_match(d, qq)
    want = np.asarray(p.roots)
    total = kcjax.limbs_to_int(kernels.match_count(p, p.roots, p.task_ptr, num_threads=1)[0])
    assert total == len(nx_embeddings(g, q))
    whole, split, counted = [], None, 0
    for index in range(shards):
        w, w_ptr, s, s_ptr = (np.asarray(a) for a in sharded.deal_roots(p, index, shards))
        assert w.shape == (-(-want.size // shards),) and w_ptr.shape == (w.size + 1,)
        whole += w[w >= 0].tolist()
        assert split is None or np.array_equal(s, split)  # every device gets the same
        split = s
        counted += kcjax.limbs_to_int(kernels.match_count(p, w, w_ptr, num_threads=1)[0])
        if shards > 1:
            mine = sharded.level1_share(p, index, shards)
            counted += kcjax.limbs_to_int(kernels.match_count(mine, s, s_ptr, num_threads=1)[0])
    assert (shards > 1) == bool(np.any(split >= 0))  # this case splits its heaviest roots
    assert sorted(whole + split[split >= 0].tolist()) == sorted(want[want >= 0].tolist())
    assert len(set(whole)) == len(whole)
    assert counted == total


def test_one_device_mesh_and_the_policy(monkeypatch):
    g, q, d, qq = _case(2, 5)
    mesh = jax.make_mesh((1,), ("d",))
    assert kcjax.count_embeddings(d, qq, mesh=mesh) == len(nx_embeddings(g, q))
    assert sharded.mesh_devices(d, qq, mesh) == 1


def test_forced_host_devices_subprocess():
    proc = run_multidevice_tests(__file__, FORCED_DEVICES)
    assert proc.returncode == 0, proc.stdout[-6000:] + proc.stderr[-3000:]
    assert " passed" in proc.stdout and "failed" not in proc.stdout


@multidevice
@pytest.mark.parametrize("induced", [False, True])
def test_multidevice_counts_match_networkx(monkeypatch, induced):
    monkeypatch.setattr(sharded, "MATCH_MIN_UNITS_PER_DEVICE", 0)
    meshes = [
        jax.make_mesh((FORCED_DEVICES,), ("d",)),
        Mesh(np.array(jax.devices()[:3]), ("d",)),  # uneven shards
    ]
    # q = 2 splits no root; q = 3 and 6 split their heaviest roots
    for seed, size in ((4, 2), (1, 3), (3, 6)):
        g, q, d, qq = _case(seed, size)
        ref = len(nx_embeddings(g, q, induced=induced))
        got = kcjax.count_embeddings(d, qq, induced=induced, mesh=meshes[0], num_threads=1)
        assert got == ref, (seed, size)
    for mesh, compact in zip(meshes, (True, False), strict=True):
        limbs = sharded.count_embeddings_sharded(
            d, qq, mesh, induced=induced, compact=compact, num_threads=1
        )
        assert kcjax.limbs_to_int(limbs.addressable_data(0)) == ref, mesh.devices.size


@multidevice
def test_multidevice_policy_and_twins_past_2_64(monkeypatch):
    mesh = jax.make_mesh((FORCED_DEVICES,), ("d",))
    _, _, d, qq = _case(3, 6)
    units = int(prepare_match(d, qq).task_ptr[-1])
    monkeypatch.setattr(sharded, "MATCH_MIN_UNITS_PER_DEVICE", units // 2)
    assert sharded.mesh_devices(d, qq, mesh) == 2
    monkeypatch.setattr(sharded, "MATCH_MIN_UNITS_PER_DEVICE", units + 1)
    assert sharded.mesh_devices(d, qq, mesh) == 1
    monkeypatch.setattr(sharded, "MATCH_MIN_UNITS_PER_DEVICE", 0)
    star, query, expect = twin_star(2000, 7)
    assert kcjax.count_embeddings(star, query, mesh=mesh) == expect
