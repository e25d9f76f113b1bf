// Bottom-up search of a word's unreached vertices against a frontier bitmap,
// shared by the cluster kernel (bitmaps in shared memory) and the grid kernel's
// bitmap variant (bitmaps in global memory, read through L2). nvcc only.
#pragma once

#include <cstdint>

#include "kcjax/bfs/policy.h"
#include "kcjax/cuda/warp.cuh"

namespace kcjax::bfs {

inline constexpr int kBatch = BfsPolicy::kEdgeBatch;
// The batch of a search on global-memory bitmaps (the grid kernel's bitmap variant) or on
// shared-memory ones (the cluster kernel).
template <bool kGlobal>
inline constexpr int kBatchOf = kGlobal ? BfsPolicy::kBitmapEdgeBatch : BfsPolicy::kEdgeBatch;
inline constexpr int kGroupLanes = BfsPolicy::kClusterGroupLanes;
inline constexpr int kGroups = cuda::kWarp / kGroupLanes;
static_assert(kGroupLanes < cuda::kWarp && cuda::kWarp % kGroupLanes == 0, "groups tile the warp");

// The position of the r-th (0-based) set bit of `bits` (r < popc(bits)).
__device__ __forceinline__ int NthBit(uint32_t bits, int r) {
  for (; r > 0; --r) bits &= bits - 1;
  return __ffs(bits) - 1;
}

// The word of v's bit. kGlobal: a bitmap in global memory that other blocks
// wrote before the last grid sync, read from L2 (L1 is not coherent); else
// shared memory.
template <bool kGlobal>
__device__ __forceinline__ uint32_t FrontWord(const uint32_t* bits, int32_t v) {
  return kGlobal ? __ldcg(bits + (v >> 5)) : bits[v >> 5];
}

// A frontier vertex among the edges e0, e0 + step, ... (kBatchOf<kGlobal> of them, < hi);
// -1 if none. The ids, then their frontier words, are loaded batch-wide before
// any is tested: a test that returned early would make each next word's load
// wait for it (up to a batch of dependent L2 round trips in the grid kernel).
template <bool kGlobal>
__device__ __forceinline__ int32_t FrontierNeighbour(const int32_t* indices, const uint32_t* front,
                                                     int64_t e0, int64_t hi, int step) {
  int32_t x[kBatchOf<kGlobal>];
  uint32_t word[kBatchOf<kGlobal>];
#pragma unroll
  for (int j = 0; j < kBatchOf<kGlobal>; ++j) {
    const int64_t e = e0 + int64_t{j} * step;
    x[j] = e < hi ? __ldg(indices + e) : -1;
  }
#pragma unroll
  for (int j = 0; j < kBatchOf<kGlobal>; ++j)
    word[j] = x[j] >= 0 ? FrontWord<kGlobal>(front, x[j]) : 0u;
#pragma unroll
  for (int j = 0; j < kBatchOf<kGlobal>; ++j)
    if ((word[j] >> (x[j] & 31)) & 1u) return x[j];
  return -1;
}

// Bottom-up search of the vertices of the lanes in `todo` (their lists
// [lo, hi) in their lanes) by groups of kGroupLanes lanes, kGroups vertices at
// a time, each group stopping at the first batch that holds a frontier
// neighbour. Returns `found` with each such lane's parent set (-1: none).
// Every lane of the warp calls it.
template <bool kGlobal>
__device__ __forceinline__ int32_t GroupSearch(const int32_t* indices, const uint32_t* front,
                                               unsigned todo, int64_t lo, int64_t hi,
                                               int32_t found) {
  const int lane = cuda::LaneId(), group = lane / kGroupLanes, glane = lane % kGroupLanes;
  const unsigned mask = ((1u << kGroupLanes) - 1u) << (group * kGroupLanes);  // this group
  while (todo != 0) {
    const int take = min(__popc(todo), kGroups);
    const int o = group < take ? NthBit(todo, group) : -1;  // this group's vertex lane
    const int64_t olo = __shfl_sync(cuda::kFull, lo, max(o, 0));
    const int64_t ohi_any = __shfl_sync(cuda::kFull, hi, max(o, 0));
    const int64_t ohi = o < 0 ? olo : ohi_any;
    int32_t par = -1;
    bool done = o < 0;
    for (int64_t base = olo; __any_sync(cuda::kFull, !done);
         base += kGroupLanes * kBatchOf<kGlobal>) {
      const int32_t h =
          done ? -1 : FrontierNeighbour<kGlobal>(indices, front, base + glane, ohi, kGroupLanes);
      const unsigned hits = __ballot_sync(cuda::kFull, h >= 0) & mask;
      const int32_t first = __shfl_sync(cuda::kFull, h, hits != 0 ? __ffs(hits) - 1 : lane);
      if (!done && hits != 0) par = first;
      done = done || hits != 0 || base + kGroupLanes * kBatchOf<kGlobal> >= ohi;
    }
    // A taken vertex's lane reads its group's parent (group = its rank in todo).
    const int rank = __popc(todo & cuda::LaneMaskLt());
    const bool taken = ((todo >> lane) & 1u) && rank < take;
    const int32_t got = __shfl_sync(cuda::kFull, par, taken ? rank * kGroupLanes : 0);
    if (taken) found = got;
    for (int i = 0; i < take; ++i) todo &= todo - 1;
  }
  return found;
}

// The bottom-up search of one bitmap word's vertices: the lanes set in
// `unreached` hold a vertex (this lane's is first + lane) whose list [lo, hi)
// they have loaded. With kSoloFirstBatch every lane first tests its list's
// first batch alone. Then a thread searches a list shorter than
// kClusterGroupDegree, groups of lanes those up to kMiddleMax, the warp a
// wider one; each stops at the first batch with a frontier neighbour. Returns
// this lane's parent (-1: none, or not a lane of `unreached`). Every lane of
// the warp calls it.
template <bool kGlobal>
__device__ __forceinline__ int32_t SearchWord(const int32_t* indices, const uint32_t* front,
                                              unsigned unreached, int64_t lo, int64_t hi) {
  const int lane = cuda::LaneId();
  const bool mine = (unreached >> lane) & 1u;
  const int64_t deg = hi - lo;
  int32_t found = -1;
  if constexpr (BfsPolicy::kSoloFirstBatch) {
    if (mine) found = FrontierNeighbour<kGlobal>(indices, front, lo, hi, 1);
    if (found < 0)
      lo = min(lo + kBatchOf<kGlobal>, hi);  // the rest of the list, whoever searches it
    unreached &= __ballot_sync(cuda::kFull, found < 0);
  }
  const bool open = (unreached >> lane) & 1u;          // mine, and not found by a first batch
  if (open && deg < BfsPolicy::kClusterGroupDegree) {  // a thread each
    for (int64_t e0 = lo; e0 < hi && found < 0; e0 += kBatchOf<kGlobal>)
      found = FrontierNeighbour<kGlobal>(indices, front, e0, hi, 1);
  }
  const unsigned grouped = __ballot_sync(
      cuda::kFull, open && deg >= BfsPolicy::kClusterGroupDegree && deg < BfsPolicy::kMiddleMax);
  found = GroupSearch<kGlobal>(indices, front, grouped, lo, hi, found);
  const unsigned wide = __ballot_sync(cuda::kFull, open && deg >= BfsPolicy::kMiddleMax);
  for (unsigned todo = wide; todo != 0; todo &= todo - 1) {  // the warp, one vertex each
    const int o = __ffs(todo) - 1;
    const int64_t olo = __shfl_sync(cuda::kFull, lo, o), ohi = __shfl_sync(cuda::kFull, hi, o);
    for (int64_t e0 = olo; e0 < ohi; e0 += cuda::kWarp * kBatchOf<kGlobal>) {
      const int32_t hit = FrontierNeighbour<kGlobal>(indices, front, e0 + lane, ohi, cuda::kWarp);
      const unsigned any = __ballot_sync(cuda::kFull, hit >= 0);
      if (any != 0) {
        const int32_t par = __shfl_sync(cuda::kFull, hit, __ffs(any) - 1);
        if (lane == o) found = par;
        break;
      }
    }
  }
  return found;
}

}  // namespace kcjax::bfs
