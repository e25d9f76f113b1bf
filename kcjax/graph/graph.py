"""The undirected graph pytree (CSR on a JAX device) and its constructors."""

from __future__ import annotations

import dataclasses
import functools
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from kcjax._memory import require

_INT32_MAX = np.iinfo(np.int32).max


@dataclasses.dataclass(frozen=True)
class CanonReport:
    """What canonicalization changed in an edge list.

    Attributes:
      input_edges: edges given (rows of the input edge arrays).
      self_loops: input edges with ``src == dst`` (dropped).
      duplicates: input edges that repeated an earlier edge in either
        direction (dropped).
      num_nodes: vertices of the result.
      num_edges: undirected edges of the result.
    """

    input_edges: int
    self_loops: int
    duplicates: int
    num_nodes: int
    num_edges: int


@dataclasses.dataclass(frozen=True)
class Graph:
    """An undirected simple graph in CSR form, held as JAX arrays.

    A pytree: ``indptr`` and ``indices`` are leaves, ``num_nodes`` is static,
    so a Graph can be passed through ``jax.jit``.

    Attributes:
      indptr: int32[num_nodes + 1] row pointers.
      indices: int32[2 * num_edges] neighbour ids; every row sorted ascending,
        no self loops, no duplicates, symmetric.
      num_nodes: number of vertices (static).
    """

    indptr: jax.Array
    indices: jax.Array
    num_nodes: int

    @property
    def num_edges(self) -> int:
        """Number of undirected edges (static)."""
        return int(self.indices.shape[0]) // 2

    def __repr__(self) -> str:
        return f"Graph(num_nodes={self.num_nodes:,}, num_edges={self.num_edges:,})"

    def degrees(self) -> jax.Array:
        """int32[num_nodes]: the degree of every vertex."""
        return jnp.diff(self.indptr)

    def edges(self) -> tuple[jax.Array, jax.Array]:
        """Each undirected edge once, as (src, dst) int32[num_edges] with src < dst.

        One compiled program per graph size (eagerly too).
        """
        return _edges(self.indptr, self.indices, self.num_edges)

    @classmethod
    def from_edges(
        cls,
        src: Any,
        dst: Any,
        num_nodes: int | None = None,
        *,
        relabel: bool = False,
        return_report: bool = False,
        return_ids: bool = False,
    ) -> Graph | tuple[Any, ...]:
        """Builds a Graph from an edge list, canonicalizing it on the device.

        Self loops are dropped, edges symmetrized and deduplicated. Runs
        eagerly (the result's size depends on the data). An edge list of more
        than 2^30 - 1 edges (its symmetrized form past int32 indexing) is
        deduplicated as undirected pairs first, on the device, and accepted if
        what is left fits (a Kronecker graph of scale 26: 2^30 generated
        edges, about 3% duplicates and loops).

        Args:
          src: integer array-like [e], edge sources (numpy, jax or list); with
            jax arrays for both ends (and no ``relabel``) the edges stay on
            their device.
          dst: integer array-like [e], edge targets.
          num_nodes: number of vertices; defaults to max id + 1 (or the number
            of distinct ids with ``relabel``). Ids must be < num_nodes.
          relabel: renumber the vertices that appear in an edge to 0..n-1 in
            increasing order of their original ids.
          return_report: also return a :class:`CanonReport`.
          return_ids: also return the original ids: with ``relabel``,
            int64[d] ascending, the d distinct ids of the edge list (vertex
            i < d was ``ids[i]``); without it, ``None`` (ids are kept).

        Returns:
          The Graph; ``(Graph, CanonReport)`` with ``return_report``; the ids
          appended last with ``return_ids``.

        Raises:
          ValueError: for negative or out-of-range ids, mismatched lengths, or
            more distinct edges than int32 indexing allows (2^30 - 1).
        """
        if isinstance(src, jax.Array) and isinstance(dst, jax.Array) and not relabel:
            src_np, dst_np = _device_id_arrays(src, dst)
        else:
            src_np, dst_np = _as_id_arrays(src, dst)
        ids = np.zeros(0, np.int64) if relabel else None
        if relabel and src_np.size:
            ids, inverse = np.unique(np.concatenate([src_np, dst_np]), return_inverse=True)
            ids = ids.astype(np.int64)
            src_np = inverse[: src_np.size]
            dst_np = inverse[src_np.size :]
            if num_nodes is not None and num_nodes < ids.size:
                raise ValueError(f"num_nodes={num_nodes} but {ids.size} distinct ids appear")
            num_nodes = ids.size if num_nodes is None else num_nodes
        max_id = int(max(src_np.max(), dst_np.max())) if src_np.size else -1
        if num_nodes is None:
            num_nodes = max_id + 1
        if num_nodes < 0:
            raise ValueError(f"num_nodes must be >= 0, got {num_nodes}")
        if max_id >= num_nodes:
            raise ValueError(f"vertex id {max_id} is out of range for num_nodes={num_nodes}")
        input_edges, pre_loops = int(src_np.size), None
        if num_nodes <= _INT32_MAX - 1 and 2 * input_edges > _INT32_MAX:
            if input_edges > _INT32_MAX:
                raise ValueError(f"{input_edges:,} edges exceed int32 indexing")
            require(
                32 * input_edges,
                f"deduplicating {input_edges:,} edges",
                "split the edge list or use a device with more memory",
            )
            src_np, dst_np, pre_loops = _unique_pairs(src_np, dst_np, int(num_nodes))
        if num_nodes > _INT32_MAX - 1 or 2 * src_np.size > _INT32_MAX:
            raise ValueError("graphs beyond 2^31 - 1 vertices or adjacency entries are unsupported")
        require(
            _canonical_bytes(int(num_nodes), int(src_np.size)),
            f"a graph of {int(num_nodes):,} vertices (ids up to {max_id:,}) and "
            f"{int(src_np.size):,} edges",
            "relabel=True numbers the vertices that have edges 0..n-1"
            if not relabel
            else "use a machine with more memory",
        )
        graph, dropped_loops, nnz = _canonicalize(src_np, dst_np, int(num_nodes))
        extra = (ids,) if return_ids else ()
        if not return_report:
            return (graph, *extra) if extra else graph
        loops = int(dropped_loops if pre_loops is None else pre_loops)
        report = CanonReport(
            input_edges=input_edges,
            self_loops=loops,
            duplicates=input_edges - loops - nnz // 2,
            num_nodes=int(num_nodes),
            num_edges=nnz // 2,
        )
        return graph, report, *extra

    @classmethod
    def from_networkx(cls, g: Any) -> Graph:
        """Builds a Graph from a networkx graph (directions ignored).

        Nodes are numbered 0..n-1 in the order ``g.nodes`` lists them; isolated
        nodes are kept.
        """
        index = {node: i for i, node in enumerate(g.nodes)}
        pairs = np.array([(index[u], index[v]) for u, v in g.edges()], dtype=np.int64)
        pairs = pairs.reshape(-1, 2)
        return cls.from_edges(pairs[:, 0], pairs[:, 1], num_nodes=len(index))

    @classmethod
    def from_scipy(cls, matrix: Any) -> Graph:
        """Builds a Graph from a square scipy.sparse matrix or array.

        Every stored nonzero (i, j) is an edge; directions are ignored.
        """
        coo = matrix.tocoo()
        if coo.shape[0] != coo.shape[1]:
            raise ValueError(f"adjacency matrix must be square, got shape {coo.shape}")
        nz = coo.data != 0
        return cls.from_edges(coo.row[nz], coo.col[nz], num_nodes=coo.shape[0])


jax.tree_util.register_dataclass(
    Graph, data_fields=["indptr", "indices"], meta_fields=["num_nodes"]
)


def _as_id_arrays(src: Any, dst: Any) -> tuple[np.ndarray, np.ndarray]:
    s = np.asarray(src)
    d = np.asarray(dst)
    _check_shapes(s, d)
    for name, a in (("src", s), ("dst", d)):
        if a.size == 0 or np.issubdtype(a.dtype, np.integer):
            continue
        if not np.issubdtype(a.dtype, np.floating) or not np.all(np.mod(a, 1) == 0):
            raise ValueError(f"{name} holds non-integer vertex ids")
    s = s.astype(np.int64, copy=False)
    d = d.astype(np.int64, copy=False)
    if s.size and min(s.min(), d.min()) < 0:
        raise ValueError("vertex ids must be non-negative")
    return s, d


def _check_shapes(src: Any, dst: Any) -> None:
    if src.ndim != 1 or dst.ndim != 1 or src.shape != dst.shape:
        shapes = f"{src.shape} and {dst.shape}"
        raise ValueError(f"src and dst must be 1-D of equal length, got {shapes}")


def _device_id_arrays(src: jax.Array, dst: jax.Array) -> tuple[jax.Array, jax.Array]:
    """:func:`_as_id_arrays` for device arrays: the same checks, one host read of the minimum."""
    _check_shapes(src, dst)
    for name, a in (("src", src), ("dst", dst)):
        if a.size and not jnp.issubdtype(a.dtype, jnp.integer):
            raise ValueError(f"{name} holds non-integer vertex ids")
    if src.size and int(jnp.minimum(src.min(), dst.min())) < 0:
        raise ValueError("vertex ids must be non-negative")
    return src, dst


def _canonical_bytes(num_nodes: int, num_edges: int) -> int:
    """Bytes canonicalization holds at its peak: a few int32 vertex arrays, and
    the padded, symmetrized edge arrays with their sort buffers."""
    return 16 * (num_nodes + 1) + 48 * _padded_size(num_edges)


def _padded_size(num_edges: int) -> int:
    """The edge arrays' length in canonicalization: the next power of two, so that
    graphs of similar size share compiled executables, unless its symmetrized form
    would pass int32 indexing (then the exact length)."""
    padded = 1 << max(0, num_edges - 1).bit_length()
    return padded if 2 * padded <= _INT32_MAX else num_edges


def _unique_pairs(src: Any, dst: Any, num_nodes: int) -> tuple[jax.Array, jax.Array, int]:
    """The distinct undirected non-loop pairs (lo, hi) of an edge list, on the default
    device (or the arrays' own), and the number of self loops it held."""
    src = jnp.asarray(src, jnp.int32)
    dst = jnp.asarray(dst, jnp.int32)
    loops = int(jnp.count_nonzero(src == dst))
    lo, hi = _sorted_pairs(src, dst, jnp.int32(num_nodes))
    first = _first_of_run(lo, hi, jnp.int32(num_nodes))
    kept = int(jnp.sum(first))
    (sel,) = jnp.nonzero(first, size=kept)
    return lo[sel], hi[sel], loops


@jax.jit
def _sorted_pairs(src: jax.Array, dst: jax.Array, n: jax.Array) -> tuple[jax.Array, jax.Array]:
    lo, hi = jnp.minimum(src, dst), jnp.maximum(src, dst)
    return jax.lax.sort((jnp.where(lo == hi, n, lo), hi), num_keys=2)  # loops sort last


def home_device(array: jax.Array) -> jax.Device | None:
    """The one device an eager array lives on (None: traced, or spread over several)."""
    if isinstance(array, jax.core.Tracer):
        return None
    devices = array.devices()
    return next(iter(devices)) if len(devices) == 1 else None


@functools.lru_cache(maxsize=4096)
def int32_on(values: tuple[int, ...] | int, device: jax.Device) -> jax.Array:
    """int32 ``values`` (a scalar for an int, else int32[len]) kept on ``device``,
    cached: a small per-call argument (a BFS source, a k) an eager call then does not
    copy to the device."""
    return jax.device_put(np.asarray(values, np.int32), device)


def row_ids(indptr: jax.Array, nnz: int) -> jax.Array:
    """int32[nnz]: the row of every CSR entry."""
    n = indptr.shape[0] - 1
    return jnp.repeat(jnp.arange(n, dtype=jnp.int32), jnp.diff(indptr), total_repeat_length=nnz)


@functools.partial(jax.jit, static_argnums=2)
def _edges(indptr: jax.Array, indices: jax.Array, num_edges: int) -> tuple[jax.Array, jax.Array]:
    rows = row_ids(indptr, indices.shape[0])
    (sel,) = jnp.nonzero(rows < indices, size=num_edges)
    return rows[sel], indices[sel]


def _canonicalize(src: Any, dst: Any, num_nodes: int) -> tuple[Graph, int, int]:
    """Symmetrizes, drops loops and duplicates; returns (graph, loops, nnz).

    src and dst are checked id arrays (numpy, or jax arrays left on their
    device). The edge arrays are padded with self loops to :func:`_padded_size`
    (numpy arrays on the host, so one program serves every size that pads to
    the same length); one read-back gives the loops and the kept entries.
    """
    size = int(src.size)
    padded = _padded_size(size)
    if isinstance(src, np.ndarray) and isinstance(dst, np.ndarray):
        src, dst = _padded_host(src, padded), _padded_host(dst, padded)
    u, v, first, counts = _sort_and_mark(src, dst, np.int32(num_nodes), np.int32(size), padded)
    loops, nnz = (int(c) for c in np.asarray(counts))
    indptr, indices = _compact(u, v, first, num_nodes)
    return Graph(indptr=indptr, indices=indices[:nnz], num_nodes=num_nodes), loops, nnz


def _padded_host(ids: np.ndarray, padded: int) -> np.ndarray:
    out = np.zeros(padded, np.int32)
    out[: ids.size] = ids
    return out


@functools.partial(jax.jit, static_argnums=4)
def _sort_and_mark(
    src: jax.Array, dst: jax.Array, n: jax.Array, size: jax.Array, padded: int
) -> tuple[jax.Array, jax.Array, jax.Array, jax.Array]:
    """The symmetrized entries sorted (u, v; self loops last), the first of each
    run of equal entries that is no loop, and int32[2]: the self loops among the
    first ``size`` edges, the kept entries."""
    src, dst = src.astype(jnp.int32), dst.astype(jnp.int32)
    if src.shape[0] < padded:
        src = jnp.pad(src, (0, padded - src.shape[0]))
        dst = jnp.pad(dst, (0, padded - dst.shape[0]))
    loops = jnp.count_nonzero((src == dst) & (jnp.arange(padded) < size))
    u = jnp.concatenate([src, dst])
    v = jnp.concatenate([dst, src])
    u, v = jax.lax.sort((jnp.where(u == v, n, u), v), num_keys=2)
    first = _first_of_run(u, v, n)
    return u, v, first, jnp.stack([loops, jnp.sum(first)]).astype(jnp.int32)


@jax.jit
def _first_of_run(u: jax.Array, v: jax.Array, n: jax.Array) -> jax.Array:
    new = jnp.ones_like(u, dtype=bool).at[1:].set((u[1:] != u[:-1]) | (v[1:] != v[:-1]))
    return new & (u < n)


@functools.partial(jax.jit, static_argnums=3)
def _compact(u: jax.Array, v: jax.Array, first: jax.Array, n: int) -> tuple[jax.Array, jax.Array]:
    """CSR of the kept entries: (indptr int32[n + 1], indices int32[len(u)], valid prefix)."""
    (sel,) = jnp.nonzero(first, size=u.shape[0], fill_value=u.shape[0] - 1)
    counts = jnp.zeros(n + 1, jnp.int32).at[jnp.where(first, u, n)].add(1)[:n]
    indptr = jnp.concatenate([jnp.zeros(1, jnp.int32), jnp.cumsum(counts, dtype=jnp.int32)])
    return indptr, v[sel]
