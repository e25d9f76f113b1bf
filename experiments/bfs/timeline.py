"""Per-level timeline of the grid kernel's traversals, from clock stamps in the kernel.

``gpu_levels.sh`` times copies that stop after L levels, so it needs one build per level and
gives medians over sources. This tool instruments one copy instead: ``patch`` edits a copy of
``ffi/cuda/bfs/bfs_levels.cu`` so that thread 0 of block 0 prints ``%globaltimer`` at the
launch, at each source, at the top of each level of ``TraverseQueues`` (before the frontier
is counted), after each level's direction is chosen and at the end of each traversal; ``run``
(on a build of that copy) runs one traversal per call and source, and writes the kernel's
lines to its stdout; ``parse`` turns them into per-source, per-level times:

    fill_us    the launch's -1 fill of the rows (launch to source)
    start_us   the source's bitmaps (source to level 0)
    count_us   the frontier count (BuildFrontier; 0 for a level that went on bottom-up)
    expand_us  the expansion (top-down gathers or the bottom-up search) up to the next level

The stamps are one thread's view after grid syncs, so a level's time is exact to the sync.
The library never prints: only the patched copy does.

    python experiments/bfs/timeline.py patch /tmp/copy         # the copy's bfs_levels.cu
    PYTHONPATH=/tmp/build python experiments/bfs/timeline.py run --scale 24 > raw.txt
    python experiments/bfs/timeline.py parse raw.txt -o timeline.json
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from pathlib import Path

#: Text inserted after `namespace cg = cooperative_groups;`: the stamps are kept in device
#: memory and printed after the traversal's last one (a printf between two stamps would add
#: its own ~35 us to the interval).
_STAMP = r"""
__device__ unsigned long long kcjax_timeline[1024][5];
__device__ int kcjax_timeline_count;
__device__ __noinline__ void KcjaxStamp(int tag, long long a, long long b, long long c) {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  const int i = kcjax_timeline_count;
  if (i < 1024) {
    kcjax_timeline[i][0] = tag;
    kcjax_timeline[i][1] = a;
    kcjax_timeline[i][2] = b;
    kcjax_timeline[i][3] = c;
    kcjax_timeline[i][4] = t;
    kcjax_timeline_count = i + 1;
  }
  if (tag != 3) return;  // "end": print them all
  const char* names[] = {"launch", "source", "top", "end", "dir"};
  for (int k = 0; k < min(i + 1, 1024); ++k)
    printf("KCJAX %s %d %d %lld %llu\n", names[kcjax_timeline[k][0]],
           static_cast<int>(kcjax_timeline[k][1]), static_cast<int>(kcjax_timeline[k][2]),
           static_cast<long long>(kcjax_timeline[k][3]), kcjax_timeline[k][4]);
  kcjax_timeline_count = 0;
}
#define KCJAX_STAMP(tag, a, b, c) \
  if (blockIdx.x == 0 && threadIdx.x == 0) KcjaxStamp(tag, a, b, c)
"""

#: (anchor, replacement, occurrence): "last" where TraverseScan's loop comes first.
_EDITS = (
    (
        "namespace cg = cooperative_groups;\n",
        "namespace cg = cooperative_groups;\n" + _STAMP,
        "one",
    ),
    (
        "  int parity = 0, tick = 0;\n",
        "  int parity = 0, tick = 0;\n  KCJAX_STAMP(0, 0, 0, 0);\n",
        "one",
    ),
    (
        "    const int32_t src = p.sources[s];\n",
        "    const int32_t src = p.sources[s];\n    KCJAX_STAMP(1, src, 0, 0);\n",
        "one",
    ),
    (
        "  for (int32_t level = 0;; ++level) {\n",
        "  for (int32_t level = 0;; ++level) {\n    KCJAX_STAMP(2, level, bottom_up, 0);\n",
        "last",
    ),
    (
        "    if (lv.frontier == 0) break;\n",
        "    if (lv.frontier == 0) {\n      KCJAX_STAMP(3, level, 0, 0);\n      break;\n    }\n",
        "last",
    ),
    (
        "    bottom_up = next_bu;\n",
        "    bottom_up = next_bu;\n    KCJAX_STAMP(4, level, bottom_up, lv.frontier);\n",
        "one",
    ),
)


def patch(tree: Path) -> None:
    """Adds the stamps to TREE/ffi/cuda/bfs/bfs_levels.cu (a copy of the repository)."""
    path = tree / "ffi/cuda/bfs/bfs_levels.cu"
    text = path.read_text()
    for anchor, new, where in _EDITS:
        count = text.count(anchor)
        if count == 0 or (where == "one" and count != 1):
            raise SystemExit(f"timeline patch: {anchor.strip()!r} found {count} times")
        at = text.rfind(anchor)
        text = text[:at] + new + text[at + len(anchor) :]
    path.write_text(text)


def run(scale: int, sources: int, repeats: int) -> None:
    """One traversal per call (method auto, the prepared graph), every source `repeats` times."""
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    import bench  # noqa: PLC0415
    import jax  # noqa: PLC0415
    import jax.numpy as jnp  # noqa: PLC0415
    import numpy as np  # noqa: PLC0415

    import kcjax  # noqa: PLC0415

    g = jax.device_put(bench.kron_graph(scale, 16, bench.ROOT / ".gpu/cache"), jax.devices()[0])
    prepared = kcjax.prepare_bfs(g)
    fn = jax.jit(lambda gr, s: kcjax.bfs(gr, sources=s, batch="each").distances)
    for s in bench.random_sources(g, sources):
        row = jnp.asarray(np.array([s], np.int32))
        for _ in range(repeats + 1):  # the first call compiles (and warms)
            jax.block_until_ready(fn(prepared, row))
        print(f"ran {s}", file=sys.stderr, flush=True)


def parse(raw: Path) -> list[dict]:
    """Per source: the median over repeats of each level's count and expansion (µs); the total
    runs from the launch to the end of the traversal."""
    runs: list[tuple[int, list[tuple]]] = []
    launch = None
    for line in raw.read_text().splitlines():
        parts = line.split()
        if len(parts) != 6 or parts[0] != "KCJAX":
            continue
        tag, a, b, c, t = parts[1], int(parts[2]), int(parts[3]), int(parts[4]), int(parts[5])
        if tag == "launch":
            launch = t
        elif tag == "source":
            runs.append((a, [("launch", 0, 0, 0, launch if launch is not None else t)]))
            runs[-1][1].append(("source", 0, 0, 0, t))
        elif runs:
            runs[-1][1].append((tag, a, b, c, t))
    per: dict[int, list[list[dict]]] = {}
    for src, stamps in runs:
        levels: dict[int, dict] = {}
        start, source_t = stamps[0][4], stamps[1][4]
        tops = {a: t for tag, a, _, _, t in stamps if tag == "top"}
        end = next((t for tag, *_, t in stamps if tag == "end"), None)
        for tag, a, b, c, t in stamps:
            if tag != "dir":
                continue
            after = tops.get(a + 1, end)
            levels[a] = {
                "level": a,
                "bottom_up": bool(b),
                "frontier": c,
                "count_us": (t - tops[a]) / 1e3,
                "expand_us": (after - t) / 1e3 if after else None,
            }
        total = (end - start) / 1e3 if end else None
        per.setdefault(src, []).append(
            {
                "total_us": total,
                "fill_us": (source_t - start) / 1e3,
                "start_us": (tops.get(0, source_t) - source_t) / 1e3,
                "levels": [levels[k] for k in sorted(levels)],
            }
        )
    out = []
    for src, reps in per.items():
        reps = [r for r in reps if r["total_us"] is not None]
        if not reps:
            continue
        med = lambda xs: statistics.median(xs) if xs else None  # noqa: E731
        levels = []
        for i, lv in enumerate(reps[0]["levels"]):
            same = [r["levels"][i] for r in reps if len(r["levels"]) > i]
            levels.append(
                {
                    **lv,
                    "count_us": med([x["count_us"] for x in same]),
                    "expand_us": med([x["expand_us"] for x in same if x["expand_us"] is not None]),
                }
            )
        out.append(
            {
                "source": src,
                "total_us": med([r["total_us"] for r in reps]),
                "fill_us": med([r["fill_us"] for r in reps]),
                "start_us": med([r["start_us"] for r in reps]),
                "levels": levels,
            }
        )
    return out


def table(rows: list[dict]) -> str:
    """Slowest, median and fastest sources: per level direction, frontier, count + expand."""
    rows = sorted(rows, key=lambda r: -r["total_us"])
    middle = len(rows) // 2
    pick = list({r["source"]: r for r in rows[:4] + rows[middle : middle + 2] + rows[-3:]}.values())
    out = []
    for r in pick:
        cells = " | ".join(
            f"L{lv['level']} {'BU' if lv['bottom_up'] else 'TD'} {lv['frontier']} "
            f"{lv['count_us']:.0f}+{lv['expand_us'] or 0:.0f}"
            for lv in r["levels"]
        )
        head = f"{r['source']} {r['total_us']:.0f} us (fill {r['fill_us']:.0f}"
        out.append(f"{head}, start {r['start_us']:.0f}): {cells}")
    return "\n".join(out)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("patch")
    p.add_argument("tree", type=Path)
    r = sub.add_parser("run")
    r.add_argument("--scale", type=int, default=24)
    r.add_argument("--sources", type=int, default=64)
    r.add_argument("--repeats", type=int, default=2)
    q = sub.add_parser("parse")
    q.add_argument("raw", type=Path)
    q.add_argument("-o", "--output", type=Path)
    args = ap.parse_args(argv)
    if args.cmd == "patch":
        patch(args.tree)
    elif args.cmd == "run":
        run(args.scale, args.sources, args.repeats)
    else:
        rows = parse(args.raw)
        if args.output:
            args.output.write_text(json.dumps(rows, indent=1))
        print(table(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
