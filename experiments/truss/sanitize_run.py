"""Small run for compute-sanitizer: every native k-truss method and mode once.

A planted-clique graph (a 40-clique in G(600, 0.03)) and a two-hub graph whose
hub edges are peeled in chunks over the grid: support, full decomposition, the
k = 3 mask (the one-pass target), a traced k = 3 (the first kernel's pass), and
k = 4 and k_max masks (the prefilter's list, a recount, peeling from the list)
with and without the prefilter, per support method; decompositions by the h-index
rounds (the hub edge's 6000 triangles move its warp's window down; eagerly the store
sized by the degree bound, under jit by the supports) and by peeling.
Built on the CPU backend so XLA's own GPU compilations stay out of the tool.

Usage: python experiments/truss/sanitize_run.py
"""

from __future__ import annotations

import jax
import numpy as np

import kcjax

with jax.default_device(jax.devices("cpu")[0]):
    planted = kcjax.generators.planted_cliques(600, 0.03, [40], seed=1)
    hubs = np.arange(2, 6002)
    src = np.concatenate([np.zeros(6000, np.int64), np.ones(6000, np.int64), [0], hubs[:-1]])
    dst = np.concatenate([hubs, hubs, [1], hubs[1:]])
    two_hubs = kcjax.Graph.from_edges(src, dst)
gpu = jax.devices()[0]
traced = jax.jit(lambda g, k: kcjax.k_truss_mask(g, k))
decompose = jax.jit(kcjax.truss_numbers)
for name, graph in (("planted", planted), ("two_hubs", two_hubs)):
    graph = jax.device_put(graph, gpu)
    for method in ("dag", "edge", "vertex"):
        support = np.asarray(kcjax.edge_support(graph, method=method))
        trussness = np.asarray(kcjax.truss_numbers(graph, method=method))
        peeled = np.asarray(kcjax.truss_numbers(graph, method=method, algorithm="peel"))
        assert np.array_equal(trussness, peeled), (name, method)
        top = int(trussness.max())
        three = np.asarray(kcjax.k_truss_mask(graph, 3, method=method))
        masks = [
            int(np.asarray(kcjax.k_truss_mask(graph, k, method=method, prefilter=p)).sum())
            for k in (4, top)
            for p in (True, False)
        ]
        print(name, method, support.sum(), top, three.sum(), masks, flush=True)
    print(name, "traced k = 3", int(np.asarray(traced(graph, np.int32(3))).sum()), flush=True)
    # Under jit the graph is traced: the h-index counts supports first and reads the
    # store's size back (eagerly the store is sized by the degree bound).
    jitted = np.asarray(decompose(graph))
    assert np.array_equal(jitted, trussness), name
    print(name, "jitted decomposition", int(jitted.max()), flush=True)
