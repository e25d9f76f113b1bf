"""The h-index decomposition's rounds and asynchronous tail (tests/reference/truss_tail.py)
reach networkx's trussness under random interleavings of the tail's warps.

CPU-only: the model runs the protocol of ffi/cuda/truss/hindex.cuh with the tail seeded
early (every queued round handed to it), late, or never; with a queue too small for the
pushes (the resume's all-edge rounds); and with deliberate protocol mistakes that the
schedules must expose, so that a pass here means the schedules do reach the races.
"""

from __future__ import annotations

import numpy as np
import pytest
from reference.truss import trussness_networkx, two_hubs
from reference.truss_tail import TailModel, triangle_store

import kcjax

GRAPHS = {
    "er": lambda: kcjax.generators.erdos_renyi(45, 0.25, seed=21),
    "dense": lambda: kcjax.generators.erdos_renyi(40, 0.4, seed=25),
    "cliques": lambda: kcjax.generators.planted_cliques(80, 0.06, [10, 7, 5], seed=22),
    "rmat": lambda: kcjax.generators.rmat(7, 6, seed=23),
    "hubs": lambda: two_hubs(30, 8),
    "union": lambda: kcjax.generators.disjoint_union(
        kcjax.generators.complete(8), kcjax.generators.erdos_renyi(30, 0.3, seed=24)
    ),
}


def _case(name: str):
    graph = GRAPHS[name]()
    src, dst = (np.asarray(a) for a in graph.edges())
    return triangle_store(src, dst), trussness_networkx(graph).tolist()


@pytest.mark.parametrize("name", sorted(GRAPHS))
@pytest.mark.parametrize(
    "policy",
    [
        {"async_edges": 1 << 40},  # the tail from the first queued round
        {"async_edges": 16},  # a few queued rounds first
        {"divisor": 0},  # no all-edge rounds without queueing
        {"async_edges": 0},  # rounds only (the tail never seeded)
        {"seed_all": True},  # the tail alone, from every edge's triangle count
    ],
    ids=["early", "late", "queue-at-once", "rounds-only", "tail-only"],
)
def test_tail_model_equals_networkx(name, policy):
    store, want = _case(name)
    for seed in range(4):
        model = TailModel(store, warps=1 + 7 * seed, seed=seed, **policy)
        assert model.run() == want, (name, policy, seed, model.stats)


def test_tail_model_full_queue_resumes():
    """Queues barely larger than the seed overflow; the dropped pushes are made good by
    the resume's all-edge rounds."""
    full = 0
    for name in sorted(GRAPHS):
        store, want = _case(name)
        for seed, size in enumerate((len(store) + 8, len(store) + 64)):
            model = TailModel(store, seed_all=True, queue_size=size, warps=8, seed=seed)
            assert model.run() == want, (name, size, model.stats)
            assert model.stats["full"] == (model.stats["resumed_rounds"] > 0)
            full += model.stats["full"]
    assert full >= len(GRAPHS)  # most runs overflow (hubs' tail pushes nothing)


@pytest.mark.parametrize("mistake", ["late_claim", "early_done"])
def test_tail_model_catches_protocol_mistakes(mistake):
    """Two wrong orders the schedules must expose, or the model proves nothing. A late
    claim (the mark cleared after the values are read) loses a push: a neighbour that
    falls meanwhile finds the edge still marked as queued, so it keeps a value read
    before the fall. An early done (pending decremented before the pushes) lets waiting
    warps see pending = 0 and leave while pushed edges are still to come (a wrong value,
    or a warp waiting forever on a slot that a leaving warp had claimed)."""
    wrong = 0
    for name in sorted(GRAPHS):
        store, want = _case(name)
        for seed in range(8):
            model = TailModel(store, seed_all=True, warps=8, seed=seed, mistake=mistake)
            wrong += model.run() != want
    assert wrong > 0
