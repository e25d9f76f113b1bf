"""Small run for compute-sanitizer: every BFS method and direction once, and a batch.

A Kronecker graph of scale 12 and a star of 70,000 leaves (the grid-wide
"extreme" degree class) are traversed by every method x direction from a
hub, then 130 sources at once (three 64-source bitset words); "hybrid" also
with every level on the grid (block_edges 0), every level in one block
(2^30) and many block <-> grid switches (64). The graphs are built on the CPU
backend so XLA's own GPU compilations stay out of the tool.

Usage: python experiments/bfs/sanitize_run.py
"""

from __future__ import annotations

import jax
import numpy as np

import kcjax
from kcjax.traversal.kernels import BATCHES, DIRECTIONS, NATIVE_METHODS, bfs_native

with jax.default_device(jax.devices("cpu")[0]):
    kron = kcjax.generators.kronecker(12, 16, seed=1)
    star = kcjax.generators.star(70_000)
gpu = jax.devices()[0]
for name, graph in (("kron12", kron), ("star", star)):
    graph = jax.device_put(graph, gpu)
    hub = int(np.argmax(np.asarray(graph.degrees())))
    for method in kcjax.BFS_METHODS:
        if method == "dense":
            continue
        for direction in DIRECTIONS:
            out = kcjax.bfs(graph, hub, method=method, direction=direction)
            print(name, method, direction, int(out.depth), flush=True)
    for block_edges in (0, 64, 1 << 30):
        for direction in DIRECTIONS.values():
            dist, _ = bfs_native(
                graph.indptr,
                graph.indices,
                jax.device_put(np.array([hub, 0, 5], np.int32), gpu),
                method=NATIVE_METHODS["hybrid"],
                direction=direction,
                batch=BATCHES["each"],
                parents=True,
                block_edges=block_edges,
            )
            print(name, "hybrid", block_edges, direction, int(dist.max()), flush=True)
    many = kcjax.bfs(graph, sources=np.arange(130, dtype=np.int32) % graph.num_nodes)
    print(name, "batch", np.asarray(many.distances).max(), flush=True)
