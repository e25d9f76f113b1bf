"""Labeled subgraph matching benchmark: every counts.tsv query, side by side with the peers.

Per data graph and query (public API, graph already on the device):
device-timed median (``span_s`` of experiments/devtime.py: first to last GPU
activity of a call; on a CPU-only machine the wall-clock median), the wall
median, the count checked against counts.tsv, candidates before and after
each pruning (match_stats), and the best correct peer of
../shared/data/anchors/match-peer-best-h200.tsv. ``--ablation`` adds the
variants (no blacklist, no refinement, no dominance, no symmetry breaking (the
twins alone), neither symmetry nor twins, GVSM's order, naive order;
``--variants`` picks some) on the queries whose base time is below
``--ablation-max``. Peak device memory is reported per graph.

Runs in about 4 minutes on one H200 with the defaults::

    python experiments/match/bench.py --out experiments/results/h200_match.json
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

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tools"))
from benchlib import wall_times, write_results  # noqa: E402
from devtime import device_times  # noqa: E402

import kcjax  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
SHARED = next(
    (p for p in (ROOT.parent / "shared" / "data", ROOT / ".gpu") if (p / "matching").exists()),
    ROOT.parent / "shared" / "data",
)
GRAPHS = ("hprd", "yeast", "human", "email-Enron", "ca-AstroPh")
VARIANTS = {
    "no_blacklist": {"blacklist": False},
    "no_refine": {"refine": False},
    "no_dominance": {"dominance": False},
    "no_symmetry": {"symmetry": False},
    "no_symmetry_no_dominance": {"symmetry": False, "dominance": False},
    "gvsm_order": {"order": "gvsm"},
    "naive_order": {"order": "naive"},
    "compact": {"compact": True},
    "no_compact": {"compact": False},
}


def _rows() -> list[dict[str, str]]:
    with open(SHARED / "matching" / "counts.tsv") as f:
        return list(csv.DictReader(f, delimiter="\t"))


def _peers() -> dict[tuple[str, str], dict[str, str]]:
    path = SHARED / "anchors" / "match-peer-best-h200.tsv"
    if not path.exists():
        return {}
    with open(path) as f:
        return {(r["data_graph"], r["query"]): r for r in csv.DictReader(f, delimiter="\t")}


def _wall(fn, repeats: int) -> tuple[float, object]:
    times, out = wall_times(fn, repeats)
    return statistics.median(times), out


def _time(fn, repeats: int, device: bool) -> dict[str, float]:
    wall, out = _wall(fn, repeats)
    res = {"wall_s": wall}
    if device:
        spans = device_times(fn, repeats)
        if spans:
            res["device_s"] = max(v["span_s"] for v in spans.values())
            res["busy_s"] = max(v["busy_s"] for v in spans.values())
    res["median_s"] = res.get("device_s", wall)
    return res, out


def _phases(data, query, repeats: int) -> dict[str, float]:
    """Median wall time of each phase of one eager count (each phase synchronized).

    Phases of the default path: host look-ups, then the first pass, its sizes to the
    host and the rest on the compacted graph, or one program on the whole graph.
    """
    from kcjax import experimental as x

    out: dict[str, list[float]] = {}

    def tick(name, fn, *args, **kw):
        t = time.perf_counter()
        res = jax.block_until_ready(fn(*args, **kw))
        out.setdefault(name, []).append(time.perf_counter() - t)
        return res

    def lookup():
        spec = x.match_query(query)
        return spec, x.match_graph_prep(data), x.match_packed_query(spec, data)

    for _ in range(max(repeats, 1)):
        spec, gp, packed = tick("host_lookup", lookup)
        fl = x.match_flags(x.MatchSwitches(), data)
        static = dict(
            q=spec.size,
            comps=x.match_components(spec),
            blacklist=True,
            order=x.MatchSwitches().order,
            rounds=x.MATCH_POLICY.rounds,
            num_threads=0,
        )
        if data.graph.indices.shape[0] <= x.MATCH_POLICY.compact_min_entries:
            tick("plan_and_search", x.match_count_program, gp, packed, fl, **static)
            continue
        c = tick("first_pass", x.match_first_pass, gp, packed, q=spec.size)
        n_alive, e_alive = tick("sizes_to_host", np.asarray, c.sizes).tolist()
        tick(
            "plan_and_search",
            x.match_count_compacted,
            c,
            packed,
            fl,
            n=min(x.match_pow2(n_alive, x.MATCH_POLICY.min_vertices), gp.real.shape[0]),
            e=min(x.match_pow2(e_alive, x.MATCH_POLICY.min_entries), gp.indices.shape[0]),
            **static,
        )
    return {k: statistics.median(v) for k, v in out.items()}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--graphs", nargs="+", default=list(GRAPHS))
    p.add_argument("--queries", nargs="*", default=None, help="only these query names")
    p.add_argument("--max-queries", type=int, default=None, help="per data graph")
    p.add_argument("--repeats", type=int, default=5)
    p.add_argument(
        "--budget", type=float, default=5.0, help="one repeat past a first run this slow (s)"
    )
    p.add_argument("--ablation", action="store_true")
    p.add_argument(
        "--ablation-max", type=float, default=0.2, help="base time limit for ablations (s)"
    )
    p.add_argument(
        "--variants", nargs="+", choices=list(VARIANTS), default=list(VARIANTS), help="ablations"
    )
    p.add_argument("--no-device-timer", action="store_true")
    p.add_argument(
        "--time-limit",
        type=float,
        default=200.0,
        help="past this many seconds, remaining queries run once (wall clock, no ablation)",
    )
    p.add_argument("--out", type=Path, default=None)
    args = p.parse_args(argv)

    device = jax.devices()[0]
    use_profiler = device.platform == "gpu" and not args.no_device_timer
    peers = _peers()
    rows_out, mem = [], {}

    def save() -> None:
        if args.out:
            write_results(
                args.out,
                device,
                args.repeats,
                rows_out,
                "devtime span_s (GPU) else wall median of count_embeddings_limbs",
                peak_bytes_in_use_after_graph=mem,
            )

    start = time.perf_counter()
    for name in args.graphs:
        rows = [r for r in _rows() if r["data_graph"] == name]
        if args.queries:
            rows = [r for r in rows if r["query"] in args.queries]
        rows = rows[: args.max_queries]
        if not rows:
            continue
        data = jax.block_until_ready(kcjax.load_labeled(SHARED / "matching" / f"{name}.graph.gz"))
        for r in rows:
            query = kcjax.load_labeled(
                SHARED / "matching" / "queries" / name / f"{r['query']}.graph"
            )
            t0 = time.perf_counter()
            first = kcjax.count_embeddings(data, query)
            first_s = time.perf_counter() - t0
            warm = time.perf_counter()
            kcjax.count_embeddings(data, query)
            warm_s = time.perf_counter() - warm
            late = time.perf_counter() - start > args.time_limit
            reps = 1 if warm_s > args.budget or late else args.repeats
            fn = lambda q=query, d=data: kcjax.count_embeddings_limbs(d, q)  # noqa: E731
            timing, limbs = _time(fn, reps, use_profiler and not late)
            count = kcjax.limbs_to_int(limbs)
            stats = kcjax.match_stats(data, query)
            phases = _phases(data, query, reps)
            peer = peers.get((name, r["query"]), {})
            best = float(peer["best_s"]) if peer.get("best_s") else None
            row = {
                "graph": name,
                "query": r["query"],
                "query_vertices": int(r["query_vertices"]),
                "count": count,
                "expected": int(r["embeddings"]),
                "correct": count == int(r["embeddings"]) == first,
                "first_call_s": first_s,
                **timing,
                "peer_best_s": best,
                "peer": peer.get("best_peer"),
                "gmatch_s": float(peer["gmatch_s"]) if peer.get("gmatch_s") else None,
                "gmatch_e2e_s": float(peer["gmatch_e2e_s"]) if peer.get("gmatch_e2e_s") else None,
                "automorphisms": stats["automorphisms"],
                "speedup_vs_peer": (best / timing["median_s"]) if best else None,
                "phases_s": phases,
                "rounds": stats["rounds"],
                "fixpoint": stats["fixpoint"],
                "round_totals": stats["round_totals"],
                "first_pass_vertices": stats["first_pass"],
                "cand_label": sum(stats["cand_label"]),
                "cand_profile": sum(stats["cand_profile"]),
                "cand_blacklist": sum(stats["cand_final"]),
                "data_vertices_kept": stats["kept"],
                "classes_after_dominance": stats["classes"],
            }
            if args.ablation and not late and timing["median_s"] <= args.ablation_max:
                row["ablation"] = {}
                for vname in args.variants:
                    kw = VARIANTS[vname]
                    vfn = lambda q=query, kw=kw, d=data: kcjax.count_embeddings_limbs(d, q, **kw)  # noqa: E731
                    jax.block_until_ready(vfn())
                    vt, vl = _time(vfn, reps, use_profiler)
                    row["ablation"][vname] = {**vt, "correct": kcjax.limbs_to_int(vl) == count}
            rows_out.append(row)
            save()  # after every query: a run cut by a time limit keeps what it measured
            print(
                f"{name:12s} {r['query']:18s} {row['median_s']:10.6f} s "
                f"peer {best if best else float('nan'):10.6f} "
                f"x{row['speedup_vs_peer'] or float('nan'):7.2f} "
                f"{'ok' if row['correct'] else 'WRONG'} "
                + " ".join(f"{k} {v * 1e3:.3f}ms" for k, v in phases.items()),
                flush=True,
            )
        stats = device.memory_stats() or {}
        mem[name] = stats.get("peak_bytes_in_use")
    _summary(rows_out)
    save()
    return 0 if all(r["correct"] for r in rows_out) else 1


def _summary(rows: list[dict]) -> None:
    by = {}
    for r in rows:
        by.setdefault(r["graph"], []).append(r)
    print(
        f"{'graph':12s} {'queries':>7s} {'median_s':>10s} {'worst_s':>10s} {'beat_peer':>9s} wrong"
    )
    for g, rs in by.items():
        times = [r["median_s"] for r in rs]
        beat = sum(1 for r in rs if r["peer_best_s"] and r["median_s"] < r["peer_best_s"])
        with_peer = sum(1 for r in rs if r["peer_best_s"])
        wrong = sum(1 for r in rs if not r["correct"])
        print(
            f"{g:12s} {len(rs):7d} {statistics.median(times):10.6f} {max(times):10.6f} "
            f"{beat:4d}/{with_peer:<4d} {wrong}"
        )


if __name__ == "__main__":
    raise SystemExit(main())
