// CUDA kernels of "kcjax_bfs": Enterprise-style BFS (Liu & Huang, SC'15).
//
// One cooperative persistent kernel per call runs every level of every
// traversal; levels are separated by grid syncs and the host reads nothing
// back. Per level of a single-source traversal (methods kBfsQueue and up):
//   A. top-down frontier: every thread scans its interleaved share of the
//      status (distance) array, bins the vertices at this level by out-degree
//      class, a grid-wide prefix sum of the per-thread counts gives each
//      thread its offsets, and a second pass writes the queues (no atomics);
//      hubs (degree > τ) also go to a hub queue.
//   B. direction: kcjax::NextBottomUp (hubs in the frontier / all hubs > γ).
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
// kBfsHybrid has its own kernel (BfsHybridKernel, notes above it): queues
// built during expansion with atomics, one grid sync per level, and small
// top-down levels run by block 0 alone.
// Several sources with kBfsBitset: 64 traversals per 64-bit word; each level
// a pull over all vertices (a thread per vertex, a warp for degree >= 32).
//
// Distances written by one level are read by other blocks in the next, after
// a grid sync: such loads bypass L1 (__ldcg) because L1 is not coherent.
// Writes of a child's distance and parent race benignly: every writer stores
// the same distance and a valid parent.
#include <cooperative_groups.h>

#include <algorithm>
#include <cstdint>

#include "kcjax/bfs/bfs_cuda.h"
#include "kcjax/bfs/policy.h"
#include "kcjax/cuda/warp.cuh"

namespace cg = cooperative_groups;

namespace kcjax::cuda {
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
  // By parity through a select: an index would copy the struct to local memory.
  __device__ __forceinline__ int32_t* Unv(int i) const { return i ? unv[1] : unv[0]; }
};

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

// The "changed" flag of the next level. Three rotate: the one reset here was
// last read two grid syncs ago. `tick` runs on across traversals.
__device__ __forceinline__ int32_t* NextFlag(int32_t* flags, int& tick, int64_t tid) {
  int32_t* flag = flags + tick % 3;
  if (tid == 0) flags[(tick + 1) % 3] = 0;
  tick = (tick + 1) % 3;
  return flag;
}

__device__ __forceinline__ uint64_t LoadBits(const uint64_t* p) {
  return __ldcg(reinterpret_cast<const unsigned long long*>(p));
}

struct Level {
  int frontier = 0;           // vertices at this level
  int hubs = 0;               // hubs among them
  int cls[4] = {0, 0, 0, 0};  // class queue sizes (top-down)
};

// Phase A: queues of the vertices at `level` (two passes around a grid scan).
__device__ Level BuildFrontier(const BfsProblem& p, const int32_t* dist, int32_t level,
                               const SingleScratch& sc, int& parity, cg::grid_group& grid) {
  const bool classes = p.method >= kBfsClasses;
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  const int64_t tid = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  int c[5] = {0, 0, 0, 0, 0};
  for (int64_t v = tid; v < p.n; v += stride) {
    if (__ldcg(dist + v) != level) continue;
    const int deg = p.indptr[v + 1] - p.indptr[v];
    ++c[DegreeClass(deg, classes)];
    c[4] += deg > p.tau;
  }
  int off[5], tot[5];
  GridScan<5>(c, off, tot, sc.block_tot, parity, grid);
  int start[4] = {0, tot[0], tot[0] + tot[1], tot[0] + tot[1] + tot[2]};
  for (int64_t v = tid; v < p.n; v += stride) {
    if (__ldcg(dist + v) != level) continue;
    const int deg = p.indptr[v + 1] - p.indptr[v];
    const int k = DegreeClass(deg, classes);
    sc.queue[start[k] + off[k]++] = static_cast<int32_t>(v);
    if (deg > p.tau) sc.hubs[off[4]++] = static_cast<int32_t>(v);
  }
  grid.sync();
  Level out;
  for (int k = 0; k < 4; ++k) out.cls[k] = tot[k];
  out.frontier = tot[0] + tot[1] + tot[2] + tot[3];
  out.hubs = tot[4];
  return out;
}

// The unvisited vertices (the switch level's full scan); returns their number.
__device__ int CollectUnvisited(const BfsProblem& p, const int32_t* dist, int32_t* out,
                                int32_t* block_tot, int& parity, cg::grid_group& grid) {
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  const int64_t tid = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  int c[1] = {0};
  for (int64_t v = tid; v < p.n; v += stride) c[0] += __ldcg(dist + v) < 0;
  int off[1], tot[1];
  GridScan<1>(c, off, tot, block_tot, parity, grid);
  for (int64_t v = tid; v < p.n; v += stride)
    if (__ldcg(dist + v) < 0) out[off[0]++] = static_cast<int32_t>(v);
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
    int32_t w[kBatch], d[kBatch];
#pragma unroll
    for (int j = 0; j < kBatch; ++j) {
      const int64_t e = e0 + j * step;
      w[j] = e < hi ? __ldg(p.indices + e) : -1;
    }
#pragma unroll
    for (int j = 0; j < kBatch; ++j) d[j] = w[j] >= 0 ? __ldcg(dist + w[j]) : 0;
#pragma unroll
    for (int j = 0; j < kBatch; ++j) {
      if (d[j] >= 0) continue;
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
                              const Level& lv, const SingleScratch& sc, cg::grid_group& grid) {
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

// Phase D: filters the unvisited queue; returns the new count, the next
// frontier's size and its hubs (written to the hub queue).
__device__ int FilterUnvisited(const BfsProblem& p, const int32_t* dist, const int32_t* in,
                               int count, int32_t* out, Level* lv, const SingleScratch& sc,
                               int& parity, cg::grid_group& grid) {
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  const int64_t tid = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  int c[3] = {0, 0, 0};
  for (int64_t i = tid; i < count; i += stride) {
    const int32_t v = __ldcg(in + i);
    if (__ldcg(dist + v) < 0) {
      ++c[0];
    } else {
      ++c[1];
      c[2] += (p.indptr[v + 1] - p.indptr[v]) > p.tau;
    }
  }
  int off[3], tot[3];
  GridScan<3>(c, off, tot, sc.block_tot, parity, grid);
  for (int64_t i = tid; i < count; i += stride) {
    const int32_t v = __ldcg(in + i);
    if (__ldcg(dist + v) < 0) {
      out[off[0]++] = v;
    } else if ((p.indptr[v + 1] - p.indptr[v]) > p.tau) {
      sc.hubs[off[2]++] = v;
    }
  }
  grid.sync();
  lv->frontier = tot[1];
  lv->hubs = tot[2];
  return tot[0];
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

// Methods kBfsQueue and up.
__device__ void TraverseQueues(const BfsProblem& p, int32_t* dist, int32_t* parent, int total_hubs,
                               const SingleScratch& sc, int& parity, cg::grid_group& grid) {
  bool bottom_up = false;
  int prev = 0, unv_count = 0, cur = 0;
  Level lv;
  for (int32_t level = 0;; ++level) {
    if (!bottom_up) lv = BuildFrontier(p, dist, level, sc, parity, grid);
    if (lv.frontier == 0) break;
    const bool next_bu =
        NextBottomUp(p.method, p.direction, bottom_up, lv.frontier, prev, lv.hubs, total_hubs, p.n);
    if (bottom_up && !next_bu) lv = BuildFrontier(p, dist, level, sc, parity, grid);
    if (next_bu && !bottom_up) {
      cur = 0;
      unv_count = CollectUnvisited(p, dist, sc.Unv(cur), sc.block_tot, parity, grid);
    }
    prev = lv.frontier;
    bottom_up = next_bu;
    if (bottom_up) {
      ExpandBottomUp(p, dist, parent, level, sc.Unv(cur), unv_count, lv.hubs, sc,
                     p.method >= kBfsEnterprise);
      grid.sync();
      unv_count =
          FilterUnvisited(p, dist, sc.Unv(cur), unv_count, sc.Unv(cur ^ 1), &lv, sc, parity, grid);
      cur ^= 1;
    } else {
      ExpandTopDown(p, dist, parent, level, lv, sc, grid);
      grid.sync();
    }
  }
}

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
  int total_hubs = 0;
  if (p.method >= kBfsDirection) {
    int c[1] = {0}, off[1], tot[1];
    for (int64_t v = tid; v < p.n; v += stride) c[0] += (p.indptr[v + 1] - p.indptr[v]) > p.tau;
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
    grid.sync();
    if (p.method == kBfsScan) {
      TraverseScan(p, dist, parent, sc, tick, grid);
    } else {
      TraverseQueues(p, dist, parent, total_hubs, sc, parity, grid);
    }
  }
}

// ---- kBfsHybrid: one grid sync per level, small levels in one block ----
//
// A top-down level claims each child with an atomicCAS on its distance (one
// winner, so every vertex is queued once) and the winners queue it for the
// next level by degree class, one atomic per class per warp and edge batch,
// counting the next frontier's size, hubs and edges on the way: the next
// level's queues and the direction rule's inputs are ready after ONE grid
// sync, with no status-array scan and no prefix sum. Bottom-up levels queue
// the vertices they reach and the rest as the next unvisited queue, one
// atomic per counter per block-wide chunk. A top-down level whose frontier
// has at most p.block_edges edges runs in block 0 alone (barriers only)
// while the other blocks wait at the next grid sync; block 0 goes on level
// after level until a frontier grows past the threshold or the traversal
// ends.

// One frontier's queues by degree class (every vertex is queued once per
// traversal, so a class never outgrows its space): small from the front of
// `small`; middle from the front of `wide` and large from its back (together
// at most n); extreme in `extreme`; the frontier's hubs in `hubs`.
struct Queues {
  int32_t* small;    // [n]
  int32_t* wide;     // [n]
  int32_t* extreme;  // [m / (kLargeMax + 1) + 1]
  int32_t* hubs;     // [n]
};

// Slots of a frontier's counters (int32: a frontier has at most m < 2^31 edges).
enum : int {
  kCntClasses = 0,    // [0, 4): queue sizes of the degree classes
  kCntHubs = 4,       // hubs in the frontier
  kCntEdges = 5,      // sum of the frontier's degrees
  kCntUnvisited = 6,  // bottom-up: the next unvisited queue's size
  kCntSlots = 8,
};

struct Frontier {
  int cls[4] = {0, 0, 0, 0};
  int hubs = 0;
  int edges = 0;
  __device__ int Size() const { return cls[0] + cls[1] + cls[2] + cls[3]; }
};

struct HybridScratch {
  Queues q[2];          // frontier queues, ping-pong by level
  int32_t* unv[2];      // [n] each: unvisited queues (bottom-up), ping-pong
  int32_t* counters;    // [3][kCntSlots] frontier counters, rotating (TraverseHybrid)
  int32_t* handoff;     // [kCntSlots + 2]: block 0's frontier, level and queue parity
  int32_t* block_hubs;  // [grid]: the graph's hubs counted per block
  // By parity through selects: an index into q or unv would copy the struct to
  // local memory.
  __device__ __forceinline__ Queues Q(int i) const { return i ? q[1] : q[0]; }
  __device__ __forceinline__ int32_t* Unv(int i) const { return i ? unv[1] : unv[0]; }
};

__device__ __forceinline__ Frontier LoadFrontier(const int32_t* c) {
  Frontier f;
#pragma unroll
  for (int k = 0; k < 4; ++k) f.cls[k] = __ldcg(c + kCntClasses + k);
  f.hubs = __ldcg(c + kCntHubs);
  f.edges = __ldcg(c + kCntEdges);
  return f;
}

__device__ __forceinline__ int32_t* ClassSlot(const Queues& q, int k, int i, int64_t n) {
  if (k == 0) return q.small + i;
  if (k == 1) return q.wide + i;
  if (k == 2) return q.wide + (n - 1 - i);
  return q.extreme + i;
}

// Queues the vertices w[j] with won[j] (degrees deg[j]) for the next level.
// The converged lanes that call it together take their slots with one atomic
// per class and one for the hubs (a lane's rank: the counts of the lanes
// before it, from three ballots of the count's bits, as a lane holds at most
// kBatch <= 7), and add their degrees to the edge count with one more.
__device__ __forceinline__ void EnqueueBatch(const Queues& out, int32_t* cnt,
                                             const int32_t (&w)[kBatch],
                                             const int32_t (&won)[kBatch],
                                             const int32_t (&deg)[kBatch], int64_t tau, int64_t n) {
  static_assert(kBatch <= 7, "a lane's count must fit the three ballots");
  const unsigned mask = __activemask();
  const int lane = threadIdx.x & 31, leader = __ffs(mask) - 1;
  const unsigned below = (1u << lane) - 1u;
  int edges = 0;
#pragma unroll
  for (int j = 0; j < kBatch; ++j) edges += won[j] ? deg[j] : 0;
  const unsigned all_edges = __reduce_add_sync(mask, static_cast<unsigned>(edges));
  if (all_edges != 0 && lane == leader) atomicAdd(cnt + kCntEdges, static_cast<int>(all_edges));
  // Slots k = 0..3: the degree classes; k = kCntHubs: the hub list.
  for (int k = 0; k <= kCntHubs; ++k) {
    int mine = 0;
#pragma unroll
    for (int j = 0; j < kBatch; ++j)
      mine += won[j] && (k < kCntHubs ? DegreeClass(deg[j], true) == k : deg[j] > tau);
    const unsigned total = __reduce_add_sync(mask, static_cast<unsigned>(mine));
    if (total == 0) continue;  // the same for every lane of mask
    int at = __popc(__ballot_sync(mask, mine & 1) & below) +
             2 * __popc(__ballot_sync(mask, mine & 2) & below) +
             4 * __popc(__ballot_sync(mask, mine & 4) & below);
    int base = 0;
    if (lane == leader) base = atomicAdd(cnt + k, static_cast<int>(total));
    at += __shfl_sync(mask, base, leader);
#pragma unroll
    for (int j = 0; j < kBatch; ++j) {
      if (!won[j]) continue;
      if (k < kCntHubs && DegreeClass(deg[j], true) == k) *ClassSlot(out, k, at++, n) = w[j];
      if (k == kCntHubs && deg[j] > tau) out.hubs[at++] = w[j];
    }
  }
}

// Claims the unvisited ones of the ids w[j] >= 0 (atomicCAS -1 -> next; parent
// src[j]) and queues the ones it wins. Distances, claims and the winners'
// degrees are each loaded batch-wide.
__device__ __forceinline__ void ClaimBatch(const BfsProblem& p, int32_t* dist, int32_t* parent,
                                           const int32_t (&w)[kBatch], const int32_t (&src)[kBatch],
                                           int32_t next, const Queues& out, int32_t* cnt) {
  int32_t d[kBatch];
#pragma unroll
  for (int j = 0; j < kBatch; ++j) d[j] = w[j] >= 0 ? __ldcg(dist + w[j]) : 0;
#pragma unroll
  for (int j = 0; j < kBatch; ++j) d[j] = d[j] < 0 && atomicCAS(dist + w[j], -1, next) == -1;
  int32_t deg[kBatch] = {};
#pragma unroll
  for (int j = 0; j < kBatch; ++j) {
    if (!d[j]) continue;
    if (parent != nullptr) parent[w[j]] = src[j];
    deg[j] = p.indptr[w[j] + 1] - p.indptr[w[j]];
  }
  EnqueueBatch(out, cnt, w, d, deg, p.tau, p.n);
}

// Top-down over u's neighbours indices[e], e = lo, lo + step, ... < hi,
// kBatch at a time (ClaimBatch).
__device__ __forceinline__ void ClaimRange(const BfsProblem& p, int32_t* dist, int32_t* parent,
                                           int64_t lo, int64_t hi, int64_t step, int32_t u,
                                           int32_t next, const Queues& out, int32_t* cnt) {
  for (int64_t e0 = lo; e0 < hi; e0 += kBatch * step) {
    int32_t w[kBatch], src[kBatch];
#pragma unroll
    for (int j = 0; j < kBatch; ++j) {
      const int64_t e = e0 + j * step;
      w[j] = e < hi ? __ldg(p.indices + e) : -1;
      src[j] = u;
    }
    ClaimBatch(p, dist, parent, w, src, next, out, cnt);
  }
}

// A top-down level over the grid: every class queue of `in` with its mapping
// (small: a thread, middle: a warp, large: a block, extreme: the grid each).
__device__ void ExpandTopDownFused(const BfsProblem& p, int32_t* dist, int32_t* parent,
                                   int32_t level, const Frontier& f, const Queues& in,
                                   const Queues& out, int32_t* cnt) {
  const int32_t next = level + 1;
  const int64_t threads = static_cast<int64_t>(gridDim.x) * blockDim.x;
  const int64_t tid = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const int lane = threadIdx.x & 31;
  for (int64_t i = tid; i < f.cls[0]; i += threads) {
    const int32_t u = __ldcg(in.small + i);
    ClaimRange(p, dist, parent, p.indptr[u], p.indptr[u + 1], 1, u, next, out, cnt);
  }
  const int64_t warps = threads / 32, wid = tid / 32;
  for (int64_t i = wid; i < f.cls[1]; i += warps) {
    const int32_t u = __ldcg(in.wide + i);
    ClaimRange(p, dist, parent, p.indptr[u] + lane, p.indptr[u + 1], 32, u, next, out, cnt);
  }
  for (int64_t i = blockIdx.x; i < f.cls[2]; i += gridDim.x) {
    const int32_t u = __ldcg(in.wide + (p.n - 1 - i));
    ClaimRange(p, dist, parent, p.indptr[u] + threadIdx.x, p.indptr[u + 1], blockDim.x, u, next,
               out, cnt);
  }
  for (int i = 0; i < f.cls[3]; ++i) {
    const int32_t u = __ldcg(in.extreme + i);
    ClaimRange(p, dist, parent, p.indptr[u] + tid, p.indptr[u + 1], threads, u, next, out, cnt);
  }
}

// The i-th vertex of a frontier's class queues taken back to back.
__device__ __forceinline__ int32_t QueueAt(const Queues& q, const Frontier& f, int i, int64_t n) {
  if (i < f.cls[0]) return __ldcg(q.small + i);
  i -= f.cls[0];
  if (i < f.cls[1]) return __ldcg(q.wide + i);
  i -= f.cls[1];
  if (i < f.cls[2]) return __ldcg(q.wide + (n - 1 - i));
  return __ldcg(q.extreme + (i - f.cls[2]));
}

// Block-wide exclusive prefix sum of x (any block size up to 1024); *total: the sum.
__device__ int BlockExclusiveScan(int x, int* total) {
  __shared__ int sums[32];
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, warps = blockDim.x >> 5;
  const int incl = WarpInclusiveScan(x);
  if (lane == 31) sums[warp] = incl;
  __syncthreads();
  if (warp == 0) {
    const int v = WarpInclusiveScan(lane < warps ? sums[lane] : 0);
    if (lane < warps) sums[lane] = v;
  }
  __syncthreads();
  *total = sums[warps - 1];
  const int before = incl - x + (warp > 0 ? sums[warp - 1] : 0);
  __syncthreads();  // sums is rewritten by the next call
  return before;
}

constexpr int kHybridThreads = BfsPolicy::kHybridBlockThreads;
constexpr int kTile = kHybridThreads * BfsPolicy::kBlockTileVertices;

// A top-down level by one block, edge-balanced: a tile of up to kTile
// frontier vertices is laid out by a block scan of their degrees, then every
// thread takes kBatch consecutive edges of the tile per round, so a round
// covers blockDim.x x kBatch edges whatever the degrees (a thread or a warp
// per vertex would leave most of one block idle behind a few vertices).
__device__ void ExpandTopDownBlock(const BfsProblem& p, int32_t* dist, int32_t* parent,
                                   int32_t level, const Frontier& f, const Queues& in,
                                   const Queues& out, int32_t* cnt) {
  constexpr int kPer = BfsPolicy::kBlockTileVertices;
  __shared__ int32_t t_start[kTile], t_lo[kTile], t_u[kTile];
  const int32_t next = level + 1;
  const int size = f.Size();
  for (int tile = 0; tile < size; tile += kTile) {
    const int count = min(kTile, size - tile);
    int32_t u[kPer], lo[kPer], deg[kPer];
    int sum = 0;
#pragma unroll
    for (int r = 0; r < kPer; ++r) {
      const int i = threadIdx.x * kPer + r;
      u[r] = i < count ? QueueAt(in, f, tile + i, p.n) : -1;
    }
#pragma unroll
    for (int r = 0; r < kPer; ++r) {
      lo[r] = u[r] >= 0 ? p.indptr[u[r]] : 0;
      deg[r] = u[r] >= 0 ? p.indptr[u[r] + 1] - lo[r] : 0;
      sum += deg[r];
    }
    int total = 0;
    int at = BlockExclusiveScan(sum, &total);
#pragma unroll
    for (int r = 0; r < kPer; ++r) {
      const int i = threadIdx.x * kPer + r;
      if (i < count) {
        t_start[i] = at;
        t_lo[i] = lo[r];
        t_u[i] = u[r];
      }
      at += deg[r];
    }
    __syncthreads();
    for (int64_t first = threadIdx.x * kBatch; first < total;
         first += static_cast<int64_t>(blockDim.x) * kBatch) {
      int a = 0, b = count;  // k: the last tile entry with t_start[k] <= first
      while (a < b) {
        const int mid = (a + b) / 2;
        if (t_start[mid] <= first) {
          a = mid + 1;
        } else {
          b = mid;
        }
      }
      int k = a - 1;
      int32_t w[kBatch], src[kBatch];
#pragma unroll
      for (int j = 0; j < kBatch; ++j) {
        const int64_t e = first + j;
        w[j] = -1;
        src[j] = -1;
        if (e >= total) continue;
        while (k + 1 < count && t_start[k + 1] <= e) ++k;  // past zero-degree entries too
        w[j] = __ldg(p.indices + (static_cast<int64_t>(t_lo[k]) + (e - t_start[k])));
        src[j] = t_u[k];
      }
      ClaimBatch(p, dist, parent, w, src, next, out, cnt);
    }
    __syncthreads();  // the tile is rewritten by the next one
  }
}

// Where a searched vertex goes, decided before its chunk's global slots are
// known: kind 0-3 its degree class (reached), 4 the next unvisited queue;
// `at` its rank in that queue within the chunk, `hub_at` within the chunk's
// hubs (-1: not a hub). Counts go to the chunk's shared counters.
struct Outcome {
  int kind;
  int at;
  int hub_at;
};

__device__ __forceinline__ Outcome Record(int* chunk, bool reached, int deg, int64_t tau) {
  // The converged lanes that call it together: one shared atomic per kind.
  const unsigned mask = __activemask();
  const int lane = threadIdx.x & 31;
  const unsigned below = (1u << lane) - 1u;
  const int kind = reached ? DegreeClass(deg, true) : 4;
  const unsigned peers = __match_any_sync(mask, kind);
  const int first = __ffs(peers) - 1;
  int at = 0;
  if (lane == first) at = atomicAdd(chunk + (kind == 4 ? kCntUnvisited : kind), __popc(peers));
  at = __shfl_sync(peers, at, first) + __popc(peers & below);
  const bool hub = reached && deg > tau;
  const unsigned hubs = __ballot_sync(mask, hub);
  int hub_at = -1;
  if (hub) {
    const int h0 = __ffs(hubs) - 1;
    int h = 0;
    if (lane == h0) h = atomicAdd(chunk + kCntHubs, __popc(hubs));
    hub_at = __shfl_sync(hubs, h, h0) + __popc(hubs & below);
  }
  const unsigned edges = __reduce_add_sync(mask, static_cast<unsigned>(reached ? deg : 0));
  if (edges != 0 && lane == __ffs(mask) - 1) atomicAdd(chunk + kCntEdges, static_cast<int>(edges));
  return {kind, at, hub_at};
}

__device__ __forceinline__ void Place(const Queues& out, int32_t* unv_out, const int* base,
                                      int32_t v, const Outcome& o, int64_t n) {
  if (o.kind == 4) {
    unv_out[base[kCntUnvisited] + o.at] = v;
    return;
  }
  *ClassSlot(out, o.kind, base[kCntClasses + o.kind] + o.at, n) = v;
  if (o.hub_at >= 0) out.hubs[base[kCntHubs] + o.hub_at] = v;
}

// A bottom-up level over the grid: ExpandBottomUp's search (classes, hub
// cache, each block an even share of the queue) over unv[0, count), or with
// unv == nullptr over the status array (every vertex of [0, count = n) still
// at -1: the first bottom-up level, so no pass collects them first; only a
// vertex's own searcher writes its distance). Every searched vertex is
// either queued for the next level (reached) or appended to `unv_out`; a
// block-wide chunk counts its outcomes in shared memory and takes its global
// slots with one atomic per counter (not one per vertex or warp: a bottom-up
// level of a large graph searches millions of vertices).
__device__ void ExpandBottomUpFused(const BfsProblem& p, int32_t* dist, int32_t* parent,
                                    int32_t level, const int32_t* unv, int count,
                                    const int32_t* hub_list, int hubs, const Queues& out,
                                    int32_t* unv_out, int32_t* cnt) {
  __shared__ int32_t hc[BfsPolicy::kHubCacheSlots];
  __shared__ int32_t wide[kHybridThreads];
  __shared__ Outcome wide_out[kHybridThreads];
  __shared__ int num_wide;
  __shared__ int chunk[kCntSlots], base[kCntSlots];
  FillHubCache(hc, hub_list, hubs);
  const int32_t next = level + 1;
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  int64_t begin, end;
  BlockShare(count, &begin, &end);
  for (int64_t first = begin; first < end; first += blockDim.x) {
    if (threadIdx.x == 0) num_wide = 0;
    if (threadIdx.x < kCntSlots) chunk[threadIdx.x] = 0;
    __syncthreads();
    const int64_t i = first + threadIdx.x;
    int32_t v = -1;
    Outcome mine = {-1, 0, -1};
    // The queue's i-th vertex, or vertex i if it is still unvisited (status scan).
    if (i < end && (unv != nullptr || __ldcg(dist + i) < 0)) {
      v = unv != nullptr ? __ldcg(unv + i) : static_cast<int32_t>(i);
      const int32_t lo = p.indptr[v], hi = p.indptr[v + 1];
      if (hi - lo >= BfsPolicy::kSmallMax) {
        wide[atomicAdd(&num_wide, 1)] = v;
      } else {
        int32_t found = -1;
        for (int32_t e0 = lo; e0 < hi && found < 0; e0 += kBatch)
          found = ParentInBatch(p, dist, hc, true, e0, hi, 1, level);
        if (found >= 0) {
          dist[v] = next;
          if (parent != nullptr) parent[v] = found;
        }
        mine = Record(chunk, found >= 0, hi - lo, p.tau);
      }
    }
    __syncthreads();
    const int nw = num_wide;
    for (int k = warp; k < nw; k += kHybridThreads / 32) {  // middle: a warp each
      const int32_t w = wide[k];
      const int32_t lo = p.indptr[w], hi = p.indptr[w + 1];
      if (hi - lo > BfsPolicy::kMiddleMax) continue;
      bool hit = false;
      for (int32_t e0 = lo; e0 < hi && !hit; e0 += 32 * kBatch) {
        const int32_t u = ParentInBatch(p, dist, hc, true, e0 + lane, hi, 32, level);
        if (u >= 0) {  // several finders store the same distance and valid parents
          dist[w] = next;
          if (parent != nullptr) parent[w] = u;
        }
        hit = __any_sync(0xffffffffu, u >= 0);
      }
      if (lane == 0) wide_out[k] = Record(chunk, hit, hi - lo, p.tau);
    }
    for (int k = 0; k < nw; ++k) {  // large: the whole block each
      const int32_t w = wide[k];
      const int32_t lo = p.indptr[w], hi = p.indptr[w + 1];
      if (hi - lo <= BfsPolicy::kMiddleMax) continue;
      bool hit = false;
      for (int64_t e0 = lo; e0 < hi && !hit; e0 += static_cast<int64_t>(blockDim.x) * kBatch) {
        const int32_t u = ParentInBatch(p, dist, hc, true, e0 + threadIdx.x, hi, blockDim.x, level);
        if (u >= 0) {
          dist[w] = next;
          if (parent != nullptr) parent[w] = u;
        }
        hit = __syncthreads_or(u >= 0);
      }
      if (threadIdx.x == 0) wide_out[k] = Record(chunk, hit, hi - lo, p.tau);
    }
    __syncthreads();
    if (threadIdx.x < kCntSlots && chunk[threadIdx.x] != 0)
      base[threadIdx.x] = atomicAdd(cnt + threadIdx.x, chunk[threadIdx.x]);
    __syncthreads();
    if (mine.kind >= 0) Place(out, unv_out, base, v, mine, p.n);
    for (int k = threadIdx.x; k < nw; k += blockDim.x)
      Place(out, unv_out, base, wide[k], wide_out[k], p.n);
    __syncthreads();  // wide, chunk and base are rewritten by the next chunk
  }
  __syncthreads();  // hc is rebuilt by the next bottom-up level
}

// Block 0 alone: top-down levels from (*level, *f, queues sc.q[*qpar]) while
// the frontier has at most p.block_edges edges; leaves the first larger (or
// empty) frontier in *level, *f, *qpar. Its counters live in shared memory.
__device__ void BlockLevels(const BfsProblem& p, int32_t* dist, int32_t* parent,
                            const HybridScratch& sc, int32_t* level, Frontier* f, int* qpar) {
  __shared__ int32_t cnt[kCntSlots];
  for (;;) {
    if (threadIdx.x < kCntSlots) cnt[threadIdx.x] = 0;
    __syncthreads();
    ExpandTopDownBlock(p, dist, parent, *level, *f, sc.Q(*qpar), sc.Q(*qpar ^ 1), cnt);
    __syncthreads();
#pragma unroll
    for (int k = 0; k < 4; ++k) f->cls[k] = cnt[kCntClasses + k];
    f->hubs = cnt[kCntHubs];
    f->edges = cnt[kCntEdges];
    ++*level;
    *qpar ^= 1;
    __syncthreads();  // every thread has read cnt before it is cleared
    if (f->Size() == 0 || f->edges > p.block_edges) return;
  }
}

// One traversal of kBfsHybrid; its level-0 frontier is in sc.q[0] and
// counters[0] (StartTraversal), counters[1] and [2] are zero.
//
// Counters: the frontier of a grid level is described by counters[phase];
// the level fills counters[phase + 1] (zeroed one grid level earlier) and
// zeroes counters[phase + 2], which every block read before the last grid
// sync (mod 3). Block-0 levels touch no global counter: they hand their last
// frontier over through sc.handoff, read after the grid sync that ends them.
__device__ void TraverseHybrid(const BfsProblem& p, int32_t* dist, int32_t* parent, int total_hubs,
                               const HybridScratch& sc, cg::grid_group& grid) {
  const int64_t tid = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  int phase = 0, qpar = 0, ucur = 0, nu = 0, prev = 0;
  int32_t level = 0;
  bool bottom_up = false;
  Frontier f = LoadFrontier(sc.counters);
  for (;;) {
    if (f.Size() == 0) break;
    const bool bu = HybridBottomUp(p.direction, bottom_up, f.Size(), prev, f.hubs, total_hubs, p.n,
                                   f.edges, p.block_edges);
    if (!bu && f.edges <= p.block_edges) {
      if (blockIdx.x == 0) {
        BlockLevels(p, dist, parent, sc, &level, &f, &qpar);
        if (threadIdx.x == 0) {
          for (int k = 0; k < 4; ++k) sc.handoff[kCntClasses + k] = f.cls[k];
          sc.handoff[kCntHubs] = f.hubs;
          sc.handoff[kCntEdges] = f.edges;
          sc.handoff[kCntSlots] = level;
          sc.handoff[kCntSlots + 1] = qpar;
        }
      }
      grid.sync();
      f = LoadFrontier(sc.handoff);
      level = __ldcg(sc.handoff + kCntSlots);
      qpar = __ldcg(sc.handoff + kCntSlots + 1);
      bottom_up = false;
      continue;
    }
    const bool first_bu = bu && !bottom_up;  // searches the status array, no queue yet
    prev = f.Size();
    bottom_up = bu;
    int32_t* out_cnt = sc.counters + ((phase + 1) % 3) * kCntSlots;
    if (tid < kCntSlots) sc.counters[((phase + 2) % 3) * kCntSlots + tid] = 0;
    if (bu) {
      if (first_bu) ucur = 0;
      ExpandBottomUpFused(p, dist, parent, level, first_bu ? nullptr : sc.Unv(ucur),
                          first_bu ? static_cast<int>(p.n) : nu, sc.Q(qpar).hubs, f.hubs,
                          sc.Q(qpar ^ 1), sc.Unv(ucur ^ 1), out_cnt);
    } else {
      ExpandTopDownFused(p, dist, parent, level, f, sc.Q(qpar), sc.Q(qpar ^ 1), out_cnt);
    }
    grid.sync();
    phase = (phase + 1) % 3;
    qpar ^= 1;
    ++level;
    f = LoadFrontier(out_cnt);
    if (bu) {
      nu = __ldcg(out_cnt + kCntUnvisited);
      ucur ^= 1;
    }
  }
}

// Thread 0: the level-0 frontier {src} in sc.q[0] and counters[0]; counters[1]
// and [2] zero (ordered before use by the grid sync that follows).
__device__ void StartTraversal(const BfsProblem& p, const HybridScratch& sc, int32_t src) {
  for (int i = 0; i < 3 * kCntSlots; ++i) sc.counters[i] = 0;
  const int deg = p.indptr[src + 1] - p.indptr[src];
  const int k = DegreeClass(deg, true);
  *ClassSlot(sc.q[0], k, 0, p.n) = src;
  sc.counters[kCntClasses + k] = 1;
  if (deg > p.tau) {
    sc.q[0].hubs[0] = src;
    sc.counters[kCntHubs] = 1;
  }
  sc.counters[kCntEdges] = deg;
}

__device__ __forceinline__ bool ValidSource(const BfsProblem& p, int32_t src) {
  return src >= 0 && src < p.n;
}

__global__ void __launch_bounds__(kHybridThreads, 1)
    BfsHybridKernel(BfsProblem p, HybridScratch sc) {
  cg::grid_group grid = cg::this_grid();
  __shared__ int part[kHybridThreads / 32];
  __shared__ int graph_hubs;
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  const int64_t tid = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  // One pass before the first grid sync: every row at -1 (the first source's
  // root set already), the graph's hubs counted per block, the first
  // traversal's level 0 queued.
  const int32_t src0 = p.sources[0];
  const int64_t root = ValidSource(p, src0) ? src0 : -1;
  const int64_t cells = p.s * p.n;
  for (int64_t i = tid; i < cells; i += stride) {
    p.dist[i] = i == root ? 0 : -1;
    if (p.parent != nullptr) p.parent[i] = i == root ? src0 : -1;
  }
  int hubs = 0;
  if (p.direction == kBfsAuto)
    for (int64_t v = tid; v < p.n; v += stride) hubs += (p.indptr[v + 1] - p.indptr[v]) > p.tau;
  hubs = WarpSum(hubs);
  if (lane == 0) part[warp] = hubs;
  __syncthreads();
  if (threadIdx.x == 0) {
    int sum = 0;
    for (int w = 0; w < kHybridThreads / 32; ++w) sum += part[w];
    sc.block_hubs[blockIdx.x] = sum;
    if (blockIdx.x == 0 && root >= 0) StartTraversal(p, sc, src0);
  }
  grid.sync();
  if (warp == 0) {
    int sum = 0;
    for (int b = lane; b < static_cast<int>(gridDim.x); b += 32) sum += __ldcg(sc.block_hubs + b);
    sum = WarpSum(sum);
    if (lane == 0) graph_hubs = sum;
  }
  __syncthreads();
  const int total_hubs = graph_hubs;
  for (int64_t s = 0; s < p.s; ++s) {
    int32_t* dist = p.dist + s * p.n;
    int32_t* parent = p.parent != nullptr ? p.parent + s * p.n : nullptr;
    const int32_t src = p.sources[s];
    if (s > 0) {
      grid.sync();  // every block has read the last traversal's final counters
      if (tid == 0 && ValidSource(p, src)) {
        dist[src] = 0;
        if (parent != nullptr) parent[src] = src;
        StartTraversal(p, sc, src);
      }
      grid.sync();
    }
    if (!ValidSource(p, src)) continue;  // the row stays -1
    TraverseHybrid(p, dist, parent, total_hubs, sc, grid);
  }
}

// ---- Bit-parallel multi-source BFS ----

struct BitsetScratch {
  uint64_t* visited;   // [n]
  uint64_t* front[2];  // [n] each
  int32_t* flags;      // [3]
};

__global__ void __launch_bounds__(kThreads) BfsBitsetKernel(BfsProblem p, BitsetScratch sc) {
  cg::grid_group grid = cg::this_grid();
  constexpr int kWidth = BfsPolicy::kBitsetWidth;
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  const int64_t tid = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const int lane = threadIdx.x & 31;
  int tick = 0;
  for (int64_t first = 0; first < p.s; first += kWidth) {
    const int count = static_cast<int>(p.s - first < kWidth ? p.s - first : kWidth);
    for (int64_t v = tid; v < p.n; v += stride) {
      sc.visited[v] = 0;
      sc.front[0][v] = 0;
    }
    grid.sync();
    uint64_t full = 0;
    for (int b = 0; b < count; ++b) {
      const int32_t src = p.sources[first + b];
      if (src >= 0 && src < p.n) full |= uint64_t{1} << b;
    }
    if (tid < count && ((full >> tid) & 1)) {
      const int32_t src = p.sources[first + tid];
      atomicOr(reinterpret_cast<unsigned long long*>(sc.visited + src), 1ull << tid);
      atomicOr(reinterpret_cast<unsigned long long*>(sc.front[0] + src), 1ull << tid);
      p.dist[(first + tid) * p.n + src] = 0;
      if (p.parent != nullptr) p.parent[(first + tid) * p.n + src] = src;
    }
    grid.sync();
    // Warps walk 32 consecutive vertices at a time: lane l owns vertex base + l.
    const int64_t warps = stride / 32, wid = tid / 32;
    const int64_t span = (p.n + 31) / 32 * 32;
    for (int32_t level = 0;; ++level) {
      const uint64_t* cur = sc.front[level & 1];
      uint64_t* nxt = sc.front[(level + 1) & 1];
      int32_t* flag = NextFlag(sc.flags, tick, tid);
      bool changed = false;
      for (int64_t base = wid * 32; base < span; base += warps * 32) {
        const int64_t v = base + lane;
        const bool mine = v < p.n;
        const uint64_t seen = mine ? LoadBits(sc.visited + v) : full;
        const uint64_t need = full & ~seen;
        const int32_t lo = mine ? p.indptr[v] : 0, hi = mine ? p.indptr[v + 1] : 0;
        const bool wide = need != 0 && hi - lo >= BfsPolicy::kSmallMax;
        uint64_t acc = 0;
        if (need != 0 && !wide) {
          for (int32_t e = lo; e < hi; ++e) {
            const int32_t u = p.indices[e];
            uint64_t fresh = LoadBits(cur + u) & need & ~acc;
            if (fresh == 0) continue;
            acc |= fresh;
            if (p.parent != nullptr)
              for (uint64_t f = fresh; f != 0; f &= f - 1)
                p.parent[(first + __ffsll(static_cast<long long>(f)) - 1) * p.n + v] = u;
            if (acc == need) break;
          }
        }
        for (unsigned todo = __ballot_sync(0xffffffffu, wide); todo != 0; todo &= todo - 1) {
          const int owner = __ffs(todo) - 1;
          const int64_t w = base + owner;
          const uint64_t wneed = __shfl_sync(0xffffffffu, need, owner);
          const int32_t wlo = __shfl_sync(0xffffffffu, lo, owner);
          const int32_t whi = __shfl_sync(0xffffffffu, hi, owner);
          uint64_t got = 0;
          for (int32_t e0 = wlo; e0 < whi; e0 += 32) {
            const int32_t e = e0 + lane;
            if (e < whi) {
              const int32_t u = p.indices[e];
              const uint64_t fresh = LoadBits(cur + u) & wneed & ~got;
              if (fresh != 0 && p.parent != nullptr)
                for (uint64_t f = fresh; f != 0; f &= f - 1)
                  p.parent[(first + __ffsll(static_cast<long long>(f)) - 1) * p.n + w] = u;
              got |= fresh;
            }
            got = WarpOr(got);
            if (got == wneed) break;
          }
          if (lane == owner) acc = got;
        }
        if (mine) {
          nxt[v] = acc;
          if (acc != 0) {
            sc.visited[v] = seen | acc;
            changed = true;
            for (uint64_t f = acc; f != 0; f &= f - 1)
              p.dist[(first + __ffsll(static_cast<long long>(f)) - 1) * p.n + v] = level + 1;
          }
        }
      }
      if (changed) *flag = 1;
      grid.sync();
      if (__ldcg(flag) == 0) break;
    }
    grid.sync();
  }
}

size_t AlignUp(size_t x) { return (x + 255) / 256 * 256; }

bool UsesHybrid(const BfsProblem& p) { return !p.bitset && p.method == kBfsHybrid; }

// Capacity of a frontier's extreme queue: a vertex above kLargeMax holds more
// than kLargeMax of the m CSR entries.
size_t ExtremeCapacity(const BfsProblem& p) {
  return static_cast<size_t>(p.m / (BfsPolicy::kLargeMax + 1) + 1);
}

}  // namespace

cudaError_t PlanBfs(const BfsProblem& p, int num_sms, BfsPlan* plan) {
  int per_sm = 0;
  cudaError_t err =
      p.bitset
          ? cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, BfsBitsetKernel, kThreads, 0)
      : UsesHybrid(p)
          ? cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, BfsHybridKernel, kHybridThreads,
                                                          0)
          : cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, BfsSingleKernel, kThreads, 0);
  if (err != cudaSuccess) return err;
  const int64_t resident = static_cast<int64_t>(max(1, per_sm)) * num_sms;
  const int64_t work = std::max(p.n, p.m / BfsPolicy::kEdgesPerThread);
  const int threads = UsesHybrid(p) ? kHybridThreads : kThreads;
  plan->grid = static_cast<int>(std::max<int64_t>(1, std::min(resident, CeilDiv(work, threads))));
  const size_t n = static_cast<size_t>(p.n);
  const size_t scan = AlignUp(2 * static_cast<size_t>(plan->grid) * kScanSlots * sizeof(int32_t));
  if (p.bitset) {
    plan->scratch_bytes = 3 * AlignUp(n * sizeof(uint64_t)) + AlignUp(3 * sizeof(int32_t));
  } else if (UsesHybrid(p)) {
    const size_t queues =
        3 * AlignUp(n * sizeof(int32_t)) + AlignUp(ExtremeCapacity(p) * sizeof(int32_t));
    plan->scratch_bytes = 2 * queues + 2 * AlignUp(n * sizeof(int32_t)) +
                          AlignUp(3 * kCntSlots * sizeof(int32_t)) +
                          AlignUp((kCntSlots + 2) * sizeof(int32_t)) +
                          AlignUp(static_cast<size_t>(plan->grid) * sizeof(int32_t));
  } else {
    plan->scratch_bytes = 4 * AlignUp(n * sizeof(int32_t)) + scan + AlignUp(3 * sizeof(int32_t));
  }
  return cudaSuccess;
}

cudaError_t RunBfs(const BfsProblem& p, const BfsPlan& plan, void* scratch, cudaStream_t stream) {
  char* at = static_cast<char*>(scratch);
  auto take = [&at](size_t bytes) {
    void* r = at;
    at += AlignUp(bytes);
    return r;
  };
  const size_t n = static_cast<size_t>(p.n);
  BfsProblem problem = p;
  if (p.bitset) {
    BitsetScratch sc;
    sc.visited = static_cast<uint64_t*>(take(n * sizeof(uint64_t)));
    sc.front[0] = static_cast<uint64_t*>(take(n * sizeof(uint64_t)));
    sc.front[1] = static_cast<uint64_t*>(take(n * sizeof(uint64_t)));
    sc.flags = static_cast<int32_t*>(take(3 * sizeof(int32_t)));
    // Batched sources: memsets here keep the kernel's registers for the pull
    // (their launch cost is shared by 64 traversals a group).
    const size_t rows = static_cast<size_t>(p.s) * n * sizeof(int32_t);
    cudaError_t err = cudaMemsetAsync(p.dist, 0xff, rows, stream);
    if (err == cudaSuccess && p.parent != nullptr)
      err = cudaMemsetAsync(p.parent, 0xff, rows, stream);
    if (err == cudaSuccess) err = cudaMemsetAsync(sc.flags, 0, 3 * sizeof(int32_t), stream);
    if (err != cudaSuccess) return err;
    void* args[] = {&problem, &sc};
    return cudaLaunchCooperativeKernel(reinterpret_cast<void*>(BfsBitsetKernel), plan.grid,
                                       kThreads, args, 0, stream);
  }
  if (UsesHybrid(p)) {
    HybridScratch sc;
    for (Queues& q : sc.q) {
      q.small = static_cast<int32_t*>(take(n * sizeof(int32_t)));
      q.wide = static_cast<int32_t*>(take(n * sizeof(int32_t)));
      q.extreme = static_cast<int32_t*>(take(ExtremeCapacity(p) * sizeof(int32_t)));
      q.hubs = static_cast<int32_t*>(take(n * sizeof(int32_t)));
    }
    sc.unv[0] = static_cast<int32_t*>(take(n * sizeof(int32_t)));
    sc.unv[1] = static_cast<int32_t*>(take(n * sizeof(int32_t)));
    sc.counters = static_cast<int32_t*>(take(3 * kCntSlots * sizeof(int32_t)));
    sc.handoff = static_cast<int32_t*>(take((kCntSlots + 2) * sizeof(int32_t)));
    sc.block_hubs = static_cast<int32_t*>(take(static_cast<size_t>(plan.grid) * sizeof(int32_t)));
    void* args[] = {&problem, &sc};
    return cudaLaunchCooperativeKernel(reinterpret_cast<void*>(BfsHybridKernel), plan.grid,
                                       kHybridThreads, args, 0, stream);
  }
  SingleScratch sc;
  sc.queue = static_cast<int32_t*>(take(n * sizeof(int32_t)));
  sc.unv[0] = static_cast<int32_t*>(take(n * sizeof(int32_t)));
  sc.unv[1] = static_cast<int32_t*>(take(n * sizeof(int32_t)));
  sc.hubs = static_cast<int32_t*>(take(n * sizeof(int32_t)));
  sc.block_tot = static_cast<int32_t*>(
      take(2 * static_cast<size_t>(plan.grid) * kScanSlots * sizeof(int32_t)));
  sc.flags = static_cast<int32_t*>(take(3 * sizeof(int32_t)));
  void* args[] = {&problem, &sc};
  return cudaLaunchCooperativeKernel(reinterpret_cast<void*>(BfsSingleKernel), plan.grid, kThreads,
                                     args, 0, stream);
}

}  // namespace kcjax::cuda
