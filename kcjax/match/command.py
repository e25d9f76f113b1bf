"""The ``kcjax match`` subcommand (registered by kcjax/cli.py).

``kcjax match DATA.graph[.gz] QUERY.graph [QUERY...] [--induced] [--list -o FILE] [--json]``
counts (or lists) the embeddings of each query in the data graph. Bad files
raise GraphFormatError/ValueError, which kcjax.cli turns into one line on
stderr and exit status 2.
"""

from __future__ import annotations

import argparse
import os
import time
from typing import Any

import numpy as np

from kcjax._command import UsageError, output_file, output_path, print_json, progress_bar, timed
from kcjax.graph.labeled import load_labeled
from kcjax.match.count import count_embeddings, iter_embeddings
from kcjax.match.query import query_spec
from kcjax.parallel import device_mesh, parse_devices


def add_parser(sub: argparse._SubParsersAction) -> None:
    """Adds the ``match`` subcommand to kcjax's subparsers."""
    p = sub.add_parser(
        "match",
        help="count or list embeddings of labeled query graphs",
        description="Count the embeddings (injective, label-preserving maps taking query edges "
        "to data edges; --induced: non-edges to non-edges too) of each QUERY in DATA. Files in "
        "the .graph format ('t N M', 'v id label degree', 'e u v'; .gz allowed).",
    )
    p.add_argument("data", help="data graph (.graph or .graph.gz)")
    p.add_argument("queries", nargs="+", metavar="QUERY", help="query graph(s) (.graph)")
    p.add_argument("--induced", action="store_true", help="induced matches (subgraph isomorphism)")
    p.add_argument("--list", action="store_true", help="write the embeddings to -o FILE")
    p.add_argument(
        "-o",
        "--output",
        metavar="FILE",
        help="with --list: FILE.txt (rows per query after a '# QUERY' line) or FILE.npy "
        "(one query)",
    )
    p.add_argument("--json", action="store_true", help="print one JSON object when done")
    p.add_argument("-q", "--quiet", action="store_true", help="no progress bar")
    p.add_argument("--threads", type=int, default=0, help="CPU threads (0: all)")
    p.add_argument(
        "--devices",
        type=_devices,
        default=1,
        metavar="N|all",
        help="count on N devices (all: every visible device; default 1); --list lists on one",
    )
    p.set_defaults(run=run)


def _devices(text: str) -> int | str:
    try:
        return parse_devices(text)
    except ValueError as err:
        raise argparse.ArgumentTypeError(str(err)) from None


def run(args: argparse.Namespace) -> int:
    """Runs ``kcjax match``; returns the exit status."""
    if args.list and args.output is None:
        raise UsageError("--list needs -o FILE (.txt or .npy)")
    if args.output is not None and not args.list:
        raise UsageError("-o FILE applies with --list")
    out = output_path(args, (".txt", ".npy"))
    if out is not None and out.suffix == ".npy" and len(args.queries) != 1:
        raise UsageError("a .npy output holds one query's embeddings; use .txt for several")
    if args.threads < 0:
        raise UsageError(f"--threads must be >= 0, got {args.threads}")
    queries = [(path, _checked_query(path)) for path in args.queries]  # all, before any work
    args.mesh = device_mesh(args.devices)
    data, load_s = timed(lambda: load_labeled(args.data))
    bar = progress_bar(queries, quiet=args.quiet or args.json, desc="queries", unit="query")
    if args.list:
        with output_file(out) as tmp, tmp.open("wb") as handle:
            results = [
                _match_one(args, data, path, query, handle, out.suffix) for path, query in bar
            ]
    else:
        results = [_match_one(args, data, path, query, None, "") for path, query in bar]
    if args.json:
        print_json(
            {
                "data": args.data,
                "vertices": data.num_nodes,
                "edges": data.num_edges,
                "induced": args.induced,
                "load_s": load_s,
                "queries": results,
            }
        )
    else:
        for r in results:
            devices = f"\tdevices {r['devices_used']} of {r['devices']}" if "devices" in r else ""
            print(f"{r['query']}\t{r['embeddings']}\t{r['seconds']:.3f} s{devices}")
        if args.list:
            print(f"wrote the embeddings to {args.output}")
    return 0


def _checked_query(path: str) -> Any:
    """The query graph of ``path``, refused (naming the file) if no count could take it."""
    query = load_labeled(path)
    try:
        query_spec(query)
    except ValueError as err:
        raise UsageError(f"{path}: {err}") from None
    return query


def _match_one(
    args: argparse.Namespace, data: Any, path: str, query: Any, handle: Any, suffix: str
) -> dict[str, Any]:
    """Counts one query's embeddings (and writes them to ``handle`` with --list)."""
    start = time.perf_counter()
    mesh = args.mesh
    threads = args.threads
    if mesh is not None and not threads:  # the cores shared among the devices (CPU)
        threads = max(1, (os.cpu_count() or 1) // mesh.devices.size)
    count = count_embeddings(data, query, induced=args.induced, num_threads=threads, mesh=mesh)
    if handle is not None:
        batches = iter_embeddings(data, query, induced=args.induced, num_threads=args.threads)
        if suffix == ".txt":
            handle.write(f"# {path}\n".encode())
            for batch in batches:
                np.savetxt(handle, batch, fmt="%d")
        else:
            rows = list(batches)
            arr = np.concatenate(rows) if rows else np.zeros((0, query.num_nodes), np.int32)
            np.save(handle, arr.astype(np.int32))
    result = {"query": str(path), "embeddings": count, "seconds": time.perf_counter() - start}
    if mesh is not None:  # matching runs on every device of the mesh
        result.update(devices=int(mesh.devices.size), devices_used=int(mesh.devices.size))
    return result
