"""Tables and plots of the committed results (experiments/results/cliques/*.json).

Prints the Markdown tables of docs/results.md (anchors, variants, Table 2,
R-MAT, λ sweep, scaling, CPU) and writes the PNG plots next to the JSON
files. Needs matplotlib for the plots (an experiments-only dependency; the
package never imports this file).

Usage: python experiments/tools/report.py [--results experiments/results/cliques] [--no-plots]
"""

from __future__ import annotations

import argparse
import json
import math
from collections import defaultdict
from pathlib import Path

RESULTS = Path(__file__).resolve().parents[1] / "results" / "cliques"
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


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--results", type=Path, default=RESULTS)
    p.add_argument("--no-plots", action="store_true")
    args = p.parse_args(argv)
    r = args.results
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
    if not args.no_plots:
        for path in plots(r, anchors, ablation, lam, scaling, ncu):
            print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
