"""The ``kcjax`` command line: count, info and demo.

Usage errors and bad input (a missing file, a malformed line, k < 1, ...)
print one line ``kcjax: error: ...`` on stderr and exit with 2; a failure
while computing exits with 1; Ctrl-C exits with 130. A graph with no edges is
valid input: its counts are zero (``n`` for k = 1 still counts its vertices).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import re
import sys
import threading
import time
from collections.abc import Callable, Sequence
from typing import Any, NoReturn

import jax
import numpy as np
from tqdm import tqdm

from kcjax import __version__
from kcjax.cliques import METHODS, count_cliques
from kcjax.generators import rmat
from kcjax.graph import Graph
from kcjax.io import GraphFormatError, load
from kcjax.orient import ORDERS, degeneracy, orient

#: Target number of task chunks of a count (progress granularity vs. overhead).
_CHUNKS = 100
#: The demo's default graph: a seeded R-MAT that counts k = 3..8 in seconds.
_DEMO_SCALE, _DEMO_EDGE_FACTOR, _DEMO_SEED = 15, 4, 0
_DEMO_KS = tuple(range(3, 9))


class _UsageError(Exception):
    """Bad command-line usage or input: exit status 2."""


class _KernelStillRunning(KeyboardInterrupt):
    """Ctrl-C while a native kernel runs: it cannot be cancelled, so the process exits."""


class _Parser(argparse.ArgumentParser):
    """An ArgumentParser whose errors raise instead of printing usage and exiting."""

    def error(self, message: str) -> NoReturn:
        raise _UsageError(message)


def main(argv: Sequence[str] | None = None) -> int:
    """Runs the ``kcjax`` command.

    Args:
      argv: the arguments after the program name (``None``: ``sys.argv[1:]``).

    Returns:
      The exit status: 0 on success, 1 if a computation failed, 2 for bad
      usage or input, 130 when interrupted.
    """
    parser = _build_parser()
    try:
        args = parser.parse_args(argv)
        return args.run(args)
    except SystemExit as done:  # --help, --version
        return done.code if isinstance(done.code, int) else 0
    except KeyboardInterrupt as interrupt:
        sys.stdout.flush()
        print("kcjax: interrupted", file=sys.stderr, flush=True)
        if isinstance(interrupt, _KernelStillRunning):
            os._exit(130)
        return 130
    except (_UsageError, GraphFormatError, OSError, ValueError) as err:
        _fail(_describe(err))
        return 2
    except (jax.errors.JaxRuntimeError, MemoryError) as err:
        _fail(_describe(err))
        return 1


def _build_parser() -> _Parser:
    parser = _Parser(prog="kcjax", description="Exact k-clique counting on JAX devices.")
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    count = sub.add_parser(
        "count",
        help="count k-cliques of a graph file",
        description="Count the k-cliques of a graph file exactly. A graph without edges "
        "counts zero cliques of every size k >= 2.",
    )
    count.add_argument("graph", help="edge list (.txt/.el/.gz), Matrix Market (.mtx) or .npz")
    count.add_argument(
        "-k",
        dest="ks",
        action="append",
        type=_k_values,
        required=True,
        metavar="K",
        help="clique size, or a range like 3-8; repeatable",
    )
    _add_count_options(count)
    count.set_defaults(run=_run_count)

    info = sub.add_parser("info", help="print a graph's size, degrees, degeneracy, triangles")
    info.add_argument("graph", help="graph file")
    info.add_argument("--json", action="store_true", help="print one JSON object")
    info.add_argument("--threads", type=_threads, default=0, help="CPU threads (0: all)")
    info.set_defaults(run=_run_info)

    demo = sub.add_parser(
        "demo",
        help="count k = 3..8 on a generated graph (or on GRAPH)",
        description=f"Count k-cliques for k = 3..8 on a seeded R-MAT graph (scale "
        f"{_DEMO_SCALE}, edge factor {_DEMO_EDGE_FACTOR}) or on GRAPH.",
    )
    demo.add_argument("graph", nargs="?", help="graph file (default: generated R-MAT)")
    _add_count_options(demo)
    demo.set_defaults(run=_run_demo, ks=[list(_DEMO_KS)])
    return parser


def _add_count_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--order", choices=ORDERS, default="degree", help="orientation order")
    p.add_argument("--method", choices=METHODS, default="auto", help="counting method")
    p.add_argument("--threads", type=_threads, default=0, help="CPU threads (0: all)")
    p.add_argument("--json", action="store_true", help="print one JSON object when done")
    p.add_argument("-q", "--quiet", action="store_true", help="no progress bar")


def _k_values(text: str) -> list[int]:
    """Parses ``-k`` values: ``5`` or an inclusive range ``3-8``."""
    match = re.fullmatch(r"(-?\d+)(?:-(-?\d+))?", text.strip())
    if match is None:
        raise argparse.ArgumentTypeError(
            f"invalid clique size {text!r} (expected K or a range K1-K2)"
        )
    lo, hi = match.groups()
    ks = list(range(int(lo), int(hi if hi is not None else lo) + 1))
    if not ks:
        raise argparse.ArgumentTypeError(f"empty clique-size range {text!r}")
    if ks[0] < 1:
        raise argparse.ArgumentTypeError(f"clique size k must be >= 1, got {ks[0]}")
    return ks


def _threads(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = -1
    if value < 0:
        raise argparse.ArgumentTypeError(f"invalid thread count {text!r} (expected N >= 0)")
    return value


def _run_count(args: argparse.Namespace) -> int:
    graph, load_s = _timed(lambda: load(args.graph))
    return _count_and_report(args, graph, args.graph, load_s)


def _run_demo(args: argparse.Namespace) -> int:
    if args.graph is not None:
        graph, load_s = _timed(lambda: load(args.graph))
        name = args.graph
    else:
        graph, load_s = _timed(lambda: rmat(_DEMO_SCALE, _DEMO_EDGE_FACTOR, seed=_DEMO_SEED))
        name = f"rmat(scale={_DEMO_SCALE}, edge_factor={_DEMO_EDGE_FACTOR}, seed={_DEMO_SEED})"
    return _count_and_report(args, graph, name, load_s)


def _count_and_report(args: argparse.Namespace, graph: Graph, name: str, load_s: float) -> int:
    ks = sorted({k for group in args.ks for k in group})
    dag, orient_s = _timed(lambda: orient(graph, order=args.order))
    m = dag.num_edges
    with tqdm(
        total=m,
        desc="counting",
        unit="task",
        file=sys.stderr,
        disable=args.quiet or not sys.stderr.isatty(),
        leave=False,
    ) as bar:

        def progress(done: int, _total: int) -> None:
            bar.update(done - bar.n)

        counts, count_s = _interruptible(
            lambda: count_cliques(
                dag,
                ks,
                method=args.method,
                num_threads=args.threads,
                chunk_size=max(1, math.ceil(m / _CHUNKS)),
                progress=progress,
            )
        )
    times = {"load_s": load_s, "orient_s": orient_s, "count_s": count_s}
    if args.json:
        _print_json(
            {
                "graph": name,
                "num_nodes": graph.num_nodes,
                "num_edges": graph.num_edges,
                "order": args.order,
                "method": args.method,
                "counts": {str(k): counts[k] for k in ks},
                "times": times,
            }
        )
        return 0
    lines = [
        f"graph   {name}",
        f"        n = {graph.num_nodes:,}  m = {graph.num_edges:,}",
        f"order   {args.order}   method {args.method}",
        *(f"k = {k:<4d}{counts[k]:>{_width(counts)},}" for k in ks),
        f"time    load {load_s:.3f} s  orient {orient_s:.3f} s  count {count_s:.3f} s",
    ]
    print("\n".join(lines))
    return 0


def _run_info(args: argparse.Namespace) -> int:
    (graph, report), load_s = _timed(lambda: load(args.graph, return_report=True))
    degrees = np.asarray(graph.degrees())
    stats: dict[str, Any] = {
        "graph": args.graph,
        "num_nodes": graph.num_nodes,
        "num_edges": graph.num_edges,
        "isolated_nodes": int(np.sum(degrees == 0)),
        "self_loops_dropped": report.self_loops,
        "duplicates_dropped": report.duplicates,
        "max_degree": int(degrees.max(initial=0)),
        "degeneracy": int(degeneracy(graph)),
    }
    for order in ORDERS:
        stats[f"max_out_degree_{order}"] = int(orient(graph, order=order).max_out_degree())
    stats["triangles"] = count_cliques(graph, 3, num_threads=args.threads)
    stats["load_s"] = load_s
    if args.json:
        _print_json(stats)
    else:
        width = max(map(len, stats))
        print("\n".join(f"{key:<{width}}  {_fmt(value)}" for key, value in stats.items()))
    return 0


def _interruptible(fn: Callable[[], Any]) -> tuple[Any, float]:
    """Like :func:`_timed`, but runs ``fn`` in a worker thread so Ctrl-C is seen at once.

    A wait inside a native kernel does not return to Python until the kernel
    ends, so the main thread only waits on the worker. Ctrl-C while the worker
    runs raises :class:`_KernelStillRunning` (main then exits the process).
    """
    outcome: dict[str, Any] = {}

    def work() -> None:
        try:
            outcome["value"] = _timed(fn)
        except BaseException as err:  # re-raised in the main thread
            outcome["error"] = err

    worker = threading.Thread(target=work, name="kcjax-count", daemon=True)
    worker.start()
    try:
        while worker.is_alive():
            worker.join(0.1)
    except KeyboardInterrupt:
        if worker.is_alive():
            raise _KernelStillRunning from None
        raise
    if "error" in outcome:
        raise outcome["error"]
    return outcome["value"]


def _timed(fn: Callable[[], Any]) -> tuple[Any, float]:
    """Runs ``fn`` to completion (device work included); (result, seconds)."""
    start = time.perf_counter()
    result = jax.block_until_ready(fn())
    return result, time.perf_counter() - start


def _width(counts: dict[int, int]) -> int:
    return max(len(f"{c:,}") for c in counts.values()) + 2


def _fmt(value: Any) -> str:
    if isinstance(value, float):
        return f"{value:.3f}"
    return f"{value:,}" if isinstance(value, int) else str(value)


def _print_json(obj: dict[str, Any]) -> None:
    sys.stdout.write(json.dumps(obj, indent=2) + "\n")
    sys.stdout.flush()


def _describe(err: BaseException) -> str:
    if isinstance(err, FileNotFoundError) and err.filename is not None:
        return f"no such file: {err.filename}"
    if isinstance(err, OSError) and err.filename is not None:
        return f"cannot read {err.filename}: {err.strerror}"
    return " ".join(str(err).split()) or type(err).__name__


def _fail(message: str) -> None:
    print(f"kcjax: error: {message}", file=sys.stderr)
