"""Symmetry breaking: the query's automorphism group against networkx, the
constraints' one-per-class property by brute force, and counts with and
without it (and branch sharing) against networkx's monomorphism count on
symmetric queries."""

from __future__ import annotations

import itertools
import math

import jax
import networkx as nx
import numpy as np
import pytest
from networkx.algorithms import isomorphism
from reference.matching import nx_embeddings, random_labeled, twin_star

import kcjax
from kcjax import LabeledGraph
from kcjax.experimental import limbs_mul, match_symmetry


def _labeled(g: nx.Graph, labels) -> nx.Graph:
    g = nx.convert_node_labels_to_integers(g)
    for v in g:
        g.nodes[v]["label"] = int(labels[v])
    return g


def _symmetry(q: nx.Graph):
    labels = tuple(q.nodes[v]["label"] for v in range(q.number_of_nodes()))
    return match_symmetry(labels, tuple((min(e), max(e)) for e in q.edges()))


def _group(q: nx.Graph) -> list[dict]:
    """Aut(q) by networkx: every label-preserving isomorphism of q onto itself."""
    gm = isomorphism.GraphMatcher(q, q, node_match=lambda a, b: a["label"] == b["label"])
    return list(gm.isomorphisms_iter())


def _queries():
    rng = np.random.default_rng(5)
    shapes = {
        "cycle": lambda q: nx.cycle_graph(q),
        "star": lambda q: nx.star_graph(q - 1),
        "bipartite": lambda q: nx.complete_bipartite_graph(q // 2, q - q // 2),
        "clique": lambda q: nx.complete_graph(q),
        "path": lambda q: nx.path_graph(q),
        "gnp": lambda q: nx.gnp_random_graph(q, 0.5, seed=int(rng.integers(1 << 30))),
    }
    for name, shape in shapes.items():
        for q in (3, 4, 6):
            for labels in (1, 2):
                g = shape(q)
                yield (
                    f"{name}{q}-L{labels}",
                    _labeled(g, rng.integers(0, labels, g.number_of_nodes())),
                )


QUERIES = list(_queries())


@pytest.mark.parametrize(("name", "q"), QUERIES, ids=[n for n, _ in QUERIES])
def test_group_size_and_one_constrained_member_per_class(name, q):
    group = _group(q)
    sym = _symmetry(q)
    assert sym.size == len(group)
    # Every class {f o s : s in Aut(q)} of an injective f has exactly one member
    # that meets the constraints (f: query vertex -> distinct data id).
    n = q.number_of_nodes()
    pairs = np.argwhere(sym.less)
    maps = list(itertools.permutations(range(n + 2), n))
    for f in maps[:: max(1, len(maps) // 100)]:
        met = sum(all(f[s[a]] < f[s[b]] for a, b in pairs) for s in group)
        assert met == 1, (name, f)


@pytest.mark.parametrize(
    ("name", "graph", "size"),
    [
        ("clique", nx.complete_graph(32), math.factorial(32)),
        ("empty", nx.empty_graph(32), math.factorial(32)),
        ("star", nx.star_graph(31), math.factorial(31)),
        ("hypercube", nx.hypercube_graph(5), 3840),
        ("petersen", nx.petersen_graph(), 120),
        (
            "matching",
            nx.disjoint_union_all([nx.complete_graph(2)] * 16),
            2**16 * math.factorial(16),
        ),
    ],
)
def test_large_groups(name, graph, size):
    q = _labeled(graph, np.zeros(graph.number_of_nodes(), int))
    assert _symmetry(q).size == size


def test_limbs_mul_is_128_bit_product():
    rng = np.random.default_rng(0)
    mask = (1 << 128) - 1
    values = [0, 1, 2**32 - 1, 2**64 + 3, mask, math.factorial(32)]
    values += [int(rng.integers(1 << 62)) << int(rng.integers(0, 66)) for _ in range(20)]

    def limbs(x):
        return np.asarray([(x >> (32 * i)) & 0xFFFFFFFF for i in range(4)], np.uint32)

    mul = jax.jit(limbs_mul)
    for a, b in itertools.product(values[:12], values[::2]):
        assert kcjax.limbs_to_int(mul(limbs(a), limbs(b))) == (a * b) & mask, (a, b)


def _symmetric_cases():
    """Symmetric walk-free queries on random labeled graphs: few labels, so
    orbits of two or more vertices survive the labels."""
    data = random_labeled(22, 0.35, 2, seed=21)
    for name, shape in [
        ("cycle5", nx.cycle_graph(5)),
        ("star4", nx.star_graph(3)),
        ("k23", nx.complete_bipartite_graph(2, 3)),
        ("triangle_tail", nx.lollipop_graph(3, 1)),
        ("two_paths", nx.disjoint_union(nx.path_graph(2), nx.path_graph(2))),
    ]:
        for labels in ([0] * 6, [0, 1, 0, 1, 0, 1]):
            yield f"{name}-{''.join(map(str, labels[:4]))}", data, _labeled(shape, labels)


SYMMETRIC = list(_symmetric_cases())


@pytest.mark.parametrize(("name", "g", "q"), SYMMETRIC, ids=[n for n, *_ in SYMMETRIC])
def test_count_with_and_without_symmetry_equals_networkx(platform, name, g, q):
    d, qq = LabeledGraph.from_networkx(g), LabeledGraph.from_networkx(q)
    for induced in (False, True):
        ref = len(nx_embeddings(g, q, induced=induced))
        for symmetry, dominance in itertools.product((True, False), repeat=2):
            got = kcjax.count_embeddings(
                d, qq, induced=induced, symmetry=symmetry, dominance=dominance
            )
            assert got == ref, (induced, symmetry, dominance)
    traced = jax.jit(lambda data: kcjax.count_embeddings_limbs(data, qq))
    assert kcjax.limbs_to_int(traced(d)) == len(nx_embeddings(g, q))


def test_stats_report_the_group():
    g = random_labeled(22, 0.35, 1, seed=3)
    d = LabeledGraph.from_networkx(g)
    q = LabeledGraph.from_networkx(_labeled(nx.cycle_graph(4), [0] * 4))
    stats = kcjax.match_stats(d, q)
    assert stats["automorphisms"] == 8
    assert len(stats["constraints"]) == 4  # an orbit of 4, then one of 2
    assert kcjax.match_stats(d, q, symmetry=False)["constraints"] == []


def test_twins_stay_shared_and_constraints_apply_where_exact():
    """Hub h (label 0) and a (label 1) adjacent, four twins x1..x4 (label 1) each
    adjacent to both. A triangle query [0, 1, 1] has one constraint, between its
    adjacent label-1 vertices: it applies with the twins folded. A path [1, 0, 1]
    has one between its non-adjacent ends, whose candidates share the twins'
    class: the count keeps the class folded and drops the constraint. Both exact."""
    g = nx.Graph([(0, 1)] + [(v, x) for x in range(2, 6) for v in (0, 1)])
    for v in g:
        g.nodes[v]["label"] = int(v != 0)
    d = LabeledGraph.from_networkx(g)
    for shape, labels, applied in (
        (nx.complete_graph(3), [0, 1, 1], True),
        (nx.path_graph(3), [1, 0, 1], False),
    ):
        q = _labeled(shape, labels)
        qq = LabeledGraph.from_networkx(q)
        stats = kcjax.match_stats(d, qq)
        assert stats["automorphisms"] == 2
        assert len(stats["constraints"]) == int(applied)
        assert stats["twins"] == 3
        assert kcjax.count_embeddings(d, qq) == len(nx_embeddings(g, q))


def test_twin_star_past_2_64_counts_with_symmetry_on():
    """A star query on a star of twin leaves: every pair of arms is non-adjacent
    and shares the twins' class, so the count stays one folded branch."""
    star, query, expected = twin_star(40, 13)
    assert expected > 2**64
    assert kcjax.count_embeddings(star, query) == expected
