"""What every ``kcjax`` subcommand shares: the graph argument, loading, output
files, timing, JSON, and the usage error (exit status 2).

:mod:`kcjax.cli` builds the parser and runs a command; each family's
``command.py`` adds its subcommand with these pieces, so every command reads
graphs, checks outputs and reports errors the same way.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import jax
from tqdm import tqdm

from kcjax._interrupts import partial_file
from kcjax.graph.io import GraphFormatError, load


class UsageError(Exception):
    """Bad command-line usage or input: exit status 2."""


def add_graph_argument(p: argparse.ArgumentParser, optional: bool = False) -> None:
    """The GRAPH positional and --relabel, shared by every command that reads a graph."""
    p.add_argument(
        "graph",
        nargs="?" if optional else None,
        help="edge list (.txt/.el/.gz), Matrix Market (.mtx) or .npz"
        + (" (default: a generated graph)" if optional else ""),
    )
    p.add_argument(
        "--relabel",
        action="store_true",
        help="number the vertices that have edges 0..n-1 (for huge or sparse ids)",
    )


def load_graph(args: argparse.Namespace, **kwargs: Any) -> tuple[Any, float]:
    """The graph named by ``args.graph`` (with ``--relabel``) and its load time.

    The library's hint ``relabel=True`` is given as the option ``--relabel``.
    """
    try:
        return timed(lambda: load(args.graph, relabel=args.relabel, **kwargs))
    except GraphFormatError as err:
        raise GraphFormatError(str(err).replace("relabel=True", "--relabel")) from None


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


def output_path(args: argparse.Namespace, suffixes: tuple[str, ...]) -> Path | None:
    """``-o``'s path (``None`` without ``-o``), checked before any work by
    :func:`check_output` (an empty ``-o ''`` is a usage error, not "no output")."""
    if args.output is None:
        return None
    path = Path(args.output)
    check_output(path, suffixes)
    return path


@contextlib.contextmanager
def output_file(path: Path) -> Iterator[Path]:
    """A temporary file to write that becomes ``path`` when the block succeeds
    (never a partial file, also on SIGINT / SIGTERM); write errors name ``path``."""
    try:
        with partial_file(path) as tmp:
            yield tmp
    except OSError as err:
        raise OSError(f"cannot write {path}: {err.strerror or err}") from err


def progress_bar(iterable: Any = None, *, quiet: bool, **kwargs: Any) -> tqdm:
    """A tqdm bar on stderr, shown on a terminal unless ``quiet`` and gone when done;
    ``kwargs`` (total, desc, unit) go to tqdm."""
    return tqdm(
        iterable, file=sys.stderr, disable=quiet or not sys.stderr.isatty(), leave=False, **kwargs
    )


def timed(fn: Callable[[], Any]) -> tuple[Any, float]:
    """Runs ``fn`` to completion (device work included); (result, seconds)."""
    start = time.perf_counter()
    result = jax.block_until_ready(fn())
    return result, time.perf_counter() - start


def print_json(obj: dict[str, Any]) -> None:
    """One JSON object on stdout."""
    sys.stdout.write(json.dumps(obj, indent=2) + "\n")
    sys.stdout.flush()
