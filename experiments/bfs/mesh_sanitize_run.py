"""Small run for compute-sanitizer of the multi-device BFS's level steps.

A Kronecker graph of scale 12 and a star of 70,000 leaves beside a random graph
(a hub of 70,000 edges: 274 queued chunks of the push) are traversed over a mesh of
every visible GPU (up to 4) and over one GPU, in every direction, from a hub, a
leaf and the last vertex. The graphs are built on the CPU backend so XLA's own GPU
compilations stay out of the tool.

Usage (only kcjax's kernels instrumented):
    compute-sanitizer --tool memcheck --kernel-name kns=kcjax \
        python experiments/bfs/mesh_sanitize_run.py
"""

from __future__ import annotations

import jax
import numpy as np

import kcjax
from kcjax.experimental import bfs_mesh

with jax.default_device(jax.devices("cpu")[0]):
    gens = kcjax.generators
    graphs = {
        "kron12": gens.kronecker(12, 16, seed=1),
        "star": gens.disjoint_union(gens.star(70_000), gens.erdos_renyi(500, 0.01, seed=4)),
    }
gpus = jax.devices("cuda")
for k in sorted({1, min(4, len(gpus))}):
    mesh = jax.make_mesh((k,), ("v",), devices=gpus[:k])
    for name, graph in graphs.items():
        degrees = np.asarray(graph.degrees())
        hub = int(np.argmax(degrees))
        leaf = int(np.flatnonzero(degrees == 1)[0]) if np.any(degrees == 1) else 0
        sources = np.array([hub, leaf, graph.num_nodes - 1], np.int32)
        split = kcjax.shard_graph(graph, mesh)
        for direction in ("auto", "top_down", "bottom_up"):
            # On one GPU kcjax.bfs would run the single-device kernel: the steps forced.
            _, _, depth = bfs_mesh(split, sources, direction=direction, one_device="steps")
            print(k, name, direction, np.asarray(depth).tolist(), flush=True)
