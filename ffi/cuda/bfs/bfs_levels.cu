// CUDA kernel of "kcjax_bfs" for the ablation ladder kBfsScan..kBfsEnterprise:
// Enterprise-style BFS (Liu & Huang, SC'15).
//
// One cooperative persistent kernel per call runs every level of every
// traversal; levels are separated by grid syncs and the host reads nothing
// back. Per level of a single-source traversal (methods kBfsQueue and up):
//   A. top-down frontier: every thread scans its interleaved share of the
//      status (distance) array, bins the vertices at this level by out-degree
//      class, a grid-wide prefix sum of the per-thread counts gives each
//      thread its offsets, and a second pass writes the queues (no atomics);
//      hubs (degree > τ) also go to a hub queue.
//   B. direction: kcjax::bfs::NextBottomUp (hubs in the frontier / all hubs > γ).
//      At the switch level, the unvisited vertices are collected once.
//   C. expansion: top-down per class (small: a thread, middle: a warp, large:
//      a block, extreme: the whole grid per vertex); bottom-up per class too
//      (a thread, a warp, a block per unvisited vertex), stopping at the first
//      batch holding a frontier neighbour, looking first in a shared-memory
//      cache of the frontier's hubs; each block takes an even share of the
//      unvisited queue. Every edge walk loads kEdgeBatch ids and distances
//      before it stores.
//   D. bottom-up only: the next unvisited queue is this one minus what this
//      level visited (prefix sum again), which also counts the next frontier
//      and its hubs, so no full scan is needed while bottom-up.
// A top-down level costs three grid syncs and two reads of the whole status
// array, a bottom-up level three syncs: on a small graph the levels, not the
// edges, are the time (kBfsCluster, bfs_cluster.cu, serves those graphs).
//
// kBfsAutoMethod on the grid (graphs too large for a cluster) is kBfsEnterprise;
// from BfsPolicy::kGridBitmapMinVertices vertices on, its variant keeps a
// visited bitmap and the frontier as a bitmap (n / 8 bytes each, in L2 where
// the distance array is not: 2 MiB against 64 MiB at Kronecker scale 24):
// top-down splits the frontier's edges evenly over the blocks, whatever the
// degrees (ExpandTopDownFlat, no classes), tests `visited` before it touches a
// child's distance and marks the next frontier's bits, and bottom-up is the
// cluster kernel's search by bitmap words (BottomUpWords) with no unvisited
// queue (docs/tuning.md: BFS on large graphs).
//
// Distances written by one level are read by other blocks in the next, after
// a grid sync: such loads bypass L1 (__ldcg) because L1 is not coherent.
// Writes of a child's distance and parent race benignly: every writer stores
// the same distance and a valid parent.
#include <cooperative_groups.h>

#include <algorithm>
#include <cstdint>

#include "kcjax/bfs/bfs_cuda.h"
#include "kcjax/bfs/bottom_up.cuh"
#include "kcjax/bfs/policy.h"
#include "kcjax/cuda/grid.cuh"
#include "kcjax/cuda/split.cuh"
#include "kcjax/cuda/warp.cuh"

namespace cg = cooperative_groups;

namespace kcjax::bfs {

using namespace kcjax::cuda;  // the shared device primitives
namespace {

constexpr int kThreads = BfsPolicy::kBlockThreads;
constexpr int kWarps = kThreads / 32;
constexpr int kScanSlots = 8;  // categories a grid scan may carry

struct SingleScratch {
  int32_t* queue;      // [n] frontier queue, classes back to back
  int32_t* unv[2];     // [n] each: unvisited queues (bottom-up), ping-pong
  int32_t* hubs;       // [n] hubs of the current frontier
  int32_t* block_tot;  // [2][grid][kScanSlots]
  int32_t* flags;      // [3] rotating "something changed" flags (scan method)
  // kBfsAutoMethod's bitmap variant (no unvisited queues: unv[0] and unv[1] serve): the
  // top-down frontier's flat queue (in `queue`), each vertex's first edge among the
  // frontier's edges (qedge) and its row start in the CSR (qrow).
  int32_t* qedge;
  int32_t* qrow;
  // kBfsAutoMethod: [words] bitmaps of the visited vertices and of the bottom-up
  // levels' frontiers (ping-pong: one is read while the next one is written).
  uint32_t* visited;
  uint32_t* front[2];
  int64_t words;  // ceil(n / 32)
  // By parity through a select: an index would copy the struct to local memory.
  __device__ __forceinline__ int32_t* Unv(int i) const { return i ? unv[1] : unv[0]; }
  __device__ __forceinline__ uint32_t* Front(int i) const { return i ? front[1] : front[0]; }
};

__device__ __forceinline__ bool TestBit(const uint32_t* bits, int32_t v) {
  return (__ldcg(bits + (v >> 5)) >> (v & 31)) & 1u;
}

// Sets v's bit (a reduction: no value comes back, so no round trip is waited for).
__device__ __forceinline__ void SetBit(uint32_t* bits, int32_t v) {
  atomicOr(bits + (v >> 5), 1u << (v & 31));
}

// Grid-wide exclusive prefix sum of per-thread counts c[0..K) (any block
// size): off[k] is this thread's offset within category k, tot[k] the grid
// total. block_tot is double-buffered by `parity` (a grid sync separates
// reuse of a buffer).
template <int K>
__device__ void GridScan(const int (&c)[K], int (&off)[K], int (&tot)[K], int32_t* block_tot,
                         int& parity, cg::grid_group& grid) {
  __shared__ int warp_sums[K][32];  // any block size up to 1024 threads
  __shared__ int base[K], total[K];
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, warps = blockDim.x >> 5;
  int32_t* buf = block_tot + static_cast<size_t>(parity) * gridDim.x * kScanSlots;
  parity ^= 1;
  int incl[K];
#pragma unroll
  for (int k = 0; k < K; ++k) {
    incl[k] = WarpInclusiveScan(c[k]);
    if (lane == 31) warp_sums[k][warp] = incl[k];
  }
  __syncthreads();
  if (warp == 0) {
#pragma unroll
    for (int k = 0; k < K; ++k) {
      const int v = WarpInclusiveScan(lane < warps ? warp_sums[k][lane] : 0);
      if (lane < warps) warp_sums[k][lane] = v;
    }
  }
  __syncthreads();
#pragma unroll
  for (int k = 0; k < K; ++k) off[k] = incl[k] - c[k] + (warp > 0 ? warp_sums[k][warp - 1] : 0);
  if (threadIdx.x < K)
    buf[blockIdx.x * kScanSlots + threadIdx.x] = warp_sums[threadIdx.x][warps - 1];
  grid.sync();
  if (warp < K) {
    int before = 0, all = 0;
    for (int b = lane; b < static_cast<int>(gridDim.x); b += 32) {
      const int v = __ldcg(buf + b * kScanSlots + warp);
      all += v;
      if (b < static_cast<int>(blockIdx.x)) before += v;
    }
    before = WarpSum(before);
    all = WarpSum(all);
    if (lane == 0) {
      base[warp] = before;
      total[warp] = all;
    }
  }
  __syncthreads();
#pragma unroll
  for (int k = 0; k < K; ++k) {
    off[k] += base[k];
    tot[k] = total[k];
  }
  __syncthreads();
}

__device__ __forceinline__ int DegreeClass(int deg, bool classes) {
  if (!classes || deg < BfsPolicy::kSmallMax) return 0;
  if (deg <= BfsPolicy::kMiddleMax) return 1;
  if (deg <= BfsPolicy::kLargeMax) return 2;
  return 3;
}

__device__ __forceinline__ uint32_t HubSlot(int32_t v) {
  static_assert((BfsPolicy::kHubCacheSlots & (BfsPolicy::kHubCacheSlots - 1)) == 0);
  return (static_cast<uint32_t>(v) * 2654435761u) & (BfsPolicy::kHubCacheSlots - 1);
}

struct Level {
  int frontier = 0;           // vertices at this level
  int hubs = 0;               // hubs among them
  int edges = 0;              // the sum of their degrees (Beamer's rule)
  int cls[4] = {0, 0, 0, 0};  // class queue sizes (top-down)
  int queued = 0;             // bitmap variant: the flat queue's size (vertices with edges)
};

constexpr int kScan = BfsPolicy::kScanUnroll;
constexpr int32_t kPastEnd = 0x7fffffff;  // a status past the array: never a level, never < 0

// a[i0 + j * stride] for j < kScan (`fill` past `count`), all loaded before any is
// used: a status scan keeps kScan loads in flight per thread, not one.
__device__ __forceinline__ void ScanLoad(const int32_t* a, int64_t i0, int64_t stride,
                                         int64_t count, int32_t fill, int32_t (&out)[kScan]) {
#pragma unroll
  for (int j = 0; j < kScan; ++j) {
    const int64_t i = i0 + j * stride;
    out[j] = i < count ? __ldcg(a + i) : fill;
  }
}

// Calls f(v) for this thread's share of the vertices at `level`, always in the
// same order: the set bits of its words of `bits` (the level's frontier bitmap)
// where there is one, else the vertices whose distance is `level` (a scan of
// all n). kScan words or distances are loaded before any is tested.
template <typename F>
__device__ __forceinline__ void ForEachAtLevel(const BfsProblem& p, const int32_t* dist,
                                               const uint32_t* bits, int64_t words, int32_t level,
                                               F&& f) {
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  const int64_t tid = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (bits != nullptr) {
    for (int64_t w0 = tid; w0 < words; w0 += kScan * stride) {
      int32_t x[kScan];
      ScanLoad(reinterpret_cast<const int32_t*>(bits), w0, stride, words, 0, x);
#pragma unroll
      for (int j = 0; j < kScan; ++j) {
        const int64_t first = (w0 + j * stride) * 32;
        for (uint32_t b = static_cast<uint32_t>(x[j]); b != 0; b &= b - 1) f(first + __ffs(b) - 1);
      }
    }
    return;
  }
  for (int64_t v0 = tid; v0 < p.n; v0 += kScan * stride) {
    int32_t d[kScan];
    ScanLoad(dist, v0, stride, p.n, kPastEnd, d);
#pragma unroll
    for (int j = 0; j < kScan; ++j)
      if (d[j] == level) f(v0 + j * stride);
  }
}

// Phase A: queues of the vertices at `level` (two passes around a grid scan),
// found in `bits` (the level's frontier bitmap, kBfsAutoMethod's variant) or
// else in the distances. `clear` (or nullptr): a bitmap zeroed before the
// scan's grid sync. `fill(level)`: whether the queues are written, from the
// level's totals (the same in every thread); kBfsAutoMethod's bottom-up reads
// the bitmap, not the queues.
template <bool kBitmaps, typename Fill>
__device__ Level BuildFrontier(const BfsProblem& p, const int32_t* dist, int32_t level,
                               const SingleScratch& sc, const uint32_t* bits, uint32_t* clear,
                               int& parity, cg::grid_group& grid, Fill&& fill) {
  const bool classes = p.method >= kBfsClasses;
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  const int64_t tid = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (clear != nullptr)
    for (int64_t w = tid; w < sc.words; w += stride) clear[w] = 0;
  constexpr int K = kBitmaps ? 7 : 6;  // the bitmap variant also counts vertices with edges
  int c[K] = {};
  ForEachAtLevel(p, dist, bits, sc.words, level, [&](int64_t v) {
    const int deg = p.indptr[v + 1] - p.indptr[v];
    ++c[DegreeClass(deg, classes)];
    c[4] += deg > p.tau;
    c[5] += deg;
    if constexpr (kBitmaps) c[6] += deg > 0;
  });
  int off[K], tot[K];
  GridScan<K>(c, off, tot, sc.block_tot, parity, grid);
  Level out;
  for (int k = 0; k < 4; ++k) out.cls[k] = tot[k];
  out.frontier = tot[0] + tot[1] + tot[2] + tot[3];
  out.hubs = tot[4];
  out.edges = tot[5];
  if constexpr (kBitmaps) out.queued = tot[6];
  if (!fill(out)) return out;
  if constexpr (kBitmaps) {  // one flat queue (ExpandTopDownFlat), in the scan's order
    ForEachAtLevel(p, dist, bits, sc.words, level, [&](int64_t v) {
      const int32_t lo = p.indptr[v], deg = p.indptr[v + 1] - lo;
      if (deg == 0) return;
      sc.queue[off[6]] = static_cast<int32_t>(v);
      sc.qedge[off[6]] = off[5];
      sc.qrow[off[6]++] = lo;
      off[5] += deg;
    });
  } else {
    const int start[4] = {0, tot[0], tot[0] + tot[1], tot[0] + tot[1] + tot[2]};
    ForEachAtLevel(p, dist, bits, sc.words, level, [&](int64_t v) {
      const int deg = p.indptr[v + 1] - p.indptr[v];
      const int k = DegreeClass(deg, classes);
      sc.queue[start[k] + off[k]++] = static_cast<int32_t>(v);
      if (deg > p.tau) sc.hubs[off[4]++] = static_cast<int32_t>(v);
    });
  }
  grid.sync();
  return out;
}

// The unvisited vertices (the switch level's full scan); returns their number.
__device__ int CollectUnvisited(const BfsProblem& p, const int32_t* dist, int32_t* out,
                                int32_t* block_tot, int& parity, cg::grid_group& grid) {
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  const int64_t tid = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  int c[1] = {0};
  for (int64_t v0 = tid; v0 < p.n; v0 += kScan * stride) {
    int32_t d[kScan];
    ScanLoad(dist, v0, stride, p.n, kPastEnd, d);
#pragma unroll
    for (int j = 0; j < kScan; ++j) c[0] += d[j] < 0;
  }
  int off[1], tot[1];
  GridScan<1>(c, off, tot, block_tot, parity, grid);
  for (int64_t v0 = tid; v0 < p.n; v0 += kScan * stride) {
    int32_t d[kScan];
    ScanLoad(dist, v0, stride, p.n, kPastEnd, d);
#pragma unroll
    for (int j = 0; j < kScan; ++j)
      if (d[j] < 0) out[off[0]++] = static_cast<int32_t>(v0 + j * stride);
  }
  grid.sync();
  return tot[0];
}

constexpr int kBatch = BfsPolicy::kEdgeBatch;

// Top-down: u's neighbours indices[e], e = lo, lo + step, ... < hi, kBatch at a
// time. A batch's ids, then their distances, are loaded before any store (the
// stores to dist would otherwise order every next load behind them), so a
// thread has kBatch gathers in flight instead of one.
__device__ __forceinline__ void VisitRange(const BfsProblem& p, int32_t* dist, int32_t* parent,
                                           int64_t lo, int64_t hi, int64_t step, int32_t u,
                                           int32_t next_level) {
  for (int64_t e0 = lo; e0 < hi; e0 += kBatch * step) {
    int32_t w[kBatch];
    bool seen[kBatch];
#pragma unroll
    for (int j = 0; j < kBatch; ++j) {
      const int64_t e = e0 + j * step;
      w[j] = e < hi ? __ldg(p.indices + e) : -1;
    }
#pragma unroll
    for (int j = 0; j < kBatch; ++j) seen[j] = w[j] < 0 || __ldcg(dist + w[j]) >= 0;
#pragma unroll
    for (int j = 0; j < kBatch; ++j) {
      if (seen[j]) continue;
      dist[w[j]] = next_level;
      if (parent != nullptr) parent[w[j]] = u;
    }
  }
}

// Bottom-up: a neighbour in the frontier (distance `level`, or in the hub
// cache) among one batch e0, e0 + step, ... < hi; -1 if none. Ids and
// distances are loaded batch-wide as in VisitRange.
__device__ __forceinline__ int32_t ParentInBatch(const BfsProblem& p, const int32_t* dist,
                                                 const int32_t* hc, bool cache, int64_t e0,
                                                 int64_t hi, int64_t step, int32_t level) {
  int32_t w[kBatch], d[kBatch];
#pragma unroll
  for (int j = 0; j < kBatch; ++j) {
    const int64_t e = e0 + j * step;
    w[j] = e < hi ? __ldg(p.indices + e) : -1;
  }
  if (cache) {
#pragma unroll
    for (int j = 0; j < kBatch; ++j)
      if (w[j] >= 0 && hc[HubSlot(w[j])] == w[j]) return w[j];
  }
#pragma unroll
  for (int j = 0; j < kBatch; ++j) d[j] = w[j] >= 0 ? __ldcg(dist + w[j]) : -1;
#pragma unroll
  for (int j = 0; j < kBatch; ++j)
    if (w[j] >= 0 && d[j] == level) return w[j];
  return -1;
}

// Phase C, top-down: every class queue with its mapping.
__device__ void ExpandTopDown(const BfsProblem& p, int32_t* dist, int32_t* parent, int32_t level,
                              const Level& lv, const SingleScratch& sc) {
  const int32_t next = level + 1;
  const int64_t threads = static_cast<int64_t>(gridDim.x) * blockDim.x;
  const int64_t tid = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const int lane = threadIdx.x & 31;
  const int32_t* q = sc.queue;
  for (int64_t i = tid; i < lv.cls[0]; i += threads) {  // small: a thread each
    const int32_t u = __ldcg(q + i);
    VisitRange(p, dist, parent, p.indptr[u], p.indptr[u + 1], 1, u, next);
  }
  q += lv.cls[0];
  const int64_t warps = threads / 32, wid = tid / 32;
  for (int64_t i = wid; i < lv.cls[1]; i += warps) {  // middle: a warp each
    const int32_t u = __ldcg(q + i);
    VisitRange(p, dist, parent, p.indptr[u] + lane, p.indptr[u + 1], 32, u, next);
  }
  q += lv.cls[1];
  for (int64_t i = blockIdx.x; i < lv.cls[2]; i += gridDim.x) {  // large: a block each
    const int32_t u = __ldcg(q + i);
    VisitRange(p, dist, parent, p.indptr[u] + threadIdx.x, p.indptr[u + 1], blockDim.x, u, next);
  }
  q += lv.cls[2];
  for (int i = 0; i < lv.cls[3]; ++i) {  // extreme: the whole grid each
    const int32_t u = __ldcg(q + i);
    VisitRange(p, dist, parent, p.indptr[u] + tid, p.indptr[u + 1], threads, u, next);
  }
}

// The bitmap variant's top-down: the frontier's edges [0, lv.edges) split evenly over the
// blocks whatever their vertices' degrees (the class queues gave a vertex of degree up to
// kLargeMax to one block, and a whole grid's latency chain to each larger one: a few such
// vertices made a level). A block walks its share in tiles of kThreads x
// kTopDownEdgeBatch edges: the tile's vertices (BuildFrontier's flat queue: first edge, CSR row,
// id) are staged in shared memory, where each thread finds its edges' vertices by binary search; a
// batch's ids, then their visited bits, are all loaded before any store. An unvisited child gets
// its distance, parent and bits (several finders store the same distance and valid parents).
__device__ void ExpandTopDownFlat(const BfsProblem& p, int32_t* dist, int32_t* parent,
                                  int32_t level, const Level& lv, const SingleScratch& sc,
                                  uint32_t* next_front) {
  constexpr int kB = BfsPolicy::kTopDownEdgeBatch;
  constexpr int kTile = kThreads * kB;
  // A tile starts inside its first vertex and each later one has an edge, so kTile + 1
  // staged vertices cover it (s_edge[kTile] >= the tile's end).
  __shared__ int32_t s_edge[kTile + 1], s_row[kTile], s_vertex[kTile];
  const int32_t next = level + 1;
  const int64_t edges = lv.edges;
  const int64_t per = (edges + gridDim.x - 1) / gridDim.x;
  int64_t e = min(edges, blockIdx.x * per);
  const int64_t end = min(edges, e + per);
  if (e >= end) return;
  int i0 = BlockCountAtMost(sc.qedge, lv.queued, e) - 1;  // the vertex holding edge e
  while (e < end) {
    for (int t = threadIdx.x; t <= kTile; t += kThreads) {
      const int i = i0 + t;
      s_edge[t] = i < lv.queued ? __ldcg(sc.qedge + i) : lv.edges;
      if (t < kTile && i < lv.queued) {
        s_row[t] = __ldcg(sc.qrow + i);
        s_vertex[t] = __ldcg(sc.queue + i);
      }
    }
    __syncthreads();
    const int64_t tile_end = min(end, e + kTile);
    int32_t w[kB], u[kB];
    bool seen[kB];
#pragma unroll
    for (int j = 0; j < kB; ++j) {
      const int64_t x = e + threadIdx.x + j * kThreads;
      w[j] = -1;
      u[j] = 0;
      if (x < tile_end) {
        const int t = LastAtMost<kTile>(s_edge, x);
        u[j] = s_vertex[t];
        w[j] = __ldg(p.indices + s_row[t] + (x - s_edge[t]));
      }
    }
#pragma unroll
    for (int j = 0; j < kB; ++j) seen[j] = w[j] < 0 || TestBit(sc.visited, w[j]);
#pragma unroll
    for (int j = 0; j < kB; ++j) {
      if (seen[j]) continue;
      dist[w[j]] = next;
      if (parent != nullptr) parent[w[j]] = u[j];
      SetBit(sc.visited, w[j]);
      SetBit(next_front, w[j]);
    }
    i0 += LastAtMost<kTile>(s_edge, tile_end);
    e = tile_end;
    __syncthreads();  // the tile's staging is rewritten next
  }
}

// Fills a block's hub cache with the first hubs of `list` (count `hubs`).
__device__ void FillHubCache(int32_t* hc, const int32_t* list, int hubs) {
  for (int i = threadIdx.x; i < BfsPolicy::kHubCacheSlots; i += blockDim.x) hc[i] = -1;
  __syncthreads();
  const int load = min(hubs, 4 * BfsPolicy::kHubCacheSlots);
  for (int i = threadIdx.x; i < load; i += blockDim.x) {
    const int32_t h = __ldcg(list + i);
    atomicExch(&hc[HubSlot(h)], h);  // colliding hubs: one wins (a cache, not a set)
  }
  __syncthreads();
}

// This block's contiguous share [begin, end) of `count` items split evenly over
// the grid: a short queue still reaches every block (block-sized chunks from
// the front would leave all its work to the first few blocks).
__device__ __forceinline__ void BlockShare(int64_t count, int64_t* begin, int64_t* end) {
  const int64_t per = (count + gridDim.x - 1) / gridDim.x;
  *begin = min(count, static_cast<int64_t>(blockIdx.x) * per);
  *end = min(count, *begin + per);
}

// Phase C, bottom-up over the unvisited queue, with the hub cache if asked.
// Each block walks its even share of the queue in block-wide chunks. Below
// kBfsClasses a thread searches each vertex's list; from kBfsClasses on, a
// thread takes degrees below kSmallMax, a warp those up to kMiddleMax and the
// whole block the rest, every one stopping at the first batch that holds a
// frontier neighbour (one thread walking a hub's list alone costs its degree
// in serial L2 round trips).
__device__ void ExpandBottomUp(const BfsProblem& p, int32_t* dist, int32_t* parent, int32_t level,
                               const int32_t* unv, int count, int hubs, const SingleScratch& sc,
                               bool cache) {
  __shared__ int32_t hc[BfsPolicy::kHubCacheSlots];
  __shared__ int32_t wide[kThreads];
  __shared__ int num_wide;
  if (cache) FillHubCache(hc, sc.hubs, hubs);
  const bool classes = p.method >= kBfsClasses;
  const int32_t next = level + 1;
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  int64_t begin, end;
  BlockShare(count, &begin, &end);
  for (int64_t base = begin; base < end; base += blockDim.x) {
    if (threadIdx.x == 0) num_wide = 0;
    __syncthreads();
    const int64_t i = base + threadIdx.x;
    if (i < end) {
      const int32_t v = __ldcg(unv + i);
      const int32_t lo = p.indptr[v], hi = p.indptr[v + 1];
      if (classes && hi - lo >= BfsPolicy::kSmallMax) {
        wide[atomicAdd(&num_wide, 1)] = v;
      } else {
        for (int32_t e0 = lo; e0 < hi; e0 += kBatch) {
          const int32_t u = ParentInBatch(p, dist, hc, cache, e0, hi, 1, level);
          if (u < 0) continue;
          dist[v] = next;
          if (parent != nullptr) parent[v] = u;
          break;
        }
      }
    }
    __syncthreads();
    const int nw = num_wide;
    for (int k = warp; k < nw; k += kWarps) {  // middle: a warp each
      const int32_t v = wide[k];
      const int32_t lo = p.indptr[v], hi = p.indptr[v + 1];
      if (hi - lo > BfsPolicy::kMiddleMax) continue;
      for (int32_t e0 = lo; e0 < hi; e0 += 32 * kBatch) {
        const int32_t u = ParentInBatch(p, dist, hc, cache, e0 + lane, hi, 32, level);
        if (u >= 0) {  // several finders store the same distance and valid parents
          dist[v] = next;
          if (parent != nullptr) parent[v] = u;
        }
        if (__any_sync(0xffffffffu, u >= 0)) break;
      }
    }
    for (int k = 0; k < nw; ++k) {  // large: the whole block each
      const int32_t v = wide[k];
      const int32_t lo = p.indptr[v], hi = p.indptr[v + 1];
      if (hi - lo <= BfsPolicy::kMiddleMax) continue;
      for (int64_t e0 = lo; e0 < hi; e0 += static_cast<int64_t>(blockDim.x) * kBatch) {
        const int32_t u =
            ParentInBatch(p, dist, hc, cache, e0 + threadIdx.x, hi, blockDim.x, level);
        if (u >= 0) {
          dist[v] = next;
          if (parent != nullptr) parent[v] = u;
        }
        if (__syncthreads_or(u >= 0)) break;
      }
    }
    __syncthreads();  // wide and num_wide are rewritten by the next chunk
  }
  if (cache) __syncthreads();  // hc is rebuilt by the next bottom-up level
}

// Calls f(v, d) for this thread's share of the queue in[0, count) and the
// distances d of its vertices, always in the same order; kScan entries, then
// their distances, are loaded before any is tested.
template <typename F>
__device__ __forceinline__ void ForEachQueued(const int32_t* dist, const int32_t* in, int count,
                                              F&& f) {
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  const int64_t tid = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  for (int64_t i0 = tid; i0 < count; i0 += kScan * stride) {
    int32_t v[kScan], d[kScan];
    ScanLoad(in, i0, stride, count, -1, v);
#pragma unroll
    for (int j = 0; j < kScan; ++j) d[j] = v[j] >= 0 ? __ldcg(dist + v[j]) : kPastEnd;
#pragma unroll
    for (int j = 0; j < kScan; ++j)
      if (v[j] >= 0) f(v[j], d[j]);
  }
}

// Phase D: filters the unvisited queue; returns the new count, the next
// frontier's size and its hubs (written to the hub queue).
__device__ int FilterUnvisited(const BfsProblem& p, const int32_t* dist, const int32_t* in,
                               int count, int32_t* out, Level* lv, const SingleScratch& sc,
                               int& parity, cg::grid_group& grid) {
  const auto hub = [&](int32_t v) { return (p.indptr[v + 1] - p.indptr[v]) > p.tau; };
  int c[3] = {0, 0, 0};
  ForEachQueued(dist, in, count, [&](int32_t v, int32_t d) {
    if (d < 0) {
      ++c[0];
    } else {
      ++c[1];
      c[2] += hub(v);
    }
  });
  int off[3], tot[3];
  GridScan<3>(c, off, tot, sc.block_tot, parity, grid);
  ForEachQueued(dist, in, count, [&](int32_t v, int32_t d) {
    if (d < 0) {
      out[off[0]++] = v;
    } else if (hub(v)) {
      sc.hubs[off[2]++] = v;
    }
  });
  grid.sync();
  lv->frontier = tot[1];
  lv->hubs = tot[2];
  return tot[0];
}

// The vertices of word w (its first is w * 32) that `seen` leaves unreached.
__device__ __forceinline__ uint32_t Unreached(const BfsProblem& p, int64_t w, uint32_t seen) {
  const int64_t first = w * 32;
  return p.n - first < 32 ? ~seen & ((1u << (p.n - first)) - 1u) : ~seen;
}

// kBfsAutoMethod's bottom-up level (the bitmap variant): a warp per word of
// `visited`, each unreached vertex's lane testing its list's first batch
// against the frontier bitmap `front`. The vertices that batch does not settle
// (no frontier vertex in it, more to read) wait in the warp's pending list in
// shared memory; every 32 of them are searched together, a lane each, as the
// cluster kernel searches a word (bfs::SearchWord), so the longer searches run
// with every lane busy instead of a few lanes of each word. The warp owning
// word w writes next_front[w] (every word, so that bitmap needs no clearing)
// and ORs its finds into visited[w] (a pending vertex's find later, by an
// atomic OR: only this warp writes its words in this level). It tests
// kBottomUpWordsAtOnce words a round, and loads the next round's visited words
// and lists while it searches this one's (each load otherwise waits for the
// search before it). Returns the next frontier's size,
// hubs and edges (one grid scan, whose grid sync ends the level).
__device__ Level BottomUpWords(const BfsProblem& p, int32_t* dist, int32_t* parent,
                               const uint32_t* front, uint32_t* next_front, int32_t level,
                               const SingleScratch& sc, int& parity, cg::grid_group& grid) {
  constexpr int kB = bfs::kBatchOf<true>;
  constexpr int kAtOnce = BfsPolicy::kBottomUpWordsAtOnce;
  // The pending list is a ring of kPending slots per warp: at most 31 vertices wait after the
  // searches of 32, and a round adds up to 32 per word.
  constexpr int kPending = 2 * FloorPow2((kAtOnce + 1) * 32 - 1);
  static_assert(kPending >= (kAtOnce + 1) * 32 - 1, "a round's waiting vertices fit the ring");
  __shared__ int32_t pending_x[kWarps][kPending], pending_lo[kWarps][kPending],
      pending_hi[kWarps][kPending];
  const int lane = threadIdx.x & 31, warp = threadIdx.x / 32;
  const int64_t warps = static_cast<int64_t>(gridDim.x) * kWarps;
  const int64_t wid = (static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x) / 32;
  const int32_t next = level + 1;
  const auto visited_word = [&](int64_t w) { return w < sc.words ? __ldcg(sc.visited + w) : ~0u; };
  // Word w's list of this lane's vertex, if it is unreached (else empty).
  const auto load_list = [&](int64_t w, uint32_t seen, int32_t& lo, int32_t& hi) {
    lo = hi = 0;
    if (w < sc.words && ((Unreached(p, w, seen) >> lane) & 1u)) {
      const int64_t x = w * 32 + lane;
      lo = __ldg(p.indptr + x);
      hi = __ldg(p.indptr + x + 1);
    }
  };
  int c[3] = {0, 0, 0};
  // A vertex found at this level, of list [lo, hi): the next frontier's totals.
  const auto count = [&](int32_t lo, int32_t hi) {
    ++c[0];
    c[1] += (hi - lo) > p.tau;
    c[2] += hi - lo;
  };
  int pending = 0, head = 0;  // warp-uniform: the ring's size and its first slot
  // Searches the first `take` (<= 32) pending vertices past their first batch, a lane each.
  const auto search_pending = [&](int take) {
    __syncwarp();  // the slots were written by other lanes
    const bool mine = lane < take;
    const int slot = (head + lane) & (kPending - 1);
    const int32_t x = mine ? pending_x[warp][slot] : 0;
    const int32_t lo = mine ? pending_lo[warp][slot] : 0;
    const int32_t hi = mine ? pending_hi[warp][slot] : 0;
    __syncwarp();  // read before a later round writes the slots again
    head = (head + take) & (kPending - 1);
    pending -= take;
    const int32_t par =
        bfs::SearchWord<true>(p.indices, front, __ballot_sync(kFull, mine), lo + kB, hi);
    if (par >= 0) {
      dist[x] = next;
      if (parent != nullptr) parent[x] = par;
      SetBit(sc.visited, x);
      SetBit(next_front, x);
      count(lo, hi);
    }
  };
  // The warp's words of one round: w + k * warps for k < kAtOnce, their visited words and
  // lists loaded a round ahead (and the visited words of the round after).
  const int64_t span = kAtOnce * warps;
  uint32_t seen[kAtOnce], seen_next[kAtOnce];
  int32_t lo[kAtOnce], hi[kAtOnce];
#pragma unroll
  for (int k = 0; k < kAtOnce; ++k) {
    seen[k] = visited_word(wid + k * warps);
    seen_next[k] = visited_word(wid + span + k * warps);
    load_list(wid + k * warps, seen[k], lo[k], hi[k]);
  }
  for (int64_t w0 = wid; w0 < sc.words; w0 += span) {
    int32_t lo_next[kAtOnce], hi_next[kAtOnce];
    uint32_t seen_after[kAtOnce];
#pragma unroll
    for (int k = 0; k < kAtOnce; ++k) {
      load_list(w0 + span + k * warps, seen_next[k], lo_next[k], hi_next[k]);
      seen_after[k] = visited_word(w0 + 2 * span + k * warps);
    }
    // Every word's first batches: all ids, then all their frontier words, then the tests.
    int32_t id[kAtOnce][kB];
    uint32_t bits[kAtOnce][kB];
    bool mine[kAtOnce];
#pragma unroll
    for (int k = 0; k < kAtOnce; ++k) {
      const int64_t w = w0 + k * warps;
      mine[k] = w < sc.words && ((Unreached(p, w, seen[k]) >> lane) & 1u);
#pragma unroll
      for (int j = 0; j < kB; ++j)
        id[k][j] = mine[k] && lo[k] + j < hi[k] ? __ldg(p.indices + lo[k] + j) : -1;
    }
#pragma unroll
    for (int k = 0; k < kAtOnce; ++k)
#pragma unroll
      for (int j = 0; j < kB; ++j)
        bits[k][j] = id[k][j] >= 0 ? bfs::FrontWord<true>(front, id[k][j]) : 0u;
#pragma unroll
    for (int k = 0; k < kAtOnce; ++k) {
      const int64_t w = w0 + k * warps;
      int32_t found = -1;
#pragma unroll
      for (int j = kB - 1; j >= 0; --j)
        if ((bits[k][j] >> (id[k][j] & 31)) & 1u) found = id[k][j];
      const int32_t x = static_cast<int32_t>(w * 32) + lane;
      const bool wait = mine[k] && found < 0 && lo[k] + kB < hi[k];
      const unsigned waiting = __ballot_sync(kFull, wait);
      if (wait) {
        const int at = (head + pending + __popc(waiting & LaneMaskLt())) & (kPending - 1);
        pending_x[warp][at] = x;
        pending_lo[warp][at] = lo[k];
        pending_hi[warp][at] = hi[k];
      }
      pending += __popc(waiting);
      const unsigned got = __ballot_sync(kFull, found >= 0);
      if (found >= 0) {
        dist[x] = next;
        if (parent != nullptr) parent[x] = found;
        count(lo[k], hi[k]);
      }
      if (lane == 0 && w < sc.words) {
        next_front[w] = got;
        if (got != 0) sc.visited[w] = seen[k] | got;
      }
    }
    while (pending >= 32) search_pending(32);
#pragma unroll
    for (int k = 0; k < kAtOnce; ++k) {
      seen[k] = seen_next[k];
      seen_next[k] = seen_after[k];
      lo[k] = lo_next[k];
      hi[k] = hi_next[k];
    }
  }
  if (pending > 0) search_pending(pending);
  int off[3], tot[3];
  GridScan<3>(c, off, tot, sc.block_tot, parity, grid);
  Level out;
  out.frontier = tot[0];
  out.hubs = tot[1];
  out.edges = tot[2];
  return out;
}

// Method kBfsScan: a thread per vertex of the status array, no queues.
__device__ void TraverseScan(const BfsProblem& p, int32_t* dist, int32_t* parent,
                             const SingleScratch& sc, int& tick, cg::grid_group& grid) {
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  const int64_t tid = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const bool bottom_up = p.direction == kBfsBottomUp;
  for (int32_t level = 0;; ++level) {
    int32_t* flag = NextFlag(sc.flags, tick, tid);
    bool changed = false;
    for (int64_t v = tid; v < p.n; v += stride) {
      if (bottom_up) {
        if (__ldcg(dist + v) >= 0) continue;
        for (int32_t e = p.indptr[v]; e < p.indptr[v + 1]; ++e) {
          const int32_t u = p.indices[e];
          if (__ldcg(dist + u) == level) {
            dist[v] = level + 1;
            if (parent != nullptr) parent[v] = u;
            changed = true;
            break;
          }
        }
      } else if (__ldcg(dist + v) == level) {
        for (int32_t e = p.indptr[v]; e < p.indptr[v + 1]; ++e) {
          const int32_t w = p.indices[e];
          if (__ldcg(dist + w) < 0) {
            dist[w] = level + 1;
            if (parent != nullptr) parent[w] = static_cast<int32_t>(v);
            changed = true;
          }
        }
      }
    }
    if (changed) *flag = 1;
    grid.sync();
    if (__ldcg(flag) == 0) break;
  }
}

// Methods kBfsQueue and up. kBitmaps (kBfsAutoMethod's variant): top-down
// levels also mark the next frontier in a bitmap, so a switch needs no
// collection pass, and bottom-up levels are BottomUpWords over the bitmaps (no
// unvisited queue, no filter); Front(fcur) is the current level's frontier.
template <bool kBitmaps>
__device__ void TraverseQueues(const BfsProblem& p, int32_t* dist, int32_t* parent, int total_hubs,
                               const SingleScratch& sc, int& parity, cg::grid_group& grid) {
  constexpr bool kEdgeRule = kBitmaps && BfsPolicy::kGridEdgeRule;
  bool bottom_up = false;
  int prev = 0, unv_count = 0, cur = 0, fcur = 0;
  int64_t unexplored = p.m;  // the degrees of the vertices not reached yet
  Level lv;
  // Whether the level of frontier l goes bottom-up (unexplored: once l is reached).
  const auto rule = [&](const Level& l, int64_t unexplored_after) {
    return kEdgeRule ? ClusterBottomUp(p.direction, bottom_up, l.frontier, prev, l.edges,
                                       unexplored_after, p.n)
                     : NextBottomUp(p.method, p.direction, bottom_up, l.frontier, prev, l.hubs,
                                    total_hubs, p.n);
  };
  // The queues are filled unless the bitmap variant goes on bottom-up.
  const auto fill = [&](const Level& l) { return !kBitmaps || !rule(l, unexplored - l.edges); };
  const auto top_down_queues = [](const Level&) { return true; };
  for (int32_t level = 0;; ++level) {
    uint32_t* next_front = kBitmaps ? sc.Front(fcur ^ 1) : nullptr;
    const uint32_t* front = kBitmaps ? sc.Front(fcur) : nullptr;
    if (!bottom_up)
      lv = BuildFrontier<kBitmaps>(p, dist, level, sc, front, next_front, parity, grid, fill);
    if (lv.frontier == 0) break;
    unexplored -= lv.edges;
    const bool next_bu = rule(lv, unexplored);
    if (bottom_up && !next_bu)
      lv = BuildFrontier<kBitmaps>(p, dist, level, sc, front, next_front, parity, grid,
                                   top_down_queues);
    if (!kBitmaps && next_bu && !bottom_up) {
      cur = 0;
      unv_count = CollectUnvisited(p, dist, sc.Unv(cur), sc.block_tot, parity, grid);
    }
    prev = lv.frontier;
    bottom_up = next_bu;
    if (bottom_up) {
      if constexpr (kBitmaps) {
        lv = BottomUpWords(p, dist, parent, sc.Front(fcur), next_front, level, sc, parity, grid);
      } else {
        ExpandBottomUp(p, dist, parent, level, sc.Unv(cur), unv_count, lv.hubs, sc,
                       p.method >= kBfsEnterprise);
        grid.sync();
        unv_count = FilterUnvisited(p, dist, sc.Unv(cur), unv_count, sc.Unv(cur ^ 1), &lv, sc,
                                    parity, grid);
        cur ^= 1;
      }
    } else {
      if constexpr (kBitmaps) {
        ExpandTopDownFlat(p, dist, parent, level, lv, sc, next_front);
      } else {
        ExpandTopDown(p, dist, parent, level, lv, sc);
      }
      grid.sync();
    }
    fcur ^= 1;
  }
}

// kBitmaps: kBfsAutoMethod's variant (a template, so that the ladder's code is
// the same as without it: run-time tests in the edge loops cost it 10-20%).
template <bool kBitmaps>
__global__ void __launch_bounds__(kThreads, BfsPolicy::kSingleMinBlocksPerSm)
    BfsSingleKernel(BfsProblem p, SingleScratch sc) {
  cg::grid_group grid = cg::this_grid();
  int parity = 0, tick = 0;
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  const int64_t tid = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  // Every row starts at -1 and the flags at 0 (here, not as separate memset
  // launches before the kernel); the grid sync orders this before the sources.
  const int64_t cells = p.s * p.n;
  for (int64_t i = tid; i < cells; i += stride) {
    p.dist[i] = -1;
    if (p.parent != nullptr) p.parent[i] = -1;
  }
  if (tid < 3) sc.flags[tid] = 0;
  grid.sync();
  int total_hubs = 0;  // the seed's rule's denominator (Beamer's rule needs none)
  if (p.method >= kBfsDirection && !(kBitmaps && BfsPolicy::kGridEdgeRule)) {
    int c[1] = {0}, off[1], tot[1];
    for (int64_t v0 = tid; v0 < p.n; v0 += kScan * stride) {
      int32_t lo[kScan], hi[kScan];
      ScanLoad(p.indptr, v0, stride, p.n, 0, lo);
      ScanLoad(p.indptr + 1, v0, stride, p.n, 0, hi);
#pragma unroll
      for (int j = 0; j < kScan; ++j) c[0] += (hi[j] - lo[j]) > p.tau;
    }
    GridScan<1>(c, off, tot, sc.block_tot, parity, grid);
    total_hubs = tot[0];
  }
  for (int64_t s = 0; s < p.s; ++s) {
    int32_t* dist = p.dist + s * p.n;
    int32_t* parent = p.parent != nullptr ? p.parent + s * p.n : nullptr;
    const int32_t src = p.sources[s];
    if (src < 0 || src >= p.n) continue;  // the row stays -1
    if (tid == 0) {
      dist[src] = 0;
      if (parent != nullptr) parent[src] = src;
    }
    if constexpr (kBitmaps) {  // only the source visited
      for (int64_t w = tid; w < sc.words; w += stride) {
        const uint32_t source_word = w == (src >> 5) ? 1u << (src & 31) : 0u;
        sc.visited[w] = source_word;
        sc.front[0][w] = source_word;  // level 0's frontier (Front(0))
      }
    }
    grid.sync();
    if (!kBitmaps && p.method == kBfsScan) {
      TraverseScan(p, dist, parent, sc, tick, grid);
    } else {
      TraverseQueues<kBitmaps>(p, dist, parent, total_hubs, sc, parity, grid);
    }
  }
}

// The kernel that serves p: the bitmap variant for kBfsAutoMethod on large graphs.
void* SingleKernelFor(const BfsProblem& p) {
  return p.method == kBfsAutoMethod && GridBitmaps(p.n)
             ? reinterpret_cast<void*>(BfsSingleKernel<true>)
             : reinterpret_cast<void*>(BfsSingleKernel<false>);
}

}  // namespace

cudaError_t PlanLevels(const BfsProblem& p, int num_sms, BfsPlan* plan) {
  int per_sm = 0;
  const cudaError_t err =
      cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, SingleKernelFor(p), kThreads, 0);
  if (err != cudaSuccess) return err;
  const int64_t resident = static_cast<int64_t>(max(1, per_sm)) * num_sms;
  const int64_t work = std::max(p.n, p.m / BfsPolicy::kEdgesPerThread);
  plan->kernel = BfsKernel::kLevels;
  plan->grid = static_cast<int>(std::max<int64_t>(1, std::min(resident, CeilDiv(work, kThreads))));
  const size_t n = static_cast<size_t>(p.n);
  const size_t scan =
      AlignScratch(2 * static_cast<size_t>(plan->grid) * kScanSlots * sizeof(int32_t));
  const size_t words = static_cast<size_t>(CeilDiv(p.n, int64_t{32}));
  plan->scratch_bytes = 4 * AlignScratch(n * sizeof(int32_t)) + scan +
                        AlignScratch(3 * sizeof(int32_t)) +
                        3 * AlignScratch(words * sizeof(uint32_t));
  return cudaSuccess;
}

cudaError_t RunLevels(const BfsProblem& p, const BfsPlan& plan, void* scratch,
                      cudaStream_t stream) {
  ScratchCursor cursor(scratch);
  const size_t n = static_cast<size_t>(p.n);
  BfsProblem problem = p;
  SingleScratch sc;
  sc.queue = cursor.Take<int32_t>(n);
  sc.unv[0] = cursor.Take<int32_t>(n);
  sc.unv[1] = cursor.Take<int32_t>(n);
  sc.hubs = cursor.Take<int32_t>(n);
  sc.qedge = sc.unv[0];
  sc.qrow = sc.unv[1];
  sc.block_tot = cursor.Take<int32_t>(2 * static_cast<size_t>(plan.grid) * kScanSlots);
  sc.flags = cursor.Take<int32_t>(3);
  sc.words = CeilDiv(p.n, int64_t{32});
  sc.visited = cursor.Take<uint32_t>(static_cast<size_t>(sc.words));
  sc.front[0] = cursor.Take<uint32_t>(static_cast<size_t>(sc.words));
  sc.front[1] = cursor.Take<uint32_t>(static_cast<size_t>(sc.words));
  void* args[] = {&problem, &sc};
  return cudaLaunchCooperativeKernel(SingleKernelFor(p), plan.grid, kThreads, args, 0, stream);
}

}  // namespace kcjax::bfs
