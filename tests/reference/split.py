"""Host models of the flat-work searches of ffi/include/kcjax/cuda/split.cuh.

Each follows its device function's index arithmetic, so that the kernels that
split flat work with them (BFS's top-down, the k-truss DAG passes) can be
modelled on the CPU.
"""

from __future__ import annotations


def block_count_at_most(a: list[int], n: int, key: int, threads: int) -> int:
    """BlockCountAtMost: the entries of a[0, n) that are <= key, by rounds of `threads`
    probes (asserts the answer, and that each round narrows the range)."""
    lo, hi = 0, n
    while lo < hi:
        step = (hi - lo + threads - 1) // threads
        k = sum(1 for t in range(threads) if lo + t * step < hi and a[lo + t * step] <= key)
        if k == 0:
            break
        hi, lo = min(hi, lo + k * step), lo + (k - 1) * step + 1
        assert hi - lo < step or step == 1
    assert lo == sum(1 for x in a[:n] if x <= key)
    return lo


def last_at_most(s: list[int], n: int, x: int) -> int:
    """LastAtMost<n>: the largest t in [0, n] with s[t] <= x, by halving steps."""
    t, step = 0, 1 << (n.bit_length() - 1)
    while step:
        if t + step <= n and s[t + step] <= x:
            t += step
        step >>= 1
    return t
