"""The h-index decomposition's rounds, from a build that stamps each round.

The stamps come from a copy of the tree whose HIndexKernel prints, from thread 0
at the start of round r, ``R r globaltimer lanes groups warps`` (the round's
queued edges per update path); printing costs ~20 us a round, so read the
intervals for their sizes relative to each other and the round counts, not as
times. Made as in session 20 (experiments/results/truss/h200_truss_s20_rounds.txt):

  sed -i 's|^    const int32_t wides = Load(&P.slots\\[r % 3\\].warp);|&\\n    if (tid == 0) \\
    { long long ts; asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(ts)); \\
    printf("R %d %lld %d %d %d\\\\n", r, ts, lanes, groups, wides); }|' ffi/cuda/truss/hindex.cuh
  (built into its own --target directory, then)
  python experiments/truss/decompose_run.py ego-Facebook cit-HepTh > rounds.txt

Usage: python experiments/truss/rounds.py rounds.txt
"""

from __future__ import annotations

import sys


def parse(path: str) -> list[tuple[str, list[tuple[int, int, int, int, int]]]]:
    """(graph, rounds) per decomposition in the file; a round is (r, ns, lanes,
    groups, warps)."""
    runs, current = [], []
    with open(path) as f:
        lines = f.read().splitlines()
    for line in lines:
        fields = line.split()
        if fields[:1] == ["R"]:
            current.append(tuple(int(x) for x in fields[1:6]))
        elif fields[1:2] == ["k_max"]:
            runs.append((fields[0], current))
            current = []
    return runs


def main() -> None:
    for graph, rounds in parse(sys.argv[1]):
        gaps = [(b[1] - a[1]) / 1e3 for a, b in zip(rounds, rounds[1:], strict=False)]
        print(f"{graph}: {len(rounds)} rounds, the first {len(gaps)} over {sum(gaps):.0f} us")
        for (r, _, lanes, groups, warps), gap in zip(rounds, gaps, strict=False):
            print(
                f"  round {r:3d}: {lanes:7d} thread, {groups:7d} group, {warps:6d} warp edges,"
                f" {gap:6.0f} us"
            )


if __name__ == "__main__":
    main()
