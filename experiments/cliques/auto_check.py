"""``method="auto"`` against KCMiner and pivoting on graphs its rule was not fitted on.

    python -P experiments/cliques/auto_check.py --out F.json [--sets adversarial public shared
        validation] [--modes count per_vertex] [--ks 3-12] [--repeats 3] [--budget 0.3]
        [--deadline 330]
    python -P experiments/cliques/auto_check.py --regret F.json ... [--recompute]
    python -P experiments/cliques/auto_check.py --table F.json

The check on the fourth set (the rule frozen first; one process per GPU on
4 GPUs, each with a ``--graphs`` subset, the rows merged afterwards):

    python -P experiments/cliques/auto_check.py --sets fourth-public \
        --budget 0.2 --deadline 85 --out F.json

Measure mode (one GPU): per graph, for counts (``count_cliques``) and
per-vertex counts (``clique_counts_per_vertex``) at every k, the device span
(JAX profiler, median of ``--repeats`` calls; wall clock without a GPU) of
``method="kcminer"``, ``"pivot"`` and ``"auto"``, with auto's pick and the
device span of its decision's features (:func:`kcjax.cliques.auto.auto_features`
and the out-degree moments, memo cleared; once per DAG). Every call of a
graph runs under one profiler trace. A method whose call at some k took
longer than ``--budget`` seconds is not called at larger k (nor is auto
when it picks it): those rows hold ``"> budget"``; KCMiner is also not
called where the estimate's work passes ``--max-work`` nodes. Counts are
checked: the methods agree with each other, with ../shared's ground truth
and with the sets' counts files (experiments/results/cliques/auto_*_counts.tsv); per-vertex
arrays agree and sum to k times the count. No graph starts after
``--deadline`` seconds; the results file is rewritten after every graph.

Graph sets, measured in this order: ``adversarial`` and ``public``
(auto_graphs.py; ``prepare`` first), ``shared`` (../shared/data/graphs or
.gpu/graphs), ``validation`` (auto_validation.py's generated set, all halves),
``heldout-public`` and ``heldout-adversarial`` (auto_graphs.py's held-out
sets; ``prepare-heldout`` first, into .gpu/auto2), ``third-public`` and
``third-adversarial`` (``prepare-third``, .gpu/auto3), ``fourth-public`` and
``fourth-adversarial`` (``prepare-fourth``, .gpu/auto4: the set no threshold
has seen). With ``--out F.json`` the run also writes F.md, the table of
``--table``.

Table mode: per graph and mode of a results file, the rows, those within
issue 51's target, the worst ratio of auto to the faster method (and its
k), auto's features' device span, then every miss.

Regret mode (any machine): per results row, auto's time over the faster
method's, for the package's rule (the pick recorded by the run, or
recomputed on this machine's CPU from the graph for files written before
the rule changed) and for the rule before issue 51 (auto_validation.py's
OLD_RULE on the row's recorded estimate, where the file has one). A row
misses the target when auto is over 1.5x the faster method and, where both
methods are under 1 ms, also more than 0.3 ms slower.
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

import jax
import numpy as np

_HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(_HERE), str(_HERE.parent / "tools")]  # also under python -P
import auto_graphs  # noqa: E402
import auto_validation  # noqa: E402
from bench import ground_truth, load_graph  # noqa: E402
from benchlib import SHARED_GRAPHS, write_results  # noqa: E402
from devtime import call_spans  # noqa: E402

import kcjax  # noqa: E402
from kcjax import experimental as auto  # noqa: E402
from kcjax.experimental import out_degree_moments  # noqa: E402

TIMER = (
    "*_s: JAX profiler (CUPTI) span of one eager call's GPU work, median of the repeats "
    "(wall clock without a GPU); null with over_budget: not called (the method passed "
    "the budget at a smaller k); features_s: the span of auto's per-DAG features "
    "(out-degree moments and auto_features) with the memo cleared"
)
SETS = ("adversarial", "public", "shared", "validation")
HELDOUT_SETS = ("heldout-public", "heldout-adversarial")
THIRD_SETS = ("third-public", "third-adversarial")
FOURTH_SETS = ("fourth-public", "fourth-adversarial")
METHODS = ("kcminer", "pivot")
MODES = ("count", "per_vertex")
RATIO, SLACK, FAST = 1.5, 3e-4, 1e-3


def builders(sets: list[str]) -> list[tuple[str, str, Callable[[], kcjax.Graph]]]:
    """(set, name, builder) of every graph of the sets, in the sets' order."""
    out = []
    for s in sets:
        if s == "adversarial":
            out += [(s, n, b) for n, b in auto_graphs.ADVERSARIAL.items()]
        elif s == "public":
            out += [(s, n, b) for n, b in auto_graphs.PUBLIC.items()]
        elif s == "shared":
            out += [(s, n, (lambda n=n: load_graph(n))) for n in SHARED_GRAPHS]
        elif s == "validation":
            out += [(s, n, b) for n, b in auto_validation.VALIDATION.items()]
        elif s == "heldout-public":
            out += [(s, n, b) for n, b in auto_graphs.HELDOUT_PUBLIC.items()]
        elif s == "heldout-adversarial":
            out += [(s, n, b) for n, b in auto_graphs.HELDOUT_ADVERSARIAL.items()]
        elif s == "third-public":
            out += [(s, n, b) for n, b in auto_graphs.THIRD_PUBLIC.items()]
        elif s == "third-adversarial":
            out += [(s, n, b) for n, b in auto_graphs.THIRD_ADVERSARIAL.items()]
        elif s == "fourth-public":
            out += [(s, n, b) for n, b in auto_graphs.FOURTH_PUBLIC.items()]
        elif s == "fourth-adversarial":
            out += [(s, n, b) for n, b in auto_graphs.FOURTH_ADVERSARIAL.items()]
        else:
            known = SETS + HELDOUT_SETS + THIRD_SETS + FOURTH_SETS
            raise SystemExit(f"unknown set {s!r}; one of {known}")
    return out


def known_counts() -> dict[tuple[str, int], int]:
    """Exact counts from ../shared's ground truth and the counts files of
    auto_graphs.py's sets."""
    table = ground_truth()
    counts = (
        auto_graphs.COUNTS,
        auto_graphs.HELDOUT_COUNTS,
        auto_graphs.THIRD_COUNTS,
        auto_graphs.FOURTH_COUNTS,
    )
    for path in counts:
        if path.exists():
            for line in path.read_text().splitlines()[1:]:
                name, k, count, _ = line.split("\t")
                if count:
                    table[(name, int(k))] = int(count)
    return table


def _spans(fns: list[Callable[[], object]]) -> list[float]:
    """Per call: device span, or wall seconds where the trace has none."""
    spans = call_spans(fns)
    out = []
    for fn, span in zip(fns, spans, strict=True):
        if span is None:
            t0 = time.perf_counter()
            jax.block_until_ready(fn())
            span = time.perf_counter() - t0
        out.append(span)
    return out


def _call(dag: kcjax.DAG, k: int, method: str, mode: str) -> Callable[[], object]:
    if mode == "per_vertex":
        return lambda: kcjax.clique_counts_per_vertex(dag, k, method=method)
    return lambda: kcjax.count_cliques(dag, k, method=method)


def _timed(fn: Callable[[], object]) -> tuple[object, float]:
    t0 = time.perf_counter()
    out = jax.block_until_ready(fn())
    return out, time.perf_counter() - t0


def _features_s(dag: kcjax.DAG, repeats: int) -> float:
    def fresh():
        kcjax.clear_memo()
        out_degree_moments(dag)
        return auto.auto_features(dag)

    fresh()
    return statistics.median(_spans([fresh] * repeats))


def measure_graph(
    group: str,
    name: str,
    graph: kcjax.Graph,
    ks: list[int],
    *,
    repeats: int,
    budget: float,
    max_work: float,
    truth: dict[tuple[str, int], int],
    modes: tuple[str, ...] = MODES,
) -> list[dict]:
    """Rows of one graph: counts and per-vertex counts (``modes``), every k."""
    dag = kcjax.orient(graph)
    features_s = _features_s(dag, repeats)
    bound = auto.max_out_degree(dag) + 1
    rows, calls = [], []  # calls: (row, key, fn)
    for mode in modes:
        over = {m: False for m in METHODS}
        for k in ks:
            est = kcjax.clique_cost_estimate(dag, max(3, min(k, bound)))
            pick = (
                auto.auto_local_method(dag, k) if mode == "per_vertex" else auto.auto_method(dag, k)
            )
            row = {
                "graph": name,
                "set": group,
                "mode": mode,
                "n": graph.num_nodes,
                "m": graph.num_edges,
                "k": k,
                "auto": pick,
                "features_s": features_s,
                "enumeration_work": est.enumeration_work,
                "work_bound": est.work_bound,
                "pivot_branching": est.pivot_branching,
                "candidate_size": est.candidate_size,
                "heaviest_root_work": est.heaviest_root_work,
            }
            results = {}
            for method in METHODS:
                if over[method] or (method == "kcminer" and est.enumeration_work > max_work):
                    row[f"{method}_s"] = None
                    row[f"{method}_over_budget"] = True
                    continue
                fn = _call(dag, k, method, mode)
                results[method], wall = _timed(fn)  # compiles and warms up
                if wall > budget:  # compilation, or a long call: time it once more
                    _, wall = _timed(fn)
                if wall > budget:  # too long to repeat: its wall clock, and no larger k
                    row[f"{method}_s"] = wall
                    row[f"{method}_wall_only"] = True
                    over[method] = True
                    continue
                calls += [(row, method, fn)] * repeats
            if row.get(f"{pick}_s", 0.0) is None or row.get(f"{pick}_wall_only"):
                row["auto_s"] = row[f"{pick}_s"]  # the same program, too long to repeat
            else:
                fn = _call(dag, k, "auto", mode)
                _timed(fn)
                calls += [(row, "auto", fn)] * repeats
            row["correct"] = _check(row, results, truth, mode)
            rows.append(row)
    spans = _spans([fn for _, _, fn in calls])
    per: dict[tuple[int, str], list[float]] = {}
    for (row, key, _), span in zip(calls, spans, strict=True):
        per.setdefault((id(row), key), []).append(span)
    for row in rows:
        for method in (*METHODS, "auto"):
            times = per.get((id(row), method))
            if times:
                row[f"{method}_s"] = statistics.median(times)
        print(_line(row), flush=True)
    return rows


def _check(row: dict, results: dict, truth: dict, mode: str) -> bool:
    k = row["k"]
    if mode == "per_vertex":
        arrays = [np.asarray(a).astype(object) for a in results.values()]
        same = all(np.array_equal(a, arrays[0]) for a in arrays)
        if not arrays:
            return True
        total = int(arrays[0].sum())
        row["count"] = str(total // k)
        expected = truth.get((row["graph"], k))
        return same and total % k == 0 and (expected is None or total // k == expected)
    values = set(results.values())
    row["count"] = str(next(iter(values))) if values else None
    expected = truth.get((row["graph"], k))
    return len(values) <= 1 and (expected is None or values <= {expected})


def _line(row: dict) -> str:
    def ms(key):
        t = row.get(f"{key}_s")
        return "  > budget" if t is None else f"{t * 1e3:10.3f}"

    r = regret(row, row["auto"])
    return (
        f"{row['graph']:20s} {row['mode']:10s} {row['k']:2d} {ms('kcminer')} {ms('pivot')} "
        f"{ms('auto')} {row['auto']:8s} {r:7.2f} {row['features_s'] * 1e3:7.3f} {row['correct']}"
    )


def _time(row: dict, method: str) -> float:
    t = row.get(f"{method}_s")
    return math.inf if t is None else t


def regret(row: dict, method: str) -> float:
    """method's time over the faster method's (inf: method over budget, the
    other measured; nan: both over budget)."""
    best = min(_time(row, m) for m in METHODS)
    return _time(row, method) / best if math.isfinite(best) else math.nan


def misses(row: dict, method: str) -> bool:
    """Whether picking method misses issue 51's target on this row."""
    best = min(_time(row, m) for m in METHODS)
    t = _time(row, method)
    if not math.isfinite(best) or t <= RATIO * best:
        return False
    both_fast = all(_time(row, m) < FAST for m in METHODS)
    return not (both_fast and t - best <= SLACK)


def _new_picks(rows: list[dict]) -> dict[int, str]:
    """The package's pick for rows recorded before its rule: recomputed from
    the graph (the rule reads only the DAG, so any device gives the GPU pick)."""
    known = auto_validation.VALIDATION | auto_graphs.PUBLIC | auto_graphs.ADVERSARIAL
    known |= auto_graphs.HELDOUT_PUBLIC | auto_graphs.HELDOUT_ADVERSARIAL
    known |= auto_graphs.THIRD_PUBLIC | auto_graphs.THIRD_ADVERSARIAL
    out, dags = {}, {}
    for r in rows:
        name = r["graph"]
        if name not in dags:
            graph = known[name]() if name in known else load_graph(name)
            dags[name] = kcjax.orient(graph)
        dag = dags[name]
        if r.get("mode") == "per_vertex":
            out[id(r)] = auto.auto_local_method(dag, r["k"])
        else:
            out[id(r)] = auto.auto_gpu_method(dag, r["k"])
    return out


def regret_table(files: list[Path], recompute: bool) -> dict:
    """Per file and mode: rows, misses and worst regret of the package's rule
    and of the rule before issue 51."""
    report = {}
    for path in files:
        rows = json.loads(path.read_text())["rows"]
        rows = [r for r in rows if r["k"] >= 3 and math.isfinite(min(_time(r, m) for m in METHODS))]
        picks = _new_picks(rows) if recompute else {id(r): r["auto"] for r in rows}
        for mode in ("count", "per_vertex"):
            sel = [r for r in rows if (r.get("mode") or "count") == mode]
            if not sel:
                continue
            entry = {"rows": len(sel)}
            for rule, pick in (("new", picks.get), ("old", _old_pick)):
                chosen = [(r, pick(id(r)) if rule == "new" else pick(r)) for r in sel]
                chosen = [(r, m) for r, m in chosen if m is not None]
                if not chosen:
                    continue
                ratios = [regret(r, m) for r, m in chosen]
                worst = max(chosen, key=lambda rm: regret(*rm))
                entry[rule] = {
                    "rows": len(chosen),
                    "misses": [
                        f"{r['graph']} k={r['k']} {regret(r, m):.2f}x"
                        for r, m in chosen
                        if misses(r, m)
                    ],
                    "max": max(ratios),
                    "geomean": math.exp(statistics.fmean(math.log(x) for x in ratios)),
                    "within_1.5": sum(x <= RATIO for x in ratios),
                    "worst": f"{worst[0]['graph']} k={worst[0]['k']}",
                }
            report[f"{path.name}:{mode}"] = entry
    return report


def table(rows: list[dict]) -> str:
    """Markdown: per graph and mode, rows, rows within the target, the worst
    ratio of auto to the faster method and auto's features' span; then the misses."""
    lines = [
        "| graph | mode | n | m | rows | within target | worst auto / best | features |",
        "|---|---|---|---|---|---|---|---|",
    ]
    missed = []
    groups: dict[tuple[str, str], list[dict]] = {}
    for r in rows:
        if r["k"] >= 3 and math.isfinite(min(_time(r, m) for m in METHODS)):
            groups.setdefault((r["graph"], r.get("mode") or "count"), []).append(r)
    total = within = 0
    for (graph, mode), sel in groups.items():
        ok = [r for r in sel if not misses(r, r["auto"])]
        worst = max(sel, key=lambda r: regret(r, r["auto"]))
        total, within = total + len(sel), within + len(ok)
        lines.append(
            f"| {graph} | {mode} | {sel[0]['n']:,} | {sel[0]['m']:,} | {len(sel)} | {len(ok)} "
            f"| {regret(worst, worst['auto']):.2f}x (k = {worst['k']}) "
            f"| {sel[0]['features_s'] * 1e3:.2f} ms |"
        )
        missed += [r for r in sel if misses(r, r["auto"])]
    lines.append(f"| all | | | | {total} | {within} | | |")
    if missed:
        lines += ["", "Misses (auto's pick; kcminer, pivot and auto in ms):", ""]
        for r in missed:
            ms = [_time(r, m) * 1e3 for m in (*METHODS, "auto")]
            lines.append(
                f"- {r['graph']} {r.get('mode') or 'count'} k = {r['k']}: {r['auto']}, "
                f"{ms[0]:.3g} / {ms[1]:.3g} / {ms[2]:.3g} ({regret(r, r['auto']):.2f}x)"
            )
    bad = [r for r in rows if not r.get("correct", True)]
    if bad:
        lines += ["", "WRONG COUNTS: " + ", ".join(f"{r['graph']} k={r['k']}" for r in bad)]
    return "\n".join(lines) + "\n"


def _old_pick(row: dict) -> str | None:
    """The rule before issue 51 on the row's recorded estimate (None when the
    row holds the new estimate, which that rule was not fitted to)."""
    if "root_degree" not in row:
        return None
    if row.get("mode") == "per_vertex":
        return auto_validation.pick_per_vertex(row, auto_validation.OLD_PER_VERTEX_RULE)
    return auto_validation.pick(row, auto_validation.OLD_RULE)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--sets", nargs="+", default=list(SETS))
    p.add_argument("--graphs", nargs="+", default=None, help="only these graph names")
    p.add_argument("--modes", nargs="+", choices=MODES, default=list(MODES))
    p.add_argument("--ks", default="3-12")
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--budget", type=float, default=0.3, help="s; skip a method at larger k")
    p.add_argument("--max-work", type=float, default=2e12, help="skip KCMiner above this")
    p.add_argument("--deadline", type=float, default=330.0, help="s; start no graph after it")
    p.add_argument("--out", type=Path, default=None)
    p.add_argument("--regret", type=Path, nargs="+", default=None, help="results files")
    p.add_argument(
        "--recompute", action="store_true", help="--regret: the package's picks from the graphs"
    )
    p.add_argument("--table", type=Path, default=None, help="a results file: its table")
    args = p.parse_args(argv)
    if args.table is not None:
        print(table(json.loads(args.table.read_text())["rows"]), end="")
        return 0
    if args.regret is not None:
        print(json.dumps(regret_table(args.regret, args.recompute), indent=1))
        return 0
    lo, _, hi = args.ks.partition("-")
    ks = list(range(int(lo), int(hi or lo) + 1))
    truth = known_counts()
    start = time.perf_counter()
    rows: list[dict] = []
    graphs = builders(args.sets)
    if args.graphs is not None:  # names outside the sets: load_graph's (rmatS-EF, clN-D)
        known = {name for _, name, _ in graphs}
        graphs = [g for g in graphs if g[1] in args.graphs]
        graphs += [("extra", n, (lambda n=n: load_graph(n))) for n in args.graphs if n not in known]
    for group, name, build in graphs:
        if time.perf_counter() - start > args.deadline:
            print(f"deadline: {name} and later graphs not measured", flush=True)
            break
        graph = jax.device_put(build(), jax.devices()[0])
        kcjax.clear_memo()
        rows += measure_graph(
            group,
            name,
            graph,
            ks,
            repeats=args.repeats,
            budget=args.budget,
            max_work=args.max_work,
            truth=truth,
            modes=tuple(args.modes),
        )
        if args.out is not None:
            write_results(args.out, jax.devices()[0], args.repeats, rows, TIMER)
            args.out.with_suffix(".md").write_text(table(rows))
    bad = [f"{r['graph']} {r['mode']} k={r['k']}" for r in rows if not r["correct"]]
    if bad:
        print("WRONG COUNTS:", ", ".join(bad), flush=True)
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
