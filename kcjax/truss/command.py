"""The ``kcjax truss`` subcommand (registered by :mod:`kcjax.cli`)."""

from __future__ import annotations

import argparse
from typing import Any

import numpy as np

from kcjax._command import (
    UsageError,
    add_graph_argument,
    file_ids,
    load_graph,
    output_file,
    output_path,
    print_json,
    stages,
    timed,
    write_rows,
)
from kcjax.truss.truss import ALGORITHMS, METHODS, k_truss_mask, truss_numbers


def add_parser(sub: argparse._SubParsersAction) -> None:
    """Adds ``truss`` to the ``kcjax`` subcommands."""
    p = sub.add_parser(
        "truss",
        help="k-truss, maximal k-truss or full truss decomposition of a graph file",
        description="The k-truss (networkx convention: every edge in >= k - 2 triangles of "
        "the truss), the maximal k-truss, or every edge's trussness. -o writes the edges "
        "('u v' lines, the file's vertex ids; 'u v trussness' with --decompose) to a .txt "
        "file.",
    )
    add_graph_argument(p)
    which = p.add_mutually_exclusive_group()
    which.add_argument("-k", type=int, help="the k of the k-truss (>= 2)")
    which.add_argument("--max", action="store_true", help="the maximal k-truss")
    which.add_argument("--decompose", action="store_true", help="every edge's trussness")
    p.add_argument("-o", "--output", metavar="OUT", help="write the edges to OUT.txt")
    p.add_argument("--method", choices=METHODS, default="auto", help="support pass")
    p.add_argument(
        "--algorithm",
        choices=tuple(ALGORITHMS),
        default="hindex",
        help="decomposition algorithm of --max and --decompose (same results)",
    )
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument("-q", "--quiet", action="store_true", help="no progress indicator")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """Runs ``kcjax truss``; returns the exit status."""
    if args.k is None and not args.max and not args.decompose:
        raise UsageError("give one of -k K, --max or --decompose")
    if args.k is not None and args.k < 2:
        raise UsageError(f"k must be >= 2 (the 2-truss is the whole graph), got {args.k}")
    out = output_path(args, (".txt",))
    names = ["loading", "truss" if args.k is not None else "decomposing", "writing"]
    with stages(names, quiet=args.quiet or args.json) as step:
        step(names[0])
        graph, load_s = load_graph(args)
        step(names[1])
        if args.k is not None:
            mask, truss_s = timed(lambda: k_truss_mask(graph, args.k, method=args.method))
            k, trussness = args.k, None
            keep = np.asarray(mask)
        else:
            trussness, truss_s = timed(
                lambda: truss_numbers(graph, method=args.method, algorithm=args.algorithm)
            )
            trussness = np.asarray(trussness)
            k = int(trussness.max()) if trussness.size else 0
            keep = trussness >= k if (args.max and k) else np.ones(trussness.size, bool)
        src, dst = (np.asarray(a) for a in graph.edges())
        src, dst = src[keep], dst[keep]
        vertices = int(np.unique(np.concatenate([src, dst])).size)
        if out is not None:
            step(names[2])
            ends = [file_ids(args, src), file_ids(args, dst)]
            cols = ends if trussness is None or args.max else [*ends, trussness]
            with output_file(out) as tmp:
                write_rows(tmp, [np.stack(cols, axis=1)])
    info: dict[str, Any] = {"graph": str(args.graph), "nodes": graph.num_nodes}
    info.update({"edges": graph.num_edges, "load_s": load_s, "truss_s": truss_s})
    if args.decompose:
        levels = np.bincount(trussness, minlength=k + 1) if trussness.size else np.zeros(1, int)
        at_least = np.cumsum(levels[::-1])[::-1]
        info.update({"k_max": k, "truss_edges": {j: int(at_least[j]) for j in range(3, k + 1)}})
    else:
        info.update({"k": k, "truss_edges": int(src.size), "truss_vertices": vertices})
    if args.json:
        print_json(info)
        return 0
    print(f"{args.graph}: {graph.num_nodes:,} vertices, {graph.num_edges:,} edges")
    if args.decompose:
        print(f"  k_max = {k}")
        for j, e in info["truss_edges"].items():
            print(f"  k = {j:<4d} {e:,} edges in the {j}-truss")
    else:
        name = "maximal k-truss" if args.max else "k-truss"
        print(f"  {name}: k = {k}, {src.size:,} edges, {vertices:,} vertices")
    print(f"  load {load_s:.3f} s, truss {truss_s:.3f} s")
    if out is not None:
        print(f"wrote {src.size:,} edges to {out}")
    return 0
