"""``method="auto"`` against its own methods on graphs its rule was not fitted to.

    python -P experiments/cliques/auto_validation.py --out F.json [--graphs G ...] [--ks 3-12]
    python -P experiments/cliques/auto_validation.py --fit F.json

Measure mode: per graph (the generated validation set below, the shared
graphs by name) and k, the device span (median of ``--repeats`` calls) of
``count_cliques`` with ``method="kcminer"`` and ``method="pivot"``, the
method ``auto`` picks, and the device cost of ``kcjax.clique_cost_estimate``
(what auto reads; memo cleared before each call). A method is skipped at k
where it would run for long: KCMiner where the estimated work passes
``--max-work`` or its time at k - 1 passed ``--budget``, pivot where its time
at k - 1 passed ``--budget``; a skipped method counts as slower than the one
measured. Counts are checked: both methods agree, and on shared graphs they
equal ../shared's ground truth.

``--per-vertex``: the same for ``clique_counts_per_vertex`` (both methods'
arrays must agree) and ``auto_local_method``; rows carry ``"mode":
"per_vertex"`` and are fitted to the per-vertex rule's thresholds.

Fit mode: from files measured before issue 51 (their rows hold the
per-root-density estimate of that time), the thresholds of the rule of that
time (:data:`OLD_RULE`: minimum estimated work, maximum pivot branching,
minimum shallow cost) that minimize the worst ratio ``auto / min(kcminer,
pivot)`` over the "fit" half and the shared graphs, then that rule's ratios
on the "report" half; and OLD_RULE's on the fit, report and "holdout"
graphs. The rule that replaced it (kcjax.cliques.auto) is checked by
auto_check.py on these graphs and on graphs it was not fitted on.

The validation set (generated, seeded; "fit" and "report" alternate):
planted cliques of 50-300 vertices in sparse power-law (Chung-Lu) graphs of
low transitivity, several planted cliques of different sizes, near-cliques
(a clique minus some edges), dense non-clique blocks (ego-like cores),
R-MAT and Kronecker graphs. The "holdout" graphs (:data:`HOLDOUT`, the same
kinds with new seeds and sizes) were added after the report half had been
seen by a change of the package's thresholds, so that one set stays unseen.
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
import sys
from collections.abc import Callable
from pathlib import Path

import jax
import numpy as np

_HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(_HERE), str(_HERE.parent / "tools")]  # also under python -P
from bench import ground_truth, load_graph  # noqa: E402
from benchlib import device_span, wall_times, write_results  # noqa: E402

import kcjax  # noqa: E402
from kcjax import experimental as auto  # noqa: E402
from kcjax import generators as gen  # noqa: E402

TIMER = (
    "device_s: JAX profiler (CUPTI) span of the eager count_cliques call's GPU work, "
    "median of the repeats (wall clock without a GPU); estimate_s: the same for "
    "clique_cost_estimate with its memo cleared; decide_s: the same for auto's whole "
    "decision (auto_method or auto_local_method) with the memo cleared"
)


def _cl(n: int, deg: float, exponent: float, seed: int) -> kcjax.Graph:
    return gen.chung_lu(n, deg, exponent, seed=seed)


#: name -> builder; the halves alternate in this order.
VALIDATION: dict[str, Callable[[], kcjax.Graph]] = {
    "cl20k+K50": lambda: gen.plant_blocks(_cl(20_000, 8, 2.5, 1), [50], seed=11),
    "cl50k+K100": lambda: gen.plant_blocks(_cl(50_000, 8, 2.3, 2), [100], seed=12),
    "cl100k+K155": lambda: gen.plant_blocks(_cl(100_000, 10, 2.3, 3), [155], seed=13),
    "cl100k+K300": lambda: gen.plant_blocks(_cl(100_000, 6, 2.5, 4), [300], seed=14),
    "cl50k+K30,60,120": lambda: gen.plant_blocks(_cl(50_000, 8, 2.4, 5), [30, 60, 120], seed=15),
    "cl100k+K50,80,200": lambda: gen.plant_blocks(_cl(100_000, 8, 2.2, 6), [50, 80, 200], seed=16),
    "cl50k+K150-20": lambda: gen.plant_blocks(_cl(50_000, 8, 2.5, 7), [150], missing=20, seed=17),
    "cl50k+K250-400": lambda: gen.plant_blocks(_cl(50_000, 8, 2.5, 8), [250], missing=400, seed=18),
    "cl5k+D200@0.5": lambda: gen.plant_blocks(_cl(5_000, 20, 2.5, 9), [200], density=0.5, seed=19),
    "cl5k+D150@0.8": lambda: gen.plant_blocks(_cl(5_000, 20, 2.5, 10), [150], density=0.8, seed=20),
    "cl10k+D300@0.35": lambda: gen.plant_blocks(
        _cl(10_000, 15, 2.5, 11), [300], density=0.35, seed=21
    ),
    "cl10k+D120@0.9": lambda: gen.plant_blocks(
        _cl(10_000, 15, 2.5, 12), [120, 80], density=0.9, seed=22
    ),
    "rmat16": lambda: gen.rmat(16, edge_factor=16, seed=2),
    "kron16": lambda: gen.kronecker(16, edge_factor=16, seed=3),
    "rmat18": lambda: gen.rmat(18, edge_factor=8, seed=4),
    "kron17": lambda: gen.kronecker(17, edge_factor=16, seed=5),
}
SPLIT = {name: ("fit", "report")[i % 2] for i, name in enumerate(VALIDATION)}

#: Graphs generated after the rule's thresholds were last changed, with new
#: seeds and sizes: the "holdout" split, which no fit or choice has seen.
HOLDOUT: dict[str, Callable[[], kcjax.Graph]] = {
    "cl60k+K120": lambda: gen.plant_blocks(_cl(60_000, 8, 2.4, 31), [120], seed=41),
    "cl40k+K70,140": lambda: gen.plant_blocks(_cl(40_000, 9, 2.3, 32), [70, 140], seed=42),
    "cl30k+K90-15": lambda: gen.plant_blocks(_cl(30_000, 8, 2.5, 33), [90], missing=15, seed=43),
    "cl80k+K60,60": lambda: gen.plant_blocks(_cl(80_000, 7, 2.4, 34), [60, 60], seed=44),
    "cl8k+D160@0.6": lambda: gen.plant_blocks(_cl(8_000, 18, 2.5, 35), [160], density=0.6, seed=45),
    "rmat17": lambda: gen.rmat(17, edge_factor=12, seed=6),
}
VALIDATION |= HOLDOUT
SPLIT |= {name: "holdout" for name in HOLDOUT}


def _device_s(fn: Callable[[], object], repeats: int) -> float:
    """Median device span of fn (wall clock where there is no GPU)."""
    jax.block_until_ready(fn())
    span = device_span(fn, repeats)
    if span:
        return span["device_s"]
    return statistics.median(wall_times(fn, repeats)[0])


def measure_graph(
    name: str,
    graph: kcjax.Graph,
    ks: list[int],
    *,
    repeats: int,
    budget: float,
    max_work: float,
    truth: dict[tuple[str, int], int],
    per_vertex: bool = False,
) -> list[dict]:
    """Rows of one graph: both methods, auto's pick and the estimate's cost per k."""
    dag = kcjax.orient(graph)
    # count_cliques counts no size above the largest out-degree + 1 (it has no
    # clique), so auto weighs that size: the estimate is for it.
    bound = int(dag.max_out_degree()) + 1
    last = {"kcminer": 0.0, "pivot": 0.0}
    rows = []
    for k in ks:
        kcjax.clear_memo()
        ke = max(min(k, bound), 3)
        estimate_s = _device_s(lambda ke=ke: _fresh_estimate(dag, ke), repeats)
        decide_s = _device_s(lambda k=k: _fresh_decision(dag, k, per_vertex), repeats)
        est = kcjax.clique_cost_estimate(dag, ke)
        row = {
            "graph": name,
            "split": SPLIT.get(name, "shared"),
            "n": graph.num_nodes,
            "m": graph.num_edges,
            "k": k,
            "estimate_s": estimate_s,
            "decide_s": decide_s,
            "enumeration_work": est.enumeration_work,
            "pivot_branching": est.pivot_branching,
            "root_degree": est.root_degree,
            "heaviest_root_work": est.heaviest_root_work,
            "estimate_k": ke,
            "estimated_count": est.cliques[k] if k == ke else 0.0,
            "auto": auto.auto_local_method(dag, k) if per_vertex else auto.auto_method(dag, k),
        }
        if per_vertex:
            row["mode"] = "per_vertex"
        counts = {}
        for method in ("kcminer", "pivot"):
            too_much = method == "kcminer" and est.enumeration_work > max_work
            if last[method] > budget or too_much:
                row[f"{method}_s"] = None
                last[method] = math.inf
                continue

            def run(k=k, method=method):
                if per_vertex:
                    return kcjax.clique_counts_per_vertex(dag, k, method=method)
                return kcjax.count_cliques(dag, k, method=method)

            counts[method] = run()
            row[f"{method}_s"] = last[method] = _device_s(run, repeats)
        if per_vertex:  # the arrays agree; their sum is k times the count
            arrays = [np.asarray(c) for c in counts.values()]
            row["correct"] = all(np.array_equal(a, arrays[0]) for a in arrays)
            row["count"] = str(int(arrays[0].astype(object).sum()) // k) if arrays else None
        else:
            values = set(counts.values())
            row["count"] = str(next(iter(values))) if values else None
            expected = truth.get((name, k))
            row["correct"] = len(values) <= 1 and (expected is None or values <= {expected})
        rows.append(row)
        print(_line(row), flush=True)
    return rows


def _fresh_estimate(dag: kcjax.DAG, k: int) -> kcjax.CliqueCostEstimate:
    kcjax.clear_memo()
    return kcjax.clique_cost_estimate(dag, k)


def _fresh_decision(dag: kcjax.DAG, k: int, per_vertex: bool) -> str:
    """auto's whole decision from nothing memoized: the out-degree bound, the
    work bounds and, where they do not decide, the estimate."""
    kcjax.clear_memo()
    return auto.auto_local_method(dag, k) if per_vertex else auto.auto_method(dag, k)


def _best(row: dict) -> float:
    times = [t for t in (row.get("kcminer_s"), row.get("pivot_s")) if t is not None]
    return min(times) if times else math.nan


def _time_of(row: dict, method: str) -> float:
    """A method's time, infinite where it was skipped for running long."""
    t = row.get(f"{method}_s")
    return math.inf if t is None else t


def ratio(row: dict, method: str) -> float:
    """method's time over the faster of the two (inf: skipped where the other ran)."""
    best = _best(row)
    return _time_of(row, method) / best if math.isfinite(best) else math.nan


def _line(row: dict) -> str:
    def ms(t):
        return f"{t * 1e3:10.3f}" if t is not None else "   skipped"

    return (
        f"{row['graph']:18s} {row['split']:6s} {row['k']:2d} {ms(row.get('kcminer_s'))} "
        f"{ms(row.get('pivot_s'))} {row['auto']:8s} {ratio(row, row['auto']):6.2f} "
        f"{row['enumeration_work']:9.2e} {row['pivot_branching']:6.2f} "
        f"{row['estimate_s'] * 1e3:8.3f} {row['decide_s'] * 1e3:8.3f} {row['correct']}"
    )


def pick(row: dict, rule: dict) -> str:
    """The GPU rule before issue 51 (OLD_RULE's form) with the given thresholds."""
    work = row["enumeration_work"]
    small_roots = row["root_degree"] <= rule["small_degree"]
    heavy_root = row["heaviest_root_work"] >= rule["min_root_work"]
    slow = work >= rule["min_work"] or (heavy_root and small_roots)
    if slow and row["pivot_branching"] <= rule["max_branching"]:
        return "pivot"
    shallow = row["k"] <= rule["shallow_k"]
    if shallow and work * row["root_degree"] >= rule["min_shallow_cost"]:
        return "pivot"
    deep = row["k"] >= rule["deep_k"] and work >= rule["deep_min_work"]
    if deep and small_roots:
        return "pivot"
    return "kcminer"


def pick_per_vertex(row: dict, rule: dict) -> str:
    """The per-vertex rule before issue 51 (OLD_PER_VERTEX_RULE's form), these thresholds."""
    if row["k"] >= rule["always_k"] and row["enumeration_work"] >= rule["always_min_work"]:
        return "pivot"
    if (
        row["enumeration_work"] >= rule["min_work"]
        and row["pivot_branching"] <= rule["max_branching"]
    ):
        return "pivot"
    return "kcminer"


#: The per-vertex rule before issue 51 (session 14), on the estimate of that
#: time (``auto_validation.py`` rows written before it: ``root_degree`` and
#: the per-root-density estimate); kept for the regret comparison of
#: auto_check.py and for ``--fit`` on those files.
OLD_PER_VERTEX_RULE = {
    "always_k": 7,
    "always_min_work": 1.5e6,
    "min_work": 5.6e6,
    "max_branching": 16.0,
}


#: The count rule before issue 51 (session 14), as OLD_PER_VERTEX_RULE.
OLD_RULE = {
    "min_work": 1e8,
    "min_root_work": 5e5,
    "max_branching": 1.5,
    "min_shallow_cost": 2e8,
    "shallow_k": 4,
    "small_degree": 45.0,
    "deep_k": 10,
    "deep_min_work": 1e6,
}


def _summary(rows: list[dict], rule: dict, pick=pick) -> dict:
    ratios = [ratio(r, pick(r, rule)) for r in rows]
    if not ratios:
        return {"rows": 0}
    worst = max(rows, key=lambda r: ratio(r, pick(r, rule)))
    return {
        "rows": len(ratios),
        "max_ratio": max(ratios),
        "geomean_ratio": math.exp(sum(math.log(x) for x in ratios) / len(ratios)),
        "within_1.25": sum(x <= 1.25 for x in ratios),
        "worst": f"{worst['graph']} k={worst['k']}",
    }


def fit(rows: list[dict]) -> dict:
    """Thresholds minimizing the worst, then the mean log ratio, on the fit
    half and the shared graphs (k >= 4: at k = 3 both methods are one
    intersection pass); that rule's and OLD_RULE's ratios on the report
    half, which the fit never sees."""
    rows = [r for r in rows if math.isfinite(_best(r)) and r["k"] >= 4]
    local = [r for r in rows if r.get("mode") == "per_vertex"]
    rows = [r for r in rows if r.get("mode") != "per_vertex"]
    train = [r for r in rows if r["split"] in ("fit", "shared")]
    test = [r for r in rows if r["split"] == "report"]
    holdout = [r for r in rows if r["split"] == "holdout"]
    grid = [
        {"min_work": 10.0 ** (e / 4), "min_root_work": 10.0 ** (f / 4)}
        | {"max_branching": b, "min_shallow_cost": c}
        | {"deep_k": dk, "small_degree": dd, "deep_min_work": OLD_RULE["deep_min_work"]}
        | {"shallow_k": OLD_RULE["shallow_k"]}
        for e in range(24, 40)
        for f in (*range(16, 32), 120)
        for b in (0.5, 1.0, 1.5, 2.0)
        for c in (1e8, 2e8, 4e8)
        for dk in (9, 10, 11, 99)
        for dd in (40.0, 45.0, 50.0)
    ]

    def score(rule):
        rs = [ratio(r, pick(r, rule)) for r in train]
        return max(rs), sum(math.log(x) for x in rs)

    per_vertex = fit_per_vertex(local) if local else None
    if not train:
        return {"per_vertex": per_vertex}
    best = min(grid, key=score)
    return {
        "fitted": best,
        "fit": _summary(train, best),
        "report": _summary(test, best),
        "old": OLD_RULE,
        "old_fit": _summary(train, OLD_RULE),
        "old_report": _summary(test, OLD_RULE),
        "old_holdout": _summary(holdout, OLD_RULE),
        "per_vertex": per_vertex,
    }


def fit_per_vertex(rows: list[dict]) -> dict:
    """fit() for the per-vertex rule's thresholds (pivot from a k on; below
    it where work and branching say so), on its own measured rows."""
    train = [r for r in rows if r["split"] in ("fit", "shared")]
    test = [r for r in rows if r["split"] == "report"]
    grid = [
        {"always_k": a, "always_min_work": aw, "min_work": 10.0 ** (e / 4), "max_branching": b}
        for a in (5, 6, 7, 8, 99)
        for aw in (0.0, 1e6, 1.5e6, 2e6, 3e6)
        for e in range(16, 36)
        for b in (1.0, 2.0, 4.0, 8.0, 16.0, 32.0)
    ]

    def score(rule):
        rs = [ratio(r, pick_per_vertex(r, rule)) for r in train]
        return max(rs), sum(math.log(x) for x in rs)

    best = min(grid, key=score) if train else OLD_PER_VERTEX_RULE
    return {
        "fitted": best,
        "fit": _summary(train, best, pick_per_vertex),
        "report": _summary(test, best, pick_per_vertex),
        "old": OLD_PER_VERTEX_RULE,
        "old_fit": _summary(train, OLD_PER_VERTEX_RULE, pick_per_vertex),
        "old_report": _summary(test, OLD_PER_VERTEX_RULE, pick_per_vertex),
    }


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--graphs", nargs="+", default=None, help="validation or shared graph names")
    p.add_argument("--shared", nargs="*", default=[], help="shared graphs to add")
    p.add_argument("--ks", default="3-12")
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--budget", type=float, default=1.0, help="s; skip a method at larger k")
    p.add_argument("--max-work", type=float, default=2e12, help="skip KCMiner above this")
    p.add_argument("--out", type=Path, default=None)
    p.add_argument("--fit", type=Path, nargs="+", default=None, help="fit and report these files")
    p.add_argument(
        "--per-vertex", action="store_true", help="clique_counts_per_vertex instead of counts"
    )
    args = p.parse_args(argv)
    if args.fit is not None:
        result = fit([r for f in args.fit for r in json.loads(f.read_text())["rows"]])
        print(json.dumps(result, indent=1))
        return 0
    lo, _, hi = args.ks.partition("-")
    ks = list(range(int(lo), int(hi or lo) + 1))
    names = (args.graphs if args.graphs is not None else list(VALIDATION)) + args.shared
    truth = ground_truth()
    rows = []
    print(
        f"{'graph':18s} {'split':6s} {'k':>2s} {'kcminer_ms':>10s} {'pivot_ms':>10s} "
        f"{'auto':8s} {'x_best':>6s} {'work':>9s} {'branch':>6s} {'est_ms':>8s} {'auto_ms':>8s} ok"
    )
    for name in names:
        graph = VALIDATION[name]() if name in VALIDATION else load_graph(name)
        graph = jax.device_put(graph, jax.devices()[0])
        rows += measure_graph(
            name,
            graph,
            ks,
            repeats=args.repeats,
            budget=args.budget,
            max_work=args.max_work,
            truth=truth,
            per_vertex=args.per_vertex,
        )
        if args.out is not None:  # after every graph: a cut run keeps what it measured
            write_results(args.out, jax.devices()[0], args.repeats, rows, TIMER)
    return 0 if all(r["correct"] for r in rows) else 1


if __name__ == "__main__":
    raise SystemExit(main())
