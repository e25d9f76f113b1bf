// The support passes of the CUDA k-truss (ffi/cuda/truss/truss.cu): triangles per
// edge from the DAG, a warp per edge, the auto choice between them, and the
// seed's vertex-centric pass.
#pragma once

#include "prefilter.cuh"

namespace kcjax {
namespace {

// Each live triangle once from the degree-oriented DAG: a thread per DAG edge (a, b)
// merges the two out-lists when both are short; edges with a long out-list are
// searched by their whole warp, one at a time. For the triangle of DAG edge d (edge
// e) and DAG edges i, j (edges e1, e2), `tri(e, e1, e2)` returns what to add to e's
// count, and `done(e, count)` runs once per edge with a triangle (by one lane).
// `items` DAG edges: dlist[0, items), or 0..items - 1 when dlist is nullptr; tag ==
// nullptr: every edge is live.
template <typename Tri, typename Done>
__device__ __forceinline__ void DagTriangles(const int32_t* __restrict__ dptr,
                                             const int32_t* __restrict__ dcol,
                                             const int32_t* __restrict__ dsrc,
                                             const int32_t* __restrict__ deid, int32_t items,
                                             const int32_t* __restrict__ tag, const int32_t* dlist,
                                             Tri tri, Done done) {
  const int lane = threadIdx.x & (kWarp - 1);
  const int64_t stride = int64_t{gridDim.x} * blockDim.x;
  const int64_t end = cuda::RoundUp(items, kWarp);
  auto live = [&](int32_t e) { return tag == nullptr || tag[e] >= 0; };
  for (int64_t t = int64_t{blockIdx.x} * blockDim.x + threadIdx.x; t < end; t += stride) {
    int32_t d = 0, e = 0, a0 = 0, a1 = 0, b0 = 0, b1 = 0;
    bool wide = false;
    if (t < items) {
      d = dlist != nullptr ? Load(dlist + t) : static_cast<int32_t>(t);
      e = deid[d];
      if (live(e)) {
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
            if (live(e1) && live(e2)) own += tri(e, e1, e2);
            return false;
          });
          if (own) done(e, own);
        } else {
          wide = true;
        }
      }
    }
    for (unsigned todo = __ballot_sync(kFull, wide); todo != 0; todo &= todo - 1) {
      const int src = __ffs(todo) - 1;
      const int32_t c0 = __shfl_sync(kFull, a0, src), c1 = __shfl_sync(kFull, a1, src);
      const int32_t d0 = __shfl_sync(kFull, b0, src), d1 = __shfl_sync(kFull, b1, src);
      const int32_t we = __shfl_sync(kFull, e, src);
      int32_t own = 0;
      for (int32_t i = c0 + lane; i < c1; i += kWarp) {
        const int32_t w = dcol[i];
        const int32_t j = LowerBound(dcol, d0, d1, w);
        if (j < d1 && dcol[j] == w) {
          const int32_t e1 = deid[i], e2 = deid[j];
          if (live(e1) && live(e2)) own += tri(we, e1, e2);
        }
      }
      own = WarpSum(own);
      if (lane == src && own) done(e, own);
    }
  }
}

// Supports: +1 to the three edges of every live triangle (e's own count added once).
__device__ __forceinline__ void SupportDag(const int32_t* __restrict__ dptr,
                                           const int32_t* __restrict__ dcol,
                                           const int32_t* __restrict__ dsrc,
                                           const int32_t* __restrict__ deid, int32_t items,
                                           const int32_t* __restrict__ tag, int32_t* sup,
                                           const int32_t* dlist) {
  DagTriangles(
      dptr, dcol, dsrc, deid, items, tag, dlist,
      [&](int32_t, int32_t e1, int32_t e2) {
        atomicAdd(sup + e1, 1);
        atomicAdd(sup + e2, 1);
        return 1;
      },
      [&](int32_t e, int32_t own) { atomicAdd(sup + e, own); });
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

}  // namespace
}  // namespace kcjax
