"""kcjax as a networkx backend: backend="kcjax" against networkx itself.

Random graphs with string node labels in shuffled insertion order (so node
order, adjacency order and label order all differ), self loops and isolated
nodes; every served function must return exactly networkx's result, in
networkx's order where networkx yields or builds ordered containers.
"""

from __future__ import annotations

import itertools
import json
import random
import subprocess
import sys
import types
from importlib.metadata import entry_points
from pathlib import Path

import pytest

nx = pytest.importorskip("networkx")

pytestmark = pytest.mark.skipif(
    not entry_points(group="networkx.backends", name="kcjax"),
    reason="kcjax's networkx entry points are not installed (pip install -e .)",
)

KC = {"backend": "kcjax"}


@pytest.fixture(autouse=True)
def _quiet_cache_note():
    nx.config.warnings_to_ignore.add("cache")
    yield


def labeled_graph(n: int, p: float, seed: int, loops: int = 0) -> nx.Graph:
    """G(n, p) with labels "v<i>" inserted in a shuffled order, edges in a shuffled order."""
    rng = random.Random(seed)
    base = nx.gnp_random_graph(n, p, seed=seed)
    order = list(base)
    rng.shuffle(order)
    edges = list(base.edges())
    rng.shuffle(edges)
    G = nx.Graph()
    G.add_nodes_from(f"v{i}" for i in order)
    G.add_edges_from((f"v{u}", f"v{v}") for u, v in edges)
    for u in rng.sample(order, loops):
        G.add_edge(f"v{u}", f"v{u}")
    return G


GRAPHS = {
    "empty": nx.Graph(),
    "isolated": nx.empty_graph(5),
    "sparse": labeled_graph(80, 0.04, 1, loops=2),
    "medium": labeled_graph(60, 0.15, 2, loops=1),
    "dense": labeled_graph(30, 0.6, 3),
    "complete": nx.complete_graph(7),
    "karate": nx.karate_club_graph(),
    "disconnected": nx.disjoint_union(nx.cycle_graph(5), nx.path_graph(4)),
}
NO_LOOPS = {name: G for name, G in GRAPHS.items() if not nx.number_of_selfloops(G)}


@pytest.mark.parametrize("name", GRAPHS)
def test_triangles_transitivity(name):
    G = GRAPHS[name]
    got = nx.triangles(G, **KC)
    assert got == nx.triangles(G) and list(got) == list(nx.triangles(G))
    assert all(type(v) is int for v in got.values())
    for node in itertools.islice(G, 3):
        assert nx.triangles(G, node, **KC) == nx.triangles(G, node)
    some = list(G)[::2] + ["missing"]
    assert list(nx.triangles(G, some, **KC).items()) == list(nx.triangles(G, some).items())
    t = nx.transitivity(G, **KC)
    assert t == nx.transitivity(G) and type(t) is type(nx.transitivity(G))


@pytest.mark.parametrize("name", NO_LOOPS)
def test_cores(name):
    G = GRAPHS[name]
    assert list(nx.core_number(G, **KC).items()) == list(nx.core_number(G).items())
    for k in (None, 1, 2, 3):
        if k is None and len(G) == 0:
            continue
        got, want = nx.k_core(G, k, **KC), nx.k_core(G, k)
        assert list(got.nodes(data=True)) == list(want.nodes(data=True))
        assert list(got.edges(data=True)) == list(want.edges(data=True))
        assert got.graph == want.graph


def test_k_core_hub_orders():
    """A hub of degree > 2 |core|: networkx's view filters its row in the graph's order."""
    rng = random.Random(4)
    clique = [100, 7, 55, 3, 81, 20]  # ints: set orders independent of hash seeds
    G = nx.Graph()
    G.add_edges_from((100, leaf) for leaf in range(200, 230))
    pairs = list(itertools.combinations(clique, 2))
    rng.shuffle(pairs)
    G.add_edges_from(pairs)
    for k in (None, 3, 5):
        same_graph_exactly(nx.k_core(G, k, **KC), nx.k_core(G, k))


def test_k_core_keeps_attributes():
    G = labeled_graph(40, 0.2, 5)
    G.graph["name"] = "g"
    for i, u in enumerate(G):
        G.nodes[u]["i"] = i
    for u, v in G.edges:
        G[u][v]["w"] = len(u) + len(v)
    got, want = nx.k_core(G, 3, **KC), nx.k_core(G, 3)
    assert nx.utils.graphs_equal(got, want) and got.graph == {"name": "g"}


def same_graph_exactly(got: nx.Graph, want: nx.Graph) -> None:
    """Equal graphs, types, attributes and every order (nodes, adjacencies, edges)."""
    assert type(got) is type(want) and got.graph == want.graph
    assert list(got.nodes(data=True)) == list(want.nodes(data=True))
    assert list(got.edges(data=True)) == list(want.edges(data=True))
    for u in want:
        assert list(got._adj[u].items()) == list(want._adj[u].items()), u


@pytest.mark.parametrize("name", NO_LOOPS)
@pytest.mark.parametrize("k", [-1, 0, 2, 3, 4, 5, 7, 9, 10**12])
def test_k_truss(name, k):
    G = GRAPHS[name]
    same_graph_exactly(nx.k_truss(G, k, **KC), nx.k_truss(G, k))


@pytest.mark.parametrize("seed", range(6))
def test_k_truss_keeps_attributes(seed):
    G = labeled_graph(70, (0.06, 0.15, 0.35)[seed % 3], 10 + seed)
    G.graph["name"] = "g"
    for i, u in enumerate(G):
        G.nodes[u]["i"] = [i]
    for u, v in G.edges:
        G[u][v]["w"] = u + v
    for k in range(2, 9):
        got, want = nx.k_truss(G, k, **KC), nx.k_truss(G, k)
        same_graph_exactly(got, want)
        for u, v in want.edges:
            assert got[u][v] is not G[u][v]  # copies, as networkx's G.copy()


@pytest.mark.parametrize("name", GRAPHS)
def test_enumerate_all_cliques(name):
    G = GRAPHS[name]
    got = nx.enumerate_all_cliques(G, **KC)
    assert isinstance(got, types.GeneratorType)
    assert list(got) == list(nx.enumerate_all_cliques(G))


def _cliques(cliques) -> list:
    return sorted(sorted(map(str, c)) for c in cliques)


@pytest.mark.parametrize("name", [*GRAPHS, "blocks"])
def test_maximal_cliques(name):
    """find_cliques: networkx's maximal cliques (as sets; networkx documents no order);
    node_clique_number: its dict, types as networkx returns them; max_weight_clique
    with unit weights: a clique of networkx's weight."""
    if name == "blocks":  # overlapping cliques of many sizes, one batch per root
        G = nx.Graph()
        rng = random.Random(5)
        for _ in range(40):
            nx.add_path(G, rng.sample(range(60), 2))
            c = rng.sample(range(60), rng.randint(3, 9))
            G.add_edges_from(itertools.combinations(c, 2))
    else:
        G = GRAPHS[name]
    got = nx.find_cliques(G, **KC)
    assert isinstance(got, types.GeneratorType)
    want = _cliques(nx.find_cliques(G))
    assert _cliques(got) == want
    assert _cliques(nx.find_cliques_recursive(G, **KC)) == want
    ncn = nx.node_clique_number(G, **KC)
    assert type(ncn) is type(nx.node_clique_number(G)) and ncn == nx.node_clique_number(G)
    if len(G):
        node = next(iter(G))
        assert nx.node_clique_number(G, node, **KC) == nx.node_clique_number(G, node)
        some = list(G)[:3]
        assert nx.node_clique_number(G, some, **KC) == nx.node_clique_number(G, some)
    clique, weight = nx.max_weight_clique(G, weight=None, **KC)
    assert weight == nx.max_weight_clique(G, weight=None)[1] == len(clique)
    H = G.subgraph(clique)
    assert H.number_of_edges() - nx.number_of_selfloops(H) == len(clique) * (len(clique) - 1) // 2


def test_maximal_cliques_in_batches(monkeypatch):
    """Batches smaller than one root's cliques, and ranges split and retried."""
    from kcjax.nx import clique

    G = GRAPHS["dense"]
    monkeypatch.setattr(clique, "FIND_CLIQUES_BATCH", 5)
    assert _cliques(nx.find_cliques(G, **KC)) == _cliques(nx.find_cliques(G))


def test_max_weight_clique_declines_weights():
    from kcjax.nx import can_run

    G = nx.complete_graph(4)
    assert can_run("max_weight_clique", (G,), {}).startswith("a node has no 'weight'")
    nx.set_node_attributes(G, 1, "weight")
    assert can_run("max_weight_clique", (G,), {}) is True
    assert nx.max_weight_clique(G, **KC) == (list(G), 4)
    G.nodes[2]["weight"] = 3
    assert "other than 1" in can_run("max_weight_clique", (G,), {})
    G.nodes[2]["weight"] = 1.0
    assert "not an int" in can_run("max_weight_clique", (G,), {})
    with nx.config(backend_priority=["kcjax"]), pytest.raises(ValueError):
        nx.max_weight_clique(G)  # networkx's own error, after the decline
    G.nodes[2]["weight"] = 3
    with nx.config(backend_priority=["kcjax"], fallback_to_nx=True):
        assert nx.max_weight_clique(G)[1] == 6


def test_conversion_is_cached_once_per_graph(monkeypatch):
    """networkx's cache (``nx.config.cache_converted_graphs``): repeated calls convert
    once, calls needing attributes reuse the arrays, a mutation converts again."""
    from kcjax.nx import convert

    calls = []
    real = convert._from_adjacency
    monkeypatch.setattr(convert, "_from_adjacency", lambda *a: calls.append(1) or real(*a))
    G = labeled_graph(60, 0.2, 4, loops=2)
    want = nx.triangles(G)
    assert nx.triangles(G, **KC) == want and nx.triangles(G, **KC) == want
    assert _cliques(nx.find_cliques(G, **KC)) == _cliques(nx.find_cliques(G))
    assert len(calls) == 1
    G.remove_edges_from(list(nx.selfloop_edges(G)))
    calls.clear()
    same_graph_exactly(nx.k_truss(G, 4, **KC), nx.k_truss(G, 4))
    same_graph_exactly(nx.k_core(G, 3, **KC), nx.k_core(G, 3))
    nx.core_number(G, **KC)
    assert len(calls) == 1
    with nx.config(cache_converted_graphs=False):
        nx.core_number(G, **KC)
    assert len(calls) == 2


def _relabeled(G: nx.Graph, label) -> nx.Graph:
    """G with node i renamed label(i), nodes and edges in G's order."""
    H = nx.Graph()
    H.add_nodes_from(label(v) for v in G)
    H.add_edges_from((label(u), label(v)) for u, v in G.edges())
    return H


CONVERSIONS = {
    "sparse": GRAPHS["sparse"],
    "karate": GRAPHS["karate"],
    # ints with gaps (the native pass maps them by their hash), then ints spread too
    # far for that, a negative int and a string among ints (a dict look-up each).
    "gapped_ints": _relabeled(
        nx.relabel_nodes(GRAPHS["medium"], str), lambda v: 3 * int(v[1:]) + 7
    ),
    "spread_ints": _relabeled(GRAPHS["karate"], lambda v: v * 10**6),
    "negative_int": _relabeled(GRAPHS["karate"], lambda v: v - 1),
    "mixed": _relabeled(GRAPHS["karate"], lambda v: "hub" if v == 0 else v),
}


@pytest.mark.parametrize("name", CONVERSIONS)
def test_native_conversion_equals_generic(name):
    from kcjax.experimental import nx_adjacency_csr, nx_adjacency_csr_native, nx_identity_labels

    G = CONVERSIONS[name]
    labels = list(G._adj)
    index = None
    if not nx_identity_labels(labels):
        index = dict(zip(labels, range(len(G)), strict=True))
    native = nx_adjacency_csr_native(G._adj, index)
    generic = nx_adjacency_csr(G._adj, labels, index)
    for a, b in zip(native[:2], generic[:2], strict=True):
        assert a.tolist() == b.tolist()
    assert native[3] == generic[3] == nx.number_of_selfloops(G)
    assert (native[2] is None) == (generic[2] is None)
    if native[2] is not None:
        assert native[2].tolist() == generic[2].tolist()


def test_automatic_dispatch_by_environment():
    """NETWORKX_BACKEND_PRIORITY(_GENERATORS)=kcjax: served calls on large enough
    graphs run on kcjax, others (not served, declined) in networkx."""
    code = """
import networkx as nx
from kcjax.nx import clique, cluster
seen = []
for mod, name in ((clique, "find_cliques"), (clique, "node_clique_number"), (cluster, "triangles")):
    real = getattr(mod, name)
    setattr(mod, name, lambda *a, _r=real, _n=name, **k: seen.append(_n) or _r(*a, **k))
nx.config.warnings_to_ignore.add("cache")
assert nx.config.backend_priority.algos == ["kcjax"], nx.config.backend_priority
G = nx.gnp_random_graph(120, 0.3, seed=1)
assert sorted(map(sorted, nx.find_cliques(G))) == sorted(
    map(sorted, nx.find_cliques(G, backend="networkx")))
assert nx.node_clique_number(G) == nx.node_clique_number(G, backend="networkx")
assert nx.triangles(G) == nx.triangles(G, backend="networkx")
assert nx.number_of_cliques(G, 0) >= 1  # not served: networkx
omega = max(nx.node_clique_number(G, backend="networkx").values())
assert nx.max_weight_clique(G, weight=None)[1] == omega
try:
    nx.max_weight_clique(G)  # no node weights: declined, networkx raises its KeyError
except KeyError:
    pass
else:
    raise AssertionError("max_weight_clique without weights did not raise")
# networkx's own functions call find_cliques inside: those calls dispatch too.
assert set(seen) == {"find_cliques", "node_clique_number", "triangles"}, seen
"""
    env = {**__import__("os").environ, "NETWORKX_BACKEND_PRIORITY": "kcjax"}
    env["JAX_PLATFORMS"] = env.get("JAX_PLATFORMS", "cpu")
    subprocess.run([sys.executable, "-c", code], check=True, env=env)


@pytest.mark.parametrize("name", [n for n in GRAPHS if len(GRAPHS[n])])
@pytest.mark.parametrize("depth_limit", [None, 0, 1, 2])
def test_bfs_orders(name, depth_limit):
    G = GRAPHS[name]
    for source in itertools.islice(G, 0, None, max(1, len(G) // 4)):
        kw = {"depth_limit": depth_limit}
        for f in (nx.bfs_edges, nx.bfs_predecessors, nx.bfs_successors):
            got = f(G, source, **kw, **KC)
            assert isinstance(got, types.GeneratorType)
            assert list(got) == list(f(G, source, **kw)), f.__name__
        got, want = nx.bfs_tree(G, source, **kw, **KC), nx.bfs_tree(G, source, **kw)
        assert list(got.edges) == list(want.edges) and list(got) == list(want)
        for d in range(4):
            got = nx.descendants_at_distance(G, source, d, **KC)
            assert got == nx.descendants_at_distance(G, source, d)


def _lollipop_with_tail() -> nx.Graph:
    """Int labels in shuffled order: a dense G(n, p) part (layers of hundreds of
    BFS-DAG edges) joined to a long path (hundreds of one-vertex layers) that
    ends in a second dense part."""
    rng = random.Random(11)
    G = nx.gnp_random_graph(400, 0.05, seed=11)
    path = list(range(400, 700))
    G.add_edges_from(itertools.pairwise([7, *path]))
    G.add_edges_from((u + 700, v + 700) for u, v in nx.gnp_random_graph(300, 0.04, seed=12).edges)
    G.add_edge(path[-1], 700)
    nodes, edges = list(G), list(G.edges)
    rng.shuffle(nodes)
    rng.shuffle(edges)
    H = nx.Graph()
    H.add_nodes_from(nodes)
    H.add_edges_from(edges)
    return H


LARGE = {
    "labels": labeled_graph(700, 0.012, 21),
    "identity": nx.convert_node_labels_to_integers(labeled_graph(700, 0.012, 22)),
    "tail": _lollipop_with_tail(),
}


@pytest.mark.parametrize("name", LARGE)
def test_bfs_orders_on_larger_graphs(name):
    """networkx's orders from the native order pass, sources across the graph, depth
    limits, several sources."""
    G = LARGE[name]
    nodes = list(G)
    for source in nodes[:: len(nodes) // 3]:
        for f in (nx.bfs_edges, nx.bfs_predecessors, nx.bfs_successors):
            for depth_limit in (None, 3):
                got = list(f(G, source, depth_limit=depth_limit, **KC))
                assert got == list(f(G, source, depth_limit=depth_limit)), f.__name__
        got = nx.single_source_shortest_path_length(G, source, **KC)
        assert list(got.items()) == list(nx.single_source_shortest_path_length(G, source).items())
        assert nx.descendants_at_distance(G, source, 4, **KC) == nx.descendants_at_distance(
            G, source, 4
        )
    for sources in (nodes[0], nodes[:5]):
        assert list(nx.bfs_layers(G, sources, **KC)) == list(nx.bfs_layers(G, sources))


@pytest.mark.parametrize("name", [*LARGE, "disconnected", "karate"])
@pytest.mark.parametrize("ball_max_entries", [0, 40, 1 << 18])
def test_descendants_at_distance_host_ball_and_bfs(name, ball_max_entries, monkeypatch):
    """The host ball (stops at the distance), kcjax's BFS (budget 0), and a budget
    that runs out part way; distances past the component, non-integral ones."""
    from kcjax.nx import traversal

    monkeypatch.setattr(traversal, "BALL_MAX_ENTRIES", ball_max_entries)
    G = {**LARGE, **GRAPHS}[name]
    nodes = list(G)
    for source in nodes[:: max(1, len(nodes) // 4)]:
        for d in (1, 2, 3, 5, 8, 400, 2.0, 2.5, float("inf")):
            got = nx.descendants_at_distance(G, source, d, **KC)
            assert type(got) is set and got == nx.descendants_at_distance(G, source, d), d


@pytest.mark.parametrize("name", LARGE)
def test_bfs_tree_is_networkx_digraph(name):
    """Node, successor and predecessor orders; one fresh data dict per edge,
    shared by both directions; fresh node dicts."""
    G = LARGE[name]
    source = list(G)[len(G) // 2]
    got, want = nx.bfs_tree(G, source, **KC), nx.bfs_tree(G, source)
    assert type(got) is nx.DiGraph and got.graph == want.graph
    assert list(got.nodes(data=True)) == list(want.nodes(data=True))
    for u in want:
        assert list(got._succ[u].items()) == list(want._succ[u].items())
        assert list(got._pred[u].items()) == list(want._pred[u].items())
    data = [got._succ[u][v] for u, v in got.edges]
    assert all(got._pred[v][u] is d for (u, v), d in zip(got.edges, data, strict=True))
    assert len({id(d) for d in data}) == len(data)
    assert len({id(d) for d in got._node.values()}) == len(got)
    got.add_edge(source, "new", w=1)
    got.nodes[source]["x"] = 1
    assert got.has_edge(source, "new") and got.nodes[source] == {"x": 1}
    assert all(not d for u, d in got.nodes(data=True) if u != source)


def test_bfs_keeps_the_source_object():
    """networkx yields the source as given (1.0 for node 1) on the source's edges."""
    G = nx.path_graph(6)
    for f in (nx.bfs_edges, nx.bfs_predecessors, nx.bfs_successors):
        got, want = list(f(G, 1.0, **KC)), list(f(G, 1.0))
        assert got == want
        assert [tuple(map(type, e)) for e in got] == [tuple(map(type, e)) for e in want]
    got = nx.single_source_shortest_path_length(G, 1.0, **KC)
    want = nx.single_source_shortest_path_length(G, 1.0)
    assert [type(u) for u in got] == [type(u) for u in want]
    assert [type(u) for u in nx.bfs_tree(G, 1.0, **KC)] == [type(u) for u in nx.bfs_tree(G, 1.0)]


@pytest.mark.parametrize("name", [n for n in GRAPHS if len(GRAPHS[n]) > 2])
def test_bfs_layers(name):
    G = GRAPHS[name]
    nodes = list(G)
    for sources in (nodes[0], nodes[:2], [nodes[-1], nodes[1], nodes[-1]]):
        assert list(nx.bfs_layers(G, sources, **KC)) == list(nx.bfs_layers(G, sources))


@pytest.mark.parametrize("name", [n for n in GRAPHS if len(GRAPHS[n])])
@pytest.mark.parametrize("cutoff", [None, 0, 1, 2.5])
def test_path_lengths(name, cutoff):
    G = GRAPHS[name]
    for source in itertools.islice(G, 0, None, max(1, len(G) // 3)):
        got = nx.single_source_shortest_path_length(G, source, cutoff, **KC)
        assert list(got.items()) == list(
            nx.single_source_shortest_path_length(G, source, cutoff).items()
        )
        got = nx.single_target_shortest_path_length(G, source, cutoff, **KC)
        assert got == nx.single_target_shortest_path_length(G, source, cutoff)
        assert nx.shortest_path_length(G, source, **KC) == nx.shortest_path_length(G, source)
        for target in itertools.islice(G, 0, None, max(1, len(G) // 3)):
            try:
                want = nx.shortest_path_length(G, source, target)
            except nx.NetworkXNoPath:
                with pytest.raises(nx.NetworkXNoPath):
                    nx.shortest_path_length(G, source, target, **KC)
                continue
            assert nx.shortest_path_length(G, source, target, **KC) == want
    got = dict(nx.all_pairs_shortest_path_length(G, cutoff, **KC))
    assert got == dict(nx.all_pairs_shortest_path_length(G, cutoff))


@pytest.mark.parametrize("name", ["complete", "karate", "dense", "disconnected"])
def test_eccentricity_diameter(name):
    G = GRAPHS[name]
    if not nx.is_connected(G):
        with pytest.raises(nx.NetworkXError, match="not connected"):
            nx.eccentricity(G, **KC)
        return
    assert list(nx.eccentricity(G, **KC).items()) == list(nx.eccentricity(G).items())
    node = next(iter(G))
    assert nx.eccentricity(G, node, **KC) == nx.eccentricity(G, node)
    assert nx.diameter(G, **KC) == nx.diameter(G)


def test_errors_match_networkx():
    G = GRAPHS["karate"]
    with pytest.raises(nx.NodeNotFound, match="Source 99 is not in G"):
        nx.single_source_shortest_path_length(G, 99, **KC)
    with pytest.raises(nx.NetworkXError, match="not in the graph"):
        list(nx.bfs_edges(G, 99, **KC))
    with pytest.raises(nx.NetworkXError, match="not in the graph"):
        list(nx.bfs_layers(G, [0, 99], **KC))
    with pytest.raises(ValueError, match="method not supported"):
        nx.shortest_path_length(G, 0, 1, method="bogus", **KC)


@pytest.mark.parametrize(
    ("func", "args", "kwargs"),
    [
        (nx.bfs_edges, (nx.DiGraph([(0, 1)]), 0), {}),
        (nx.bfs_edges, (nx.path_graph(3), 0), {"sort_neighbors": sorted}),
        (nx.shortest_path_length, (nx.path_graph(3), 0, 2), {"weight": "weight"}),
        (nx.core_number, (nx.Graph([(0, 1), (1, 1)]),), {}),
        (nx.diameter, (nx.path_graph(3),), {"usebounds": True}),
        (
            nx.eccentricity,
            (nx.path_graph(3),),
            {"sp": dict(nx.all_pairs_shortest_path_length(nx.path_graph(3)))},
        ),
        (nx.triangles, (nx.MultiGraph([(0, 1)]),), {}),
        (nx.k_truss, (nx.Graph([(0, 1), (1, 2), (0, 2), (2, 2)]), 3), {}),
        (nx.k_truss, (nx.complete_graph(5), 3.5), {}),
        (nx.k_truss, (nx.MultiGraph(nx.complete_graph(4)), 3), {}),
        (nx.k_truss, (type("Sub", (nx.Graph,), {})(nx.complete_graph(4)), 3), {}),
        (nx.k_core, (type("Sub", (nx.Graph,), {})(nx.complete_graph(4)), 2), {}),
    ],
)
def test_declines_what_it_does_not_serve(func, args, kwargs):
    from kcjax.nx import can_run

    verdict = can_run(func.name, args, kwargs)
    assert isinstance(verdict, str) and verdict
    with nx.config(backend_priority=["kcjax"], fallback_to_nx=True):
        try:
            want = func(*args, **kwargs)
        except nx.NetworkXException as err:
            want = type(err)
    try:
        result = func(*args, **kwargs)
    except nx.NetworkXException as err:
        result = type(err)
    if isinstance(result, types.GeneratorType):
        result, want = list(result), list(want)
    if isinstance(result, nx.Graph):
        same_graph_exactly(result, want)
    else:
        assert result == want


def test_priority_settings_algos_and_generators(monkeypatch):
    """``backend_priority = ["kcjax"]`` sets the priority of functions returning
    numbers, dicts and iterators (``.algos``); those returning a graph (k_core,
    k_truss; bfs_tree where should_run takes it) follow ``.generators`` alone
    (docs/networkx.md says so)."""
    import importlib

    calls = []
    for module, name in (("core", "k_truss"), ("core", "k_core"), ("cluster", "triangles")):
        mod = importlib.import_module(f"kcjax.nx.{module}")
        real = getattr(mod, name)

        def spy(*args, _real=real, _name=name, **kwargs):
            calls.append(_name)
            return _real(*args, **kwargs)

        monkeypatch.setattr(mod, name, spy)
    G = labeled_graph(120, 0.3, 11)  # enough edges for should_run
    want = {"k_truss": nx.k_truss(G, 5), "k_core": nx.k_core(G, 20)}
    triangles = nx.triangles(G)
    assert calls == []
    with nx.config(backend_priority=["kcjax"]):
        assert nx.config.backend_priority.generators == []
        nx.k_truss(G, 5), nx.k_core(G, 20)
        assert nx.triangles(G) == triangles
    assert calls == ["triangles"]  # the graph-returning calls ran in networkx
    with nx.config.backend_priority(algos=["kcjax"], generators=["kcjax"]):
        got = {"k_truss": nx.k_truss(G, 5), "k_core": nx.k_core(G, 20)}
    assert calls == ["triangles", "k_truss", "k_core"]
    for name, graph in got.items():
        same_graph_exactly(graph, want[name])
    doc = (Path(__file__).resolve().parents[2] / "docs" / "networkx.md").read_text()
    assert "backend_priority.generators" in doc and "NETWORKX_BACKEND_PRIORITY_GENERATORS" in doc


def test_conversion_round_trip_and_backend_graph():
    from kcjax.experimental import KcjaxGraph

    G = labeled_graph(50, 0.1, 7, loops=3)
    K = nx.utils.backends._load_backend("kcjax").convert_from_nx(G)
    assert isinstance(K, KcjaxGraph) and K.__networkx_backend__ == "kcjax"
    assert len(K) == len(G) and K.number_of_edges() == G.number_of_edges() - 3
    assert K.self_loops == 3 and list(K) == list(G)
    H = nx.utils.backends._load_backend("kcjax").convert_to_nx(K)
    G.remove_edges_from(list(nx.selfloop_edges(G)))
    assert list(H) == list(G) and list(H.edges) == list(G.edges)
    # A backend graph is served without conversion, by priority or by name.
    assert nx.triangles(K) == nx.triangles(G)
    from kcjax.nx import from_networkx

    assert nx.k_core(from_networkx(G), 2).edges == nx.k_core(G, 2).edges
    assert nx.single_source_shortest_path_length(K, "v3") == nx.single_source_shortest_path_length(
        G, "v3"
    )
    # Edge data per adjacency entry (self loops dropped): the networkx graph's own dicts.
    G = labeled_graph(50, 0.1, 8, loops=3)
    K = from_networkx(G)
    want = [d for u, row in G._adj.items() for v, d in row.items() if u != v]
    assert len(K.entry_data()) == len(want)
    assert all(a is b for a, b in zip(K.entry_data(), want, strict=True))
    # What kcjax declines on a backend graph raises (networkx does not convert back).
    with pytest.raises(NotImplementedError):
        nx.core_number(K)
    assert K.self_loops == 3


def test_should_run_prefers_networkx_on_small_graphs():
    from kcjax.nx import should_run

    assert isinstance(should_run("triangles", (nx.path_graph(4),), {}), str)
    assert should_run("triangles", (nx.complete_graph(80),), {}) is True
    assert isinstance(should_run("bfs_edges", (nx.complete_graph(80), 0), {}), str)


def test_backend_info_lists_functions():
    info = nx.utils.backends.backend_info["kcjax"]
    from kcjax.nx import FUNCTIONS

    assert set(info["functions"]) == set(FUNCTIONS)
    from kcjax.nx import NOT_SERVED, can_run

    assert set(info["not_served"]) == set(NOT_SERVED) and not set(NOT_SERVED) & set(FUNCTIONS)
    assert can_run("node_clique_number", (nx.path_graph(3),), {}) is True
    assert "does not implement" in can_run("number_of_cliques", (nx.path_graph(3),), {})
    for name in FUNCTIONS:
        assert "kcjax" in nx.utils.backends._registered_algorithms[name].backends


def test_imports_stay_lazy():
    code = (
        "import sys, kcjax; assert 'networkx' not in sys.modules, 'kcjax imported networkx';"
        "import networkx; assert 'jax' not in sys.modules, 'networkx imported jax'"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def test_host_profile_script(tmp_path):
    # experiments/nx/host_profile.py (host time per served function) runs end to
    # end; a subprocess, since it imports its sibling bench.py as "bench".
    from reference import DATA_DIR

    if not (DATA_DIR / "ego-Facebook.el.gz").exists():
        pytest.skip("../shared/data/graphs is absent")
    script = Path(__file__).resolve().parents[2] / "experiments" / "nx" / "host_profile.py"
    out = tmp_path / "profile.json"
    args = ["--graph", "ego-Facebook", "--data", str(DATA_DIR), "--repeats", "1"]
    args += ["--functions", "triangles", "bfs_edges", "-o", str(out)]
    subprocess.run([sys.executable, str(script), *args], check=True, capture_output=True)
    rows = json.loads(out.read_text())["rows"]
    assert [r["function"] for r in rows] == ["triangles", "bfs_edges"]
    assert all(r["wall_s"] >= r["kernel_s"] >= 0 for r in rows)


def test_floor_script(tmp_path):
    # experiments/nx/floor.py (networkx's time, the least build of its result from
    # arrays, the backend's calls) runs end to end on a small graph and every
    # build it times was checked equal to networkx's result (it raises otherwise).
    import gzip

    G = nx.connected_watts_strogatz_graph(300, 8, 0.2, seed=5)
    lines = "".join(f"{u} {v}\n" for u, v in G.edges)
    (tmp_path / "ws300.el.gz").write_bytes(gzip.compress(lines.encode()))
    script = Path(__file__).resolve().parents[2] / "experiments" / "nx" / "floor.py"
    out = tmp_path / "floor.json"
    functions = ["k_truss", "bfs_edges", "bfs_tree", "bfs_successors", "find_cliques"]
    functions += ["single_source_shortest_path_length", "all_pairs_shortest_path_length"]
    functions += ["node_clique_number", "max_weight_clique", "transitivity"]
    args = ["--graphs", "ws300", "--data", str(tmp_path), "--repeats", "1", "--truss-k", "4"]
    args += ["--kcjax", "--functions", *functions, "-o", str(out)]
    subprocess.run([sys.executable, str(script), *args], check=True, capture_output=True)
    rows = json.loads(out.read_text())["rows"]
    assert [r["function"] for r in rows] == functions
    for r in rows:
        assert r["same"] is True and r["kcjax_wall_s"] > 0 and r["networkx_s"] > 0
        if r["function"] in ("max_weight_clique", "transitivity"):  # no floor build
            assert "floor_s" not in r and r["max_speedup"] is None
            continue
        assert 0 < r["floor_s"] <= min(b["wall_s"] for b in r["builds"].values())
        assert r["max_speedup"] == r["networkx_s"] / r["floor_s"]
        assert r["kcjax_over_floor"] == r["kcjax_wall_s"] / r["floor_s"]
