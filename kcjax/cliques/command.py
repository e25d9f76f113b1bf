"""The ``kcjax count`` and ``kcjax list`` subcommands (registered by :mod:`kcjax.cli`;
``kcjax demo`` reports its clique counts with :func:`count_and_report`)."""

from __future__ import annotations

import argparse
import os
import re
from pathlib import Path
from typing import Any

import jax
import numpy as np
from jax.sharding import Mesh

from kcjax._command import (
    UsageError,
    add_graph_argument,
    file_ids,
    load_graph,
    output_file,
    output_path,
    print_json,
    progress_bar,
    threads,
    timed,
    work_bar,
    write_npy,
    write_rows,
)
from kcjax.cliques.auto import auto_method
from kcjax.cliques.count import METHODS, count_all_cliques, count_cliques
from kcjax.cliques.listing import iter_cliques, list_cliques
from kcjax.cliques.sharded import mesh_devices
from kcjax.graph.graph import Graph
from kcjax.graph.orient import ORDERS, max_out_degree, orient
from kcjax.parallel import device_mesh, initialize_from_env_or_args, parse_devices

#: Listing streams batches of at most this many rows (fewer when fewer cliques exist).
_LIST_BATCH = 1 << 20
#: A run of more than this many asked sizes above the largest possible clique
#: (all counting 0) is reported as one line (JSON key "K1-K2"), so a range
#: like -k 3-100000000 costs what its sizes up to that bound cost.
_ZERO_RUN = 16


def add_parser(sub: argparse._SubParsersAction) -> None:
    """Adds ``count`` and ``list`` to the ``kcjax`` subcommands."""
    count = sub.add_parser(
        "count",
        help="count k-cliques of a graph file",
        description="Count the k-cliques of a graph file exactly. A graph without edges "
        "counts zero cliques of every size k >= 2.",
    )
    add_graph_argument(count)
    count.add_argument(
        "-k",
        dest="ks",
        action="append",
        type=_k_values,
        metavar="K",
        help="clique size, or a range like 3-8; repeatable",
    )
    count.add_argument(
        "--all", action="store_true", help="count every size up to the clique number (pivoting)"
    )
    add_count_options(count)
    count.add_argument(
        "--devices",
        type=_devices,
        default=None,
        metavar="N|all",
        help="count on N devices (all: every visible device); default 1, or every device "
        "of a multi-process run",
    )
    dist = count.add_argument_group(
        "multi-process",
        "run as one of several processes (jax.distributed); the environment "
        "variables JAX_COORDINATOR_ADDRESS, JAX_NUM_PROCESSES, JAX_PROCESS_ID work too",
    )
    dist.add_argument("--coordinator", metavar="HOST:PORT", help="address of process 0")
    dist.add_argument("--num-processes", type=int, metavar="N", help="number of processes")
    dist.add_argument("--process-id", type=int, metavar="I", help="this process's id, 0..N-1")
    dist.add_argument(
        "--split",
        choices=("balanced", "round_robin"),
        default="balanced",
        help="how edge tasks are dealt to devices",
    )
    count.set_defaults(run=_run_count)

    lister = sub.add_parser(
        "list",
        help="write every k-clique of a graph file",
        description="Write every k-clique, one per row in the file's vertex ids, to OUT "
        "(.txt: text rows; .npy: an int32[c, k] array). OUT is written whole or not at all.",
    )
    add_graph_argument(lister)
    lister.add_argument("-k", type=_one_k, required=True, help="clique size (>= 1)")
    lister.add_argument("-o", "--output", required=True, metavar="OUT", help="OUT.txt or OUT.npy")
    lister.add_argument("--json", action="store_true", help="print one JSON object")
    lister.add_argument("--order", choices=ORDERS, default="degree", help="orientation order")
    lister.add_argument("--threads", type=threads, default=0, help="CPU threads (0: all)")
    lister.add_argument("-q", "--quiet", action="store_true", help="no progress bar")
    lister.set_defaults(run=_run_list)


def add_count_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--order", choices=ORDERS, default="degree", help="orientation order")
    p.add_argument("--method", choices=METHODS, default="auto", help="counting method")
    p.add_argument("--threads", type=threads, default=0, help="CPU threads (0: all)")
    p.add_argument("--json", action="store_true", help="print one JSON object when done")
    p.add_argument("-q", "--quiet", action="store_true", help="no progress bar")


def _k_values(text: str) -> range:
    """Parses ``-k`` values: ``5`` or an inclusive range ``3-8`` (a range
    object: a wide range costs nothing until its sizes are split at the
    largest possible clique)."""
    match = re.fullmatch(r"(-?\d+)(?:-(-?\d+))?", text.strip())
    if match is None:
        raise argparse.ArgumentTypeError(
            f"invalid clique size {text!r} (expected K or a range K1-K2)"
        )
    lo, hi = match.groups()
    ks = range(int(lo), int(hi if hi is not None else lo) + 1)
    if not ks:
        raise argparse.ArgumentTypeError(f"empty clique-size range {text!r}")
    if ks[0] < 1:
        raise argparse.ArgumentTypeError(f"clique size k must be >= 1, got {ks[0]}")
    return ks


def _one_k(text: str) -> int:
    """One clique size (``list`` writes one size per file)."""
    ks = _k_values(text)
    if len(ks) != 1:
        raise argparse.ArgumentTypeError(
            f"list writes one clique size per file, got {text.strip()!r} (run it once per k)"
        )
    return ks[0]


def _devices(text: str) -> int | str:
    try:
        return parse_devices(text)
    except ValueError as err:
        raise argparse.ArgumentTypeError(str(err)) from None


def _split_sizes(groups: list[range], bound: int) -> tuple[list[int], list[range]]:
    """The asked sizes up to ``bound`` (ascending, each once) and the maximal
    runs of asked sizes above it, which count 0 without any work."""
    below = sorted({k for r in groups for k in range(r.start, min(r.stop, bound + 1))})
    above = sorted((max(r.start, bound + 1), r.stop) for r in groups if r.stop > bound + 1)
    runs: list[range] = []
    for lo, hi in above:
        if runs and lo <= runs[-1].stop:
            runs[-1] = range(runs[-1].start, max(runs[-1].stop, hi))
        else:
            runs.append(range(lo, hi))
    return below, runs


def _run_count(args: argparse.Namespace) -> int:
    if args.all == bool(args.ks):
        raise UsageError("give either -k K (repeatable) or --all")
    multi = initialize_from_env_or_args(args.coordinator, args.num_processes, args.process_id)
    try:
        mesh = device_mesh(args.devices or ("all" if multi else 1))
        graph, load_s = load_graph(args)
        if args.all:
            return _count_all_and_report(args, graph, load_s, mesh)
        return count_and_report(args, graph, args.graph, load_s, mesh=mesh)
    finally:
        if multi:
            jax.distributed.shutdown()


def _count_all_and_report(
    args: argparse.Namespace, graph: Graph, load_s: float, mesh: Mesh | None
) -> int:
    threads = _threads_per_device(args, mesh)
    counts, count_s = timed(lambda: count_all_cliques(graph, num_threads=threads, mesh=mesh))
    if jax.process_index() != 0:
        return 0
    omega = max(counts, default=0)
    info: dict[str, Any] = {"clique_number": omega}
    header = []
    if mesh is not None:
        dag = orient(graph, order="degeneracy")
        used = mesh_devices(dag, max_out_degree(dag) + 1, mesh, method="pivot")
        info.update(_devices_info(mesh, used))
        header.append(_devices_line(mesh, used))
    return _report(
        args,
        args.graph,
        graph,
        counts,
        {"load_s": load_s, "count_s": count_s},
        info,
        f"  clique number {omega}",
        header,
    )


def _run_list(args: argparse.Namespace) -> int:
    out = output_path(args, (".txt", ".npy"))
    graph, load_s = load_graph(args)
    dag = orient(graph, order=args.order)
    total = count_cliques(dag, args.k, num_threads=args.threads)  # 0 above the bound, no search
    bar = progress_bar(quiet=args.quiet, total=dag.num_edges, desc="listing", unit="task")
    with output_file(out) as tmp, bar:
        if args.k < 3:
            batches = iter([list_cliques(dag, args.k)])
        else:  # no batch is larger than the listing, nor any row longer than the bound
            batches = iter_cliques(
                dag,
                args.k,
                batch=max(1, min(_LIST_BATCH, total)),
                num_threads=args.threads,
                progress=lambda done, _total: bar.update(done - bar.n),
            )
        rows = (file_ids(args, batch) for batch in batches)
        _, list_s = timed(lambda: _write_cliques(rows, tmp, out.suffix, total, args))
    if args.json:
        print_json(
            {
                "graph": args.graph,
                "k": args.k,
                "cliques": total,
                "output": str(out),
                "load_s": load_s,
                "list_s": list_s,
            }
        )
    else:
        print(f"wrote {total:,} {args.k}-cliques to {out} in {list_s:.3f} s")
    return 0


def _write_cliques(
    batches: Any, path: Path, suffix: str, total: int, args: argparse.Namespace
) -> None:
    """Writes ``total`` k-cliques from ``batches``: int32 rows (int64 where the
    file's ids pass int32) to .npy, or text rows."""
    if suffix != ".npy":
        write_rows(path, batches)
        return
    ids = getattr(args, "file_ids", None)
    wide = ids is not None and ids.size and ids[-1] > np.iinfo(np.int32).max
    write_npy(path, batches, (total, args.k), np.int64 if wide else np.int32)


def count_and_report(
    args: argparse.Namespace,
    graph: Graph,
    name: str,
    load_s: float,
    mesh: Mesh | None = None,
    extra: tuple[dict[str, Any], list[str]] | None = None,
) -> int:
    dag, orient_s = timed(lambda: orient(graph, order=args.order))
    # No clique is larger than the largest out-degree + 1: sizes above it count 0.
    ks, args.zero_runs = _split_sizes(args.ks, max_out_degree(dag) + 1)
    if ks and mesh is not None:
        return _count_sharded_and_report(args, graph, dag, name, ks, (load_s, orient_s), mesh)
    bar, progress = work_bar(quiet=args.quiet, desc="counting")
    counts: dict[int, int] = {}
    with bar:
        if ks:
            counts, count_s = timed(
                lambda: count_cliques(
                    dag, ks, method=args.method, num_threads=args.threads, progress=progress
                )
            )
        else:
            count_s = 0.0
    return _report(
        args,
        name,
        graph,
        {k: counts[k] for k in ks},
        {"load_s": load_s, "orient_s": orient_s, "count_s": count_s},
        {"order": args.order, "method": args.method, **(extra[0] if extra else {})},
        "",
        [f"order   {args.order}   method {args.method}", *(extra[1] if extra else [])],
    )


def _count_sharded_and_report(
    args: argparse.Namespace,
    graph: Graph,
    dag: Any,
    name: str,
    ks: list[int],
    prep: tuple[float, float],
    mesh: Mesh,
) -> int:
    """Counts on the devices of ``mesh`` (of every process); process 0 prints."""
    split = getattr(args, "split", "balanced")
    threads = _threads_per_device(args, mesh)
    counts, count_s = timed(
        lambda: count_cliques(
            dag, ks, method=args.method, num_threads=threads, mesh=mesh, split=split
        )
    )
    if jax.process_index() != 0:
        return 0
    bound = max_out_degree(dag) + 1  # count_cliques counts no larger size
    kmax = max((k for k in ks if k <= bound), default=0)
    method = auto_method(dag, kmax) if args.method == "auto" and kmax >= 3 else args.method
    used = mesh_devices(dag, kmax, mesh, method=method) if kmax >= 3 else 1
    return _report(
        args,
        name,
        graph,
        {k: counts[k] for k in ks},
        {"load_s": prep[0], "orient_s": prep[1], "count_s": count_s},
        {"order": args.order, "method": args.method, "split": split, **_devices_info(mesh, used)},
        "",
        [
            f"order   {args.order}   method {args.method}   split {split}",
            _devices_line(mesh, used),
        ],
    )


def _threads_per_device(args: argparse.Namespace, mesh: Mesh | None) -> int:
    """--threads, or the CPU cores shared among this process's devices of ``mesh``."""
    if args.threads or mesh is None:
        return args.threads
    local = sum(d.process_index == jax.process_index() for d in mesh.devices.flat)
    return max(1, (os.cpu_count() or 1) // max(1, local))


def _devices_info(mesh: Mesh, used: int) -> dict[str, Any]:
    return {
        "devices": int(mesh.devices.size),
        "devices_used": used,
        "processes": jax.process_count(),
    }


def _devices_line(mesh: Mesh, used: int) -> str:
    return f"devices {used} of {mesh.devices.size} over {jax.process_count()} process(es)" + (
        "" if used == mesh.devices.size else " (the work is too small for more)"
    )


def _report(
    args: argparse.Namespace,
    name: str,
    graph: Graph,
    counts: dict[int, int],
    times: dict[str, float],
    info: dict[str, Any],
    size_note: str,
    header: list[str],
) -> int:
    """Prints counts as one JSON object (--json) or as aligned text lines.

    ``args.zero_runs`` (where set): runs of asked sizes above the largest
    possible clique, reported with the counts as 0 (a run of more than
    ``_ZERO_RUN`` sizes as one entry ``K1-K2``).
    """
    rows: dict[str, int] = {str(k): c for k, c in counts.items()}
    for run in getattr(args, "zero_runs", ()):
        if len(run) > _ZERO_RUN:
            rows[f"{run.start}-{run[-1]}"] = 0
        else:
            rows.update((str(k), 0) for k in run)
    rows = dict(sorted(rows.items(), key=lambda item: int(item[0].split("-")[0])))
    if args.json:
        print_json(
            {
                "graph": name,
                "num_nodes": graph.num_nodes,
                "num_edges": graph.num_edges,
                **info,
                "counts": rows,
                "times": times,
            }
        )
        return 0
    timing = "  ".join(f"{key.removesuffix('_s')} {value:.3f} s" for key, value in times.items())
    width = max((len(f"{c:,}") for c in rows.values()), default=1) + 2
    label = max((len(k) for k in rows), default=1)
    lines = [
        f"graph   {name}",
        f"        n = {graph.num_nodes:,}  m = {graph.num_edges:,}{size_note}",
        *header,
        *(f"k = {k:<{max(4, label)}}{c:>{width},}" for k, c in rows.items()),
        f"time    {timing}",
    ]
    print("\n".join(lines))
    return 0
