"""networkx vs backend="kcjax": every served function on the shared graphs.

Run from the repository root on the default JAX device (the GPU when there is
one). com-dblp, every function, networkx's times of an earlier run on the same
host reused where it has them (~2 minutes):

    python experiments/nx/bench.py --graphs com-dblp \
        --networkx-times experiments/results/nx/h200_com_dblp.json --out $OUT/nx.json

Per graph, the conversion (``convert_from_nx``: networkx caches it on the
graph) is timed apart, plain and with every attribute kept (what networkx asks
for ``k_core``/``k_truss``). Then per function: networkx once
(``--nx-repeats``, default 1: its runs are the long ones; or its time read
from ``--networkx-times``, a results JSON of this script or of the same shape,
and then that row's result is not compared: ``same`` is null) and the backend
on the already converted graph (``nx.f(K)``, ``K`` the backend graph, results
as networkx returns them: dicts, graphs, consumed generators), median of
``--repeats`` cold calls after one warm-up call that compiles, results checked
equal. speedup = networkx time / kcjax time, conversion excluded.

A cold call (:func:`cold_call`) clears what a first call on the graph computes:
the results cached on it (core numbers, triangle counts), its oriented DAGs
and kcjax's memo of DAG facts (cost estimates, transitivity). It keeps the
backend graph and its ``structure``: host arrays that depend on the converted
graph alone (row ids, networkx's adjacency order, the edge ids of the
adjacency entries, ``G.copy()``'s adjacency order, the edge data dicts by
entry), built by the first call that needs them (the warm-up) as the
conversion builds the CSR; conversion is excluded from the speedups.

On a GPU the device span of the backend call (profiler without its Python
tracer, experiments/tools/devtime.py; ``--device-repeats``) is reported beside
its wall clock: the rest is host work (label maps, networkx's orders, building
the dicts). experiments/nx/host_profile.py splits each call into compute and
host work and lists where the host time goes.

All-pairs functions run on the first ``--sources`` nodes for both
(``all_pairs_shortest_path_length``: that many items of the generator;
``eccentricity``: ``v=`` those nodes); ``diameter`` (every node's BFS) only
on graphs of at most ``--diameter-max-nodes`` nodes; ``enumerate_all_cliques``
only where the graph has at most ``--max-cliques`` cliques (com-dblp has a
114-clique: 2^114 of them). Skipped calls are rows with a ``skipped`` reason.
"""

from __future__ import annotations

import argparse
import functools
import itertools
import json
import platform
import statistics
import sys
import time
from pathlib import Path

import jax
import networkx as nx

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "experiments" / "tools"))

import devtime  # noqa: E402

import kcjax  # noqa: E402
from kcjax import clear_memo  # noqa: E402
from kcjax.nx import FUNCTIONS  # noqa: E402

#: The shared graphs: beside the repository, inside it, or as carried to the GPU machine.
SHARED = next(
    (
        p
        for p in (
            ROOT.parent / "shared" / "data" / "graphs",
            ROOT / "shared" / "data" / "graphs",
            ROOT / ".gpu" / "graphs",
        )
        if p.exists()
    ),
    ROOT.parent / "shared" / "data" / "graphs",
)
GRAPHS = (
    "ego-Facebook",
    "wiki-Vote",
    "ca-CondMat",
    "email-Enron",
    "ca-AstroPh",
    "cit-HepTh",
    "com-dblp",
    "com-amazon",
    "soc-Epinions1",
)


def _consume(value):
    """Generators and iterators into lists (the cost a caller pays to read them)."""
    if isinstance(value, dict | int | float | set | tuple | nx.Graph):
        return value
    return list(value)


def calls(G: nx.Graph, source, sample: list, truss_k: int) -> dict[str, tuple]:
    """function name -> (networkx call taking the graph to run on) for one graph."""
    n_src = len(sample)
    return {
        "triangles": lambda H: nx.triangles(H),
        "transitivity": lambda H: nx.transitivity(H),
        "core_number": lambda H: nx.core_number(H),
        "k_core": lambda H: nx.k_core(H),
        "k_truss": lambda H: nx.k_truss(H, truss_k),
        "enumerate_all_cliques": lambda H: nx.enumerate_all_cliques(H),
        "find_cliques": lambda H: nx.find_cliques(H),
        "find_cliques_recursive": lambda H: nx.find_cliques_recursive(H),
        "node_clique_number": lambda H: nx.node_clique_number(H),
        "max_weight_clique": lambda H: nx.max_weight_clique(H, weight=None),
        "bfs_edges": lambda H: nx.bfs_edges(H, source),
        "bfs_tree": lambda H: nx.bfs_tree(H, source),
        "bfs_layers": lambda H: nx.bfs_layers(H, source),
        "bfs_predecessors": lambda H: nx.bfs_predecessors(H, source),
        "bfs_successors": lambda H: nx.bfs_successors(H, source),
        "descendants_at_distance": lambda H: nx.descendants_at_distance(H, source, 3),
        "single_source_shortest_path_length": (
            lambda H: nx.single_source_shortest_path_length(H, source)
        ),
        "single_target_shortest_path_length": (
            lambda H: nx.single_target_shortest_path_length(H, source)
        ),
        "shortest_path_length": lambda H: nx.shortest_path_length(H, source),
        "all_pairs_shortest_path_length": (
            lambda H: itertools.islice(nx.all_pairs_shortest_path_length(H), n_src)
        ),
        "eccentricity": lambda H: nx.eccentricity(H, v=sample),
        "diameter": lambda H: nx.diameter(H),
    }


def load_graph(path: Path) -> nx.Graph:
    """The graph of an edge list as an ``nx.Graph``: nodes 0..n-1 in order, edges in CSR order."""
    g = kcjax.load(path)
    src, dst = (a.tolist() for a in g.edges())
    G = nx.Graph()
    G.add_nodes_from(range(g.num_nodes))
    G.add_edges_from(zip(src, dst, strict=True))
    return G


def load_converted(path: Path, sources: int = 8) -> tuple[nx.Graph, object, object, list]:
    """(G, K, source, sample): the graph, its backend graph keeping every attribute,
    the BFS source (a node of largest degree) and the all-pairs sample (first nodes)."""
    G = load_graph(path)
    backend = nx.utils.backends._load_backend("kcjax")
    K = backend.convert_from_nx(
        G, preserve_edge_attrs=True, preserve_node_attrs=True, preserve_graph_attrs=True
    )
    source = max(G.degree, key=lambda kv: kv[1])[0]
    return G, K, source, list(itertools.islice(G, sources))


def cold_call(call, K):
    """``call(K)``, after clearing what a first call on ``K`` computes.

    Cleared: the per-graph results (``K._cache``: core numbers, triangle
    counts), the oriented DAGs (``K._dags``) and kcjax's memo of DAG facts
    (cost estimates, transitivity). Kept: the backend graph itself, i.e. what
    the conversion built (labels, CSR, networkx's adjacency order) and the
    structural arrays derived from it alone (``K.structure``: label array,
    identity-label flag, row ids, edge ids of networkx's adjacency entries),
    computed once per graph like the conversion, whose time is excluded.
    """
    K._cache.clear()
    K._dags.clear()
    clear_memo()
    return call(K)


def wall(fn, repeats: int) -> tuple[float, object]:
    """Median wall time of ``repeats`` calls of ``fn`` (results consumed), and the last
    result. The previous result is freed after the clock stops (freeing a 1.27 M-dict
    tree is not part of the next call)."""
    times, out = [], None
    for _ in range(repeats):
        t = time.perf_counter()
        new = _consume(fn())
        times.append(time.perf_counter() - t)
        out = new
        del new
    return statistics.median(times), out


def device_span(fn, repeats: int) -> float:
    """Median device span (s) of ``repeats`` calls of ``fn`` (devtime), profiled
    without the Python tracer: tracing every Python call of the host work would
    slow the calls down many times over and leave millions of host events."""
    options = jax.profiler.ProfileOptions()
    options.python_tracer_level = 0
    trace = jax.profiler.trace
    jax.profiler.trace = functools.partial(trace, profiler_options=options)
    try:
        dev = devtime.device_times(fn, repeats)
    finally:
        jax.profiler.trace = trace
    return max((d["span_s"] for d in dev.values()), default=0.0)


def recorded_networkx_times(path: Path | None) -> dict[tuple[str, str], float]:
    """{(graph, function): networkx_s} from an earlier results JSON (rows with a time)."""
    if path is None:
        return {}
    rows = json.loads(path.read_text())["rows"]
    return {(r["graph"], r["function"]): r["networkx_s"] for r in rows if "networkx_s" in r}


def _same(a, b, fname: str = "", G: nx.Graph | None = None) -> bool:
    """Results equal, orders included; maximal cliques as sets (networkx documents no
    order), a maximum clique by its weight and being a clique of G."""
    if isinstance(a, nx.Graph):
        return nx.utils.graphs_equal(a, b) and list(a.edges) == list(b.edges)
    if fname.startswith("find_cliques"):
        return sorted(map(sorted, a)) == sorted(map(sorted, b))
    if fname == "max_weight_clique":
        size = len(a[0])
        edges = G.subgraph(a[0]).number_of_edges()
        return a[1] == b[1] == size and edges == size * (size - 1) // 2
    return a == b


def _skip(fname: str, G: nx.Graph, args, total_cliques) -> str | None:
    if fname == "diameter" and len(G) > args.diameter_max_nodes:
        return f"every node's BFS: only graphs up to {args.diameter_max_nodes} nodes"
    if fname == "enumerate_all_cliques" and total_cliques() > args.max_cliques:
        return f"more than {args.max_cliques:,} cliques"
    return None


def _table(rows: list[dict], conversions: dict) -> str:
    lines = [
        f"{'graph':14s} {'function':36s} {'networkx_s':>11s} {'kcjax_s':>9s} "
        f"{'device_s':>9s} {'speedup':>9s} same"
    ]
    for r in rows:
        if "skipped" in r:
            lines.append(f"{r['graph']:14s} {r['function']:36s} skipped: {r['skipped']}")
            continue
        dev = r.get("kcjax_device_span_s")
        lines.append(
            f"{r['graph']:14s} {r['function']:36s} {r['networkx_s']:11.4f} {r['kcjax_s']:9.4f} "
            f"{'-' if dev is None else f'{dev:.4f}':>9s} {r['speedup']:8.1f}x {r['same']}"
        )
    for name, c in conversions.items():
        lines.append(
            f"{name:14s} conversion from nx.Graph: {c['convert_s']:.3f} s "
            f"({c['convert_all_attrs_s']:.3f} s keeping attributes)"
        )
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--graphs", nargs="*", default=list(GRAPHS))
    parser.add_argument(
        "--functions", nargs="*", default=None, help=f"subset of: {' '.join(FUNCTIONS)}"
    )
    parser.add_argument("--repeats", type=int, default=5, help="kcjax runs (median)")
    parser.add_argument("--nx-repeats", type=int, default=1, help="networkx runs (median)")
    parser.add_argument("--sources", type=int, default=8, help="sources of all-pairs calls")
    parser.add_argument("--truss-k", type=int, default=10, help="k of k_truss")
    parser.add_argument("--diameter-max-nodes", type=int, default=5000)
    parser.add_argument("--max-cliques", type=int, default=2_000_000)
    parser.add_argument(
        "--device-repeats", type=int, default=1, help="profiled calls for the device span (0: off)"
    )
    parser.add_argument(
        "--networkx-times",
        type=Path,
        default=None,
        help="results JSON of an earlier run on the same host: its networkx times are "
        "used instead of running networkx (those rows' results are then not compared)",
    )
    parser.add_argument("--data", type=Path, default=SHARED, help="folder of <graph>.el.gz")
    parser.add_argument("-o", "--out", type=Path, default=None, help="results JSON")
    args = parser.parse_args()
    unknown = set(args.functions or ()) - set(FUNCTIONS)
    if unknown:
        parser.error(f"unknown functions {sorted(unknown)}; served: {list(FUNCTIONS)}")
    nx.config.warnings_to_ignore.add("cache")
    recorded = recorded_networkx_times(args.networkx_times)
    backend = nx.utils.backends._load_backend("kcjax")
    on_gpu = jax.default_backend() == "gpu"
    rows, conversions = [], {}
    for name in args.graphs:
        path = args.data / f"{name}.el.gz"
        if not path.exists():
            print(f"skip {name}: {path} missing", file=sys.stderr)
            continue
        G = load_graph(path)
        backend.convert_from_nx(G)  # imports and first-call costs out of the timing
        conv = {}
        for key, kw in (("convert_s", {}), ("convert_all_attrs_s", {"preserve_all_attrs": True})):
            if kw:
                kw = {f"preserve_{a}_attrs": True for a in ("edge", "node", "graph")}
            t = time.perf_counter()
            K = backend.convert_from_nx(G, **kw)
            jax.block_until_ready(K.graph.indices)
            conv[key] = time.perf_counter() - t
        conversions[name] = conv
        cliques = []

        def total_cliques(K=K, cliques=cliques):
            if not cliques:
                cliques.append(sum(kcjax.count_all_cliques(K.graph).values()))
            return cliques[0]

        source = max(G.degree, key=lambda kv: kv[1])[0]
        sample = list(itertools.islice(G, args.sources))
        print(
            f"{name}: n={len(G):,} m={G.number_of_edges():,} convert {conv['convert_s']:.3f}s "
            f"(all attrs {conv['convert_all_attrs_s']:.3f}s) on {jax.default_backend()}",
            flush=True,
        )
        for fname, call in calls(G, source, sample, args.truss_k).items():
            if args.functions and fname not in args.functions:
                continue
            base = {"graph": name, "function": fname, "n": len(G), "m": G.number_of_edges()}
            reason = _skip(fname, G, args, total_cliques)
            if reason:
                rows.append({**base, "skipped": reason})
                print(f"  {fname:36s} skipped: {reason}", flush=True)
                continue

            def cold(call=call, K=K):
                return cold_call(call, K)

            wall(cold, 1)  # compile
            kc_s, kc_out = wall(cold, args.repeats)
            row = {**base, **conv, "kcjax_s": kc_s}
            if on_gpu and args.device_repeats > 0:
                row["kcjax_device_span_s"] = device_span(
                    lambda cold=cold: _consume(cold()), args.device_repeats
                )
            if (name, fname) in recorded:
                nx_s, same = recorded[name, fname], None
                row["networkx_from"] = str(args.networkx_times)
            else:
                with nx.config(backend_priority=[]):
                    nx_s, nx_out = wall(lambda call=call, G=G: call(G), args.nx_repeats)
                same = _same(kc_out, nx_out, fname, G)
            row.update(networkx_s=nx_s, speedup=nx_s / kc_s, same=same)
            rows.append(row)
            print(
                f"  {fname:36s} kcjax {kc_s:9.4f}s  networkx {nx_s:9.4f}s  "
                f"{row['speedup']:8.1f}x  same={row['same']}",
                flush=True,
            )
    result = {
        "platform": jax.default_backend(),
        "devices": [str(d) for d in jax.devices()],
        "host": platform.node(),
        "networkx": nx.__version__,
        "args": {k: str(v) if isinstance(v, Path) else v for k, v in vars(args).items()},
        "conversions": conversions,
        "rows": rows,
    }
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps(result, indent=1))
    print(_table(rows, conversions))


if __name__ == "__main__":
    main()
