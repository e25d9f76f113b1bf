"""References for labeled subgraph matching: networkx matchers, random labeled
graphs and walk queries, and the shared counts.tsv ground truth."""

from __future__ import annotations

import csv
import math
from pathlib import Path

import networkx as nx
import numpy as np
from networkx.algorithms import isomorphism

from kcjax import LabeledGraph
from reference import DATA_DIR

#: ../shared/data/matching (counts.tsv, data graphs, queries).
MATCH_DIR = DATA_DIR.parent / "matching"


def nx_embeddings(data: nx.Graph, query: nx.Graph, *, induced: bool = False) -> set[tuple]:
    """Every embedding as a tuple (image of query vertex 0, 1, ...), by networkx.

    Non-induced: subgraph monomorphisms; induced: subgraph isomorphisms; labels
    in the ``label`` node attribute must be equal.
    """
    gm = isomorphism.GraphMatcher(data, query, node_match=lambda a, b: a["label"] == b["label"])
    it = gm.subgraph_isomorphisms_iter() if induced else gm.subgraph_monomorphisms_iter()
    nodes = list(query.nodes)
    out = set()
    for m in it:
        inv = {qv: dv for dv, qv in m.items()}
        out.add(tuple(inv[v] for v in nodes))
    return out


def random_labeled(n: int, p: float, labels: int, seed: int, parts: int = 1) -> nx.Graph:
    """G(n, p) split into ``parts`` disconnected pieces, labels uniform in [0, labels)."""
    rng = np.random.default_rng(seed)
    g = nx.Graph()
    sizes = np.full(parts, n // parts)
    sizes[: n % parts] += 1
    start = 0
    for s in sizes:
        piece = nx.gnp_random_graph(int(s), p, seed=int(rng.integers(1 << 30)))
        g.add_nodes_from(range(start, start + int(s)))
        g.add_edges_from((u + start, v + start) for u, v in piece.edges())
        start += int(s)
    for v in g:
        g.nodes[v]["label"] = int(rng.integers(labels))
    return g


def walk_query(data: nx.Graph, size: int, seed: int) -> nx.Graph:
    """Induced subgraph on the first ``size`` distinct vertices of a random walk
    (restarted from a new vertex after 50 * size steps), data labels kept,
    vertices renumbered in visiting order (Sun & Luo's query generator)."""
    rng = np.random.default_rng(seed)
    nodes = list(data.nodes)
    for _ in range(100):
        cur = nodes[int(rng.integers(len(nodes)))]
        seen = [cur]
        for _ in range(50 * size):
            if len(seen) == size:
                break
            nbrs = list(data[cur])
            if not nbrs:
                break
            cur = nbrs[int(rng.integers(len(nbrs)))]
            if cur not in seen:
                seen.append(cur)
        if len(seen) == size:
            break
    sub = data.subgraph(seen)
    q = nx.Graph()
    for i, v in enumerate(seen):
        q.add_node(i, label=data.nodes[v]["label"])
    index = {v: i for i, v in enumerate(seen)}
    q.add_edges_from((index[u], index[v]) for u, v in sub.edges())
    return q


def counts_rows() -> list[dict[str, str]]:
    """The rows of counts.tsv (empty when the shared data are absent)."""
    path = MATCH_DIR / "counts.tsv"
    if not path.exists():
        return []
    with open(path) as f:
        return list(csv.DictReader(f, delimiter="\t"))


def data_path(name: str) -> Path:
    return MATCH_DIR / f"{name}.graph.gz"


def query_path(data: str, query: str) -> Path:
    return MATCH_DIR / "queries" / data / f"{query}.graph"


def twin_star(leaves: int, arms: int) -> tuple[LabeledGraph, LabeledGraph, int]:
    """A star whose ``leaves`` leaves are twins (centre label 0, leaves label 1),
    the star query with ``arms`` arms, and its exact embedding count
    ``leaves * (leaves - 1) * ... * (leaves - arms + 1)``."""
    star = LabeledGraph.from_edges(
        np.zeros(leaves, int), np.arange(1, leaves + 1), [0] + [1] * leaves
    )
    query = LabeledGraph.from_edges(np.zeros(arms, int), np.arange(1, arms + 1), [0] + [1] * arms)
    return star, query, math.perm(leaves, arms)
