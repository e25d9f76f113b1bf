// Clique counting (count.cu): the constants, counting strategies and exact
// per-warp counters every count kernel shares.
// Private to count.cu (one translation unit: included there, in order, so
// that every kernel's inlining is that of a single file).
#pragma once

#include <cstdint>

#include "kcjax/cliques/count_cuda.h"
#include "kcjax/cliques/policy.h"
#include "kcjax/core/csr.h"
#include "kcjax/cuda/bitmap.cuh"
#include "kcjax/cuda/intersect.cuh"
#include "kcjax/cuda/tasks.h"
#include "kcjax/cuda/warp.cuh"
#include "kcjax/cuda/wide.cuh"

namespace kcjax::cliques {
namespace {

using namespace kcjax::cuda;  // the shared primitives

using Policy = CliquePolicy;

constexpr uint32_t kNone = 0xffffffffu;  // "no bit": larger than any position
constexpr int kThreads = Policy::kWarpsPerBlock * kWarp;
static_assert(Policy::kSmallTaskMax <= 32, "small tasks use one 32-bit word per bitmap row");
static_assert(Policy::kSmallTaskMax <= Policy::kWarpTaskMax &&
                  Policy::kWarpTaskMax <= Policy::kMaxBitmapDim,
              "task-size classes must be nested");

enum Method : int {
  kKCMiner = 0,
  kBinarySearch = 1,
  kStaticBitmapL1 = 2,
  kStaticBitmapL2 = 3,
  kWarpBitmap = 4,
  kThreadBitmap = 5,
};

// ---------------------------------------------------------------------------
// Exact counters.
// ---------------------------------------------------------------------------

// Per-warp counters: slots[0..nslots) in shared memory, owned by one warp.
struct Counts {
  u64* slots;
  int nslots;
  u64* out;

  // One lane only (warp-private slots, no atomics). Exact: a wrapping slot
  // is first moved into the 128-bit output.
  __device__ __forceinline__ void AddLane(int size, u64 v) const {
    if (v == 0) return;
    if (size < nslots) {
      const u64 old = slots[size];
      u64 next = old + v;
      if (next < old) {
        GlobalAdd128(out, size, old);
        next = v;
      }
      slots[size] = next;
    } else {
      GlobalAdd128(out, size, v);
    }
  }
  // Warp-uniform `size`, per-lane value (< 2^27 per lane: bitmap popcounts).
  __device__ __forceinline__ void AddWarp(int size, uint32_t lane_value) const {
    const uint32_t s = __reduce_add_sync(kFull, lane_value);
    if (LaneId() == 0) AddLane(size, s);
  }
  // Divergent lanes (lane-private DFS): atomics on the shared slots; a wrap
  // carries 2^64 straight into the output's high word.
  __device__ __forceinline__ void AddAtomic(int size, u64 v) const {
    if (v == 0) return;
    if (size < nslots) {
      const u64 old = atomicAdd(&slots[size], v);
      if (old + v < old) atomicAdd(out + 2 * static_cast<int64_t>(size) + 1, 1ull);
    } else {
      GlobalAdd128(out, size, v);
    }
  }
  __device__ void Zero() const {
    for (int s = LaneId(); s < nslots; s += kWarp) slots[s] = 0;
    __syncwarp();
  }
  __device__ void Flush() const {
    __syncwarp();
    for (int s = LaneId(); s < nslots; s += kWarp) GlobalAdd128(out, s, slots[s]);
  }
};

}  // namespace
}  // namespace kcjax::cliques
