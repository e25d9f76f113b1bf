"""The front door: every family's eager public call against the jitted form of the same work.

For each shared graph and each op, after a warm-up (so compilation and the
per-graph memos are out of the numbers):

* ``eager``: the public call as a user writes it (``kcjax.bfs(G, s)``,
  ``kcjax.count_cliques(dag, k)``, ``kcjax.truss_numbers(G)``,
  ``kcjax.count_embeddings(data, q)``, ...);
* ``jit``: the same work as one ``jax.jit`` program taking the graph as an
  argument (``jax.jit(lambda g, s: kcjax.bfs(g, s))``, the limbs of
  ``count_cliques`` under jit, the truss ops on ``kcjax.prepare_truss(g)``,
  ``count_embeddings_limbs``; for ``method="pivot"`` (eager only) its
  histogram program), its count read to the host as the eager call reads it.

Each gets the device span and busy time (JAX profiler, devtime.py; median of
``--repeats``) and the wall clock of synchronized calls (median), plus the
GPU activities of one call of each (kernels, copies, memsets: where an eager
call does more than its jitted form). ``--first-call`` adds, per family, the
first call's wall clock in a fresh process with an empty compilation cache
and again in a second process that finds the cache warm (the cost a user
pays on a new Python process), and for matching the compilations a new
query of an already seen vertex count triggers.

Run from the repository root (one H200: about 3 minutes)::

    python3 -P experiments/tools/front_door.py --out experiments/results/front_door/h200.json

On a machine without a GPU the device columns are empty and only wall
clocks are reported (CPU handlers). A short table is printed last.
"""

from __future__ import annotations

import argparse
import csv
import itertools
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "experiments" / "tools"))

import devtime  # noqa: E402
from benchlib import SHARED_GRAPHS, wall_times, write_results  # noqa: E402

import kcjax  # noqa: E402

SHARED = next(
    (p for p in (ROOT.parent / "shared" / "data", ROOT / ".gpu") if (p / "graphs").exists()),
    ROOT.parent / "shared" / "data",
)
MATCH_GRAPHS = ("hprd", "yeast", "human", "email-Enron", "ca-AstroPh")
FAMILIES = ("bfs", "cliques", "truss", "match")


def _measure(pairs: list[tuple], repeats: int, sink) -> list[dict]:
    """Times every (family, graph, op, eager, jitted, extra) pair: warm-ups, wall
    clocks, then one profiler session for all of them; each row goes to ``sink``."""
    fns = {}
    for _, _, op, eager, jitted, _ in pairs:
        fns[f"{op}|eager"], fns[f"{op}|jit"] = eager, jitted
    walls = {}
    for label, fn in fns.items():
        jax.block_until_ready(fn())  # compile, fill the memos
        jax.block_until_ready(fn())
        walls[label] = statistics.median(wall_times(fn, repeats)[0])
    spans = devtime.labeled_times(fns, repeats)
    rows = []
    for family, graph, op, _, _, extra in pairs:
        row = {"family": family, "graph": graph, "op": op, **extra}
        for side in ("eager", "jit"):
            label = f"{op}|{side}"
            row[side] = {"wall_s": walls[label]}
            if label in spans:
                span = spans[label]
                row[side].update(span_s=span["span_s"], busy_s=span["busy_s"])
                row[f"{side}_activities"] = _runs([_short(a) for a in span["activities"]])
        row["span_ratio"] = _ratio(row, "span_s")
        row["wall_extra_s"] = row["eager"]["wall_s"] - row["jit"]["wall_s"]
        sink(row)
        rows.append(row)
    return rows


def _short(activity: str) -> str:
    """A kernel's name without its namespace, template and parameter lists, and an XLA
    kernel's without its numbered suffixes (``sort_16_1__3`` -> ``sort``)."""
    name = activity.split("(")[0].split("<")[0].strip()
    return re.sub(r"(_+\d+)+$", "", name.removeprefix("void ").split("::")[-1])


def _runs(names: list[str], keep: int = 60) -> list[str]:
    """Repeats of one name folded into ``"name xN"``; past ``keep`` entries, a count."""
    runs = [n if (c := len(list(g))) == 1 else f"{n} x{c}" for n, g in itertools.groupby(names)]
    return runs if len(runs) <= keep else [*runs[:keep], f"... {len(runs) - keep} more"]


def _first_source(graph: str) -> int:
    with open(SHARED / "bfs" / "bfs_truth.tsv") as f:
        for r in csv.DictReader(f, delimiter="\t"):
            if r["graph"] == graph:
                return int(r["source"])
    return 0


def bfs_pairs(name: str) -> list[tuple]:
    program = jax.jit(lambda g, s: kcjax.bfs(g, s))
    g = jax.block_until_ready(kcjax.load(SHARED / "graphs" / f"{name}.el.gz"))
    s = _first_source(name)
    src = jnp.int32(s)
    return [
        (
            "bfs",
            name,
            "bfs",
            lambda: kcjax.bfs(g, s),
            lambda: program(g, src),
            {"source": s},
        )
    ]


def cliques_pairs(name: str, ks: list[int]) -> list[tuple]:
    from kcjax.experimental import pivot_chunk  # the pivot counter's one program

    dag = jax.block_until_ready(kcjax.orient(kcjax.load(SHARED / "graphs" / f"{name}.el.gz")))
    pmax = int(dag.max_out_degree())
    pairs = []
    for k in ks:
        kcminer = jax.jit(lambda d, k=k: kcjax.count_cliques(d, k, method="kcminer"))
        pivot = jax.jit(
            lambda d, k=k: pivot_chunk(
                d.indptr,
                d.indices,
                None,
                hmax=k,
                pmax=pmax,
                kmin=k,
                num_threads=0,
                step=d.num_nodes,
                total=d.num_nodes,
            )
        )
        picked = kcjax.experimental.auto_method(dag, k)
        jitted = kcminer if picked != "pivot" else pivot
        pairs.append(
            (
                "cliques",
                name,
                f"count k={k} auto ({picked})",
                lambda k=k: kcjax.count_cliques(dag, k),
                lambda f=jitted: np.asarray(f(dag)),
                {"k": k, "method": "auto", "picked": picked},
            )
        )
        pairs.append(
            (
                "cliques",
                name,
                f"count k={k} kcminer",
                lambda k=k: kcjax.count_cliques(dag, k, method="kcminer"),
                lambda f=kcminer: np.asarray(f(dag)),
                {"k": k, "method": "kcminer"},
            )
        )
    return pairs


def truss_pairs(name: str) -> list[tuple]:
    g = jax.block_until_ready(kcjax.load(SHARED / "graphs" / f"{name}.el.gz"))
    # The jitted pipeline takes the prepared graph (an older tree: the plain graph, whose
    # traced calls rebuild the edge index and read the store's size back).
    arg = kcjax.prepare_truss(g) if hasattr(kcjax, "prepare_truss") else g
    numbers = jax.jit(lambda t: kcjax.truss_numbers(t))
    support = jax.jit(lambda t: kcjax.edge_support(t))
    mask = jax.jit(lambda t: kcjax.k_truss_mask(t, 4))
    extra = {"jit_argument": type(arg).__name__}
    return [
        (
            "truss",
            name,
            "truss_numbers",
            lambda: kcjax.truss_numbers(g),
            lambda: numbers(arg),
            extra,
        ),
        ("truss", name, "edge_support", lambda: kcjax.edge_support(g), lambda: support(arg), extra),
        (
            "truss",
            name,
            "k_truss_mask k=4",
            lambda: kcjax.k_truss_mask(g, 4),
            lambda: mask(arg),
            extra,
        ),
    ]


def _queries(graph: str, limit: int) -> list[str]:
    with open(SHARED / "matching" / "counts.tsv") as f:
        names = [r["query"] for r in csv.DictReader(f, delimiter="\t") if r["data_graph"] == graph]
    return names[:limit]


def match_pairs(name: str, per_graph: int) -> list[tuple]:
    data = jax.block_until_ready(kcjax.load_labeled(SHARED / "matching" / f"{name}.graph.gz"))
    pairs = []
    for qname in _queries(name, per_graph):
        query = kcjax.load_labeled(SHARED / "matching" / "queries" / name / f"{qname}.graph")
        jitted = jax.jit(lambda d, q=query: kcjax.count_embeddings_limbs(d, q))
        pairs.append(
            (
                "match",
                name,
                f"count {qname}",
                lambda q=query: kcjax.count_embeddings(data, q),
                lambda f=jitted: np.asarray(f(data)),
                {"query": qname},
            )
        )
    return pairs


# A fresh process: load, then time the first call and a second one (wall clock).
_FIRST_CALL = textwrap.dedent(
    """
    import json, sys, time
    import jax, kcjax
    from jax import monitoring
    compiles = [0]
    monitoring.register_event_duration_secs_listener(
        lambda ev, d, **kw: compiles.__setitem__(
            0, compiles[0] + (ev == "/jax/core/compile/backend_compile_duration")))
    family, graph, arg = sys.argv[1], sys.argv[2], sys.argv[3]
    shared = sys.argv[4]
    if family == "match":
        data = kcjax.load_labeled(f"{shared}/matching/{graph}.graph.gz")
        query = kcjax.load_labeled(f"{shared}/matching/queries/{graph}/{arg}.graph")
        call = lambda: kcjax.count_embeddings(data, query)
    else:
        g = jax.block_until_ready(kcjax.load(f"{shared}/graphs/{graph}.el.gz"))
        call = {
            "bfs": lambda: kcjax.bfs(g, int(arg)),
            "cliques": lambda: kcjax.count_cliques(g, int(arg)),
            "truss": lambda: kcjax.truss_numbers(g),
        }[family]
    c0 = compiles[0]
    t = time.perf_counter(); jax.block_until_ready(call()); first = time.perf_counter() - t
    c1 = compiles[0]
    t = time.perf_counter(); jax.block_until_ready(call()); second = time.perf_counter() - t
    print(json.dumps({"first_s": first, "second_s": second, "compiles": c1 - c0,
                      "compiles_second": compiles[0] - c1}))
    """
)


def first_calls(cases: list[tuple[str, str, str]]) -> list[dict]:
    """Each case in a fresh process with an empty cache, then again with it warm."""
    rows = []
    for family, graph, arg in cases:
        with tempfile.TemporaryDirectory() as cache:
            env = {**os.environ, "KCJAX_COMPILATION_CACHE": cache}
            row = {"family": family, "graph": graph, "arg": arg}
            for label in ("cold_cache", "warm_cache"):
                t = time.perf_counter()
                out = subprocess.run(
                    [sys.executable, "-P", "-c", _FIRST_CALL, family, graph, arg, str(SHARED)],
                    env=env,
                    capture_output=True,
                    text=True,
                    timeout=300,
                )
                total = time.perf_counter() - t
                if out.returncode != 0:
                    row[label] = {"error": out.stderr[-2000:]}
                else:
                    result = json.loads(out.stdout.strip().splitlines()[-1])
                    row[label] = {**result, "process_s": total}
            rows.append(row)
    return rows


def new_query_compiles(graph: str) -> list[dict]:
    """Compilations of each counts.tsv query's first count in one process, in file
    order: a query of an already seen vertex count should compile nothing."""
    from jax import monitoring

    compiles = [0]
    monitoring.register_event_duration_secs_listener(
        lambda ev, d, **kw: compiles.__setitem__(
            0, compiles[0] + (ev == "/jax/core/compile/backend_compile_duration")
        )
    )
    data = jax.block_until_ready(kcjax.load_labeled(SHARED / "matching" / f"{graph}.graph.gz"))
    rows, seen = [], set()
    for qname in _queries(graph, 1000):
        query = kcjax.load_labeled(SHARED / "matching" / "queries" / graph / f"{qname}.graph")
        c0, t = compiles[0], time.perf_counter()
        kcjax.count_embeddings(data, query)
        rows.append(
            {
                "graph": graph,
                "query": qname,
                "vertices": query.num_nodes,
                "size_seen": query.num_nodes in seen,
                "compiles": compiles[0] - c0,
                "wall_s": time.perf_counter() - t,
            }
        )
        seen.add(query.num_nodes)
    return rows


def _ratio(row: dict, key: str) -> float | None:
    e, j = row["eager"].get(key), row["jit"].get(key)
    return e / j if e and j else None


def _print(rows: list[dict]) -> None:
    """One line per row (no rows: the header), flushed."""
    if not rows:
        print(
            f"{'family':8} {'graph':14} {'op':34} {'eager span':>10} {'jit span':>9} {'x':>5} "
            f"{'eager wall':>10} {'jit wall':>9} {'+us':>6}"
        )
    for r in rows:
        e, j = r["eager"], r["jit"]
        span_e, span_j = e.get("span_s", float("nan")), j.get("span_s", float("nan"))
        x = r.get("span_ratio") or float("nan")
        print(
            f"{r['family']:8} {r['graph']:14} {r['op'][:34]:34} {span_e * 1e3:10.3f} "
            f"{span_j * 1e3:9.3f} {x:5.2f} {e['wall_s'] * 1e3:10.3f} {j['wall_s'] * 1e3:9.3f} "
            f"{(e['wall_s'] - j['wall_s']) * 1e6:6.0f}",
            flush=True,
        )


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--out", type=Path, required=True)
    p.add_argument("--families", nargs="*", default=list(FAMILIES), choices=FAMILIES)
    p.add_argument("--graphs", nargs="*", default=list(SHARED_GRAPHS))
    p.add_argument("--match-graphs", nargs="*", default=list(MATCH_GRAPHS))
    p.add_argument("--queries", type=int, default=2, help="counts.tsv queries per data graph")
    p.add_argument("--ks", nargs="*", type=int, default=[4, 5])
    p.add_argument("--repeats", type=int, default=5)
    p.add_argument("--first-call", action="store_true", help="fresh-process first calls")
    p.add_argument("--new-queries", nargs="*", default=[], help="data graphs to replay")
    args = p.parse_args(argv)

    args.out.parent.mkdir(parents=True, exist_ok=True)
    partial = args.out.with_suffix(".rows.jsonl")
    partial.write_text("")

    def sink(row: dict) -> None:  # each row as soon as it is measured (a timeout keeps them)
        with partial.open("a") as f:
            f.write(json.dumps(row) + "\n")
        _print([row])

    _print([])
    groups = []
    if "bfs" in args.families:
        groups += [lambda n=n: bfs_pairs(n) for n in args.graphs]
    if "cliques" in args.families:
        groups += [lambda n=n: cliques_pairs(n, args.ks) for n in args.graphs]
    if "truss" in args.families:
        groups += [lambda n=n: truss_pairs(n) for n in args.graphs]
    if "match" in args.families:
        groups += [lambda n=n: match_pairs(n, args.queries) for n in args.match_graphs]
    rows: list[dict] = []
    for group in groups:
        rows += _measure(group(), args.repeats, sink)
    first = []
    if args.first_call:
        g = args.graphs[0]
        cases = [("bfs", g, str(_first_source(g))), ("cliques", g, "5"), ("truss", g, "0")]
        if args.match_graphs:
            m = args.match_graphs[0]
            cases.append(("match", m, _queries(m, 1)[0]))
        first = first_calls([c for c in cases if c[0] in args.families])
    replay = [row for graph in args.new_queries for row in new_query_compiles(graph)]
    write_results(
        args.out,
        jax.devices()[0],
        args.repeats,
        rows,
        timer="profiler span and busy time (devtime.py) and wall clock, medians",
        first_calls=first,
        new_queries=replay,
        kcjax_has_store_size=hasattr(kcjax, "truss_store_size"),
    )
    for r in first:
        print("first call", r["family"], r["graph"], r["cold_cache"], r["warm_cache"])
    if replay:
        seen = [r for r in replay if r["size_seen"]]
        compiled = sum(r["compiles"] > 0 for r in seen)
        print(f"new queries of a seen size: {compiled} of {len(seen)} compiled")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
