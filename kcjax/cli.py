"""The ``kcjax`` command line: info and demo; count and list, bfs, truss and match come
from each family's ``command.py``.

Usage errors and bad input (a missing file, a malformed line, k < 1, ...)
print one line ``kcjax: error: ...`` on stderr and exit with 2; a failure
while computing exits with 1; Ctrl-C exits with 130. A graph with no edges is
valid input: its counts are zero (``n`` for k = 1 still counts its vertices).
A reader that closes stdout early (``| head``) ends the command quietly.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
from collections.abc import Sequence
from typing import Any, NoReturn

import jax
import numpy as np

from kcjax import __version__
from kcjax._command import (
    UsageError,
    add_graph_argument,
    file_ids,
    load_graph,
    print_json,
    threads,
    timed,
)
from kcjax._interrupts import stop_cleanly
from kcjax.cliques import command as cliques_command
from kcjax.cliques.auto import transitivity
from kcjax.cliques.count import count_cliques
from kcjax.graph.generators import rmat
from kcjax.graph.graph import Graph
from kcjax.graph.io import GraphFormatError
from kcjax.graph.labeled import LabeledGraph
from kcjax.graph.orient import ORDERS, degeneracy, orient
from kcjax.match import command as match_command
from kcjax.match.count import count_embeddings
from kcjax.traversal import command as bfs_command
from kcjax.traversal.bfs import bfs
from kcjax.traversal.validate import validate_bfs_tree
from kcjax.truss import command as truss_command
from kcjax.truss.truss import max_truss

#: Exit status when stdout is closed early (a shell's 128 + SIGPIPE).
_BROKEN_PIPE = 141
#: The demo's default graph: a seeded R-MAT that counts k = 3..8 in seconds.
_DEMO_SCALE, _DEMO_EDGE_FACTOR, _DEMO_SEED = 15, 4, 0
_DEMO_KS = range(3, 9)


class _Parser(argparse.ArgumentParser):
    """An ArgumentParser whose errors raise instead of printing usage and exiting."""

    def error(self, message: str) -> NoReturn:
        raise UsageError(message)


def main(argv: Sequence[str] | None = None) -> int:
    """Runs the ``kcjax`` command.

    Args:
      argv: the arguments after the program name (``None``: ``sys.argv[1:]``).

    Returns:
      The exit status: 0 on success, 1 if a computation failed, 2 for bad
      usage or input, 130 when interrupted (SIGINT), 143 when terminated
      (SIGTERM), 141 (quietly) when stdout was closed early. A signal ends
      the process at once, at any stage, with one line on stderr and no
      partial output file.
    """
    parser = _build_parser()
    try:
        args = parser.parse_args(argv)
        with stop_cleanly("kcjax"):
            return args.run(args)
    except SystemExit as done:  # --help, --version
        return done.code if isinstance(done.code, int) else 0
    except KeyboardInterrupt:
        sys.stdout.flush()
        print("kcjax: interrupted", file=sys.stderr, flush=True)
        return 130
    except BrokenPipeError:
        _quiet_stdout()
        return _BROKEN_PIPE
    except (UsageError, GraphFormatError, OSError, ValueError) as err:
        _fail(_describe(err))
        return 2
    except (jax.errors.JaxRuntimeError, MemoryError) as err:
        _fail(_describe(err))
        return 1


def _quiet_stdout() -> None:
    """Points stdout at /dev/null, so the interpreter's final flush of what the
    closed pipe did not take raises nothing."""
    with contextlib.suppress(OSError, ValueError):
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)


def _build_parser() -> _Parser:
    parser = _Parser(
        prog="kcjax",
        description="Exact graph mining on JAX devices: k-cliques, k-truss, BFS and labeled "
        "subgraph matching.",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    cliques_command.add_parser(sub)
    bfs_command.add_parser(sub)
    truss_command.add_parser(sub)

    info = sub.add_parser(
        "info",
        help="print a graph's size, degrees, degeneracy, triangles",
        description="Print a graph file's vertices and edges (with the self loops and "
        "duplicates dropped on reading), isolated vertices, largest degree, degeneracy, "
        "largest out-degree under each orientation order, triangles and transitivity.",
    )
    add_graph_argument(info)
    info.add_argument("--json", action="store_true", help="print one JSON object")
    info.add_argument("--threads", type=threads, default=0, help="CPU threads (0: all)")
    info.set_defaults(run=_run_info)

    demo = sub.add_parser(
        "demo",
        help="every family on a generated graph (or on GRAPH)",
        description=f"Count k-cliques for k = 3..8 on a seeded R-MAT graph (scale "
        f"{_DEMO_SCALE}, edge factor {_DEMO_EDGE_FACTOR}) or on GRAPH, with a BFS from the "
        "vertex of largest degree, the maximal k-truss and the embeddings of a labeled "
        "triangle under seeded random labels.",
    )
    add_graph_argument(demo, optional=True)
    cliques_command.add_count_options(demo)
    demo.set_defaults(run=_run_demo, ks=[_DEMO_KS])
    match_command.add_parser(sub)
    return parser


def _run_demo(args: argparse.Namespace) -> int:
    if args.graph is not None:
        graph, load_s = load_graph(args)
        name = args.graph
    else:
        graph, load_s = timed(lambda: rmat(_DEMO_SCALE, _DEMO_EDGE_FACTOR, seed=_DEMO_SEED))
        name = f"rmat(scale={_DEMO_SCALE}, edge_factor={_DEMO_EDGE_FACTOR}, seed={_DEMO_SEED})"
    return cliques_command.count_and_report(
        args, graph, name, load_s, extra=_demo_families(graph, args)
    )


def _demo_families(graph: Graph, args: argparse.Namespace) -> tuple[dict[str, Any], list[str]]:
    """One result of every other family on the demo graph: (JSON fields, text lines).

    BFS from the vertex of largest degree (checked by Graph500's validation;
    named by the file's id), the maximal k-truss, and the embeddings of a
    labeled triangle in the graph with seeded random labels (4 labels).
    """
    source = int(np.argmax(np.asarray(graph.degrees()))) if graph.num_nodes else 0
    fields: dict[str, Any] = {}
    lines = []
    if graph.num_nodes:
        result = bfs(graph, source)
        validate_bfs_tree(graph, source, result)
        reached = int(np.sum(np.asarray(result.distances) >= 0))
        shown = int(file_ids(args, source))
        fields["bfs"] = {"source": shown, "reached": reached, "depth": int(result.depth)}
        lines.append(f"bfs     from {shown}: {reached:,} reached, depth {int(result.depth)}")
    k, truss = max_truss(graph)
    fields["max_truss"] = {"k": k, "edges": truss.num_edges}
    lines.append(f"truss   max k-truss k = {k}, {truss.num_edges:,} edges")
    src, dst = (np.asarray(a) for a in graph.edges())
    labels = np.random.default_rng(_DEMO_SEED).integers(0, 4, graph.num_nodes)
    data = LabeledGraph.from_edges(src, dst, labels)
    triangle = LabeledGraph.from_edges([0, 1, 2], [1, 2, 0], [0, 1, 2])
    found = count_embeddings(data, triangle)
    fields["labeled_triangles"] = found
    lines.append(f"match   labeled triangle (labels 0,1,2 of 4): {found:,} embeddings")
    return fields, lines


def _run_info(args: argparse.Namespace) -> int:
    (graph, report), load_s = load_graph(args, return_report=True)
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
        stats[f"max_out_degree_by_{order}"] = int(orient(graph, order=order).max_out_degree())
    stats["triangles"] = count_cliques(graph, 3, num_threads=args.threads)
    stats["transitivity"] = round(transitivity(graph), 6)
    stats["load_s"] = load_s
    if args.json:
        print_json(stats)
    else:
        width = max(map(len, stats))
        print("\n".join(f"{key:<{width}}  {_fmt(value)}" for key, value in stats.items()))
    return 0


def _fmt(value: Any) -> str:
    if isinstance(value, float):
        return f"{value:.3f}"
    return f"{value:,}" if isinstance(value, int) else str(value)


def _describe(err: BaseException) -> str:
    if isinstance(err, FileNotFoundError) and err.filename is not None:
        return f"no such file: {err.filename}"
    if isinstance(err, OSError) and err.filename is not None:
        return f"cannot read {err.filename}: {err.strerror}"
    return " ".join(str(err).split()) or type(err).__name__


def _fail(message: str) -> None:
    print(f"kcjax: error: {message}", file=sys.stderr)
