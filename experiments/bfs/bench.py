"""BFS benchmark: kcjax.bfs on Kronecker graphs and the shared graphs, beside the peers.

Run from the repository root (one H200, ~4 minutes with the defaults):

    python experiments/bfs/bench.py -o experiments/results/bfs/h200_bfs.json

Sections (each can be limited by flags):
  kron      Graph500 Kronecker graphs, scales --scales (edge factor 16), and R-MAT
            (0.45, 0.15, 0.15) graphs of --rmat-scales, 64 random non-isolated sources
            each; GTEPS per source, harmonic mean and median, both conventions
            (undirected edge once as Graph500, twice as the seed).
  shared    every shared graph, its five ground-truth sources, beside
            ../shared/data/anchors/bfs-peer-best-h200.tsv (best peer, Enterprise, GAP);
            each method's distances checked against bfs_truth.tsv (reached, depth,
            distance sum: the table's truth column).
  ablation  every method x direction on the --ablation graphs (median over 16 sources).
  baselines the dense pure-JAX BFS and the CPU handler on the same graphs.
  batched   64 and 256 sources at once: the bitset path, and batch "each" with
            "auto" and "cluster" (a cluster per source, all in one launch):
            sources per second and aggregate GTEPS.
  timeline  per level of one traversal (--timeline GRAPH:SOURCE,...): frontier size,
            edges and direction of the "cluster" kernel's rule (a CPU replay), with
            the traversal's device time for "cluster" and "enterprise".
  tune      "cluster" on --tune-graphs for each --tune-clusters cluster size.
--methods times several methods on the shared rows and the Kronecker graphs (e.g.
cluster,enterprise). A short table (speedup vs the best peer per graph) is printed last.

The quick GPU check (shared rows and kron20 of both methods, timelines, the cluster
size sweep; ~2-3 minutes on an H200):

    python experiments/bfs/bench.py --quick -o $OUT/bfs_quick.json

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
from kcjax.experimental import BFS_BATCHES as BATCHES  # noqa: E402
from kcjax.experimental import BFS_DIRECTIONS as DIRECTIONS  # noqa: E402
from kcjax.experimental import BFS_GRID_BITMAP_MIN_VERTICES as GRID_BITMAP_MIN_VERTICES  # noqa: E402
from kcjax.experimental import BFS_NATIVE_METHODS as NATIVE_METHODS  # noqa: E402
from kcjax.experimental import bfs_native  # noqa: E402

#: ../shared/data (or its copy .gpu/ with graphs/, bfs/ and anchors/ inside).
SHARED = next(
    (p for p in (ROOT.parent / "shared" / "data", ROOT / ".gpu") if (p / "graphs").exists()),
    ROOT.parent / "shared" / "data",
)
ANCHORS = SHARED / "anchors" / "bfs-peer-best-h200.tsv"
TRUTH = SHARED / "bfs" / "bfs_truth.tsv"


#: The issue's R-MAT parameters (a, b, c); Kronecker is (0.57, 0.19, 0.19).
RMAT_ABC = (0.45, 0.15, 0.15)

#: Mirror of kcjax::bfs::BfsPolicy / ClusterBottomUp (ffi/include/kcjax/bfs/policy.h) for
#: the level replay of the timeline section.
CLUSTER_ALPHA, BACK_TO_TOP_DOWN = 15, 24


def _bfs_fn(
    method: str = "auto", direction: str = "auto", batch: str = "bitset", cluster: int = -1
):
    if cluster >= 1:
        codes = {
            "method": NATIVE_METHODS[method],
            "direction": DIRECTIONS[direction],
            "batch": BATCHES[batch],
            "parents": True,
            "cluster": cluster,
        }
        return jax.jit(lambda g, s: bfs_native(g.indptr, g.indices, s, **codes)[0])
    return jax.jit(
        lambda g, s: (
            kcjax.bfs(g, sources=s, method=method, direction=direction, batch=batch).distances
        )
    )


def replay_levels(graph, source: int) -> list[dict]:
    """The level structure of one "cluster" traversal (direction auto), replayed on the CPU.

    "auto"'s grid kernel from 2^20 vertices takes the same rule (Beamer's).

    Per level: frontier size, its edges (sum of degrees), the unexplored edges and
    the direction the kernel's rule (Beamer's) gives it.
    """
    indptr = np.asarray(graph.indptr).astype(np.int64)
    indices = np.asarray(graph.indices)
    n, m = graph.num_nodes, indices.size
    deg = np.diff(indptr)
    dist = np.full(n, -1, np.int64)
    dist[source] = 0
    frontier = np.array([source])
    unexplored = m - int(deg[source])
    bottom_up, prev, out = False, 0, []
    while frontier.size:
        edges = int(deg[frontier].sum())
        if not bottom_up:
            bu = edges * CLUSTER_ALPHA > unexplored
        else:
            bu = not (frontier.size < prev and frontier.size * BACK_TO_TOP_DOWN < n)
        out.append(
            {
                "level": len(out),
                "frontier": int(frontier.size),
                "edges": edges,
                "unexplored": unexplored,
                "direction": "bottom_up" if bu else "top_down",
            }
        )
        prev, bottom_up = frontier.size, bu
        lo, lens = indptr[frontier], deg[frontier]
        ends = np.cumsum(lens)
        if not ends.size or not ends[-1]:
            break
        nbrs = indices[np.repeat(lo - (ends - lens), lens) + np.arange(ends[-1])]
        frontier = np.unique(nbrs[dist[nbrs] < 0])
        dist[frontier] = len(out)
        unexplored -= int(deg[frontier].sum())
    return out


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


def component_edges(graph, sources, d=None) -> np.ndarray:
    """Each source's traversed edges (Graph500's TEPS numerator), from `d` (the sources'
    distances, int32[s, n]) or one batched traversal."""
    if d is None:
        d = kcjax.bfs(graph, sources=np.asarray(sources, np.int32), parents=False).distances
    return np.asarray(kcjax.traversed_edges(graph, d)).astype(np.int64)


def level_sizes(graph, d) -> tuple[list[list[int]], list[list[int]]]:
    """Vertices per level of each traversal of `d` (distances, int32[s, n]) and the sum of
    their degrees, counted on the device one row at a time."""
    depth = int(jnp.max(d))
    deg = graph.degrees()

    def hist(row):
        at = jnp.where(row >= 0, row, depth + 1)
        return jnp.stack(
            [
                jnp.bincount(at, length=depth + 2),
                jax.ops.segment_sum(deg, at, num_segments=depth + 2),
            ]
        )

    out = np.asarray(jax.lax.map(hist, d))
    levels = [int(np.flatnonzero(r[0, :-1])[-1]) + 1 for r in out]
    return (
        [[int(c) for c in r[0, :k]] for r, k in zip(out, levels, strict=True)],
        [[int(c) for c in r[1, :k]] for r, k in zip(out, levels, strict=True)],
    )


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
    """Drawn on the device (seconds on a GPU); cached up to scale 20 (CPU runs)."""
    path = cache / f"kron{scale}_{edge_factor}_device.npz"
    if path.exists():
        return kcjax.load(path)
    g = kcjax.generators.kronecker(scale, edge_factor, seed=1, on_device=True)
    if scale <= 20 and edge_factor <= 16:
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


def truth_summaries() -> dict[tuple[str, int], tuple[int, int, int]]:
    """{(graph, source): (reached, depth, dist_sum)} of the ground truth."""
    out = {}
    for line in TRUTH.read_text().splitlines()[1:]:
        name, source, reached, depth, dist_sum = line.split("\t")[:5]
        out[(name, int(source))] = (int(reached), int(depth), int(dist_sum))
    return out


def truth_ok(graph, name: str, sources, method: str, expect: dict) -> list[bool]:
    """Whether each source's distances (one call, batch "each") match the truth."""
    dist = np.asarray(
        _bfs_fn(method=method, batch="each")(graph, jnp.asarray(np.asarray(sources, np.int32)))
    )
    out = []
    for row, s in zip(dist, sources, strict=True):
        hit = row[row >= 0]
        out.append((int(hit.size), int(hit.max()), int(hit.sum())) == expect[(name, int(s))])
    return out


def summary(rows: list[dict]) -> str:
    """A short table of the run: shared rows per graph and method (speedup vs the
    best peer: min, and rows at 2x or more), timelines, the threshold sweep, kron."""
    out = []
    shared = [r for r in rows if r["section"] == "shared"]
    if shared:
        out.append(
            f"{'graph':<14} {'method':<10} {'ms (min-max)':>13} {'peer ms':>13} "
            f"{'speedup min':>11} {'>=2x':>5} truth"
        )
        keys = dict.fromkeys((r["graph"], r["method"]) for r in shared)
        for graph, method in keys:
            rs = [r for r in shared if r["graph"] == graph and r["method"] == method]
            ts = [r["time_s"] * 1e3 for r in rs]
            peer = [r["peer_best_s"] * 1e3 for r in rs if r["peer_best_s"]]
            sp = [r["speedup_vs_best"] for r in rs if r["speedup_vs_best"]]
            out.append(
                f"{graph:<14} {method:<10} {min(ts):6.3f}-{max(ts):6.3f} "
                + (f"{min(peer):6.3f}-{max(peer):6.3f} " if peer else f"{'':>14}")
                + (f"{min(sp):11.2f} {sum(x >= 2 for x in sp):>2}/{len(sp)}" if sp else "")
                + f" {sum(r.get('truth_ok', False) for r in rs)}/{len(rs)}"
            )
    for r in rows:
        if r["section"] == "timeline":
            steps = " ".join(
                f"{lv['level']}:{lv['frontier']}{'B' if lv['direction'] == 'bottom_up' else 'T'}"
                for lv in r["levels"]
            )
            out.append(
                f"timeline {r['graph']}:{r['source']} cluster {r['time_s'] * 1e3:.3f} ms "
                f"(enterprise {r['time_enterprise_s'] * 1e3:.3f})  {steps}"
            )
    tune = [r for r in rows if r["section"] == "tune"]
    for graph in dict.fromkeys(r["graph"] for r in tune):
        cells = [
            f"{r['cluster']}: {r['time_median_s'] * 1e3:.3f}" for r in tune if r["graph"] == graph
        ]
        out.append(f"tune {graph} (cluster blocks: median ms) " + ", ".join(cells))
    for r in rows:
        if r["section"] == "kron":
            out.append(
                f"{r['graph']} {r['method']}: {r['gteps_hmean_once']:.1f} GTEPS hmean (once), "
                f"median {r['time_median_s'] * 1e3:.3f} ms"
                + (f", distances agree {r['distances_agree']}" if "distances_agree" in r else "")
            )
    for r in rows:
        if r["section"] == "batched":
            out.append(
                f"batched {r['graph']} {r['batch']} {r['method']} x{r['sources']}: "
                f"{r['per_source_s'] * 1e3:.4f} ms per source"
            )
    if any(r["section"] == "timeline" for r in rows):
        out.append("timeline key: level:frontier, T/B top-down/bottom-up")
    return "\n".join(out)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("-o", "--output", type=Path, default=ROOT / "experiments/results/bfs/bfs.json")
    ap.add_argument("--scales", default="20,21,22,23,24", help="Kronecker scales (edge factor 16)")
    ap.add_argument(
        "--rmat-scales", default="22", help="R-MAT (0.45, 0.15, 0.15) scales, edge factor 16"
    )
    ap.add_argument("--sources", type=int, default=64, help="random sources per Kronecker graph")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--ef512", action="store_true", help="also the seed's Kron-20-512")
    ap.add_argument("--sections", default="kron,shared,ablation,baselines,batched")
    ap.add_argument("--ablation", default="kron20,com-dblp", help="graphs of the ablation")
    ap.add_argument("--cache", type=Path, default=ROOT / ".gpu/cache")
    ap.add_argument(
        "--methods", default="auto", help="methods timed on the shared rows and Kronecker graphs"
    )
    ap.add_argument("--graphs", default="", help="limit the shared rows to these graphs")
    ap.add_argument(
        "--timeline",
        default="ego-Facebook:2423,com-amazon:952,wiki-Vote:2356,kron20:0",
        help="GRAPH:SOURCE traversals of the timeline section (kron source 0: a random one)",
    )
    ap.add_argument("--tune-clusters", default="1,2,4,8,16", help="cluster sizes (blocks)")
    ap.add_argument(
        "--tune-graphs", default="ego-Facebook,wiki-Vote,ca-AstroPh,soc-Epinions1,com-dblp"
    )
    ap.add_argument(
        "--quick",
        action="store_true",
        help="shared rows and kron20 (cluster and enterprise), timelines, cluster sizes",
    )
    args = ap.parse_args(argv)
    if args.quick:
        args.sections, args.scales, args.sources = "kron,shared,timeline,tune", "20", 16
        args.methods = "cluster,enterprise"
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
            elif name.startswith("rmat"):
                graphs[name] = kcjax.generators.rmat(
                    int(name[4:]), 16, *RMAT_ABC, seed=1, on_device=True
                )
            else:
                graphs[name] = kcjax.load(SHARED / "graphs" / f"{name}.el.gz")
            graphs[name] = jax.device_put(graphs[name], dev)
        return graphs[name]

    if "kron" in sections:
        specs = [f"kron{s}" for s in args.scales.split(",") if s] + (
            ["kron20_512"] if args.ef512 else []
        )
        specs += [f"rmat{s}" for s in args.rmat_scales.split(",") if s]
        for name in specs:
            g = graph_named(name)
            src = random_sources(g, args.sources)
            # The bit-parallel batch (another kernel than the timed one) gives the counts, and
            # every timed source's distances are checked equal to its row.
            batched = kcjax.bfs(g, sources=src, parents=False).distances
            edges = component_edges(g, src, batched)
            levels, level_edges = level_sizes(g, batched)
            # From 2^20 vertices the traversals read kcjax.prepare_bfs's degree-ordered
            # adjacency, as an eager kcjax.bfs does (the timed calls are jitted with the
            # graph as an argument): prepared once, outside the timed calls; prepare_s is
            # its wall time (warm: the second of two calls).
            timed, prepare_s = g, None
            if g.num_nodes >= GRID_BITMAP_MIN_VERTICES:
                for _ in range(2):
                    t0 = time.perf_counter()
                    timed = jax.block_until_ready(kcjax.prepare_bfs(g))
                    prepare_s = time.perf_counter() - t0
            for method in args.methods.split(","):
                times = time_sources(timed, src, args.repeats, method=method, batch="each")
                each = _bfs_fn(method=method, batch="each")
                agree = sum(
                    bool(jnp.array_equal(each(timed, jnp.asarray(src[i : i + 1]))[0], batched[i]))
                    for i in range(len(src))
                )
                log(
                    {
                        "section": "kron",
                        "graph": name,
                        "method": method,
                        "n": g.num_nodes,
                        "edges": g.num_edges,
                        "sources": len(src),
                        "prepare_s": prepare_s,
                        "distances_agree": f"{agree}/{len(src)}",
                        **teps_stats(edges, times),
                        "per_source": [
                            {
                                "source": int(s),
                                "edges": int(e),
                                "time_s": t,
                                "levels": lv,
                                "level_edges": le,
                            }
                            for s, e, t, lv, le in zip(
                                src, edges, times, levels, level_edges, strict=True
                            )
                        ],
                    }
                )
            del timed, batched
            if name != "kron20":
                graphs.pop(name)  # free the device memory of the large ones

    peers = anchors()
    only = {x for x in args.graphs.split(",") if x}
    if "shared" in sections and TRUTH.exists():
        expect = truth_summaries()
        for name, src in truth_sources().items():
            if only and name not in only:
                continue
            g = graph_named(name)
            edges = component_edges(g, src)
            for method in args.methods.split(","):
                times = time_sources(g, src, max(args.repeats, 5), method=method, batch="each")
                oks = truth_ok(g, name, src, method, expect)
                for s, t, e, ok in zip(src, times, edges, oks, strict=True):
                    peer = peers.get((name, s), {})
                    best = float(peer["best_s"]) if peer else None
                    log(
                        {
                            "section": "shared",
                            "graph": name,
                            "method": method,
                            "source": s,
                            "time_s": t,
                            "gteps_once": e / t / 1e9,
                            "peer_best_s": best,
                            "peer_best": peer.get("best_peer"),
                            "enterprise_s": float(peer["enterprise_s"]) if peer else None,
                            "speedup_vs_best": best / t if best else None,
                            "truth_ok": ok,
                        }
                    )

    if "timeline" in sections:
        for spec in (x for x in args.timeline.split(",") if x):
            name, _, source = spec.partition(":")
            g = graph_named(name)
            s = int(source) if int(source) or not name.startswith("kron") else None
            s = int(random_sources(g, 1, seed=5)[0]) if s is None else s
            levels = replay_levels(g, s)
            t = time_sources(g, [s], max(args.repeats, 5), method="cluster", batch="each")[0]
            te = time_sources(g, [s], max(args.repeats, 5), method="enterprise", batch="each")[0]
            log(
                {
                    "section": "timeline",
                    "graph": name,
                    "source": s,
                    "time_s": t,
                    "time_enterprise_s": te,
                    "levels": levels,
                }
            )

    if "tune" in sections and TRUTH.exists():
        sources = truth_sources()
        for name in (x for x in args.tune_graphs.split(",") if x in sources):
            g = graph_named(name)
            for c in (int(x) for x in args.tune_clusters.split(",") if x):
                times = time_sources(
                    g, sources[name], args.repeats, method="cluster", batch="each", cluster=c
                )
                log(
                    {
                        "section": "tune",
                        "graph": name,
                        "cluster": c,
                        "time_median_s": float(np.median(times)),
                        "time_max_s": float(np.max(times)),
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
                edges = component_edges(g, src)
                # 64 sources a word, or one traversal each ("auto": a cluster per source
                # where the graph is small, in one launch; "cluster" wherever it fits).
                for batch, method in (("bitset", "auto"), ("each", "auto"), ("each", "cluster")):
                    fn = _bfs_fn(method=method, batch=batch)
                    t = time_call(lambda g=g, fn=fn, arr=arr: fn(g, arr), args.repeats)
                    log(
                        {
                            "section": "batched",
                            "graph": name,
                            "batch": batch,
                            "method": method,
                            "sources": int(len(src)),
                            "time_s": t,
                            "per_source_s": t / len(src),
                            "gteps_once_aggregate": float(edges.sum() / t / 1e9),
                        }
                    )

    print(summary(rows), flush=True)
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
