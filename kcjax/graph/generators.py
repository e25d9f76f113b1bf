"""Seeded random and structured graph generators, vectorized with numpy.

Every generator returns a canonical :class:`Graph` (self loops and duplicate
edges dropped). Random generators take a ``seed`` and are reproducible: the
same arguments give the same graph on every machine (numpy's PCG64). R-MAT and
Kronecker graphs can also be drawn on the default JAX device (``on_device=True``:
jax.random's threefry stream, so the same seed gives another graph than the
host's, but the same one on every device and backend).
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from jax.sharding import Mesh

from kcjax.graph.graph import Graph
from kcjax.graph.sharded import ShardedGraph, kronecker_sharded


def rmat(
    scale: int,
    edge_factor: int = 16,
    a: float = 0.57,
    b: float = 0.19,
    c: float = 0.19,
    seed: int = 0,
    *,
    permute: bool = True,
    on_device: bool = False,
) -> Graph:
    """An R-MAT / Graph500 Kronecker graph.

    Follows the Graph500 reference generator: ``edge_factor * 2**scale`` edges,
    each placed by ``scale`` recursive quadrant choices with probabilities
    (a, b, c, 1 - a - b - c), then (with ``permute``) the vertex ids shuffled
    so that degree does not follow the id. Self loops and repeated edges are
    dropped, so the graph has somewhat fewer edges than generated.

    Args:
      scale: log2 of the number of vertices (0..30).
      edge_factor: generated edges per vertex.
      a: probability of the top-left quadrant.
      b: probability of the top-right quadrant.
      c: probability of the bottom-left quadrant.
      seed: random seed.
      permute: shuffle vertex ids (Graph500 does).
      on_device: draw the edges with jax.random on the default device and
        canonicalize them there (no host copy: the way to generate scales of
        24 and up, or Kron-20-512, in seconds; up to 2^31 - 1 generated
        edges, e.g. scale 26 at edge factor 16). Another random stream than
        the host's numpy draws: the same seed gives a different graph.

    Returns:
      A Graph with ``2**scale`` vertices (isolated ones included).
    """
    if not 0 <= scale <= 30:
        raise ValueError(f"scale must be in 0..30, got {scale}")
    if edge_factor < 0:
        raise ValueError(f"edge_factor must be >= 0, got {edge_factor}")
    if min(a, b, c) < 0 or a + b + c > 1 or a + b <= 0 or a + b >= 1:
        raise ValueError(f"need a, b, c >= 0, 0 < a + b < 1, a + b + c <= 1; got {a}, {b}, {c}")
    n, m = 1 << scale, edge_factor << scale
    if on_device:
        if m > np.iinfo(np.int32).max:
            raise ValueError(f"{m:,} generated edges exceed int32 indexing")
        key = jax.random.key(seed)
        src, dst = _rmat_edges(key, m, scale, float(a), float(b), float(c), permute)
        return Graph.from_edges(src, dst, num_nodes=n)
    rng = np.random.default_rng(seed)
    # One uniform draw per edge and bit level picks the quadrant:
    # [0, a) top-left, [a, a+b) top-right, [a+b, a+b+c) bottom-left, else bottom-right.
    t_a, t_ab, t_abc = np.float32(a), np.float32(a + b), np.float32(a + b + c)
    ids = np.int32 if scale <= 30 else np.int64
    src = np.zeros(m, ids)
    dst = np.zeros(m, ids)
    r = np.empty(m, np.float32)
    bit_src = np.empty(m, bool)
    bit_dst = np.empty(m, bool)
    for bit in range(scale):
        rng.random(out=r, dtype=np.float32)
        np.greater_equal(r, t_ab, out=bit_src)
        # dst bit: top-right [a, a+b) or bottom-right [a+b+c, 1)
        np.greater_equal(r, t_a, out=bit_dst)
        bit_dst &= ~bit_src | (r >= t_abc)
        src |= bit_src.astype(ids) << bit
        dst |= bit_dst.astype(ids) << bit
    if permute:
        perm = rng.permutation(n).astype(ids)
        src, dst = perm[src], perm[dst]
    return Graph.from_edges(src, dst, num_nodes=n)


@functools.partial(jax.jit, static_argnums=(1, 2, 3, 4, 5, 6))
def _rmat_edges(
    key: jax.Array, m: int, scale: int, a: float, b: float, c: float, permute: bool
) -> tuple[jax.Array, jax.Array]:
    """The device twin of :func:`rmat`'s draws: one uniform per edge and bit level."""
    t_a, t_ab, t_abc = np.float32(a), np.float32(a + b), np.float32(a + b + c)
    draws, perm_key = jax.random.split(key)

    def level(bit, ends):
        src, dst = ends
        r = jax.random.uniform(jax.random.fold_in(draws, bit), (m,), jnp.float32)
        bit_src = r >= t_ab
        bit_dst = (r >= t_a) & (~bit_src | (r >= t_abc))
        src = src | (bit_src.astype(jnp.int32) << bit)
        dst = dst | (bit_dst.astype(jnp.int32) << bit)
        return src, dst

    zeros = jnp.zeros(m, jnp.int32)
    src, dst = jax.lax.fori_loop(0, scale, level, (zeros, zeros))
    if permute:
        perm = jax.random.permutation(perm_key, 1 << scale).astype(jnp.int32)
        src, dst = perm[src], perm[dst]
    return src, dst


def erdos_renyi(n: int, p: float, seed: int = 0) -> Graph:
    """A G(n, p) random graph: every vertex pair is an edge with probability p.

    Sampled exactly in O(n + m) time by geometric skips over the n(n-1)/2
    vertex pairs (Batagelj and Brandes), in vectorized batches.

    Args:
      n: number of vertices.
      p: edge probability, in [0, 1].
      seed: random seed.

    Returns:
      A Graph with n vertices.
    """
    src, dst = _gnp_pairs(n, p, np.random.default_rng(seed))
    return Graph.from_edges(src, dst, num_nodes=n)


def complete(n: int) -> Graph:
    """The complete graph K_n: n vertices, n(n-1)/2 edges."""
    _check_n(n)
    src, dst = np.triu_indices(n, 1)
    return Graph.from_edges(src, dst, num_nodes=n)


def star(n: int) -> Graph:
    """The star on n vertices: vertex 0 joined to each of vertices 1..n-1."""
    _check_n(n)
    leaves = np.arange(1, n, dtype=np.int64)
    return Graph.from_edges(np.zeros_like(leaves), leaves, num_nodes=n)


def planted_cliques(
    n: int,
    p: float,
    clique_sizes: Sequence[int],
    seed: int = 0,
    *,
    return_members: bool = False,
) -> Graph | tuple[Graph, list[np.ndarray]]:
    """A G(n, p) graph with cliques planted on disjoint random vertex sets.

    Args:
      n: number of vertices.
      p: background edge probability, in [0, 1].
      clique_sizes: size of every planted clique; their sum must be <= n.
      seed: random seed.
      return_members: also return the planted cliques' vertices.

    Returns:
      The Graph, or ``(Graph, members)`` with ``return_members``, where
      ``members[i]`` is int64[clique_sizes[i]], the sorted vertices of clique i.
    """
    sizes = [int(s) for s in clique_sizes]
    if any(s < 0 for s in sizes) or sum(sizes) > n:
        raise ValueError(f"clique sizes must be >= 0 and sum to at most n={n}, got {sizes}")
    rng = np.random.default_rng(seed)
    src, dst = _gnp_pairs(n, p, rng)
    chosen = rng.permutation(n)[: sum(sizes)]
    members = [np.sort(part) for part in np.split(chosen, np.cumsum(sizes)[:-1])] if sizes else []
    srcs, dsts = [src], [dst]
    for clique in members:  # one vectorized step per clique
        i, j = np.triu_indices(clique.size, 1)
        srcs.append(clique[i])
        dsts.append(clique[j])
    graph = Graph.from_edges(np.concatenate(srcs), np.concatenate(dsts), num_nodes=n)
    return (graph, members) if return_members else graph


def chung_lu(n: int, average_degree: float, exponent: float = 2.5, seed: int = 0) -> Graph:
    """A sparse power-law graph (Chung-Lu): edge {i, j} with probability
    ``min(1, w_i w_j / sum(w))`` for weights ``w_i ~ (i + 1) ** (-1 / (exponent - 1))``
    scaled to the average degree.

    Sampled as ``n * average_degree / 2`` endpoint pairs drawn by weight
    (duplicates and loops dropped, so the realized average degree is a little
    lower); low transitivity, a heavy-tailed degree distribution.

    Args:
      n: number of vertices (>= 1).
      average_degree: target average degree (> 0).
      exponent: power-law exponent of the degree distribution (> 2).
      seed: random seed.
    """
    _check_n(n)
    if not average_degree > 0 or not exponent > 2:
        raise ValueError(
            f"average_degree must be > 0 and exponent > 2, got {average_degree}, {exponent}"
        )
    rng = np.random.default_rng(seed)
    weights = (np.arange(n) + 1.0) ** (-1.0 / (exponent - 1.0))
    cdf = np.cumsum(weights / weights.sum())
    edges = int(n * average_degree / 2)
    ends = np.searchsorted(cdf, rng.random(2 * edges) * cdf[-1], side="right")
    ends = np.minimum(ends, n - 1)
    perm = rng.permutation(n)  # hubs at random ids
    return Graph.from_edges(perm[ends[:edges]], perm[ends[edges:]], num_nodes=n)


def plant_blocks(
    graph: Graph,
    sizes: Sequence[int],
    *,
    density: float = 1.0,
    missing: int = 0,
    seed: int = 0,
) -> Graph:
    """``graph`` with dense blocks planted on disjoint random vertex sets.

    Every block joins each pair of its vertices with probability ``density``
    (1: a clique) and then loses ``missing`` of its pairs at random (a
    near-clique); the graph's own edges among the block's vertices stay.

    Args:
      graph: the host graph.
      sizes: vertices of every block; their sum must be <= graph.num_nodes.
      density: pair probability inside a block, in [0, 1].
      missing: pairs removed from every block after planting (>= 0).
      seed: random seed.
    """
    sizes = [int(x) for x in sizes]
    n = graph.num_nodes
    if any(x < 0 for x in sizes) or sum(sizes) > n:
        raise ValueError(f"block sizes must be >= 0 and sum to at most n={n}, got {sizes}")
    if not 0.0 <= density <= 1.0 or missing < 0:
        raise ValueError(f"density must be in [0, 1] and missing >= 0, got {density}, {missing}")
    rng = np.random.default_rng(seed)
    src, dst = (np.asarray(x) for x in graph.edges())
    keep = np.ones(src.size, bool)
    srcs, dsts = [], []
    chosen = rng.permutation(n)[: sum(sizes)]
    for block in np.split(chosen, np.cumsum(sizes)[:-1]) if sizes else []:
        i, j = np.triu_indices(block.size, 1)
        take = rng.random(i.size) < density
        if missing:
            drop = rng.choice(i.size, size=min(missing, i.size), replace=False)
            take[drop] = False
            inside = np.zeros(n, bool)
            inside[block] = True
            lost = set(zip(block[i[drop]].tolist(), block[j[drop]].tolist(), strict=True))
            lost |= {(b, a) for a, b in lost}
            both = np.flatnonzero(inside[src] & inside[dst])
            for e in both:  # the host's own edges on removed pairs go too
                if (int(src[e]), int(dst[e])) in lost:
                    keep[e] = False
        srcs.append(block[i[take]])
        dsts.append(block[j[take]])
    return Graph.from_edges(
        np.concatenate([src[keep], *srcs]), np.concatenate([dst[keep], *dsts]), num_nodes=n
    )


def disjoint_union(*graphs: Graph) -> Graph:
    """The disjoint union: graph i's vertices are shifted past graphs 0..i-1.

    Args:
      *graphs: the graphs, in order (none gives the empty graph).

    Returns:
      A Graph with ``sum(g.num_nodes)`` vertices and ``sum(g.num_edges)`` edges.
    """
    sizes = [g.num_nodes for g in graphs]
    node_offsets = np.cumsum([0, *sizes])
    entry_offsets = np.cumsum([0, *(g.indices.shape[0] for g in graphs)])
    if node_offsets[-1] >= np.iinfo(np.int32).max or entry_offsets[-1] > np.iinfo(np.int32).max:
        raise ValueError("the union exceeds int32 vertex or adjacency indexing")
    indptr = [jnp.zeros(1, jnp.int32)]
    indices = [jnp.zeros(0, jnp.int32)]
    for g, v0, e0 in zip(graphs, node_offsets[:-1], entry_offsets[:-1], strict=True):
        indptr.append(g.indptr[1:] + np.int32(e0))
        indices.append(g.indices + np.int32(v0))
    return Graph(
        indptr=jnp.concatenate(indptr),
        indices=jnp.concatenate(indices),
        num_nodes=int(node_offsets[-1]),
    )


def _check_n(n: int) -> None:
    if n < 0:
        raise ValueError(f"number of vertices must be >= 0, got {n}")


def _gnp_pairs(n: int, p: float, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """Each of the n(n-1)/2 pairs with probability p, as (src, dst) int64[e], src > dst."""
    _check_n(n)
    if not 0.0 <= p <= 1.0:
        raise ValueError(f"edge probability p must be in [0, 1], got {p}")
    pairs = n * (n - 1) // 2
    if p == 0.0 or pairs == 0:
        empty = np.zeros(0, np.int64)
        return empty, empty
    # Positions of successes in a Bernoulli(p) sequence over the pairs: the
    # gaps are Geometric(p). Draw in batches of the expected count plus slack.
    chunks, last = [], -1
    batch = int(pairs * p + 6 * np.sqrt(pairs * p) + 64)
    while last < pairs:
        pos = last + np.cumsum(rng.geometric(p, size=batch))
        chunks.append(pos[pos < pairs])
        last = int(pos[-1])
    t = np.concatenate(chunks)
    # Pair index t -> (i, j), i > j >= 0, in row-major lower-triangle order.
    i = ((1.0 + np.sqrt(1.0 + 8.0 * t.astype(np.float64))) / 2.0).astype(np.int64)
    i -= i * (i - 1) // 2 > t  # correct float rounding either way
    i += (i + 1) * i // 2 <= t
    return i, t - i * (i - 1) // 2


def kronecker(
    scale: int,
    edge_factor: int = 16,
    seed: int = 0,
    *,
    on_device: bool = False,
    mesh: Mesh | None = None,
    axis_name: Any = None,
) -> Graph | ShardedGraph:
    """A Graph500 Kronecker graph: :func:`rmat` with (A, B, C) = (0.57, 0.19, 0.19).

    ``edge_factor * 2**scale`` generated edges with permuted vertex ids, the
    Graph500 benchmark's input (loops and duplicates dropped).

    With ``mesh`` the graph is generated split over the mesh's devices and
    returned as a :class:`~kcjax.graph.sharded.ShardedGraph` (for
    ``kcjax.bfs``): every device draws the same counter-based hash stream
    (:func:`kcjax.graph.sharded.kronecker_edges`; another stream than the
    host's and ``on_device``'s) and keeps its own rows, so the graph never
    passes through one device or the host and may hold 2^31 or more CSR
    entries (each shard fewer). The same seed gives the same graph on any
    number of devices.

    Args:
      scale: log2 of the number of vertices (0..30; with ``mesh`` 0..31).
      edge_factor: generated edges per vertex (Graph500: 16).
      seed: random seed.
      on_device: draw on the default JAX device (see :func:`rmat`).
      mesh: generate over this mesh instead.
      axis_name: the mesh axis to split over (``None``: the mesh's only axis).

    Raises:
      ValueError: a bad argument, ``on_device`` with ``mesh``, or (with
        ``mesh``) more than 2^32 generated edges or a shard of 2^31 entries.
    """
    if mesh is not None:
        if on_device:
            raise ValueError("give on_device or mesh, not both")
        return kronecker_sharded(scale, edge_factor, seed, (0.57, 0.19, 0.19), mesh, axis_name)
    return rmat(scale, edge_factor, 0.57, 0.19, 0.19, seed, permute=True, on_device=on_device)


def rmat_graph500(
    scale: int, edge_factor: int = 16, seed: int = 0, *, on_device: bool = False
) -> Graph:
    """R-MAT with (A, B, C) = (0.45, 0.15, 0.15), the Enterprise paper's R-MAT; permuted ids.

    Args:
      scale: log2 of the number of vertices (0..30).
      edge_factor: generated edges per vertex.
      seed: random seed.
      on_device: draw on the default JAX device (see :func:`rmat`).
    """
    return rmat(scale, edge_factor, 0.45, 0.15, 0.15, seed, permute=True, on_device=on_device)
