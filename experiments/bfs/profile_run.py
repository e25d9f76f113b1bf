"""Workload for Nsight Compute: single-source BFS on one Kronecker graph.

Draws Kron-SCALE-EF on the device, runs one warm-up traversal per source, then
the profiled ones (give ncu ``--kernel-name regex:Bfs`` and ``--launch-skip``
the warm-up count). Prints each source's depth and reached vertices, so a
profile is always of a checked-complete traversal.

Usage: python experiments/bfs/profile_run.py --scale 22 --edge-factor 16 --sources 2
"""

from __future__ import annotations

import argparse

import jax
import numpy as np

import kcjax


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--scale", type=int, default=22)
    ap.add_argument("--edge-factor", type=int, default=16)
    ap.add_argument("--sources", type=int, default=2, help="random non-isolated sources")
    ap.add_argument("--method", default="auto", choices=kcjax.BFS_METHODS)
    ap.add_argument("--direction", default="auto")
    args = ap.parse_args(argv)
    graph = kcjax.generators.kronecker(args.scale, args.edge_factor, seed=1, on_device=True)
    deg = np.asarray(graph.degrees())
    rng = np.random.default_rng(0)
    sources = rng.choice(np.flatnonzero(deg > 0), args.sources, replace=False)
    for phase in ("warm-up", "profiled"):
        for s in sources:
            out = kcjax.bfs(graph, int(s), method=args.method, direction=args.direction)
            dist = np.asarray(jax.block_until_ready(out.distances))
            print(phase, int(s), int(out.depth), int(np.count_nonzero(dist >= 0)), flush=True)


if __name__ == "__main__":
    main()
