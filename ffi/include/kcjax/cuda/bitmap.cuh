// Bitmap rows of 32-bit words, as built by warp ballots (one word per
// ballot): the count kernels' bitmap spaces. (The pivot kernels keep rows of
// at most two 64-bit words in registers; their helpers stay with them.)
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "kcjax/core/config.h"
#include "kcjax/cuda/warp.cuh"

namespace kcjax::cuda {

// 32-bit words of a row over d positions.
KCJAX_HD inline int WordsFor(int d) { return (d + 31) / 32; }

// Writes the positions of the set bits of bm[0, W) to out (ascending) and
// returns their number (warp-uniform).
__device__ inline int ExtractBits(const uint32_t* bm, int W, int32_t* out) {
  const int lane = LaneId();
  int base = 0;
  for (int c0 = 0; c0 < W; c0 += kWarp) {
    const int c = c0 + lane;
    uint32_t word = c < W ? bm[c] : 0u;
    const int n = __popc(word);
    int incl = n;
#pragma unroll
    for (int off = 1; off < kWarp; off <<= 1) {
      const int t = __shfl_up_sync(kFull, incl, off);
      if (lane >= off) incl += t;
    }
    int k = base + incl - n;
    while (word) {
      out[k++] = 32 * c + __ffs(word) - 1;
      word &= word - 1;
    }
    base += __shfl_sync(kFull, incl, kWarp - 1);
  }
  __syncwarp();
  return base;
}

}  // namespace kcjax::cuda
