"""BFS benchmark: kcjax.bfs on Kronecker graphs and the shared graphs, beside the peers.

Run from the repository root (one H200, ~4 minutes with the defaults):

    python experiments/bfs/bench.py -o experiments/results/bfs/h200_bfs.json

Sections (each can be limited by flags):
  kron      Graph500 Kronecker graphs, scales --scales (edge factor 16), 64 random
            non-isolated sources each; GTEPS per source, harmonic mean and median,
            both conventions (undirected edge once as Graph500, twice as the seed).
  shared    every shared graph, its five ground-truth sources, beside
            ../shared/data/anchors/bfs-peer-best-h200.tsv (best peer, Enterprise, GAP).
  ablation  every method x direction on the --ablation graphs (median over 16 sources).
  baselines the dense pure-JAX BFS and the CPU handler on the same graphs.
  batched   the 64-source bitset path: sources per second and aggregate GTEPS.

Times are device-timed medians (profiler span of the call: the output
initialization and the one persistent kernel) with --repeats repeats per
source; without a GPU the host wall clock of synchronized calls. The graph is
on the device before timing; results stay on the device. Generated graphs are
cached as .npz under --cache.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "experiments" / "tools"))

import devtime  # noqa: E402
from benchlib import wall_times, write_results  # noqa: E402

import kcjax  # noqa: E402

#: ../shared/data (or its copy .gpu/ with graphs/, bfs/ and anchors/ inside).
SHARED = next(
    (p for p in (ROOT.parent / "shared" / "data", ROOT / ".gpu") if (p / "graphs").exists()),
    ROOT.parent / "shared" / "data",
)
ANCHORS = SHARED / "anchors" / "bfs-peer-best-h200.tsv"
TRUTH = SHARED / "bfs" / "bfs_truth.tsv"


def _bfs_fn(method: str = "enterprise", direction: str = "auto", batch: str = "bitset"):
    return jax.jit(
        lambda g, s: (
            kcjax.bfs(g, sources=s, method=method, direction=direction, batch=batch).distances
        )
    )


def time_sources(graph, sources, repeats, **kw) -> list[float]:
    """Median seconds per source (one traversal per call), device-timed where possible."""
    fn = _bfs_fn(**kw)
    rows = [jnp.asarray(np.array([s], np.int32)) for s in sources]
    jax.block_until_ready(fn(graph, rows[0]))
    calls = [rows[i % len(rows)] for i in range(len(rows) * repeats)]
    it = iter(calls)
    if jax.default_backend() == "gpu":
        traced = devtime._trace(lambda: fn(graph, next(it)), len(calls))
        if traced:
            per_call = next(iter(traced.values()))
            if len(per_call) == len(calls):
                spans = [devtime._span([(a[1], a[2]) for a in c]) * 1e-9 for c in per_call]
                return [statistics.median(spans[i :: len(rows)]) for i in range(len(rows))]
    out = []
    for r in rows:
        ts = []
        for _ in range(repeats):
            t0 = time.perf_counter()
            jax.block_until_ready(fn(graph, r))
            ts.append(time.perf_counter() - t0)
        out.append(statistics.median(ts))
    return out


def time_call(fn, repeats) -> float:
    """Median seconds of fn() (device span on a GPU)."""
    jax.block_until_ready(fn())
    if jax.default_backend() == "gpu":
        per = devtime.device_times(fn, repeats)
        if per:
            return per[min(per)]["span_s"]
    return statistics.median(wall_times(fn, repeats)[0])


def component_edges(graph, sources) -> np.ndarray:
    d = kcjax.bfs(graph, sources=np.asarray(sources, np.int32), parents=False).distances
    return np.asarray(kcjax.traversed_edges(graph, d)).astype(np.int64)


def teps_stats(edges: np.ndarray, times: list[float]) -> dict:
    g = edges / np.asarray(times) / 1e9
    return {
        "gteps_hmean_once": float(len(g) / np.sum(1 / g)),
        "gteps_median_once": float(np.median(g)),
        "gteps_hmean_twice": float(2 * len(g) / np.sum(1 / g)),
        "gteps_median_twice": float(2 * np.median(g)),
        "time_median_s": float(np.median(times)),
    }


def kron_graph(scale: int, edge_factor: int, cache: Path) -> kcjax.Graph:
    path = cache / f"kron{scale}_{edge_factor}.npz"
    if path.exists():
        return kcjax.load(path)
    g = kcjax.generators.kronecker(scale, edge_factor, seed=1)
    cache.mkdir(parents=True, exist_ok=True)
    kcjax.save(g, path)
    return g


def random_sources(graph, count: int, seed: int = 0) -> np.ndarray:
    deg = np.asarray(graph.degrees())
    ok = np.flatnonzero(deg > 0)
    return (
        np.random.default_rng(seed).choice(ok, min(count, ok.size), replace=False).astype(np.int32)
    )


def anchors() -> dict[tuple[str, int], dict]:
    out = {}
    if ANCHORS.exists():
        lines = ANCHORS.read_text().splitlines()
        head = lines[0].split("\t")
        for line in lines[1:]:
            row = dict(zip(head, line.split("\t"), strict=True))
            out[(row["graph"], int(row["source"]))] = row
    return out


def truth_sources() -> dict[str, list[int]]:
    out: dict[str, list[int]] = {}
    for line in TRUTH.read_text().splitlines()[1:]:
        name, source = line.split("\t")[:2]
        out.setdefault(name, []).append(int(source))
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("-o", "--output", type=Path, default=ROOT / "experiments/results/bfs/bfs.json")
    ap.add_argument("--scales", default="20,21,22,23,24", help="Kronecker scales (edge factor 16)")
    ap.add_argument("--sources", type=int, default=64, help="random sources per Kronecker graph")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--ef512", action="store_true", help="also the seed's Kron-20-512")
    ap.add_argument("--sections", default="kron,shared,ablation,baselines,batched")
    ap.add_argument("--ablation", default="kron20,com-dblp", help="graphs of the ablation")
    ap.add_argument("--cache", type=Path, default=ROOT / ".gpu/cache")
    args = ap.parse_args(argv)
    sections = set(args.sections.split(","))
    dev = jax.devices()[0]
    rows: list[dict] = []
    graphs: dict[str, kcjax.Graph] = {}
    t_start = time.perf_counter()

    def log(row: dict) -> None:
        rows.append(row)
        print(json.dumps(row), flush=True)

    def graph_named(name: str) -> kcjax.Graph:
        if name not in graphs:
            if name.startswith("kron"):
                scale, _, ef = name[4:].partition("_")
                graphs[name] = kron_graph(int(scale), int(ef or 16), args.cache)
            else:
                graphs[name] = kcjax.load(SHARED / "graphs" / f"{name}.el.gz")
            graphs[name] = jax.device_put(graphs[name], dev)
        return graphs[name]

    if "kron" in sections:
        specs = [f"kron{s}" for s in args.scales.split(",") if s] + (
            ["kron20_512"] if args.ef512 else []
        )
        for name in specs:
            g = graph_named(name)
            src = random_sources(g, args.sources)
            times = time_sources(g, src, args.repeats)
            log(
                {
                    "section": "kron",
                    "graph": name,
                    "n": g.num_nodes,
                    "edges": g.num_edges,
                    "sources": len(src),
                    **teps_stats(component_edges(g, src), times),
                }
            )
            if name != "kron20":
                graphs.pop(name)  # free the device memory of the large ones

    peers = anchors()
    if "shared" in sections and TRUTH.exists():
        for name, src in truth_sources().items():
            g = graph_named(name)
            times = time_sources(g, src, max(args.repeats, 5))
            edges = component_edges(g, src)
            for s, t, e in zip(src, times, edges, strict=True):
                peer = peers.get((name, s), {})
                best = float(peer["best_s"]) if peer else None
                log(
                    {
                        "section": "shared",
                        "graph": name,
                        "source": s,
                        "time_s": t,
                        "gteps_once": e / t / 1e9,
                        "peer_best_s": best,
                        "peer_best": peer.get("best_peer"),
                        "enterprise_s": float(peer["enterprise_s"]) if peer else None,
                        "speedup_vs_best": best / t if best else None,
                    }
                )

    abl = [x for x in args.ablation.split(",") if x]
    if "ablation" in sections:
        for name in abl:
            g = graph_named(name)
            src = random_sources(g, 16, seed=1)
            edges = component_edges(g, src)
            for method in kcjax.BFS_METHODS:
                for direction in (
                    ("auto",) if method == "dense" else ("auto", "top_down", "bottom_up")
                ):
                    times = time_sources(
                        g, src, args.repeats, method=method, direction=direction, batch="each"
                    )
                    log(
                        {
                            "section": "ablation",
                            "graph": name,
                            "method": method,
                            "direction": direction,
                            **teps_stats(edges, times),
                        }
                    )

    if "baselines" in sections:
        cpu = jax.devices("cpu")[0]
        for name in abl:
            g = graph_named(name)
            src = random_sources(g, 4, seed=2)
            gc = jax.device_put(g, cpu)
            fn = _bfs_fn(batch="each")
            with jax.default_device(cpu):
                arr = jax.device_put(jnp.asarray(src[:1]), cpu)
                t = time_call(lambda gc=gc, fn=fn, arr=arr: fn(gc, arr), args.repeats)
            log(
                {
                    "section": "baselines",
                    "graph": name,
                    "impl": "cpu_handler",
                    "host_cores": jax.local_device_count("cpu"),
                    **teps_stats(component_edges(g, src[:1]), [t]),
                }
            )

    if "batched" in sections:
        for name in abl:
            g = graph_named(name)
            for s in (64, 256):
                src = random_sources(g, s, seed=3)
                arr = jnp.asarray(src)
                fn = _bfs_fn(batch="bitset")
                t = time_call(lambda g=g, fn=fn, arr=arr: fn(g, arr), args.repeats)
                edges = component_edges(g, src)
                log(
                    {
                        "section": "batched",
                        "graph": name,
                        "sources": int(len(src)),
                        "time_s": t,
                        "per_source_s": t / len(src),
                        "gteps_once_aggregate": float(edges.sum() / t / 1e9),
                    }
                )

    write_results(
        args.output,
        dev,
        args.repeats,
        rows,
        "profiler device span per call (GPU), else host wall clock",
        wall_s=time.perf_counter() - t_start,
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
