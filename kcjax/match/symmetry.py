"""A query's automorphism group and the order constraints that break it (on the host).

An automorphism of a labeled query q is a permutation of its vertices that
keeps every label and maps edges to edges (and so non-edges to non-edges).
If f is an embedding, so is f o s for every automorphism s, and the |Aut(q)|
maps f o s are distinct (f is injective): embeddings come in classes of
exactly |Aut(q)|. The search counts one embedding per class and the count is
multiplied by |Aut(q)|.

The embedding counted is fixed by order constraints f(a) < f(b) on data ids,
built by the standard construction (Grochow and Kellis, RECOMB 2007): take
the largest orbit O of the group G (ties: the one holding the smallest
vertex), its smallest vertex a, require f(a) < f(b) for every other b in O,
then replace G by the stabilizer of a and repeat until G is trivial. Each
class holds exactly one embedding that meets every constraint, and |Aut(q)|
is the product of the orbits' sizes (orbit-stabilizer).

Orbits of a stabilizer are found by individualization and refinement: two
vertices u, v lie in one orbit of the stabilizer of the fixed vertices iff
an automorphism fixes them and maps u to v; candidates are pruned by colour
refinement (equal labels, then equal multisets of neighbour colours, to a
fixed point) and the search branches on the smallest ambiguous colour cell.
Each automorphism found merges the orbits of every vertex at once.
Queries have at most 32 vertices, so this costs milliseconds once per query
(the callers cache it).

Reference: ``networkx.algorithms.isomorphism.GraphMatcher(q, q)``, whose
``isomorphisms_iter`` enumerates the group (tests/match/test_symmetry.py).
"""

from __future__ import annotations

import dataclasses

import numpy as np


@dataclasses.dataclass(frozen=True)
class Symmetry:
    """The order constraints of a query and the size of its automorphism group.

    Attributes:
      size: |Aut(q)| (1 for an asymmetric query).
      less: bool[q, q]; ``less[a, b]``: the counted embedding has f(a) < f(b).
    """

    size: int
    less: np.ndarray


def _refine(adj: np.ndarray, colors: np.ndarray) -> np.ndarray:
    """Colour refinement to a fixed point: int[N] colours numbered canonically
    (by sorted signature), so two copies refined together share colour names."""
    n = colors.shape[0]
    while True:
        sig = [(int(colors[v]), tuple(sorted(colors[adj[v]].tolist()))) for v in range(n)]
        names = {s: i for i, s in enumerate(sorted(set(sig)))}
        new = np.asarray([names[s] for s in sig], np.int64)
        if len(names) == len(np.unique(colors)):
            return new
        colors = new


class _Group:
    """Searches automorphisms of one labeled graph (adjacency bool[q, q], labels int[q])."""

    def __init__(self, adj: np.ndarray, labels: np.ndarray):
        q = adj.shape[0]
        self.q = q
        self.adj = adj
        both = np.zeros((2 * q, 2 * q), bool)
        both[:q, :q] = adj
        both[q:, q:] = adj
        self.both = both
        _, rank = np.unique(labels, return_inverse=True)
        self.base = np.concatenate([rank, rank]).astype(np.int64)

    def _colors(self, left: list[int], right: list[int]) -> np.ndarray:
        """Joint refinement of two copies with left[k] and right[k] individualized alike."""
        c = self.base.copy()
        top = int(c.max()) + 1
        for k, (a, b) in enumerate(zip(left, right, strict=True)):
            c[a] = c[self.q + b] = top + k
        return _refine(self.both, c)

    def find(self, left: list[int], right: list[int]) -> np.ndarray | None:
        """An automorphism s with s(left[k]) = right[k] for every k, or None."""
        q = self.q
        c = self._colors(left, right)
        lc, rc = c[:q], c[q:]
        if not np.array_equal(np.sort(lc), np.sort(rc)):
            return None
        values, counts = np.unique(lc, return_counts=True)
        if np.all(counts == 1):
            perm = np.empty(q, np.int64)
            perm[np.argsort(lc)] = np.argsort(rc)
            ok = np.array_equal(self.adj[np.ix_(perm, perm)], self.adj) and np.array_equal(
                self.base[perm], self.base[:q]
            )
            return perm if ok else None
        cell = values[counts > 1][0]
        x = int(np.nonzero(lc == cell)[0][0])
        ys = np.nonzero(rc == cell)[0]
        for y in sorted(ys, key=lambda y: y != x):  # x itself first: often extends
            found = self.find([*left, x], [*right, int(y)])
            if found is not None:
                return found
        return None

    def twins(self, u: int, v: int) -> bool:
        """u and v have one label and the same neighbours besides each other."""
        nu, nv = self.adj[u].copy(), self.adj[v].copy()
        nu[v] = nv[u] = False
        return bool(self.base[u] == self.base[v] and np.array_equal(nu, nv))

    def orbits(self, fixed: list[int]) -> list[list[int]]:
        """Orbits of the pointwise stabilizer of ``fixed``, each sorted, by smallest vertex."""
        q = self.q
        parent = list(range(q))

        def root(x: int) -> int:
            while parent[x] != x:
                parent[x] = parent[parent[x]]
                x = parent[x]
            return x

        cells = self._colors(fixed, fixed)[:q]
        for v in range(q):
            for u in range(v + 1, q):
                if cells[u] != cells[v] or root(u) == root(v):
                    continue
                if self.twins(u, v):  # the transposition (u v), which fixes the rest
                    parent[root(u)] = root(v)
                    continue
                perm = self.find([*fixed, v], [*fixed, u])
                if perm is not None:
                    for x in range(q):
                        parent[root(x)] = root(int(perm[x]))
        groups: dict[int, list[int]] = {}
        for x in range(q):
            groups.setdefault(root(x), []).append(x)
        return sorted(groups.values())


def symmetry(labels: tuple[int, ...], edges: tuple[tuple[int, int], ...]) -> Symmetry:
    """The automorphism group's size and order constraints of a labeled query.

    Args:
      labels: label of query vertex i (q of them, 1 <= q <= 32).
      edges: undirected edges (u, v) between query vertices.

    Returns:
      :class:`Symmetry` (module docstring: each class of |Aut| embeddings has
      exactly one member that meets the constraints).
    """
    q = len(labels)
    adj = np.zeros((q, q), bool)
    for u, v in edges:
        adj[u, v] = adj[v, u] = True
    group = _Group(adj, np.asarray(labels, np.int64))
    less = np.zeros((q, q), bool)
    size, fixed = 1, []
    while True:
        moving = [o for o in group.orbits(fixed) if len(o) > 1]
        if not moving:
            return Symmetry(size=size, less=less)
        orbit = max(moving, key=len)  # max keeps the first (smallest vertex) on ties
        a = orbit[0]
        less[a, orbit[1:]] = True
        size *= len(orbit)
        fixed.append(a)
