"""The CUDA peeling kernel's step protocol (tests/reference/truss_peel.py) equals the C++ twin.

CPU-only: the model runs the kernel's steps with small thresholds so that every
path is taken (merged and chunked frontier edges, several warps' chunk ranges,
compaction at every scan or rarely, level jumps, level 0's silent removals, steps
run by one block and handed back to the grid).
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import jax
import networkx as nx
import numpy as np
import pytest
from reference.truss import edge_set, to_nx, two_hubs
from reference.truss_peel import Model, warp_in_triangle

import kcjax
from kcjax.experimental import truss_edge_index as edge_index

GRAPHS = {
    "rmat": lambda: kcjax.generators.rmat(8, 8, seed=11),
    "cliques": lambda: kcjax.generators.planted_cliques(150, 0.05, [12, 8, 6], seed=12),
    "hubs": lambda: two_hubs(60, 9),
    "union": lambda: kcjax.generators.disjoint_union(
        kcjax.generators.complete(7), kcjax.generators.erdos_renyi(40, 0.2, seed=13)
    ),
}

# (lane_list, chunk probes, warps, compaction divisor, (kTailFrontier, kTailChunks,
# kTailScan, warps of a block)): the kernel's own values (TrussPolicy: grid steps);
# its first values (these graphs then peel in block 0 alone); grid steps only, every
# edge chunked; and a mix of block and grid steps.
SHAPES = [
    (4, 32, 16, 8, (0, 0, 0, 8)),
    (64, 32, 16, 8, (256, 16, 2048, 8)),
    (2, 4, 7, 1, (0, 0, 0, 3)),
    (0, 1, 3, 1000, (20, 6, 300, 2)),
]


@pytest.mark.parametrize("warp", [32, 8, 1])
@pytest.mark.parametrize("name", sorted(GRAPHS))
def test_warp_in_triangle_model(name, warp):
    """The 3-truss kernel's warp rounds (shared lanes, early exit, moving lower bound)
    give networkx's 3-truss; the default 32 lanes are the kernel's."""
    graph = GRAPHS[name]()
    src, dst = (np.asarray(a) for a in graph.edges())
    got, rounds = warp_in_triangle(graph.indptr, graph.indices, src, dst, warp)
    g = to_nx(graph)
    want = edge_set(nx.k_truss(g, 3))
    assert {(int(u), int(v)) for u, v in zip(src[got], dst[got], strict=True)} == want
    np.testing.assert_array_equal(got, np.asarray(kcjax.k_truss_mask(graph, 3, method="edge")))
    assert rounds >= 1


def _model(graph: kcjax.Graph, shape, seed: int, recount: int = 101) -> Model:
    lane_list, chunk, warps, divisor, tail = shape
    index = edge_index(graph)
    src, dst = (np.asarray(a) for a in graph.edges())
    return Model(
        np.asarray(graph.indptr),
        np.asarray(graph.indices),
        np.asarray(index.eid),
        src,
        dst,
        lane_list=lane_list,
        chunk=chunk,
        warps=warps,
        divisor=divisor,
        tail=tail,
        seed=seed,
        recount=recount,
    )


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("name", sorted(GRAPHS))
def test_model_decomposition_equals_cpu(name, shape):
    graph = jax.device_put(GRAPHS[name](), jax.devices("cpu")[0])
    want = np.asarray(kcjax.truss_numbers(graph))
    sup = np.asarray(kcjax.edge_support(graph))
    for seed in range(2):
        model = _model(graph, shape, seed)
        truss, live = model.run(np.ones(graph.num_edges, bool), sup)
        np.testing.assert_array_equal(truss, want)
        assert not live.any()


@pytest.mark.parametrize("shape", SHAPES[1:])
@pytest.mark.parametrize("name", sorted(GRAPHS))
def test_model_k_truss_equals_cpu(name, shape):
    graph = jax.device_put(GRAPHS[name](), jax.devices("cpu")[0])
    k_max = int(np.asarray(kcjax.truss_numbers(graph)).max())
    core = np.asarray(kcjax.core_numbers(graph))
    src, dst = (np.asarray(a) for a in graph.edges())
    for k in sorted({4, 5, k_max, k_max + 1}):
        alive = (core[src] >= k - 1) & (core[dst] >= k - 1)
        sup = _alive_support(graph, alive)
        _, live = _model(graph, shape, k).run(alive, sup, k=k)
        want = np.asarray(kcjax.k_truss_mask(graph, k))
        np.testing.assert_array_equal(live, want, err_msg=f"k={k}")


@pytest.mark.parametrize("recount", [75, 100, 0])
@pytest.mark.parametrize("shape", [SHAPES[0], SHAPES[2], SHAPES[3]])
@pytest.mark.parametrize("name", sorted(GRAPHS))
def test_model_listed_k_truss_with_round_recount(name, shape, recount):
    """From the prefilter's list (the kernel's k-truss path), with the first round
    replaced by a recount when its frontier holds ``recount`` % of the list
    (TrussPolicy::kRoundRecountPercent, off at 101 since its H200 A/B; 75 as first run;
    100: a frontier of the whole list only;
    0: every first round): the C++ twin's k-truss at every k."""
    graph = jax.device_put(GRAPHS[name](), jax.devices("cpu")[0])
    k_max = int(np.asarray(kcjax.truss_numbers(graph)).max())
    core = np.asarray(kcjax.core_numbers(graph))
    src, dst = (np.asarray(a) for a in graph.edges())
    recounted = 0
    for k in range(4, k_max + 2):
        alive = (core[src] >= k - 1) & (core[dst] >= k - 1)
        sup = _alive_support(graph, alive)
        model = _model(graph, shape, k, recount)
        _, live = model.run(alive, sup, k=k, listed=True)
        want = np.asarray(kcjax.k_truss_mask(graph, k))
        np.testing.assert_array_equal(live, want, err_msg=f"k={k}")
        assert model.recounted <= 1
        if recount == 0:  # every first round (a step after the first scan) is a recount
            assert model.recounted == (model.steps > 2), k
        recounted += model.recounted
    if recount == 0 and name != "hubs":  # hubs: no k >= 4 peels at all
        assert recounted > 0


def _alive_support(graph: kcjax.Graph, alive: np.ndarray) -> np.ndarray:
    """Triangles per edge among the alive edges (the support pass's input)."""
    src, dst = (np.asarray(a) for a in graph.edges())
    keep = np.flatnonzero(alive)
    sub = kcjax.Graph.from_edges(src[keep], dst[keep], num_nodes=graph.num_nodes)
    sup_sub = np.asarray(kcjax.edge_support(jax.device_put(sub, jax.devices("cpu")[0])))
    s2, d2 = (np.asarray(a) for a in sub.edges())
    pos = {(int(u), int(v)): i for i, (u, v) in enumerate(zip(s2, d2, strict=True))}
    sup = np.zeros(graph.num_edges, np.int64)
    for e in keep:
        sup[e] = sup_sub[pos[(int(src[e]), int(dst[e]))]]
    return sup


def _timeline_module():
    path = Path(__file__).resolve().parents[2] / "experiments" / "truss" / "timeline.py"
    spec = importlib.util.spec_from_file_location("truss_timeline", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("name", sorted(GRAPHS))
def test_timeline_replay_equals_cpu(name):
    """The benchmark's host replay of the rounds gives the C++ twin's trussness."""
    timeline = _timeline_module()
    graph = jax.device_put(GRAPHS[name](), jax.devices("cpu")[0])
    truss, levels = timeline.replay(graph.num_edges, timeline.triangles(graph))
    np.testing.assert_array_equal(truss, np.asarray(kcjax.truss_numbers(graph)))
    assert sum(lv["rounds"] for lv in levels) >= len(levels) >= 1
