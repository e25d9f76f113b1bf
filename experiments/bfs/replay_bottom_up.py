"""CPU replay of a Kronecker traversal's bottom-up level (docs/tuning.md, BFS).

For each source: the level sizes, then, at its first bottom-up level (the first level
Beamer's rule sends bottom-up, as bench.py's replay_levels finds it; or `--level`), how
many of the unreached non-isolated vertices find no frontier neighbour among their first
`--batch` neighbours and have more (the first batch alone does not settle them), how many
are not found at that level at all (they read their whole lists), and how much of the next level a
push from the frontier's K largest hubs would mark before the search (edges read in order
against list heads left to read at random). `--order degree` reads the lists in
kcjax.prepare_bfs's order (largest-degree neighbours first) instead of by id.

    python3 -P experiments/bfs/replay_bottom_up.py --scale 20 --sources 2
    python3 -P experiments/bfs/replay_bottom_up.py --scale 20 --sources 3 --batch 2 --order degree
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

import kcjax

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench import replay_levels  # noqa: E402


def replay(
    graph: kcjax.Graph, source: int, level: int | None, batch: int, hubs: list[int], order: str
) -> None:
    """Prints one source's replay (see the module docstring)."""
    if level is None:
        rule = replay_levels(graph, source)
        level = next((r["level"] for r in rule if r["direction"] == "bottom_up"), None)
        if level is None:
            print(f"source {source}: no bottom-up level")
            return
    indptr = np.asarray(graph.indptr).astype(np.int64)
    indices = np.asarray(kcjax.prepare_bfs(graph).indices if order == "degree" else graph.indices)
    deg = np.diff(indptr)
    dist = np.asarray(kcjax.bfs(graph, source, parents=False).distances)
    sizes = [int((dist == d).sum()) for d in range(int(dist.max()) + 1)]
    front = dist == level
    unreached = ((dist < 0) | (dist > level)) & (deg > 0)
    found = dist == level + 1
    # The first `batch` entries of every unreached list: any of them in the frontier?
    head_hit = np.zeros(graph.num_nodes, bool)
    for j in range(batch):
        has = unreached & (deg > j)
        v = np.flatnonzero(has)
        head_hit[v] |= front[indices[indptr[v] + j]]
    missed = int((unreached & ~head_hit & (deg > batch)).sum())  # more to search
    print(
        f"source {source}: level sizes {sizes}; at level {level}: {int(unreached.sum())} "
        f"unreached non-isolated, {missed} not settled by their first {batch}, "
        f"{int((unreached & ~found).sum())} not found at this level"
    )
    order = np.flatnonzero(front)
    order = order[np.argsort(-deg[order], kind="stable")]
    for k in hubs:
        top = order[:k]
        marked = np.zeros(graph.num_nodes, bool)
        if top.size:
            marked[np.concatenate([indices[indptr[h] : indptr[h + 1]] for h in top])] = True
        marked &= unreached
        print(
            f"  push from {k:>6} hubs: {int(deg[top].sum()):>10} edges read in order, "
            f"{int(marked.sum()):>8} of {int(found.sum())} marked, "
            f"{int((unreached & ~marked).sum()):>8} list heads left"
        )


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--scale", type=int, default=20)
    ap.add_argument("--edge-factor", type=int, default=16)
    ap.add_argument("--sources", type=int, default=2, help="random non-isolated sources")
    ap.add_argument("--level", type=int, default=None, help="the level (default: the rule's)")
    ap.add_argument("--batch", type=int, default=4, help="first-batch width")
    ap.add_argument("--hubs", default="0,10,100,1000", help="hub counts of the push")
    ap.add_argument(
        "--order",
        choices=("id", "degree"),
        default="id",
        help="adjacency order: the graph's (id) or kcjax.prepare_bfs's (neighbour degree)",
    )
    args = ap.parse_args(argv)
    graph = kcjax.generators.kronecker(args.scale, args.edge_factor, seed=1)
    deg = np.asarray(graph.degrees())
    rng = np.random.default_rng(0)
    hubs = [int(k) for k in args.hubs.split(",")]
    for s in rng.choice(np.flatnonzero(deg > 0), args.sources, replace=False):
        replay(graph, int(s), args.level, args.batch, hubs, args.order)


if __name__ == "__main__":
    main()
