"""A host model of the k-truss DAG pass (DagTriangles in ffi/cuda/truss/support.cuh:
the supports and the h-index's triangle store), against networkx: every probe taken
exactly once, every live triangle found once, the supports equal.

The model follows the kernel's index arithmetic: tiles of `threads` DAG edges (all
m, or the prefilter's list) dealt to the blocks, each tile's probe counts scanned,
its probes taken `threads` x `batch` at a time and their edges found by
LastAtMost, and the per-edge counts handed to `done` once per edge and tile. The
CUDA kernels themselves are compared with the C++ twin in test_gpu.py.
"""

from __future__ import annotations

import random

import networkx as nx
import numpy as np
import pytest
from reference.split import last_at_most
from reference.truss import to_nx, two_hubs

import kcjax
from kcjax.experimental import truss_edge_index as edge_index


def _dag_tiles(dptr, dcol, dsrc, deid, grid: int, threads: int, batch: int, dlist=None, live=None):
    """The (DAG edge, probe) pairs the pass takes, the triangles (e, e1, e2) it finds and
    the per-edge counts `done` receives (summed), in any order of blocks."""
    items = list(range(len(dcol))) if dlist is None else list(dlist)
    alive = (lambda e: True) if live is None else (lambda e: bool(live[e]))
    taken, triangles, done = [], [], {}
    tiles = range(0, len(items), threads)
    for block in random.Random(grid).sample(range(grid), grid):
        for i0 in tiles[block::grid]:
            staged, probes = [], []
            for t in range(threads):
                row = None
                if i0 + t < len(items):
                    d = int(items[i0 + t])
                    if alive(int(deid[d])):
                        a, b = int(dsrc[d]), int(dcol[d])
                        a0, a1, b0, b1 = (
                            int(x) for x in (dptr[a], dptr[a + 1], dptr[b], dptr[b + 1])
                        )
                        if a1 - a0 > b1 - b0:
                            a0, a1, b0, b1 = b0, b1, a0, a1
                        row = (d, a0, b0, b1, int(deid[d]), a1 - a0)
                staged.append(row)
                probes.append(row[5] if row else 0)
            s_off = [0]
            for p in probes:  # the block's exclusive scan, and the total
                s_off.append(s_off[-1] + p)
            count = [0] * threads
            for q0 in range(0, s_off[threads], threads * batch):
                for q in range(q0, min(q0 + threads * batch, s_off[threads])):
                    t = last_at_most(s_off, threads, q)
                    d, a0, b0, b1, e, _ = staged[t]
                    taken.append((d, q - s_off[t]))
                    i = a0 + q - s_off[t]
                    w = dcol[i]
                    k = b0 + int(np.searchsorted(dcol[b0:b1], w))
                    if k < b1 and dcol[k] == w:
                        e1, e2 = int(deid[i]), int(deid[k])
                        if alive(e1) and alive(e2):
                            triangles.append((e, e1, e2))
                            count[t] += 1
            for t in range(threads):
                if count[t]:
                    done[staged[t][4]] = done.get(staged[t][4], 0) + count[t]
    return taken, triangles, done


def _graphs():
    yield "cliques", kcjax.generators.planted_cliques(120, 0.04, [11, 7, 5], seed=3)
    yield "rmat", kcjax.generators.rmat(8, 6, seed=4)
    yield "hubs", two_hubs(50, 8)
    yield "sparse", kcjax.generators.erdos_renyi(200, 0.01, seed=5)  # many probe-less edges
    yield "star", kcjax.generators.star(40)  # no probe at all (the hub has no out-list)
    yield "triangle", kcjax.generators.complete(3)


@pytest.mark.parametrize("name,graph", list(_graphs()), ids=[n for n, _ in _graphs()])
@pytest.mark.parametrize("grid,threads,batch", [(1, 4, 1), (3, 8, 2), (7, 32, 4), (64, 4, 1)])
@pytest.mark.parametrize("listed", [False, True])
def test_dag_tiles_take_every_probe_once(name, graph, grid, threads, batch, listed):
    """Every probe of every live listed DAG edge is taken exactly once, whatever the grid
    and tile, and the live triangles found give networkx's triangles per edge of the
    live subgraph (listed: a random half of the edges live, the live DAG edges listed
    in a random order, as the prefilter's list)."""
    index = edge_index(graph)
    dag = index.dag
    dptr, dcol, dsrc = (np.asarray(a) for a in (dag.indptr, dag.indices, dag.src))
    deid = np.asarray(index.dag_eid)
    src, dst = (np.asarray(a) for a in graph.edges())
    rng = np.random.default_rng(len(src) + grid)
    live = rng.random(len(src)) < 0.5 if listed else np.ones(len(src), bool)
    dlist = rng.permutation(np.flatnonzero(live[deid])) if listed else None
    taken, triangles, done = _dag_tiles(dptr, dcol, dsrc, deid, grid, threads, batch, dlist, live)
    size = np.diff(dptr)
    want = sorted(
        (d, j)
        for d in range(len(dcol))
        if live[deid[d]]
        for j in range(min(size[dsrc[d]], size[dcol[d]]))
    )
    assert sorted(taken) == want
    g = to_nx(graph)
    g.remove_edges_from(
        [(int(u), int(v)) for u, v, ok in zip(src, dst, live, strict=True) if not ok]
    )
    support = np.zeros(len(src), np.int64)
    for e, e1, e2 in triangles:
        support[[e, e1, e2]] += 1
    expect = [
        len(set(g[int(u)]) & set(g[int(v)])) if ok else 0
        for u, v, ok in zip(src, dst, live, strict=True)
    ]
    assert support.tolist() == expect
    assert len(triangles) == sum(nx.triangles(g).values()) // 3
    assert sum(done.values()) == len(triangles)
