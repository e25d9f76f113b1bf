"""The graph features ``method="auto"`` reads on a GPU and what they cost on the device.

    python experiments/cliques/auto_features.py [--graphs G ...] [--repeats 5] [--out f.json]

Per graph: global transitivity, degeneracy, the size of the densest core and
whether that core is one clique (the functions ``auto`` calls: the core
numbers of the DAG's graph, by rank), and the time of each on the default
device (median of synchronized calls after a warm-up;
graph loading and orientation excluded). Where pivoting beats enumeration
the densest core is a clique (com-dblp, ca-AstroPh), and on ego-Facebook it
is not: ``auto``'s rule (kcjax.cliques.auto.auto_gpu_method).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import jax

_HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(_HERE), str(_HERE.parent / "tools")]  # also under python -P
from bench import load_graph  # noqa: E402
from benchlib import write_results  # noqa: E402

import kcjax  # noqa: E402
from kcjax.cliques import auto  # noqa: E402
from kcjax.graph.orient import clear_memo, dag_core_numbers  # noqa: E402

GRAPHS = [
    "email-Enron",
    "ca-CondMat",
    "wiki-Vote",
    "cit-HepTh",
    "com-amazon",
    "soc-Epinions1",
    "ca-AstroPh",
    "com-dblp",
    "ego-Facebook",
]


def _median_s(fn, repeats: int) -> tuple[float, object]:
    out = jax.block_until_ready(fn())  # warm-up (compiles)
    times = []
    for _ in range(repeats):
        t = time.perf_counter()
        out = jax.block_until_ready(fn())
        times.append(time.perf_counter() - t)
    return statistics.median(times), out


def features_of(graph: kcjax.Graph, name: str, repeats: int) -> dict:
    """The features of ``graph`` (on the default device) and their device cost."""
    graph = jax.device_put(graph, jax.devices()[0])
    dag = kcjax.orient(graph)

    def fresh(fn):  # each repeat computes the fact anew (auto memoizes it per DAG)
        clear_memo()
        return fn()

    t_trans, trans = _median_s(lambda: fresh(lambda: kcjax.transitivity(dag)), repeats)
    t_cores, _ = _median_s(lambda: dag_core_numbers(dag), repeats)
    t_core, (top, size, edges) = _median_s(lambda: fresh(lambda: auto.densest_core(dag)), repeats)
    return {
        "graph": name,
        "transitivity": float(trans),
        "degeneracy": int(top),
        "max_core_vertices": size,
        "max_core_edges": edges,
        "max_core_is_clique": edges == size * (size - 1) // 2,
        "transitivity_s": t_trans,
        "core_numbers_s": t_cores,
        "max_core_s": t_core,  # core numbers + densest core
    }


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--graphs", nargs="+", default=GRAPHS)
    p.add_argument("--repeats", type=int, default=5)
    p.add_argument("--out", type=Path, default=None)
    args = p.parse_args(argv)
    rows = [features_of(load_graph(g), g, args.repeats) for g in args.graphs]
    print(
        f"{'graph':14s} {'trans':>6s} {'degen':>6s} {'core':>6s} clique "
        f"{'trans_s':>9s} {'cores_s':>9s} {'core_s':>9s}"
    )
    for r in rows:
        print(
            f"{r['graph']:14s} {r['transitivity']:6.3f} {r['degeneracy']:6d} "
            f"{r['max_core_vertices']:6d} {'yes' if r['max_core_is_clique'] else 'no ':>6s} "
            f"{r['transitivity_s']:9.6f} {r['core_numbers_s']:9.6f} {r['max_core_s']:9.6f}"
        )
    if args.out:
        timer = "wall clock around a synchronized call, median after a warm-up"
        write_results(args.out, jax.devices()[0], args.repeats, rows, timer)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
