// Device helpers shared by the CUDA kernels of every op family (cliques,
// listing, pivot): warp constants and lane arithmetic, the DAG CSR view,
// exact 128-bit atomics, sorted-list search and the warp's task counter.
// Header-only; each kernel file brings the names into its own namespace
// with `using namespace kcjax::cuda::device;`.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "kcjax/cliques/policy.h"

namespace kcjax::cuda::device {

using u64 = unsigned long long;

inline constexpr unsigned kFull = 0xffffffffu;  // every lane of a warp
inline constexpr int kWarp = 32;

KCJAX_HD inline int64_t CeilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }
KCJAX_HD inline int64_t RoundUp(int64_t a, int64_t b) { return CeilDiv(a, b) * b; }

__device__ __forceinline__ int LaneId() { return threadIdx.x & 31; }
__device__ __forceinline__ int WarpInBlock() { return threadIdx.x >> 5; }
__device__ __forceinline__ unsigned LaneMaskLt() { return (1u << LaneId()) - 1u; }

// v, equal in every lane of a converged warp, through a shuffle that ptxas
// cannot rebuild: the value is computed once and kept in a register. For a
// warp's offsets into shared memory, which ptxas otherwise rematerializes
// from kernel parameters and threadIdx at every use inside a hot loop
// (twenty instructions per scheduler step of the heavy kernel, NOTES run 55;
// an empty inline asm does not stop it).
__device__ __forceinline__ uint32_t KeepInRegister(uint32_t v) {
  return __shfl_sync(kFull, v, 0);
}
// The same for a pointer (two shuffles): its address is formed once instead
// of from a kernel parameter and an offset at every load through it.
template <typename T>
__device__ __forceinline__ T* KeepInRegister(T* p) {
  const auto v = reinterpret_cast<uintptr_t>(p);
  const uint64_t lo = KeepInRegister(static_cast<uint32_t>(v));
  const uint64_t hi = KeepInRegister(static_cast<uint32_t>(static_cast<uint64_t>(v) >> 32));
  return reinterpret_cast<T*>(static_cast<uintptr_t>(hi << 32 | lo));
}

// The oriented graph on the device (DAG CSR, src[e] = row of edge e).
struct Graph {
  const int32_t* indptr;
  const int32_t* indices;
  const int32_t* src;
  int64_t num_edges;
  __device__ __forceinline__ const int32_t* Row(int32_t w) const { return indices + indptr[w]; }
  __device__ __forceinline__ int Degree(int32_t w) const { return indptr[w + 1] - indptr[w]; }
};

// cell[0..1] = one 128-bit count as (lo, hi) uint64: exact, a wrap of the low
// word carries into the high word.
__device__ __forceinline__ void AtomicAdd128(u64* cell, u64 v) {
  const u64 old = atomicAdd(cell, v);
  if (old + v < old) atomicAdd(cell + 1, 1ull);
}

// out viewed as (lo, hi) pairs = little-endian uint32[..., 4] limbs; adds v to
// pair `slot`.
__device__ __forceinline__ void GlobalAdd128(u64* out, int64_t slot, u64 v) {
  if (v != 0) AtomicAdd128(out + 2 * slot, v);
}

// First index i in [0, n) with a[i] >= x, or n (never reads a[n]).
__device__ __forceinline__ int LowerBound(const int32_t* a, int n, int32_t x) {
  int lo = 0, len = n;
  while (len > 0) {
    const int half = len >> 1;
    if (a[lo + half] < x) {
      lo += half + 1;
      len -= half + 1;
    } else {
      len = half;
    }
  }
  return lo;
}

// True iff x occurs in the sorted list a[0, n).
__device__ __forceinline__ bool Member(const int32_t* a, int n, int32_t x) {
  const int lo = LowerBound(a, n, x);
  return lo < n && a[lo] == x;
}

// The next task id of a persistent warp: one atomic per warp, broadcast.
__device__ __forceinline__ int PullTask(int* counter) {
  int t = 0;
  if (LaneId() == 0) t = atomicAdd(counter, 1);
  return __shfl_sync(kFull, t, 0);
}

}  // namespace kcjax::cuda::device
