"""A host model of the k-truss DAG pass split by probes (DagTrianglesFlat in
ffi/cuda/truss/support.cuh; the supports and the h-index's triangle store), against
networkx: every probe taken exactly once, every triangle found once, the supports
equal.

The model follows the kernel's index arithmetic: the probe offsets
(DagProbesKernel and the scan), each block's even share of the probes, the first
DAG edge found by BlockCountAtMost, tiles whose edges are staged (a tile may end
early at the staged range's end when edges without probes fill it) and searched by
LastAtMost, and the per-edge counts handed to `done` once per edge and tile. The
CUDA kernels themselves are compared with the C++ twin in test_gpu.py.
"""

from __future__ import annotations

import random

import networkx as nx
import numpy as np
import pytest
from reference.split import block_count_at_most, last_at_most
from reference.truss import to_nx, two_hubs

import kcjax
from kcjax.truss.kernels import edge_index


def _dag_flat(dptr, dcol, dsrc, deid, grid: int, threads: int, batch: int):
    """The (DAG edge, probe) pairs the pass takes, the triangles (e, e1, e2) it finds and
    the per-edge counts `done` receives (summed), in any order of blocks."""
    m = len(dcol)
    size = [int(dptr[a + 1] - dptr[a]) for a in range(len(dptr) - 1)]
    off = np.concatenate([[0], np.cumsum([min(size[dsrc[d]], size[dcol[d]]) for d in range(m)])])
    off = [int(x) for x in off]
    probes, tile = off[m], threads * batch
    per = (probes + grid - 1) // grid
    taken, triangles, done = [], [], {}
    for block in random.Random(grid).sample(range(grid), grid):
        x = min(probes, block * per)
        end = min(probes, x + per)
        if x >= end:
            continue
        d0 = block_count_at_most(off, m, x, threads) - 1
        while x < end:
            s_off = [off[d0 + t] if d0 + t < m else probes for t in range(tile + 1)]
            tile_end = min(end, x + tile, s_off[tile])
            staged = {}
            for t in range(tile):
                if s_off[t] < tile_end and s_off[t + 1] > max(x, s_off[t]):
                    d = d0 + t
                    a, b = int(dsrc[d]), int(dcol[d])
                    a0, a1, b0, b1 = dptr[a], dptr[a + 1], dptr[b], dptr[b + 1]
                    if a1 - a0 > b1 - b0:
                        a0, a1, b0, b1 = b0, b1, a0, a1
                    staged[t] = [int(a0), int(b0), int(b1), int(deid[d]), 0]
            for q in range(x, tile_end):
                t = last_at_most(s_off, tile, q)
                assert t in staged, "a probe's edge is staged"
                a0, b0, b1, e, _ = staged[t]
                taken.append((d0 + t, q - s_off[t]))
                i = a0 + q - s_off[t]
                w = dcol[i]
                k = b0 + int(np.searchsorted(dcol[b0:b1], w))
                if k < b1 and dcol[k] == w:
                    triangles.append((e, int(deid[i]), int(deid[k])))
                    staged[t][4] += 1
            for *_, e, count in staged.values():
                if count:
                    done[e] = done.get(e, 0) + count
            d0 += last_at_most(s_off, tile, tile_end)
            x = tile_end
    return off, taken, triangles, done


def _graphs():
    yield "cliques", kcjax.generators.planted_cliques(120, 0.04, [11, 7, 5], seed=3)
    yield "rmat", kcjax.generators.rmat(8, 6, seed=4)
    yield "hubs", two_hubs(50, 8)
    yield "sparse", kcjax.generators.erdos_renyi(200, 0.01, seed=5)  # many probe-less edges
    yield "star", kcjax.generators.star(40)  # no probe at all (the hub has no out-list)
    yield "triangle", kcjax.generators.complete(3)


@pytest.mark.parametrize("name,graph", list(_graphs()), ids=[n for n, _ in _graphs()])
@pytest.mark.parametrize("grid,threads,batch", [(1, 4, 1), (3, 8, 2), (7, 32, 2), (64, 4, 1)])
def test_dag_flat_takes_every_probe_once(name, graph, grid, threads, batch):
    """Every probe of every DAG edge is taken exactly once, whatever the grid and tile
    (tiles that end at the staged range's end included), and the triangles found give
    networkx's triangles per edge."""
    index = edge_index(graph)
    dag = index.dag
    dptr, dcol, dsrc = (np.asarray(a) for a in (dag.indptr, dag.indices, dag.src))
    deid = np.asarray(index.dag_eid)
    off, taken, triangles, done = _dag_flat(dptr, dcol, dsrc, deid, grid, threads, batch)
    want = sorted((d, j) for d in range(len(dcol)) for j in range(off[d + 1] - off[d]))
    assert sorted(taken) == want
    src, dst = (np.asarray(a) for a in graph.edges())
    g = to_nx(graph)
    support = np.zeros(len(src), np.int64)
    for e, e1, e2 in triangles:
        support[[e, e1, e2]] += 1
    expect = [len(set(g[int(u)]) & set(g[int(v)])) for u, v in zip(src, dst, strict=True)]
    assert support.tolist() == expect
    assert len(triangles) == sum(nx.triangles(g).values()) // 3
    assert sum(done.values()) == len(triangles)
