"""What every ``kcjax`` subcommand shares: the graph argument, loading, output
files, timing, progress, JSON, and the usage error (exit status 2).

:mod:`kcjax.cli` builds the parser and runs a command; each family's
``command.py`` adds its subcommand with these pieces, so every command reads
graphs, checks outputs and reports errors the same way.

Output files keep three promises: a file is one command's complete output or
absent (each is written under a unique temporary name in its directory and
renamed into place: :func:`output_file`); no output ever replaces an input
(:func:`output_path` refuses it before any work); and a full disk is an error
(exit 2, ``No space left on device``), never a crash or a partial file
(:func:`write_npy` writes arrays in chunks, no memory map of an unbacked file).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import sys
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any

import jax
import numpy as np
from tqdm import tqdm

from kcjax._interrupts import partial_file
from kcjax.graph.io import GraphFormatError, load


class UsageError(Exception):
    """Bad command-line usage or input: exit status 2."""


def add_graph_argument(p: argparse.ArgumentParser, optional: bool = False) -> None:
    """The GRAPH positional, --relabel and --mapping, shared by every command that
    reads a graph."""
    p.add_argument(
        "graph",
        nargs="?" if optional else None,
        help="edge list (.txt/.el/.gz), Matrix Market (.mtx) or .npz"
        + (" (default: a generated graph)" if optional else ""),
    )
    p.add_argument(
        "--relabel",
        action="store_true",
        help="number the vertices that have edges 0..n-1 (for huge or sparse ids); vertex "
        "ids given and written stay the file's",
    )
    p.add_argument(
        "--mapping",
        metavar="FILE",
        help="with --relabel: write the file's id of every vertex 0..n-1 to FILE (.txt: one "
        "per line; .npy: int64[n])",
    )


def load_graph(args: argparse.Namespace, **kwargs: Any) -> tuple[Any, float]:
    """The graph named by ``args.graph`` (with ``--relabel``) and its load time.

    The library's hint ``relabel=True`` is given as the option ``--relabel``.
    With ``--relabel`` the file's id of every vertex is kept as
    ``args.file_ids`` (int64[n]; ``None`` without it: ids are the file's) for
    :func:`file_ids` and :func:`graph_ids`, and written to ``--mapping``.
    """
    mapping = _mapping_path(args)
    try:
        loaded, seconds = timed(
            lambda: load(args.graph, relabel=args.relabel, return_ids=True, **kwargs)
        )
    except GraphFormatError as err:
        raise GraphFormatError(str(err).replace("relabel=True", "--relabel")) from None
    *graph, args.file_ids = loaded
    if mapping is not None:
        ids = args.file_ids
        with output_file(mapping) as tmp:
            if mapping.suffix == ".npy":
                write_npy(tmp, [ids], (ids.size,), np.int64)
            else:
                write_rows(tmp, [ids[:, None]])
    return (graph[0] if len(graph) == 1 else tuple(graph)), seconds


def file_ids(args: argparse.Namespace, ids: Any) -> np.ndarray:
    """The file's ids of vertices ``ids`` of the loaded graph (any shape; the
    same ids without ``--relabel``)."""
    ids = np.asarray(ids)
    table = getattr(args, "file_ids", None)
    return ids if table is None else table[ids]


def graph_ids(args: argparse.Namespace, ids: Any, what: str) -> np.ndarray:
    """The loaded graph's vertices of the file's ids ``ids`` (int64, any shape),
    refused with a usage error naming ``what`` where one is not a vertex of the graph."""
    ids = np.asarray(ids, np.int64)
    table = getattr(args, "file_ids", None)
    if table is None:
        return ids
    where = np.searchsorted(table, ids)
    found = (where < table.size) & (table[np.minimum(where, table.size - 1)] == ids)
    if table.size == 0 or not np.all(found):
        bad = ids[~found] if table.size else ids
        raise UsageError(
            f"{what} {int(bad.flat[0])} has no edge in {args.graph} (--relabel keeps only the "
            "vertices that have edges)"
        )
    return where


def check_output(path: Path, suffixes: tuple[str, ...]) -> None:
    """Fails before any work if ``path`` has the wrong suffix or cannot be
    written (naming the user's path)."""
    if path.suffix not in suffixes:
        raise UsageError(f"output must end in {' or '.join(suffixes)}, got {str(path)!r}")
    parent = path.parent
    if not parent.is_dir():
        raise UsageError(f"cannot write {path}: directory {parent} does not exist")
    if path.is_dir():
        raise UsageError(f"cannot write {path}: it is a directory")
    if not os.access(parent, os.W_OK) or (path.exists() and not os.access(path, os.W_OK)):
        raise UsageError(f"cannot write {path}: permission denied")


def output_path(
    args: argparse.Namespace, suffixes: tuple[str, ...], option: str = "output"
) -> Path | None:
    """``-o``'s path (``None`` without ``-o``), checked before any work by
    :func:`check_output` and refused where it names an input file (the
    command's graph, data, queries or sources: the same path or, by
    ``os.path.samefile``, the same file under another name). An empty
    ``-o ''`` is a usage error, not "no output". ``option``: the attribute of
    another output option to check the same way (``"mapping"``)."""
    text = getattr(args, option, None)
    if text is None:
        return None
    flag = "-o" if option == "output" else f"--{option}"
    if not str(text).strip():
        raise UsageError(f"{flag} needs a file name, got an empty one")
    path = Path(text)
    check_output(path, suffixes)
    for source in _inputs(args):
        if _same_file(path, Path(source)):
            raise UsageError(
                f"refusing to write {flag} {path}: it is the input {source} (pick another name)"
            )
    return path


def _mapping_path(args: argparse.Namespace) -> Path | None:
    """``--mapping``'s path, checked like ``-o`` (and not ``-o`` itself)."""
    mapping = output_path(args, (".txt", ".npy"), option="mapping")
    if mapping is None:
        return None
    if not args.relabel:
        raise UsageError("--mapping writes the ids --relabel replaces; give --relabel too")
    out = getattr(args, "output", None)
    if out and _same_file(mapping, Path(out)):
        raise UsageError(f"--mapping and -o name the same file {mapping}")
    return mapping


def _inputs(args: argparse.Namespace) -> list[str]:
    """The files a command reads: its graph, data graph, queries and sources file."""
    found = [getattr(args, name, None) for name in ("graph", "data", "sources")]
    found += list(getattr(args, "queries", None) or [])
    return [str(f) for f in found if f]


def _same_file(a: Path, b: Path) -> bool:
    """Whether writing ``a`` would replace ``b``: the same file (also through a
    link) or, where either is missing, the same absolute path."""
    try:
        return os.path.samefile(a, b)
    except OSError:
        return os.path.abspath(a) == os.path.abspath(b)


@contextlib.contextmanager
def output_file(path: Path) -> Iterator[Path]:
    """A temporary file to write that becomes ``path`` when the block succeeds
    (never a partial file, also on SIGINT / SIGTERM; a unique name, so
    concurrent writers of ``path`` leave one complete output); write errors
    name ``path``."""
    try:
        with partial_file(path) as tmp:
            yield tmp
    except OSError as err:
        raise OSError(f"cannot write {path}: {err.strerror or err}") from err


def write_npy(
    path: Path, batches: Iterable[np.ndarray], shape: tuple[int, ...], dtype: Any
) -> None:
    """Writes an array of ``shape`` and ``dtype`` to the .npy file ``path``
    from row ``batches``, in order, without holding or memory-mapping it all
    (a full disk raises OSError ``No space left on device``; a memory map of
    a sparse file would die by SIGBUS instead).

    Raises:
      RuntimeError: if the batches do not hold exactly ``shape[0]`` rows.
    """
    dtype = np.dtype(dtype)
    header = {"descr": np.lib.format.dtype_to_descr(dtype), "fortran_order": False, "shape": shape}
    rows = 0
    with path.open("wb") as f:
        np.lib.format.write_array_header_1_0(f, header)
        for batch in batches:
            block = np.ascontiguousarray(batch, dtype=dtype)
            f.write(memoryview(block).cast("B"))
            rows += block.shape[0] if block.ndim else 1
    if rows != (shape[0] if shape else 1):
        raise RuntimeError(f"internal error: wrote {rows} rows of {shape[0]} to {path}")


def write_rows(path: Path, batches: Iterable[np.ndarray]) -> None:
    """Writes integer row ``batches`` to the text file ``path``, one row per line."""
    with path.open("wb") as f:
        for batch in batches:
            np.savetxt(f, batch, fmt="%d")


def progress_bar(iterable: Any = None, *, quiet: bool, **kwargs: Any) -> tqdm:
    """A tqdm bar on stderr, shown on a terminal unless ``quiet`` and gone when done;
    ``kwargs`` (total, desc, unit) go to tqdm."""
    return tqdm(
        iterable, file=sys.stderr, disable=quiet or not sys.stderr.isatty(), leave=False, **kwargs
    )


def work_bar(*, quiet: bool, desc: str) -> tuple[tqdm, Callable[[int, int], None]]:
    """A percentage bar for a library ``progress(done, total)`` callback
    (whose total may change as the work is sized): (the bar, the callback)."""
    bar = progress_bar(
        quiet=quiet,
        total=1,
        desc=desc,
        bar_format="{desc}: {percentage:3.0f}%|{bar}| [{elapsed}<{remaining}]",
    )

    def update(done: int, total: int) -> None:
        if total > 0:
            bar.total = total
            bar.update(done - bar.n)

    return bar, update


@contextlib.contextmanager
def stages(names: Sequence[str], *, quiet: bool) -> Iterator[Callable[[str], None]]:
    """A coarse progress indicator for a run of a few long steps (a single kernel
    call has no progress to report): which step of how many runs, and the time
    elapsed, refreshed every half second on a terminal (``quiet``: nothing).

    Yields ``step(name)``, called as each step starts (``name`` one of ``names``).
    """
    bar = progress_bar(
        quiet=quiet, total=len(names), bar_format="{desc} ({n_fmt}/{total_fmt}) [{elapsed}]"
    )
    started = [False]

    def step(name: str) -> None:
        if started[0]:
            bar.update(1)
        started[0] = True
        bar.set_description_str(name)

    done = threading.Event()

    def tick() -> None:
        while not done.wait(0.5):
            bar.refresh()

    ticker = threading.Thread(target=tick, name="kcjax-stages", daemon=True)
    if not bar.disable:
        ticker.start()
    try:
        yield step
    finally:
        done.set()
        if ticker.is_alive():
            ticker.join()
        bar.close()


def threads(text: str) -> int:
    """``--threads``: a CPU thread count, 0 for all cores (argparse type)."""
    try:
        value = int(text)
    except ValueError:
        value = -1
    if value < 0:
        raise argparse.ArgumentTypeError(f"invalid thread count {text!r} (expected N >= 0)")
    return value


def timed(fn: Callable[[], Any]) -> tuple[Any, float]:
    """Runs ``fn`` to completion (device work included); (result, seconds)."""
    start = time.perf_counter()
    result = jax.block_until_ready(fn())
    return result, time.perf_counter() - start


def print_json(obj: dict[str, Any]) -> None:
    """One JSON object on stdout."""
    sys.stdout.write(json.dumps(obj, indent=2) + "\n")
    sys.stdout.flush()
