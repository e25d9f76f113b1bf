"""Where the host's time goes in one eager ``count_embeddings(..., mesh=)`` call.

A short query spends most of a mesh call's wall clock on the host (its
devices are busy a fraction of it: ``scaling.py``'s ``host_s``). This runs
the public call on one device and on a 1-D mesh of ``--devices`` devices,
``--calls`` times each after a warm-up, under ``cProfile``, and prints for
each the wall clock per call and the functions with the most cumulative time
per call. Counts are checked against counts.tsv.

Usage (2 GPUs, under a minute):
  python experiments/match/mesh_host_profile.py --queries hprd:query_dense_16_1 \
      ca-AstroPh:query_dense_8_1 --devices 2 --out F.json
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import sys
import tempfile
import time
from pathlib import Path

import jax

_HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(_HERE), str(_HERE.parent / "tools")]  # also under python -P
from benchlib import write_results  # noqa: E402
from scaling import SHARED, _expected, _query  # noqa: E402

import kcjax  # noqa: E402


def profile(call, calls: int, top: int) -> dict:
    """Wall clock per call and the top functions by cumulative time per call."""
    call()
    start = time.perf_counter()
    for _ in range(calls):
        call()
    wall = (time.perf_counter() - start) / calls
    prof = cProfile.Profile()
    prof.enable()
    for _ in range(calls):
        call()
    prof.disable()
    stats = pstats.Stats(prof)
    rows = []
    for (path, line, name), (_, ncalls, _, cum, _) in stats.stats.items():
        rows.append(
            {
                "function": f"{Path(path).name}:{line}({name})",
                "calls_per_call": ncalls / calls,
                "cum_ms_per_call": 1e3 * cum / calls,
            }
        )
    rows.sort(key=lambda r: -r["cum_ms_per_call"])
    return {"wall_ms": 1e3 * wall, "top": rows[:top]}


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--queries", nargs="+", required=True, help="GRAPH:QUERY")
    p.add_argument("--devices", type=int, default=2)
    p.add_argument("--calls", type=int, default=20)
    p.add_argument("--top", type=int, default=30)
    p.add_argument("--out", type=Path, default=None)
    args = p.parse_args()
    mesh = jax.make_mesh((args.devices,), ("d",), devices=jax.devices()[: args.devices])
    expected = _expected()
    folder = Path(tempfile.mkdtemp())
    rows = []
    for spec in args.queries:
        graph, query = spec.split(":")
        data = kcjax.load_labeled(SHARED / "matching" / f"{graph}.graph.gz")
        q = _query(graph, query, folder)
        want = expected[(graph, query)]
        for label, kwargs in (("one device", {}), (f"mesh of {args.devices}", {"mesh": mesh})):
            got = kcjax.count_embeddings(data, q, **kwargs)
            assert got == want, (spec, label, got, want)
            res = profile(
                lambda d=data, q=q, kw=kwargs: kcjax.count_embeddings(d, q, **kw),
                args.calls,
                args.top,
            )
            rows.append({"graph": graph, "query": query, "run": label, **res})
            print(f"{graph} {query} {label}: {res['wall_ms']:.3f} ms a call")
            for r in res["top"][:12]:
                print(
                    f"  {r['cum_ms_per_call']:8.3f} ms {r['calls_per_call']:6.1f}x {r['function']}"
                )
    if args.out:
        write_results(
            args.out,
            jax.devices()[0],
            args.calls,
            rows,
            "wall clock of a synchronized eager call; cProfile cumulative time",
            devices=args.devices,
        )


if __name__ == "__main__":
    main()
