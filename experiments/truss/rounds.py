"""The h-index decomposition's rounds, from a build that stamps each round.

``--patch DIR`` rewrites DIR/ffi/cuda/truss/hindex.cuh (a copy of the tree) so that
HIndexKernel's thread 0 keeps, per round r < 4095, the %globaltimer at the round's
start, its queued edges per update path and its kind (0: every edge without
queueing, 1: every edge with queueing, 2: queued edges) in a device array, and
prints ``R r ns lanes groups warps kind`` for every round once the kernel ends, and a
last line stamped at the end of the rounds (no printing inside the rounds, so the
intervals are the rounds' lengths). Build the copy
into its own --target directory, then run
``python experiments/truss/decompose_run.py ego-Facebook cit-HepTh > rounds.txt``
with it first on PYTHONPATH. The stamps of h200_truss_tiled_dag_rounds.txt came from an
older patch that printed inside the rounds (~20 us each).

Usage: python experiments/truss/rounds.py rounds.txt
       python experiments/truss/rounds.py --patch /tmp/kcjax-stamp-src
"""

from __future__ import annotations

import sys
from pathlib import Path

STAMP = (
    "    if (tid == 0 && r < 4095) {\n"
    "      long long ts;\n"
    '      asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(ts));\n'
    "      g_stamps[r] = make_longlong4(ts, lanes, groups, int64_t{wides} * 4 + int(kind));\n"
    "      g_rounds = r + 1;\n"
    "    }\n"
)
REPORT = (
    "  if (tid == 0) {\n"
    "    long long end;\n"
    '    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(end));\n'
    "    g_stamps[g_rounds] = make_longlong4(end, 0, 0, 0);\n"
    "    for (int i = 0; i <= g_rounds; ++i) {\n"
    "      const longlong4 x = g_stamps[i];\n"
    '      printf("R %d %lld %lld %lld %lld %lld\\n", i, x.x, x.y, x.z, x.w / 4, x.w % 4);\n'
    "    }\n"
    "  }\n"
)


def patch(src: Path) -> None:
    """Adds the stamps to src/ffi/cuda/truss/hindex.cuh (see the module docstring)."""
    path = src / "ffi" / "cuda" / "truss" / "hindex.cuh"
    text = path.read_text()
    anchors = {
        "enum class HRound": "__device__ longlong4 g_stamps[4096];\n__device__ int g_rounds;\n",
        "    int32_t fell = 0;\n": STAMP,
        "  for (int64_t e = tid; e < P.m; e += stride) P.t[e] += 2;\n": REPORT,
    }
    for anchor, code in anchors.items():
        if text.count(anchor) != 1:
            raise SystemExit(f"{path}: no unique {anchor!r}")
        at = text.index(anchor)
        if not anchor.startswith("enum"):  # the declarations go before, the code after
            at += len(anchor)
        text = text[:at] + code + text[at:]
    path.write_text(text)


def parse(path: str) -> list[tuple[str, list[tuple[int, ...]]]]:
    """(graph, rounds) per decomposition in the file; a round is (r, ns, lanes,
    groups, warps[, kind])."""
    runs, current = [], []
    with open(path) as f:
        lines = f.read().splitlines()
    for line in lines:
        fields = line.split()
        if fields[:1] == ["R"]:
            current.append(tuple(int(x) for x in fields[1:]))
        elif fields[1:2] == ["k_max"]:
            runs.append((fields[0], current))
            current = []
    return runs


def main() -> None:
    if sys.argv[1] == "--patch":
        patch(Path(sys.argv[2]))
        return
    kinds = ("all", "all+queue", "queued")
    for graph, rounds in parse(sys.argv[1]):
        gaps = [(b[1] - a[1]) / 1e3 for a, b in zip(rounds, rounds[1:], strict=False)]
        print(f"{graph}: {len(rounds)} rounds, the first {len(gaps)} over {sum(gaps):.0f} us")
        for (r, _, lanes, groups, warps, *kind), gap in zip(rounds, gaps, strict=False):
            print(
                f"  round {r:3d}: {lanes:7d} thread, {groups:7d} group, {warps:6d} warp edges,"
                f" {gap:6.0f} us {kinds[kind[0]] if kind else ''}"
            )


if __name__ == "__main__":
    main()
