// Exact 128-bit device counters: (lo, hi) uint64 pairs, the little-endian
// uint32[..., 4] limbs of kcjax's count outputs (see kcjax/core/wide_count.h).
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "kcjax/cuda/warp.cuh"

namespace kcjax::cuda {

// cell[0..1] = one 128-bit count as (lo, hi) uint64: exact, a wrap of the low
// word carries into the high word.
__device__ __forceinline__ void AtomicAdd128(u64* cell, u64 v) {
  const u64 old = atomicAdd(cell, v);
  if (old + v < old) atomicAdd(cell + 1, 1ull);
}

// cell[0..1] += (hi << 64 | lo): a full 128-bit addend, exact modulo 2^128
// (the carry of the low word joins the high word's one atomic).
__device__ __forceinline__ void AtomicAdd128(u64* cell, u64 lo, u64 hi) {
  const u64 old = atomicAdd(cell, lo);
  hi += old + lo < old ? 1ull : 0ull;
  if (hi != 0) atomicAdd(cell + 1, hi);
}

// out viewed as (lo, hi) pairs = little-endian uint32[..., 4] limbs; adds v to
// pair `slot`.
__device__ __forceinline__ void GlobalAdd128(u64* out, int64_t slot, u64 v) {
  if (v != 0) AtomicAdd128(out + 2 * slot, v);
}

}  // namespace kcjax::cuda
