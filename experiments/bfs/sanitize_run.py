"""Small run for compute-sanitizer: every BFS method and direction once, and a batch.

A Kronecker graph of scale 12 and a star of 70,000 leaves (the grid-wide
"extreme" degree class) are traversed by every method x direction from a
hub, then 130 sources at once (three 64-source bitset words); "cluster" also
with clusters of 1, 3 and 16 blocks (local claims, distributed next-frontier
words that do not divide the bitmap, the non-portable size) and three sources
in one launch. Last, the grid kernel's bitmap variant ("auto" from 2^20
vertices): the Kronecker graph and the star among 2^20 + 7 vertices, every
direction, a hub, a leaf, the last vertex and an invalid source in one launch
(the star's hub: one top-down vertex whose edges every block shares). The graphs are built
on the CPU backend so XLA's own GPU compilations stay out of the tool.

Usage: python experiments/bfs/sanitize_run.py
"""

from __future__ import annotations

import jax
import numpy as np

import kcjax
from kcjax.experimental import BFS_BATCHES as BATCHES
from kcjax.experimental import BFS_DIRECTIONS as DIRECTIONS
from kcjax.experimental import BFS_NATIVE_METHODS as NATIVE_METHODS
from kcjax.experimental import bfs_native

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
    for cluster in (1, 3, 16):
        for direction in DIRECTIONS.values():
            dist, _ = bfs_native(
                graph.indptr,
                graph.indices,
                jax.device_put(np.array([hub, 0, 5], np.int32), gpu),
                method=NATIVE_METHODS["cluster"],
                direction=direction,
                batch=BATCHES["each"],
                parents=True,
                cluster=cluster,
            )
            print(name, "cluster", cluster, direction, int(dist.max()), flush=True)
    many = kcjax.bfs(graph, sources=np.arange(130, dtype=np.int32) % graph.num_nodes)
    print(name, "batch", np.asarray(many.distances).max(), flush=True)

for name, small in (("kron12", kron), ("star", star)):
    with jax.default_device(jax.devices("cpu")[0]):
        src, dst = small.edges()
        wide = kcjax.Graph.from_edges(np.asarray(src), np.asarray(dst), num_nodes=(1 << 20) + 7)
    wide = jax.device_put(wide, gpu)
    hub = int(np.argmax(np.asarray(wide.degrees())))
    for direction in DIRECTIONS.values():
        dist, _ = bfs_native(
            wide.indptr,
            wide.indices,
            jax.device_put(np.array([hub, 1, wide.num_nodes - 1, -1], np.int32), gpu),
            method=NATIVE_METHODS["auto"],
            direction=direction,
            batch=BATCHES["each"],
            parents=True,
            cluster=0,
        )
        print("bitmaps", name, direction, int(dist.max()), flush=True)
