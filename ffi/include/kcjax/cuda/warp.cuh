// Warp-level device primitives shared by every CUDA family: warp constants
// and lane arithmetic, values pinned in registers, warp reductions and scans,
// and the persistent warp's task counter. Header-only, namespace kcjax::cuda.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "kcjax/core/config.h"

namespace kcjax::cuda {

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
// (about twenty instructions per scheduler step of the heavy kernel; an
// empty inline asm does not stop it).
__device__ __forceinline__ uint32_t KeepInRegister(uint32_t v) { return __shfl_sync(kFull, v, 0); }
// The same for a pointer (two shuffles): its address is formed once instead
// of from a kernel parameter and an offset at every load through it.
template <typename T>
__device__ __forceinline__ T* KeepInRegister(T* p) {
  const auto v = reinterpret_cast<uintptr_t>(p);
  const uint64_t lo = KeepInRegister(static_cast<uint32_t>(v));
  const uint64_t hi = KeepInRegister(static_cast<uint32_t>(static_cast<uint64_t>(v) >> 32));
  return reinterpret_cast<T*>(static_cast<uintptr_t>(hi << 32 | lo));
}

// Sum / bitwise OR / minimum of a value over the warp (every lane gets it).
template <typename T>
__device__ __forceinline__ T WarpSum(T x) {
#pragma unroll
  for (int off = kWarp / 2; off >= 1; off >>= 1) x += __shfl_xor_sync(kFull, x, off);
  return x;
}
template <typename T>
__device__ __forceinline__ T WarpOr(T x) {
#pragma unroll
  for (int off = kWarp / 2; off >= 1; off >>= 1) x |= __shfl_xor_sync(kFull, x, off);
  return x;
}

template <typename T>
__device__ __forceinline__ T WarpMin(T x) {
#pragma unroll
  for (int off = kWarp / 2; off >= 1; off >>= 1) x = min(x, __shfl_xor_sync(kFull, x, off));
  return x;
}

// Sum / maximum of a 64-bit value over the warp (every lane gets it).
__device__ __forceinline__ u64 WarpSum64(u64 x) { return WarpSum(x); }
__device__ __forceinline__ u64 WarpMax64(u64 x) {
#pragma unroll
  for (int off = kWarp / 2; off >= 1; off >>= 1) x = max(x, __shfl_xor_sync(kFull, x, off));
  return x;
}

// Inclusive prefix sum over the lanes.
template <typename T>
__device__ __forceinline__ T WarpInclusiveScan(T x) {
  const int lane = LaneId();
#pragma unroll
  for (int off = 1; off < kWarp; off <<= 1) {
    const T y = __shfl_sync(kFull, x, max(lane - off, 0));
    if (lane >= off) x += y;
  }
  return x;
}

// incl: lane-held inclusive prefix sums (nondecreasing over lanes). Returns
// the lane owning item q (the number of lanes with incl <= q), clamped to 31;
// exact whenever q < incl[31].
template <typename T>
__device__ __forceinline__ int OwnerLane(T incl, T q) {
  int lo = 0;
#pragma unroll
  for (int step = kWarp / 2; step >= 1; step >>= 1) {
    const T x = __shfl_sync(kFull, incl, lo + step - 1);
    if (x <= q) lo += step;
  }
  return lo;
}

// Appends x to list[*size] for every lane with want, one atomic per warp;
// appended lanes keep their lane order. Every lane of the warp calls it.
__device__ __forceinline__ void WarpPush(bool want, int32_t x, int32_t* list, int32_t* size) {
  const unsigned mask = __ballot_sync(kFull, want);
  if (mask == 0) return;
  int32_t base = 0;
  if (LaneId() == __ffs(mask) - 1) base = atomicAdd(size, __popc(mask));
  base = __shfl_sync(kFull, base, __ffs(mask) - 1);
  if (want) list[base + __popc(mask & LaneMaskLt())] = x;
}

// The next task id of a persistent warp: one atomic per warp (taking n ids),
// broadcast to every lane.
__device__ __forceinline__ int PullTask(int* counter, int n = 1) {
  int t = 0;
  if (LaneId() == 0) t = atomicAdd(counter, n);
  return __shfl_sync(kFull, t, 0);
}

}  // namespace kcjax::cuda
