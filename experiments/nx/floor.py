"""The floor: the least host work any networkx backend does to return networkx's result.

A backend's kernels hand back arrays (orders, distances, tree edges, masks);
networkx's callers get Python objects: dicts of n entries, generators of n
tuples, graphs of fresh dicts. However fast the kernels, that build remains.
Per function of experiments/nx/bench.py (same calls, same graph as the bench
converts it: nodes 0..n-1, edges in CSR order), this script:

1. runs networkx and times it as the bench does (its result consumed: lists
   from generators), ``--nx-repeats`` runs (least time);
2. turns networkx's result into numpy arrays of node ids (what a backend
   would compute: orders, layer sizes, tree edges, the kept edges);
3. rebuilds networkx's result from those arrays by several builds
   (:data:`BUILDS`: label lists, C-level ``zip``/``map``, networkx's public
   graph constructors or the graph's dicts filled in bulk, the cyclic
   collector on or paused), checks each equal to networkx's result (types,
   orders, fresh attribute dicts, the shared edge data dicts), and times it
   (least of ``--repeats``): no kcjax call. The floor is the fastest build.

max speedup = networkx / floor: no backend beats it on this machine, however
fast its kernels. With ``--kcjax`` the backend's own cold calls
(bench.cold_call) are timed too, split into kcjax's compute and host work as
experiments/nx/host_profile.py splits them (least host time of
``--repeats``), to compare its host time with the floor.

With ``--kcjax`` every function of the bench runs (those without a floor
build, whose result is a number or a small graph, get networkx's and the
backend's times only), each backend result is checked equal to networkx's
(:func:`agrees`: as sets where networkx documents no order), the conversion
from ``nx.Graph`` is timed apart, and a table (function, networkx, kcjax,
floor, kcjax / floor, speedup) is printed per graph, hardware named:

    python experiments/nx/floor.py --graphs com-dblp email-Enron ca-CondMat --kcjax \
        --out floor.json
"""

from __future__ import annotations

import argparse
import collections
import contextlib
import gc
import itertools
import json
import os
import platform
import sys
import time
import types
from collections.abc import Callable
from itertools import chain, repeat
from pathlib import Path

import networkx as nx
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

import bench  # noqa: E402

#: The functions timed: every served one of the bench but diameter (every node's BFS)
#: and enumerate_all_cliques (2^114 cliques on com-dblp); floors for those in BUILDS.
FUNCTIONS = (
    "triangles",
    "transitivity",
    "core_number",
    "k_core",
    "k_truss",
    "find_cliques",
    "node_clique_number",
    "max_weight_clique",
    "bfs_edges",
    "bfs_tree",
    "bfs_layers",
    "bfs_predecessors",
    "bfs_successors",
    "descendants_at_distance",
    "single_source_shortest_path_length",
    "single_target_shortest_path_length",
    "shortest_path_length",
    "all_pairs_shortest_path_length",
    "eccentricity",
)


class Labels:
    """Node ids -> node labels, the ways a backend can map them (per graph, built once)."""

    def __init__(self, G: nx.Graph) -> None:
        self.labels = list(G)
        self.index = dict(zip(self.labels, range(len(self.labels)), strict=True))
        self.array = np.fromiter(self.labels, dtype=object, count=len(self.labels))
        self.identity = self.labels == list(range(len(self.labels)))

    def ids(self, nodes) -> np.ndarray:
        return np.fromiter(map(self.index.__getitem__, nodes), dtype=np.int64)

    def mappers(self) -> dict[str, Callable[[np.ndarray], list]]:
        """name -> ids (int array) -> list of labels: the label objects taken from
        an object array; with int labels 0..n-1 the ids themselves (``tolist``),
        else a ``map`` over the label list."""
        out = {"take": lambda ids: self.array[ids].tolist()}
        if self.identity:
            out["tolist"] = lambda ids: ids.tolist()
        else:
            out["map"] = lambda ids: list(map(self.labels.__getitem__, ids.tolist()))
        return out


def paused(build: Callable) -> Callable:
    """``build`` with the cyclic collector paused while it runs (as the backend pauses it)."""

    def run(*args):
        on = gc.isenabled()
        gc.disable()
        try:
            return build(*args)
        finally:
            if on:
                gc.enable()

    return run


def _runs(sizes: np.ndarray) -> map:
    ends = np.cumsum(sizes).tolist()
    return map(slice, [0, *ends[:-1]], ends)


# ---- arrays: networkx's result -> what a backend's kernels hand back -------


def _edge_arrays(L: Labels, pairs: list, source) -> dict:
    """Tree edges (parent, child) in order: a = parents, b = children."""
    return {
        "a": L.ids(p[0] for p in pairs),
        "b": L.ids(p[1] for p in pairs),
        "source": source,
    }


def _layer_arrays(L: Labels, layers: list) -> dict:
    order = L.ids(chain.from_iterable(layers))
    return {"order": order, "sizes": np.array([len(x) for x in layers], dtype=np.int64)}


def _lengths_arrays(L: Labels, lengths: dict) -> dict:
    order = L.ids(lengths)
    dist = np.fromiter(lengths.values(), dtype=np.int64, count=len(lengths))
    return {"order": order, "sizes": np.bincount(dist), "source": next(iter(lengths))}


def arrays_of(fname: str, L: Labels, G: nx.Graph, result, source) -> dict:
    """networkx's result of ``fname`` as id arrays (and the few objects a backend is given)."""
    if fname == "bfs_edges":
        return _edge_arrays(L, result, source)
    if fname == "bfs_predecessors":
        return _edge_arrays(L, [(p, c) for c, p in result], source)
    if fname == "bfs_successors":
        return {
            "heads": L.ids(h for h, _ in result),
            "kids": L.ids(chain.from_iterable(k for _, k in result)),
            "sizes": np.array([len(k) for _, k in result], dtype=np.int64),
            "source": source,
        }
    if fname == "bfs_tree":
        return _edge_arrays(L, list(result.edges), source)
    if fname in ("bfs_layers", "find_cliques"):
        return _layer_arrays(L, result)
    if fname in ("triangles", "core_number", "node_clique_number"):
        order = L.ids(result)
        return {"order": order, "values": np.fromiter(result.values(), np.int64, len(result))}
    if fname == "descendants_at_distance":
        return {"ids": L.ids(result)}
    if fname == "all_pairs_shortest_path_length":
        return {"rows": [(s, _lengths_arrays(L, d)) for s, d in result]}
    if fname.endswith("shortest_path_length"):
        return _lengths_arrays(L, result)
    if fname == "k_truss":
        nodes = list(result)
        # Each node's neighbours in the result's adjacency order, and each
        # entry's edge (the edges in result.edges order: one data dict each).
        edge_of = {}
        for e, (u, v) in enumerate(result.edges):
            edge_of[u, v] = edge_of[v, u] = e
        entries = [(u, v) for u in nodes for v in result._adj[u]]
        edges = list(result.edges)
        return {
            "nodes": L.ids(nodes),
            "sizes": np.array([len(result._adj[u]) for u in nodes], dtype=np.int64),
            "nbrs": L.ids(v for _, v in entries),
            "slot": np.fromiter((edge_of[p] for p in entries), dtype=np.int64),
            "eu": L.ids(u for u, _ in edges),
            "ev": L.ids(v for _, v in edges),
            # Per-graph structure a backend keeps (like the conversion): the
            # graph's node and edge attribute dicts, by node id and edge.
            "node_attrs": [G._node[u] for u in L.labels],
            "edge_attrs": G._adj,
            "graph_attrs": G.graph,
        }
    raise ValueError(f"no floor for {fname}")


# ---- builds: arrays -> networkx's result ------------------------------------


def _generator(items: Callable, prebuilt: bool):
    """A generator of ``items()``; ``prebuilt``: listed first with the collector paused
    (the consumer's list then copies references), else yielded as made."""

    def gen():
        if not prebuilt:
            yield from items()
            return
        on = gc.isenabled()
        gc.disable()
        try:
            made = list(items())
        finally:
            if on:
                gc.enable()
        yield from made

    return gen()


GENERATOR_KINDS = {"lazy": False, "prebuilt, collector paused": True}


def _parents(A, lab) -> list:
    """Parent labels, networkx's own source object on the source's edges."""
    a = lab(A["a"])
    if a:
        run = _source_run(A["a"])
        a[:run] = repeat(A["source"], run)
    return a


def _source_run(parents: np.ndarray) -> int:
    """How many leading edges leave the source (networkx yields the source object there)."""
    later = parents != parents[0]
    return int(later.argmax()) if later.any() else parents.size


def _edges(A, lab):
    return zip(_parents(A, lab), lab(A["b"]), strict=True)


def _predecessors(A, lab):
    return zip(lab(A["b"]), _parents(A, lab), strict=True)


def _successors(A, lab):
    kids = lab(A["kids"])
    heads = lab(A["heads"])
    heads[0] = A["source"]
    return zip(heads, list(map(kids.__getitem__, _runs(A["sizes"]))), strict=True)


def _layers(A, lab):
    keys = lab(A["order"])
    return map(keys.__getitem__, _runs(A["sizes"]))


def _generators(name: str, items: Callable) -> dict[str, Callable]:
    return {
        f"{name}, {kind}": (
            lambda A, lab, prebuilt=prebuilt: _generator(lambda: items(A, lab), prebuilt)
        )
        for kind, prebuilt in GENERATOR_KINDS.items()
    }


def _lengths_zip(A, lab):
    keys = lab(A["order"])
    keys[0] = A["source"]
    return dict(zip(keys, np.repeat(np.arange(A["sizes"].size), A["sizes"]).tolist(), strict=True))


def _lengths_repeat(A, lab):
    keys = lab(A["order"])
    keys[0] = A["source"]
    return dict(
        zip(keys, chain.from_iterable(map(repeat, range(A["sizes"].size), A["sizes"])), strict=True)
    )


def _all_pairs(build):
    def run(A, lab):
        def gen():
            for s, row in A["rows"]:
                yield s, build(row, lab)

        return gen()

    return run


def _per_node(A, lab):
    return dict(zip(lab(A["order"]), A["values"].tolist(), strict=True))


def _per_node_default(A, lab):
    return collections.defaultdict(int, zip(lab(A["order"]), A["values"].tolist(), strict=True))


def _descendants(A, lab):
    return set(lab(A["ids"]))


def _tree_public(A, lab):
    """networkx's own construction: ``add_node(source)``, ``add_edges_from``."""
    T = nx.DiGraph()
    T.add_node(A["source"])
    T.add_edges_from(_edges(A, lab))
    return T


def _tree_bulk(A, lab):
    """The dicts ``add_edges_from`` leaves, filled in bulk into ``_node``/``_succ``/``_pred``."""
    T = nx.DiGraph()
    source, parents = A["source"], A["a"]
    m = parents.size
    kids = lab(A["b"])
    nodes = [source, *kids]
    data = list(map(dict.copy, repeat({}, m)))
    T._node.update(zip(nodes, map(dict.copy, repeat({}, m + 1)), strict=True))
    T._succ.update(zip(nodes, map(dict.copy, repeat({}, m + 1)), strict=True))
    dads = _parents(A, lab)
    T._pred[source] = {}
    if m:
        cuts = (np.flatnonzero(parents[1:] != parents[:-1]) + 1).tolist()
        pairs = list(zip(kids, data, strict=True))
        heads = list(map(dads.__getitem__, [0, *cuts]))
        rows = map(dict, map(pairs.__getitem__, map(slice, [0, *cuts], [*cuts, m])))
        T._succ.update(zip(heads, rows, strict=True))
        T._pred.update(
            zip(kids, map(dict, zip(zip(dads, data, strict=True), strict=True)), strict=True)
        )
    return T


def _truss_public(A, lab):
    """``add_nodes_from`` and ``add_edges_from`` (each copies the attribute dicts it is given)."""
    H = nx.Graph()
    H.graph.update(A["graph_attrs"])
    H.add_nodes_from(
        zip(lab(A["nodes"]), map(A["node_attrs"].__getitem__, A["nodes"].tolist()), strict=True)
    )
    eu, ev = lab(A["eu"]), lab(A["ev"])
    adj = A["edge_attrs"]
    H.add_edges_from(zip(eu, ev, map(dict.__getitem__, map(adj.__getitem__, eu), ev), strict=True))
    return H


def _truss_bulk(A, lab):
    """Fresh dicts filled in bulk into ``_node`` and ``_adj`` (one data dict per edge)."""
    H = nx.Graph()
    H.graph.update(A["graph_attrs"])
    eu, ev = lab(A["eu"]), lab(A["ev"])
    adj = A["edge_attrs"]
    data = list(map(dict.copy, map(dict.__getitem__, map(adj.__getitem__, eu), ev)))
    labels = lab(A["nodes"])
    attrs = map(dict.copy, map(A["node_attrs"].__getitem__, A["nodes"].tolist()))
    H._node.update(zip(labels, attrs, strict=True))
    pairs = list(zip(lab(A["nbrs"]), map(data.__getitem__, A["slot"].tolist()), strict=True))
    H._adj.update(zip(labels, map(dict, map(pairs.__getitem__, _runs(A["sizes"]))), strict=True))
    return H


def _both(builds: dict) -> dict:
    """Each build as is and with the collector paused."""
    out = {}
    for name, b in builds.items():
        out[name] = b
        out[f"{name}, collector paused"] = paused(b)
    return out


#: function -> {build name: build(arrays, labels) -> networkx's result type}.
BUILDS: dict[str, dict[str, Callable]] = {
    "bfs_edges": _generators("zip of parents, children", _edges),
    "bfs_predecessors": _generators("zip of children, parents", _predecessors),
    "bfs_successors": _generators("zip of heads, slices of children", _successors),
    "bfs_layers": _generators("slices of one label list", _layers),
    "find_cliques": _generators("slices of one label list", _layers),
    "triangles": _both({"dict(zip(labels, values))": _per_node}),
    "core_number": _both({"dict(zip(labels, values))": _per_node}),
    "node_clique_number": _both({"defaultdict(int, zip(labels, values))": _per_node_default}),
    "descendants_at_distance": _both({"set of labels": _descendants}),
    "bfs_tree": _both({"add_edges_from": _tree_public, "dicts in bulk": _tree_bulk}),
    "k_truss": _both(
        {"add_nodes_from, add_edges_from": _truss_public, "dicts in bulk": _truss_bulk}
    ),
    **{
        f: _both(
            {
                "dict(zip(keys, repeated layers))": _lengths_zip,
                "dict(zip(keys, chained repeats))": _lengths_repeat,
            }
        )
        for f in (
            "single_source_shortest_path_length",
            "single_target_shortest_path_length",
            "shortest_path_length",
        )
    },
    "all_pairs_shortest_path_length": _both(
        {"generator of dict(zip(keys, repeated layers))": _all_pairs(_lengths_zip)}
    ),
}


# ---- checks -----------------------------------------------------------------


def _graph_state(H: nx.Graph) -> list:
    """Everything networkx's graph holds, in order: graph, nodes, each adjacency."""
    succ = [(u, list(nbrs.items())) for u, nbrs in H._adj.items()]
    state = [H.graph, list(H._node.items()), succ]
    if H.is_directed():
        state.append([(u, list(nbrs.items())) for u, nbrs in H._pred.items()])
    return state


def _fresh_dicts(H: nx.Graph, G: nx.Graph) -> bool:
    """Node and edge data dicts are H's own (not G's), one per edge (shared by both entries)."""
    node_ok = all(H._node[u] is not G._node.get(u) for u in H)
    if H.is_directed():
        shared = all(H._succ[u][v] is H._pred[v][u] for u, v in H.edges)
    else:
        shared = all(H._adj[u][v] is H._adj[v][u] for u, v in H.edges)
    ids = {id(d) for _, _, d in H.edges(data=True)}
    mine = not any(id(d) in ids for _, _, d in G.edges(data=True))
    return node_ok and shared and mine and len(ids) == H.number_of_edges()


def same(fname: str, got, ref, G: nx.Graph) -> bool:
    """``got`` (consumed) is networkx's result ``ref``: type, values and orders."""
    if isinstance(ref, nx.Graph):
        return (
            type(got) is type(ref)
            and _graph_state(got) == _graph_state(ref)
            and (_fresh_dicts(got, G))
        )
    if isinstance(ref, dict):
        return type(got) is type(ref) and list(got.items()) == list(ref.items())
    if fname == "all_pairs_shortest_path_length":
        return [(s, list(d.items())) for s, d in got] == [(s, list(d.items())) for s, d in ref]
    return type(got) is type(ref) and got == ref


def agrees(fname: str, got, ref, G: nx.Graph) -> bool:
    """The backend's result (consumed) is networkx's: exactly (:func:`same`, orders
    included), but as a set of cliques for find_cliques, as a dict for
    node_clique_number (networkx documents neither order), and a clique of
    networkx's weight for max_weight_clique (networkx documents no choice)."""
    if fname == "find_cliques":
        return type(got) is list and sorted(map(sorted, got)) == sorted(map(sorted, ref))
    if fname == "node_clique_number":
        return type(got) is type(ref) and got == ref
    if fname == "max_weight_clique":
        clique, weight = got
        size = len(clique)
        edges = G.subgraph(clique).number_of_edges()
        return weight == ref[1] == size and edges == size * (size - 1) // 2
    if fname == "k_core":
        return bench._same(got, ref)
    if fname in BUILDS:
        return same(fname, got, ref, G)
    return type(got) is type(ref) and got == ref


# ---- timing -----------------------------------------------------------------


def best_of(fn: Callable, repeats: int) -> tuple[float, float]:
    """Least wall time and least thread CPU time of ``repeats`` runs of ``fn``,
    its result consumed.

    The calling thread's CPU time counts this run's own work only (the
    machine may be shared: waiting for a core is not counted). Each run ends
    by allocating one container: a build that paused the collector left its
    young objects to the next allocation's collection, which is timed with it
    (as it is in the backend's own calls). The result is freed after the clocks stop."""
    walls, cpus = [], []
    for _ in range(repeats):
        t, c = time.perf_counter(), time.thread_time()
        out = bench._consume(fn())
        settle = [out]
        cpus.append(time.thread_time() - c)
        walls.append(time.perf_counter() - t)
        del out, settle
    return min(walls), min(cpus)


def kcjax_times(call, K, repeats: int, check=None) -> dict:
    """The backend's cold calls, split as host_profile.py splits them: wall, compute
    (kcjax's calls until their results are ready) and host (the rest), and the
    calling thread's CPU time outside compute (``kcjax_host_cpu_s``); of the call
    of least host time, and of least host CPU time."""
    import host_profile

    def cold():
        return bench._consume(bench.cold_call(call, K))

    first = cold()
    if check is not None and not check(first):
        raise AssertionError("the backend's result is not networkx's")
    del first
    walls, computes, cpus, compute_cpus = [], [], [], []
    with host_profile.timed_compute(spent := [0.0, 0.0]):
        for _ in range(repeats):
            spent[:] = [0.0, 0.0]
            t, c = time.perf_counter(), time.thread_time()
            out = cold()
            cpus.append(time.thread_time() - c)
            walls.append(time.perf_counter() - t)
            computes.append(spent[0])
            compute_cpus.append(spent[1])
            del out  # freed after the clocks stop
    best = min(range(repeats), key=lambda i: walls[i] - computes[i])
    return {
        "kcjax_wall_s": walls[best],
        "kcjax_compute_s": computes[best],
        "kcjax_host_s": walls[best] - computes[best],
        "kcjax_host_cpu_s": min(c - k for c, k in zip(cpus, compute_cpus, strict=True)),
        "kcjax_wall_median_s": float(np.median(walls)),
    }


def hardware() -> dict:
    """The machine the times come from: CPU model, JAX devices, versions."""
    import jax

    cpu = platform.processor() or platform.machine()
    with contextlib.suppress(OSError):
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    return {
        "host": platform.node(),
        "cpu": cpu,
        "cpu_count": os.cpu_count(),
        "jax_platform": jax.default_backend(),
        "devices": sorted({d.device_kind for d in jax.devices()}),
        "python": platform.python_version(),
        "networkx": nx.__version__,
        "numpy": np.__version__,
        "jax": jax.__version__,
    }


def conversion_times(G: nx.Graph, repeats: int) -> dict:
    """Least time of ``convert_from_nx`` (plain, and keeping every attribute), the
    device arrays ready; networkx's cache is not involved (a fresh conversion each)."""
    import jax

    backend = nx.utils.backends._load_backend("kcjax")
    backend.convert_from_nx(G)  # imports and first-call costs out of the timing
    out = {}
    for key, kw in (
        ("convert_s", {}),
        ("convert_all_attrs_s", {f"preserve_{a}_attrs": True for a in ("edge", "node", "graph")}),
    ):
        times = []
        for _ in range(repeats):
            t = time.perf_counter()
            K = backend.convert_from_nx(G, **kw)
            jax.block_until_ready(K.graph.indices)
            times.append(time.perf_counter() - t)
            del K
        out[key] = min(times)
    return out


def _fmt(x: float | None) -> str:
    if x is None:
        return "-"
    return f"{x:.3g} s" if x >= 0.001 else f"{x * 1000:.3g} ms"


def table(rows: list[dict]) -> str:
    """Markdown: graph | function | networkx | kcjax | floor | kcjax / floor | speedup."""
    lines = [
        "| graph | function | networkx | kcjax | floor | kcjax / floor | speedup | max speedup |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        if "skipped" in r:
            lines.append(f"| {r['graph']} | {r['function']} | skipped: {r['skipped']} |||||")
            continue
        kc, fl = r.get("kcjax_wall_s"), r.get("floor_s")
        ratio = f"{kc / fl:.2f}" if kc is not None and fl else "-"
        speed = f"{r['networkx_s'] / kc:.1f}x" if kc else "-"
        top = f"{r['max_speedup']:.0f}x" if fl else "-"
        lines.append(
            f"| {r['graph']} | {r['function']} | {_fmt(r['networkx_s'])} | {_fmt(kc)} | "
            f"{_fmt(fl)} | {ratio} | {speed} | {top} |"
        )
    return "\n".join(lines)


def run_graph(name: str, args) -> tuple[list[dict], dict, dict]:
    """Rows of one graph, its conversion times and sizes."""
    G, K, source, sample = bench.load_converted(args.data / f"{name}.el.gz", args.sources)
    conv = conversion_times(G, args.repeats) if args.kcjax else {}
    L = Labels(G)
    mappers = L.mappers()
    calls = bench.calls(G, source, sample, args.truss_k)
    rows = []
    for fname in args.functions:
        call = calls[fname]
        if fname == "max_weight_clique" and len(G) > args.max_weight_clique_nodes:
            # networkx's branch and bound: 2.4 s on ego-Facebook, > 60 s on email-Enron.
            why = f"networkx's search on more than {args.max_weight_clique_nodes} nodes"
            rows.append({"graph": name, "function": fname, "skipped": why})
            print(f"{name:12s} {fname:36s} skipped: {why}", flush=True)
            continue
        with nx.config(backend_priority=[]):
            try:
                nx_s, nx_cpu = best_of(lambda call=call: call(G), args.nx_repeats)
            except nx.NetworkXException as err:  # e.g. eccentricity on a disconnected graph
                why = _same_error(call, K, err)
                rows.append({"graph": name, "function": fname, "skipped": why})
                print(f"{name:12s} {fname:36s} skipped: {why}", flush=True)
                continue
            raw = call(G)
            generator = isinstance(raw, types.GeneratorType | itertools.islice)
            ref = bench._consume(raw)
            del raw
        row = {"graph": name, "function": fname, "networkx_s": nx_s, "networkx_cpu_s": nx_cpu}
        line = f"{name:12s} {fname:36s} networkx {nx_s:7.3f}s ({nx_cpu:7.3f}s cpu)"
        if fname in BUILDS:
            row.update(_floor(fname, L, G, ref, source, mappers, generator, args.repeats))
            floor_s, floor_cpu = row["floor_s"], row["floor_cpu_s"]
            line += (
                f"  floor {floor_s:7.4f}s ({floor_cpu:7.4f}s cpu)  max {nx_s / floor_s:6.1f}x "
                f"({nx_cpu / floor_cpu:6.1f}x)"
            )
        if args.kcjax:

            def check(got, fname=fname, ref=ref):
                return agrees(fname, got, ref, G)

            _kcjax_row(row, call, K, args.repeats, check)
            line += (
                f"  kcjax {row['kcjax_wall_s']:7.4f}s host {row['kcjax_host_s']:7.4f}s "
                f"({row['kcjax_host_cpu_s']:7.4f}s cpu)"
            )
        rows.append(row)
        print(line, f"[{row.get('floor_build', '')}]", flush=True)
        if args.kcjax and args.maximal_gpu and fname in MAXIMAL:
            from kcjax.nx import clique

            gpu_row = {k: v for k, v in row.items() if not k.startswith("kcjax")}
            gpu_row["function"] = f"{fname} (CUDA search)"
            clique.PLATFORM = "gpu"
            try:
                _kcjax_row(gpu_row, call, K, args.repeats, check)
            finally:
                clique.PLATFORM = "cpu"
            rows.append(gpu_row)
            print(f"{name:12s} {gpu_row['function']:36s} kcjax {gpu_row['kcjax_wall_s']:7.4f}s")
        del ref
    return rows, conv, {"n": G.number_of_nodes(), "m": G.number_of_edges()}


#: Functions served by the maximal-clique search (``--maximal-gpu`` times its CUDA twin too).
MAXIMAL = ("find_cliques", "node_clique_number")


def _same_error(call, K, err: Exception) -> str:
    """Why a function has no times: networkx raised ``err``; the backend must raise it too."""
    try:
        bench._consume(call(K))
    except type(err) as mine:
        if str(mine) != str(err):
            raise AssertionError(f"kcjax raised {mine!r}, networkx {err!r}") from mine
        return f"networkx and kcjax raise {type(err).__name__}: {err}"
    raise AssertionError(f"kcjax returned where networkx raised {err!r}")


def _kcjax_row(row: dict, call, K, repeats: int, check) -> None:
    """The backend's times of ``call`` into ``row`` (its result checked first)."""
    row.update(kcjax_times(call, K, repeats, check))
    row["same"] = True
    row["speedup"] = row["networkx_s"] / row["kcjax_wall_s"]
    if "floor_s" in row:
        row["kcjax_over_floor"] = row["kcjax_wall_s"] / row["floor_s"]


def _floor(fname, L, G, ref, source, mappers, generator, repeats) -> dict:
    """The floor of one function: every build checked equal to ``ref``, then timed."""
    arrays = arrays_of(fname, L, G, ref, source)
    builds = {}
    for bname, build in BUILDS[fname].items():
        for lname, lab in mappers.items():

            def run(build=build, lab=lab, arrays=arrays):
                return build(arrays, lab)

            out = run()
            if generator != isinstance(out, types.GeneratorType):
                raise AssertionError(f"{fname}/{bname}: not networkx's result type")
            if not same(fname, bench._consume(out), ref, G):
                raise AssertionError(f"{fname}/{bname}/{lname}: not networkx's result")
            del out
            builds[f"{bname}; labels by {lname}"] = run
    timed = {name: best_of(run, repeats) for name, run in builds.items()}
    floor_build = min(timed, key=lambda name: timed[name][1])
    floor_s = min(t[0] for t in timed.values())
    return {
        "floor_s": floor_s,
        "floor_cpu_s": timed[floor_build][1],
        "floor_build": floor_build,
        "builds": {name: {"wall_s": w, "cpu_s": c} for name, (w, c) in timed.items()},
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--graphs", nargs="+", default=["com-dblp"])
    parser.add_argument("--functions", nargs="*", default=list(FUNCTIONS), choices=FUNCTIONS)
    parser.add_argument("--repeats", type=int, default=7, help="runs per build (least time)")
    parser.add_argument("--nx-repeats", type=int, default=1, help="networkx runs (least time)")
    parser.add_argument("--sources", type=int, default=8, help="sources of all-pairs calls")
    parser.add_argument("--truss-k", type=int, default=10, help="k of k_truss")
    parser.add_argument(
        "--max-weight-clique-nodes",
        type=int,
        default=10_000,
        help="max_weight_clique only on graphs of at most this many nodes",
    )
    parser.add_argument("--kcjax", action="store_true", help="also time the backend's calls")
    parser.add_argument(
        "--maximal-gpu",
        action="store_true",
        help="also time find_cliques and node_clique_number with the CUDA search",
    )
    parser.add_argument("--data", type=Path, default=bench.SHARED, help="folder of <graph>.el.gz")
    parser.add_argument("-o", "--out", type=Path, default=None, help="results JSON")
    args = parser.parse_args(argv)
    nx.config.warnings_to_ignore.add("cache")
    rows, conversions, sizes = [], {}, {}
    for name in args.graphs:
        graph_rows, conversions[name], sizes[name] = run_graph(name, args)
        for r in graph_rows:
            if "skipped" in r:
                continue
            r["max_speedup"] = r["networkx_s"] / r["floor_s"] if "floor_s" in r else None
            r["max_speedup_cpu"] = (
                r["networkx_cpu_s"] / r["floor_cpu_s"] if "floor_s" in r else None
            )
        rows += graph_rows
    result = {
        "graphs": args.graphs,
        "sizes": sizes,
        "hardware": hardware(),
        "args": {k: str(v) if isinstance(v, Path) else v for k, v in vars(args).items()},
        "conversions": conversions,
        "rows": rows,
    }
    print(table(rows))
    for name, c in conversions.items():
        if c:
            print(
                f"{name}: conversion from nx.Graph {c['convert_s']:.3f} s "
                f"({c['convert_all_attrs_s']:.3f} s keeping every attribute)"
            )
    print(json.dumps(result["hardware"]))
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps(result, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
