"""How the h-index decomposition's triangle store grows on Graph500 Kronecker graphs.

For each scale (edge factor 16, seed 0) it counts the triangles T (the supports' sum
over 3, by ``kcjax.edge_support`` on the default device) and the store's two sizes:
the exact one (3 T entries, the layout of a traced graph) and the degree bound (sum
over edges {u, v} of min(deg u, deg v) - 1, the eager layout). Each entry is 8 bytes
(two int32 edge ids). The growth per scale of the last two scales measured is carried
to ``--target`` (24: the issue's Kronecker scale 24), to say whether its store could
fit one GPU (an H200 has 141 GiB, an H100 80 GiB).

Usage (CPU, about 2 minutes on 2 cores up to scale 20):
  python -P experiments/truss/store_growth.py --scales 14 15 16 17 18 19 20 \
      --out experiments/results/truss/cpu_kron_store_growth.json
"""

from __future__ import annotations

import argparse
import json
import platform
import time

import jax
import numpy as np

import kcjax

ENTRY_BYTES = 8  # one int2: the triangle's other two edge ids


def measure(scale: int, edge_factor: int) -> dict:
    t0 = time.perf_counter()
    graph = kcjax.generators.kronecker(scale, edge_factor, seed=0)
    src, dst = (np.asarray(a) for a in graph.edges())
    deg = np.diff(np.asarray(graph.indptr)).astype(np.int64)
    bound = int((np.minimum(deg[src], deg[dst]) - 1).sum())
    triangles = int(np.asarray(kcjax.edge_support(graph)).astype(np.int64).sum()) // 3
    return {
        "scale": scale,
        "edge_factor": edge_factor,
        "nodes": graph.num_nodes,
        "edges": graph.num_edges,
        "triangles": triangles,
        "exact_entries": 3 * triangles,
        "bound_entries": bound,
        "exact_gib": 3 * triangles * ENTRY_BYTES / 2**30,
        "bound_gib": bound * ENTRY_BYTES / 2**30,
        "seconds": time.perf_counter() - t0,
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--scales", type=int, nargs="+", default=[14, 15, 16, 17, 18])
    ap.add_argument("--edge-factor", type=int, default=16)
    ap.add_argument("--target", type=int, default=24, help="the scale to extrapolate to")
    ap.add_argument("--out", help="results JSON")
    args = ap.parse_args()

    rows = []
    print(f"{'scale':>5} {'edges':>11} {'triangles':>14} {'exact GiB':>10} {'bound GiB':>10}")
    for scale in args.scales:
        r = measure(scale, args.edge_factor)
        rows.append(r)
        print(
            f"{scale:5d} {r['edges']:11d} {r['triangles']:14d} "
            f"{r['exact_gib']:10.2f} {r['bound_gib']:10.2f}",
            flush=True,
        )
    extrapolated = None
    if len(rows) >= 2:
        a, b = rows[-2], rows[-1]
        steps = args.target - b["scale"]
        growth = {
            key: (b[key] / a[key]) ** (1 / (b["scale"] - a["scale"]))
            for key in ("edges", "triangles", "bound_entries")
        }
        extrapolated = {
            "scale": args.target,
            "from_scales": [a["scale"], b["scale"]],
            "growth_per_scale": growth,
            "triangles": b["triangles"] * growth["triangles"] ** steps,
            "exact_gib": b["exact_gib"] * growth["triangles"] ** steps,
            "bound_gib": b["bound_gib"] * growth["bound_entries"] ** steps,
        }
        print(
            f"scale {args.target} (growth of scales {a['scale']}-{b['scale']} carried on): "
            f"{extrapolated['triangles']:.3g} triangles, store {extrapolated['exact_gib']:.0f} GiB "
            f"exact, {extrapolated['bound_gib']:.0f} GiB by the degree bound"
        )
    if args.out:
        meta = {
            "device": str(jax.devices()[0]),
            "platform": jax.devices()[0].platform,
            "jax": jax.__version__,
            "host": platform.node(),
            "date": time.strftime("%Y-%m-%d %H:%M:%S"),
            "entry_bytes": ENTRY_BYTES,
        }
        with open(args.out, "w") as f:
            json.dump({"meta": meta, "rows": rows, "extrapolated": extrapolated}, f, indent=1)


if __name__ == "__main__":
    main()
