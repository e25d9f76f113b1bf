// CUDA handlers of "kcjax_truss" and "kcjax_truss_triangle_edges" (contracts in
// kcjax/truss/truss.h); the twins of ffi/cpu/truss/truss.cc.
//
// "kcjax_truss_triangle_edges" (the 3-truss) is one kernel: every edge looks for
// one common neighbour of its ends and stops at the first (WarpInTriangle).
//
// "kcjax_truss", all on the XLA stream with no host synchronization: the first
// kernel marks the live edges (k-core prefilter; with it, the edges that pass
// are also listed, and the support pass and the peeling work on that list
// alone, so a large k costs one pass over m plus work on the kept edges), then
//   * k-truss with a runtime k <= 3: the first kernel does it in one pass (the
//     3-truss is the edges in a triangle: removing edges of support 0 removes
//     no triangle); the later kernels see k and return;
//   * otherwise count supports by the chosen pass and peel in one cooperative
//     persistent kernel of grid-wide steps. A step either scans the live-edge
//     list for a level's first frontier (support <= level; the list is
//     compacted as it shrinks, so scans cost O(live), not O(m)), or runs one
//     synchronous round: the frontier is removed and the other two edges of
//     every live triangle lose a support (PKT's rule for triangles with two
//     frontier edges); edges that fall to the level form the next frontier.
//     One grid-wide sync per step: an edge's state is the step that removes it
//     (its tag), so removal needs no retiring pass, and every counter a step
//     writes lives in one of three slots (written at step s, read at s + 1,
//     cleared at s + 2). Frontier edges with short lists are merged by one
//     thread; longer ones are cut into chunks of warp probes that the whole grid
//     shares, so no hub edge serializes a round. Level 0 removes edges of
//     support 0, which close no live triangle: they are not probed. Runs of
//     small steps (a tail round, a scan of a short list) go to block 0 alone
//     with block barriers while the other blocks wait at the next grid sync.
//     A k-truss's result is cleared by the first kernel and its survivors set
//     by the peeling kernel as it ends.
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
#include "kcjax/cuda/warp.cuh"
#include "kcjax/truss/truss.h"

namespace ffi = xla::ffi;
namespace cg = cooperative_groups;

namespace kcjax {
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

// The 3-truss in one pass: out[e] = edge e lies in a triangle (WarpInTriangle).
__global__ void __launch_bounds__(kThreads)
    TriangleEdgesKernel(const int32_t* __restrict__ indptr, const int32_t* __restrict__ indices,
                        const int32_t* __restrict__ esrc, const int32_t* __restrict__ edst,
                        int32_t m, bool* out) {
  __shared__ int32_t ranked[kThreads];
  const int lane = threadIdx.x & (kWarp - 1);
  int32_t* mine = ranked + (threadIdx.x & ~(kWarp - 1));
  const int64_t stride = int64_t{gridDim.x} * blockDim.x;
  for (int64_t e = int64_t{blockIdx.x} * blockDim.x + threadIdx.x; e - lane < m; e += stride) {
    const bool hit = WarpInTriangle(indptr, indices, esrc, edst, e, m, lane, mine);
    if (e < m) out[e] = hit;
  }
}

// The live lists of a k-truss call with the k-core prefilter: the edges that pass
// it (elist) and their DAG edges (dlist, at the same positions), `count` of them.
// The support pass and the peeling then work on these alone, not on all m edges.
struct LiveLists {
  int32_t* elist;  // nullptr: no lists (every edge is live to start with)
  int32_t* dlist;
  int32_t* count;
};

// First kernel of every call: edge tags (the prefilter), zero supports, the report
// slots and, for a k-truss, the result cleared and the live lists. A k-truss with a
// runtime k <= 3 is done here in one pass instead: out[e] = k <= 2 or e lies in a
// triangle (the prefilter cannot change it: an edge in a triangle has both ends in
// the 2-core); the later kernels then read k and return.
__global__ void __launch_bounds__(kThreads, TrussPolicy::kInitBlocksPerSm)
    InitKernel(Csr g, const int32_t* __restrict__ dag_eid, const int32_t* __restrict__ core,
               int32_t use_core, const int32_t* __restrict__ kbuf, int32_t* tag, int32_t* sup,
               Slot* slots, bool* flags, LiveLists lists) {
  __shared__ int32_t ranked[kThreads];
  const int32_t k = max(*kbuf, 2);
  const int lane = threadIdx.x & (kWarp - 1);
  const int64_t stride = int64_t{gridDim.x} * blockDim.x;
  const int64_t first = int64_t{blockIdx.x} * blockDim.x + threadIdx.x;
  if (flags != nullptr && k <= 3) {
    int32_t* mine = ranked + (threadIdx.x & ~(kWarp - 1));
    for (int64_t e = first; e - lane < g.m; e += stride) {
      const bool hit =
          k == 3 && WarpInTriangle(g.indptr, g.indices, g.esrc, g.edst, e, g.m, lane, mine);
      if (e < g.m) flags[e] = k == 2 || hit;
    }
    return;
  }
  if (blockIdx.x == 0 && threadIdx.x < kSlots) slots[threadIdx.x] = Slot{0, 0, INT_MAX, 0, 0};
  if (lists.elist == nullptr) {
    for (int64_t e = first; e < g.m; e += stride) {
      bool alive = true;
      if (use_core) alive = core[g.esrc[e]] >= k - 1 && core[g.edst[e]] >= k - 1;
      tag[e] = alive ? kLiveTag : kDeadTag;
      sup[e] = 0;
      if (flags != nullptr) flags[e] = false;
    }
    return;
  }
  // By DAG edge d (dag_eid is a permutation of the edges), so that dlist[i] is the
  // DAG edge of elist[i].
  for (int64_t d = first; d - lane < g.m; d += stride) {
    bool alive = false;
    int32_t e = 0;
    if (d < g.m) {
      e = dag_eid[d];
      alive = core[g.esrc[e]] >= k - 1 && core[g.edst[e]] >= k - 1;
      tag[e] = alive ? kLiveTag : kDeadTag;
      sup[e] = 0;
      flags[d] = false;
    }
    const unsigned mask = __ballot_sync(kFull, alive);
    if (mask == 0) continue;
    const int leader = __ffs(mask) - 1;
    int32_t base = 0;
    if (lane == leader) base = atomicAdd(lists.count, __popc(mask));
    base = __shfl_sync(kFull, base, leader) + __popc(mask & cuda::LaneMaskLt());
    if (alive) {
      lists.elist[base] = e;
      lists.dlist[base] = static_cast<int32_t>(d);
    }
  }
}

// A recount step of a k-truss with the prefilter: the listed edges of support <= k - 3
// die; the others keep their order in the next list, their supports cleared for the
// support pass that follows (it counts the triangles left, the supports that rounds
// of decrements would reach, at a cost in the kept edges rather than the removed).
__global__ void __launch_bounds__(kThreads)
    RecountKernel(const int32_t* __restrict__ kbuf, LiveLists in, LiveLists out, int32_t* tag,
                  int32_t* sup) {
  if (SmallK(kbuf)) return;
  const int32_t level = *kbuf - 3;
  const int lane = threadIdx.x & (kWarp - 1);
  const int64_t stride = int64_t{gridDim.x} * blockDim.x;
  const int32_t items = *in.count;
  for (int64_t i = int64_t{blockIdx.x} * blockDim.x + threadIdx.x; i - lane < items; i += stride) {
    bool keep = false;
    int32_t e = 0, d = 0;
    if (i < items) {
      e = in.elist[i];
      d = in.dlist[i];
      keep = sup[e] > level;
      if (keep) {
        sup[e] = 0;
      } else {
        tag[e] = kDeadTag;
      }
    }
    const unsigned mask = __ballot_sync(kFull, keep);
    if (mask == 0) continue;
    const int leader = __ffs(mask) - 1;
    int32_t base = 0;
    if (lane == leader) base = atomicAdd(out.count, __popc(mask));
    base = __shfl_sync(kFull, base, leader) + __popc(mask & cuda::LaneMaskLt());
    if (keep) {
      out.elist[base] = e;
      out.dlist[base] = d;
    }
  }
}

// Each triangle once from the degree-oriented DAG, +1 to its three edges: a thread
// per DAG edge (a, b) merges the two out-lists when both are short; edges with a
// long out-list are searched by their whole warp, one at a time.
// `items` DAG edges: dlist[0, items), or 0..items - 1 when dlist is nullptr.
__device__ __forceinline__ void SupportDag(const int32_t* __restrict__ dptr,
                                           const int32_t* __restrict__ dcol,
                                           const int32_t* __restrict__ dsrc,
                                           const int32_t* __restrict__ deid, int32_t items,
                                           const int32_t* __restrict__ tag, int32_t* sup,
                                           const int32_t* dlist) {
  const int lane = threadIdx.x & (kWarp - 1);
  const int64_t stride = int64_t{gridDim.x} * blockDim.x;
  const int64_t end = cuda::RoundUp(items, kWarp);
  for (int64_t t = int64_t{blockIdx.x} * blockDim.x + threadIdx.x; t < end; t += stride) {
    int32_t d = 0, e = 0, a0 = 0, a1 = 0, b0 = 0, b1 = 0;
    bool wide = false;
    if (t < items) {
      d = dlist != nullptr ? Load(dlist + t) : static_cast<int32_t>(t);
      e = deid[d];
      if (tag[e] >= 0) {
        const int32_t a = dsrc[d], b = dcol[d];
        a0 = dptr[a], a1 = dptr[a + 1], b0 = dptr[b], b1 = dptr[b + 1];
        if (a1 - a0 > b1 - b0) {
          int32_t t0 = a0, t1 = a1;
          a0 = b0, a1 = b1, b0 = t0, b1 = t1;
        }
        if (b1 - b0 <= kLaneList) {
          int32_t own = 0;
          LaneMerge(dcol, a0, a1, b0, b1, [&](int32_t i, int32_t j) {
            const int32_t e1 = deid[i], e2 = deid[j];
            if (tag[e1] >= 0 && tag[e2] >= 0) {
              ++own;
              atomicAdd(sup + e1, 1);
              atomicAdd(sup + e2, 1);
            }
            return false;
          });
          if (own) atomicAdd(sup + e, own);
        } else {
          wide = true;
        }
      }
    }
    for (unsigned todo = __ballot_sync(kFull, wide); todo != 0; todo &= todo - 1) {
      const int src = __ffs(todo) - 1;
      const int32_t c0 = __shfl_sync(kFull, a0, src), c1 = __shfl_sync(kFull, a1, src);
      const int32_t d0 = __shfl_sync(kFull, b0, src), d1 = __shfl_sync(kFull, b1, src);
      int32_t own = 0;
      for (int32_t i = c0 + lane; i < c1; i += kWarp) {
        const int32_t w = dcol[i];
        const int32_t j = LowerBound(dcol, d0, d1, w);
        if (j < d1 && dcol[j] == w) {
          const int32_t e1 = deid[i], e2 = deid[j];
          if (tag[e1] >= 0 && tag[e2] >= 0) {
            ++own;
            atomicAdd(sup + e1, 1);
            atomicAdd(sup + e2, 1);
          }
        }
      }
      own = WarpSum(own);
      if (lane == src && own) atomicAdd(sup + e, own);
    }
  }
}

__global__ void SupportDagKernel(const int32_t* __restrict__ dptr, const int32_t* __restrict__ dcol,
                                 const int32_t* __restrict__ dsrc, const int32_t* __restrict__ deid,
                                 int32_t m, const int32_t* __restrict__ kbuf,
                                 const int32_t* __restrict__ tag, int32_t* sup, LiveLists lists) {
  if (SmallK(kbuf)) return;
  const int32_t items = lists.dlist != nullptr ? Load(lists.count) : m;
  SupportDag(dptr, dcol, dsrc, deid, items, tag, sup, lists.dlist);
}

// Warp per edge: |N(u) ∩ N(v)| over live triangles, no atomics. `items` edges:
// elist[0, items), or 0..items - 1 when elist is nullptr.
__device__ __forceinline__ void SupportEdge(const Csr& g, int32_t items,
                                            const int32_t* __restrict__ tag, int32_t* sup,
                                            const int32_t* elist) {
  const int lane = threadIdx.x & (kWarp - 1);
  const int64_t warps = int64_t{gridDim.x} * blockDim.x / kWarp;
  for (int64_t t = (int64_t{blockIdx.x} * blockDim.x + threadIdx.x) / kWarp; t < items;
       t += warps) {
    const int32_t e = elist != nullptr ? Load(elist + t) : static_cast<int32_t>(t);
    if (tag[e] < 0) continue;
    int32_t a0, a1, b0, b1;
    Ranges(g, e, a0, a1, b0, b1);
    int32_t c = 0;
    for (int32_t i = a0 + lane; i < a1; i += kWarp) {
      const int32_t w = g.indices[i];
      const int32_t j = LowerBound(g.indices, b0, b1, w);
      c += j < b1 && g.indices[j] == w && tag[g.eid[i]] >= 0 && tag[g.eid[j]] >= 0;
    }
    c = WarpSum(c);
    if (lane == 0) sup[e] = c;
  }
}

__global__ void SupportEdgeKernel(Csr g, const int32_t* __restrict__ kbuf,
                                  const int32_t* __restrict__ tag, int32_t* sup, LiveLists lists) {
  if (SmallK(kbuf)) return;
  SupportEdge(g, lists.elist != nullptr ? Load(lists.count) : g.m, tag, sup, lists.elist);
}

// kAuto over a live list, whose length is known on the device only: every thread reads
// the same length, so the whole grid takes the same pass (ResolveSupport).
__global__ void SupportAutoKernel(const int32_t* __restrict__ dptr,
                                  const int32_t* __restrict__ dcol,
                                  const int32_t* __restrict__ dsrc,
                                  const int32_t* __restrict__ deid, Csr g,
                                  const int32_t* __restrict__ kbuf, const int32_t* __restrict__ tag,
                                  int32_t* sup, LiveLists lists) {
  if (SmallK(kbuf)) return;
  const int32_t items = Load(lists.count);
  if (ResolveSupport(SupportMethod::kAuto, items) == SupportMethod::kEdge) {
    SupportEdge(g, items, tag, sup, lists.elist);
  } else {
    SupportDag(dptr, dcol, dsrc, deid, items, tag, sup, lists.dlist);
  }
}

// The seed's pass: block b takes vertices b, b + #blocks, ...; the vertex's list goes
// to shared memory; a thread per higher neighbour v walks N(v) and counts, in a
// register, the entries found in N(u).
__global__ void SupportVertexKernel(Csr g, int32_t n, const int32_t* __restrict__ kbuf,
                                    const int32_t* __restrict__ tag, int32_t* sup) {
  if (SmallK(kbuf)) return;
  __shared__ int32_t list[TrussPolicy::kSharedList];
  for (int32_t u = blockIdx.x; u < n; u += gridDim.x) {
    const int32_t u0 = g.indptr[u], du = g.indptr[u + 1] - u0;
    const bool staged = du <= TrussPolicy::kSharedList;
    if (staged) {
      for (int32_t i = threadIdx.x; i < du; i += blockDim.x) list[i] = g.indices[u0 + i];
    }
    __syncthreads();
    const int32_t* nu = staged ? list : g.indices + u0;
    for (int32_t p = threadIdx.x; p < du; p += blockDim.x) {
      const int32_t v = nu[p];
      const int32_t e = g.eid[u0 + p];
      if (v < u || tag[e] < 0) continue;
      int32_t c = 0;
      for (int32_t j = g.indptr[v]; j < g.indptr[v + 1]; ++j) {
        const int32_t w = g.indices[j];
        const int32_t i = LowerBound(nu, 0, du, w);
        c += i < du && nu[i] == w && tag[g.eid[u0 + i]] >= 0 && tag[g.eid[j]] >= 0;
      }
      sup[e] = c;
    }
    __syncthreads();
  }
}

// The peeling loop's state. Every field is the same in all threads that run a step:
// it changes only through values they all read after the same barrier.
struct PeelState {
  int32_t s;  // step
  int32_t level;
  int32_t prev;  // what the last step did: kStart, kProbe, kScan, kRecount
  int32_t list;  // live-edge list: 0 every edge, 1 live0, 2 live1
  int32_t list_size;
  int32_t pending;  // the list the last step's scan compacted into (0: none)
  int32_t done;
  int32_t pad;
  int64_t died;  // edges removed since the list was last compacted
};
enum : int32_t { kStart = 0, kProbe = 1, kScan = 2, kRecount = 3 };

struct PeelParams {
  Csr g;
  int32_t* tag;
  int32_t* sup;
  // By step parity (fields, not arrays: a runtime index into a kernel parameter's
  // array would copy it to local memory): frontier edges, merged ones from the
  // front as {edge, a0, b0, |a| << 8 | |b|} (its ranges, so the round that removes
  // it starts its merge after one load) and chunked ones from the back (edge in .x);
  // the first chunk of every chunked edge (ascending with its position); the
  // compacted live-edge lists.
  int4* frontier0;
  int4* frontier1;
  uint32_t* offset0;
  uint32_t* offset1;
  int32_t* live0;
  int32_t* live1;
  Slot* slots;
  PeelState* records;   // the state a one-block run hands back (two, alternating)
  int32_t* truss;       // kDecompose: trussness output; else nullptr
  const int32_t* kbuf;  // kKTruss: the k (device), one level k - 3; else nullptr: levels from 0
  bool* flags;          // kKTruss: the result (cleared), its survivors set at the end; else nullptr
  const int32_t* live_count;  // the edges in the start list; nullptr: every edge (list 0)
  int32_t start_list;         // with live_count: 1 (live0) or 2 (live1)
  int32_t chunk_shift;        // a chunk is kChunkProbes << chunk_shift probes
};

// Edge x joins the frontier of step s + 1 at `level` (its trussness is level + 2).
// It goes to the merged list when its longer list is short, else to the chunked
// list with its chunk count.
__device__ __forceinline__ void Push(const PeelParams& P, int32_t x, int32_t s, int32_t level) {
  P.tag[x] = s + 1;
  if (P.truss != nullptr) P.truss[x] = level + 2;
  if (level == 0) return;  // support 0: x closes no live triangle, nothing to probe
  int32_t a0, a1, b0, b1;
  Ranges(P.g, x, a0, a1, b0, b1);
  const bool light = b1 - b0 <= kLaneList;
  Slot* slot = P.slots + s % kSlots;
  int4* buf = s & 1 ? P.frontier1 : P.frontier0;
  // Merged edges: one atomic per group of lanes that push together (the threads of
  // a warp that reached this point).
  const unsigned lights = __ballot_sync(__activemask(), light);
  if (light) {
    const int leader = __ffs(lights) - 1;
    int32_t base = 0;
    if (cuda::LaneId() == leader) base = atomicAdd(&slot->light, __popc(lights));
    base = __shfl_sync(lights, base, leader);
    buf[base + __popc(lights & cuda::LaneMaskLt())] =
        make_int4(x, a0, b0, (a1 - a0) << 8 | (b1 - b0));
    return;
  }
  // Chunked edges (few: long lists): one 64-bit atomic gives the position and the
  // first chunk together, so chunk offsets ascend with positions.
  const int shift = kLogWarp + P.chunk_shift;  // log2(kChunkProbes << chunk_shift)
  const uint32_t chunks = static_cast<uint32_t>((a1 - a0 + (1 << shift) - 1) >> shift);
  const u64 old = atomicAdd(&slot->heavy, (u64{1} << 32) | chunks);
  const uint32_t pos = static_cast<uint32_t>(old >> 32);
  buf[P.g.m - 1 - static_cast<int32_t>(pos)].x = x;
  (s & 1 ? P.offset1 : P.offset0)[pos] = static_cast<uint32_t>(old);
}

// One support decrement of live edge x at `level` (PKT): pushes x to the next
// frontier when it reaches the level; never lets it fall below.
__device__ __forceinline__ void Decrement(const PeelParams& P, int32_t x, int32_t s,
                                          int32_t level) {
  if (Load(P.sup + x) <= level) return;
  const int32_t a = atomicSub(P.sup + x, 1);
  if (a == level + 1) {
    Push(P, x, s, level);
  } else if (a <= level) {
    atomicAdd(P.sup + x, 1);
  }
}

// The triangle (e, e1, e2) as frontier edge e is removed at step s.
__device__ __forceinline__ void OnTriangle(const PeelParams& P, int32_t e, int32_t e1, int32_t e2,
                                           int32_t s, int32_t level) {
  const int32_t t1 = Load(P.tag + e1), t2 = Load(P.tag + e2);
  if (t1 < s || t2 < s) return;
  const bool f1 = t1 == s, f2 = t2 == s;
  if (f1 && f2) return;
  if (f1) {
    if (e < e1) Decrement(P, e2, s, level);
    return;
  }
  if (f2) {
    if (e < e2) Decrement(P, e1, s, level);
    return;
  }
  Decrement(P, e1, s, level);
  Decrement(P, e2, s, level);
}

// Probes [p0, p1) of frontier edge e's shorter range, a lane each, searched in the
// longer range [b0, b1).
__device__ __forceinline__ void ProbeWarp(const PeelParams& P, int32_t e, int32_t p0, int32_t p1,
                                          int32_t b0, int32_t b1, int32_t s, int32_t level,
                                          int lane) {
  const Csr& g = P.g;
  for (int32_t a = p0 + lane; a < p1; a += kWarp) {
    const int32_t w = g.indices[a];
    const int32_t b = LowerBound(g.indices, b0, b1, w);
    if (b < b1 && g.indices[b] == w) OnTriangle(P, e, g.eid[a], g.eid[b], s, level);
  }
}

// Round s: removes the frontier (nl merged edges, nh chunked edges of nc chunks).
__device__ __forceinline__ void Round(const PeelParams& P, int32_t s, int32_t level, int32_t nl,
                                      int32_t nh, uint32_t nc, int64_t tid, int64_t threads,
                                      int64_t warp, int64_t warps, int lane) {
  const Csr& g = P.g;
  const int4* buf = (s - 1) & 1 ? P.frontier1 : P.frontier0;
  const uint32_t* offset = (s - 1) & 1 ? P.offset1 : P.offset0;
  for (int64_t i = tid; i < nl; i += threads) {
    const int4 item = __ldcg(buf + i);
    const int32_t e = item.x, a0 = item.y, b0 = item.z;
    const int32_t a1 = a0 + (item.w >> 8), b1 = b0 + (item.w & 0xff);
    LaneMerge(g.indices, a0, a1, b0, b1, [&](int32_t i1, int32_t i2) {
      OnTriangle(P, e, g.eid[i1], g.eid[i2], s, level);
      return false;
    });
  }
  if (nc == 0) return;
  // Chunks [c, c_end) of this warp, contiguous; the first one's edge by binary search.
  uint32_t c = static_cast<uint32_t>(u64{nc} * warp / warps);
  const uint32_t c_end = static_cast<uint32_t>(u64{nc} * (warp + 1) / warps);
  if (c >= c_end) return;
  int32_t lo = 0, len = nh;
  while (len > 0) {  // last item with offset <= c
    const int32_t half = len >> 1;
    if (Load(offset + lo + half) <= c) {
      lo += half + 1;
      len -= half + 1;
    } else {
      len = half;
    }
  }
  const int shift = kLogWarp + P.chunk_shift;
  for (int32_t i = lo - 1; c < c_end; ++i) {
    const int32_t e = Load(&buf[g.m - 1 - i].x);
    const uint32_t first = Load(offset + i);
    const uint32_t last = i + 1 < nh ? Load(offset + i + 1) : nc;
    const uint32_t stop = min(last, c_end);
    int32_t a0, a1, b0, b1;
    Ranges(g, e, a0, a1, b0, b1);
    const int32_t p0 = a0 + static_cast<int32_t>((c - first) << shift);
    const int32_t p1 = min(a1, a0 + static_cast<int32_t>((stop - first) << shift));
    ProbeWarp(P, e, p0, p1, b0, b1, s, level, lane);
    c = stop;
  }
}

// Step s of a k-truss as a recount in place of its round: the frontier (tag s) is
// dropped and every other live edge of the list (nullptr: every edge) gets its support
// among the edges that stay (tag > s) afresh, a warp per edge. Only the edge's own warp
// writes its support, and no one reads supports in this step.
__device__ __forceinline__ void Recount(const PeelParams& P, int32_t s, const int32_t* list,
                                        int32_t size, int64_t warp, int64_t warps, int lane) {
  const Csr& g = P.g;
  for (int64_t t = warp; t < size; t += warps) {
    const int32_t e = list != nullptr ? Load(list + t) : static_cast<int32_t>(t);
    if (Load(P.tag + e) <= s) continue;  // the same e in every lane of the warp
    int32_t a0, a1, b0, b1;
    Ranges(g, e, a0, a1, b0, b1);
    int32_t c = 0;
    for (int32_t i = a0 + lane; i < a1; i += kWarp) {
      const int32_t w = g.indices[i];
      const int32_t j = LowerBound(g.indices, b0, b1, w);
      c += j < b1 && g.indices[j] == w && Load(P.tag + g.eid[i]) > s && Load(P.tag + g.eid[j]) > s;
    }
    c = WarpSum(c);
    if (lane == 0) P.sup[e] = c;
  }
}

// Step s's scan at `level`: live edges of the list (nullptr: every edge) with
// support <= level join the frontier; the others' smallest support goes to the slot,
// and with `compact` they are copied to `kept`.
__device__ __forceinline__ void Scan(const PeelParams& P, int32_t s, int32_t level,
                                     const int32_t* list, int32_t size, bool compact, int32_t* kept,
                                     int64_t tid, int64_t threads, int lane) {
  Slot* slot = P.slots + s % kSlots;
  const int64_t end = cuda::RoundUp(size, kWarp);
  int32_t low = INT_MAX;
  for (int64_t i = tid; i < end; i += threads) {
    int32_t e = 0;
    bool live = false;
    if (i < size) {
      e = list != nullptr ? Load(list + i) : static_cast<int32_t>(i);
      live = Load(P.tag + e) > s;
    }
    bool keep = false;
    if (live) {
      const int32_t sp = Load(P.sup + e);
      if (sp <= level) {
        Push(P, e, s, level);
      } else {
        keep = true;
        low = min(low, sp);
      }
    }
    if (compact) WarpPush(keep, e, kept, &slot->kept);
  }
  low = WarpMin(low);
  if (lane == 0 && low != INT_MAX) atomicMin(&slot->low, low);
}

// The threads that run a step: the grid, or block 0 alone.
struct Team {
  int64_t tid, threads, warp, warps;
  int lane;
};

__device__ __forceinline__ int32_t* ListOf(const PeelParams& P, int32_t sel) {
  return sel == 0 ? nullptr : sel == 1 ? P.live0 : P.live1;
}

// Step st.s's report from the last step; takes over the list a compacting scan wrote.
__device__ __forceinline__ Slot Read(const PeelParams& P, PeelState& st) {
  const Slot* in = P.slots + (st.s + kSlots - 1) % kSlots;
  Slot r{Load(&in->heavy), Load(&in->light), Load(&in->low), Load(&in->kept), 0};
  if (st.pending != 0) {
    st.list = st.pending;
    st.list_size = r.kept;
    st.pending = 0;
  }
  return r;
}

// A record written by block 0 before the last grid sync (read from L2: an older
// record at the same place may sit in this SM's L1).
__device__ __forceinline__ PeelState LoadState(const PeelState* p) {
  PeelState st;
  st.s = Load(&p->s);
  st.level = Load(&p->level);
  st.prev = Load(&p->prev);
  st.list = Load(&p->list);
  st.list_size = Load(&p->list_size);
  st.pending = Load(&p->pending);
  st.done = Load(&p->done);
  st.pad = 0;
  st.died = __ldcg(reinterpret_cast<const long long*>(&p->died));
  return st;
}

// Whether block 0 alone runs the step: a small frontier, or a scan of a short list.
__device__ __forceinline__ bool Small(const PeelState& st, const Slot& r) {
  const int32_t nh = static_cast<int32_t>(r.heavy >> 32);
  if (r.light + int64_t{nh} > 0) {
    return r.light <= TrussPolicy::kTailFrontier &&
           static_cast<uint32_t>(r.heavy) <= TrussPolicy::kTailChunks;
  }
  return st.list_size <= TrussPolicy::kTailScan;
}

// Runs step st.s with team T (a round, or a scan), or sets st.done when the peeling
// is over. The caller then clears the next slot, syncs and advances st.s.
__device__ __forceinline__ void Step(const PeelParams& P, PeelState& st, const Slot& r,
                                     const Team& T) {
  const bool single = P.kbuf != nullptr;
  const int32_t nh = static_cast<int32_t>(r.heavy >> 32);
  const int64_t frontier = r.light + int64_t{nh};
  // Step 1 of a k-truss from the prefilter's list is the round after its first scan
  // (step 0), which compacted nothing (a list, none dead): the list then holds the
  // frontier and every live edge.
  constexpr int kPercent = TrussPolicy::kRoundRecountPercent;
  if (single && P.live_count != nullptr && st.s == 1 && kPercent <= 100 && frontier > 0 &&
      frontier * 100 >= int64_t{st.list_size} * kPercent) {
    Recount(P, st.s, ListOf(P, st.list), st.list_size, T.warp, T.warps, T.lane);
    st.died += frontier;
    st.prev = kRecount;  // the next step scans the same level
    return;
  }
  if (frontier > 0) {
    Round(P, st.s, st.level, r.light, nh, static_cast<uint32_t>(r.heavy), T.tid, T.threads, T.warp,
          T.warps, T.lane);
    st.died += frontier;
    st.prev = kProbe;
    return;
  }
  if (st.prev == kProbe) {  // the level's last round is done
    if (single) {
      st.done = 1;
      return;
    }
    ++st.level;
  } else if (st.prev == kScan) {  // the scan removed nothing to probe: jump
    if (single || r.low == INT_MAX) {
      st.done = 1;
      return;
    }
    st.level = r.low;
  }
  const bool compact = st.list == 0 || st.died * TrussPolicy::kCompactDivisor >= st.list_size;
  const int32_t into = st.list == 1 ? 2 : 1;
  Scan(P, st.s, st.level, ListOf(P, st.list), st.list_size, compact, ListOf(P, into), T.tid,
       T.threads, T.lane);
  if (compact) {
    st.pending = into;
    st.died = 0;
  }
  st.prev = kScan;
}

__global__ void __launch_bounds__(kThreads, TrussPolicy::kPeelBlocksPerSm)
    PeelKernel(PeelParams P) {
  if (SmallK(P.kbuf)) return;  // every block reads the same k: none reaches a grid sync
  cg::grid_group grid = cg::this_grid();
  const int64_t tid = int64_t{blockIdx.x} * blockDim.x + threadIdx.x;
  const int64_t threads = int64_t{gridDim.x} * blockDim.x;
  const int lane = threadIdx.x & (kWarp - 1);
  const Team all{tid, threads, tid / kWarp, threads / kWarp, lane};
  const Team one{threadIdx.x, blockDim.x, threadIdx.x / kWarp, blockDim.x / kWarp, lane};

  PeelState st{0, P.kbuf != nullptr ? *P.kbuf - 3 : 0, kStart, 0, P.g.m, 0, 0, 0, 0};
  if (P.live_count != nullptr) {
    st.list = P.start_list;
    st.list_size = Load(P.live_count);
  }
  for (int32_t runs = 0;;) {
    Slot r = Read(P, st);
    if (Small(st, r)) {
      // Block 0 runs the steps alone, with block barriers, while they stay small; the
      // other blocks wait at the grid sync and then take its state from a record
      // (two, alternating: a record is rewritten only after a further grid sync).
      PeelState* record = P.records + (runs & 1);
      if (blockIdx.x == 0) {
        while (true) {
          Step(P, st, r, one);
          if (st.done) break;
          if (threadIdx.x == 0) P.slots[(st.s + 1) % kSlots] = Slot{0, 0, INT_MAX, 0, 0};
          __syncthreads();
          ++st.s;
          r = Read(P, st);
          if (!Small(st, r)) break;
        }
        if (threadIdx.x == 0) *record = st;
      }
      grid.sync();
      st = LoadState(record);
      ++runs;
      if (st.done) break;
      continue;
    }
    Step(P, st, r, all);
    if (st.done) break;
    if (tid == 0) P.slots[(st.s + 1) % kSlots] = Slot{0, 0, INT_MAX, 0, 0};
    grid.sync();
    ++st.s;
  }
  // The step that ends the peeling writes nothing, and the list holds every live
  // edge (a compacting scan's list is taken over before that step): the k-truss is
  // the list's edges never removed.
  if (P.flags == nullptr) return;
  const int32_t* list = ListOf(P, st.list);
  for (int64_t i = tid; i < st.list_size; i += threads) {
    const int32_t e = list != nullptr ? Load(list + i) : static_cast<int32_t>(i);
    if (Load(P.tag + e) == kLiveTag) P.flags[e] = true;
  }
}

// Resident PeelKernel blocks per SM: the occupancy query, once per device.
cudaError_t PeelBlocksPerSm(int* per_sm) {
  static std::array<std::atomic<int>, 64> known{};
  int device = 0;
  cudaError_t err = cudaGetDevice(&device);
  if (err != cudaSuccess) return err;
  const bool cached = device >= 0 && device < static_cast<int>(known.size());
  if (cached && (*per_sm = known[device].load(std::memory_order_relaxed)) > 0) return cudaSuccess;
  err = cudaOccupancyMaxActiveBlocksPerMultiprocessor(per_sm, PeelKernel, kThreads, 0);
  if (err == cudaSuccess && cached) known[device].store(*per_sm, std::memory_order_relaxed);
  return err;
}

int Blocks(int64_t work_threads, int sms) {
  const int64_t b = (work_threads + kThreads - 1) / kThreads;
  return static_cast<int>(std::clamp<int64_t>(b, 1, int64_t{sms} * 32));
}

// Smallest s for which a round's chunks (kChunkProbes << s probes each) fit 32 bits:
// a round probes at most sum_e min(d_u, d_v) <= 2m (sqrt(2m) + 1) entries
// (Chiba & Nishizeki), plus one partial chunk per edge.
int32_t ChunkShift(int64_t m) {
  const double probes = 2.0 * m * (std::sqrt(2.0 * m) + 1.0);
  int32_t s = 0;
  while (probes / (double{TrussPolicy::kChunkProbes} * (int64_t{1} << s)) + m >= 4.0e9) ++s;
  return s;
}

ffi::Error TrussCuda(cudaStream_t stream, ffi::ScratchAllocator xla_scratch,
                     ffi::Buffer<ffi::S32> indptr, ffi::Buffer<ffi::S32> indices,
                     ffi::Buffer<ffi::S32> eid, ffi::Buffer<ffi::S32> esrc,
                     ffi::Buffer<ffi::S32> edst, ffi::Buffer<ffi::S32> dag_indptr,
                     ffi::Buffer<ffi::S32> dag_indices, ffi::Buffer<ffi::S32> dag_src,
                     ffi::Buffer<ffi::S32> dag_eid, ffi::Buffer<ffi::S32> core,
                     ffi::Buffer<ffi::S32> kbuf, int32_t mode, int32_t method, int32_t num_threads,
                     ffi::Result<ffi::AnyBuffer> out) {
  (void)num_threads;
  const Reporter report("kcjax_truss", "CUDA");
  const std::string bad = CheckTrussCall(
      indptr.element_count(), indices.element_count(), eid.element_count(), esrc.element_count(),
      edst.element_count(), dag_indptr.element_count(), dag_indices.element_count(),
      dag_src.element_count(), dag_eid.element_count(), core.element_count(), kbuf.element_count(),
      out->element_count(), out->element_type() == ffi::PRED, mode, method);
  if (!bad.empty()) return report.Invalid(bad);
  const int32_t n = static_cast<int32_t>(indptr.element_count() - 1);
  const int32_t m = static_cast<int32_t>(indices.element_count() / 2);
  if (m == 0) return ffi::Error::Success();
  const auto tmode = static_cast<TrussMode>(mode);

  int sms = 0;
  cudaError_t err = cuda::SmCount(&sms);
  if (err != cudaSuccess) return report.Cuda("querying the SM count", err);

  cuda::DeviceScratch scratch(xla_scratch, stream);
  const size_t m4 = static_cast<size_t>(m) * sizeof(int32_t);
  auto* tag = static_cast<int32_t*>(scratch.Allocate(m4));
  int32_t* sup = tmode == TrussMode::kSupport ? out->typed_data<int32_t>()
                                              : static_cast<int32_t*>(scratch.Allocate(m4));
  auto* slots = static_cast<Slot*>(scratch.Allocate(kSlots * sizeof(Slot)));
  auto* records = static_cast<PeelState*>(scratch.Allocate(2 * sizeof(PeelState)));
  constexpr int kRecounts = TrussPolicy::kRecounts;
  auto* counts = static_cast<int32_t*>(scratch.Allocate((kRecounts + 1) * sizeof(int32_t)));
  if (tag == nullptr || sup == nullptr || slots == nullptr || records == nullptr ||
      counts == nullptr) {
    return report.Exhausted(m4 * 2, "the edge state");
  }
  // Peeling: two frontier item lists, their chunk offsets, two live-edge lists.
  int4* items[2] = {nullptr, nullptr};
  int32_t* bufs[4] = {nullptr, nullptr, nullptr, nullptr};
  if (tmode != TrussMode::kSupport) {
    for (auto& b : items) b = static_cast<int4*>(scratch.Allocate(m4 * 4));
    for (auto& b : bufs) b = static_cast<int32_t*>(scratch.Allocate(m4));
    if (items[0] == nullptr || items[1] == nullptr || bufs[0] == nullptr || bufs[1] == nullptr ||
        bufs[2] == nullptr || bufs[3] == nullptr) {
      return report.Exhausted(m4 * 12, "the peeling frontiers and live lists");
    }
  }
  Csr g{indptr.typed_data(), indices.typed_data(), eid.typed_data(),
        esrc.typed_data(),   edst.typed_data(),    m};
  const bool ktruss = tmode == TrussMode::kKTruss;
  const int32_t* small_k = ktruss ? kbuf.typed_data() : nullptr;
  const bool use_core = ktruss && core.element_count() > 0;
  bool* flags = ktruss ? out->typed_data<bool>() : nullptr;
  // With the prefilter, the edges that pass it are listed (elist, their DAG edges in
  // dlist) and the support pass and the peeling work on that list. Lists alternate
  // between two places (the live lists and the item lists' space, free until the
  // peeling), list j counting into counts[j].
  auto listed = [&](int j) {
    return j % 2 == 0 ? LiveLists{bufs[2], reinterpret_cast<int32_t*>(items[1]), counts + j}
                      : LiveLists{bufs[3], reinterpret_cast<int32_t*>(items[0]), counts + j};
  };
  const LiveLists none{nullptr, nullptr, nullptr};
  if (use_core) {
    err = cudaMemsetAsync(counts, 0, (kRecounts + 1) * sizeof(int32_t), stream);
    if (err != cudaSuccess) return report.Cuda("clearing the live counts", err);
  }
  InitKernel<<<Blocks(m, sms), kThreads, 0, stream>>>(g, dag_eid.typed_data(), core.typed_data(),
                                                      use_core, kbuf.typed_data(), tag, sup, slots,
                                                      flags, use_core ? listed(0) : none);
  // Listed work is grid-strided over a capped grid (its size is known on the device only).
  const int capped = TrussPolicy::kListBlocksPerSm * sms;
  auto support = [&](const LiveLists& lists) {
    const bool on_list = lists.elist != nullptr;
    // Without a list the pass counts all m edges: kAuto is resolved here.
    const auto pass = on_list ? static_cast<SupportMethod>(method)
                              : ResolveSupport(static_cast<SupportMethod>(method), m);
    switch (pass) {
      case SupportMethod::kDag:
        SupportDagKernel<<<on_list ? std::min(capped, Blocks(m, sms)) : Blocks(m, sms), kThreads, 0,
                           stream>>>(dag_indptr.typed_data(), dag_indices.typed_data(),
                                     dag_src.typed_data(), dag_eid.typed_data(), m, small_k, tag,
                                     sup, lists);
        break;
      case SupportMethod::kEdge:
        SupportEdgeKernel<<<on_list ? std::min(capped, Blocks(int64_t{m} * kWarp, sms))
                                    : Blocks(int64_t{m} * kWarp, sms),
                            kThreads, 0, stream>>>(g, small_k, tag, sup, lists);
        break;
      case SupportMethod::kVertex:
        SupportVertexKernel<<<std::max(1, std::min(n, sms * 8)), kThreads, 0, stream>>>(
            g, n, small_k, tag, sup);
        break;
      case SupportMethod::kAuto:  // on a list: a grid for either pass
        SupportAutoKernel<<<std::min(capped, Blocks(int64_t{m} * kWarp, sms)), kThreads, 0,
                            stream>>>(dag_indptr.typed_data(), dag_indices.typed_data(),
                                      dag_src.typed_data(), dag_eid.typed_data(), g, small_k, tag,
                                      sup, lists);
        break;
    }
  };
  support(use_core ? listed(0) : none);
  const int recounts = use_core ? kRecounts : 0;
  for (int j = 1; j <= recounts; ++j) {
    RecountKernel<<<std::min(capped, Blocks(m, sms)), kThreads, 0, stream>>>(small_k, listed(j - 1),
                                                                             listed(j), tag, sup);
    support(listed(j));
  }
  if ((err = cudaGetLastError()) != cudaSuccess) return report.Cuda("support kernel", err);
  if (tmode == TrussMode::kSupport) return ffi::Error::Success();

  PeelParams P{g,
               tag,
               sup,
               items[0],
               items[1],
               reinterpret_cast<uint32_t*>(bufs[0]),
               reinterpret_cast<uint32_t*>(bufs[1]),
               bufs[2],
               bufs[3],
               slots,
               records,
               tmode == TrussMode::kDecompose ? out->typed_data<int32_t>() : nullptr,
               small_k,
               flags,
               use_core ? counts + recounts : nullptr,
               recounts % 2 == 0 ? 1 : 2,
               ChunkShift(m)};
  int per_sm = 0;
  err = PeelBlocksPerSm(&per_sm);
  if (err != cudaSuccess || per_sm < 1) return report.Cuda("occupancy of the peeling kernel", err);
  const int grid = std::min(std::min(per_sm, TrussPolicy::kPeelBlocksPerSm) * sms,
                            Blocks(int64_t{m} * kWarp, sms));
  void* args[] = {&P};
  err = cudaLaunchCooperativeKernel(reinterpret_cast<void*>(PeelKernel), dim3(grid), dim3(kThreads),
                                    args, 0, stream);
  if (err != cudaSuccess) return report.Cuda("peeling kernel launch", err);
  return ffi::Error::Success();
}

ffi::Error TriangleEdgesCuda(cudaStream_t stream, ffi::ScratchAllocator /*unused*/,
                             ffi::Buffer<ffi::S32> indptr, ffi::Buffer<ffi::S32> indices,
                             ffi::Buffer<ffi::S32> esrc, ffi::Buffer<ffi::S32> edst,
                             int32_t num_threads, ffi::ResultBuffer<ffi::PRED> out) {
  (void)num_threads;
  const Reporter report("kcjax_truss_triangle_edges", "CUDA");
  const std::string bad =
      CheckTriangleEdgesCall(indptr.element_count(), indices.element_count(), esrc.element_count(),
                             edst.element_count(), out->element_count());
  if (!bad.empty()) return report.Invalid(bad);
  const int32_t m = static_cast<int32_t>(esrc.element_count());
  if (m == 0) return ffi::Error::Success();
  int sms = 0;
  cudaError_t err = cuda::SmCount(&sms);
  if (err != cudaSuccess) return report.Cuda("querying the SM count", err);
  TriangleEdgesKernel<<<Blocks(m, sms), kThreads, 0, stream>>>(
      indptr.typed_data(), indices.typed_data(), esrc.typed_data(), edst.typed_data(), m,
      out->typed_data());
  if ((err = cudaGetLastError()) != cudaSuccess) return report.Cuda("triangle-edges kernel", err);
  return ffi::Error::Success();
}

}  // namespace
}  // namespace kcjax

XLA_FFI_DEFINE_HANDLER_SYMBOL(kcjax_truss_cuda, kcjax::TrussCuda,
                              kcjax::BindTruss(kcjax::CudaBinding()));
XLA_FFI_DEFINE_HANDLER_SYMBOL(kcjax_truss_triangle_edges_cuda, kcjax::TriangleEdgesCuda,
                              kcjax::BindTriangleEdges(kcjax::CudaBinding()));
