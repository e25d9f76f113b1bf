// Shared pieces of the CUDA k-truss kernels (ffi/cuda/truss/truss.cu): policy
// constants, edge tags and report slots, the CSR view, list merges and the
// warp's early-exit triangle test. truss.cu includes this header and the three
// that build on it (prefilter, support, peel); none is a public interface.
#pragma once

#include <cooperative_groups.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <climits>
#include <cmath>
#include <cstdint>
#include <string>

#include "kcjax/core/ffi.h"
#include "kcjax/cuda/intersect.cuh"
#include "kcjax/cuda/scratch.h"
#include "kcjax/cuda/split.cuh"
#include "kcjax/cuda/warp.cuh"
#include "kcjax/truss/truss.h"

namespace ffi = xla::ffi;
namespace cg = cooperative_groups;

namespace kcjax::truss {
namespace {

using cuda::kFull;
using cuda::kWarp;
using cuda::u64;
using cuda::WarpMin;
using cuda::WarpPush;
using cuda::WarpSum;
constexpr int kThreads = TrussPolicy::kThreads;
constexpr int kLaneList = TrussPolicy::kLaneList;
static_assert(kLaneList < 256, "merged frontier items pack both list lengths in 8 bits each");
static_assert(TrussPolicy::kChunkProbes == kWarp, "a chunk is one probe per lane of a warp");
constexpr int kLogWarp = 5;
static_assert(1 << kLogWarp == kWarp);

// Edge tags: the step whose round removes the edge; live edges carry kLiveTag and
// edges outside the prefilter kDeadTag. At step s an edge is dead if its tag is
// below s, in the round's frontier if it equals s, live above.
constexpr int32_t kLiveTag = INT_MAX, kDeadTag = -1;

// What one step reports to the next.
struct Slot {
  u64 heavy;      // (chunked frontier edges << 32) | their chunks
  int32_t light;  // frontier edges merged by one thread
  int32_t low;    // a scan: the smallest support it left live
  int32_t kept;   // a compacting scan: the live edges it kept
  int32_t pad;
};
constexpr int kSlots = 3;

__device__ __forceinline__ int32_t Load(const int32_t* p) { return __ldcg(p); }
__device__ __forceinline__ uint32_t Load(const uint32_t* p) { return __ldcg(p); }
__device__ __forceinline__ u64 Load(const u64* p) { return __ldcg(p); }

// First position p in [lo, hi) with col[p] >= x (hi if none).
__device__ __forceinline__ int32_t LowerBound(const int32_t* __restrict__ col, int32_t lo,
                                              int32_t hi, int32_t x) {
  return lo + cuda::LowerBound(col + lo, hi - lo, x);
}

// Calls fn(i, j) for the common entries col[i] == col[j] of the sorted ranges
// [a0, a1) and [b0, b1) by one thread's merge, until fn returns true.
template <typename Fn>
__device__ __forceinline__ void LaneMerge(const int32_t* __restrict__ col, int32_t a0, int32_t a1,
                                          int32_t b0, int32_t b1, Fn fn) {
  if (a0 >= a1 || b0 >= b1) return;
  int32_t x = col[a0], y = col[b0];
  while (true) {
    if (x < y) {
      if (++a0 == a1) return;
      x = col[a0];
    } else if (y < x) {
      if (++b0 == b1) return;
      y = col[b0];
    } else {
      if (fn(a0, b0)) return;
      if (++a0 == a1 || ++b0 == b1) return;
      x = col[a0];
      y = col[b0];
    }
  }
}

struct Csr {
  const int32_t* indptr;
  const int32_t* indices;
  const int32_t* eid;
  const int32_t* esrc;
  const int32_t* edst;
  int32_t m;
};

// The shorter and longer neighbour ranges of edge e.
__device__ __forceinline__ void Ranges(const Csr& g, int32_t e, int32_t& a0, int32_t& a1,
                                       int32_t& b0, int32_t& b1) {
  const int32_t u = g.esrc[e], v = g.edst[e];
  a0 = g.indptr[u], a1 = g.indptr[u + 1], b0 = g.indptr[v], b1 = g.indptr[v + 1];
  if (a1 - a0 > b1 - b0) {
    int32_t t0 = a0, t1 = a1;
    a0 = b0, a1 = b1, b0 = t0, b1 = t1;
  }
}

// The k of a k-truss call that the one-pass path serves (k <= 3); kbuf == nullptr
// (other modes) never does.
__device__ __forceinline__ bool SmallK(const int32_t* kbuf) {
  return kbuf != nullptr && *kbuf <= 3;
}

// Whether edge e lies in a triangle, for a warp's 32 consecutive edges together
// (lane i owns edge e = first + i; e >= m: none). Rounds of one probe per lane: the
// edges still open share the warp's lanes evenly (32 / open each), a lane takes the
// next entry of its edge's shorter list and binary-searches the longer one; an edge
// closes at its first common neighbour or when its shorter list runs out. A round's
// last lower bound moves the edge's longer range forward (later probes are larger).
// `ranked`: 32 ints of shared memory for this warp.
__device__ __forceinline__ bool WarpInTriangle(const int32_t* __restrict__ indptr,
                                               const int32_t* __restrict__ indices,
                                               const int32_t* __restrict__ esrc,
                                               const int32_t* __restrict__ edst, int64_t e,
                                               int64_t m, int lane, int32_t* ranked) {
  int32_t a0 = 0, a1 = 0, b0 = 0, b1 = 0;  // the shorter range [a0, a1), the longer [b0, b1)
  if (e < m) {
    const int32_t u = esrc[e], v = edst[e];
    a0 = indptr[u], a1 = indptr[u + 1], b0 = indptr[v], b1 = indptr[v + 1];
    if (a1 - a0 > b1 - b0) {
      int32_t t0 = a0, t1 = a1;
      a0 = b0, a1 = b1, b0 = t0, b1 = t1;
    }
  }
  bool hit = false;
  unsigned open = __ballot_sync(kFull, a0 < a1);  // the longer range is never shorter
  while (open != 0) {
    const int count = __popc(open);
    const int q = kWarp / count;  // lanes per open edge this round
    const bool mine = (open >> lane) & 1u;
    const int rank = __popc(open & cuda::LaneMaskLt());
    const int32_t take = mine ? min(a1 - a0, q) : 0;
    if (mine) ranked[rank] = lane;
    __syncwarp();
    const int group = lane / q;  // the open edge this lane probes for
    const int owner = group < count ? ranked[group] : lane;
    __syncwarp();  // ranked is rewritten by the next round
    const int32_t c0 = __shfl_sync(kFull, a0, owner), n = __shfl_sync(kFull, take, owner);
    const int32_t d0 = __shfl_sync(kFull, b0, owner), d1 = __shfl_sync(kFull, b1, owner);
    const int j = lane - group * q;
    bool found = false;
    int32_t pos = d0;
    if (group < count && j < n) {
      const int32_t w = indices[c0 + j];
      pos = d0 + cuda::LowerBound(indices + d0, d1 - d0, w);
      found = pos < d1 && indices[pos] == w;
    }
    const unsigned hits = __ballot_sync(kFull, found);
    const int32_t last = __shfl_sync(kFull, pos, mine ? rank * q + take - 1 : lane);
    if (mine) {
      const unsigned lanes = (q == kWarp ? kFull : (1u << q) - 1u) << (rank * q);
      hit = (hits & lanes) != 0;
      a0 += take;
      b0 = last;
    }
    open = __ballot_sync(kFull, mine && !hit && a0 < a1 && b0 < b1);
  }
  return hit;
}

}  // namespace
}  // namespace kcjax::truss
