"""Vertex-labeled graphs and the ``.graph`` file format of labeled matching.

A :class:`LabeledGraph` is a :class:`~kcjax.graph.graph.Graph` plus one int32
label per vertex (vertex labels only: there are no edge labels). The
``.graph`` format (Sun & Luo's SubgraphMatching code) is::

    t N M            # N vertices, M undirected edges
    v id label deg   # one line per vertex, ids 0..N-1 in order
    e u v            # one line per undirected edge

Files may be gzipped (detected by name or magic bytes). The ``deg`` field is
optional on read; where given it must equal the vertex's degree. ``e`` lines
may carry a trailing edge label, which is ignored. Malformed files raise a
one-line :class:`~kcjax.graph.io.GraphFormatError` naming the file and line.
"""

from __future__ import annotations

import dataclasses
import gzip
import os
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from kcjax.graph.graph import Graph
from kcjax.graph.io import GraphFormatError

PathLike = str | os.PathLike


@dataclasses.dataclass(frozen=True)
class LabeledGraph:
    """An undirected simple graph with an int32 label on every vertex.

    A pytree (``graph`` and ``labels`` are leaves), so it passes through
    ``jax.jit``.

    Attributes:
      graph: the canonical CSR graph (sorted rows, no loops or duplicates).
      labels: int32[graph.num_nodes], the label of every vertex (any int32
        values; labels need not be contiguous).
    """

    graph: Graph
    labels: jax.Array

    @property
    def num_nodes(self) -> int:
        """Number of vertices (static)."""
        return self.graph.num_nodes

    @property
    def num_edges(self) -> int:
        """Number of undirected edges (static)."""
        return self.graph.num_edges

    @classmethod
    def from_edges(cls, src: Any, dst: Any, labels: Any, *, relabel: bool = False) -> LabeledGraph:
        """Builds a labeled graph from an edge list and per-vertex labels.

        Label-aware canonicalization: self loops are dropped and edges
        deduplicated (:meth:`Graph.from_edges`); with ``relabel`` the vertices
        that appear in an edge are renumbered 0..n'-1 in increasing id order and
        their labels move with them (isolated vertices are dropped).

        Args:
          src: int array-like [e], edge sources.
          dst: int array-like [e], edge targets.
          labels: int array-like [n], label of vertex i (``n`` = number of
            vertices; ids must be < n).
          relabel: renumber as above.

        Raises:
          ValueError: ids out of range, labels not 1-D integers or beyond int32.
        """
        lab = _as_labels(labels)
        s = np.asarray(src, dtype=np.int64).reshape(-1)
        d = np.asarray(dst, dtype=np.int64).reshape(-1)
        if relabel:
            if s.size and max(s.max(), d.max()) >= lab.size:
                raise ValueError(f"vertex id out of range for {lab.size} labels")
            lab = lab[np.unique(np.concatenate([s, d]))]
        if s.shape != d.shape:
            raise ValueError(f"src and dst must have equal length, got {s.size} and {d.size}")
        if s.size and min(s.min(), d.min()) < 0:
            raise ValueError("vertex ids must be non-negative")
        if relabel and s.size:
            _, inverse = np.unique(np.concatenate([s, d]), return_inverse=True)
            s, d = inverse[: s.size], inverse[s.size :]
        if s.size and max(s.max(), d.max()) >= lab.size:
            raise ValueError(
                f"vertex id {max(s.max(), d.max())} is out of range for {lab.size} labels"
            )
        indptr, indices = _csr(s, d, lab.size)
        graph = Graph(jnp.asarray(indptr), jnp.asarray(indices), int(lab.size))
        return cls(graph=graph, labels=jnp.asarray(lab, jnp.int32))

    def edge_arrays(self) -> tuple[np.ndarray, np.ndarray]:
        """Each undirected edge once on the host: (src, dst) int32[m], src < dst, CSR order."""
        indptr = np.asarray(self.graph.indptr)
        indices = np.asarray(self.graph.indices)[: indptr[-1]]
        rows = np.repeat(np.arange(self.num_nodes, dtype=np.int32), np.diff(indptr))
        keep = rows < indices
        return rows[keep], indices[keep]

    @classmethod
    def from_networkx(cls, g: Any, label: str = "label") -> LabeledGraph:
        """Builds a labeled graph from a networkx graph (directions ignored).

        Nodes are numbered 0..n-1 in the order ``g.nodes`` lists them; each
        node's ``label`` attribute (an integer) is its label.

        Raises:
          ValueError: a node lacks the attribute or it is not an integer.
        """
        nodes = list(g.nodes)
        index = {node: i for i, node in enumerate(nodes)}
        try:
            lab = [g.nodes[v][label] for v in nodes]
        except KeyError as err:
            raise ValueError(f"node {err} has no {label!r} attribute (pass label=...)") from None
        pairs = np.array([(index[u], index[v]) for u, v in g.edges()], dtype=np.int64)
        pairs = pairs.reshape(-1, 2)
        return cls.from_edges(pairs[:, 0], pairs[:, 1], lab)

    def to_networkx(self, label: str = "label") -> Any:
        """The networkx Graph of this graph, labels in the ``label`` attribute."""
        import networkx as nx

        g = nx.Graph()
        lab = np.asarray(self.labels)
        g.add_nodes_from((i, {label: int(x)}) for i, x in enumerate(lab))
        src, dst = self.edge_arrays()
        g.add_edges_from(zip(src.tolist(), dst.tolist(), strict=True))
        return g

    def label_counts(self) -> dict[int, int]:
        """{label: number of vertices with it} (host)."""
        values, counts = np.unique(np.asarray(self.labels), return_counts=True)
        return dict(zip(values.tolist(), counts.tolist(), strict=True))


jax.tree_util.register_dataclass(LabeledGraph, data_fields=["graph", "labels"], meta_fields=[])


def _csr(src: np.ndarray, dst: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray]:
    """Symmetric CSR on the host: loops dropped, duplicates merged, rows sorted."""
    if n >= 2**31 - 1 or 2 * src.size >= 2**31:
        raise ValueError("graphs beyond 2^31 - 1 vertices or adjacency entries are unsupported")
    keep = src != dst
    u = np.concatenate([src[keep], dst[keep]])
    v = np.concatenate([dst[keep], src[keep]])
    key = np.unique(u * np.int64(max(n, 1)) + v)
    rows = (key // max(n, 1)).astype(np.int64)
    indptr = np.zeros(n + 1, np.int64)
    np.cumsum(np.bincount(rows, minlength=n), out=indptr[1:])
    return indptr.astype(np.int32), (key % max(n, 1)).astype(np.int32)


def _as_labels(labels: Any) -> np.ndarray:
    lab = np.asarray(labels)
    if lab.ndim != 1:
        raise ValueError(f"labels must be 1-D, got shape {lab.shape}")
    if lab.size and not np.issubdtype(lab.dtype, np.integer):
        raise ValueError("labels must be integers")
    lab = lab.astype(np.int64)
    if lab.size and (lab.min() < -(2**31) or lab.max() >= 2**31):
        raise ValueError("labels must fit int32")
    return lab


def load_labeled(path: PathLike) -> LabeledGraph:
    """Reads a ``.graph`` file (optionally gzipped) into a :class:`LabeledGraph`.

    Raises:
      GraphFormatError: a missing or bad header, a vertex line missing or out
        of order, an edge to a vertex that does not exist, a degree field that
        disagrees with the edges, or counts that disagree with the header.
      FileNotFoundError: no such file.
    """
    text = _read_text(path)
    fast = _parse_fast(text)
    if fast is not None:
        return LabeledGraph.from_edges(*fast)
    lines = text.split("\n")
    it = ((i + 1, ln.split()) for i, ln in enumerate(lines))
    header = None
    for lineno, fields in it:
        if fields:
            header = (lineno, fields)
            break
    if header is None:
        raise GraphFormatError(f"{path}: empty file (expected a header line 't N M')")
    lineno, fields = header
    if fields[0] != "t" or len(fields) < 3:
        raise GraphFormatError(f"{path}: line {lineno}: expected the header 't N M'")
    n, m = _ints(fields[1:3], path, lineno, "t N M")
    if n < 0 or m < 0:
        raise GraphFormatError(f"{path}: line {lineno}: negative sizes in the header")
    labels = np.empty(n, np.int64)
    degrees = np.full(n, -1, np.int64)
    seen = 0
    src, dst, edge_lines = [], [], []
    for lineno, fields in it:
        if not fields:
            continue
        kind = fields[0]
        if kind == "v":
            if src:
                raise GraphFormatError(f"{path}: line {lineno}: vertex line after the edges")
            if len(fields) < 3:
                raise GraphFormatError(f"{path}: line {lineno}: expected 'v id label [degree]'")
            vals = _ints(fields[1:4], path, lineno, "v id label degree")
            if vals[0] != seen:
                raise GraphFormatError(
                    f"{path}: line {lineno}: vertex {vals[0]} out of order (expected {seen})"
                )
            if seen >= n:
                raise GraphFormatError(f"{path}: line {lineno}: more than {n} vertex lines")
            labels[seen] = vals[1]
            if len(vals) > 2:
                degrees[seen] = vals[2]
            seen += 1
        elif kind == "e":
            if len(fields) < 3:
                raise GraphFormatError(f"{path}: line {lineno}: expected 'e u v'")
            u, v = _ints(fields[1:3], path, lineno, "e u v")
            for w in (u, v):
                if not 0 <= w < seen:
                    raise GraphFormatError(
                        f"{path}: line {lineno}: edge ({u}, {v}) names vertex {w}, which has "
                        f"no vertex line (vertices: {seen})"
                    )
            src.append(u)
            dst.append(v)
            edge_lines.append(lineno)
        else:
            raise GraphFormatError(f"{path}: line {lineno}: unknown line type {kind!r}")
    if seen != n:
        raise GraphFormatError(f"{path}: the header says {n} vertices but {seen} vertex lines")
    if len(src) != m:
        raise GraphFormatError(f"{path}: the header says {m} edges but {len(src)} edge lines")
    s = np.asarray(src, np.int64)
    d = np.asarray(dst, np.int64)
    if np.any(np.abs(labels) >= 2**31):
        raise GraphFormatError(f"{path}: a label does not fit int32")
    deg = np.bincount(np.concatenate([s, d]), minlength=n) if n else np.zeros(0, np.int64)
    bad = np.nonzero((degrees >= 0) & (degrees != deg))[0]
    if bad.size:
        v = int(bad[0])
        raise GraphFormatError(
            f"{path}: vertex {v}: degree field {int(degrees[v])} but {int(deg[v])} edges"
        )
    return LabeledGraph.from_edges(s, d, labels)


def _parse_fast(text: str) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """(src, dst, labels) of a well-formed file in one vectorized pass, else None.

    Any irregularity (or a check that fails) returns None and the line parser
    produces the precise error.
    """
    body = [ln for ln in text.split("\n") if ln.strip()]
    if not body:
        return None
    head = body[0].split()
    if len(head) != 3 or head[0] != "t" or not head[1].isdigit() or not head[2].isdigit():
        return None
    n, m = int(head[1]), int(head[2])
    if len(body) != 1 + n + m:
        return None
    try:
        vt = np.array(" ".join(body[1 : 1 + n]).split(), dtype=object)
        et = np.array(" ".join(body[1 + n :]).split(), dtype=object)
        if vt.size != 4 * n or (m and et.size not in (3 * m, 4 * m)):
            return None
        v = vt.reshape(n, 4)
        e = et.reshape(m, -1) if m else np.zeros((0, 3), object)
        if np.any(v[:, 0] != "v") or np.any(e[:, 0] != "e"):
            return None
        vi = v[:, 1:].astype(np.int64)
        ei = e[:, 1:3].astype(np.int64)
    except ValueError:
        return None
    if np.any(vi[:, 0] != np.arange(n)) or np.any(np.abs(vi[:, 1]) >= 2**31):
        return None
    if m and (ei.min() < 0 or ei.max() >= n):
        return None
    deg = np.bincount(ei.reshape(-1), minlength=n)
    if np.any(deg != vi[:, 2]):
        return None
    return ei[:, 0], ei[:, 1], vi[:, 1]


def save_labeled(graph: LabeledGraph, path: PathLike) -> None:
    """Writes ``graph`` as a ``.graph`` file (gzipped when the name ends in .gz)."""
    lab = np.asarray(graph.labels)
    deg = np.asarray(graph.graph.degrees())
    src, dst = graph.edge_arrays()
    out = [f"t {graph.num_nodes} {src.size}"]
    out += [f"v {i} {int(x)} {int(d)}" for i, (x, d) in enumerate(zip(lab, deg, strict=True))]
    out += [f"e {int(u)} {int(v)}" for u, v in zip(src, dst, strict=True)]
    data = ("\n".join(out) + "\n").encode()
    if str(path).endswith(".gz"):
        data = gzip.compress(data)
    with open(path, "wb") as f:
        f.write(data)


def _read_text(path: PathLike) -> str:
    with open(path, "rb") as f:
        data = f.read()
    if data[:2] == b"\x1f\x8b" or str(path).endswith(".gz"):
        try:
            data = gzip.decompress(data)
        except (OSError, EOFError) as err:
            raise GraphFormatError(f"{path}: not a valid gzip file ({err})") from err
    try:
        return data.decode("ascii")
    except UnicodeDecodeError as err:
        raise GraphFormatError(f"{path}: not a text .graph file ({err.reason})") from err


def _ints(fields: list[str], path: PathLike, lineno: int, what: str) -> list[int]:
    try:
        return [int(x) for x in fields]
    except ValueError:
        raise GraphFormatError(
            f"{path}: line {lineno}: expected integers in '{what}', got {' '.join(fields)!r}"
        ) from None
