"""kcjax.dense: the pure-JAX counter against networkx, binomials and the native kernels."""

from __future__ import annotations

import itertools
import math

import jax
import jax.numpy as jnp
import networkx as nx
import numpy as np
import pytest
from reference import clique_counts_networkx, edges_of, ground_truth, planted

import kcjax
from kcjax import count_cliques_dense
from kcjax.experimental import limbs_add, limbs_add_small

KMAX = 8


CASES = {
    "gnp30": (edges_of(nx.gnp_random_graph(30, 0.3, seed=1)), 30),
    "gnp55": (edges_of(nx.gnp_random_graph(55, 0.2, seed=2)), 55),
    "gnp80": (edges_of(nx.gnp_random_graph(80, 0.1, seed=3)), 80),
    "planted80": (edges_of(planted(80, 0.08, 12, seed=4)), 80),
    "star": (edges_of(nx.star_graph(20)), 21),
    "empty": (np.zeros((0, 2), np.int64), 7),
}


def _dag(name: str) -> kcjax.DAG:
    edges, n = CASES[name]
    return kcjax.orient(kcjax.Graph.from_edges(edges[:, 0], edges[:, 1], num_nodes=n))


def _counts(limbs: jax.Array, kmax: int) -> dict[int, int]:
    assert limbs.shape == (kmax + 1, 4) and limbs.dtype == jnp.uint32
    assert not np.asarray(limbs[:3]).any()
    return {s: kcjax.limbs_to_int(limbs[s]) for s in range(3, kmax + 1)}


@pytest.fixture(scope="module")
def references() -> dict[str, dict[int, int]]:
    return {name: clique_counts_networkx(e, n, KMAX) for name, (e, n) in CASES.items()}


@pytest.mark.parametrize("k", range(3, KMAX + 1))
def test_matches_networkx(k, references):
    for name in CASES:
        want = {s: references[name][s] for s in range(3, k + 1)}
        assert _counts(count_cliques_dense(_dag(name), k), k) == want, name


def _complete(n: int) -> kcjax.DAG:
    edges = np.array(list(itertools.combinations(range(n), 2)))
    return kcjax.orient(kcjax.Graph.from_edges(edges[:, 0], edges[:, 1]))


@pytest.mark.parametrize(("n", "kmax"), [(16, KMAX), (9, 12)])  # (9, 12): kmax > clique number
def test_complete_graph_is_binomial(n, kmax):
    want = {s: math.comb(n, s) for s in range(3, kmax + 1)}
    assert _counts(count_cliques_dense(_complete(n), kmax), kmax) == want


def test_two_word_rows():
    # D = 48: rows of two words, the second partly used; no dense last level.
    got = count_cliques_dense(_complete(36), 6, bucket_sizes=(48,))
    assert _counts(got, 6) == {s: math.comb(36, s) for s in range(3, 7)}


def test_degrees_beyond_the_buckets(references):
    # Out-degrees up to 11 with a single bucket of 8: a bucket of 16 is added.
    got = count_cliques_dense(_dag("planted80"), KMAX, bucket_sizes=(8,))
    assert _counts(got, KMAX) == {s: references["planted80"][s] for s in range(3, KMAX + 1)}


def test_one_task_per_batch(references):
    got = count_cliques_dense(_dag("gnp30"), KMAX, bucket_sizes=(16,), max_batch_words=16)
    assert _counts(got, KMAX) == {s: references["gnp30"][s] for s in range(3, KMAX + 1)}


def test_under_jit(references):
    got = jax.jit(lambda g: count_cliques_dense(g, 6))(_dag("gnp55"))
    assert _counts(got, 6) == {s: references["gnp55"][s] for s in range(3, 7)}


def test_under_jit_flags_a_too_small_degree_bound():
    dag = _dag("planted80")  # out-degrees above 8
    got = jax.jit(lambda g: count_cliques_dense(g, 4, max_out_degree=5))(dag)
    assert (np.asarray(got[3:]) == 0xFFFFFFFF).all()


def test_limb_carries():
    total = jnp.array([[0xFFFFFFFF, 0xFFFFFFFF, 0xFFFFFFFF, 0], [5, 0, 0, 0]], jnp.uint32)
    limbs = jnp.array([[1, 0, 0, 0], [0xFFFFFFFF, 0xFFFFFFFF, 1, 0]], jnp.uint32)
    out = limbs_add(total, limbs)
    assert [kcjax.limbs_to_int(row) for row in out] == [2**96, 2**65 + 4]
    bumped = limbs_add_small(
        jnp.array([[0xFFFFFFFF, 0xFFFFFFFF, 0, 0]], jnp.uint32), jnp.uint32([3])
    )
    assert kcjax.limbs_to_int(bumped[0]) == 2**64 + 2


def test_rejects_bad_arguments():
    dag = _dag("gnp30")
    with pytest.raises(ValueError, match="kmax"):
        count_cliques_dense(dag, 2)
    with pytest.raises(ValueError, match="bucket"):
        count_cliques_dense(dag, 4, bucket_sizes=(0, 8))
    with pytest.raises(ValueError, match="max_batch_words"):
        count_cliques_dense(dag, 4, max_batch_words=0)


def test_matches_native_on_email_enron(shared_graph):
    dag = kcjax.orient(shared_graph("email-Enron"))
    # Out-degrees up to 70: buckets 16, 64 and (doubled) 128; fewer kernels to compile.
    got = _counts(count_cliques_dense(dag, 5, bucket_sizes=(16, 64)), 5)
    assert got == kcjax.count_cliques(dag, range(3, 6), method="kcminer")
    truth = ground_truth()
    assert got == {k: truth[("email-Enron", k)] for k in range(3, 6)}
