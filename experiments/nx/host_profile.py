"""Where the backend's time goes: kcjax's kernels vs host work, per served function.

For each function of experiments/nx/bench.py, on a converted graph and with
the bench's cold policy (:func:`bench.cold_call`): ``--repeats`` cold calls,
each split into compute (the backend's calls into kcjax, :data:`COMPUTE`:
BFS distances, orientation, core numbers, clique and truss counters, each
timed until its result is ready) and host work (the rest of the wall clock:
label maps, networkx's orders, building dicts, lists and graphs); the call of
least host time is reported (the machine may be shared), and the least CPU
time of the calling thread outside compute (``host_cpu_s``: waiting for a
core of a shared machine is not counted). Then one call under
cProfile lists the top functions by own time (``--top``). On a CPU the
compute runs on the CPU twins.

    python experiments/nx/host_profile.py --graph com-dblp --out host.json
"""

from __future__ import annotations

import argparse
import contextlib
import cProfile
import importlib
import inspect
import json
import pstats
import sys
import time
from pathlib import Path

import networkx as nx

sys.path.insert(0, str(Path(__file__).resolve().parent))

import bench  # noqa: E402

#: (module, class or None, attribute) of the backend's calls into kcjax's compute.
COMPUTE = (
    ("kcjax.nx.traversal", None, "distances"),
    ("kcjax.nx.traversal", None, "distance_rows"),
    ("kcjax.nx.shortest_paths", None, "distance_rows"),
    ("kcjax.nx.shortest_paths", None, "distances"),
    ("kcjax.nx.core", None, "core_numbers"),
    ("kcjax.nx.cluster", None, "triangle_counts"),
    ("kcjax.cliques.auto", None, "transitivity"),
    ("kcjax.truss.truss", None, "k_truss_mask"),
    ("kcjax.cliques.maximal", None, "iter_maximal_cliques"),
    ("kcjax.cliques.maximal", None, "node_clique_numbers"),
    ("kcjax.cliques.listing", None, "clique_number"),
    ("kcjax.nx.convert", "KcjaxGraph", "dag"),
)


@contextlib.contextmanager
def timed_compute(spent: list[float]):
    """Wraps every :data:`COMPUTE` call to add its time, until its result is
    ready, to ``spent[0]`` (outermost calls only; generators per item), and
    the calling thread's CPU time in them to ``spent[1]`` if there is one."""
    import jax

    depth = [0]

    def timed_run(f, *args, **kwargs):
        depth[0] += 1
        t, c = time.perf_counter(), time.thread_time()
        try:
            out = jax.block_until_ready(f(*args, **kwargs))
        finally:
            depth[0] -= 1
        if depth[0] == 0:
            spent[0] += time.perf_counter() - t
            if len(spent) > 1:
                spent[1] += time.thread_time() - c
        return out

    def timed_items(gen):
        while True:
            try:
                item = timed_run(next, gen)
            except StopIteration:
                return
            yield item

    patched = []
    for module, cls, attr in COMPUTE:
        owner = importlib.import_module(module)
        owner = getattr(owner, cls) if cls else owner
        original = getattr(owner, attr)

        def timed(*args, _f=original, **kwargs):
            out = timed_run(_f, *args, **kwargs)
            return timed_items(out) if inspect.isgenerator(out) else out

        patched.append((owner, attr, original))
        setattr(owner, attr, timed)
    try:
        yield
    finally:
        for owner, attr, original in patched:
            setattr(owner, attr, original)


def _top_host(stats: pstats.Stats, top: int) -> list[dict]:
    rows = sorted(stats.stats.items(), key=lambda kv: -kv[1][2])
    out = []
    for (path, line, func), (_, ncalls, tottime, cumtime, _) in rows[:top]:
        out.append(
            {
                "where": f"{Path(path).name}:{line}({func})",
                "calls": ncalls,
                "own_s": round(tottime, 4),
                "cum_s": round(cumtime, 4),
            }
        )
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--graph", default="com-dblp")
    parser.add_argument("--functions", nargs="*", default=None)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--top", type=int, default=6)
    parser.add_argument("--data", type=Path, default=bench.SHARED)
    parser.add_argument("-o", "--out", type=Path, default=None)
    args = parser.parse_args(argv)
    nx.config.warnings_to_ignore.add("cache")
    G, K, source, sample = bench.load_converted(args.data / f"{args.graph}.el.gz")
    results = []
    for fname, call in bench.calls(G, source, sample, 10).items():
        if args.functions and fname not in args.functions:
            continue
        if fname in ("diameter", "enumerate_all_cliques"):
            continue

        def cold(call=call):
            return bench._consume(bench.cold_call(call, K))

        cold()
        walls, computes, host_cpus = [], [], []
        with timed_compute(spent := [0.0, 0.0]):
            for _ in range(args.repeats):
                spent[:] = [0.0, 0.0]
                t, c = time.perf_counter(), time.thread_time()
                out = cold()
                host_cpus.append(time.thread_time() - c - spent[1])
                walls.append(time.perf_counter() - t)
                computes.append(spent[0])
                del out  # freed after the clocks stop
        best = min(range(args.repeats), key=lambda i: walls[i] - computes[i])
        wall, kernel = walls[best], computes[best]
        prof = cProfile.Profile()
        prof.enable()
        cold()
        prof.disable()
        row = {
            "function": fname,
            "wall_s": round(wall, 4),
            "kernel_s": round(kernel, 4),
            "host_s": round(wall - kernel, 4),
            "host_cpu_s": round(min(host_cpus), 4),
            "top": _top_host(pstats.Stats(prof), args.top),
        }
        results.append(row)
        print(
            f"{fname:36s} wall {wall:8.4f}s  kernels {kernel:8.4f}s  host {wall - kernel:8.4f}s "
            f"(cpu {min(host_cpus):8.4f}s)",
            flush=True,
        )
        for t in row["top"]:
            print(f"    {t['own_s']:8.4f}s own {t['calls']:>8} x {t['where']}")
    if args.out:
        args.out.write_text(json.dumps({"graph": args.graph, "rows": results}, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
