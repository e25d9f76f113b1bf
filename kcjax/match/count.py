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

import functools
from collections.abc import Iterator
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from kcjax import _wide
from kcjax._args import as_int
from kcjax.errors import ListingOverflowError
from kcjax.graph.labeled import LabeledGraph
from kcjax.match import dense, inputs, kernels
from kcjax.match import plan as _plan
from kcjax.match.inputs import Method, prepare_match
from kcjax.match.plan import Order, Prepared
from kcjax.match.query import QuerySpec, unpack
from kcjax.match.sharded import count_embeddings_sharded


def count_embeddings_limbs(
    graph: LabeledGraph,
    query: LabeledGraph | QuerySpec,
    *,
    induced: bool = False,
    blacklist: bool = True,
    refine: bool = True,
    dominance: bool = True,
    order: Order = "estimate",
    symmetry: bool = True,
    num_threads: int = 0,
    compact: bool | None = None,
) -> jax.Array:
    """Counts embeddings of ``query`` in ``graph`` on the device; jit-able in ``graph``.

    Compacted (eagerly, ``compact``): two dispatches and one small transfer:
    the first filter pass and the subgraph its survivors induce (one
    program), their sizes to the host (to pick a shape bucket), then the rest
    of the plan and the search on that subgraph (one program). Otherwise one
    program on the whole graph, with no host sync: always when traced (under
    jit) or with ``blacklist=False``. The query's arrays and the data graph's
    query-independent side are cached per query and per graph.

    Args:
      graph, query, induced, blacklist, refine, dominance, order, symmetry,
        num_threads: as :func:`count_embeddings` (native depth-first engine).
      compact: shrink the graph to the first pass's survivors before the rest
        of the plan (eager only). None: when the graph has more than
        ``PlanPolicy.compact_min_entries`` CSR entries (on smaller graphs the
        host sync costs more than the shrinking saves).

    Returns:
      uint32[4]: the count as a 128-bit little-endian integer (mod 2^128).
    """
    inputs.check(graph, "dfs", order)
    spec = inputs.query_of(query)
    sw = inputs.switches(induced, blacklist, refine, dominance, order, symmetry)
    gp, packed, fl = inputs.graph_prep(graph), inputs.packed(spec, graph), inputs.flags(sw, graph)
    static = dict(
        q=spec.size,
        comps=inputs.components(spec),
        blacklist=sw.blacklist,
        order=sw.order,
        rounds=_plan.POLICY.rounds,
        num_threads=int(num_threads),
    )
    if compact is None:
        compact = int(graph.graph.indices.shape[0]) > _plan.POLICY.compact_min_entries
    if inputs.traced(graph) or not blacklist or not compact:
        return inputs.count_program(gp, packed, fl, **static)
    c = _plan.first_pass(gp, packed, q=spec.size)
    n_alive, e_alive = (int(x) for x in np.asarray(c.sizes))
    n_full, e_full = gp.real.shape[0], gp.indices.shape[0]
    return _count_compacted(
        c,
        packed,
        fl,
        n=min(_pow2(n_alive, _plan.POLICY.min_vertices), n_full),
        e=min(_pow2(e_alive, _plan.POLICY.min_entries), e_full),
        **static,
    )


def _pow2(x: int, floor: int) -> int:
    return max(floor, 1 << max(0, x - 1).bit_length())


@functools.partial(
    jax.jit,
    static_argnames=("n", "e", "q", "comps", "blacklist", "order", "rounds", "num_threads"),
)
def _count_compacted(
    c: _plan.Compacted,
    packed: jax.Array,
    fl: jax.Array,
    *,
    n: int,
    e: int,
    q: int,
    comps: int,
    blacklist: bool,
    order: int,
    rounds: int,
    num_threads: int,
) -> jax.Array:
    """The rest of the plan and the search on the first pass's subgraph: uint32[4] limbs."""
    gp, cand0 = _plan.shrink(c, n, e)
    sw = _plan.traced_switches(blacklist, order, fl)
    p = _plan.plan(gp, unpack(packed, q), sw, comps=comps, rounds=rounds, cand0=cand0)
    return kernels.count(p, num_threads=num_threads)


def count_embeddings(
    graph: LabeledGraph,
    query: LabeledGraph | QuerySpec,
    *,
    induced: bool = False,
    blacklist: bool = True,
    refine: bool = True,
    dominance: bool = True,
    order: Order = "estimate",
    symmetry: bool = True,
    method: Method = "dfs",
    mesh: Any = None,
    axis_name: Any = None,
    num_threads: int = 0,
) -> int:
    """Counts the embeddings of ``query`` in ``graph`` exactly.

    Semantics in the module docstring (non-induced by default). Pruning
    stages and the order are described in :mod:`kcjax.match.plan`; each is a
    switch here for ablations, and every setting gives the same count.

    Args:
      graph: the labeled data graph.
      query: the labeled query graph (concrete, 1..32 vertices).
      induced: also map non-edges to non-edges.
      blacklist: iterated neighbour-label pre-pruning (False: one filter pass).
      refine: the iterated filter also keeps v as a candidate of u only if
        every query neighbour u' of u has a candidate among v's neighbours and,
        for every label, v has as many neighbours among the candidates of u's
        neighbours of that label as u has such neighbours.
      dominance: vertices with equal labels and neighbourhoods share one branch
        (the "dfs" engine; the level and dense engines run without it).
      order: "estimate" (the smallest estimated search tree, from the
        candidate counts and the candidate edges between query neighbours),
        "gvsm" (greedy on GVSM's g) or "naive" (breadth-first by id).
      symmetry: count one embedding per class of |Aut(query)| (those that
        differ by an automorphism of the query) under order constraints and
        multiply by |Aut(query)| ("dfs"; :mod:`kcjax.match.symmetry`), except
        where two non-adjacent query vertices the constraints order share a
        candidate class of twins (:mod:`kcjax.match.plan`, stage 5).
      method: "dfs" (native kernels, the default), "prefix_tree" or "flat"
        (level-by-level expansion in JAX, chunked, eager), "dense" (adjacency
        matrix, eager; small data graphs, always blacklist and GVSM order).
      mesh: a ``jax.sharding.Mesh``: deal the roots over ``axis_name``'s
        devices by estimated cost and sum the counts exactly ("dfs" only;
        at most one device per root runs, the plan's device alone for one).
      axis_name: the mesh axis (default: its first).
      num_threads: CPU worker threads (0: all cores).

    Returns:
      The exact count (a Python int; 128-bit on the device).
    """
    inputs.check(graph, method, order)
    if mesh is not None and method != "dfs":
        raise ValueError("mesh= needs method='dfs'")
    if method == "dfs":
        switches = dict(
            induced=induced,
            blacklist=blacklist,
            refine=refine,
            dominance=dominance,
            order=order,
            symmetry=symmetry,
            num_threads=num_threads,
        )
        if mesh is None:
            return _wide.to_int(count_embeddings_limbs(graph, query, **switches))

        return _wide.to_int(
            count_embeddings_sharded(graph, query, mesh, axis_name=axis_name, **switches)
        )
    if method == "dense":
        p = prepare_match(
            graph, query, induced=induced, blacklist=True, refine=refine, dominance=False
        )
        return dense.count_dense(graph, p)
    p = prepare_match(
        graph,
        query,
        induced=induced,
        blacklist=blacklist,
        refine=refine,
        dominance=False,
        order=order,
    )
    return dense.count_levels(p, storage=method)


def find_embeddings(
    graph: LabeledGraph,
    query: LabeledGraph | QuerySpec,
    *,
    induced: bool = False,
    limit: int | None = None,
    capacity: int | None = None,
    blacklist: bool = True,
    refine: bool = True,
    order: Order = "estimate",
    method: Method = "dfs",
    num_threads: int = 0,
) -> Any:
    """Lists the embeddings of ``query`` in ``graph``.

    Eagerly with no ``limit``, the embeddings are counted first and listed
    into an exactly sized array; a ``capacity`` below their number raises
    :class:`kcjax.ListingOverflowError`. With ``limit``, listing stops after
    ``limit`` embeddings and the result says whether more exist. Under
    ``jax.jit`` a static ``capacity`` is required and the result carries an
    overflow flag (never a silent truncation).

    Args:
      graph, query, induced, blacklist, refine, order, num_threads: as in
        :func:`count_embeddings` (listing does not share branches).
      limit: eagerly, stop after this many embeddings.
      capacity: rows to allocate (required under jit).
      method: "dfs" (native kernels) or, eagerly without ``limit``,
        "prefix_tree" / "flat" (the level engines, bounded device memory).

    Returns:
      Eagerly without ``limit``: int32[c, |V(q)|], row r maps query vertex j
      to data vertex ``rows[r, j]``; rows sorted lexicographically.
      Eagerly with ``limit``: ``(rows, truncated)``, rows int32[<= limit, |V(q)|]
      (an arbitrary subset when truncated) and truncated a bool.
      Under jit: ``(int32[capacity, |V(q)|] with rows past the count -1 (sorted
      rows first), uint32[4] number found (> capacity on overflow), bool overflow)``.
    """
    inputs.check(graph, method, order)
    spec = inputs.query_of(query)
    traced = inputs.traced(graph)
    if method == "dfs" and not traced and limit is None:
        args, static = inputs.plan_inputs(
            graph, spec, induced, blacklist, refine, False, order, None
        )
        p, limbs = inputs.plan_and_count(*args, **static, num_threads=int(num_threads))
        total = _wide.to_int(limbs)
        cap = total if capacity is None else int(capacity)
        if total > cap:
            raise ListingOverflowError(f"{total} embeddings exist but capacity is {cap}")
        rows, _ = _list(p, max(cap, 1), num_threads)
        return np.asarray(rows)[:total]
    p = prepare_match(
        graph,
        spec,
        induced=induced,
        blacklist=blacklist,
        refine=refine,
        dominance=False,
        order=order,
    )
    if method in ("prefix_tree", "flat"):
        if traced or limit is not None:
            raise ValueError(f"method={method!r} lists eagerly and without a limit")
        rows = dense.list_levels(p, storage=method)
        if rows.shape[0] == 0:
            return np.zeros((0, spec.size), np.int32)
        return np.asarray(_finish_rows(jnp.asarray(rows), p.order))
    if method != "dfs":
        raise ValueError(f"find_embeddings supports methods dfs, prefix_tree, flat; got {method!r}")
    if traced:
        if capacity is None:
            raise ValueError("find_embeddings under jit needs a static capacity")
        rows, found = _list(p, capacity, num_threads)
        return rows, found, _wide.exceeds(found, capacity)
    limit = as_int(limit, "limit", minimum=0)  # eager with a limit (without one it returned above)
    rows, found = _list(p, max(int(limit), 1), num_threads)
    n_found = _wide.to_int(found)
    keep = min(n_found, int(limit))
    return np.asarray(rows)[:keep], n_found > limit


@jax.jit
def _finish_rows(rows: jax.Array, order: jax.Array) -> jax.Array:
    """Level-order rows -> query-vertex columns, sorted; -1 rows last."""
    out = jnp.zeros_like(rows).at[:, order].set(rows)
    pad = (out[:, 0] < 0).astype(jnp.int32)
    keys = [out[:, j] for j in range(out.shape[1] - 1, -1, -1)] + [pad]
    perm = jnp.lexsort(keys)
    return out[perm]


@functools.partial(jax.jit, static_argnames=("capacity", "num_threads"))
def _list(p: Prepared, capacity: int, num_threads: int) -> tuple[jax.Array, jax.Array]:
    """The listing and its rows in query-vertex columns, sorted: one program."""
    rows, found = kernels.match_list(
        p, p.roots, p.task_ptr, capacity=capacity, num_threads=num_threads
    )
    return _finish_rows(rows, p.order), found


def iter_embeddings(
    graph: LabeledGraph,
    query: LabeledGraph | QuerySpec,
    *,
    induced: bool = False,
    batch: int = 1 << 20,
    blacklist: bool = True,
    refine: bool = True,
    order: Order = "estimate",
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
    inputs.check(graph, "dfs", order)
    batch = as_int(batch, "batch", minimum=1)
    p = prepare_match(
        graph,
        query,
        induced=induced,
        blacklist=blacklist,
        refine=refine,
        dominance=False,
        order=order,
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
    graph: LabeledGraph,
    query: LabeledGraph | QuerySpec,
    *,
    induced: bool = False,
    blacklist: bool = True,
    refine: bool = True,
    dominance: bool = True,
    order: Order = "estimate",
    rounds: int | None = None,
    symmetry: bool = True,
) -> dict[str, Any]:
    """What the pruning stages did for (graph, query), as plain Python values.

    The plan is the one :func:`count_embeddings` searches (same switches and
    rounds), built by the diagnostic program that also returns the statistics.

    Returns:
      A dict: ``rounds`` (filter rounds that removed a candidate),
      ``rounds_run`` (rounds run), ``fixpoint`` (the last round run removed
      nothing: one more would remove nothing either), ``round_totals`` (total
      candidates after each round, up to the ``rounds`` limit),
      ``label_matches`` (data vertices with a query label), ``first_pass``
      (vertices left after the first filter pass), ``survivors`` and ``kept``
      (candidate of some query vertex after the rounds), ``classes``
      (representatives after branch sharing), ``twins`` (vertices folded into
      a representative), ``order`` (query vertex per level),
      ``automorphisms`` (|Aut(query)|), ``constraints`` (the order
      constraints the count's search meets: pairs (a, b) for f(a) < f(b);
      none with ``symmetry=False`` or where the plan keeps a twin class whole
      instead), and per query vertex ``cand_label``, ``cand_profile`` (after
      the first pass) and ``cand_final`` (after the rounds).
    """
    spec = inputs.query_of(query)
    p = prepare_match(
        graph,
        spec,
        induced=induced,
        blacklist=blacklist,
        refine=refine,
        dominance=dominance,
        order=order,
        rounds=rounds,
        symmetry=symmetry,
    )
    s = np.asarray(p.stats).tolist()
    q = spec.size
    sym = spec.symmetry()
    return {
        "rounds": int(p.rounds),
        "rounds_run": s[5],
        "fixpoint": bool(s[6]),
        "round_totals": s[7 + 3 * q :],
        "label_matches": s[0],
        "first_pass": s[1],
        "survivors": s[2],
        "kept": s[2],
        "classes": s[3],
        "twins": s[4],
        "order": np.asarray(p.order).tolist(),
        "automorphisms": sym.size,
        "constraints": [tuple(int(x) for x in ab) for ab in np.argwhere(sym.less)]
        if _wide.to_int(p.scale) > 1
        else [],
        "cand_label": s[7 : 7 + q],
        "cand_profile": s[7 + q : 7 + 2 * q],
        "cand_final": s[7 + 2 * q : 7 + 3 * q],
    }
