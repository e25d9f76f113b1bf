"""The ``kcjax bfs`` subcommand (registered by :mod:`kcjax.cli`)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import jax
import numpy as np

from kcjax._command import (
    UsageError,
    add_graph_argument,
    file_ids,
    graph_ids,
    load_graph,
    output_file,
    output_path,
    print_json,
    stages,
    timed,
    write_npy,
)
from kcjax.traversal.bfs import METHODS, bfs
from kcjax.traversal.kernels import DIRECTIONS


def add_parser(sub: argparse._SubParsersAction) -> None:
    """Adds ``bfs`` to the ``kcjax`` subcommands."""
    p = sub.add_parser(
        "bfs",
        help="breadth-first search distances from one or many sources",
        description="BFS from -s SOURCE or from --sources (a file of vertex ids, or N: N random "
        "non-isolated vertices, seed 0). Prints per source the vertices reached, the depth, "
        "the sum of distances and the level sizes; -o writes the distances (.npy: int32[n] or "
        "[s, n]; .txt: one row per source), -1 for unreached vertices. Source ids are the "
        "file's, also with --relabel (whose distance columns follow --mapping's order).",
    )
    add_graph_argument(p)
    p.add_argument("-s", "--source", type=int, help="one source vertex id")
    p.add_argument("--sources", metavar="FILE|N", help="file of source ids, or a count N")
    p.add_argument("-o", "--output", metavar="OUT", help="OUT.npy or OUT.txt for the distances")
    p.add_argument("--method", choices=METHODS, default="auto")
    p.add_argument("--direction", choices=tuple(DIRECTIONS), default="auto")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument("-q", "--quiet", action="store_true", help="no progress indicator")
    p.set_defaults(run=run)


def _sources(args: argparse.Namespace, deg: np.ndarray) -> np.ndarray | None:
    """The sources of ``--sources`` as the graph's vertex ids (``None`` for ``-s``)."""
    if (args.source is None) == (args.sources is None):
        raise UsageError("give exactly one of -s SOURCE or --sources FILE|N")
    if args.sources is None:
        return None
    if args.sources.isdigit() and not Path(args.sources).exists():
        count = int(args.sources)
        ok = np.flatnonzero(deg > 0)
        if not 1 <= count <= ok.size:
            raise UsageError(f"--sources N must be in 1..{ok.size} (non-isolated vertices)")
        return np.random.default_rng(0).choice(ok, count, replace=False).astype(np.int32)
    text = Path(args.sources).read_text().split()
    try:
        ids = np.array([int(x) for x in text], np.int64)
    except ValueError:
        raise UsageError(f"{args.sources}: source ids must be integers") from None
    if ids.size == 0:
        raise UsageError(f"{args.sources}: no source ids in the file")
    return graph_ids(args, ids, "source")


def run(args: argparse.Namespace) -> int:
    """Runs ``kcjax bfs``; returns the exit status."""
    out = output_path(args, (".npy", ".txt"))
    if args.sources is not None and not args.sources.isdigit() and not Path(args.sources).exists():
        raise UsageError(f"no such file: {args.sources}")
    with stages(["loading", "searching", "writing"], quiet=args.quiet or args.json) as step:
        step("loading")
        graph, load_s = load_graph(args)
        deg = np.asarray(graph.degrees())
        roots = _sources(args, deg)
        step("searching")
        if roots is None:
            source = int(graph_ids(args, args.source, "source"))
            result, seconds = timed(
                lambda: bfs(graph, source, method=args.method, direction=args.direction)
            )
        else:
            result, seconds = timed(
                lambda: bfs(graph, sources=roots, method=args.method, direction=args.direction)
            )
        dist = np.asarray(jax.block_until_ready(result.distances))
        rows = dist.reshape(-1, graph.num_nodes)
        shown = file_ids(args, [source] if roots is None else roots)
        summary = []
        for s, row in zip(shown.tolist(), rows, strict=True):
            reached = row[row >= 0]
            summary.append(
                {
                    "source": s,
                    "reached": int(reached.size),
                    "depth": int(reached.max()),
                    "dist_sum": int(reached.sum()),
                    "level_sizes": np.bincount(reached).tolist(),
                }
            )
        if out is not None:
            step("writing")
            with output_file(out) as tmp:
                if out.suffix == ".npy":
                    write_npy(tmp, [dist], dist.shape, np.int32)
                else:
                    with tmp.open("wb") as f:
                        np.savetxt(f, rows, fmt="%d")
    if args.json:
        print_json({"graph": args.graph, "load_s": load_s, "seconds": seconds, "sources": summary})
    else:
        for row in summary:
            levels = ",".join(map(str, row["level_sizes"]))
            print(
                f"source {row['source']}: reached {row['reached']}, depth {row['depth']}, "
                f"dist_sum {row['dist_sum']}, levels {levels}"
            )
        print(f"{len(summary)} source(s) in {seconds:.3f} s", file=sys.stderr)
    return 0
