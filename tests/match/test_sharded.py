"""count_embeddings(..., mesh=) on 4 forced host CPU devices (in a child pytest)."""

from __future__ import annotations

import jax
import networkx as nx
import numpy as np
import pytest
from reference import FORCED_DEVICES, multidevice
from reference.matching import nx_embeddings, random_labeled, twin_star, walk_query

import kcjax
from kcjax import LabeledGraph
from kcjax.experimental import match_deal_roots as deal_roots
from kcjax.experimental import prepare_match


@pytest.mark.parametrize("shards", [1, 3, 4])
def test_deal_roots_partitions_every_root(shards):
    g = random_labeled(40, 0.3, 2, seed=5)
    d, q = LabeledGraph.from_networkx(g), LabeledGraph.from_networkx(walk_query(g, 4, seed=3))
    p = prepare_match(d, q)
    roots, ptr = map(np.asarray, deal_roots(p, shards))
    want, task_ptr = np.asarray(p.roots), np.asarray(p.task_ptr)
    assert sorted(roots[roots >= 0].tolist()) == sorted(want[want >= 0].tolist())
    assert ptr.shape == (shards, roots.shape[1] + 1) and np.all(ptr[:, 0] == 0)
    # Each dealt root keeps its own chunk count; padding slots take none.
    cost = dict(zip(want.tolist(), np.diff(task_ptr).tolist(), strict=True))
    got = np.diff(ptr, axis=1)
    assert np.all(got[roots < 0] == 0)
    assert all(got[roots == r][0] == cost[r] for r in want[want >= 0].tolist())
    # The snake deal: every device within the heaviest root of the lightest one.
    loads = ptr[:, -1]
    assert loads.max() - loads.min() <= max(cost.values())


@multidevice
@pytest.mark.parametrize("induced", [False, True])
def test_multidevice_counts_match_networkx(induced):
    mesh = jax.make_mesh((FORCED_DEVICES,), ("d",))
    for seed, size in ((1, 3), (2, 5), (3, 6)):
        g = random_labeled(24, 0.3, 2, seed=seed)
        q = walk_query(g, size, seed=seed)
        d, qq = LabeledGraph.from_networkx(g), LabeledGraph.from_networkx(q)
        ref = len(nx_embeddings(g, q, induced=induced))
        got = kcjax.count_embeddings(d, qq, induced=induced, mesh=mesh, num_threads=1)
        assert got == ref == kcjax.count_embeddings(d, qq, induced=induced)


@multidevice
def test_multidevice_twins_past_2_64():
    mesh = jax.make_mesh((FORCED_DEVICES,), ("d",))
    star, q, expect = twin_star(2000, 7)
    assert kcjax.count_embeddings(star, q, mesh=mesh) == expect


@multidevice
@pytest.mark.parametrize("rare", [1, 2, 3])
def test_multidevice_fewer_roots_than_devices(rare):
    """A plan with fewer roots than devices counts on one device per root (the
    plan's device alone for one root); the count is unchanged."""
    g = random_labeled(30, 0.3, 2, seed=rare)
    hubs = sorted(g, key=lambda v: -g.degree(v))[:rare]
    for v in hubs:
        g.nodes[v]["label"] = 2  # a label only the roots carry
    a, b = sorted(g[hubs[0]])[:2]
    q = nx.Graph([(0, 1), (0, 2)])
    for u, v in zip((0, 1, 2), (hubs[0], a, b), strict=True):
        q.nodes[u]["label"] = g.nodes[v]["label"]
    d, qq = LabeledGraph.from_networkx(g), LabeledGraph.from_networkx(q)
    roots = np.asarray(prepare_match(d, qq).roots)
    assert np.count_nonzero(roots >= 0) <= rare < FORCED_DEVICES
    mesh = jax.make_mesh((FORCED_DEVICES,), ("d",))
    ref = len(nx_embeddings(g, q))
    assert kcjax.count_embeddings(d, qq, mesh=mesh, num_threads=1) == ref > 0
