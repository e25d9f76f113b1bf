// Clique counting (count.cu): the heavy-task split (one warp builds a
// task's level-2 space; its level-3/4 units are pulled by all warps).
// Private to count.cu (one translation unit: included there, in order, so
// that every kernel's inlining is that of a single file).
#pragma once

#include "shallow.cuh"

namespace kcjax::cliques {
namespace {

// ---------------------------------------------------------------------------
// Heavy-task split (KCMiner, CliquePolicy::HeavySplit(kmax)).
//
// HeavyBuildKernel: one warp per heavy task builds C and its level-2 bitmap
// space into the task's global slot, with per-row popcount prefix sums
// (counts[4] += its edges), and writes the task's number of work units for a
// prefix sum. HeavyKernel: the units are the task's level-3 nodes (h, i)
// (kmax < kHeavyLevel4MinK: |C| units) or level-4 nodes (h, edge (i, j) of
// the space: #edges units), numbered by the prefix sum and pulled one at a
// time, heaviest tasks first. A unit runs the engine on the task's level-2
// rows under the mask of its candidates (row(i), or row(i) & row(j) with
// counts[5] += popcount): nothing is rebuilt or compacted per unit.
// ---------------------------------------------------------------------------

static_assert(Policy::kWarpTaskMax <= 32 * kWarp, "a medium row has at most one word per lane");

// First index in [0, n) with a[index] > x (n if none); a nondecreasing,
// warp-uniform arguments. A 32-ary search: ~log32(n) dependent loads.
template <typename T>
__device__ int WarpUpperBound(const T* a, int n, T x) {
  int lo = 0, hi = n;  // the answer lies in [lo, hi]
  while (lo < hi) {
    const int step = (hi - lo + kWarp - 1) / kWarp;
    const int idx = lo + LaneId() * step;
    const unsigned gt = __ballot_sync(kFull, idx < hi && a[idx] > x);
    if (gt == 0) {
      lo += min(kWarp - 1, (hi - 1 - lo) / step) * step + 1;  // past the last probe
    } else {
      const int f = __ffs(gt) - 1;
      hi = lo + f * step;
      if (f > 0) lo += (f - 1) * step + 1;
    }
  }
  return lo;
}

// A heavy task's slot (offsets in 32-bit words): [d, 3 unused][C: D]
// [rowpre: D + 1][rows: D * W], rowpre[i] = Σ popcount(rows < i).
struct HeavySlot {
  int64_t list, rowpre, rows, words;
  KCJAX_HD static HeavySlot Make(int D) {
    HeavySlot h;
    D = max(D, 1);
    h.list = 4;
    h.rowpre = h.list + RoundUp(D, 4);
    h.rows = h.rowpre + RoundUp(D + 1, 4);
    h.words = h.rows + RoundUp(static_cast<int64_t>(D) * WordsFor(D), 4);
    return h;
  }
};

// Per-warp arena of the heavy kernel (words): [mask: 32][root: D]
// [cur0: 32 * W][engine stack: levels * 32 * W][next bits: levels * 32]. A
// unit is a node of size s0 >= 3: the engine saves min(kmax - 6, D - 2) levels.
struct HeavyArena {
  int64_t mask, root, cur0, stack, nbs, words;
  KCJAX_HD static HeavyArena Make(int D, int kmax) {
    HeavyArena a;
    D = max(D, 1);
    const int W = WordsFor(D);
    const int levels = max(0, min(kmax - 6, D - 2));
    a.mask = 0;
    a.root = kWarp;
    a.cur0 = a.root + RoundUp(D, 4);
    a.stack = a.cur0 + static_cast<int64_t>(kWarp) * W;
    a.nbs = a.stack + static_cast<int64_t>(levels) * kWarp * W;
    a.words = RoundUp(a.nbs + static_cast<int64_t>(levels) * kWarp, 4);
    return a;
  }
};

__global__ void __launch_bounds__(kThreads)
    HeavyBuildKernel(DagView g, const int32_t* tasks, int nh, int dim, bool level4, uint32_t* slots,
                     int64_t* units, u64* out) {
  const HeavySlot hs = HeavySlot::Make(dim);
  const int lane = LaneId();
  const int64_t warps = static_cast<int64_t>(gridDim.x) * Policy::kWarpsPerBlock;
  u64 total = 0;
  for (int64_t h = static_cast<int64_t>(blockIdx.x) * Policy::kWarpsPerBlock + WarpInBlock();
       h < nh; h += warps) {
    uint32_t* slot = slots + h * hs.words;
    int32_t* list = reinterpret_cast<int32_t*>(slot + hs.list);
    int32_t* rowpre = reinterpret_cast<int32_t*>(slot + hs.rowpre);
    uint32_t* rows = slot + hs.rows;
    const int32_t e = tasks[h];
    const int32_t u = g.src[e], v = g.indices[e];
    const int d = WarpIntersect(g.Row(u), g.Degree(u), g.Row(v), g.Degree(v), list);
    const int W = WordsFor(d);
    const u64 edges = BuildRows(g, list, d, W, rows, 0, 1);
    int base = 0;
    for (int i0 = 0; i0 < d; i0 += kWarp) {  // warp-uniform
      const int i = i0 + lane;
      int c = 0;
      if (i < d)
        for (int w = 0; w < W; ++w) c += __popc(rows[static_cast<int64_t>(i) * W + w]);
      const int incl = WarpInclusiveScan(c);
      if (i < d) rowpre[i + 1] = base + incl;
      base += __shfl_sync(kFull, incl, kWarp - 1);
    }
    if (lane == 0) {
      slot[0] = static_cast<uint32_t>(d);
      rowpre[0] = 0;
      units[h] = level4 ? static_cast<int64_t>(edges) : d;
    }
    total += edges;
  }
  if (lane == 0 && total != 0) GlobalAdd128(out, 4, total);
}

__global__ void __launch_bounds__(kThreads)
    HeavyKernel(int nh, int dim, int kmax, bool level4, const uint32_t* slots,
                const int64_t* prefix, u64* work, u64* out, uint32_t* arena_global) {
  extern __shared__ __align__(16) unsigned char smem[];
  const WarpSmemLayout lay = WarpSmemLayout::Make(kmax);
  Counts cnt;
  WarpSmem ws;
  CarveWarpSmem<true>(smem, lay, out, &cnt, &ws);
  cnt.Zero();
  const HeavySlot hs = HeavySlot::Make(dim);
  const HeavyArena ha = HeavyArena::Make(dim, kmax);
  uint32_t* arena;
  if (arena_global == nullptr) {
    arena = reinterpret_cast<uint32_t*>(smem + lay.Bytes() * Policy::kWarpsPerBlock) +
            ha.words * WarpInBlock();
  } else {
    arena = arena_global +
            ha.words * (static_cast<int64_t>(blockIdx.x) * Policy::kWarpsPerBlock + WarpInBlock());
  }
  uint32_t* zmask = arena + ha.mask;
  int32_t* root = reinterpret_cast<int32_t*>(arena + ha.root);
  uint32_t* cur0 = arena + ha.cur0;
  const StackMem st{arena + ha.stack, arena + ha.nbs};
  const int lane = LaneId();
  const u64 total = nh > 0 ? static_cast<u64>(prefix[nh - 1]) : 0;
  while (true) {
    u64 x = 0;
    if (lane == 0) x = atomicAdd(work, 1ull);
    x = __shfl_sync(kFull, x, 0);
    if (x >= total) break;
    const int h = WarpUpperBound(prefix, nh, static_cast<int64_t>(x));
    const uint32_t* slot = slots + h * hs.words;
    const int d = static_cast<int>(slot[0]);
    const int W = WordsFor(d);
    const uint32_t* rows = slot + hs.rows;
    const int r = static_cast<int>(x - (h > 0 ? static_cast<u64>(prefix[h - 1]) : 0));
    const uint32_t* mask;
    int s0;
    if (!level4) {  // the size-3 node {u, v, C[r]}: candidates row(r)
      mask = rows + static_cast<int64_t>(r) * W;
      s0 = 3;
    } else {
      // Edge r is (i, j): row i holds it (rowpre[i] <= r < rowpre[i + 1]) and
      // j is the position of its s-th set bit (lane c holds word c).
      const int32_t* rowpre = reinterpret_cast<const int32_t*>(slot + hs.rowpre);
      const int i = WarpUpperBound(rowpre, d + 1, r) - 1;
      const int s = r - rowpre[i];
      const uint32_t word = lane < W ? rows[static_cast<int64_t>(i) * W + lane] : 0u;
      const int n = __popc(word);
      const int incl = WarpInclusiveScan(n);
      const int c = __ffs(__ballot_sync(kFull, incl > s)) - 1;
      uint32_t wc = __shfl_sync(kFull, word, c);
      for (int k = s - __shfl_sync(kFull, incl - n, c); k > 0; --k) wc &= wc - 1;
      const int j = kWarp * c + __ffs(wc) - 1;
      // The size-4 node {u, v, C[i], C[j]}: candidates row(i) & row(j).
      uint32_t zc = 0;
      if (lane < W) {
        zc = word & rows[static_cast<int64_t>(j) * W + lane];
        zmask[lane] = zc;
      }
      const int d4 = static_cast<int>(__reduce_add_sync(kFull, __popc(zc)));
      if (lane == 0) cnt.AddLane(5, static_cast<u64>(d4));
      __syncwarp();
      mask = zmask;
      s0 = 4;
    }
    const int nroot = ExtractBits(mask, W, root);
    if (nroot >= 2) RunEngine(rows, d, W, root, nroot, s0, kmax, ws.q, st, cnt, 0, 1, mask, cur0);
    __syncwarp();  // mask, root and cur0 are rewritten by the next unit
  }
  cnt.Flush();
}

}  // namespace
}  // namespace kcjax::cliques
