"""Graph readers and writers: SNAP-style text edge lists, Matrix Market, binary cache.

The format is picked from the file name (``format=`` overrides it):

* ``*.mtx`` (``*.mtx.gz``): Matrix Market ``coordinate`` files, pattern /
  integer / real, general / symmetric / skew-symmetric. Every stored entry
  (i, j) is an edge between vertices i - 1 and j - 1 (values are ignored);
  the matrix size is the number of vertices.
* ``*.npz``: the binary cache written by :func:`save` (a Graph's CSR).
* anything else (``.txt``, ``.el``, ``.edges``, ``.tsv``, KONECT ``out.*``;
  optionally gzipped): a whitespace-separated edge list, one ``u v`` per line,
  ids non-negative integers, ``#`` / ``%`` comment lines, further columns
  ignored.

Text is parsed by the native single-pass parser (``kcjax._native.parse_edge_list``);
gzip is detected by name or by its magic bytes. Malformed input raises
:class:`GraphFormatError` naming the file and, where it applies, the line.
"""

from __future__ import annotations

import gzip
import os
import re
import tempfile
import zipfile
import zlib
from pathlib import Path
from typing import Any, Literal, Union

import jax.numpy as jnp
import numpy as np

from kcjax import _native
from kcjax._args import check_choice
from kcjax.graph.graph import CanonReport, Graph

PathLike = Union[str, "os.PathLike[str]"]
Format = Literal["edgelist", "mtx", "npz"]
#: Formats accepted by :func:`load`'s ``format`` argument.
FORMATS: tuple[str, ...] = ("edgelist", "mtx", "npz")
#: Version of the .npz cache layout written by :func:`save`.
NPZ_VERSION = 1

_GZIP_MAGIC = b"\x1f\x8b"
_ZIP_MAGIC = b"PK"
_LINE_RE = re.compile(r"^line (\d+): (.*)$", re.DOTALL)
_MM_FIELDS = ("pattern", "integer", "real")
_MM_SYMMETRIES = ("general", "symmetric", "skew-symmetric")


class GraphFormatError(ValueError):
    """A graph file is malformed: the message names the file (and line)."""


def load(
    path: PathLike,
    *,
    format: Format | None = None,
    relabel: bool = False,
    return_report: bool = False,
    return_ids: bool = False,
) -> Graph | tuple[Any, ...]:
    """Reads a graph file into a canonical :class:`Graph`.

    Edge lists keep their ids (num_nodes = max id + 1); Matrix Market files
    have as many vertices as matrix rows. Self loops and duplicate edges are
    dropped, directions ignored (see :meth:`Graph.from_edges`).

    Args:
      path: the file. Its name picks the reader unless ``format`` is given.
      format: ``"edgelist"``, ``"mtx"`` or ``"npz"`` (``None``: by name).
      relabel: renumber the vertices that have an edge to 0..n-1 in order of
        their ids (drops isolated vertices and gaps in the id range).
      return_report: also return the :class:`CanonReport` of what was dropped
        (all zeros for a .npz cache, which is canonical already).
      return_ids: also return the id every vertex had before ``relabel``:
        int64[n] ascending (vertex i was ``ids[i]``: the file's id for an
        edge list, the 0-based row for Matrix Market, the cached id for
        .npz); ``None`` without ``relabel``.

    Returns:
      The Graph; ``(Graph, CanonReport)`` with ``return_report``; the ids
      appended last with ``return_ids``.

    Raises:
      FileNotFoundError: ``path`` does not exist.
      GraphFormatError: the file is malformed (bad gzip, bad line, bad header,
        ids beyond the int32 range without ``relabel``).
    """
    fmt = format if format is not None else _format_of(path)
    check_choice(fmt, "format", FORMATS)
    if fmt == "npz":
        graph = _load_npz(path)
        ids = None
        if relabel:
            graph, ids = Graph.from_edges(*graph.edges(), relabel=True, return_ids=True)
        report = CanonReport(0, 0, 0, graph.num_nodes, graph.num_edges)
        extra = [report] if return_report else []
        if return_ids:
            extra.append(ids)
        return (graph, *extra) if extra else graph
    if fmt == "mtx":
        src, dst, num_nodes = _read_mtx(path)
    else:
        src, dst = read_edge_list(path)
        num_nodes = None
    try:
        return Graph.from_edges(
            src,
            dst,
            None if relabel else num_nodes,
            relabel=relabel,
            return_report=return_report,
            return_ids=return_ids,
        )
    except ValueError as err:
        hint = (
            ""
            if relabel or "relabel" in str(err)
            else " (relabel=True renumbers the ids to 0..n-1)"
        )
        raise GraphFormatError(f"{path}: {err}{hint}") from err


def read_edge_list(path: PathLike) -> tuple[np.ndarray, np.ndarray]:
    """Reads a (possibly gzipped) text edge list as raw id arrays.

    Args:
      path: the file.

    Returns:
      ``(src, dst)``: int64[e] each, one row per edge line, ids as written
      (no canonicalization).

    Raises:
      FileNotFoundError: ``path`` does not exist.
      GraphFormatError: bad gzip data or a malformed line (the message names
        the file and the line).
    """
    src, dst, _ = _parse(_read_bytes(path), path, first_line=1)
    return src, dst


def save(graph: Graph, path: PathLike) -> None:
    """Writes ``graph`` to a binary .npz cache that :func:`load` reads back.

    The file is written under a temporary name and renamed, so an interrupted
    save never leaves a truncated cache. The name is used as given (no
    ``.npz`` is appended), but :func:`load` picks the reader by a ``.npz``
    suffix (or ``format="npz"``).

    Args:
      graph: the graph; its int32 CSR arrays and num_nodes are stored.
      path: the destination file.
    """
    path = Path(path)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as f:
            np.savez(
                f,
                format_version=np.int64(NPZ_VERSION),
                num_nodes=np.int64(graph.num_nodes),
                indptr=np.asarray(graph.indptr, np.int32),
                indices=np.asarray(graph.indices, np.int32),
            )
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _format_of(path: PathLike) -> str:
    name = os.fspath(path).lower()
    if name.endswith(".gz"):
        name = name[:-3]
    if name.endswith(".mtx"):
        return "mtx"
    if name.endswith(".npz"):
        return "npz"
    return "edgelist"


def _read_bytes(path: PathLike) -> bytes:
    """The file's bytes, gunzipped when its name or magic says gzip."""
    with open(path, "rb") as f:
        data = f.read()
    named_gz = os.fspath(path).lower().endswith(".gz")
    if named_gz and not data.startswith(_GZIP_MAGIC):
        raise GraphFormatError(f"{path}: not a valid gzip file (no gzip header)")
    if data.startswith(_GZIP_MAGIC):
        try:
            data = gzip.decompress(data)
        except (OSError, EOFError, zlib.error) as err:
            raise GraphFormatError(f"{path}: not a valid gzip file ({err})") from err
    return data


def _parse(data: bytes, path: PathLike, first_line: int) -> tuple[np.ndarray, np.ndarray, int]:
    """Native parse of ``data`` whose first line is line ``first_line`` of ``path``."""
    try:
        return _native.parse_edge_list(data)
    except ValueError as err:
        raise GraphFormatError(_shift_line(str(err), path, first_line - 1)) from err


def _shift_line(message: str, path: PathLike, offset: int) -> str:
    match = _LINE_RE.match(message)
    if match is None:
        return f"{path}: {message}"
    return f"{path}: line {int(match.group(1)) + offset}: {match.group(2)}"


def _read_mtx(path: PathLike) -> tuple[np.ndarray, np.ndarray, int]:
    """Reads a Matrix Market coordinate file: (src, dst) 0-based int64[nnz], n."""
    data = _read_bytes(path)
    pos, line = 0, 0

    def next_line() -> bytes | None:
        nonlocal pos, line
        if pos >= len(data):
            return None
        stop = data.find(b"\n", pos)
        stop = len(data) if stop < 0 else stop + 1
        text, pos, line = data[pos:stop], stop, line + 1
        return text

    header = next_line()
    _check_mm_header(header, path)
    size = next_line()
    while size is not None and (not size.strip() or size.lstrip().startswith(b"%")):
        size = next_line()
    if size is None:
        raise GraphFormatError(f"{path}: line {line}: missing the size line 'rows cols entries'")
    fields = size.split()
    if len(fields) != 3 or not all(f.isdigit() for f in fields):
        raise GraphFormatError(
            f"{path}: line {line}: expected the size line 'rows cols entries' of "
            f"non-negative integers, got {_show(size)}"
        )
    rows, cols, nnz = (int(f) for f in fields)
    if rows != cols:
        raise GraphFormatError(
            f"{path}: line {line}: an adjacency matrix must be square, got {rows} x {cols}"
        )
    src, dst, _ = _parse(data[pos:], path, first_line=line + 1)
    if src.size != nnz:
        raise GraphFormatError(
            f"{path}: the size line (line {line}) promises {nnz} entries, found {src.size}"
        )
    bad = (src < 1) | (src > rows) | (dst < 1) | (dst > rows)
    if bad.any():
        entry = int(np.argmax(bad))
        raise GraphFormatError(
            f"{path}: line {_entry_line(data[pos:], entry) + line}: entry "
            f"({src[entry]}, {dst[entry]}) is outside the 1-based range 1..{rows}"
        )
    return src - 1, dst - 1, rows


def _check_mm_header(header: bytes | None, path: PathLike) -> None:
    words = (header or b"").decode("ascii", "replace").lower().split()
    if len(words) != 5 or words[0] != "%%matrixmarket" or words[1] != "matrix":
        raise GraphFormatError(
            f"{path}: line 1: expected a Matrix Market header "
            f"'%%MatrixMarket matrix coordinate <field> <symmetry>', got {_show(header or b'')}"
        )
    layout, field, symmetry = words[2:]
    if layout != "coordinate":
        raise GraphFormatError(
            f"{path}: line 1: Matrix Market '{layout}' (dense) format is not supported; "
            "a graph needs the sparse 'coordinate' format"
        )
    if field not in _MM_FIELDS:
        raise GraphFormatError(
            f"{path}: line 1: Matrix Market field '{field}' is not supported "
            f"(expected one of {', '.join(_MM_FIELDS)})"
        )
    if symmetry not in _MM_SYMMETRIES:
        raise GraphFormatError(
            f"{path}: line 1: Matrix Market symmetry '{symmetry}' is not supported "
            f"(expected one of {', '.join(_MM_SYMMETRIES)})"
        )


def _entry_line(body: bytes, entry: int) -> int:
    """1-based line (within ``body``) of its ``entry``-th (0-based) data line."""
    seen = -1
    for number, text in enumerate(body.split(b"\n"), start=1):
        stripped = text.strip()
        if stripped and not stripped.startswith((b"#", b"%")):
            seen += 1
            if seen == entry:
                return number
    raise AssertionError("entry beyond the parsed lines")


def _show(text: bytes) -> str:
    return repr(text.rstrip(b"\r\n")[:80].decode("utf-8", "replace"))


def _load_npz(path: PathLike) -> Graph:
    with open(path, "rb") as f:
        head = f.read(6)
        f.seek(0)
        if not head.startswith(_ZIP_MAGIC):
            what = "a single .npy array" if head.startswith(b"\x93NUMPY") else "not a zip archive"
            raise GraphFormatError(f"{path}: not a kcjax .npz graph cache ({what})")
        try:
            archive = np.load(f, allow_pickle=False)
            with archive:
                arrays = {key: archive[key] for key in archive.files}
        except (zipfile.BadZipFile, ValueError, OSError, EOFError) as err:
            # numpy's own words would advise allow_pickle=True: never for a graph cache.
            why = "pickled objects" if "pickle" in str(err) else str(err)
            raise GraphFormatError(f"{path}: not a kcjax .npz graph cache ({why})") from err
    missing = {"format_version", "num_nodes", "indptr", "indices"} - arrays.keys()
    if missing:
        raise GraphFormatError(f"{path}: not a kcjax graph cache (missing {sorted(missing)})")
    version = int(arrays["format_version"])
    if version != NPZ_VERSION:
        raise GraphFormatError(
            f"{path}: graph cache format version {version}, this kcjax reads {NPZ_VERSION}"
        )
    n = int(arrays["num_nodes"])
    indptr, indices = arrays["indptr"], arrays["indices"]
    _check_csr(indptr, indices, n, path)
    return Graph(
        indptr=jnp.asarray(indptr, jnp.int32), indices=jnp.asarray(indices, jnp.int32), num_nodes=n
    )


def _check_csr(indptr: np.ndarray, indices: np.ndarray, n: int, path: PathLike) -> None:
    """Cheap structural checks of a cached CSR (shapes, ranges, sorted rows)."""
    problem = None
    if indptr.dtype != np.int32 or indices.dtype != np.int32:
        problem = f"dtypes {indptr.dtype}/{indices.dtype}, expected int32"
    elif indptr.shape != (n + 1,) or indices.ndim != 1:
        problem = f"indptr shape {indptr.shape} for num_nodes={n}"
    elif indptr[0] != 0 or indptr[-1] != indices.size or np.any(np.diff(indptr) < 0):
        problem = "indptr is not a valid row-pointer array"
    elif indices.size and (indices.min() < 0 or indices.max() >= n):
        problem = "neighbour ids out of range"
    elif indices.size % 2:
        problem = "odd number of adjacency entries (not symmetric)"
    else:
        rows = np.repeat(np.arange(n, dtype=np.int32), np.diff(indptr))
        step = np.diff(indices.astype(np.int64))
        same_row = rows[1:] == rows[:-1]
        if np.any(step[same_row] <= 0) or np.any(rows == indices):
            problem = "rows not strictly sorted or self loops present"
    if problem is not None:
        raise GraphFormatError(f"{path}: corrupt graph cache: {problem}")
