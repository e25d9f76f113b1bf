"""References for the truss tests: networkx trussness and the shared ground truth."""

from __future__ import annotations

import csv
import functools

import jax
import networkx as nx
import numpy as np

import kcjax
from kcjax import experimental
from reference import DATA_DIR

TRUSS_TSV = DATA_DIR.parent / "truss" / "truss_counts.tsv"


def hindex_call(graph: kcjax.Graph, store_entries: int, method: str = "dag") -> jax.Array:
    """Target kcjax_truss in mode kHIndex with an explicit ``store_entries`` (the public
    API passes the memoized degree bound, or -1 under jit)."""
    return experimental.truss_call(
        graph,
        experimental.truss_edge_index(graph),
        experimental.truss_no_core(graph),
        experimental.truss_k_argument(graph, 0),
        mode=experimental.TRUSS_MODE_HINDEX,
        method=experimental.TRUSS_SUPPORT_METHODS[method],
        num_threads=0,
        store_entries=store_entries,
    )


def h_index(values, cap: int) -> int:
    """The largest x <= cap with at least x of ``values`` >= x (the h-index updates' rule)."""
    v = sorted((min(int(x), cap) for x in values), reverse=True)
    return max([0] + [min(x, i + 1) for i, x in enumerate(v)])


def to_nx(graph: kcjax.Graph) -> nx.Graph:
    src, dst = (np.asarray(a) for a in graph.edges())
    g = nx.Graph()
    g.add_nodes_from(range(graph.num_nodes))
    g.add_edges_from(zip(src.tolist(), dst.tolist(), strict=True))
    return g


def edge_set(g: nx.Graph) -> set[tuple[int, int]]:
    return {(min(u, v), max(u, v)) for u, v in g.edges()}


def masked_edges(graph: kcjax.Graph, mask) -> set[tuple[int, int]]:
    src, dst = (np.asarray(a) for a in graph.edges())
    keep = np.asarray(mask, bool)
    return set(zip(src[keep].tolist(), dst[keep].tolist(), strict=True))


def trussness_networkx(graph: kcjax.Graph) -> np.ndarray:
    """int32[m] aligned with graph.edges(): chained networkx.k_truss."""
    g = to_nx(graph)
    src, dst = (np.asarray(a) for a in graph.edges())
    pos = {(int(u), int(v)): i for i, (u, v) in enumerate(zip(src, dst, strict=True))}
    truss = np.full(len(pos), 2, np.int32)
    k, h = 3, g
    while h.number_of_edges():
        h = nx.k_truss(h, k)
        for e in edge_set(h):
            truss[pos[e]] = k
        k += 1
    return truss


@functools.cache
def truss_rows() -> dict[str, dict[int, tuple[int, int, int]]]:
    """graph -> k -> (edges, vertices, edge_sum) from truss_counts.tsv."""
    rows: dict[str, dict[int, tuple[int, int, int]]] = {}
    with open(TRUSS_TSV) as f:
        for r in csv.DictReader(f, delimiter="\t"):
            rows.setdefault(r["graph"], {})[int(r["k"])] = (
                int(r["edges"]),
                int(r["vertices"]),
                int(r["edge_sum"]),
            )
    return rows


def summary(src: np.ndarray, dst: np.ndarray) -> tuple[int, int, int]:
    """(edges, vertices, edge_sum) of an edge set, edge_sum exact (Python ints)."""
    verts = np.unique(np.concatenate([src, dst])).size
    return (
        int(src.size),
        int(verts),
        int(src.astype(np.int64).sum()) * 2**32 + int(dst.astype(np.int64).sum()),
    )


def two_hubs(leaves: int, clique: int) -> kcjax.Graph:
    """Hubs 0 and 1 joined to each other and to every leaf 2..leaves+1, a clique on the
    first leaves: edge {0, 1} has two long lists (peeled in chunks over the grid)."""
    ids = np.arange(2, leaves + 2)
    cu, cv = np.triu_indices(clique, 1)
    src = np.concatenate([[0], np.zeros(leaves, int), np.ones(leaves, int), cu + 2])
    dst = np.concatenate([[1], ids, ids, cv + 2])
    return kcjax.Graph.from_edges(src, dst)
