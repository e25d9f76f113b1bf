"""Multi-device BFS (``kcjax.bfs(..., mesh=)``) strong scaling on Graph500 Kronecker graphs.

Run from the repository root on a machine of several GPUs (4 H200: about 3 minutes with
the defaults):

    python experiments/bfs/mesh_scaling.py --out $OUT/bfs_mesh.json

For each scale (--scales, edge factor --edge-factor) the graph is generated on the
largest mesh (``kronecker(..., mesh=)``: every device draws its own rows), then, where
it fits one device, gathered onto the first GPU and split again for the smaller meshes
(``shard_graph``). For each device count (--devices) the same --sources random
non-isolated sources are traversed one at a time and timed on the device (the profiler's
span of the call on the first GPU, devtime.py); beside them the single-GPU
``kcjax.bfs`` on the gathered graph. Per row: the harmonic-mean GTEPS in both
conventions (Graph500: each undirected edge of the source's component once; the seed:
twice), the median time, the busy time of the level steps' kernels (local expansion),
of NCCL's kernels (exchange) and of everything else in one traversal, the levels,
whether every tree passed Graph500 validation (on the devices) and whether the
distances equal across device counts and the single-GPU result (per source: reached
vertices, the sum of distances and the depth).

On one device ``kcjax.bfs(..., mesh=)`` runs the single-device kernel on the shard (there is
nothing to exchange); the row "mesh-steps" times the multi-device level steps forced there.
--levels-per-read N,M adds rows "mesh-N-levels-a-read" on every mesh of 2 or more devices: the
level loop reading the frontier's size every N levels instead of the policy's
kMeshLevelsPerRead (no rebuild; the same distances).

Progress lines carry the seconds since the scale began; --scale-budget-s guards each scale
(phases not begun by then are skipped). Validation (on the devices) covers the first
--validate sources of each row; distances of every source are compared across rows.

--big adds --big-scales (27) on the largest mesh only (28 on 4 devices: shards of about
2.1e9 entries, at the edge of int32; refused with a message if one overflows).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np
from jax.sharding import NamedSharding, PartitionSpec

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "experiments" / "tools"))

import devtime  # noqa: E402
from benchlib import write_results  # noqa: E402

import kcjax  # noqa: E402
from kcjax.experimental import bfs_mesh  # noqa: E402
from kcjax.parallel import shard_map  # noqa: E402

_LOCAL = ("PushKernel", "PushChunkKernel", "PullKernel", "PullChunkKernel")
_EXCHANGE = ("nccl", "all-gather", "all-to-all", "AllGather", "AllToAll")


def _sources(graph: kcjax.ShardedGraph, count: int, seed: int) -> np.ndarray:
    """``count`` distinct random vertices of degree >= 1 (degrees read on the devices)."""
    rng = np.random.default_rng(seed)
    candidates = np.unique(rng.integers(0, graph.num_nodes, 8 * count + 64)).astype(np.int32)
    rng.shuffle(candidates)
    deg = np.asarray(_degrees_of(graph, jnp.asarray(candidates)))
    picked = candidates[deg > 0][:count]
    if len(picked) < count:
        raise RuntimeError("too few non-isolated vertices among the candidates")
    return picked


def _degrees_of(graph: kcjax.ShardedGraph, ids: jax.Array) -> jax.Array:
    """The degrees of ``ids`` (each shard answers for the ids it owns)."""
    axis, c = graph.axis, graph.chunk
    P = PartitionSpec

    def shard(indptr, ids):
        local = ids - jax.lax.axis_index(axis) * c
        mine = (local >= 0) & (local < c)
        at = jnp.clip(local, 0, c - 1)
        return jax.lax.psum(jnp.where(mine, indptr[at + 1] - indptr[at], 0), axis)

    ids = jax.device_put(ids, NamedSharding(graph.mesh, P()))
    return shard_map(shard, graph.mesh, in_specs=(P(axis), P()), out_specs=P())(graph.indptr, ids)


def _fingerprint(graph: kcjax.ShardedGraph, dist: jax.Array) -> tuple[int, int, int, int]:
    """(reached vertices, sum of distances, depth, edges of the component once), summed
    per shard on the devices (int32 partial sums) and on the host (int64)."""
    axis, parts, c = graph.axis, graph.parts, graph.chunk
    mesh = graph.mesh
    if parts * c != graph.num_nodes:
        dist = jnp.pad(jax.device_put(dist, jax.devices()[0]), (0, parts * c - graph.num_nodes))
    dist = jax.device_put(dist, NamedSharding(mesh, PartitionSpec(axis)))
    P = PartitionSpec

    def shard(indptr, d):
        reached = d >= 0
        deg = jnp.diff(indptr)
        out = jnp.stack(
            [
                jnp.sum(reached, dtype=jnp.int32),
                jnp.sum(jnp.where(reached, d, 0), dtype=jnp.int32),
                jnp.max(d),
                jnp.sum(jnp.where(reached, deg, 0), dtype=jnp.int32),
            ]
        )
        return out[None]

    parts_out = shard_map(shard, mesh, in_specs=(P(axis), P(axis)), out_specs=P(axis))(
        graph.indptr, dist
    )
    host = np.asarray(parts_out).astype(np.int64)
    return (
        int(host[:, 0].sum()),
        int(host[:, 1].sum()),
        int(host[:, 2].max()),
        int(host[:, 3].sum() // 2),
    )


def _kind(name: str) -> str:
    if any(k in name for k in _LOCAL):
        return "local_s"
    if any(k.lower() in name.lower() for k in _EXCHANGE):
        return "exchange_s"
    return "other_s"


def _union(intervals: list[tuple[int, int]]) -> float:
    total, end = 0, None
    for s, e in sorted(intervals):
        if end is None or s > end:
            total += e - s
            end = e
        elif e > end:
            total += e - end
            end = e
    return total * 1e-9


def _per_level(acts: list[tuple[str, int, int]]) -> list[dict[str, float]]:
    """One traversal's activities cut into levels at each pull kernel's end (a level: the
    previous level's gather, its direction's kernels and exchange, its pull; the last also
    the final gather):
    per level its span and busy seconds by kind, and the idle rest (host round trips)."""
    acts = sorted(acts, key=lambda a: a[1])
    cuts = [e for name, _, e in acts if "PullKernel" in name]
    if not cuts or not acts:
        return []
    out, lo = [], acts[0][1]
    for hi in [*cuts[:-1], max(e for _, _, e in acts)]:
        mine = [a for a in acts if lo <= a[1] < hi]
        row = {"span_s": (hi - lo) * 1e-9, "local_s": 0.0, "exchange_s": 0.0, "other_s": 0.0}
        for name, s, e in mine:
            row[_kind(name)] += (min(e, hi) - s) * 1e-9
        row["idle_s"] = max(0.0, row["span_s"] - _union([(s, min(e, hi)) for _, s, e in mine]))
        out.append(row)
        lo = hi
    return out


def _breakdown(fn, parts: int, words: int) -> dict:
    """One traversal on the first GPU (median of 3 calls): busy seconds of the level
    steps' kernels (local), of NCCL's (exchange) and of the rest, and the idle time
    inside the span (host round trips, launch gaps); the busy seconds of the 16 busiest
    activities by name; its level steps (pull launches:
    the traversal's levels and the idle ones run past its end before the loop's next
    test) and the bytes each device sends (every step's all_gather of the frontier
    words and all_to_all of the pushes: (p - 1) / p of the whole bitmap each); the
    first call cut into levels. Empty without a GPU."""
    calls = devtime.call_activities(fn, 3)
    if not calls or not any(calls):
        return {}
    rows, kernels = [], []
    for acts in calls:
        split = {"local_s": 0.0, "exchange_s": 0.0, "other_s": 0.0, "levels": 0}
        busy: dict[str, float] = {}
        for name, s, e in acts:
            split[_kind(name)] += (e - s) * 1e-9
            split["levels"] += "PullKernel" in name
            busy[name] = busy.get(name, 0.0) + (e - s) * 1e-9
        kernels.append(busy)
        span = (max(e for _, _, e in acts) - min(s for _, s, _ in acts)) * 1e-9 if acts else 0.0
        split["idle_s"] = span - _union([(s, e) for _, s, e in acts]) if acts else 0.0
        rows.append(split)
    out = {k: statistics.median(r[k] for r in rows) for k in rows[0]}
    share = 4 * words * (parts - 1) // max(parts, 1)  # bytes of the bitmap that leave a device
    out["sent_bytes"] = int(out["levels"] * (2 * share + 8))
    out["per_level"] = _per_level(calls[-1])
    names = sorted({n for busy in kernels for n in busy}, key=lambda n: -kernels[-1].get(n, 0.0))
    out["kernels_s"] = {
        n[:120]: statistics.median(busy.get(n, 0.0) for busy in kernels) for n in names[:16]
    }
    return out


def _level_text(row: dict) -> str:
    cells = [
        f"{lv['span_s'] * 1e3:.2f}/{lv['local_s'] * 1e3:.2f}/{lv['exchange_s'] * 1e3:.2f}/"
        f"{lv['idle_s'] * 1e3:.2f}"
        for lv in row.get("per_level", [])
    ]
    return "    per level (ms span/local/exchange/idle): " + " ".join(cells) if cells else ""


def _harmonic(values: list[float]) -> float:
    values = [v for v in values if v > 0]
    return len(values) / sum(1 / v for v in values) if values else 0.0


def _time_sources(fn, sources: np.ndarray, repeats: int) -> list[float]:
    """Per source the median device span (or wall clock without a GPU) of ``repeats``
    calls; one profiler session for all."""
    calls = [lambda s=int(s): fn(s) for s in sources for _ in range(repeats)]
    spans = devtime.call_spans(calls)
    if all(x is None for x in spans):  # no GPU: the wall clock
        spans = []
        for call in calls:
            t0 = time.perf_counter()
            jax.block_until_ready(call())
            spans.append(time.perf_counter() - t0)
    return [statistics.median(spans[i * repeats : (i + 1) * repeats]) for i in range(len(sources))]


def _graph_fingerprint(graph: kcjax.Graph, dist: jax.Array) -> tuple[int, int, int, int]:
    """:func:`_fingerprint` of a one-device Graph's distances (its CSR < 2^31 entries)."""
    reached = dist >= 0
    out = jnp.stack(
        [
            jnp.sum(reached, dtype=jnp.int32),
            jnp.sum(jnp.where(reached, dist, 0), dtype=jnp.int32),
            jnp.max(dist),
            jnp.sum(jnp.where(reached, graph.degrees(), 0), dtype=jnp.int32) // 2,
        ]
    )
    return tuple(int(x) for x in np.asarray(out))


class _Clock:
    """Progress lines with the seconds since the scale began, and its time guard."""

    def __init__(self, budget_s: float) -> None:
        self.start = time.perf_counter()
        self.budget_s = budget_s

    def say(self, msg: str) -> None:
        print(f"  [{time.perf_counter() - self.start:6.1f} s] {msg}", flush=True)

    def out_of_time(self, what: str) -> bool:
        if time.perf_counter() - self.start < self.budget_s:
            return False
        self.say(f"time guard ({self.budget_s:.0f} s): skipped {what}")
        return True


def _guarded(clock, fn, *args) -> dict:
    """``fn(*args)``, or a row naming the error (e.g. out of memory) so the run goes on."""
    try:
        return fn(*args)
    except Exception as err:
        clock.say(f"failed: {type(err).__name__}: {str(err)[:500]}")
        return {"error": f"{type(err).__name__}: {str(err)[:500]}"}


def _time_row(args, clock, fn, split, sources, reference, k, method="mesh") -> dict:
    """Times ``fn`` over the sources, fingerprints every result, validates the first
    ``--validate`` trees; None when the time guard stops it."""
    clock.say(f"{method} on {k} device(s): first call (compile, prepare)")
    jax.block_until_ready(fn(int(sources[0])))
    clock.say("timing")
    times = _time_sources(fn, sources, args.repeats)
    prints, valid, fails = [], 0, []
    for i, s in enumerate(sources):
        out = fn(int(s))
        prints.append(_fingerprint(split, out.distances))
        if i < args.validate and method == "mesh":
            try:
                kcjax.validate_bfs_tree(split, int(s), out)
                valid += 1
            except kcjax.BFSValidationError as err:
                fails.append(str(err))
            except Exception as err:  # e.g. out of memory: reported, the run goes on
                fails.append(f"{type(err).__name__}: {str(err)[:300]}")
                break
    for s, p in zip(sources, prints, strict=True):
        reference.setdefault(int(s), p)
    same = all(reference[int(s)] == p for s, p in zip(sources, prints, strict=True))
    gteps = [p[3] / t * 1e-9 for p, t in zip(prints, times, strict=True)]
    row = {
        "scale": split.num_nodes.bit_length() - 1,
        "edge_factor": args.edge_factor,
        "devices": k,
        "method": method,
        "num_nodes": split.num_nodes,
        "num_edges": split.num_edges,
        "shard_entries": [int(x) for x in split.shard_entries()],
        "sources": len(sources),
        "median_s": statistics.median(times),
        "hmean_gteps_graph500": _harmonic(gteps),
        "hmean_gteps_seed": 2 * _harmonic(gteps),
        "median_levels": statistics.median(p[2] + 1 for p in prints),
        "validated": f"{valid}/{min(args.validate, len(sources))}" if method == "mesh" else None,
        "validation_failures": fails[:3],
        "distances_equal": same,
        **_breakdown(lambda s=int(sources[0]): fn(s), k, k * split.chunk // 32),
    }
    print(
        f"  {method} on {k} device(s): {row['hmean_gteps_graph500']:.2f} GTEPS (Graph500; "
        f"{row['hmean_gteps_seed']:.2f} seed), median {row['median_s'] * 1e3:.2f} ms, "
        f"local {row.get('local_s', 0) * 1e3:.2f} ms, exchange "
        f"{row.get('exchange_s', 0) * 1e3:.2f} ms, other {row.get('other_s', 0) * 1e3:.2f} ms, "
        f"idle {row.get('idle_s', 0) * 1e3:.2f} ms, steps {row.get('levels', '-')}, "
        f"sent {row.get('sent_bytes', 0) / 2**20:.1f} MiB, "
        f"valid {row['validated']}, equal {same}",
        flush=True,
    )
    text = _level_text(row)
    if text:
        print(text, flush=True)
    return row


def run_scale(args, scale: int, devices: list[int], rows: list[dict]) -> None:
    clock = _Clock(args.scale_budget_s)
    gpus = jax.devices()
    top = max(devices)
    mesh_top = jax.make_mesh((top,), ("v",), devices=gpus[:top])
    split_top = kcjax.generators.kronecker(scale, args.edge_factor, seed=args.seed, mesh=mesh_top)
    jax.block_until_ready(split_top.cols)
    gen_s = time.perf_counter() - clock.start
    entries = split_top.shard_entries()
    print(
        f"scale {scale}: {split_top}, generated on {top} devices in {gen_s:.1f} s, "
        f"shard entries {entries.min():,}..{entries.max():,}",
        flush=True,
    )
    rows.append({"scale": scale, "devices": top, "method": "generate", "gen_s": gen_s})
    sources = _sources(split_top, args.sources, args.seed)
    fits = split_top.num_entries < 2**31
    graph = None
    if fits and (len(devices) > 1 or not args.no_single):
        clock.say("gathering the graph onto the first device")
        graph = split_top.to_graph(gpus[0])
    reference: dict[int, tuple] = {}
    for k in sorted(devices, reverse=True):
        if k != top and graph is None:
            continue
        if clock.out_of_time(f"{k} device(s) and what follows"):
            return
        mesh = jax.make_mesh((k,), ("v",), devices=gpus[:k])
        if k != top:
            clock.say(f"splitting over {k} device(s)")
        split = split_top if k == top else kcjax.shard_graph(graph, mesh)

        def fn(s, split=split):
            return kcjax.bfs(split, s)

        def timed(fn, method="mesh", k=k, split=split):
            """One row of this device count (a failure is recorded, not raised)."""
            row = _guarded(clock, _time_row, args, clock, fn, split, sources, reference, k, method)
            rows.append(row)

        timed(fn)
        if k > 1:
            ordered = kcjax.prepare_bfs(split) if gpus[0].platform == "gpu" else split
            for per_read in (int(x) for x in args.levels_per_read.split(",") if x):
                if clock.out_of_time(f"{per_read} levels a read on {k} device(s)"):
                    break

                def swept(s, ordered=ordered, per_read=per_read):
                    return bfs_mesh(
                        ordered, np.int32(s), direction="auto", levels_per_read=per_read
                    )[0]

                timed(_Dist(swept), f"mesh-{per_read}-levels-a-read")
        if k == 1 and not clock.out_of_time("the level steps on one device"):
            # kcjax.bfs runs the one-device kernel there; the level steps forced:
            ordered = kcjax.prepare_bfs(split) if gpus[0].platform == "gpu" else split

            def steps(s, ordered=ordered):
                return bfs_mesh(ordered, np.int32(s), direction="auto", one_device="steps")[0]

            timed(_Dist(steps), "mesh-steps")
        del split
        kcjax.clear_memo()  # this split's degree order and views: memory for the next
    if graph is None or args.no_single or clock.out_of_time("the single-GPU kcjax.bfs"):
        return
    clock.say("single-GPU kcjax.bfs: prepare_bfs")
    single = kcjax.prepare_bfs(graph)

    def one(s):
        return kcjax.bfs(single, s)

    jax.block_until_ready(one(int(sources[0])))
    times = _time_sources(one, sources, args.repeats)
    prints = [_graph_fingerprint(graph, one(int(s)).distances) for s in sources]
    same = all(reference[int(s)] == p for s, p in zip(sources, prints, strict=True))
    gteps = [p[3] / t * 1e-9 for p, t in zip(prints, times, strict=True)]
    rows.append(
        {
            "scale": scale,
            "edge_factor": args.edge_factor,
            "devices": 1,
            "method": "single",
            "num_nodes": graph.num_nodes,
            "num_edges": graph.num_edges,
            "sources": len(sources),
            "median_s": statistics.median(times),
            "hmean_gteps_graph500": _harmonic(gteps),
            "hmean_gteps_seed": 2 * _harmonic(gteps),
            "distances_equal": same,
        }
    )
    print(
        f"  single-GPU kcjax.bfs: {_harmonic(gteps):.2f} GTEPS (Graph500), median "
        f"{statistics.median(times) * 1e3:.2f} ms, equal {same}",
        flush=True,
    )


class _Dist:
    """A call returning distances, wrapped to look like kcjax.bfs's result for _time_row."""

    def __init__(self, fn) -> None:
        self.fn = fn

    def __call__(self, s):
        return kcjax.BFSResult(distances=self.fn(s), parents=None, depth=None)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--scales", default="24,26", help="comma-separated Kronecker scales")
    p.add_argument("--devices", default="1,2,4", help="comma-separated device counts")
    p.add_argument("--edge-factor", type=int, default=16)
    p.add_argument("--sources", type=int, default=64)
    p.add_argument("--repeats", type=int, default=3, help="timed calls per source")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument(
        "--validate", type=int, default=16, help="trees validated per row (the first sources)"
    )
    p.add_argument(
        "--scale-budget-s",
        type=float,
        default=140.0,
        help="time guard per scale: phases not begun by then are skipped",
    )
    p.add_argument(
        "--levels-per-read",
        default="",
        help="comma-separated levels between the level loop's reads to time beside the "
        "policy's on every mesh of 2 or more devices (rows mesh-N-levels-a-read)",
    )
    p.add_argument("--no-single", action="store_true", help="skip the single-GPU kcjax.bfs")
    p.add_argument("--big", action="store_true", help="also --big-scales on the largest mesh")
    p.add_argument("--big-scales", default="27")
    p.add_argument("--out", type=Path, default=None, help="results JSON")
    args = p.parse_args()
    devices = [int(x) for x in args.devices.split(",")]
    if max(devices) > jax.device_count():
        p.error(f"asked for {max(devices)} devices, {jax.device_count()} visible")
    rows: list[dict] = []
    for scale in (int(x) for x in args.scales.split(",")):
        run_scale(args, scale, devices, rows)
    if args.big:
        for scale in (int(x) for x in args.big_scales.split(",")):
            try:
                run_scale(args, scale, [max(devices)], rows)
            except ValueError as err:  # a shard too large: reported, not fatal
                print(f"scale {scale}: {err}", flush=True)
                rows.append({"scale": scale, "devices": max(devices), "error": str(err)})
    if args.out is not None:
        write_results(
            args.out,
            jax.devices()[0],
            args.repeats,
            rows,
            "device span (profiler) of one traversal on the first GPU, median per source",
            device_count=jax.device_count(),
            device_kinds=sorted({d.device_kind for d in jax.devices()}),
            kcjax_built_with_cuda=kcjax.built_with_cuda(),
        )


if __name__ == "__main__":
    main()
