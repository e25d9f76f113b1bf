"""k-clique counting benchmark: methods side by side on one device.

Scope (as the peers' anchors): the graph is loaded, canonicalized and oriented
on the device first (not timed); each timed call runs the count on the device
and waits for its result. Every (graph, k, method) is warmed up once, then
timed ``--repeats`` times; the median is reported. Counts are checked against
../shared/data/graphs/clique_counts.tsv where it has the value.

Two clocks: ``median_s`` is the wall time of a synchronized call (Python
dispatch and the host wait included); on a GPU ``device_s`` is the median
device span of a call from the JAX profiler (first GPU activity to last, see
devtime.py), the scope of the peers' CUDA-event timers, and ``busy_s`` the
time the GPU worked within it.

Methods: every enumeration method, ``pivot``, ``dense``, ``auto`` (the
device program that eager ``count_cliques`` dispatches for the method it
picks, the peers' scope; the whole eager call, result copy and Python finish
included, is reported beside it as ``eager_median_s``/``eager_device_s``; the
cost estimate the rule reads is memoized after the warm-up and its
first-call time reported); ``METHOD@LAM`` runs
an enumeration method with λ overridden (the λ sweep); ``list`` times
``list_cliques`` into a preallocated device buffer (cliques per second);
``allk`` (pivot) counts every size up to the clique number in one call;
``local`` and ``local_pivot`` time the per-vertex counts (the device program
of ``clique_counts_per_vertex`` by KCMiner enumeration and by the pivot
counter; the count checked is their sum over k).

Usage:
  python experiments/cliques/bench.py --graphs email-Enron com-dblp --ks 4-8 \
      --methods kcminer binary_search pivot --out experiments/results/cliques/x.json
"""

from __future__ import annotations

import argparse
import math
import statistics
import sys
import time
from pathlib import Path

import jax
import numpy as np

import kcjax
from kcjax import (
    ENUMERATION_METHODS,
    clear_memo,
    count_cliques_dense,
    count_cliques_limbs,
    experimental,
    limbs_to_int,
)
from kcjax.experimental import max_out_degree

_HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(_HERE), str(_HERE.parent / "tools")]  # also under python -P
from benchlib import device_span, wall_times, write_results  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
DATA_DIRS = [ROOT / ".gpu" / "graphs", ROOT.parent / "shared" / "data" / "graphs"]
ANCHORS = [
    ROOT / ".gpu" / "peer-best-h200.tsv",
    ROOT.parent / "shared" / "data" / "anchors" / "peer-best-h200.tsv",
]


def _first(paths: list[Path]) -> Path | None:
    return next((p for p in paths if p.exists()), None)


def _ranges(text: str) -> list[int]:
    out: list[int] = []
    for part in text.split(","):
        lo, _, hi = part.partition("-")
        out.extend(range(int(lo), int(hi or lo) + 1))
    return out


def ground_truth() -> dict[tuple[str, int], int]:
    data = _first(DATA_DIRS)
    if data is None:
        return {}
    table = {}
    for line in (data / "clique_counts.tsv").read_text().splitlines()[1:]:
        name, k, count, _ = line.split("\t")
        table[(name, int(k))] = int(count)
    return table


def anchors() -> dict[tuple[str, int], dict[str, float | str]]:
    path = _first(ANCHORS)
    if path is None:
        return {}
    rows = {}
    for line in path.read_text().splitlines()[1:]:
        f = line.split("\t")
        rows[(f[0], int(f[1]))] = {
            "best_any_s": float(f[2]),
            "best_any_peer": f[3],
            "best_enumeration_s": float(f[4]) if f[4] else math.inf,
            "best_enumeration_peer": f[5],
        }
    return rows


def load_graph(name: str) -> kcjax.Graph:
    """A shared graph by name, ``rmatS`` / ``rmatS-EF``: R-MAT of scale S (edge factor EF),
    or ``clN-D``: a Chung-Lu power-law graph of N vertices and average degree D (seed 1)."""
    if name.startswith("cl") and name[2:3].isdigit():
        from kcjax import generators

        n, _, degree = name[2:].partition("-")
        return generators.chung_lu(int(n), float(degree), seed=1)
    if name.startswith("rmat"):
        from kcjax import generators

        scale, _, ef = name[4:].partition("-")
        return generators.rmat(int(scale), edge_factor=int(ef or 16), seed=1)
    data = _first(DATA_DIRS)
    if data is None:
        raise SystemExit(f"no graph directory among {DATA_DIRS}")
    return kcjax.load(data / f"{name}.el.gz")


class Timing(dict):
    """median_s, times_s, pipelined_s and (on a GPU) device_s, busy_s."""


#: Rows of the largest listing buffer the "list" method allocates (int32[rows, k]
#: plus the id mapping and row sort): larger listings time their first rows.
LIST_MAX_ROWS = 1 << 27


def load_dag_via_cpu(name: str, order: str = "degree") -> kcjax.DAG:
    """Loads and orients a graph on the host CPU backend, then moves the DAG to
    the default device: keeps XLA's GPU compilations (and the kernels they
    autotune) out of runs under compute-sanitizer and Nsight Compute."""
    with jax.default_device(jax.devices("cpu")[0]):
        dag = kcjax.orient(load_graph(name), order=order)
    return jax.device_put(dag, jax.devices()[0])


def _timed(fn, repeats: int, device: bool) -> tuple[Timing, object]:
    """Median of synchronized calls; the per-call time of back-to-back calls;
    with ``device`` also the profiler's device span and busy time.

    The synchronized time includes one Python dispatch and one host wait per
    call; the pipelined time (``repeats`` calls issued before one wait)
    amortizes both.
    """
    jax.block_until_ready(fn())  # warm-up: compile, first launch
    times, out = wall_times(fn, repeats)
    t0 = time.perf_counter()
    jax.block_until_ready([fn() for _ in range(repeats)])
    t = Timing(
        median_s=statistics.median(times),
        times_s=times,
        pipelined_s=(time.perf_counter() - t0) / repeats,
    )
    if device:
        t.update(device_span(fn, repeats))
    return t, out


def _parse_method(method: str) -> tuple[str, float | None]:
    name, _, lam = method.partition("@")
    known = ("auto", "pivot", "dense", "list", "allk", "local", "local_pivot", *ENUMERATION_METHODS)
    if name not in known or (lam and name not in ENUMERATION_METHODS):
        raise SystemExit(f"unknown method {method!r} (one of {known}, or ENUMERATION_METHOD@LAM)")
    return name, float(lam) if lam else None


def bench_one(
    dag: kcjax.DAG, k: int, method: str, repeats: int, device: bool, hint: bool = True
) -> tuple[Timing, int]:
    """Times one (k, method); returns the timing and the count it produced.
    ``hint=False`` runs the enumeration methods without the max_degree hint."""
    name, lam = _parse_method(method)
    if name == "pivot":
        pmax = int(dag.max_out_degree())
        tasks = jax.numpy.arange(dag.num_nodes, dtype=jax.numpy.int32)

        def run():
            return experimental.clique_pivot(
                dag.indptr, dag.indices, tasks, hmax=k, pmax=pmax, kmin=k, num_threads=0
            )

        t, _ = _timed(run, repeats, device)
        return t, kcjax.count_cliques(dag, k, method="pivot")
    if name == "auto":
        # Peer scope: the device program auto dispatches (the chosen method's
        # task ids and custom call, the count left on the device). The eager
        # call (result copy and the Python finish included) is kept beside it.
        clear_memo()
        t0 = time.perf_counter()
        kcjax.clique_cost_estimate(dag, k)
        first = time.perf_counter() - t0
        chose = experimental.auto_method(dag, k)
        if chose == "pivot":
            pmax = int(dag.max_out_degree())

            def program():
                return experimental.pivot_chunk(
                    dag.indptr,
                    dag.indices,
                    None,
                    hmax=k,
                    pmax=pmax,
                    kmin=k,
                    num_threads=0,
                    step=dag.num_nodes,
                    total=dag.num_nodes,
                )
        else:

            def program():
                return experimental.enumeration_chunk(
                    dag,
                    None,
                    kmax=k,
                    method=chose,
                    lam=None,
                    num_threads=0,
                    step=dag.num_edges,
                    total=dag.num_edges,
                    max_degree=max_out_degree(dag),
                )

        t, _ = _timed(program, repeats, device)
        eager, count = _timed(lambda: kcjax.count_cliques(dag, k, method="auto"), repeats, device)
        t.update(
            chose=chose,
            estimate_first_call_s=first,
            eager_median_s=eager["median_s"],
            eager_device_s=eager.get("device_s"),
        )
        return t, count
    if name in ("local", "local_pivot"):
        if name == "local_pivot":
            roots = jax.numpy.arange(dag.num_nodes, dtype=jax.numpy.int32)

            def run():
                return experimental.clique_pivot_local(
                    dag.indptr, dag.indices, roots, k=k, num_threads=0
                )
        else:
            edges = jax.numpy.arange(dag.num_edges, dtype=jax.numpy.int32)

            def run():
                return experimental.clique_per_vertex(
                    dag.indptr,
                    dag.indices,
                    dag.src,
                    edges,
                    k=k,
                    method=ENUMERATION_METHODS["kcminer"],
                    lam=-1.0,
                    num_threads=0,
                )

        t, out = _timed(run, repeats, device)
        total = sum(limbs_to_int(row) for row in np.asarray(out))
        if total % k:
            raise SystemExit(f"{method} k={k}: per-vertex counts sum to {total}, not a multiple")
        return t, total // k
    if name == "allk":
        t, counts = _timed(lambda: kcjax.count_all_cliques(dag), repeats, device)
        t["sizes"] = len(counts)
        return t, counts.get(k, 0)
    if name == "list":
        total = int(kcjax.count_cliques(dag, k, method="pivot"))
        cap = max(1, min(total, LIST_MAX_ROWS))
        full = cap < total  # stop once the buffer is full: throughput of the first rows

        fn = jax.jit(lambda d: kcjax.list_cliques(d, k, cap, stop_when_full=full))
        t, (_, count, _) = _timed(lambda: fn(dag), repeats, device)
        listed = limbs_to_int(np.asarray(count))
        written = min(listed, cap)
        t.update(rows_written=written, cliques_total=total, partial=full)
        t["cliques_per_s"] = written / t.get("device_s", t["median_s"])
        # A partial listing's count is not the total: report the pivot count.
        return t, total if full else listed
    if name == "dense":
        t, out = _timed(lambda: count_cliques_dense(dag, k), repeats, device)
        return t, limbs_to_int(np.asarray(out)[k])
    # The max_degree hint, as eager count_cliques passes it (a Python int).
    max_degree = int(dag.max_out_degree()) if hint else None
    fn = jax.jit(lambda d: count_cliques_limbs(d, k, method=name, lam=lam, max_degree=max_degree))
    t, out = _timed(lambda: fn(dag), repeats, device)
    return t, limbs_to_int(np.asarray(out)[k])


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--graphs", nargs="+", default=["email-Enron", "com-dblp"])
    p.add_argument("--ks", default="4-8", help="sizes, e.g. 4-8 or 4,6")
    p.add_argument("--methods", nargs="+", default=["kcminer", "pivot"])
    p.add_argument("--repeats", type=int, default=5)
    p.add_argument("--order", default="degree", choices=kcjax.ORDERS)
    p.add_argument("--budget", type=float, default=30.0, help="skip slower methods at larger k (s)")
    p.add_argument("--out", type=Path, default=None)
    p.add_argument("--no-device-timer", action="store_true", help="skip the profiler pass on a GPU")
    p.add_argument(
        "--no-hint",
        action="store_true",
        help="enumeration methods without the max_degree hint (the classes read back first)",
    )
    args = p.parse_args(argv)

    device = jax.devices()[0]
    use_profiler = device.platform == "gpu" and not args.no_device_timer
    for method in args.methods:
        _parse_method(method)
    truth, anchor = ground_truth(), anchors()
    rows = []
    for name in args.graphs:
        t0 = time.perf_counter()
        graph = load_graph(name)
        t_load = time.perf_counter() - t0
        t0 = time.perf_counter()
        dag = jax.block_until_ready(kcjax.orient(graph, order=args.order))
        t_orient = time.perf_counter() - t0
        print(
            f"# {name}: n={graph.num_nodes} m={graph.num_edges} load {t_load:.2f}s "
            f"orient {t_orient:.2f}s max_out={int(dag.max_out_degree())}",
            file=sys.stderr,
        )
        too_slow: set[str] = set()
        for k in _ranges(args.ks):
            for method in args.methods:
                if method in too_slow:
                    continue
                t, count = bench_one(
                    dag, k, method, args.repeats, use_profiler, hint=not args.no_hint
                )
                want = truth.get((name, k))
                row = {
                    "graph": name,
                    "k": k,
                    "method": method,
                    "order": args.order,
                    **t,
                    "count": str(count),
                    "correct": None if want is None else count == want,
                    **anchor.get((name, k), {}),
                }
                rows.append(row)
                print(
                    f"{name:14s} k={k:2d} {method:14s} {t['median_s']:10.6f}s "
                    f"device {t.get('device_s', math.nan):10.6f}s count={count} "
                    f"ok={row['correct']}",
                    file=sys.stderr,
                    flush=True,
                )
                if args.out:  # after every row, so a run cut short keeps its rows
                    write_results(args.out, device, args.repeats, rows, BENCH_TIMER)
                if t["median_s"] * (2 * args.repeats + 1) > args.budget:
                    too_slow.add(method)
    if args.out:
        write_results(args.out, device, args.repeats, rows, BENCH_TIMER)
    _print_table(rows)
    return 0 if all(r["correct"] is not False for r in rows) else 1


BENCH_TIMER = (
    "median_s: wall clock around a synchronized call on a device-resident oriented "
    "graph; device_s/busy_s: JAX profiler (CUPTI) span/busy time of the call's GPU work"
)


def _print_table(rows: list[dict]) -> None:
    """Ratios are peer time / our time (> 1: we are faster), on the device clock
    where there is one, else on the wall clock."""
    print(
        f"{'graph':14s} {'k':>2s} {'method':14s} {'wall_s':>10s} {'device_s':>10s} "
        f"{'best_enum':>10s} {'x_enum':>7s} {'best_any':>10s} {'x_any':>7s} ok"
    )
    for r in rows:
        ours = r.get("device_s", r["median_s"])
        be, ba = r.get("best_enumeration_s"), r.get("best_any_s")
        xe = f"{be / ours:7.2f}" if be and math.isfinite(be) else "      -"
        xa = f"{ba / ours:7.2f}" if ba else "      -"
        print(
            f"{r['graph']:14s} {r['k']:2d} {r['method']:14s} {r['median_s']:10.6f} "
            f"{r.get('device_s', math.nan):10.6f} "
            f"{be if be else math.nan:10.6f} {xe} {ba if ba else math.nan:10.6f} {xa} "
            f"{r['correct']}"
        )


if __name__ == "__main__":
    raise SystemExit(main())
