"""Counting and listing embeddings of a labeled query graph (GVSM-style).

Semantics: an embedding of a query q in a data graph G (both undirected,
vertex-labeled; there are no edge labels) is an injective map f: V(q) -> V(G)
with label(f(u)) == label(u) for every query vertex and {f(u), f(v)} an edge
of G for every query edge {u, v}: a non-induced match (networkx "subgraph
monomorphism"); embeddings that differ by an automorphism of q count
separately. With ``induced=True`` non-edges of q must also map to non-edges
of G (networkx "subgraph isomorphism").
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, Literal

import jax
import jax.numpy as jnp
import numpy as np

from kcjax import _wide
from kcjax.graph.graph import Graph
from kcjax.graph.labeled import LabeledGraph
from kcjax.match import kernels
from kcjax.match.plan import (
    Order,
    Prepared,
    QuerySpec,
    pack,
    prepare_packed,
    query_spec,
)

Engine = Literal["dfs", "prefix_tree", "flat", "dense"]
#: Search engines: the native depth-first kernels ("dfs"); level-by-level
#: expansion in JAX with partial embeddings as a prefix tree ({vid, parent})
#: or flat rows; a dense adjacency-matrix formulation for small graphs.
ENGINES: tuple[str, ...] = ("dfs", "prefix_tree", "flat", "dense")
ORDERS: tuple[str, ...] = ("gvsm", "naive")


class ListingOverflowError(RuntimeError):
    """More embeddings exist than the capacity given."""


def _check(data: Any, engine: str, order: str) -> None:
    if not isinstance(data, LabeledGraph):
        raise TypeError(
            f"data must be a kcjax LabeledGraph (kcjax.load_labeled, LabeledGraph.from_networkx),"
            f" got {type(data).__name__}"
        )
    if engine not in ENGINES:
        raise ValueError(f"engine must be one of {ENGINES}, got {engine!r}")
    if order not in ORDERS:
        raise ValueError(f"order must be one of {ORDERS}, got {order!r}")


def _round_up(x: int) -> int:
    """Shape bucket: powers of two up to 2^10, then steps of an eighth of a power of two."""
    x = max(int(x), 32)
    if x <= 1 << 10:
        return 1 << (x - 1).bit_length()
    step = 1 << ((x - 1).bit_length() - 3)
    return -(-x // step) * step


_PAD_CACHE: dict[tuple[int, int], tuple[Any, Any, LabeledGraph]] = {}


def _padded(data: LabeledGraph) -> LabeledGraph:
    """``data`` with its vertex and entry counts rounded up to shape buckets.

    Padding vertices are isolated (the plan marks them invalid); padding CSR
    entries lie past indptr[n]. Eager only; the last few results are cached
    per graph so that repeated queries reuse one padded copy and one
    compilation per bucket.
    """
    g = data.graph
    n, e = g.num_nodes, int(g.indices.shape[0])
    n_pad, e_pad = _round_up(n), _round_up(e)
    if (n_pad, e_pad) == (n, e):
        return data
    key = (id(g.indices), id(data.labels))  # a graph may carry other labels
    hit = _PAD_CACHE.get(key)
    if hit is not None and hit[0] is g.indices and hit[1] is data.labels:
        return hit[2]
    indptr = np.asarray(g.indptr)
    indptr = np.concatenate([indptr, np.full(n_pad - n, indptr[-1], np.int32)])
    indices = np.concatenate([np.asarray(g.indices), np.zeros(e_pad - e, np.int32)])
    labels = np.concatenate([np.asarray(data.labels), np.zeros(n_pad - n, np.int32)])
    out = LabeledGraph(
        graph=Graph(jnp.asarray(indptr), jnp.asarray(indices), n_pad), labels=jnp.asarray(labels)
    )
    if len(_PAD_CACHE) >= 8:
        _PAD_CACHE.pop(next(iter(_PAD_CACHE)))
    _PAD_CACHE[key] = (g.indices, data.labels, out)
    return out


def _traced(data: LabeledGraph) -> bool:
    return isinstance(data.labels, jax.core.Tracer) or isinstance(
        data.graph.indices, jax.core.Tracer
    )


def prepare_match(
    data: LabeledGraph,
    query: LabeledGraph | QuerySpec,
    *,
    induced: bool = False,
    blacklist: bool = True,
    dominance: bool = True,
    order: Order = "gvsm",
) -> Prepared:
    """Pruned data graph and search plan of (data, query); jit-able in ``data``.

    See :mod:`kcjax.match.plan` for the stages and the switches. Eagerly the
    data graph is padded to a shape bucket (isolated padding vertices, never
    candidates), so the plan's vertex arrays may be longer than ``data``'s.
    """
    _check(data, "dfs", order)
    spec = query_spec(query)
    n = data.num_nodes
    if not _traced(data):
        data = _padded(data)
    fl = (bool(induced), bool(blacklist), bool(dominance), order == "naive")
    return prepare_packed(
        data, jnp.asarray(pack(spec, fl, n)), q=spec.size, comps=spec.components()
    )


def count_embeddings_limbs(
    data: LabeledGraph,
    query: LabeledGraph | QuerySpec,
    *,
    induced: bool = False,
    blacklist: bool = True,
    dominance: bool = True,
    order: Order = "gvsm",
    num_threads: int = 0,
) -> jax.Array:
    """Counts embeddings of ``query`` in ``data`` on the device; jit-able in ``data``.

    The plan is shared with :func:`find_embeddings` and :func:`match_stats`
    (one compilation per data-graph shape bucket and query size).

    Args: as :func:`count_embeddings` (native depth-first engine).

    Returns:
      uint32[4]: the count as a 128-bit little-endian integer (mod 2^128).
    """
    p = prepare_match(
        data, query, induced=induced, blacklist=blacklist, dominance=dominance, order=order
    )
    return kernels.match_count(p, p.roots, p.task_ptr, num_threads=num_threads)[0]


def count_embeddings(
    data: LabeledGraph,
    query: LabeledGraph | QuerySpec,
    *,
    induced: bool = False,
    blacklist: bool = True,
    dominance: bool = True,
    order: Order = "gvsm",
    engine: Engine = "dfs",
    mesh: Any = None,
    axis_name: Any = None,
    num_threads: int = 0,
) -> int:
    """Counts the embeddings of ``query`` in ``data`` exactly.

    Semantics in the module docstring (non-induced by default). Pruning
    stages and the order are described in :mod:`kcjax.match.plan`; each is a
    switch here for ablations, and every setting gives the same count.

    Args:
      data: the labeled data graph.
      query: the labeled query graph (concrete, 1..32 vertices).
      induced: also map non-edges to non-edges.
      blacklist: iterated neighbour-label pre-pruning (False: one filter pass).
      dominance: vertices with equal labels and neighbourhoods share one branch
        (the "dfs" engine; the level and dense engines run without it).
      order: "gvsm" (greedy on GVSM's g) or "naive" (breadth-first by id).
      engine: "dfs" (native kernels, the default), "prefix_tree" or "flat"
        (level-by-level expansion in JAX, chunked, eager), "dense" (adjacency
        matrix, eager; small data graphs, always blacklist and GVSM order).
      mesh: a ``jax.sharding.Mesh``: deal the roots over ``axis_name``'s
        devices by estimated cost and sum the counts exactly ("dfs" only).
      axis_name: the mesh axis (default: its first).
      num_threads: CPU worker threads (0: all cores).

    Returns:
      The exact count (a Python int; 128-bit on the device).
    """
    _check(data, engine, order)
    if mesh is not None and engine != "dfs":
        raise ValueError("mesh= needs engine='dfs'")
    if engine == "dfs":
        switches = dict(
            induced=induced,
            blacklist=blacklist,
            dominance=dominance,
            order=order,
            num_threads=num_threads,
        )
        if mesh is None:
            return _wide.to_int(count_embeddings_limbs(data, query, **switches))
        from kcjax.match.sharded import count_embeddings_sharded

        return _wide.to_int(
            count_embeddings_sharded(data, query, mesh, axis_name=axis_name, **switches)
        )
    from kcjax.match import levels

    if engine == "dense":
        p = prepare_match(data, query, induced=induced, blacklist=True, dominance=False)
        return levels.count_dense(data, p)
    p = prepare_match(
        data, query, induced=induced, blacklist=blacklist, dominance=False, order=order
    )
    return levels.count_levels(p, storage=engine)


def find_embeddings(
    data: LabeledGraph,
    query: LabeledGraph | QuerySpec,
    *,
    induced: bool = False,
    limit: int | None = None,
    capacity: int | None = None,
    blacklist: bool = True,
    order: Order = "gvsm",
    engine: Engine = "dfs",
    num_threads: int = 0,
) -> Any:
    """Lists the embeddings of ``query`` in ``data``.

    Eagerly with no ``limit``, the embeddings are counted first and listed
    into an exactly sized array. With ``limit``, listing stops after
    ``limit`` embeddings and the result says whether more exist. Under
    ``jax.jit`` a static ``capacity`` is required and the result carries an
    overflow flag (never a silent truncation).

    Args:
      data, query, induced, blacklist, order, num_threads: as in
        :func:`count_embeddings` (listing does not share branches).
      limit: eagerly, stop after this many embeddings.
      capacity: rows to allocate (required under jit).
      engine: "dfs" (native kernels) or, eagerly without ``limit``,
        "prefix_tree" / "flat" (the level engines, bounded device memory).

    Returns:
      Eagerly without ``limit``: int32[c, |V(q)|], row r maps query vertex j
      to data vertex ``rows[r, j]``; rows sorted lexicographically.
      Eagerly with ``limit``: ``(rows, truncated)``, rows int32[<= limit, |V(q)|]
      (an arbitrary subset when truncated) and truncated a bool.
      Under jit: ``(int32[capacity, |V(q)|] with rows past the count -1 (sorted
      rows first), uint32[4] number found (> capacity on overflow), bool overflow)``.
    """
    _check(data, engine, order)
    spec = query_spec(query)
    traced = _traced(data)
    p = prepare_match(
        data, spec, induced=induced, blacklist=blacklist, dominance=False, order=order
    )
    if engine in ("prefix_tree", "flat"):
        if traced or limit is not None:
            raise ValueError(f"engine={engine!r} lists eagerly and without a limit")
        from kcjax.match import levels

        rows = levels.list_levels(p, storage=engine)
        if rows.shape[0] == 0:
            return np.zeros((0, spec.size), np.int32)
        return np.asarray(_finish_rows(jnp.asarray(rows), p.order))
    if engine != "dfs":
        raise ValueError(f"find_embeddings supports engines dfs, prefix_tree, flat; got {engine!r}")
    if traced:
        if capacity is None:
            raise ValueError("find_embeddings under jit needs a static capacity")
        rows, found = _list(p, capacity, num_threads)
        return rows, found, _wide.exceeds(found, capacity)
    if limit is not None:
        if limit < 0:
            raise ValueError(f"limit must be >= 0, got {limit}")
        rows, found = _list(p, max(int(limit), 1), num_threads)
        n_found = _wide.to_int(found)
        keep = min(n_found, int(limit))
        return np.asarray(rows)[:keep], n_found > limit
    total = _wide.to_int(kernels.match_count(p, p.roots, p.task_ptr, num_threads=num_threads)[0])
    cap = total if capacity is None else int(capacity)
    if total > cap:
        raise ListingOverflowError(f"{total} embeddings exist but capacity is {cap}")
    rows, _ = _list(p, max(cap, 1), num_threads)
    return np.asarray(rows)[:total]


@jax.jit
def _finish_rows(rows: jax.Array, order: jax.Array) -> jax.Array:
    """Level-order rows -> query-vertex columns, sorted; -1 rows last."""
    out = jnp.zeros_like(rows).at[:, order].set(rows)
    pad = (out[:, 0] < 0).astype(jnp.int32)
    keys = [out[:, j] for j in range(out.shape[1] - 1, -1, -1)] + [pad]
    perm = jnp.lexsort(keys)
    return out[perm]


def _list(p: Prepared, capacity: int, num_threads: int) -> tuple[jax.Array, jax.Array]:
    rows, found = kernels.match_list(
        p, p.roots, p.task_ptr, capacity=capacity, num_threads=num_threads
    )
    return _finish_rows(rows, p.order), found


def iter_embeddings(
    data: LabeledGraph,
    query: LabeledGraph | QuerySpec,
    *,
    induced: bool = False,
    batch: int = 1 << 20,
    blacklist: bool = True,
    order: Order = "gvsm",
    num_threads: int = 0,
) -> Iterator[np.ndarray]:
    """Streams the embeddings to the host in batches with bounded device memory.

    The embeddings are counted per root (first matched data vertex); roots are
    grouped so that each group's embeddings fit ``batch`` rows and each group
    is listed into a ``batch``-row buffer. A single root with more than
    ``batch`` embeddings is listed alone with an exact capacity (the one case
    where a buffer exceeds ``batch`` rows).

    Yields:
      int32[c, |V(q)|] arrays (c <= batch but for the case above), together
      exactly the embeddings of :func:`find_embeddings`.
    """
    _check(data, "dfs", order)
    if batch < 1:
        raise ValueError(f"batch must be >= 1, got {batch}")
    p = prepare_match(
        data, query, induced=induced, blacklist=blacklist, dominance=False, order=order
    )
    per = kernels.match_count(p, p.roots, p.task_ptr, per_root=True, num_threads=num_threads)
    counts = _wide.rows_to_ints(np.asarray(per), exact=True, what="embeddings per root")
    roots = np.asarray(p.roots)
    chunks = np.asarray(p.task_ptr)
    chunks = np.diff(chunks)
    start, r = 0, roots.size
    while start < r and roots[start] >= 0:
        stop, total = start, 0
        while stop < r and roots[stop] >= 0 and (stop == start or total + counts[stop] <= batch):
            total += int(counts[stop])
            stop += 1
        if total:
            sel = np.full(r, -1, np.int32)
            sel[: stop - start] = roots[start:stop]
            ptr = np.zeros(r + 1, np.int32)
            ptr[1 : stop - start + 1] = np.cumsum(chunks[start:stop])
            ptr[stop - start + 1 :] = ptr[stop - start]
            rows, found = kernels.match_list(
                p,
                jnp.asarray(sel),
                jnp.asarray(ptr),
                capacity=max(batch, total),
                num_threads=num_threads,
            )
            if _wide.to_int(found) != total:
                raise RuntimeError("internal error: listing disagrees with the per-root count")
            yield np.asarray(_finish_rows(rows, p.order))[:total]
        start = stop


def match_stats(
    data: LabeledGraph,
    query: LabeledGraph | QuerySpec,
    *,
    induced: bool = False,
    blacklist: bool = True,
    dominance: bool = True,
    order: Order = "gvsm",
) -> dict[str, Any]:
    """What the pruning stages did for (data, query), as plain Python values.

    Returns:
      A dict: ``rounds`` (blacklist rounds), ``label_matches`` (data vertices
      with a query label), ``survivors`` (not blacklisted), ``kept`` (candidate
      of some query vertex), ``classes`` (representatives after branch
      sharing), ``twins`` (vertices folded into a representative), ``order``
      (query vertex per level), and per query vertex ``cand_label``,
      ``cand_profile`` (label + neighbour-label profile, no blacklist) and
      ``cand_final`` (after the blacklist).
    """
    spec = query_spec(query)
    p = prepare_match(
        data, spec, induced=induced, blacklist=blacklist, dominance=dominance, order=order
    )
    s = np.asarray(p.stats).tolist()
    q = spec.size
    return {
        "rounds": int(p.rounds),
        "label_matches": s[0],
        "survivors": s[1],
        "kept": s[2],
        "classes": s[3],
        "twins": s[4],
        "order": np.asarray(p.order).tolist(),
        "cand_label": s[5 : 5 + q],
        "cand_profile": s[5 + q : 5 + 2 * q],
        "cand_final": s[5 + 2 * q : 5 + 3 * q],
    }
