// Searches that split flat work evenly over blocks, shared by every CUDA family.
// The work is items of varying sizes laid end to end: a nondecreasing offsets
// array gives where each item's units start. A block finds the item holding the
// first unit of its share (BlockCountAtMost), then walks its share in tiles whose
// items it stages in shared memory, where each thread finds its unit's item
// (LastAtMost). So no item, however large, serializes a block, and a thread's
// search is a few shared-memory reads.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

namespace kcjax::cuda {

// The number of entries of a[0, n) (nondecreasing, global memory written before the
// last grid sync or by an earlier kernel) that are <= key: a block-wide search, each
// round probing blockDim.x entries evenly spread over the range left
// (log_blockDim(n) rounds). Every thread of the block calls it and gets the answer.
template <typename T, typename I>
__device__ I BlockCountAtMost(const T* a, I n, int64_t key) {
  I lo = 0, hi = n;  // the answer is in [lo, hi]
  while (lo < hi) {
    const I step = (hi - lo + blockDim.x - 1) / blockDim.x;
    const I at = lo + static_cast<I>(threadIdx.x) * step;
    const I k = __syncthreads_count(at < hi && __ldcg(a + at) <= key);
    if (k == 0) return lo;
    hi = min(hi, lo + k * step);
    lo += (k - 1) * step + 1;
  }
  return lo;
}

// The largest power of two <= n (n >= 1).
constexpr int FloorPow2(int n) { return n < 2 ? 1 : 2 * FloorPow2(n / 2); }

// The largest t in [0, n] with s[t] <= x, given s[0] <= x (s nondecreasing, shared memory).
template <int n, typename T>
__device__ __forceinline__ int LastAtMost(const T* s, int64_t x) {
  int t = 0;
#pragma unroll
  for (int step = FloorPow2(n); step > 0; step >>= 1)
    if (t + step <= n && s[t + step] <= x) t += step;
  return t;
}

}  // namespace kcjax::cuda
