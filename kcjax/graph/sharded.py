"""A graph split over the devices of a mesh axis by a 1-D vertex partition.

Shard d of p owns the c vertices ``[d * c, (d + 1) * c)`` (c = n / p rounded up
to whole 32-bit bitmap words; the last shard's ids past n are padding without
edges) and the CSR rows of those vertices: local int32 row offsets and global
int32 column ids. So each shard indexes its own entries with int32 and the
whole graph may hold more than 2^31 of them.

Contiguous equal vertex ranges rather than ranges balanced by edges: every
shard then has the same static shapes, a vertex's owner and local index are a
shift and a mask, and the frontier bitmap is the shards' words end to end. The
Graph500 Kronecker generator here scrambles ids with a bijective hash, so its
ranges hold nearly equal numbers of edges; a user graph whose ids follow degree
can leave the shards uneven (correct, slower).

Kronecker graphs are generated on the mesh (:func:`kronecker_sharded`): every
device draws the same counter-based hash stream of edges and keeps the
entries of the rows it owns, with no communication and no host copy.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable
from typing import Any, TypeVar

import jax
import jax.numpy as jnp
import numpy as np
from jax.experimental import multihost_utils
from jax.sharding import Mesh, NamedSharding, PartitionSpec

from kcjax.graph.graph import Graph, row_ids
from kcjax.graph.orient import memo
from kcjax.parallel import constrain, mesh_axis, shard_map

_WORD = 32
_T = TypeVar("_T")
#: Generated edges drawn at once per device by :func:`kronecker_sharded` (memory:
#: a few int32 arrays of this length per device).
GENERATE_CHUNK = 1 << 22


@functools.partial(
    jax.tree_util.register_dataclass,
    data_fields=("indptr", "cols"),
    meta_fields=("num_nodes", "num_entries", "mesh", "axis", "degree_ordered"),
)
@dataclasses.dataclass(frozen=True)
class ShardedGraph:
    """An undirected graph over a mesh axis (a pytree: it can be a ``jax.jit`` argument).

    Attributes:
      indptr: int32[p * (c + 1)], sharded over ``axis``: shard d's row offsets
        into its own columns, ``indptr[d * (c + 1) + i]`` for its vertex
        ``d * c + i``.
      cols: int32[p * e], sharded: shard d's global column ids, each row sorted
        ascending, or by neighbour degree, largest first, where
        ``degree_ordered`` (entries past the shard's last offset are padding).
      num_nodes: vertices n (static).
      num_entries: CSR entries of the whole graph, 2 x its edges (static).
      mesh: the mesh (static).
      axis: the mesh axis the vertices are split over (static).
      degree_ordered: rows ordered by neighbour degree (:func:`degree_ordered`), for
        the bottom-up search (static).
    """

    indptr: jax.Array
    cols: jax.Array
    num_nodes: int
    num_entries: int
    mesh: Mesh
    axis: str
    degree_ordered: bool = False

    @property
    def indices(self) -> jax.Array:
        """``cols``: the array per-graph memos (:func:`kcjax.graph.orient.memo`) key on."""
        return self.cols

    @property
    def parts(self) -> int:
        """Shards p (devices along ``axis``)."""
        return int(self.mesh.shape[self.axis])

    @property
    def chunk(self) -> int:
        """Vertices per shard c (a multiple of 32)."""
        return self.indptr.shape[0] // self.parts - 1

    @property
    def num_edges(self) -> int:
        """Undirected edges (static)."""
        return self.num_entries // 2

    def __repr__(self) -> str:
        return (
            f"ShardedGraph(num_nodes={self.num_nodes:,}, num_edges={self.num_edges:,}, "
            f"parts={self.parts})"
        )

    def shard_entries(self) -> np.ndarray:
        """int64[p]: each shard's CSR entries (reads p numbers back)."""
        last = self.indptr.reshape(self.parts, self.chunk + 1)[:, -1]
        return to_host(last).astype(np.int64)

    def to_graph(self, device: jax.Device | None = None) -> Graph:
        """The same graph as one :class:`Graph` on one device (its CSR must fit int32).

        Args:
          device: where (``None``: the mesh's first device).

        Raises:
          ValueError: if the graph has 2^31 or more CSR entries, or its rows are
            degree-ordered (a Graph's rows are sorted).
        """
        if self.degree_ordered:
            raise ValueError("to_graph needs a ShardedGraph with sorted rows, not degree-ordered")
        if self.num_entries >= 2**31:
            raise ValueError(f"{self.num_entries:,} CSR entries exceed one device's int32 CSR")
        device = device or self.mesh.devices.flat[0]
        counts = self.shard_entries()
        indptr = [jax.device_put(x, device) for x in _shards(self.indptr)]
        cols = [jax.device_put(x, device) for x in _shards(self.cols)]
        return _gather_graph(indptr, cols, tuple(int(x) for x in counts), self.num_nodes)


def _shards(x: jax.Array) -> list[jax.Array]:
    """The single-device pieces of an array split along its first axis, in order."""
    pieces = sorted(x.addressable_shards, key=lambda s: s.index[0].start or 0)
    return [s.data for s in pieces]


@functools.partial(jax.jit, static_argnums=(2, 3))
def _gather_graph(
    indptr: list[jax.Array], cols: list[jax.Array], counts: tuple[int, ...], n: int
) -> Graph:
    starts = np.concatenate([[0], np.cumsum(counts)[:-1]]).astype(np.int32)
    rows = jnp.concatenate([p[:-1] + int(s) for p, s in zip(indptr, starts, strict=True)])[:n]
    total = int(sum(counts))
    indptr = jnp.concatenate([rows, jnp.full((1,), total, jnp.int32)])
    indices = jnp.concatenate([c[:k] for c, k in zip(cols, counts, strict=True)])
    return Graph(indptr=indptr, indices=indices, num_nodes=n)


def to_host(x: jax.Array) -> np.ndarray:
    """A small array's value on the host, also where it spans other processes' devices
    (gathered from every process: ``jax.distributed`` runs)."""
    if x.is_fully_addressable or x.is_fully_replicated:
        return np.asarray(x)
    return np.asarray(multihost_utils.process_allgather(x, tiled=True))


def concrete(compute: Callable[[], _T]) -> _T:
    """``compute()`` with concrete results also when called inside a jit trace (for a
    per-graph memo of a concrete graph): under a trace its eager work runs at trace
    time (``jax.ensure_compile_time_eval``; JAX then embeds the arrays it reads as
    constants, so the trace path is for small graphs or prepared ones); outside one it
    runs as it is (its jitted calls take their arrays as arguments)."""
    if not isinstance(jnp.zeros((), jnp.int32) + 0, jax.core.Tracer):
        return compute()
    with jax.ensure_compile_time_eval():
        return compute()


def chunk_size(num_nodes: int, parts: int) -> int:
    """Vertices per shard: n / parts rounded up to whole 32-bit words (at least one)."""
    return max(_WORD, -(-num_nodes // (parts * _WORD)) * _WORD)


def shard_graph(graph: Graph, mesh: Mesh, axis_name: Any = None) -> ShardedGraph:
    """Splits a graph over a mesh axis (memoized per graph, mesh and axis).

    Built from the graph's device arrays: the shards' row ranges are sliced on
    the graph's device and moved to their devices; only the p + 1 boundary
    offsets are read back (no host copy of the CSR).

    Args:
      graph: a concrete graph (not traced: the shards' sizes are static shapes).
      mesh: the mesh.
      axis_name: the axis to split over (``None``: the mesh's only axis).

    Returns:
      A :class:`ShardedGraph`.

    Raises:
      TypeError: ``graph`` is not a Graph.
      ValueError: a traced graph, or a bad axis.
    """
    if not isinstance(graph, Graph):
        raise TypeError(f"graph must be a kcjax.Graph, got {type(graph).__name__}")
    axis = mesh_axis(mesh, axis_name)
    if isinstance(graph.indices, jax.core.Tracer):
        raise ValueError(
            "a traced Graph cannot be split over a mesh (its shard sizes are static shapes): "
            "split it outside jax.jit with kcjax.shard_graph(graph, mesh) and pass the "
            "ShardedGraph in"
        )
    ids = ",".join(str(d.id) for d in mesh.devices.flat)
    key = f"mesh_partition:{mesh.axis_names}:{mesh.devices.shape}:{ids}:{axis}"
    return memo(graph, key, lambda: concrete(lambda: _shard(graph, mesh, axis)))


def _shard(graph: Graph, mesh: Mesh, axis: str) -> ShardedGraph:
    parts = int(mesh.shape[axis])
    n = graph.num_nodes
    c = chunk_size(n, parts)
    bounds = np.minimum(np.arange(parts + 1) * c, n)
    offsets = np.asarray(graph.indptr[jnp.asarray(bounds)]).astype(np.int64)
    width = max(1, int(np.max(np.diff(offsets))))
    indptr, cols = _slice_shards(
        graph.indptr,
        graph.indices,
        tuple(int(b) for b in bounds),
        tuple(int(o) for o in offsets),
        c,
        width,
    )
    spec = NamedSharding(mesh, PartitionSpec(axis))
    return ShardedGraph(
        indptr=jax.device_put(indptr, spec),
        cols=jax.device_put(cols, spec),
        num_nodes=n,
        num_entries=int(graph.indices.shape[0]),
        mesh=mesh,
        axis=axis,
    )


@functools.partial(jax.jit, static_argnums=(2, 3, 4, 5))
def _slice_shards(
    indptr: jax.Array,
    indices: jax.Array,
    bounds: tuple[int, ...],
    offsets: tuple[int, ...],
    c: int,
    width: int,
) -> tuple[jax.Array, jax.Array]:
    rows, cols = [], []
    for d in range(len(bounds) - 1):
        lo, hi = bounds[d], bounds[d + 1]
        local = indptr[lo : hi + 1] - offsets[d]
        rows.append(jnp.pad(local, (0, c + 1 - local.shape[0]), mode="edge"))
        part = indices[offsets[d] : offsets[d + 1]]
        cols.append(jnp.pad(part, (0, width - part.shape[0])))
    return jnp.concatenate(rows), jnp.concatenate(cols)


def degree_ordered(graph: ShardedGraph) -> ShardedGraph:
    """The graph with every row ordered by neighbour degree, largest first (ties by id),
    memoized per graph: the multi-device BFS's bottom-up search stops at a vertex's
    first frontier neighbour and meets the hubs first (as :func:`kcjax.prepare_bfs`).

    On the devices: each gathers every vertex's degree (n int32) and sorts its entries
    by (row, -degree, id). Distances do not change; parents may.
    """
    if graph.degree_ordered:
        return graph
    if isinstance(graph.cols, jax.core.Tracer):
        return _order_rows(graph)

    return memo(graph, "mesh_degree_ordered", lambda: concrete(lambda: _order_rows(graph)))


@jax.jit
def _order_rows(graph: ShardedGraph) -> ShardedGraph:
    axis, c = graph.axis, graph.chunk
    P = PartitionSpec

    def body(indptr, cols):
        degree = jax.lax.all_gather(jnp.diff(indptr), axis, tiled=True)
        e = cols.shape[0]
        live = jnp.arange(e, dtype=jnp.int32) < indptr[-1]
        rows = jnp.where(live, row_ids(indptr, e), c)  # padding sorts last
        key = jnp.where(live, -degree[cols], 0)
        return jax.lax.sort((rows, key, cols), num_keys=3)[2]

    cols = shard_map(body, graph.mesh, in_specs=(P(axis), P(axis)), out_specs=P(axis))(
        graph.indptr, graph.cols
    )
    return dataclasses.replace(graph, cols=cols, degree_ordered=True)


# ---- Kronecker graphs drawn on the mesh ----------------------------------------------

_GOLDEN = 0x9E3779B9
_MIX = 0x85EBCA77


def _fmix32(x: Any, xp: Any) -> Any:
    """MurmurHash3's 32-bit finalizer (a bijection of uint32), in numpy or jax.numpy."""
    x = x ^ (x >> xp.uint32(16))
    x = x * xp.uint32(0x85EBCA6B)
    x = x ^ (x >> xp.uint32(13))
    x = x * xp.uint32(0xC2B2AE35)
    return x ^ (x >> xp.uint32(16))


def _level_keys(seed: int, scale: int) -> np.ndarray:
    """uint32[scale]: the stream key of each bit level (host arithmetic, exact)."""
    keys = []
    for level in range(scale):
        x = np.uint32((seed * _GOLDEN + (level + 1) * _MIX) & 0xFFFFFFFF)
        keys.append(_fmix32(np.array([x], np.uint32), np).item())
    return np.array(keys, np.uint32)


def _perm_keys(seed: int) -> np.ndarray:
    """uint32[6]: three (odd multiplier, addend) pairs of the id permutation."""
    out = []
    for r in range(3):
        mul = _fmix32(np.array([(seed + 17 * r + 1) * _MIX & 0xFFFFFFFF], np.uint32), np).item()
        add = _fmix32(np.array([(seed + 31 * r + 7) * _GOLDEN & 0xFFFFFFFF], np.uint32), np).item()
        out += [mul | 1, add]
    return np.array(out, np.uint32)


def kronecker_edges(
    first: Any, count: int, scale: int, seed: int, abc: tuple[float, float, float], xp: Any = np
) -> tuple[Any, Any]:
    """Generated edges ``first .. first + count - 1`` of the hash stream, ids permuted.

    Edge i's quadrant at bit level b is decided by ``fmix32(i * golden ^ key_b)``
    (a counter-based draw: any device can draw any range of the stream), the ids
    then mapped through a bijective hash of ``[0, 2^scale)``. The same uint32
    arithmetic in numpy (``xp=np``, the host reference) and jax.numpy.

    Args:
      first: the first edge's index (< 2^32; a traced uint32 under jax).
      count: how many edges.
      scale: log2 of the number of vertices.
      seed: the stream's seed.
      abc: the R-MAT probabilities (a, b, c).
      xp: ``numpy`` or ``jax.numpy``.

    Returns:
      (src, dst) int32[count] each.
    """
    a, b, c = abc
    cut = [np.uint32(min(int(round(t * 2**32)), 2**32 - 1)) for t in (a, a + b, a + b + c)]
    i = xp.asarray(first, xp.uint32) + xp.arange(count, dtype=xp.uint32)
    base = i * xp.uint32(_GOLDEN)
    src = xp.zeros(count, xp.uint32)
    dst = xp.zeros(count, xp.uint32)
    for level, key in enumerate(_level_keys(seed, scale)):
        r = _fmix32(base ^ xp.uint32(key), xp)
        bit_src = r >= cut[1]
        bit_dst = (r >= cut[0]) & (~bit_src | (r >= cut[2]))
        src = src | (bit_src.astype(xp.uint32) << xp.uint32(level))
        dst = dst | (bit_dst.astype(xp.uint32) << xp.uint32(level))
    src, dst = permute_ids(src, scale, seed, xp), permute_ids(dst, scale, seed, xp)
    return src.astype(xp.int32), dst.astype(xp.int32)


def permute_ids(x: Any, scale: int, seed: int, xp: Any) -> Any:
    """A bijection of ``[0, 2^scale)``: rounds of an odd multiply, an add (mod 2^scale)
    and an xorshift (each invertible on scale-bit integers)."""
    if scale == 0:
        return x
    mask = xp.uint32((1 << scale) - 1)
    shift = xp.uint32((scale + 1) // 2)
    keys = _perm_keys(seed)
    for r in range(3):
        x = (x * xp.uint32(keys[2 * r]) + xp.uint32(keys[2 * r + 1])) & mask
        x = x ^ (x >> shift)
    return x


def kronecker_sharded(
    scale: int,
    edge_factor: int,
    seed: int,
    abc: tuple[float, float, float],
    mesh: Mesh,
    axis_name: Any = None,
) -> ShardedGraph:
    """A Graph500 Kronecker / R-MAT graph generated on a mesh (see :func:`kcjax.generators.rmat`).

    Every device draws the whole stream of ``edge_factor * 2^scale`` edges in
    chunks of :data:`GENERATE_CHUNK` (:func:`kronecker_edges`), keeps the entries
    of the rows it owns (both directions of each edge), then sorts and drops
    self loops and repeats on its own. A device whose rows hold more than
    :data:`ROUND_ENTRIES` generated entries builds them in rounds (a power of two
    of them), each drawing the stream again and keeping a slice of its rows, so
    the sort's memory stays bounded. No communication; the host reads only the
    shards' entry counts.

    Raises:
      ValueError: for a bad scale or edge factor, or a round of 2^31 or more
        entries before its repeats are dropped (use more devices).
    """
    if not 0 <= scale <= 31:
        raise ValueError(f"scale must be in 0..31, got {scale}")
    if edge_factor < 0:
        raise ValueError(f"edge_factor must be >= 0, got {edge_factor}")
    m = edge_factor << scale
    if m > 2**32:
        raise ValueError(f"{m:,} generated edges exceed the stream's 2^32 counter")
    axis = mesh_axis(mesh, axis_name)
    parts = int(mesh.shape[axis])
    n = 1 << scale
    c = chunk_size(n, parts)
    step = min(GENERATE_CHUNK, max(m, 1))
    chunks = -(-m // step)
    rounds = 1  # a power of two dividing c (a multiple of 32)
    while rounds < _WORD and 2 * m / parts > rounds * ROUND_ENTRIES:
        rounds *= 2
    args = (mesh, axis, scale, seed, tuple(float(x) for x in abc), m, step, chunks, c, rounds)
    kept = to_host(_count_kept(*args)).astype(np.int64)
    cap = int(kept.max(initial=0))
    if cap + 2 * step >= 2**31:
        raise ValueError(
            f"a shard would sort {cap:,} entries at once (2^31 or more) before repeats are "
            f"dropped: generate scale {scale} on more devices"
        )
    pieces = []
    for r in range(rounds):
        indptr, cols, unique = _fill(*args, max(cap, 1), np.int32(r))
        width = max(1, int(to_host(unique).max(initial=0)))
        pieces.append((indptr, _trim(mesh, axis, width, cols), unique))
    counts = np.sum([to_host(u).astype(np.int64) for _, _, u in pieces], axis=0)
    if rounds == 1:
        indptr, cols = pieces[0][0], pieces[0][1]
    else:
        width = max(1, int(counts.max(initial=0)))
        if width >= 2**31:
            raise ValueError(f"a shard holds {width:,} entries: generate on more devices")
        indptr, cols = _join(mesh, axis, width, tuple(pieces))
    return ShardedGraph(
        indptr=indptr, cols=cols, num_nodes=n, num_entries=int(counts.sum()), mesh=mesh, axis=axis
    )


#: Generated entries (both directions) a device sorts at once in :func:`kronecker_sharded`
#: (memory: about 8 int32 arrays of this length; 2^29 is 16 GiB at the sort's peak).
ROUND_ENTRIES = 1 << 29


def _owned_entries(first, step, m, scale, seed, abc, base, c):
    """A chunk's entries of the shard's rows: (local row, col, keep) of 2 x step."""
    src, dst = kronecker_edges(first, step, scale, seed, abc, jnp)
    left = jnp.uint32(max(m, 1) - 1) - first  # the rest of the stream, less one (no wrap)
    live = (jnp.arange(step, dtype=jnp.uint32) <= left) & (src != dst)
    rows = jnp.concatenate([src, dst]) - base
    cols = jnp.concatenate([dst, src])
    keep = jnp.concatenate([live, live]) & (rows >= 0) & (rows < c)
    return rows, cols, keep


@functools.partial(jax.jit, static_argnums=tuple(range(10)))
def _count_kept(mesh, axis, scale, seed, abc, m, step, chunks, c, rounds):
    """int32[p * rounds]: each shard's kept entries per round (its rows' slice)."""
    per = c // rounds

    def body(token):
        base = jax.lax.axis_index(axis) * c

        def one(k, total):
            first = k.astype(jnp.uint32) * jnp.uint32(step)
            rows, _, keep = _owned_entries(first, step, m, scale, seed, abc, base, c)
            # A reduction per round (a scatter-add would serialize on a few counters).
            slices = [keep & (rows // per == r) for r in range(rounds)]
            return total + jnp.stack([jnp.sum(x, dtype=jnp.int32) for x in slices])

        return jax.lax.fori_loop(0, chunks, one, jnp.zeros((rounds,), jnp.int32)) + 0 * token

    P = PartitionSpec
    token = jnp.zeros((int(mesh.shape[axis]) * rounds,), jnp.int32)
    token = constrain(token, NamedSharding(mesh, P(axis)))
    return shard_map(body, mesh, in_specs=P(axis), out_specs=P(axis))(token)


@functools.partial(jax.jit, static_argnums=tuple(range(11)))
def _fill(mesh, axis, scale, seed, abc, m, step, chunks, c, rounds, cap, r):
    """Round r of every shard: its rows' slice ``[r * c / rounds, (r + 1) * c / rounds)``
    sorted and without repeats: (row offsets int32[c / rounds + 1], cols int32[cap],
    entries int32[1]) per shard."""
    per = c // rounds

    def body(token, r):
        base = jax.lax.axis_index(axis) * c + r * per

        def one(k, state):
            rows_buf, cols_buf, at = state
            first = k.astype(jnp.uint32) * jnp.uint32(step)
            rows, cols, keep = _owned_entries(first, step, m, scale, seed, abc, base, per)
            pos = jnp.where(keep, at + jnp.cumsum(keep, dtype=jnp.int32) - 1, cap)
            rows_buf = rows_buf.at[pos].set(rows, mode="drop")
            cols_buf = cols_buf.at[pos].set(cols, mode="drop")
            return rows_buf, cols_buf, at + jnp.sum(keep, dtype=jnp.int32)

        rows = jnp.full((cap,), per, jnp.int32)  # padding rows sort last
        cols = jnp.zeros((cap,), jnp.int32)
        rows, cols, _ = jax.lax.fori_loop(0, chunks, one, (rows, cols, jnp.int32(0)))
        rows, cols = jax.lax.sort((rows, cols), num_keys=2)
        repeat = (rows[1:] == rows[:-1]) & (cols[1:] == cols[:-1])
        new = jnp.ones((cap,), jnp.bool_).at[1:].set(~repeat)
        keep = new & (rows < per)
        pos = jnp.where(keep, jnp.cumsum(keep, dtype=jnp.int32) - 1, cap)
        unique = jnp.sum(keep, dtype=jnp.int32)
        urows = jnp.full((cap,), per, jnp.int32).at[pos].set(rows, mode="drop")
        ucols = jnp.zeros((cap,), jnp.int32).at[pos].set(cols, mode="drop")
        indptr = jnp.searchsorted(urows, jnp.arange(per + 1, dtype=jnp.int32), side="left")
        return indptr.astype(jnp.int32), ucols, unique.reshape(1) + 0 * token

    P = PartitionSpec
    token = constrain(jnp.zeros((int(mesh.shape[axis]),), jnp.int32), NamedSharding(mesh, P(axis)))
    fn = shard_map(body, mesh, in_specs=(P(axis), P()), out_specs=(P(axis), P(axis), P(axis)))
    return fn(token, r)


@functools.partial(jax.jit, static_argnums=(0, 1, 2))
def _join(mesh, axis, width, pieces):
    """Each shard's rounds end to end: (row offsets int32[c + 1], cols int32[width])."""
    P = PartitionSpec

    def body(*flat):
        out = jnp.zeros((width,), jnp.int32)
        rows, at = [], jnp.int32(0)
        for i in range(0, len(flat), 3):
            indptr, cols, unique = flat[i], flat[i + 1], flat[i + 2][0]
            idx = jnp.arange(cols.shape[0], dtype=jnp.int32)
            out = out.at[jnp.where(idx < unique, at + idx, width)].set(cols, mode="drop")
            rows.append(indptr[:-1] + at)
            at = at + unique
        return jnp.concatenate([*rows, at.reshape(1)]), out

    flat = [x for piece in pieces for x in piece]
    fn = shard_map(body, mesh, in_specs=tuple(P(axis) for _ in flat), out_specs=(P(axis), P(axis)))
    return fn(*flat)


@functools.partial(jax.jit, static_argnums=(0, 1, 2))
def _trim(mesh, axis, width, cols):
    P = PartitionSpec
    return shard_map(lambda x: x[:width], mesh, in_specs=P(axis), out_specs=P(axis))(cols)
