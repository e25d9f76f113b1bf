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

--big adds scale 27 on the largest mesh only (``--big-scales 27,28``: 28 needs shards of
under 2^31 entries before repeats are dropped, which 4 devices do not give).
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
from kcjax.parallel import shard_map  # noqa: E402
from kcjax.traversal.mesh import bfs_mesh  # noqa: E402

_LOCAL = ("PushKernel", "PushHugeKernel", "PullKernel", "kcjax_bfs_mesh")
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


def _breakdown(fn, parts: int, words: int) -> dict[str, float]:
    """One traversal on the first GPU (median of 3 calls): busy seconds of the level
    steps' kernels (local), of NCCL's (exchange) and of the rest; its levels and
    top-down levels (pull and push launches) and the bytes each device sends
    (every level's all_gather of the frontier words, every top-down level's
    all_to_all of the pushes: (p - 1) / p of the whole bitmap each). Empty without
    a GPU."""
    calls = devtime.call_activities(fn, 3)
    if not calls:
        return {}
    rows = []
    for acts in calls:
        split = {"local_s": 0.0, "exchange_s": 0.0, "other_s": 0.0, "levels": 0, "top_down": 0}
        for name, s, e in acts:
            key = (
                "local_s"
                if any(k in name for k in _LOCAL)
                else "exchange_s"
                if any(k.lower() in name.lower() for k in _EXCHANGE)
                else "other_s"
            )
            split[key] += (e - s) * 1e-9
            split["levels"] += "PullKernel" in name
            split["top_down"] += "PushKernel" in name and "Huge" not in name
        rows.append(split)
    out = {k: statistics.median(r[k] for r in rows) for k in rows[0]}
    share = 4 * words * (parts - 1) // max(parts, 1)  # bytes of the bitmap that leave a device
    out["sent_bytes"] = int((out["levels"] + out["top_down"]) * (share + 8))
    return out


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


def _steps_row(args, scale, split, sources, reference) -> dict:
    """The multi-device level steps forced on a one-device mesh (``one_device="steps"``),
    on the rows kcjax.bfs would read (degree-ordered on GPUs of 2^20 vertices or more)."""
    ordered = kcjax.prepare_bfs(split) if split.num_nodes >= 1 << 20 else split
    ordered = ordered if jax.devices()[0].platform == "gpu" else split

    def fn(s):
        return bfs_mesh(ordered, np.int32(s), direction="auto", one_device="steps")[0]

    jax.block_until_ready(fn(int(sources[0])))
    times = _time_sources(fn, sources, args.repeats)
    prints = [_fingerprint(split, fn(int(s))) for s in sources]
    same = all(reference[int(s)] == p for s, p in zip(sources, prints, strict=True))
    gteps = [p[3] / t * 1e-9 for p, t in zip(prints, times, strict=True)]
    row = {
        "scale": scale,
        "edge_factor": args.edge_factor,
        "devices": 1,
        "method": "mesh-steps",
        "num_nodes": split.num_nodes,
        "num_edges": split.num_edges,
        "sources": len(sources),
        "median_s": statistics.median(times),
        "hmean_gteps_graph500": _harmonic(gteps),
        "hmean_gteps_seed": 2 * _harmonic(gteps),
        "distances_equal": same,
        **_breakdown(lambda s=int(sources[0]): fn(s), 1, split.chunk // 32),
    }
    print(
        f"  1 device, level steps: {row['hmean_gteps_graph500']:.2f} GTEPS (Graph500), median "
        f"{row['median_s'] * 1e3:.2f} ms, local {row.get('local_s', 0) * 1e3:.2f} ms, other "
        f"{row.get('other_s', 0) * 1e3:.2f} ms, equal {same}",
        flush=True,
    )
    return row


def run_scale(args, scale: int, devices: list[int], rows: list[dict]) -> None:
    gpus = jax.devices()
    top = max(devices)
    mesh_top = jax.make_mesh((top,), ("v",), devices=gpus[:top])
    t0 = time.perf_counter()
    split_top = kcjax.generators.kronecker(scale, args.edge_factor, seed=args.seed, mesh=mesh_top)
    jax.block_until_ready(split_top.cols)
    gen_s = time.perf_counter() - t0
    entries = split_top.shard_entries()
    print(
        f"scale {scale}: {split_top}, generated on {top} devices in {gen_s:.1f} s, "
        f"shard entries {entries.min():,}..{entries.max():,}",
        flush=True,
    )
    sources = _sources(split_top, args.sources, args.seed)
    fits = split_top.num_entries < 2**31
    graph = split_top.to_graph(gpus[0]) if fits else None
    reference: dict[int, tuple] = {}
    for k in sorted(devices, reverse=True):
        if k != top and graph is None:
            continue
        mesh = jax.make_mesh((k,), ("v",), devices=gpus[:k])
        split = split_top if k == top else kcjax.shard_graph(graph, mesh)

        def fn(s, split=split):
            return kcjax.bfs(split, s)

        jax.block_until_ready(fn(int(sources[0])))  # compile
        times = _time_sources(fn, sources, args.repeats)
        prints, valid, fails = [], 0, []
        for s in sources:
            out = fn(int(s))
            prints.append(_fingerprint(split, out.distances))
            if args.validate:
                try:
                    kcjax.validate_bfs_tree(split, int(s), out)
                    valid += 1
                except kcjax.BFSValidationError as err:
                    fails.append(str(err))
        for s, p in zip(sources, prints, strict=True):
            reference.setdefault(int(s), p)
        same = all(reference[int(s)] == p for s, p in zip(sources, prints, strict=True))
        edges = [p[3] for p in prints]
        gteps = [e / t * 1e-9 for e, t in zip(edges, times, strict=True)]
        row = {
            "scale": scale,
            "edge_factor": args.edge_factor,
            "devices": k,
            "method": "mesh",
            "num_nodes": split.num_nodes,
            "num_edges": split.num_edges,
            "shard_entries": [int(x) for x in split.shard_entries()],
            "gen_s": gen_s if k == top else None,
            "sources": len(sources),
            "median_s": statistics.median(times),
            "hmean_gteps_graph500": _harmonic(gteps),
            "hmean_gteps_seed": 2 * _harmonic(gteps),
            "median_levels": statistics.median(p[2] + 1 for p in prints),
            "validated": valid if args.validate else None,
            "validation_failures": fails[:3],
            "distances_equal": same,
            **_breakdown(lambda s=int(sources[0]), fn=fn: fn(s), k, k * split.chunk // 32),
        }
        rows.append(row)
        print(
            f"  {k} device(s): {row['hmean_gteps_graph500']:.2f} GTEPS (Graph500; "
            f"{row['hmean_gteps_seed']:.2f} seed), median {row['median_s'] * 1e3:.2f} ms, "
            f"local {row.get('local_s', 0) * 1e3:.2f} ms, exchange "
            f"{row.get('exchange_s', 0) * 1e3:.2f} ms, other {row.get('other_s', 0) * 1e3:.2f} ms, "
            f"levels {row.get('levels', '-')} (top-down {row.get('top_down', '-')}), "
            f"sent {row.get('sent_bytes', 0) / 2**20:.1f} MiB, valid {valid}/{len(sources)}, "
            f"equal {same}",
            flush=True,
        )
        if k == 1:  # the level steps on one device (kcjax.bfs runs the one-device kernel)
            rows.append(_steps_row(args, scale, split, sources, reference))
        del split
        kcjax.clear_memo()  # this split's degree order and views: memory for the next
    if graph is not None and not args.no_single:
        single = kcjax.prepare_bfs(graph)

        def one(s):
            return kcjax.bfs(single, s)

        jax.block_until_ready(one(int(sources[0])))
        times = _time_sources(one, sources, args.repeats)
        mesh1 = jax.make_mesh((1,), ("v",), devices=gpus[:1])
        split1 = kcjax.shard_graph(graph, mesh1)
        prints = [_fingerprint(split1, one(int(s)).distances) for s in sources]
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


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--scales", default="24,26", help="comma-separated Kronecker scales")
    p.add_argument("--devices", default="1,2,4", help="comma-separated device counts")
    p.add_argument("--edge-factor", type=int, default=16)
    p.add_argument("--sources", type=int, default=64)
    p.add_argument("--repeats", type=int, default=3, help="timed calls per source")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--no-validate", dest="validate", action="store_false")
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
