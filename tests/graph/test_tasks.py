"""The tasks stage's candidate-set sizes (FFI target kcjax_task_sizes) on every
platform, eagerly and under jit, against a brute-force reference."""

from __future__ import annotations

import dataclasses

import jax
import jax.numpy as jnp
import networkx as nx
import numpy as np
import pytest
from reference import planted

import kcjax
from kcjax import generators


def _brute_sizes(dag: kcjax.DAG) -> np.ndarray:
    ip, ix, src = (np.asarray(a) for a in (dag.indptr, dag.indices, dag.src))
    rows = [set(ix[ip[u] : ip[u + 1]].tolist()) for u in range(dag.num_nodes)]
    return np.array([len(rows[u] & rows[v]) for u, v in zip(src, ix, strict=True)], np.int32)


GRAPHS = {
    "gnp": lambda: kcjax.Graph.from_networkx(nx.gnp_random_graph(70, 0.2, seed=1)),
    "planted": lambda: kcjax.Graph.from_networkx(planted(90, 0.06, 14, seed=2)),
    "complete": lambda: generators.complete(20),
    "star": lambda: generators.star(30),
    "rmat": lambda: generators.rmat(9, edge_factor=8, seed=3),
    "no_edges": lambda: kcjax.Graph.from_edges(
        np.zeros(0, np.int64), np.zeros(0, np.int64), num_nodes=4
    ),
}


@pytest.mark.parametrize("order", kcjax.ORDERS)
@pytest.mark.parametrize("name", sorted(GRAPHS))
def test_candidate_sizes_match_brute_force(name, order, platform):
    dag = kcjax.orient(GRAPHS[name](), order=order)
    expected = _brute_sizes(dag)
    got = kcjax.candidate_sizes(dag)
    assert got.dtype == jnp.int32 and got.shape == (dag.num_edges,)
    np.testing.assert_array_equal(got, expected)
    np.testing.assert_array_equal(jax.jit(kcjax.candidate_sizes)(dag), expected)
    # Triangles: each has one lowest edge task.
    assert int(np.sum(expected)) == kcjax.count_cliques(dag, 3)


def test_candidate_sizes_of_a_shared_graph(shared_graph, platform):
    dag = kcjax.orient(shared_graph("ca-CondMat"))
    sizes = np.asarray(kcjax.candidate_sizes(dag))
    assert sizes.min() >= 0
    assert int(sizes.sum()) == kcjax.count_cliques(dag, 3)
    sample = np.random.default_rng(0).choice(dag.num_edges, 500, replace=False)
    ip, ix, src = (np.asarray(a) for a in (dag.indptr, dag.indices, dag.src))
    for e in sample:
        u, v = src[e], ix[e]
        assert sizes[e] == np.intersect1d(ix[ip[u] : ip[u + 1]], ix[ip[v] : ip[v + 1]]).size


def _malformed_dag() -> kcjax.DAG:
    dag = kcjax.orient(kcjax.Graph.from_networkx(nx.complete_graph(5)))
    return dataclasses.replace(dag, indices=dag.indices.at[0].set(99))


def test_malformed_dag_is_refused_on_the_cpu():
    with jax.default_device(jax.devices("cpu")[0]):
        dag = _malformed_dag()
        with pytest.raises(Exception, match="not an oriented DAG"):
            jax.block_until_ready(kcjax.candidate_sizes(dag))


def test_malformed_dag_is_refused_by_the_estimate(platform):
    dag = _malformed_dag()
    with pytest.raises(Exception, match="DAG"):
        kcjax.clique_cost_estimate(dag, 5)
