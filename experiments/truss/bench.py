"""k-truss benchmark: decomposition, max truss and single-k trusses, with the ablation.

Scope (as the peer's anchor, KTrussExplorer): the graph is loaded, canonicalized
and indexed on the device first (not timed: the edge index of
kcjax.truss.kernels.build_edge_index, i.e. the degree orientation and the
CSR-entry -> edge-id maps, and the core numbers the prefilter reads; their
one-off times are reported as ``prep_s``); each timed call runs on the device
and waits for its result. Every row is warmed up once, then timed
``--repeats`` times: ``median_s`` is the wall clock of a synchronized call,
``device_s``/``busy_s`` the JAX profiler's span/busy time of its GPU work
(median), the scope of the peer's timer. Results are checked against
../shared/data/truss/truss_counts.tsv (every k) where the graph has rows.

Rows (``op`` / ``variant``):
  decompose / hindex|peel|peel+edge|peel+vertex|dense|cpu
                                         truss_numbers (every edge's trussness, one call):
                                         algorithm "hindex" (the default) or "peel" with
                                         the support pass dag (default), edge or vertex
  max_truss / default                    truss_numbers, then k_max and the k_max mask (two
                                         programs, as kcjax.max_truss runs them)
  k_truss / auto+core|dag+core|dag|edge+core|edge|vertex+core|vertex|dense+core|cpu
                                         k_truss_mask at k = 3 and k = k_max (peer's rows;
                                         every native variant of k = 3 is the one-pass
                                         kcjax_truss_triangle_edges: method and prefilter
                                         cannot change the 3-truss; auto+core is the
                                         default: the edge pass on short lists, else dag)
  support / dag|edge|vertex              edge_support alone (the support pass ablation)
``cpu`` rows run the C++ handler on the host CPU backend (wall clock).
The native ``decompose`` rows also hold ``phases_s``: the median device time of
each kernel of the call (init, support pass, peeling, ...), from the profiler.
``--timeline NAME...`` adds, for those graphs, the host replay of the kernel's
steps (experiments/truss/timeline.py: levels, scans, rounds, frontier sizes) to
the results file's ``meta.timelines`` and prints it; the last lines printed are
the short table (peer rows, then every decomposition with its phases).

Timed scope of a k_truss row: the eager ``kcjax.k_truss_mask`` call on the
device-resident graph, whose edge list, edge index (degree-oriented DAG, edge
ids) and core numbers are memoized on the Graph by the warm-up call (their
one-off device times are ``prep_s`` and ``core_s``, printed beside the peer
table); k = 3 reads none but the edge list. A decomposition row's call also reads
the store's degree bound (``kcjax.truss.kernels.store_entries``: one pass over the
edges' end degrees, memoized; the device time of that pass is ``bound_s``).

Usage (one H200, about 4 minutes with the defaults):
  python experiments/truss/bench.py --out experiments/results/truss_h200.json
  python experiments/truss/bench.py --scales 20 --timeline com-dblp soc-Epinions1 ca-AstroPh
  python experiments/truss/bench.py --graphs com-dblp --scales --repeats 5   # one graph
  python experiments/truss/bench.py --scales --no-ablation --no-decompose \
      --variants auto+core dag+core edge+core dag       # single-k rows only
  python experiments/truss/bench.py --scales --no-k-truss \
      --decompose-variants hindex peel                  # decompositions only
"""

from __future__ import annotations

import argparse
import csv
import math
import platform
import re
import statistics
import sys
import time
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np

import kcjax
from kcjax import core_numbers
from kcjax.experimental import truss_build_edge_index as build_edge_index
from kcjax.experimental import truss_degree_bound_parts as degree_bound_parts
from kcjax.experimental import truss_edge_index as edge_index
from kcjax.experimental import truss_edge_list as edge_list
from kcjax.experimental import truss_store_entries as store_entries

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE.parent / "tools"), str(HERE)]  # also under python -P
from benchlib import SHARED_GRAPHS, device_span, wall_times, write_results  # noqa: E402
from devtime import call_activities  # noqa: E402

ROOT = HERE.parents[1]
TRUSS_TSV = [
    ROOT / ".gpu" / "truss" / "truss_counts.tsv",
    ROOT.parent / "shared" / "data" / "truss" / "truss_counts.tsv",
]
PEER_TSV = [
    ROOT / ".gpu" / "truss-peer-h200.tsv",
    ROOT / ".gpu" / "anchors" / "truss-peer-h200.tsv",
    ROOT.parent / "shared" / "data" / "anchors" / "truss-peer-h200.tsv",
]
#: Decomposition variants: (support pass, algorithm) of kcjax.truss_numbers.
DECOMPOSE_VARIANTS = {
    "hindex": ("dag", "hindex"),
    "peel": ("dag", "peel"),
    "peel+edge": ("edge", "peel"),
    "peel+vertex": ("vertex", "peel"),
}
TIMER = (
    "median_s: wall clock around a synchronized call on a device-resident, indexed graph; "
    "device_s/busy_s: JAX profiler (CUPTI) span/busy time of the call's GPU work"
)


DATA_DIRS = [ROOT / ".gpu" / "graphs", ROOT.parent / "shared" / "data" / "graphs"]


def load_graph(name: str) -> kcjax.Graph:
    """A shared graph by name, or ``rmatS-EF``: R-MAT of scale S, edge factor EF (seed 1)."""
    if name.startswith("rmat"):
        scale, _, ef = name[4:].partition("-")
        return kcjax.generators.rmat(int(scale), edge_factor=int(ef or 16), seed=1)
    data = _first(DATA_DIRS)
    if data is None:
        raise SystemExit(f"no graph directory among {DATA_DIRS}")
    return kcjax.load(data / f"{name}.el.gz")


def _timed(fn, repeats: int, device: bool) -> tuple[dict, object]:
    """Median wall clock of synchronized calls after one warm-up; with ``device`` also the
    profiler's median device span and busy time."""
    jax.block_until_ready(fn())
    times, out = wall_times(fn, repeats)
    t = {"median_s": statistics.median(times), "times_s": times}
    if device:
        t.update(device_span(fn, repeats))
    return t, out


def _first(paths: list[Path]) -> Path | None:
    return next((p for p in paths if p.exists()), None)


def _tsv(paths: list[Path]) -> list[dict[str, str]]:
    path = _first(paths)
    if path is None:
        return []
    with open(path) as f:
        return list(csv.DictReader(f, delimiter="\t"))


def _summary(src: np.ndarray, dst: np.ndarray, keep: np.ndarray) -> tuple[int, int, int]:
    s, d = src[keep].astype(np.int64), dst[keep].astype(np.int64)
    verts = np.unique(np.concatenate([s, d])).size
    return int(s.size), int(verts), int(s.sum()) * 2**32 + int(d.sum())


def _check_truss(truss: np.ndarray, src, dst, rows: dict[int, tuple[int, int, int]]) -> bool | None:
    if not rows:
        return None
    if int(truss.max(initial=2)) != max(rows) - 1:
        return False
    return all(_summary(src, dst, truss >= k) == want for k, want in rows.items())


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--graphs", nargs="*", default=list(SHARED_GRAPHS), help="shared graph names")
    ap.add_argument(
        "--scales",
        nargs="*",
        type=int,
        default=[20, 21, 22, 23, 24],
        help="R-MAT scales (edge factor 16); none: skip R-MAT",
    )
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument(
        "--dense-max-edges",
        type=int,
        default=120_000,
        help="run the dense-JAX rows only on graphs up to this many edges",
    )
    ap.add_argument(
        "--cpu-max-edges",
        type=int,
        default=2_000_000,
        help="run the CPU-handler rows only on graphs up to this many edges",
    )
    ap.add_argument("--no-ablation", action="store_true", help="only the default variant")
    ap.add_argument(
        "--no-decompose",
        action="store_true",
        help="no decompose / max_truss rows (k_max from one untimed truss_numbers call)",
    )
    ap.add_argument(
        "--no-k-truss", action="store_true", help="no k_truss / support rows (decompositions)"
    )
    ap.add_argument(
        "--decompose-variants",
        nargs="*",
        choices=sorted(DECOMPOSE_VARIANTS),
        default=None,
        help="decomposition variants instead of the ablation's (R-MAT: hindex only)",
    )
    ap.add_argument(
        "--variants",
        nargs="*",
        default=None,
        help="k_truss variants (METHOD or METHOD+core) instead of the ablation's",
    )
    ap.add_argument(
        "--timeline",
        nargs="*",
        default=[],
        help="graphs whose decomposition steps are replayed on the host and printed",
    )
    ap.add_argument(
        "--out", type=Path, default=ROOT / "experiments" / "results" / "truss" / "truss.json"
    )
    args = ap.parse_args(argv)

    device = jax.devices()[0]
    on_gpu = device.platform == "gpu" or device.platform == "cuda"
    truth: dict[str, dict[int, tuple[int, int, int]]] = {}
    for r in _tsv(TRUSS_TSV):
        truth.setdefault(r["graph"], {})[int(r["k"])] = (
            int(r["edges"]),
            int(r["vertices"]),
            int(r["edge_sum"]),
        )
    peer = {(r["graph"], int(r["k"])): (float(r["ktx_s"]), int(r["edges"])) for r in _tsv(PEER_TSV)}

    names = list(args.graphs) + [f"rmat{s}-16" for s in args.scales]
    rows: list[dict] = []
    t_start = time.perf_counter()
    for name in names:
        _bench_graph(name, args, device, on_gpu, truth.get(name, {}), peer, rows)
        print(f"-- total {time.perf_counter() - t_start:.1f} s", flush=True)

    timelines = []
    if args.timeline:
        import timeline  # the replay; imported here: it imports this module's load_graph

        peel = {
            r["graph"]: r["phases_s"].get("PeelKernel")
            for r in rows
            if r["op"] == "decompose" and r["variant"] == "peel" and "phases_s" in r
        }
        for name in args.timeline:
            t = timeline.timeline(name)
            if peel.get(name):
                t["peel_s_per_step"] = peel[name] / t["steps"]
            timelines.append(t)
            timeline.print_timeline(t)
    write_results(
        args.out, device, args.repeats, rows, TIMER, host=platform.node(), timelines=timelines
    )
    _print_peer_table(rows, peer)
    for t in timelines:
        per_step = t.get("peel_s_per_step")
        print(
            f"steps {t['graph']:14s} levels={t['levels']} rounds={t['rounds']} "
            f"scans={t['scans']} steps={t['steps']} scanned={t['scanned'] / t['edges']:.1f} m"
            + (f" peel/step={per_step * 1e6:.2f} us" if per_step else "")
        )
    return 0 if all(r["correct"] is not False for r in rows) else 1


def _bench_graph(name, args, device, on_gpu, want, peer, rows) -> None:
    """Every row of one graph, appended to ``rows``."""
    t0 = time.perf_counter()
    graph = jax.device_put(load_graph(name), device)
    load_s = time.perf_counter() - t0
    m = graph.num_edges
    prep, _ = _timed(lambda g=graph: build_edge_index(g), 1, on_gpu)
    core_t, _ = _timed(lambda g=graph: core_numbers(g), 1, on_gpu)
    edges = edge_list(graph)
    bound_t, _ = _timed(lambda g=graph: degree_bound_parts(g, *edges), 1, on_gpu)
    store_entries(graph)  # the decomposition's memoized degree bound (prep, not timed)
    jax.block_until_ready((edge_index(graph), kcjax.k_truss_mask(graph, 3)))
    src, dst = (np.asarray(a) for a in graph.edges())
    base = {
        "graph": name,
        "edges": m,
        "nodes": graph.num_nodes,
        "load_s": load_s,
        "prep_s": prep.get("device_s", prep["median_s"]),
        "core_s": core_t.get("device_s", core_t["median_s"]),
        "bound_s": bound_t.get("device_s", bound_t["median_s"]),
    }

    def row(op, variant, k, timing, correct, **extra):
        r = {**base, "op": op, "variant": variant, "k": k, "correct": correct, **extra}
        r.update({key: timing[key] for key in ("median_s", "device_s", "busy_s") if key in timing})
        ours = timing.get("device_s", timing["median_s"])
        r["edges_per_s"] = m / ours if ours > 0 else math.nan
        p = peer.get((name, k)) if op == "k_truss" else None
        if p is not None:
            r["peer_s"], r["x_peer"] = p[0], p[0] / ours
        rows.append(r)
        px = f" x_peer={r['x_peer']:.2f}" if "x_peer" in r else ""
        print(
            f"{name:14s} {op:9s} {variant:12s} k={k!s:4s} wall={timing['median_s']:.6f} "
            f"dev={timing.get('device_s', math.nan):.6f} ok={correct}{px}",
            flush=True,
        )

    lean = args.no_ablation or name.startswith(
        "rmat"
    )  # R-MAT: the default variant only (hubs make the seed pass slow)
    if args.no_decompose:  # k_max from one untimed call
        truss = np.asarray(kcjax.truss_numbers(graph))
        k_max = int(truss.max(initial=2)) if m else 0
    else:
        variants = ["hindex"] if lean else list(DECOMPOSE_VARIANTS)
        if args.decompose_variants is not None and not name.startswith("rmat"):
            variants = args.decompose_variants
        k_max = None
        for variant in variants:
            method, algorithm = DECOMPOSE_VARIANTS[variant]

            def decompose(g=graph, mm=method, a=algorithm):
                return kcjax.truss_numbers(g, method=mm, algorithm=a)

            t, truss = _timed(decompose, args.repeats, on_gpu)
            truss = np.asarray(truss)
            k_max = int(truss.max(initial=2)) if m else 0
            extra = {"phases_s": _phases(decompose, args.repeats)} if on_gpu else {}
            row(
                "decompose",
                variant,
                None,
                t,
                _check_truss(truss, src, dst, want),
                k_max=k_max,
                **extra,
            )
        if m <= args.dense_max_edges and not lean:
            t, truss = _timed(lambda g=graph: kcjax.truss_numbers(g, method="dense"), 1, on_gpu)
            row("decompose", "dense", None, t, _check_truss(np.asarray(truss), src, dst, want))
        if m <= args.cpu_max_edges and not lean and on_gpu:
            cpu_graph = jax.device_put(graph, jax.devices("cpu")[0])
            with jax.default_device(jax.devices("cpu")[0]):
                t, truss = _timed(lambda g=cpu_graph: kcjax.truss_numbers(g), 1, False)
            row("decompose", "cpu", None, t, _check_truss(np.asarray(truss), src, dst, want))

        @jax.jit
        def top_mask(tr):
            top = jnp.max(tr, initial=0)
            return top, tr >= top

        # As kcjax.max_truss on the device: the eager decomposition (its edge index and
        # store bound memoized), then k_max and its mask (a second program).
        t, (top, mask) = _timed(
            lambda g=graph: top_mask(kcjax.truss_numbers(g)), args.repeats, on_gpu
        )
        ok = None if not want else _summary(src, dst, np.asarray(mask)) == want[k_max]
        row("max_truss", "default", int(top), t, ok)

    variants = [("auto", True)]
    if args.variants:
        variants = [(v.removesuffix("+core"), v.endswith("+core")) for v in args.variants]
    elif not lean:
        variants += [
            ("dag", True),
            ("dag", False),
            ("edge", True),
            ("edge", False),
            ("vertex", True),
            ("vertex", False),
        ]
    if args.no_k_truss:
        variants = []
    for k in sorted({3, k_max} if k_max and k_max >= 3 and variants else set()):
        for method, pre in variants:
            t, mask = _timed(
                lambda g=graph, mm=method, kk=k, p=pre: kcjax.k_truss_mask(
                    g, kk, method=mm, prefilter=p
                ),
                args.repeats,
                on_gpu,
            )
            mask = np.asarray(mask)
            ok = None if k not in want else _summary(src, dst, mask) == want[k]
            row(
                "k_truss",
                method + ("+core" if pre else ""),
                k,
                t,
                ok,
                truss_edges=int(mask.sum()),
            )
        if m <= args.dense_max_edges and not lean:
            t, mask = _timed(
                lambda g=graph, kk=k: kcjax.k_truss_mask(g, kk, method="dense"), 1, on_gpu
            )
            ok = None if k not in want else _summary(src, dst, np.asarray(mask)) == want[k]
            row("k_truss", "dense+core", k, t, ok)
    for method in () if args.no_k_truss else ("dag",) if lean else ("dag", "edge", "vertex"):
        t, _ = _timed(
            lambda g=graph, mm=method: kcjax.edge_support(g, method=mm), args.repeats, on_gpu
        )
        row("support", method, None, t, None)
    del graph
    print(f"-- {name}: {time.perf_counter() - t0:.1f} s", flush=True)


def _phases(fn, repeats: int) -> dict[str, float]:
    """Median device seconds of each kernel (by short name) over ``repeats`` calls."""
    per_call = call_activities(fn, repeats)
    totals: dict[str, list[float]] = {}
    for acts in per_call:
        call: dict[str, float] = {}
        for name, start, end in acts:
            short = re.search(r"([A-Z][A-Za-z]*Kernel)", name)
            key = short.group(1) if short else name[:40]
            call[key] = call.get(key, 0.0) + (end - start) * 1e-9
        for key, sec in call.items():
            totals.setdefault(key, []).append(sec)
    return {key: statistics.median(v) for key, v in totals.items()}


def _print_peer_table(rows: list[dict], peer: dict) -> None:
    """The peer's rows beside ours: the default variant (auto+core; dag+core in results
    from before it) and the best native one; x > 1: kcjax faster. Then every native
    decomposition against the peer's two runs (k = 3 plus k = k_max, from ``peer``)."""
    print(
        f"\n{'graph':14s} {'k':>4s} {'peer_s':>10s} {'ours_s':>10s} {'x':>6s} "
        f"{'best':>10s} {'variant':12s} {'x_best':>6s} {'core_s':>9s} ok"
    )
    peer_rows = [r for r in rows if r["op"] == "k_truss" and "peer_s" in r]
    keys = sorted({(r["graph"], r["k"]) for r in peer_rows})
    for graph, k in keys:
        same = [r for r in peer_rows if (r["graph"], r["k"]) == (graph, k)]
        native = [r for r in same if not r["variant"].startswith(("dense", "cpu"))]
        default = next(
            (r for v in ("auto+core", "dag+core") for r in same if r["variant"] == v), native[0]
        )
        best = min(native, key=lambda r: r.get("device_s", r["median_s"]))
        ours = default.get("device_s", default["median_s"])
        top = best.get("device_s", best["median_s"])
        ok = all(r["correct"] is not False for r in same)
        print(
            f"{graph:14s} {k:4d} {default['peer_s']:10.6f} {ours:10.6f} "
            f"{default['x_peer']:6.2f} {top:10.6f} {best['variant']:12s} {best['x_peer']:6.2f} "
            f"{default['core_s']:9.6f} {ok}"
        )
    two_runs: dict[str, float] = {}
    for (graph, _), (sec, _) in peer.items():
        two_runs[graph] = two_runs.get(graph, 0.0) + sec
    dec = [r for r in rows if r["op"] == "decompose" and r["variant"] in DECOMPOSE_VARIANTS]
    for r in dec:
        phases = " ".join(f"{k}={v * 1e3:.3f}ms" for k, v in r.get("phases_s", {}).items())
        ours = r.get("device_s", r["median_s"])
        vs = ""
        if r["graph"] in two_runs:
            vs = f" peer(k=3+kmax)={two_runs[r['graph']]:.6f} s x={two_runs[r['graph']] / ours:.2f}"
        print(
            f"decompose {r['graph']:14s} {r['variant']:11s} {ours:.6f} s "
            f"({r['edges_per_s'] / 1e6:.1f} M edges/s) k_max={r['k_max']} ok={r['correct']}{vs} "
            f"{phases}"
        )


if __name__ == "__main__":
    raise SystemExit(main())
