"""A query graph on the host and as the arrays the plan reads.

A query enters a count as a :class:`QuerySpec` (hashable: a static jit
argument, memoized per query graph by :mod:`kcjax.match.inputs`) and travels
to the device as one int32 array (:func:`pack`), which the plan's program
reads back as :class:`QueryArrays` (:func:`unpack`).
"""

from __future__ import annotations

import dataclasses
import functools
from typing import NamedTuple

import jax
import numpy as np

from kcjax.graph.labeled import LabeledGraph
from kcjax.match.symmetry import Symmetry, symmetry

#: Largest query handled (level masks are 32-bit words).
MAX_QUERY = 32


@dataclasses.dataclass(frozen=True)
class QuerySpec:
    """A concrete query graph on the host (hashable: a static jit argument).

    Attributes:
      labels: label of query vertex i.
      edges: undirected edges (u, v), u < v, sorted, no duplicates.
    """

    labels: tuple[int, ...]
    edges: tuple[tuple[int, int], ...]

    @property
    def size(self) -> int:
        return len(self.labels)

    def adjacency(self) -> np.ndarray:
        """bool[q, q] adjacency matrix."""
        a = np.zeros((self.size, self.size), bool)
        for u, v in self.edges:
            a[u, v] = a[v, u] = True
        return a

    def components(self) -> int:
        """Number of connected components."""
        adj, seen, comps = self.adjacency(), np.zeros(self.size, bool), 0
        for s in range(self.size):
            if seen[s]:
                continue
            comps += 1
            stack = [s]
            seen[s] = True
            while stack:
                u = stack.pop()
                for w in np.nonzero(adj[u] & ~seen)[0]:
                    seen[w] = True
                    stack.append(int(w))
        return comps

    def symmetry(self) -> Symmetry:
        """The automorphism group's size and order constraints (:mod:`kcjax.match.symmetry`)."""
        return _symmetry(self)

    def naive_order(self) -> np.ndarray:
        """Breadth-first order by vertex id (each component from its lowest id)."""
        adj, seen, order = self.adjacency(), np.zeros(self.size, bool), []
        for s in range(self.size):
            if seen[s]:
                continue
            seen[s] = True
            queue = [s]
            while queue:
                u = queue.pop(0)
                order.append(u)
                for w in np.nonzero(adj[u] & ~seen)[0]:
                    seen[w] = True
                    queue.append(int(w))
        return np.asarray(order, np.int32)


@functools.lru_cache(maxsize=256)
def _symmetry(spec: QuerySpec) -> Symmetry:
    return symmetry(spec.labels, spec.edges)


def query_spec(query: LabeledGraph | QuerySpec) -> QuerySpec:
    """The host spec of a concrete query graph.

    Raises:
      TypeError: the query is traced (close over it instead of passing it
        through jit) or not a LabeledGraph.
      ValueError: the query is empty or has more than 32 vertices.
    """
    if isinstance(query, QuerySpec):
        spec = query
    else:
        if not isinstance(query, LabeledGraph):
            raise TypeError(f"query must be a kcjax LabeledGraph, got {type(query).__name__}")
        if isinstance(query.labels, jax.core.Tracer) or isinstance(
            query.graph.indices, jax.core.Tracer
        ):
            raise TypeError(
                "the query must be concrete: close over it instead of passing it to jit"
            )
        src, dst = query.edge_arrays()
        spec = QuerySpec(
            labels=tuple(int(x) for x in np.asarray(query.labels)),
            edges=tuple(sorted(zip(src.tolist(), dst.tolist(), strict=True))),
        )
    if not 1 <= spec.size <= MAX_QUERY:
        raise ValueError(f"query size must be in [1, {MAX_QUERY}], got {spec.size}")
    return spec


class QueryArrays(NamedTuple):
    """Arrays of a query (q vertices; label slots padded to q)."""

    qlabels: jax.Array  # int32[q]: distinct query labels ascending, padded with the largest
    qlabel_index: jax.Array  # int32[q]: slot of vertex u's label in qlabels
    adj: jax.Array  # bool[q, q]
    nlc: jax.Array  # int32[q, q]: NLC[u, k] = neighbours of u with label slot k
    naive: jax.Array  # int32[q]: the naive order
    less: jax.Array  # bool[q, q]: the symmetry-breaking constraints f(a) < f(b)
    aut: jax.Array  # uint32[4]: |Aut(q)| as 128-bit limbs


def _query_numpy(spec: QuerySpec) -> QueryArrays:
    """:class:`QueryArrays` fields as host numpy arrays."""
    q = spec.size
    lab = np.asarray(spec.labels, np.int64)
    distinct = np.unique(lab)
    qlabels = np.concatenate([distinct, np.full(q - distinct.size, distinct[-1])])
    slot = np.searchsorted(distinct, lab)
    adj = spec.adjacency()
    nlc = np.zeros((q, q), np.int32)
    for u in range(q):
        np.add.at(nlc[u], slot[adj[u]], 1)
    sym = spec.symmetry()
    return QueryArrays(
        qlabels=qlabels.astype(np.int32),
        qlabel_index=slot.astype(np.int32),
        adj=adj,
        nlc=nlc,
        naive=spec.naive_order(),
        less=sym.less,
        aut=np.asarray([sym.size >> (32 * i) & 0xFFFFFFFF for i in range(4)], np.uint32),
    )


def pack(spec: QuerySpec) -> np.ndarray:
    """The query's arrays in one int32 host array (one transfer, cached per query).

    Layout: label slots [q], label index [q], adjacency [q*q], NLC [q*q],
    naive order [q], symmetry constraints [q*q], |Aut(q)| limbs [4] (bit for bit).
    """
    qa = _query_numpy(spec)
    parts = [
        np.asarray(qa.qlabels),
        np.asarray(qa.qlabel_index),
        np.asarray(qa.adj, np.int32).reshape(-1),
        np.asarray(qa.nlc).reshape(-1),
        np.asarray(qa.naive),
        np.asarray(qa.less, np.int32).reshape(-1),
        np.asarray(qa.aut).view(np.int32),
    ]
    return np.concatenate(parts).astype(np.int32)


def unpack(packed: jax.Array, q: int) -> QueryArrays:
    """:class:`QueryArrays` from a :func:`pack` array (traceable)."""
    o = np.cumsum([0, q, q, q * q, q * q, q, q * q, 4])
    return QueryArrays(
        qlabels=packed[o[0] : o[1]],
        qlabel_index=packed[o[1] : o[2]],
        adj=packed[o[2] : o[3]].reshape(q, q) != 0,
        nlc=packed[o[3] : o[4]].reshape(q, q),
        naive=packed[o[4] : o[5]],
        less=packed[o[5] : o[6]].reshape(q, q) != 0,
        aut=jax.lax.bitcast_convert_type(packed[o[6] : o[7]], jax.numpy.uint32),
    )
