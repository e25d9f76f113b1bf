"""networkx vs backend="kcjax": each served function on the shared graphs.

Run from the repository root (one H200; ~10 minutes with the defaults, most of
it networkx's own runs; --skip-slow-nx drops networkx's enumerate_all_cliques
and all-pairs runs on the larger graphs):

    python experiments/nx/bench.py -o experiments/results/nx/h200_nx.json

Per graph: the conversion (``convert_from_nx``, once; networkx caches it on
the graph) is timed separately; then per function the median wall clock of
networkx and of the backend on the already converted graph (``nx.f(K)`` with
``K`` the backend graph, results as networkx returns them: dicts, lists,
consumed generators), results checked equal. On a GPU the device span of the
backend call (profiler, experiments/tools/devtime.py) is reported beside its
wall clock: the rest is host work (label maps, networkx's orders).
"""

from __future__ import annotations

import argparse
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

SHARED = ROOT.parent / "shared" / "data" / "graphs"
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
    if isinstance(value, dict | int | float | set | nx.Graph):
        return value
    return list(value)


def calls(G: nx.Graph, source) -> dict[str, tuple]:
    """function name -> (networkx function, args) for one graph."""
    return {
        "triangles": (nx.triangles, (G,)),
        "transitivity": (nx.transitivity, (G,)),
        "core_number": (nx.core_number, (G,)),
        "k_core": (nx.k_core, (G,)),
        "enumerate_all_cliques": (nx.enumerate_all_cliques, (G,)),
        "bfs_edges": (nx.bfs_edges, (G, source)),
        "bfs_tree": (nx.bfs_tree, (G, source)),
        "bfs_layers": (nx.bfs_layers, (G, source)),
        "bfs_predecessors": (nx.bfs_predecessors, (G, source)),
        "bfs_successors": (nx.bfs_successors, (G, source)),
        "descendants_at_distance": (nx.descendants_at_distance, (G, source, 3)),
        "single_source_shortest_path_length": (nx.single_source_shortest_path_length, (G, source)),
        "shortest_path_length": (nx.shortest_path_length, (G, source)),
    }


SLOW_NX = {"enumerate_all_cliques"}


def wall(fn, repeats: int) -> tuple[float, object]:
    times, out = [], None
    for _ in range(repeats):
        t = time.perf_counter()
        out = _consume(fn())
        times.append(time.perf_counter() - t)
    return statistics.median(times), out


def _same(a, b) -> bool:
    if isinstance(a, nx.Graph):
        return nx.utils.graphs_equal(a, b)
    return a == b


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--graphs", nargs="*", default=list(GRAPHS))
    parser.add_argument("--functions", nargs="*", default=None)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--skip-slow-nx", action="store_true")
    parser.add_argument(
        "--max-cliques",
        type=int,
        default=2_000_000,
        help="skip enumerate_all_cliques on graphs with more cliques",
    )
    parser.add_argument("--data", type=Path, default=SHARED, help="folder of <graph>.el.gz")
    parser.add_argument("-o", "--out", type=Path, default=None)
    args = parser.parse_args()
    nx.config.warnings_to_ignore.add("cache")
    backend = nx.utils.backends._load_backend("kcjax")
    on_gpu = jax.default_backend() == "gpu"
    rows = []
    for name in args.graphs:
        path = args.data / f"{name}.el.gz"
        if not path.exists():
            print(f"skip {name}: {path} missing", file=sys.stderr)
            continue
        g = kcjax.load(path)
        src, dst = (a.tolist() for a in g.edges())
        G = nx.Graph()
        G.add_nodes_from(range(g.num_nodes))
        G.add_edges_from(zip(src, dst, strict=True))
        t = time.perf_counter()
        K = backend.convert_from_nx(G)
        jax.block_until_ready(K.graph.indices)
        convert_s = time.perf_counter() - t
        total_cliques = sum(kcjax.count_all_cliques(g).values())
        source = max(G.degree, key=lambda kv: kv[1])[0]
        print(f"{name}: n={len(G):,} m={G.number_of_edges():,} convert {convert_s:.3f}s")
        for fname, (f, fargs) in calls(G, source).items():
            if args.functions and fname not in args.functions:
                continue
            if fname == "enumerate_all_cliques" and total_cliques > args.max_cliques:
                continue
            kargs = (K, *fargs[1:])

            def cold(f=f, kargs=kargs, K=K):
                K._cache.clear()  # time the work, not the per-graph cache
                K._dags.clear()
                return f(*kargs)

            wall(cold, 1)  # compile
            kc_s, kc_out = wall(cold, args.repeats)
            row = {
                "graph": name,
                "function": fname,
                "n": len(G),
                "m": G.number_of_edges(),
                "convert_s": convert_s,
                "kcjax_s": kc_s,
            }
            if on_gpu:
                dev = devtime.device_times(lambda cold=cold: _consume(cold()), 3)
                row["kcjax_device_span_s"] = max((d["span_s"] for d in dev.values()), default=0.0)
            if not (args.skip_slow_nx and fname in SLOW_NX and G.number_of_edges() > 100_000):
                nx_s, nx_out = wall(lambda f=f, fargs=fargs: f(*fargs, backend="networkx"), 1)
                row["networkx_s"] = nx_s
                row["speedup"] = nx_s / kc_s if kc_s else None
                row["same"] = _same(kc_out, nx_out)
            rows.append(row)
            print(
                f"  {fname:36s} kcjax {kc_s:9.4f}s"
                f"  networkx {row.get('networkx_s', float('nan')):9.4f}s"
                f"  same={row.get('same')}",
                flush=True,
            )
    result = {
        "platform": jax.default_backend(),
        "devices": [str(d) for d in jax.devices()],
        "host": platform.node(),
        "networkx": nx.__version__,
        "rows": rows,
    }
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
