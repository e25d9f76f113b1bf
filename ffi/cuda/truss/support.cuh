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

// The probes of every DAG edge d of [0, m) laid end to end for DagTrianglesFlat:
// off[d + 1] = the length of the shorter of its ends' out-lists, off[0] = 0 (an
// inclusive scan of off[1, m] follows).
__global__ void DagProbesKernel(const int32_t* __restrict__ dptr, const int32_t* __restrict__ dcol,
                                const int32_t* __restrict__ dsrc, int32_t m, int64_t* off) {
  const int64_t stride = int64_t{gridDim.x} * blockDim.x;
  for (int64_t d = int64_t{blockIdx.x} * blockDim.x + threadIdx.x; d < m; d += stride) {
    const int32_t a = dsrc[d], b = dcol[d];
    off[d + 1] = min(dptr[a + 1] - dptr[a], dptr[b + 1] - dptr[b]);
    if (d == 0) off[0] = 0;
  }
}

// DagTriangles over all m DAG edges with the work split by probes, not by edges: the
// probes (off, from DagProbesKernel) are split evenly over the blocks, and a block
// walks its share in tiles of kThreads x kDagTileProbes. A tile's DAG edges are staged
// in shared memory (their probe offsets, shorter range start, longer range and edge
// id), each thread finds its probes' edges there by binary search, loads the probes'
// entries of the shorter lists and searches the longer ones, its kDagTileProbes
// searches in lock step (their loads issued together). Every edge is live (these
// passes run before any removal). `tri` as in DagTriangles; its returns are summed per
// edge in shared memory and `done(e, count)` runs once per edge and tile with a
// triangle (by the thread that staged the edge).
template <typename Tri, typename Done>
__device__ __forceinline__ void DagTrianglesFlat(const int32_t* __restrict__ dptr,
                                                 const int32_t* __restrict__ dcol,
                                                 const int32_t* __restrict__ dsrc,
                                                 const int32_t* __restrict__ deid, int32_t m,
                                                 const int64_t* __restrict__ off, Tri tri,
                                                 Done done) {
  constexpr int kB = TrussPolicy::kDagTileProbes;
  constexpr int kTile = kThreads * kB;
  // s_off[t]: the first probe of the tile's t-th staged edge (m's end: the total).
  __shared__ int64_t s_off[kTile + 1];
  __shared__ int4 s_edge[kTile];  // shorter range start, longer range, edge id
  __shared__ int32_t s_count[kTile];
  const int64_t probes = off[m];
  const int64_t per = (probes + gridDim.x - 1) / gridDim.x;
  int64_t x = min(probes, blockIdx.x * per);
  const int64_t end = min(probes, x + per);
  if (x >= end) return;
  int32_t d0 = cuda::BlockCountAtMost(off, m, x) - 1;  // the DAG edge holding probe x
  auto staged = [&](int t, int64_t tile_end) {         // edge t of the tile has probes in it
    return s_off[t] < tile_end && s_off[t + 1] > max(x, s_off[t]);
  };
  while (x < end) {
    for (int t = threadIdx.x; t <= kTile; t += kThreads) {
      s_off[t] = d0 + t < m ? off[d0 + t] : probes;
    }
    __syncthreads();
    // Edges without probes (an end with an empty out-list) may fill the staged range
    // before the tile's probes do: the tile then ends at the range's end.
    const int64_t tile_end = min(min(end, x + kTile), s_off[kTile]);
    for (int t = threadIdx.x; t < kTile; t += kThreads) {
      if (!staged(t, tile_end)) continue;
      const int32_t d = d0 + t, a = dsrc[d], b = dcol[d];
      int32_t a0 = dptr[a], a1 = dptr[a + 1], b0 = dptr[b], b1 = dptr[b + 1];
      if (a1 - a0 > b1 - b0) {
        const int32_t t0 = a0, t1 = a1;
        a0 = b0, a1 = b1, b0 = t0, b1 = t1;
      }
      s_edge[t] = make_int4(a0, b0, b1, deid[d]);
      s_count[t] = 0;
    }
    __syncthreads();
    int tt[kB];
    int32_t i[kB], w[kB], lo[kB], len[kB];
    bool hit[kB];
#pragma unroll
    for (int j = 0; j < kB; ++j) {
      const int64_t q = x + threadIdx.x + j * kThreads;
      tt[j] = 0, i[j] = 0, lo[j] = 0, len[j] = 0, hit[j] = false;
      if (q < tile_end) {
        tt[j] = cuda::LastAtMost<kTile>(s_off, q);
        const int4 r = s_edge[tt[j]];
        i[j] = r.x + static_cast<int32_t>(q - s_off[tt[j]]);
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
      if (!hit[j]) continue;
      const int32_t own = tri(s_edge[tt[j]].w, e1[j], e2[j]);
      if (own) atomicAdd(s_count + tt[j], own);
    }
    __syncthreads();
    for (int t = threadIdx.x; t < kTile; t += kThreads) {
      if (staged(t, tile_end) && s_count[t] != 0) done(s_edge[t].w, s_count[t]);
    }
    d0 += cuda::LastAtMost<kTile>(s_off, tile_end);
    x = tile_end;
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
                                 const int32_t* __restrict__ tag, int32_t* sup, LiveLists lists) {
  if (SmallK(kbuf)) return;
  const int32_t items = lists.dlist != nullptr ? Load(lists.count) : m;
  SupportDag(dptr, dcol, dsrc, deid, items, tag, sup, lists.dlist);
}

// SupportDag over all m DAG edges, every one live, split by probes (DagTrianglesFlat).
__global__ void SupportDagFlatKernel(const int32_t* __restrict__ dptr,
                                     const int32_t* __restrict__ dcol,
                                     const int32_t* __restrict__ dsrc,
                                     const int32_t* __restrict__ deid, int32_t m,
                                     const int32_t* __restrict__ kbuf,
                                     const int64_t* __restrict__ off, int32_t* sup) {
  if (SmallK(kbuf)) return;
  DagTrianglesFlat(
      dptr, dcol, dsrc, deid, m, off,
      [&](int32_t, int32_t e1, int32_t e2) {
        atomicAdd(sup + e1, 1);
        atomicAdd(sup + e2, 1);
        return 1;
      },
      [&](int32_t e, int32_t own) { atomicAdd(sup + e, own); });
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
