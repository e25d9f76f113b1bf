"""Tables and plots of the committed results (experiments/results/<family>/).

Prints the Markdown tables of docs/results.md from the results files: the
k-clique tables (anchors, variants, Table 2, R-MAT, λ sweep, scaling, CPU),
BFS (Kronecker and R-MAT rows, the shared graphs against the best peer, the
ablation ladder, batched sources), k-truss (decomposition, one k, R-MAT) and
labeled matching (every counts.tsv row, embeddings beyond device memory).
With matplotlib installed (an experiments-only dependency; the package never
imports this file) it also redraws the k-clique figures beside their files.

Usage: python experiments/tools/report.py [--family cliques bfs truss match]
                                          [--results experiments/results] [--no-plots]
"""

from __future__ import annotations

import argparse
import json
import math
from collections import defaultdict
from pathlib import Path

RESULTS = Path(__file__).resolve().parents[1] / "results"
FAMILIES = ("cliques", "bfs", "truss", "match", "front_door")
ABLATION_ORDER = ("thread", "warp", "binary_search", "static_l1", "static_l2", "kcminer")
#: Fig. 7's cumulative chain: thread-parallel bitmaps -> + warp scheduler
#: (static level-2 bitmaps) -> + dynamic construction, size classes and the
#: heavy-task split (KCMiner).
CHAIN = (
    ("thread", "thread-parallel"),
    ("static_l2", "+ scheduler"),
    ("kcminer", "+ dynamic, classes"),
)
TABLE2_GPU = (*ABLATION_ORDER, "dense")
TABLE2_CPU = ("kcminer", "pivot", "dense")
RMAT22_ORDER = ("kcminer", "static_l2", "static_l1", "warp", "thread", "binary_search", "pivot")
CPU_ORDER = ("kcminer", "static_l2", "binary_search", "pivot", "dense")


def _load(results: Path, name: str) -> dict | None:
    path = results / name
    return json.loads(path.read_text()) if path.exists() else None


def _t(row: dict) -> float:
    """Our time on the device clock (JAX profiler span), else the wall clock."""
    return row.get("device_s") or row["median_s"]


def anchors_table(data: dict) -> str:
    by: dict[tuple[str, int], dict[str, dict]] = defaultdict(dict)
    for r in data["rows"]:
        by[(r["graph"], r["k"])][r["method"]] = r
    out = [
        "| graph | k | kcminer (s) | pivot (s) | auto (s) | best enumeration peer (s) "
        "| x enum | best peer (s) | x auto | exact |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for (graph, k), m in by.items():
        km, pv, au = m.get("kcminer"), m.get("pivot"), m.get("auto")
        any_row = km or pv or au
        be, ba = any_row.get("best_enumeration_s"), any_row.get("best_any_s")
        if ba is None:
            continue
        xe = f"{be / _t(km):.2f}" if km and be and math.isfinite(be) else "-"
        xa = f"{ba / _t(au):.2f}" if au else "-"
        ok = all(r.get("correct") is not False for r in m.values())
        be_txt = f"{be:.6f} ({any_row['best_enumeration_peer']})" if math.isfinite(be) else "-"
        out.append(
            f"| {graph} | {k} | {_t(km):.6f} | {_t(pv):.6f} | {_t(au):.6f} | {be_txt} | {xe} "
            f"| {ba:.6f} ({any_row['best_any_peer']}) | {xa} | {'yes' if ok else 'NO'} |"
        )
    return "\n".join(out)


def lambda_table(data: dict) -> str:
    by: dict[tuple[str, int], dict[str, float]] = defaultdict(dict)
    lams: list[str] = []
    for r in data["rows"]:
        lam = r["method"].partition("@")[2]
        lams += [lam] if lam not in lams else []
        by[(r["graph"], r["k"])][lam] = _t(r)
    out = [
        "| graph | k | " + " | ".join(f"λ={x}" for x in lams) + " |",
        "|---|---|" + "---|" * len(lams),
    ]
    for (graph, k), m in by.items():
        best = min(m.values())
        cells = [(f"**{m[x]:.6f}**" if m[x] == best else f"{m[x]:.6f}") for x in lams]
        out.append(f"| {graph} | {k} | " + " | ".join(cells) + " |")
    return "\n".join(out)


def table2(gpu: dict, cpu: dict | None, gpu_cols: tuple[str, ...] = TABLE2_GPU) -> str:
    """Table 2 analogue: every GPU variant and dense JAX, then the CPU handlers;
    the fastest GPU method of a row in bold."""
    by: dict[tuple[str, int], dict[str, float]] = defaultdict(dict)
    for r in gpu["rows"]:
        by[(r["graph"], r["k"])][r["method"]] = _t(r)
    for r in (cpu or {"rows": []})["rows"]:
        by[(r["graph"], r["k"])]["cpu " + r["method"]] = r["median_s"]
    cols = [*gpu_cols, *(f"cpu {m}" for m in TABLE2_CPU if cpu)]
    out = ["| graph | k | " + " | ".join(cols) + " |", "|---|---|" + "---|" * len(cols)]
    for (graph, k), m in sorted(by.items()):
        gpu_best = min((m[c] for c in gpu_cols if c in m), default=None)
        cells = [
            (f"**{m[c]:.6f}**" if m[c] == gpu_best else f"{m[c]:.6f}") if c in m else "-"
            for c in cols
        ]
        out.append(f"| {graph} | {k} | " + " | ".join(cells) + " |")
    return "\n".join(out)


def scaling_table(*datas: dict) -> str:
    out = [
        "| graph | k | split | GPUs | time (s) | speedup | busy max/mean |",
        "|---|---|---|---|---|---|---|",
    ]
    for data in datas:
        for r in data["rows"]:
            out.append(
                f"| {r['graph']} | {r['k']} | {r['strategy']} | {r['devices']} "
                f"| {r['median_s']:.4f} | {r['speedup']:.2f} | {r.get('imbalance', math.nan):.3f} |"
            )
    return "\n".join(out)


BFS_FILE = "h200_bfs_all_sections.json"
#: The ablation ladder, each rung adding one technique, then auto, dense JAX.
BFS_LADDER = ("scan", "queue", "classes", "direction", "enterprise", "cluster", "auto", "dense")
BFS_DIRECTIONS = ("auto", "top_down", "bottom_up")
TRUSS_DECOMPOSE = "h200_truss_async_tail.json"
TRUSS_SINGLE_K = "h200_truss_degree_bound.json"
TRUSS_RMAT = "h200_truss_degree_bound_rmat.json"
TRUSS_VARIANTS = ("auto+core", "dag+core", "edge+core")
MATCH_ROWS = "h200_match_rows_filter_kernel.json"
MATCH_SYMMETRY = "h200_match_symmetry.json"
MATCH_BEYOND = "h200_beyond_memory.json"
FRONT_DOOR = "h200_eager_vs_jit.json"
FRONT_DOOR_FIRST = "h200_eager_vs_jit_first.json"


def _ms(seconds: float | None, digits: int = 3) -> str:
    return "-" if seconds is None else f"{seconds * 1e3:.{digits}f}"


def _span(lo: float, hi: float) -> str:
    return f"{lo * 1e3:.3f}" if f"{lo:.6f}" == f"{hi:.6f}" else f"{lo * 1e3:.3f}-{hi * 1e3:.3f}"


def _section(data: dict, name: str) -> list[dict]:
    return [r for r in data["rows"] if r["section"] == name]


def bfs_graphs_table(data: dict) -> str:
    """The generated graphs: median device span of one traversal over the
    sources, GTEPS (harmonic mean; an undirected edge counted once, then as the
    Graph500 seed counts, twice), and how many sources' distances equal the
    bit-parallel batch kernel's."""
    out = [
        "| graph | vertices | edges | sources | median (ms) | GTEPS, edges once "
        "| GTEPS as the seed counts | distances = batch kernel |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for r in _section(data, "kron"):
        out.append(
            f"| {r['graph']} | {r['n']:,} | {r['edges']:,} | {r['sources']} "
            f"| {_ms(r['time_median_s'])} | {r['gteps_hmean_once']:.1f} "
            f"| {r['gteps_hmean_twice']:.0f} | {r.get('distances_agree', '-')} |"
        )
    return "\n".join(out)


def bfs_shared_table(data: dict) -> str:
    """The shared graphs: one traversal per ground-truth source against the best
    peer of the anchors for that source."""
    by: dict[str, list[dict]] = defaultdict(list)
    for r in _section(data, "shared"):
        by[r["graph"]].append(r)
    out = [
        "| graph | sources | kcjax (ms) | best peer (ms) | least x peer | distances = truth |",
        "|---|---|---|---|---|---|",
    ]
    for graph, rows in sorted(by.items()):
        times = [r["time_s"] for r in rows]
        peers = [r["peer_best_s"] for r in rows]
        names = "/".join(sorted({r["peer_best"] for r in rows}))
        least = min(r["speedup_vs_best"] for r in rows)
        ok = sum(bool(r["truth_ok"]) for r in rows)
        out.append(
            f"| {graph} | {len(rows)} | {_span(min(times), max(times))} "
            f"| {_span(min(peers), max(peers))} ({names}) | {least:.2f} | {ok}/{len(rows)} |"
        )
    return "\n".join(out)


def bfs_ablation_table(data: dict) -> str:
    """Every method of the ladder in every direction (median ms), dense JAX and
    the CPU handler."""
    rows = _section(data, "ablation")
    graphs = list(dict.fromkeys(r["graph"] for r in rows))
    cell = {(r["method"], r["graph"], r["direction"]): r["time_median_s"] for r in rows}
    for r in _section(data, "baselines"):
        cell[("CPU handler", r["graph"], "auto")] = r["time_median_s"]
    cols = [(g, d) for g in graphs for d in BFS_DIRECTIONS]
    out = [
        "| method | " + " | ".join(f"{g} {d}" for g, d in cols) + " |",
        "|---|" + "---|" * len(cols),
    ]
    for method in (*BFS_LADDER, "CPU handler"):
        if any((method, g, d) in cell for g, d in cols):
            cells = [_ms(cell.get((method, g, d))) for g, d in cols]
            out.append(f"| {method} | " + " | ".join(cells) + " |")
    return "\n".join(out)


def bfs_batched_table(data: dict) -> str:
    """Several sources in one call: the bit-parallel batch (64 sources a word)
    against one traversal per source (``batch="each"``), ms per source."""
    by: dict[tuple[str, int], dict[str, float]] = defaultdict(dict)
    for r in _section(data, "batched"):
        key = "bitset" if r["batch"] == "bitset" else f"each {r['method']}"
        by[(r["graph"], r["sources"])][key] = r["per_source_s"]
    out = [
        "| graph | sources | bit-parallel batch | one auto traversal each | one cluster each |",
        "|---|---|---|---|---|",
    ]
    for (graph, n), m in by.items():
        cells = [_ms(m.get(k)) for k in ("bitset", "each auto", "each cluster")]
        out.append(f"| {graph} | {n} | " + " | ".join(cells) + " |")
    return "\n".join(out)


def _truss_peer_two_runs(single: dict) -> dict[str, float]:
    """KTrussExplorer's k = 3 plus k = k_max time per graph (the peer answers one k
    a run), from the single-k rows that carry the peer's time."""
    peer: dict[str, dict[int, float]] = defaultdict(dict)
    for r in single["rows"]:
        if r["op"] == "k_truss" and r.get("peer_s"):
            peer[r["graph"]][r["k"]] = r["peer_s"]
    return {g: sum(ks.values()) for g, ks in peer.items() if len(ks) == 2}


def truss_decompose_table(decomp: dict, single: dict) -> str:
    """The full decomposition (every edge's trussness, one call) and max_truss,
    device span, with the busy time of its kernels, against the peer's two runs."""
    peer = _truss_peer_two_runs(single)
    rows = {r["graph"]: r for r in decomp["rows"] if r["op"] == "decompose"}
    maxt = {r["graph"]: r for r in decomp["rows"] if r["op"] == "max_truss"}
    out = [
        "| graph | edges | k_max | decomposition (ms) | store | rounds | tail | max_truss (ms) "
        "| peer k = 3 + k_max (ms) | x peer |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    order = sorted(rows, key=lambda g: -peer.get(g, 0.0) / rows[g]["device_s"])
    for g in order:
        r, ph = rows[g], rows[g].get("phases_s", {})
        x = f"{peer[g] / r['device_s']:.2f}" if g in peer else "-"
        m_s = maxt[g]["device_s"] if g in maxt else None
        out.append(
            f"| {g} | {r['edges']:,} | {r['k_max']} | {_ms(r['device_s'])} "
            f"| {_ms(ph.get('StoreKernel'))} | {_ms(ph.get('HIndexKernel'))} "
            f"| {_ms(ph.get('HIndexTailKernel'))} | {_ms(m_s)} | {_ms(peer.get(g))} | {x} |"
        )
    return "\n".join(out)


def truss_single_k_table(single: dict) -> str:
    """One k-truss (k_truss_mask) at k = 3 and k = k_max per support variant,
    device span, against KTrussExplorer for the same k."""
    by: dict[tuple[str, int], dict[str, dict]] = defaultdict(dict)
    for r in single["rows"]:
        if r["op"] == "k_truss":
            by[(r["graph"], r["k"])][r["variant"]] = r
    out = [
        "| graph | k | "
        + " | ".join(f"{v} (ms)" for v in TRUSS_VARIANTS)
        + " | KTrussExplorer (ms) | x peer (auto+core) |",
        "|---|---|" + "---|" * (len(TRUSS_VARIANTS) + 2),
    ]
    for (graph, k), m in sorted(by.items()):
        cells = [_ms(m[v]["device_s"]) if v in m else "-" for v in TRUSS_VARIANTS]
        default = m.get("auto+core", {})
        peer, x = default.get("peer_s"), default.get("x_peer")
        out.append(
            f"| {graph} | {k} | "
            + " | ".join(cells)
            + f" | {_ms(peer)} | {'-' if x is None else f'{x:.2f}'} |"
        )
    return "\n".join(out)


def truss_rmat_table(rmat: dict) -> str:
    """R-MAT decompositions: the h-index where its triangle store fits in int32
    entries, else the peeling (read from the call's kernels)."""
    maxt = {r["graph"]: r for r in rmat["rows"] if r["op"] == "max_truss"}
    out = [
        "| graph | vertices | edges | k_max | decomposition (s) | algorithm | max_truss (s) |",
        "|---|---|---|---|---|---|---|",
    ]
    for r in rmat["rows"]:
        if r["op"] != "decompose":
            continue
        algo = "hindex" if "HIndexKernel" in r.get("phases_s", {}) else "peel"
        m = maxt.get(r["graph"])
        m_s = "-" if m is None else f"{m['device_s']:.3f}"
        out.append(
            f"| {r['graph']} | {r['nodes']:,} | {r['edges']:,} | {r['k_max']} "
            f"| {r['device_s']:.3f} | {algo} | {m_s} |"
        )
    return "\n".join(out)


def match_summary_table(data: dict) -> str:
    """Per data graph: counts equal to counts.tsv, rows faster than the best correct
    peer (of those that have one), the slowest row and the least speed-up."""
    by: dict[str, list[dict]] = defaultdict(list)
    for r in data["rows"]:
        by[r["graph"]].append(r)
    out = [
        "| graph | queries | query vertices | exact | faster than the best peer "
        "| slowest row (ms) | least x peer |",
        "|---|---|---|---|---|---|---|",
    ]
    for graph, rows in sorted(by.items()):
        sizes = sorted({r["query_vertices"] for r in rows})
        exact = sum(bool(r["correct"]) for r in rows)
        peered = [r for r in rows if r.get("peer_best_s")]
        faster = sum(r["speedup_vs_peer"] > 1 for r in peered)
        least = min(peered, key=lambda r: r["speedup_vs_peer"])
        slow = max(r["device_s"] for r in rows)
        out.append(
            f"| {graph} | {len(rows)} | {', '.join(map(str, sizes))} | {exact}/{len(rows)} "
            f"| {faster}/{len(peered)} | {_ms(slow)} "
            f"| {least['speedup_vs_peer']:.2f} ({least['query']}) |"
        )
    return "\n".join(out)


def match_rows_table(data: dict) -> str:
    """Every counts.tsv row: the count, its device span and the best correct
    peer's time (egsm: EGSM on the GPU; sm: SubgraphMatching, one CPU thread)."""
    out = [
        "| graph | query | embeddings | exact | kcjax (ms) | best peer (ms) | x peer "
        "| filter rounds |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for r in data["rows"]:
        peer = r.get("peer_best_s")
        peer_txt = f"{_ms(peer)} ({r['peer']})" if peer else "- (no correct peer)"
        x = f"{r['speedup_vs_peer']:.2f}" if peer else "-"
        out.append(
            f"| {r['graph']} | {r['query']} | {int(r['count']):,} "
            f"| {'yes' if r['correct'] else 'NO'} | {_ms(r['device_s'])} | {peer_txt} | {x} "
            f"| {r.get('rounds', '-')} |"
        )
    return "\n".join(out)


def match_beyond_table(data: dict) -> str:
    """The dropped counts.tsv queries that finished: the count, its time and peak
    device memory, and what a level-by-level engine would store."""
    out = [
        "| graph | query | embeddings | count (s) | peak device memory (MiB) "
        "| prefix tree's last level (GB) | as int32 rows (GB) |",
        "|---|---|---|---|---|---|---|",
    ]
    for r in data["rows"]:
        run = r.get("default")
        if not isinstance(run, dict) or "count" not in run:
            continue
        out.append(
            f"| {r['graph']} | {r['query']} | {int(run['count']):,} | {run['median_s']:.3f} "
            f"| {run['peak_bytes'] / 2**20:.1f} | {r['tree_last_level_bytes'] / 1e9:.1f} "
            f"| {r['flat_rows_bytes'] / 1e9:.1f} |"
        )
    return "\n".join(out)


def match_symmetry_table(data: dict) -> str:
    """The rows whose query has automorphisms: the count's span with symmetry
    breaking and without (symmetry=False, the same call), and gMatch's
    processing time (the anchors' gmatch_s)."""
    out = [
        "| graph | query | automorphisms | exact | with (ms) | without (ms) | x without "
        "| gMatch (ms) | x gMatch |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for r in data["rows"]:
        if r.get("automorphisms", 1) < 2:
            continue
        off = r["ablation"]["no_symmetry"]
        g = r.get("gmatch_s")
        out.append(
            f"| {r['graph']} | {r['query']} | {r['automorphisms']} "
            f"| {'yes' if r['correct'] and off['correct'] else 'NO'} | {_ms(r['median_s'])} "
            f"| {_ms(off['median_s'])} | {off['median_s'] / r['median_s']:.2f} "
            f"| {_ms(g)} | {(g / r['median_s']) if g else float('nan'):.2f} |"
        )
    return "\n".join(out)


def plots(results: Path, anchors, ablation, lam, scaling, ncu) -> list[Path]:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    written = []

    def save(fig, name):
        path = results / name
        fig.tight_layout()
        fig.savefig(path, dpi=110)
        plt.close(fig)
        written.append(path)

    if anchors:
        rows = [r for r in anchors["rows"] if r.get("best_any_s")]
        graphs = sorted({r["graph"] for r in rows})
        fig, axes = plt.subplots(1, 2, figsize=(12, 4.2), sharey=True)
        for ax, (method, ref, title) in zip(
            axes,
            [
                ("kcminer", "best_enumeration_s", "KCMiner vs best published enumeration"),
                ("auto", "best_any_s", "auto vs best published GPU code"),
            ],
            strict=True,
        ):
            for i, g in enumerate(graphs):
                pts = sorted(
                    (r["k"], r[ref] / _t(r))
                    for r in rows
                    if r["graph"] == g and r["method"] == method and math.isfinite(r[ref])
                )
                ax.plot([p[0] for p in pts], [p[1] for p in pts], "o-", label=g, color=f"C{i}")
            ax.axhline(1.0, color="k", lw=0.8)
            ax.set_yscale("log")
            ax.set_xlabel("k")
            ax.set_title(title, fontsize=10)
        axes[0].set_ylabel("speedup (peer time / kcjax time)")
        axes[1].legend(fontsize=7, ncol=2)
        save(fig, "fig_anchors.png")
    if ablation:
        by = defaultdict(dict)
        for r in ablation["rows"]:
            if 5 <= r["k"] <= 8:
                by[(r["graph"], r["k"])][r["method"]] = _t(r)
        keys = [key for key in sorted(by) if all(m in by[key] for m, _ in CHAIN)]
        fig, ax = plt.subplots(figsize=(13, 4.2))
        width = 0.8 / len(CHAIN)
        for j, (m, label) in enumerate(CHAIN):
            xs = [i + j * width for i in range(len(keys))]
            ys = [by[key]["thread"] / by[key][m] for key in keys]
            ax.bar(xs, ys, width, label=label)
        ax.set_xticks([i + 0.4 - width / 2 for i in range(len(keys))])
        ax.set_xticklabels([f"{g}\nk={k}" for g, k in keys], fontsize=6)
        ax.set_yscale("log")
        ax.set_ylabel("speedup over thread-parallel")
        ax.set_title("Ablation (Fig. 7 analogue, cumulative): one H200", fontsize=10)
        ax.legend(fontsize=8)
        save(fig, "fig7_ablation.png")
    if ncu:
        fig, ax = plt.subplots(figsize=(5, 3.5))
        labels, vals = [], []
        for call in ncu["calls"][1:]:
            main = max(call["kernels"], key=lambda x: x["time_ns"])
            labels.append(call["call"].replace("com-dblp ", ""))
            vals.append(main["active_lanes_per_warp_inst"])
        ax.bar(labels, vals, color=["C0", "C3"][: len(vals)])
        ax.axhline(32, color="k", lw=0.8)
        ax.set_ylabel("active lanes per warp instruction")
        ax.set_title("Fig. 8 analogue: com-dblp k=7, main kernel", fontsize=10)
        save(fig, "fig8_lanes.png")
    if lam:
        by = defaultdict(list)
        for r in lam["rows"]:
            by[(r["graph"], r["k"])].append((float(r["method"].partition("@")[2]), _t(r)))
        fig, axes = plt.subplots(1, 2, figsize=(10, 3.8))
        colors = {g: f"C{i}" for i, g in enumerate(sorted({g for g, _ in by}))}
        for ax, k in zip(axes, (6, 7), strict=True):
            for (g, kk), pts in sorted(by.items()):
                if kk != k:
                    continue
                pts.sort()
                base = min(t for _, t in pts)
                xs, ys = [p[0] for p in pts], [t / base for _, t in pts]
                ax.plot(xs, ys, "o-", label=g, color=colors[g])
            ax.set_xlabel("λ(k, 2): build at level 2 when γ > λ")
            ax.set_ylabel("time / best")
            ax.set_title(f"Fig. 9 analogue: λ sweep, k={k}", fontsize=10)
            ax.legend(fontsize=7)
        save(fig, "fig9_lambda.png")
    if scaling:
        fig, ax = plt.subplots(figsize=(6, 4))
        top = 1
        for i, (data, (g, k)) in enumerate(
            (d, key)
            for d in scaling
            for key in dict.fromkeys((r["graph"], r["k"]) for r in d["rows"])
        ):
            pts = sorted(
                (r["devices"], r["speedup"])
                for r in data["rows"]
                if (r["graph"], r["k"]) == (g, k) and r["strategy"] == "balanced"
            )
            top = max(top, pts[-1][0])
            ax.plot(
                [p[0] for p in pts], [p[1] for p in pts], "o-", color=f"C{i}", label=f"{g} k={k}"
            )
        ax.plot([1, top], [1, top], "k--", lw=0.8, label="linear")
        ax.set_xlabel("H200 GPUs")
        ax.set_ylabel("speedup vs 1 GPU (balanced split)")
        ax.set_title("Fig. 10 analogue: multi-GPU scaling", fontsize=10)
        ax.legend(fontsize=7, ncol=2)
        save(fig, "fig10_scaling.png")
    return written


def cliques_report(r: Path, plot: bool) -> None:
    """Print the k-clique tables from ``r`` (results/cliques); redraw the figures if ``plot``."""
    anchors = _load(r, "h200_anchors.json")
    ablation = _load(r, "h200_table2.json") or _load(r, "h200_ablation.json")
    cpu = _load(r, "h200host_table2_cpu.json")
    exact = _load(r, "h200_variants_exact_w.json")
    rmat = _load(r, "h200_rmat_scales.json")
    rmat22 = _load(r, "h200_rmat22_table.json")
    cpu_all = _load(r, "cpu_all.json")
    lam = _load(r, "h200_lambda.json")
    ncu = _load(r, "h200_ncu_dblp.json")
    scaling = [
        d
        for d in (
            _load(r, f"h200x4_scaling_{g}.json") or _load(r, f"h200x2_scaling_{g}.json")
            for g in ("dblp", "rmat22")
        )
        if d
    ]
    if anchors:
        print("## Against the published GPU codes (one H200)\n\n" + anchors_table(anchors) + "\n")
    if ablation:
        print(
            "## Table 2 analogue: variants, dense JAX (GPU device time, s) and the CPU "
            "handlers (host wall time, s)\n\n" + table2(ablation, cpu) + "\n"
        )
    if exact:
        print(
            "## KCMiner against the static bitmap variants with the engine compiled for "
            "exact row widths, k = 6..9, device time (s)\n\n"
            + table2(exact, None, ("static_l1", "static_l2", "kcminer"))
            + "\n"
        )
    if rmat:
        print(
            "## R-MAT at growing scales, device time (s)\n\n"
            + table2(rmat, None, ("kcminer", "pivot", "binary_search"))
            + "\n"
        )
    if rmat22:
        print(
            "## R-MAT scale 22, edge factor 2, every variant, device time (s)\n\n"
            + table2(rmat22, None, RMAT22_ORDER)
            + "\n"
        )
    if lam:
        print("## λ sweep, device time (s)\n\n" + lambda_table(lam) + "\n")
    if scaling:
        print("## Several GPUs\n\n" + scaling_table(*scaling) + "\n")
    if cpu_all:
        print(
            "## CPU handlers and dense JAX (2-core CPU machine, wall time, s)\n\n"
            + table2(cpu_all, None, CPU_ORDER)
            + "\n"
        )
    if plot:
        for path in plots(r, anchors, ablation, lam, scaling, ncu):
            print(f"wrote {path}")


def bfs_report(r: Path) -> None:
    """Print the BFS tables from ``r`` (results/bfs)."""
    data = _load(r, BFS_FILE)
    if not data:
        return
    print("## BFS: Kronecker and R-MAT graphs (one H200)\n\n" + bfs_graphs_table(data) + "\n")
    print("## BFS: the shared graphs against the best peer\n\n" + bfs_shared_table(data) + "\n")
    print("## BFS: the ablation ladder, median ms\n\n" + bfs_ablation_table(data) + "\n")
    print("## BFS: batched sources, ms per source\n\n" + bfs_batched_table(data) + "\n")


def truss_report(r: Path) -> None:
    """Print the k-truss tables from ``r`` (results/truss)."""
    decomp, single, rmat = (_load(r, n) for n in (TRUSS_DECOMPOSE, TRUSS_SINGLE_K, TRUSS_RMAT))
    if decomp and single:
        print(
            "## k-truss: the full decomposition against KTrussExplorer's two runs (one H200)\n\n"
            + truss_decompose_table(decomp, single)
            + "\n"
        )
    if single:
        print("## k-truss: one k against KTrussExplorer\n\n" + truss_single_k_table(single) + "\n")
    if rmat:
        print("## k-truss: R-MAT, edge factor 16\n\n" + truss_rmat_table(rmat) + "\n")


def front_door_table(data: dict) -> str:
    """Every eager call against the jitted form of the same work: span and wall (ms)."""
    head = (
        "| family | graph | op | eager span | jit span | eager / jit | eager wall | jit wall |\n"
        "|---|---|---|---|---|---|---|---|"
    )
    lines = [head]
    for r in data["rows"]:
        e, j = r["eager"], r["jit"]
        lines.append(
            f"| {r['family']} | {r['graph']} | {r['op']} | {_ms(e.get('span_s'))} | "
            f"{_ms(j.get('span_s'))} | {e['span_s'] / j['span_s']:.2f} | {_ms(e['wall_s'])} | "
            f"{_ms(j['wall_s'])} |"
        )
    return "\n".join(lines)


def first_call_table(data: dict) -> str:
    """A first call in a fresh process, with the compilation cache empty and warm (s)."""
    lines = [
        "| family | graph | call | first call, empty cache | first call, warm cache"
        " | second call |",
        "|---|---|---|---|---|---|",
    ]
    for r in data["meta"].get("first_calls", []):
        cold, warm = r["cold_cache"], r["warm_cache"]
        lines.append(
            f"| {r['family']} | {r['graph']} | {r['arg']} | {cold['first_s']:.3f} | "
            f"{warm['first_s']:.3f} | {warm['second_s']:.4f} |"
        )
    return "\n".join(lines)


def front_door_report(r: Path) -> None:
    """Print the front door tables from ``r`` (results/front_door)."""
    final, first = _load(r, FRONT_DOOR), _load(r, FRONT_DOOR_FIRST)
    if final:
        print(
            "## Eager calls against jitted programs (one H200)\n\n" + front_door_table(final) + "\n"
        )
    if first:
        print("## First calls in a fresh process (one H200)\n\n" + first_call_table(first) + "\n")


def match_report(r: Path) -> None:
    """Print the matching tables from ``r`` (results/match)."""
    rows, beyond = _load(r, MATCH_ROWS), _load(r, MATCH_BEYOND)
    symmetry = _load(r, MATCH_SYMMETRY)
    if rows:
        print("## Matching: per data graph (one H200)\n\n" + match_summary_table(rows) + "\n")
        print("## Matching: every counts.tsv row\n\n" + match_rows_table(rows) + "\n")
    if beyond:
        print(
            "## Matching: embeddings beyond device memory\n\n" + match_beyond_table(beyond) + "\n"
        )
    if symmetry:
        print("## Matching: symmetry breaking\n\n" + match_symmetry_table(symmetry) + "\n")


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--family", nargs="+", choices=FAMILIES, default=list(FAMILIES))
    p.add_argument("--results", type=Path, default=RESULTS, help="folder of the family folders")
    p.add_argument("--no-plots", action="store_true")
    args = p.parse_args(argv)
    if "cliques" in args.family:
        cliques_report(args.results / "cliques", plot=not args.no_plots)
    if "bfs" in args.family:
        bfs_report(args.results / "bfs")
    if "truss" in args.family:
        truss_report(args.results / "truss")
    if "match" in args.family:
        match_report(args.results / "match")
    if "front_door" in args.family:
        front_door_report(args.results / "front_door")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
