// Clique counting (count.cu): the persistent solve kernels, one per task
// size class (small, medium/warp, large/block, huge/sorted-list), and their
// share of the sorted tasks.
// Private to count.cu (one translation unit: included there, in order, so
// that every kernel's inlining is that of a single file).
#pragma once

#include "engine.cuh"

namespace kcjax::cliques {
namespace {

// ---------------------------------------------------------------------------
// Kernels.
// ---------------------------------------------------------------------------

__device__ __forceinline__ bool ValidTask(const DagView& g, int32_t e) {
  return e >= 0 && e < g.num_edges;
}

// prefix[i] = keys[i] (int64), scanned in place afterwards.
__global__ void WidenKeysKernel(const uint32_t* keys, int n, int64_t* prefix) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    prefix[i] = keys[i];
}

// A solve kernel's share of the sorted tasks: [begin, end) from the host, or
// (SolvePlan::device_bounds) read from the pre-pass's classes on the device,
// where a set key_overflow (a max_degree hint below some key: the grids and
// arenas may be too small) leaves the kernel no task; the handler then sorts
// again and plans from the read-back classes.
struct TaskSpan {
  const int32_t* sorted;
  const TaskClasses* classes;  // device bounds, else nullptr
  int begin_field, end_field;  // indices into ClassField (-1: zero)
  int begin, end;

  static __device__ __forceinline__ int ClassField(const TaskClasses& c, int f) {
    switch (f) {
      case 0:
        return c.huge_end;
      case 1:
        return c.large_end;
      case 2:
        return c.medium_end;
      case 3:
        return c.small_end;
      default:
        return 0;
    }
  }
  // The first task of the span in *tasks; returns the number of tasks.
  __device__ __forceinline__ int Get(const int32_t** tasks) const {
    int b = begin, e = end;
    if (classes != nullptr) {
      if (classes->key_overflow) return 0;
      b = ClassField(*classes, begin_field);
      e = ClassField(*classes, end_field);
    }
    *tasks = sorted + b;
    return max(0, e - b);
  }
};

// Small tasks (2 <= d < 32), KCMiner / static-L2: C in shared memory, one
// word per row, single-word engine.
__global__ void __launch_bounds__(kThreads)
    SmallKernel(DagView g, TaskSpan span, int kmax, int* work, u64* out) {
  const int32_t* tasks;
  const int num = span.Get(&tasks);
  extern __shared__ __align__(16) unsigned char smem[];
  const WarpSmemLayout lay = WarpSmemLayout::Make(kmax);
  Counts cnt;
  WarpSmem ws;
  CarveWarpSmem(smem, lay, out, &cnt, &ws);
  cnt.Zero();
  for (int t = PullTask(work); t < num; t = PullTask(work)) {
    const int32_t e = tasks[t];
    const int32_t u = g.src[e], v = g.indices[e];
    const int d = WarpIntersect(g.Row(u), g.Degree(u), g.Row(v), g.Degree(v), ws.list1);
    BuildRows1(g, ws.list1, d, ws.rows1);
    RunEngine1(ws.rows1, d, 2, kmax, ws, cnt);
  }
  cnt.Flush();
}

// The small route (UseSmallRoute): every task of a graph whose candidate sets
// all fit one word, counts[3] included. A warp pulls a batch of 32 tasks
// strided over the task list (lane i takes task batch + i * batches), so the
// consecutive edges of a dense region spread over warps; each lane sizes its
// own task, and the warp then runs the tasks of two or more candidates one
// by one. A task whose lists could hold a larger set (a max_degree hint below
// the true maximum) is skipped and *overflow set: the handler then recounts
// on the general path.
__global__ void __launch_bounds__(kThreads)
    SmallRouteKernel(DagView g, const int32_t* tasks, int num, int kmax, int* work, int* overflow,
                     u64* out) {
  extern __shared__ __align__(16) unsigned char smem[];
  const WarpSmemLayout lay = WarpSmemLayout::Make(kmax);
  Counts cnt;
  WarpSmem ws;
  CarveWarpSmem(smem, lay, out, &cnt, &ws);
  cnt.Zero();
  const int lane = LaneId();
  const int batches = (num + kWarp - 1) / kWarp;
  for (int b = PullTask(work); b < batches; b = PullTask(work)) {
    const int t = b + lane * batches;
    int32_t e = t < num ? TaskAt(tasks, t) : -1;
    if (e >= g.num_edges) e = -1;
    int32_t u = 0, v = 0;
    int d = 0;
    bool big = false;
    if (e >= 0) {
      u = g.src[e];
      v = g.indices[e];
      const int du = g.Degree(u), dv = g.Degree(v);
      // C = N+(u) ∩ N+(v) excludes v itself: |C| <= min(du - 1, dv).
      big = min(du - 1, dv) >= Policy::kSmallTaskMax;
      if (!big) d = LaneIntersect(g.Row(u), du, g.Row(v), dv);
    }
    if (__ballot_sync(kFull, big) != 0u && lane == 0) *overflow = 1;
    cnt.AddWarp(3, static_cast<uint32_t>(d));
    for (unsigned todo = __ballot_sync(kFull, d >= 2); todo != 0u; todo &= todo - 1) {
      const int j = __ffs(todo) - 1;
      const int32_t uj = __shfl_sync(kFull, u, j), vj = __shfl_sync(kFull, v, j);
      const int dj = WarpIntersect(g.Row(uj), g.Degree(uj), g.Row(vj), g.Degree(vj), ws.list1);
      BuildRows1(g, ws.list1, dj, ws.rows1);
      RunEngine1(ws.rows1, dj, 2, kmax, ws, cnt);
    }
  }
  cnt.Flush();
}

// Level-3 construction of KCMiner (γ <= λ at level 2): every candidate i of C
// roots a size-3 node with candidates row(i); its bitmap space is compacted
// from the level-2 rows and explored with the engine (single-word when it has
// <= 32 candidates).
__device__ void Level3(const uint32_t* rows, int d, int W, int kmax, const ArenaLayout& al,
                       uint32_t* arena, const WarpSmem& ws, StackMem st, const Counts& cnt) {
  int32_t* pos = reinterpret_cast<int32_t*>(arena + al.pos);
  uint32_t* rows3 = arena + al.rows3;
  for (int i = 0; i + 2 < d; ++i) {  // fewer than 2 candidates: nothing at size >= 5
    const int d3 = ExtractBits(rows + static_cast<int64_t>(i) * W, W, pos);
    if (d3 < 2) continue;
    if (d3 <= kWarp) {
      CompactRows1(rows, W, pos, d3, ws.rows1);
      RunEngine1(ws.rows1, d3, 3, kmax, ws, cnt);
    } else {
      const int W3 = WordsFor(d3);
      CompactRows(rows, W, pos, d3, W3, rows3);
      RunEngine(rows3, d3, W3, nullptr, d3, 3, kmax, ws.q, st, cnt, 0, 1);
    }
    __syncwarp();
  }
}

// Warp-per-task bitmap kernel: KCMiner / static-L2 medium tasks and every
// bitmap baseline (d <= kMaxBitmapDim). Arena in shared memory when it fits
// (arena_global == nullptr), else in global scratch.
__global__ void __launch_bounds__(kThreads)
    WarpKernel(DagView g, TaskSpan span, int kmax, int method, float lam, int dim, int* work,
               u64* out, uint32_t* arena_global, const int64_t* split_prefix, u64* split_work) {
  const int32_t* tasks;
  const int num = span.Get(&tasks);
  extern __shared__ __align__(16) unsigned char smem[];
  const WarpSmemLayout lay = WarpSmemLayout::Make(kmax);
  Counts cnt;
  WarpSmem ws;
  CarveWarpSmem(smem, lay, out, &cnt, &ws);
  cnt.Zero();
  const bool level3 = UsesLevel3(method, kmax, lam, split_prefix != nullptr);
  const ArenaLayout al = ArenaLayout::Make(dim, kmax, level3);
  uint32_t* arena;
  if (arena_global == nullptr) {
    arena = reinterpret_cast<uint32_t*>(smem + lay.Bytes() * Policy::kWarpsPerBlock) +
            al.words * WarpInBlock();
  } else {
    arena = arena_global +
            al.words * (static_cast<int64_t>(blockIdx.x) * Policy::kWarpsPerBlock + WarpInBlock());
  }
  int32_t* list = reinterpret_cast<int32_t*>(arena + al.list);
  uint32_t* rows = arena + al.rows;
  StackMem st{arena + al.stack, arena + al.nbs};
  const float lambda = lam >= 0.f ? lam : Policy::Lambda(kmax, 2);

  if (split_prefix != nullptr) {
    // KCMiner, level-3 construction for every task (λ(kmax, 2) >= 1/2 > γ):
    // the work units are the level-3 nodes (task t, candidate i), numbered
    // x = prefix[t - 1] + i (prefix = inclusive sum of |C|), pulled in order:
    // heavy tasks first, and no single warp owns a whole heavy task.
    int32_t* list3 = reinterpret_cast<int32_t*>(arena + al.pos);
    const u64 total = num > 0 ? static_cast<u64>(split_prefix[num - 1]) : 0;
    int cached = -1, d = 0;
    while (true) {
      u64 x = 0;
      if (LaneId() == 0) x = atomicAdd(split_work, 1ull);
      x = __shfl_sync(kFull, x, 0);
      if (x >= total) break;
      int lo = 0, hi = num - 1;  // first t with prefix[t] > x
      while (lo < hi) {
        const int mid = (lo + hi) >> 1;
        if (static_cast<u64>(split_prefix[mid]) > x)
          hi = mid;
        else
          lo = mid + 1;
      }
      const int t = lo;
      const int i = static_cast<int>(x - (t > 0 ? static_cast<u64>(split_prefix[t - 1]) : 0));
      if (t != cached) {  // consecutive units of one task reuse C
        const int32_t e = tasks[t];
        const int32_t u = g.src[e], v = g.indices[e];
        d = WarpIntersect(g.Row(u), g.Degree(u), g.Row(v), g.Degree(v), list);
        cached = t;
      }
      if (i + 1 >= d) continue;
      const int32_t w = list[i];
      const int d3 = WarpIntersect(list + i + 1, d - i - 1, g.Row(w), g.Degree(w), list3);
      if (LaneId() == 0) cnt.AddLane(4, static_cast<u64>(d3));
      if (d3 < 2) continue;
      if (d3 <= kWarp) {
        BuildRows1(g, list3, d3, ws.rows1);
        RunEngine1(ws.rows1, d3, 3, kmax, ws, cnt);
      } else {
        const int W3 = WordsFor(d3);
        BuildRows(g, list3, d3, W3, rows, 0, 1);
        RunEngine(rows, d3, W3, nullptr, d3, 3, kmax, ws.q, st, cnt, 0, 1);
      }
      __syncwarp();
    }
    cnt.Flush();
    return;
  }

  for (int t = PullTask(work); t < num; t = PullTask(work)) {
    const int32_t e = tasks[t];
    const int32_t u = g.src[e], v = g.indices[e];
    if (method == kStaticBitmapL1) {
      // Bitmap space over N+(u); C is row(pos(v)). Only rows >= pos(v) can
      // be reached, so only those are built (the space is not shared between
      // tasks of one root: tasks are ordered by size, not by root).
      const int32_t* S = g.Row(u);
      const int d = g.Degree(u);
      const int W = WordsFor(d);
      const int pv = e - g.indptr[u];
      BuildRows(g, S, d, W, rows, pv, 1);
      int32_t* root = reinterpret_cast<int32_t*>(arena + al.pos);
      const uint32_t* cmask = rows + static_cast<int64_t>(pv) * W;  // C as a bitmap
      const int nroot = ExtractBits(cmask, W, root);
      // Restrict the reachable rows to C: every node below the edge task is
      // a subset of C, and level-0 nodes are row(r) ∩ C.
      for (int k = 0; k < nroot; ++k) {
        uint32_t* r = rows + static_cast<int64_t>(root[k]) * W;
        for (int w = LaneId(); w < W; w += kWarp) r[w] &= cmask[w];
      }
      __syncwarp();
      RunEngine(rows, d, W, root, nroot, 2, kmax, ws.q, st, cnt, 0, 1);
      __syncwarp();  // the next task's BuildRows rewrites rows the engine read
      continue;
    }
    const int d = WarpIntersect(g.Row(u), g.Degree(u), g.Row(v), g.Degree(v), list);
    const int W = WordsFor(d);
    const u64 edges = BuildRows(g, list, d, W, rows, 0, 1);
    if (method == kWarpBitmap) {
      RunWarpSerial(rows, d, W, 2, kmax, st.cur, st.nb, cnt);
    } else if (method == kThreadBitmap) {
      RunThreadDfs(rows, d, W, 2, kmax, st, cnt);
    } else {
      // γ = induced edges / d^2 (measured while building). Build at level 2
      // when γ > λ, else one more level: per-candidate spaces at level 3.
      const float gamma = static_cast<float>(static_cast<double>(edges) / (double(d) * d));
      if (!level3 || gamma > lambda) {
        RunEngine(rows, d, W, nullptr, d, 2, kmax, ws.q, st, cnt, 0, 1);
      } else {
        if (LaneId() == 0) cnt.AddLane(4, edges);  // level-3 nodes: popcount(row i)
        Level3(rows, d, W, kmax, al, arena, ws, st, cnt);
      }
    }
    __syncwarp();
  }
  cnt.Flush();
}

// Large tasks (kWarpTaskMax < d <= kMaxBitmapDim), KCMiner / static-L2: one
// block per task. The block builds the bitmap space (rows round-robin over
// warps) in its global region, then every warp takes level-2 batches of 32
// candidates (warp w: batches w, w + 8, ...) and runs the engine with its own
// stack.
__global__ void __launch_bounds__(kThreads) BlockKernel(DagView g, TaskSpan span, int kmax, int dim,
                                                        int* work, u64* out, uint32_t* region) {
  const int32_t* tasks;
  const int num = span.Get(&tasks);
  extern __shared__ __align__(16) unsigned char smem[];
  __shared__ int s_task, s_d;
  const WarpSmemLayout lay = WarpSmemLayout::Make(kmax);
  Counts cnt;
  WarpSmem ws;
  CarveWarpSmem(smem, lay, out, &cnt, &ws);
  cnt.Zero();
  const int W = WordsFor(dim);
  const int levels = max(0, min(kmax - 5, dim - 2));
  const int64_t block_words = RoundUp(dim, 4) + RoundUp(static_cast<int64_t>(dim) * W, 4);
  const int64_t warp_words = RoundUp(static_cast<int64_t>(levels) * kWarp * (W + 1), 4);
  uint32_t* base = region + (block_words + warp_words * Policy::kWarpsPerBlock) * blockIdx.x;
  int32_t* list = reinterpret_cast<int32_t*>(base);
  uint32_t* rows = base + RoundUp(dim, 4);
  uint32_t* wst = base + block_words + warp_words * WarpInBlock();
  StackMem st{wst, wst + static_cast<int64_t>(levels) * kWarp * W};
  while (true) {
    if (threadIdx.x == 0) s_task = atomicAdd(work, 1);
    __syncthreads();
    const int t = s_task;
    if (t >= num) break;
    const int32_t e = tasks[t];
    const int32_t u = g.src[e], v = g.indices[e];
    if (WarpInBlock() == 0) {
      const int d = WarpIntersect(g.Row(u), g.Degree(u), g.Row(v), g.Degree(v), list);
      if (LaneId() == 0) s_d = d;
    }
    __syncthreads();
    const int d = s_d;
    const int Wd = WordsFor(d);
    BuildRows(g, list, d, Wd, rows, WarpInBlock(), Policy::kWarpsPerBlock);
    __syncthreads();
    RunEngine(rows, d, Wd, nullptr, d, 2, kmax, ws.q, st, cnt, WarpInBlock(),
              Policy::kWarpsPerBlock);
    __syncthreads();  // region and s_task reused by the next task
  }
  cnt.Flush();
}

// Sorted-list DFS (kBinarySearch, and every method for d > kMaxBitmapDim).
// Frame f holds the candidate list of a size-(2 + f) node; expanding element
// w intersects the later elements with N+(w).
__global__ void __launch_bounds__(kThreads)
    SortedListKernel(DagView g, TaskSpan span, int kmax, int dim, int* work, u64* out,
                     int32_t* arena_all) {
  const int32_t* tasks;
  const int num = span.Get(&tasks);
  extern __shared__ __align__(16) unsigned char smem[];
  const WarpSmemLayout lay = WarpSmemLayout::Make(kmax);
  Counts cnt;
  WarpSmem ws;
  CarveWarpSmem(smem, lay, out, &cnt, &ws);
  cnt.Zero();
  const ListLayout ll = ListLayout::Make(dim, kmax);
  int32_t* arena =
      arena_all +
      ll.words * (static_cast<int64_t>(blockIdx.x) * Policy::kWarpsPerBlock + WarpInBlock());
  int32_t* fidx = arena + static_cast<int64_t>(ll.F) * ll.D;
  int32_t* fn = fidx + ll.F;
  const int lane = LaneId();
  for (int t = PullTask(work); t < num; t = PullTask(work)) {
    const int32_t e = tasks[t];
    const int32_t u = g.src[e], v = g.indices[e];
    int n = WarpIntersect(g.Row(u), g.Degree(u), g.Row(v), g.Degree(v), arena);
    int f = 0, idx = 0;
    while (true) {
      if (idx + 1 >= n) {  // the last element has no later elements
        if (f == 0) break;
        --f;
        idx = fidx[f];
        n = fn[f];
        continue;
      }
      const int32_t* cur = arena + static_cast<int64_t>(f) * ll.D;
      const int32_t w = cur[idx];
      const bool push = f + 1 < ll.F;  // child frame f + 1 exists iff 2 + f + 3 <= kmax
      int32_t* child = push ? arena + static_cast<int64_t>(f + 1) * ll.D : nullptr;
      const int c = WarpIntersect(cur + idx + 1, n - idx - 1, g.Row(w), g.Degree(w), child);
      ++idx;
      if (lane == 0) cnt.AddLane(4 + f, static_cast<u64>(c));
      if (push && c >= 2) {
        if (lane == 0) {
          fidx[f] = idx;
          fn[f] = n;
        }
        __syncwarp();
        ++f;
        idx = 0;
        n = c;
      }
    }
    __syncwarp();
  }
  cnt.Flush();
}

}  // namespace
}  // namespace kcjax::cliques
