// The first kernels of a k-truss call (ffi/cuda/truss/truss.cu): the 3-truss in
// one pass, the k-core prefilter with its live lists, and the recount step.
#pragma once

#include "common.cuh"

namespace kcjax::truss {
namespace {

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

}  // namespace
}  // namespace kcjax::truss
