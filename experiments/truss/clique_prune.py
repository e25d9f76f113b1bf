"""Does the k-truss pay as a prefilter for k-cliques and the clique number?

A k-clique lies inside the k-truss (each of its edges closes k - 2 triangles of the
clique), so ``count_cliques(G, k) == count_cliques(k_truss(G, k), k)``, and the clique
number is at most the largest trussness k_max (an omega-clique lies in the omega-truss).
For every shared graph and each ``--ks`` k this measures, on the device-resident graph:

  full_s      count_cliques(G, k) (the default method), device span
  mask_s      k_truss_mask(G, k) (the default: k-core prefilter, memoized core numbers
              whose one-off time is core_s), device span
  pruned_s    count_cliques(T, k) on the k-truss T as a Graph (built on the host from
              the mask, not timed), device span
  x           full_s / (mask_s + pruned_s): above 1 the prefilter pays (before the
              untimed host step that builds T, and T's own orientation)

and per graph the clique-number route: clique_number(G) against truss_numbers(G), then
clique_number of the k_max-truss when it holds a k_max-clique (else the bound is not
tight and the plain call answers), both by the wall clock of eager calls (the truss
route builds its subgraph on the host). Every count is checked against
clique_counts.tsv, every clique number against its largest k.

Usage (GPU): python experiments/truss/clique_prune.py --ks 6 8 --out F.json
"""

from __future__ import annotations

import argparse
import csv
import statistics
import sys
import time
from pathlib import Path

import jax
import numpy as np

import kcjax

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE.parent / "tools"), str(HERE)]  # also under python -P
from bench import load_graph  # noqa: E402
from benchlib import SHARED_GRAPHS, device_span, wall_times, write_results  # noqa: E402

ROOT = HERE.parents[1]
CLIQUE_TSV = [
    ROOT / ".gpu" / "graphs" / "clique_counts.tsv",
    ROOT.parent / "shared" / "data" / "graphs" / "clique_counts.tsv",
]


def _clique_counts() -> dict[str, dict[int, int]]:
    path = next(p for p in CLIQUE_TSV if p.exists())
    counts: dict[str, dict[int, int]] = {}
    with path.open() as f:
        for r in csv.DictReader(f, delimiter="\t"):
            counts.setdefault(r["graph"], {})[int(r["k"])] = int(r["count"])
    return counts


def _span(fn, repeats: int) -> tuple[float, object]:
    """Device span (median of ``repeats`` after a warm-up), or the wall clock without a
    GPU; and the result."""
    out = jax.block_until_ready(fn())
    span = device_span(fn, repeats).get("device_s")
    if span is None:
        times, out = wall_times(fn, repeats)
        span = statistics.median(times)
    return span, out


def _wall(fn, repeats: int) -> tuple[float, object]:
    """Median wall clock of ``repeats`` calls after a warm-up, and the result."""
    fn()
    times, out = wall_times(fn, repeats)
    return statistics.median(times), out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--graphs", nargs="*", default=list(SHARED_GRAPHS))
    ap.add_argument("--ks", nargs="*", type=int, default=[6, 8])
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument(
        "--no-clique-number", nargs="*", default=[], help="graphs whose clique number is skipped"
    )
    ap.add_argument("--out", type=Path, default=None)
    args = ap.parse_args(argv)
    device = jax.devices()[0]
    truth = _clique_counts()
    rows, ok = [], True

    def save() -> None:
        if args.out is not None:
            write_results(
                args.out,
                device,
                args.repeats,
                rows,
                "full_s, mask_s, pruned_s: JAX profiler device span (median); "
                "clique_number: wall clock of eager calls (median)",
            )

    print(
        f"{'graph':14s} {'k':>3s} {'count':>22s} {'full_s':>9s} {'mask_s':>9s}"
        f" {'pruned_s':>9s} {'edges':>9s} {'x':>6s} ok"
    )
    for name in args.graphs:
        graph = jax.device_put(load_graph(name), device)
        want = truth.get(name, {})
        t0 = time.perf_counter()
        jax.block_until_ready(kcjax.core_numbers(graph))
        core_s = time.perf_counter() - t0
        for k in args.ks:
            full_s, full = _span(lambda g=graph, k=k: kcjax.count_cliques(g, k), args.repeats)
            mask_s, mask = _span(lambda g=graph, k=k: kcjax.k_truss_mask(g, k), args.repeats)
            src, dst = (np.asarray(a)[np.asarray(mask)] for a in graph.edges())
            truss = jax.device_put(
                kcjax.Graph.from_edges(src, dst, num_nodes=graph.num_nodes), device
            )
            pruned_s, pruned = _span(lambda g=truss, k=k: kcjax.count_cliques(g, k), args.repeats)
            correct = int(full) == int(pruned) and (k not in want or int(full) == want[k])
            ok &= correct
            x = full_s / (mask_s + pruned_s)
            rows.append(
                {
                    "graph": name,
                    "k": k,
                    "count": int(full),
                    "full_s": full_s,
                    "mask_s": mask_s,
                    "pruned_s": pruned_s,
                    "edges": graph.num_edges,
                    "truss_edges": int(len(src)),
                    "core_s": core_s,
                    "x": x,
                    "correct": correct,
                }
            )
            print(
                f"{name:14s} {k:3d} {int(full):22d} {full_s:9.6f} {mask_s:9.6f}"
                f" {pruned_s:9.6f} {len(src):9d} {x:6.2f} {correct}",
                flush=True,
            )
        save()  # after every step, so a run cut short keeps its rows
        if name in args.no_clique_number:
            continue
        omega_want = max((k for k, c in want.items() if c > 0), default=None)
        plain_s, (omega, _) = _wall(lambda g=graph: kcjax.clique_number(g), args.repeats)

        def via_truss(g=graph):
            k_max, top = kcjax.max_truss(g)
            omega_top, clique = kcjax.clique_number(top)
            return (omega_top, clique) if omega_top == k_max else kcjax.clique_number(g)

        truss_s, (omega_t, _) = _wall(via_truss, args.repeats)
        k_max = int(np.asarray(kcjax.truss_numbers(graph)).max(initial=2))
        correct = omega == omega_t and (omega_want is None or omega == omega_want)
        ok &= correct
        rows.append(
            {
                "graph": name,
                "op": "clique_number",
                "omega": int(omega),
                "k_max": k_max,
                "plain_s": plain_s,
                "via_truss_s": truss_s,
                "correct": correct,
            }
        )
        print(
            f"{name:14s} clique_number {omega} (truss bound {k_max}): plain {plain_s:.6f} s,"
            f" via the k_max-truss {truss_s:.6f} s {correct}",
            flush=True,
        )
        save()
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
