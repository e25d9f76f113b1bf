"""Small run for compute-sanitizer: the maximal-clique search's CUDA handler.

Streams the maximal cliques of a planted-clique graph (a 30-clique and a
12-clique in G(300, 0.05)) with batches small enough that ranges split and
one root is searched alone, and the per-vertex largest cliques, each on the
GPU handler and checked equal to the CPU handler's.

Usage: python experiments/cliques/maximal_sanitize_run.py
"""

from __future__ import annotations

import jax
import numpy as np

import kcjax

with jax.default_device(jax.devices("cpu")[0]):
    graph = kcjax.generators.planted_cliques(300, 0.05, [30, 12], seed=2)


def cliques(platform: str, batch: int) -> list[np.ndarray]:
    out = []
    for verts, sizes in kcjax.iter_maximal_cliques(graph, batch, platform=platform):
        out.extend(np.split(np.asarray(verts), np.cumsum(np.asarray(sizes))[:-1]))
    return out


for batch in (64, 1 << 20):
    gpu, cpu = cliques("gpu", batch), cliques("cpu", batch)
    assert len(gpu) == len(cpu) and all(map(np.array_equal, gpu, cpu)), batch
    print("maximal cliques", batch, len(gpu), max(map(len, gpu)), flush=True)
best = kcjax.node_clique_numbers(graph, platform="gpu")
assert np.array_equal(best, kcjax.node_clique_numbers(graph, platform="cpu"))
print("node clique numbers", int(np.asarray(best).max()), flush=True)
