"""Graph500's BFS result validation, on the host with numpy."""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from jax.sharding import NamedSharding, PartitionSpec

from kcjax.graph.graph import Graph, row_ids
from kcjax.graph.sharded import ShardedGraph, to_host
from kcjax.parallel import constrain, shard_map


class BFSValidationError(ValueError):
    """A BFS result failed validation; the message names the first failure."""


def validate_bfs_tree(graph: Graph, source: int, result: Any) -> None:
    """Checks one BFS result as Graph500 does; raises on the first failure.

    Checks: the source is its own parent at distance 0; a vertex has a parent
    iff it has a distance; every tree edge (parent[v], v) is a graph edge with
    dist[v] = dist[parent[v]] + 1 (so the parents form a tree rooted at the
    source); the distances of an edge's two ends differ by at most one; every
    vertex of the source's component is reached (no edge joins a reached and
    an unreached vertex).

    A :class:`~kcjax.graph.sharded.ShardedGraph` is checked on its devices
    (each device its own rows, against the distances of the whole graph); the
    host reads only the checks' failure counts and witnesses.

    Args:
      graph: the graph searched (a Graph or a ShardedGraph).
      source: the root.
      result: a single-source :class:`BFSResult` (with parents) or a
        ``(distances, parents)`` pair of int32[n] arrays.

    Raises:
      BFSValidationError: naming the first failed check and a witness.
      ValueError: for shapes that do not match the graph or no parents.
    """
    if isinstance(result, tuple):
        dist, par = result
    else:
        dist, par = result.distances, result.parents
    if par is None:
        raise ValueError("validation needs parents: call kcjax.bfs(..., parents=True)")
    n = graph.num_nodes
    if isinstance(graph, ShardedGraph):
        dist, par = jnp.asarray(dist, jnp.int32), jnp.asarray(par, jnp.int32)
    else:
        dist = np.asarray(dist).astype(np.int64)
        par = np.asarray(par).astype(np.int64)
    if dist.shape != (n,) or par.shape != (n,):
        raise ValueError(
            f"need distances and parents of shape ({n},) (one source), got {dist.shape}, "
            f"{par.shape}"
        )
    source = int(source)
    if not 0 <= source < n:
        raise ValueError(f"source must be in [0, {n}), got {source}")

    def fail(msg: str) -> None:
        raise BFSValidationError(f"BFS from {source}: {msg}")

    if isinstance(graph, ShardedGraph):
        counts, witnesses = (to_host(x) for x in _check_on_mesh(graph, source, dist, par))
        for check, count, v in zip(_MESH_CHECKS, counts, witnesses, strict=True):
            if count:
                fail(f"{count} failures of: {check}; the first at vertex {v}")
        return

    if dist[source] != 0 or par[source] != source:
        fail(
            f"the source must have distance 0 and be its own parent, got {dist[source]}, "
            f"{par[source]}"
        )
    bad = np.flatnonzero((dist < 0) != (par < 0))
    if bad.size:
        v = int(bad[0])
        fail(f"vertex {v} has distance {dist[v]} but parent {par[v]}")
    if np.any(dist < -1) or np.any(par >= n) or np.any(par < -1):
        v = int(np.flatnonzero((dist < -1) | (par >= n) | (par < -1))[0])
        fail(f"vertex {v} has an invalid distance {dist[v]} or parent {par[v]}")
    indptr = np.asarray(graph.indptr).astype(np.int64)
    indices = np.asarray(graph.indices).astype(np.int64)
    rows = np.repeat(np.arange(n), np.diff(indptr))
    child = np.flatnonzero((par >= 0) & (np.arange(n) != source))
    pv = par[child]
    if np.any(dist[pv] < 0) or np.any(dist[child] != dist[pv] + 1):
        i = int(np.flatnonzero((dist[pv] < 0) | (dist[child] != dist[pv] + 1))[0])
        fail(
            f"tree edge ({pv[i]}, {child[i]}) joins distances {dist[pv[i]]} and "
            f"{dist[child[i]]}, not consecutive levels"
        )
    # Each tree edge must be a graph edge: rows are sorted, so search the parent in v's row.
    lo, hi = indptr[child], indptr[child + 1]
    pos = _row_search(indices, lo, hi, pv)
    missing = (pos >= hi) | (indices[np.minimum(pos, len(indices) - 1)] != pv)
    if np.any(missing):
        i = int(np.flatnonzero(missing)[0])
        fail(f"tree edge ({pv[i]}, {child[i]}) is not an edge of the graph")
    du, dv = dist[rows], dist[indices]
    cross = (du >= 0) != (dv >= 0)
    if np.any(cross):
        i = int(np.flatnonzero(cross)[0])
        fail(
            f"edge ({rows[i]}, {indices[i]}) joins a reached and an unreached vertex: "
            "the component is not fully reached"
        )
    gap = (du >= 0) & (np.abs(du - dv) > 1)
    if np.any(gap):
        i = int(np.flatnonzero(gap)[0])
        fail(f"edge ({rows[i]}, {indices[i]}) joins distances {du[i]} and {dv[i]}")


def _row_search(
    indices: np.ndarray, lo: np.ndarray, hi: np.ndarray, keys: np.ndarray
) -> np.ndarray:
    """Vectorized lower_bound of keys[i] in the sorted slice indices[lo[i]:hi[i]]."""
    lo, hi = lo.copy(), hi.copy()
    while True:
        active = lo < hi
        if not np.any(active):
            return lo
        mid = (lo + hi) // 2
        less = active & (indices[np.minimum(mid, len(indices) - 1)] < keys)
        lo = np.where(less, mid + 1, lo)
        hi = np.where(active & ~less, mid, hi)


#: The checks of a ShardedGraph's validation, in order (as the host's above).
_MESH_CHECKS = (
    "the source must have distance 0 and be its own parent",
    "a vertex has a distance iff it has a parent",
    "distances >= -1 and parents in [-1, n)",
    "a tree edge (parent[v], v) joins consecutive levels",
    "a tree edge is an edge of the graph",
    "no edge joins a reached and an unreached vertex (the component is fully reached)",
    "the distances of an edge's ends differ by at most one",
)


@jax.jit
def _check_on_mesh(
    graph: ShardedGraph, source: int, dist: jax.Array, par: jax.Array
) -> tuple[jax.Array, jax.Array]:
    """Per check of :data:`_MESH_CHECKS`: failures (int32) and the smallest failing
    vertex (int32; n if none), every device checking its own rows."""
    axis, parts, c, n = graph.axis, graph.parts, graph.chunk, graph.num_nodes
    P = PartitionSpec
    pad = parts * c - n
    dist = jnp.pad(dist, (0, pad), constant_values=-1)
    par = jnp.pad(par, (0, pad), constant_values=-1)

    def shard(indptr, cols, d, p, whole, source):
        base = jax.lax.axis_index(axis) * c
        ids = base + jnp.arange(c, dtype=jnp.int32)
        e = cols.shape[0]
        entry = jnp.arange(e, dtype=jnp.int32)
        live = entry < indptr[-1]
        rows = jnp.where(live, row_ids(indptr, e), 0)
        pc = jnp.clip(p, 0, n - 1)
        child = (p >= 0) & (ids != source)
        # Whether v's row holds its parent, in any row order: one pass over the entries, a
        # running count of the hits read at the rows' ends (no scatter: rows are contiguous).
        hits = jnp.cumsum((live & (cols == pc[rows])).astype(jnp.int32))
        ends = jnp.concatenate([jnp.zeros((1,), jnp.int32), hits])[indptr]
        found = ends[1:] > ends[:-1]
        du, dv = d[rows], whole[cols]
        vertex_checks = (
            (ids == source) & ((d != 0) | (p != source)),
            (d < 0) != (p < 0),
            (d < -1) | (p >= n) | (p < -1),
            child & (whole[pc] != d - 1),
            child & ~found,
        )
        edge_checks = (
            live & ((du >= 0) != (dv >= 0)),
            live & (du >= 0) & (jnp.abs(du - dv) > 1),
        )
        counts, firsts = [], []
        for bad, at in [(b, ids) for b in vertex_checks] + [(b, base + rows) for b in edge_checks]:
            counts.append(jax.lax.psum(jnp.sum(bad, dtype=jnp.int32), axis))
            firsts.append(jax.lax.pmin(jnp.min(jnp.where(bad, at, n), initial=n), axis))
        return jnp.stack(counts), jnp.stack(firsts)

    fn = shard_map(
        shard,
        graph.mesh,
        in_specs=(P(axis), P(axis), P(axis), P(axis), P(), P()),
        out_specs=(P(), P()),
    )
    split, whole = NamedSharding(graph.mesh, P(axis)), NamedSharding(graph.mesh, P())
    return fn(
        graph.indptr,
        graph.cols,
        constrain(dist, split),
        constrain(par, split),
        constrain(dist, whole),
        jnp.int32(source),
    )
