"""Host simulation of the h-index decomposition's work under other round rules.

Synchronous (Jacobi) rounds over the triangle store, as the CUDA HIndexKernel runs
them but with every read seeing the round's start: per rule, the rounds, the
triangle values the updates read ("eval reads") and the triangle entries the
queueing walks ("queue reads": those of every edge that fell). Every result is
checked against ``kcjax.truss_numbers``.

Rules:
  queued       the kernel's: round 0 takes every edge; an edge that falls to h queues
               each other edge x of its triangles with h < t(x) <= the third edge's t.
  crossing     queue x only where the triangle's value crossed t(x) (value at the
               round's start >= t(x) > value at its end); needs exact end values, so on
               the GPU a second pass after the round's grid sync.
  all/F        every edge each round, no queueing, while the round before lowered more
               than m / F edges; then one queueing pass over that round's fallen edges
               and queued rounds (an all-edge round needs no queue list and no atomics).
  core         the kernel's rule from a tighter start: t(e) = min(triangles, min(core(u),
               core(v)) - 1), the k-core bound on trussness - 2 (any start at or above
               the trussness converges to it).

Usage: python experiments/truss/hindex_sim.py ego-Facebook cit-HepTh soc-Epinions1
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

import kcjax
from kcjax.experimental import truss_edge_index as edge_index

ROOT = Path(__file__).resolve().parents[2]
DATA_DIRS = [ROOT / ".gpu" / "graphs", ROOT.parent / "shared" / "data" / "graphs"]


def triangle_rows(graph: kcjax.Graph) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The store: rows (e, x, y), one per triangle and edge e of it, sorted by e."""
    index = edge_index(graph)
    dag = index.dag
    dptr, dcol, dsrc = (np.asarray(a) for a in (dag.indptr, dag.indices, dag.src))
    deid = np.asarray(index.dag_eid)
    es, e1s, e2s = [], [], []
    for d in range(len(dcol)):
        a, b = dsrc[d], dcol[d]
        _, ia, ib = np.intersect1d(
            dcol[dptr[a] : dptr[a + 1]],
            dcol[dptr[b] : dptr[b + 1]],
            assume_unique=True,
            return_indices=True,
        )
        if len(ia):
            es.append(np.full(len(ia), deid[d]))
            e1s.append(deid[dptr[a] + ia])
            e2s.append(deid[dptr[b] + ib])
    e, e1, e2 = np.concatenate(es), np.concatenate(e1s), np.concatenate(e2s)
    rows = np.concatenate([e, e1, e2]), np.concatenate([e1, e, e]), np.concatenate([e2, e2, e1])
    order = np.argsort(rows[0], kind="stable")
    return tuple(r[order] for r in rows)


def h_index(t: np.ndarray, rows, picked: np.ndarray) -> np.ndarray:
    """t lowered to the h-index of the triangle values of the edges with picked rows."""
    r0, r1, r2 = (r[picked] for r in rows)
    v = np.minimum(np.minimum(t[r1], t[r2]), t[r0])
    order = np.lexsort((-v, r0))
    e, v = r0[order], v[order]
    start = np.r_[0, np.flatnonzero(np.diff(e)) + 1]
    rank = np.arange(len(e)) - np.repeat(start, np.diff(np.r_[start, len(e)]))
    h = t.copy()
    best = np.zeros(len(t), np.int64)
    np.maximum.at(best, e, np.minimum(v, rank + 1))
    h[np.unique(e)] = np.minimum(t, best)[np.unique(e)]
    return h


def queue(rows, fallen, before, after, rule: str) -> tuple[np.ndarray, int]:
    """The edges queued by the fallen edges' triangles, and the rows walked."""
    picked = np.flatnonzero(fallen[rows[0]])
    e = np.r_[rows[0][picked], rows[0][picked]]
    x = np.r_[rows[1][picked], rows[2][picked]]
    b = np.r_[rows[2][picked], rows[1][picked]]
    if rule == "crossing":
        want = (np.minimum(after[e], after[b]) < after[x]) & (
            after[x] <= np.minimum(before[e], before[b])
        )
    else:
        want = (after[e] < after[x]) & (after[b] >= after[e])
    queued = np.zeros(len(after), bool)
    queued[x[want]] = True
    return queued, len(picked)


def simulate(
    rows, m: int, rule: str, bound: np.ndarray | None = None
) -> tuple[int, int, int, np.ndarray]:
    """(rounds, eval reads, queue reads, t) under `rule`, t starting at most at `bound`."""
    t = np.bincount(rows[0], minlength=m).astype(np.int64)
    if bound is not None:
        t = np.minimum(t, bound)
    frac = float(rule.split("/")[1]) if rule.startswith("all/") else 0.0
    queued, last_fallen, fell = None, None, m
    rounds = evals = walked = 0
    while True:
        if queued is None and frac and fell > m / frac:
            picked = np.ones(len(rows[0]), bool)
        else:
            if queued is None:
                if last_fallen is None:
                    queued = np.ones(m, bool)  # the kernel's round 0
                else:
                    queued, n = queue(rows, last_fallen, t, t, "queued")
                    walked += n
            if not queued.any():
                break
            picked = queued[rows[0]]
        rounds += 1
        evals += int(picked.sum())
        after = h_index(t, rows, picked)
        fallen = after < t
        fell = int(fallen.sum())
        if queued is not None:
            queued, n = queue(rows, fallen, t, after, rule)
            walked += n
        else:
            last_fallen = fallen
            if fell == 0:
                queued = np.zeros(m, bool)
        t = after
    return rounds, evals, walked, t


def main() -> None:
    for name in sys.argv[1:]:
        path = next(d / f"{name}.el.gz" for d in DATA_DIRS if (d / f"{name}.el.gz").exists())
        graph = kcjax.load(path)
        rows = triangle_rows(graph)
        m = len(np.asarray(graph.edges()[0]))
        want = np.asarray(kcjax.truss_numbers(graph)) - 2
        src, dst = (np.asarray(a) for a in graph.edges())
        core = np.asarray(kcjax.core_numbers(graph)).astype(np.int64)
        bound = np.minimum(core[src], core[dst]) - 1
        for rule in ("queued", "crossing", "all/64", "all/16", "all/4", "core"):
            rounds, evals, walked, t = simulate(
                rows, m, "queued" if rule == "core" else rule, bound if rule == "core" else None
            )
            print(
                f"{name:14s} {rule:9s} rounds {rounds:3d}  eval reads {evals / 1e6:6.1f} M"
                f"  queue reads {walked / 1e6:5.1f} M  exact {np.array_equal(t, want)}",
                flush=True,
            )


if __name__ == "__main__":
    main()
