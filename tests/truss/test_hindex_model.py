"""Host models of the CUDA h-index update's searches (ffi/cuda/truss/hindex.cuh) against
a plain h-index: the warp's refined histogram and the groups' binary search."""

from __future__ import annotations

import numpy as np
import pytest
from reference.truss import h_index

BINS, LANES = 256, 32  # TrussPolicy::kHIndexWindow, the warp
PER = BINS // LANES


def warp_refined(values: np.ndarray, cap: int) -> tuple[int, int]:
    """WarpUpdate's passes: bins of width w over [lo, hi], lanes holding PER bins each,
    the highest bin start x with count(>= x) >= x kept. Returns (h, passes)."""
    v = np.minimum(values, cap)
    lo, hi, above, passes = 0, cap, 0, 0
    while True:
        passes += 1
        w = (hi - lo) // BINS + 1
        window = np.zeros(BINS, np.int64)
        inside = v[(v >= lo) & (v <= hi)]
        np.add.at(window, (inside - lo) // w, 1)
        mine = window.reshape(LANES, PER).sum(axis=1)
        incl = np.cumsum(mine)
        best, best_above = -1, 0
        for lane in range(LANES):  # each lane's search, then the maximum over lanes
            count = above + incl[-1] - incl[lane]
            for j in range(PER - 1, -1, -1):
                x = lo + (lane * PER + j) * w
                in_bin = window[lane * PER + j]
                if x <= hi and count + in_bin >= x:
                    if lane * PER + j > best:
                        best, best_above = lane * PER + j, count
                    break
                count += in_bin
        assert best >= 0  # bin 0 always holds
        lo += best * w
        if w == 1:
            return lo, passes
        hi = min(hi, lo + w - 1)
        above = best_above


def group_search(values: np.ndarray, cap: int) -> int:
    """GroupUpdate's binary search over x in [0, cap]."""
    lo, hi = 0, cap
    while lo < hi:
        mid = (lo + hi + 1) >> 1
        if int((values >= mid).sum()) >= mid:
            lo = mid
        else:
            hi = mid - 1
    return lo


@pytest.mark.parametrize("seed", range(40))
def test_searches_equal_h_index(seed):
    rng = np.random.default_rng(seed)
    size = int(rng.integers(1, 3000))
    top = int(rng.choice([5, 100, 300, 5000, 70_000]))
    values = rng.integers(0, top + 1, size)
    if seed % 3 == 0:  # a dense block of equal values (a clique's edges)
        values[: size // 2] = rng.integers(0, top + 1)
    for cap in {size, int(rng.integers(0, size + 1)), int(values.max())}:
        want = h_index(values, cap)
        got, passes = warp_refined(values, cap)
        assert got == want, (seed, cap)
        assert passes <= 1 + int(np.ceil(np.log(cap + 1) / np.log(BINS)))
        assert group_search(values, cap) == want, (seed, cap)
