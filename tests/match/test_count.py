"""count_embeddings / find_embeddings / iter_embeddings against networkx on random labeled graphs.

Data graphs share one shape bucket (n <= 32, 2m <= 256) so that one
compilation per query size serves every case.
"""

from __future__ import annotations

import dataclasses
import itertools

import jax
import networkx as nx
import numpy as np
import pytest
from reference.matching import nx_embeddings, random_labeled, twin_star, walk_query

import kcjax
from kcjax import LabeledGraph
from kcjax.experimental import MATCH_POLICY as POLICY
from kcjax.experimental import prepare_match

# (name, n, p, labels, parts): few and many labels, connected and disconnected.
DATA = {
    "few_labels": (24, 0.3, 2, 1, 11),
    "many_labels": (24, 0.3, 6, 1, 12),
    "disconnected": (30, 0.6, 3, 3, 13),
}
SIZES = range(1, 9)


def _data(name: str) -> nx.Graph:
    n, p, labels, parts, seed = DATA[name]
    return random_labeled(n, p, labels, seed=seed, parts=parts)


def _cases():
    for name in DATA:
        g = _data(name)
        assert 128 < 2 * g.number_of_edges() <= 256, "keep the data graphs in one shape bucket"
        for size in SIZES if name != "disconnected" else (3, 6):
            yield name, size, g, walk_query(g, size, seed=size)


CASES = list(_cases())
IDS = [f"{name}-q{size}" for name, size, *_ in CASES]


@pytest.mark.parametrize(("name", "size", "g", "q"), CASES, ids=IDS)
def test_count_matches_networkx(platform, name, size, g, q):
    d, qq = LabeledGraph.from_networkx(g), LabeledGraph.from_networkx(q)
    for induced in (False, True):
        ref = len(nx_embeddings(g, q, induced=induced))
        assert kcjax.count_embeddings(d, qq, induced=induced) == ref


@pytest.mark.parametrize(("name", "size", "g", "q"), CASES[::3], ids=IDS[::3])
def test_every_ablation_variant_same_count(name, size, g, q):
    d, qq = LabeledGraph.from_networkx(g), LabeledGraph.from_networkx(q)
    for induced in (False, True):
        ref = len(nx_embeddings(g, q, induced=induced))
        for bl, rf, dom, order in itertools.product(
            (True, False), (True, False), (True, False), ("estimate", "gvsm", "naive")
        ):
            got = kcjax.count_embeddings(
                d, qq, induced=induced, blacklist=bl, refine=rf, dominance=dom, order=order
            )
            assert got == ref, (induced, bl, rf, dom, order)


@pytest.mark.parametrize(("name", "size", "g", "q"), CASES[1::3], ids=IDS[1::3])
def test_compacted_and_one_program_same_count(name, size, g, q):
    d, qq = LabeledGraph.from_networkx(g), LabeledGraph.from_networkx(q)
    for induced in (False, True):
        ref = len(nx_embeddings(g, q, induced=induced))
        for compact in (None, True, False):
            limbs = kcjax.count_embeddings_limbs(d, qq, induced=induced, compact=compact)
            assert kcjax.limbs_to_int(limbs) == ref, (induced, compact)


ENGINE_CASES = [(c, i) for c, i in zip(CASES, IDS, strict=True) if c[1] in (2, 5)]


@pytest.mark.parametrize(
    ("name", "size", "g", "q"), [c for c, _ in ENGINE_CASES], ids=[i for _, i in ENGINE_CASES]
)
@pytest.mark.parametrize("method", ["prefix_tree", "flat", "dense"])
def test_methods_same_count(name, size, g, q, method):
    d, qq = LabeledGraph.from_networkx(g), LabeledGraph.from_networkx(q)
    for induced in (False, True):
        ref = len(nx_embeddings(g, q, induced=induced))
        assert kcjax.count_embeddings(d, qq, induced=induced, method=method) == ref


@pytest.mark.parametrize(("name", "size", "g", "q"), CASES[::2], ids=IDS[::2])
def test_listing_is_networkx_set(platform, name, size, g, q):
    d, qq = LabeledGraph.from_networkx(g), LabeledGraph.from_networkx(q)
    for induced in (False, True):
        ref = nx_embeddings(g, q, induced=induced)
        rows = kcjax.find_embeddings(d, qq, induced=induced)
        assert rows.dtype == np.int32 and rows.shape == (len(ref), size)
        assert {tuple(r) for r in rows.tolist()} == ref
        assert [tuple(r) for r in rows.tolist()] == sorted(ref)


@pytest.mark.parametrize("method", ["prefix_tree", "flat"])
def test_level_method_listing(method):
    g = _data("few_labels")
    for size in (1, 5):
        q = walk_query(g, size, seed=size)
        d, qq = LabeledGraph.from_networkx(g), LabeledGraph.from_networkx(q)
        ref = nx_embeddings(g, q, induced=True)
        rows = kcjax.find_embeddings(d, qq, induced=True, method=method)
        assert [tuple(r) for r in rows.tolist()] == sorted(ref)


def test_under_jit_count_and_listing():
    g = _data("many_labels")
    q = walk_query(g, 4, seed=4)
    d, qq = LabeledGraph.from_networkx(g), LabeledGraph.from_networkx(q)
    ref = nx_embeddings(g, q)
    limbs = jax.jit(lambda d: kcjax.count_embeddings_limbs(d, qq))(d)
    assert kcjax.limbs_to_int(limbs) == len(ref)
    cap = len(ref) + 3
    rows, found, over = jax.jit(lambda d: kcjax.find_embeddings(d, qq, capacity=cap))(d)
    assert kcjax.limbs_to_int(found) == len(ref) and not bool(over)
    rows = np.asarray(rows)
    assert {tuple(r) for r in rows[: len(ref)].tolist()} == ref
    assert np.all(rows[len(ref) :] == -1)
    if len(ref) > 1:
        small = len(ref) - 1
        _, found, over = jax.jit(lambda d: kcjax.find_embeddings(d, qq, capacity=small))(d)
        assert bool(over) and kcjax.limbs_to_int(found) > small


def test_limit_flags_truncation():
    g = _data("few_labels")
    q = walk_query(g, 3, seed=1)
    d, qq = LabeledGraph.from_networkx(g), LabeledGraph.from_networkx(q)
    ref = nx_embeddings(g, q)
    assert len(ref) > 5
    rows, truncated = kcjax.find_embeddings(d, qq, limit=5)
    assert truncated and rows.shape == (5, 3) and {tuple(r) for r in rows.tolist()} <= ref
    rows, truncated = kcjax.find_embeddings(d, qq, limit=len(ref))
    assert not truncated and {tuple(r) for r in rows.tolist()} == ref
    # The one ListingOverflowError, which list_cliques raises too.
    with pytest.raises(kcjax.ListingOverflowError, match="embeddings exist but capacity"):
        kcjax.find_embeddings(d, qq, capacity=len(ref) - 1)


@pytest.mark.parametrize("batch", [1, 7, 1000])
def test_iter_embeddings_streams_everything(batch):
    g = _data("few_labels")
    q = walk_query(g, 4, seed=2)
    d, qq = LabeledGraph.from_networkx(g), LabeledGraph.from_networkx(q)
    ref = nx_embeddings(g, q)
    parts = list(kcjax.iter_embeddings(d, qq, batch=batch))
    got = [tuple(r) for p in parts for r in p.tolist()]
    assert len(got) == len(ref) and set(got) == ref


def test_absent_label_gives_zero():
    g = _data("many_labels")
    q = nx.path_graph(3)
    for v, lab in zip(q, (0, 99, 1), strict=True):
        q.nodes[v]["label"] = lab
    d, qq = LabeledGraph.from_networkx(g), LabeledGraph.from_networkx(q)
    assert kcjax.count_embeddings(d, qq) == 0
    assert kcjax.find_embeddings(d, qq).shape == (0, 3)


def test_disconnected_query():
    g = _data("many_labels")
    q = nx.Graph()
    q.add_nodes_from([(0, {"label": 0}), (1, {"label": 1}), (2, {"label": 2}), (3, {"label": 0})])
    q.add_edges_from([(0, 1), (2, 3)])
    d, qq = LabeledGraph.from_networkx(g), LabeledGraph.from_networkx(q)
    for induced in (False, True):
        ref = nx_embeddings(g, q, induced=induced)
        assert kcjax.count_embeddings(d, qq, induced=induced) == len(ref)
        assert {tuple(r) for r in kcjax.find_embeddings(d, qq, induced=induced).tolist()} == ref


def test_twins_share_a_branch_exactly():
    # A star: the leaves are twins; counts reach past 2^64 with branch sharing.
    leaves = 2000
    star, q, expect = twin_star(leaves, 7)
    assert expect > 2**64
    assert kcjax.count_embeddings(star, q) == expect
    stats = kcjax.match_stats(star, q)
    assert stats["twins"] == leaves - 1 and stats["classes"] == 2
    small = LabeledGraph.from_edges(np.zeros(4, int), np.arange(1, 5), [0, 1, 1, 1, 1])
    assert kcjax.count_embeddings(small, q) == 0
    assert kcjax.count_embeddings(small, q, dominance=False) == 0


def test_stats_report_pruning():
    g = _data("many_labels")
    q = walk_query(g, 5, seed=5)
    s = kcjax.match_stats(LabeledGraph.from_networkx(g), LabeledGraph.from_networkx(q))
    assert 1 <= s["rounds_run"] <= POLICY.rounds and 0 <= s["rounds"] <= s["rounds_run"]
    assert s["fixpoint"] == (s["rounds"] < s["rounds_run"])
    assert len(s["round_totals"]) == POLICY.rounds
    assert sorted(s["order"]) == list(range(5))
    for a, b, c in zip(s["cand_label"], s["cand_profile"], s["cand_final"], strict=True):
        assert a >= b >= c
    totals = [sum(s["cand_profile"]), *s["round_totals"]]
    assert totals == sorted(totals, reverse=True) and totals[-1] == sum(s["cand_final"])
    assert s["label_matches"] >= s["first_pass"] >= s["kept"] >= s["classes"]


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("refine", [False, True])
def test_filter_keeps_every_embedding(seed, refine):
    """Every image of every networkx embedding stays a candidate of its query
    vertex after many filter rounds (the filter's soundness, checked directly)."""
    g = random_labeled(36, 0.25, 2 + seed % 3, seed=100 + seed)
    q = walk_query(g, 3 + seed % 4, seed=seed)
    d, qq = LabeledGraph.from_networkx(g), LabeledGraph.from_networkx(q)
    for induced in (False, True):
        ref = nx_embeddings(g, q, induced=induced)
        p = prepare_match(d, qq, induced=induced, refine=refine, dominance=False, rounds=12)
        n = p.mult.shape[0]
        bits = np.unpackbits(np.asarray(p.cand).view(np.uint8), axis=1, bitorder="little")[:, :n]
        order = np.asarray(p.order)
        for emb in ref:
            for level, u in enumerate(order):
                assert bits[level, emb[u]], (induced, emb, u)
        assert kcjax.count_embeddings(d, qq, induced=induced, refine=refine) == len(ref)


def test_refine_prunes_at_least_as_much():
    g = _data("many_labels")
    d = LabeledGraph.from_networkx(g)
    for size in (4, 6, 8):
        qq = LabeledGraph.from_networkx(walk_query(g, size, seed=size))
        old = kcjax.match_stats(d, qq, refine=False)
        new = kcjax.match_stats(d, qq, refine=True)
        assert all(a >= b for a, b in zip(old["cand_final"], new["cand_final"], strict=True))


def test_bad_inputs():
    g = _data("many_labels")
    d = LabeledGraph.from_networkx(g)
    big = LabeledGraph.from_edges(np.arange(32), np.arange(1, 33), np.zeros(33, int))
    with pytest.raises(ValueError, match="query size"):
        kcjax.count_embeddings(d, big)
    with pytest.raises(TypeError, match="LabeledGraph"):
        kcjax.count_embeddings(kcjax.Graph.from_edges([0], [1]), d)
    with pytest.raises(ValueError, match="method"):
        kcjax.count_embeddings(d, d, method="nope")
    with pytest.raises(ValueError, match="order"):
        kcjax.count_embeddings(d, d, order="nope")


@pytest.mark.parametrize("order", ["estimate", "gvsm", "naive"])
@pytest.mark.parametrize("seed", range(3))
def test_order_is_a_connected_permutation(order, seed):
    # Every order is a permutation whose levels past a component's first have a
    # backward neighbour (the kernels extend from one), one free level per component.
    g = _data("many_labels")
    q = nx.disjoint_union(walk_query(g, 4 + seed, seed=seed), walk_query(g, 3, seed=seed + 7))
    comps = nx.number_connected_components(q)
    d, qq = LabeledGraph.from_networkx(g), LabeledGraph.from_networkx(q)
    p = prepare_match(d, qq, order=order)
    lvl = np.asarray(p.order)
    assert sorted(lvl.tolist()) == list(range(q.number_of_nodes()))
    back = np.asarray(p.plan)[:, 0]
    assert int(np.sum(back == 0)) == comps and back[0] == 0
    ref = nx_embeddings(g, q)
    assert kcjax.count_embeddings(d, qq, order=order) == len(ref)


def test_group_test_same_on_both_paths(monkeypatch):
    # The label-group test built at once and one query vertex at a time (large
    # graphs) keep the same candidates.
    g = _data("few_labels")
    d = LabeledGraph.from_networkx(g)
    qq = LabeledGraph.from_networkx(walk_query(g, 6, seed=3))
    whole = np.asarray(prepare_match(d, qq, blacklist=True).cand)
    policy = dataclasses.replace(POLICY, group_vector_max=0)
    monkeypatch.setattr("kcjax.match.plan.POLICY", policy)
    jax.clear_caches()
    per_u = np.asarray(prepare_match(d, qq, blacklist=True).cand)
    jax.clear_caches()
    assert np.array_equal(whole, per_u)
