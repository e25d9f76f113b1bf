"""The front door: an eager public call runs one compiled program (two or three where
the result's shape depends on the data: listings and subgraphs), reads nothing back
before its result, and a second call compiles nothing.

Programs are counted from the JAX profiler's dispatch events (``PjitFunction(name)``,
one name per program run) and compilations from jax.monitoring's compile event.
"""

from __future__ import annotations

import collections
import tempfile
from pathlib import Path

import jax
import numpy as np
import pytest

import kcjax

_COMPILE_EVENT = "/jax/core/compile/backend_compile_duration"
_compiles = collections.Counter()
jax.monitoring.register_event_duration_secs_listener(
    lambda event, duration, **kw: _compiles.update([event])
)


def _programs(fn) -> tuple[list[str], int]:
    """(names of the programs one warm call of ``fn`` dispatches, its compilations)."""
    jax.block_until_ready(fn())  # warm-up: compiles and fills the per-graph memos
    before = _compiles[_COMPILE_EVENT]
    with tempfile.TemporaryDirectory() as tmp:
        with jax.profiler.trace(tmp):
            jax.block_until_ready(fn())
        trace = sorted(Path(tmp).rglob("*.xplane.pb"))[-1]
        data = jax.profiler.ProfileData.from_file(str(trace))
    names = {
        event.name[len("PjitFunction(") : -1]
        for plane in data.planes
        if plane.name.startswith("/host")
        for line in plane.lines
        for event in line.events
        if event.name.startswith("PjitFunction(")
    }
    if not names:
        pytest.skip("this jax's profiler records no PjitFunction dispatch events")
    return sorted(names), _compiles[_COMPILE_EVENT] - before


@pytest.fixture(scope="module")
def graphs():
    g = kcjax.generators.planted_cliques(300, 0.03, [9], seed=3)
    src, dst = (np.asarray(a) for a in g.edges())
    labels = np.random.default_rng(0).integers(0, 3, g.num_nodes)
    data = kcjax.LabeledGraph.from_edges(src, dst, labels)
    query = kcjax.LabeledGraph.from_edges([0, 1, 2], [1, 2, 0], [0, 1, 1])
    return g, kcjax.orient(g), data, query


# (name, call, programs it may run): one program unless the result's shape depends on
# the data (a count sizes the listing; a mask's sizes shape the subgraph).
CALLS = [
    ("edges", lambda g, d, data, q: g.edges(), 1),
    ("bfs", lambda g, d, data, q: kcjax.bfs(g, 0), 1),
    ("bfs_sources", lambda g, d, data, q: kcjax.bfs(g, sources=[0, 5, 7]), 1),
    ("count_auto_dag", lambda g, d, data, q: kcjax.count_cliques(d, 4), 1),
    ("count_kcminer_graph", lambda g, d, data, q: kcjax.count_cliques(g, 5, method="kcminer"), 1),
    ("count_pivot_sizes", lambda g, d, data, q: kcjax.count_cliques(d, [3, 6], method="pivot"), 1),
    ("count_all", lambda g, d, data, q: kcjax.count_all_cliques(g), 1),
    ("list_cliques", lambda g, d, data, q: kcjax.list_cliques(d, 4), 2),
    ("core_numbers", lambda g, d, data, q: kcjax.core_numbers(g), 1),
    ("edge_support", lambda g, d, data, q: kcjax.edge_support(g), 1),
    ("truss_numbers", lambda g, d, data, q: kcjax.truss_numbers(g), 1),
    ("k_truss_mask", lambda g, d, data, q: kcjax.k_truss_mask(g, 5), 1),
    ("k_truss", lambda g, d, data, q: kcjax.k_truss(g, 5), 3),
    ("max_truss", lambda g, d, data, q: kcjax.max_truss(g), 3),
    ("count_embeddings", lambda g, d, data, q: kcjax.count_embeddings(data, q), 1),
    ("find_embeddings", lambda g, d, data, q: kcjax.find_embeddings(data, q), 2),
]


@pytest.mark.parametrize("name,call,most", CALLS, ids=[c[0] for c in CALLS])
def test_eager_call_is_one_program(graphs, name, call, most):
    names, compiles = _programs(lambda: call(*graphs))
    assert len(names) <= most, f"{name} dispatched {names}"
    assert compiles == 0, f"{name} compiled {compiles} programs on its second call"


def test_a_new_data_graph_is_prepared_in_one_program(graphs):
    """A data graph's query-independent side (padded to its shape bucket) is one
    program on its first count, the count another."""
    _, _, data, query = graphs
    labels = np.asarray(data.labels)

    def first_count():  # new labels each call: the preparation is not memoized
        fresh = kcjax.LabeledGraph(graph=data.graph, labels=jax.device_put(labels))
        return kcjax.count_embeddings(fresh, query)

    names, compiles = _programs(first_count)
    assert len(names) <= 2, f"a first count dispatched {names}"
    assert compiles == 0


def test_from_edges_runs_three_programs(graphs):
    """Canonicalization: one program sorts and marks (shared by every size that pads
    to the same length), one builds the CSR, one cuts the kept entries."""
    src, dst = (np.asarray(a) for a in graphs[0].edges())
    names, compiles = _programs(lambda: kcjax.Graph.from_edges(src, dst, 300))
    assert len(names) <= 3, f"from_edges dispatched {names}"
    assert compiles == 0
    _, compiles = _programs(lambda: kcjax.Graph.from_edges(src[:-1], dst[:-1], 300))
    assert compiles <= 1, "an edge fewer (the same padded length) compiled the sort again"


def test_jitted_truss_numbers_with_capacity_matches_eager(graphs):
    g = graphs[0]
    capacity = kcjax.truss_store_size(g)
    jitted = jax.jit(lambda graph: kcjax.truss_numbers(graph, capacity=capacity))
    np.testing.assert_array_equal(np.asarray(jitted(g)), np.asarray(kcjax.truss_numbers(g)))
    with pytest.raises(TypeError, match="eagerly"):
        jax.jit(kcjax.truss_store_size)(g)


@pytest.mark.parametrize("k", [3, 5])
def test_prepared_truss_graph_under_jit(graphs, k):
    """A TrussGraph carries the edge index, core numbers and store size into jit: the
    traced ops equal the eager ones and build no edge index, core or store size."""
    g = graphs[0]
    prepared = kcjax.prepare_truss(g)
    numbers = jax.jit(kcjax.truss_numbers)
    mask = jax.jit(lambda t: kcjax.k_truss_mask(t, k))
    np.testing.assert_array_equal(np.asarray(numbers(prepared)), np.asarray(kcjax.truss_numbers(g)))
    np.testing.assert_array_equal(np.asarray(mask(prepared)), np.asarray(kcjax.k_truss_mask(g, k)))
    hlo = jax.jit(kcjax.truss_numbers).lower(prepared).as_text()
    assert "sort" not in hlo and "while" not in hlo, "the traced decomposition rebuilt an index"
    assert kcjax.truss_store_size(prepared) == kcjax.truss_store_size(g)
    (kmax, truss), (want_k, want) = kcjax.max_truss(prepared), kcjax.max_truss(g)
    assert kmax == want_k
    np.testing.assert_array_equal(np.asarray(truss.indices), np.asarray(want.indices))
