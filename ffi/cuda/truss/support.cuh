// The support passes of the CUDA k-truss (ffi/cuda/truss/truss.cu): triangles per
// edge from the DAG (split by probes over each block), a warp per edge, the auto
// choice between them, and the seed's vertex-centric pass.
#pragma once

#include "prefilter.cuh"

namespace kcjax::truss {
namespace {

// Each live triangle once from the degree-oriented DAG, the work split by probes
// (an entry of the shorter of a DAG edge's two out-lists, searched in the longer):
// a block takes kThreads DAG edges at a time (a tile), stages them in shared memory
// (shorter range start, longer range, edge id) with the scan of their probe counts,
// and its threads take the tile's probes kThreads x kDagTileProbes at a time, each
// finding its probe's edge in the scan by binary search; a thread's probes are
// searched in lock step (their loads issued together). So an edge with many probes
// is spread over the block, and a block's threads stay busy on edges with few. For
// the triangle of DAG edge d (edge e) and DAG edges i, j (edges e1, e2),
// `tri(e, e1, e2)` returns what to add to e's count (summed per edge in shared
// memory), and `done(e, count)` runs once per edge and tile with a triangle (by the
// thread that staged the edge). `items` DAG edges: dlist[0, items), or 0..items - 1
// when dlist is nullptr; tag == nullptr: every edge is live.
template <typename Tri, typename Done>
__device__ __forceinline__ void DagTriangles(const int32_t* __restrict__ dptr,
                                             const int32_t* __restrict__ dcol,
                                             const int32_t* __restrict__ dsrc,
                                             const int32_t* __restrict__ deid, int32_t items,
                                             const int32_t* __restrict__ tag, const int32_t* dlist,
                                             Tri tri, Done done) {
  constexpr int kB = TrussPolicy::kDagTileProbes;
  __shared__ int32_t s_off[kThreads + 1];  // the tile's probe offsets (exclusive scan)
  __shared__ int4 s_edge[kThreads];        // shorter range start, longer range, edge id
  __shared__ int32_t s_count[kThreads];
  __shared__ int32_t s_warp[kThreads / kWarp];
  const int lane = threadIdx.x & (kWarp - 1), warp = threadIdx.x / kWarp;
  auto live = [&](int32_t e) { return tag == nullptr || tag[e] >= 0; };
  for (int64_t i0 = int64_t{blockIdx.x} * kThreads; i0 < items;
       i0 += int64_t{gridDim.x} * kThreads) {
    const int64_t item = i0 + threadIdx.x;
    int32_t probes = 0;
    if (item < items) {
      const int32_t d = dlist != nullptr ? Load(dlist + item) : static_cast<int32_t>(item);
      const int32_t e = deid[d];
      if (live(e)) {
        const int32_t a = dsrc[d], b = dcol[d];
        int32_t a0 = dptr[a], a1 = dptr[a + 1], b0 = dptr[b], b1 = dptr[b + 1];
        if (a1 - a0 > b1 - b0) {
          const int32_t t0 = a0, t1 = a1;
          a0 = b0, a1 = b1, b0 = t0, b1 = t1;
        }
        probes = a1 - a0;
        s_edge[threadIdx.x] = make_int4(a0, b0, b1, e);
      }
    }
    s_count[threadIdx.x] = 0;
    const int32_t incl = cuda::WarpInclusiveScan(probes);
    if (lane == kWarp - 1) s_warp[warp] = incl;
    __syncthreads();
    int32_t before = 0;
    for (int w = 0; w < warp; ++w) before += s_warp[w];
    s_off[threadIdx.x] = before + incl - probes;
    if (threadIdx.x == kThreads - 1) s_off[kThreads] = before + incl;
    __syncthreads();
    const int32_t total = s_off[kThreads];
    for (int32_t q0 = 0; q0 < total; q0 += kThreads * kB) {
      int tt[kB];
      int32_t i[kB], w[kB], lo[kB], len[kB];
      bool hit[kB];
#pragma unroll
      for (int j = 0; j < kB; ++j) {
        const int32_t q = q0 + threadIdx.x + j * kThreads;
        tt[j] = 0, i[j] = 0, lo[j] = 0, len[j] = 0, hit[j] = false;
        if (q < total) {
          tt[j] = cuda::LastAtMost<kThreads>(s_off, q);
          const int4 r = s_edge[tt[j]];
          i[j] = r.x + q - s_off[tt[j]];
          lo[j] = r.y, len[j] = r.z - r.y;
        }
      }
#pragma unroll
      for (int j = 0; j < kB; ++j) w[j] = len[j] > 0 ? dcol[i[j]] : 0;
      // Lower bounds of w[j] in the longer ranges, in lock step; lists are strictly
      // ascending, so a probe equal to w[j] is the answer.
      for (bool more = true; more;) {
        int32_t v[kB];
#pragma unroll
        for (int j = 0; j < kB; ++j) v[j] = len[j] > 0 ? dcol[lo[j] + (len[j] >> 1)] : 0;
        more = false;
#pragma unroll
        for (int j = 0; j < kB; ++j) {
          if (len[j] <= 0) continue;
          const int32_t half = len[j] >> 1;
          hit[j] = hit[j] || v[j] == w[j];
          if (v[j] < w[j]) {
            lo[j] += half + 1;
            len[j] -= half + 1;
          } else {
            len[j] = half;
          }
          more = more || len[j] > 0;
        }
      }
      int32_t e1[kB], e2[kB];
#pragma unroll
      for (int j = 0; j < kB; ++j) {
        e1[j] = hit[j] ? deid[i[j]] : 0;
        e2[j] = hit[j] ? deid[lo[j]] : 0;
      }
#pragma unroll
      for (int j = 0; j < kB; ++j) {
        if (!hit[j] || !live(e1[j]) || !live(e2[j])) continue;
        const int32_t own = tri(s_edge[tt[j]].w, e1[j], e2[j]);
        if (own) atomicAdd(s_count + tt[j], own);
      }
    }
    __syncthreads();
    if (s_count[threadIdx.x] != 0) done(s_edge[threadIdx.x].w, s_count[threadIdx.x]);
    __syncthreads();  // the staging is rewritten next
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
                                 const int32_t* __restrict__ tag, int32_t* sup, LiveLists lists,
                                 SupportMethod method) {
  if (SmallK(kbuf)) return;
  const int32_t items = lists.dlist != nullptr ? Load(lists.count) : m;
  if (ResolveSupport(method, items) != SupportMethod::kDag) return;
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
                                  const int32_t* __restrict__ tag, int32_t* sup, LiveLists lists,
                                  SupportMethod method) {
  if (SmallK(kbuf)) return;
  const int32_t items = lists.elist != nullptr ? Load(lists.count) : g.m;
  if (ResolveSupport(method, items) != SupportMethod::kEdge) return;
  SupportEdge(g, items, tag, sup, lists.elist);
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
}  // namespace kcjax::truss
