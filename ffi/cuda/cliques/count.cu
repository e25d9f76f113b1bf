// CUDA k-clique counting kernels (KCMiner) and their
// host launchers. The FFI handler lives in count_cuda.cc.
//
// Terminology used throughout:
//   task        a DAG edge e = (u, v); its candidate set C = N+(u) ∩ N+(v),
//               sorted, d = |C|. Level = number of fixed vertices (C: level 2).
//   node        a clique S (s = |S| vertices) with its candidate bitmap/list;
//               it contributes popcount(candidates) to counts[s + 1].
//   bitmap      row i of a bitmap space over a sorted list X (d = |X|) has bit
//               j set iff X[i] -> X[j]; rows are strictly upper triangular
//               (u -> v iff u < v), W = ceil(d / 32) words per row.
//   arena       per-warp scratch (global, or shared when small) holding
//               candidate lists, bitmap spaces and the scheduler stack.
// All counters are exact: per-warp uint64 in shared memory, spilled into the
// 128-bit output with a carry whenever they would wrap.
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_scan.cuh>

#include <algorithm>
#include <cstdint>
#include <mutex>
#include <vector>

#include "kcjax/cliques/count_cuda.h"
#include "kcjax/core/csr.h"
#include "kcjax/cuda/bitmap.cuh"
#include "kcjax/cuda/intersect.cuh"
#include "kcjax/cuda/limits.h"
#include "kcjax/cuda/streams.h"
#include "kcjax/cuda/warp.cuh"
#include "kcjax/cuda/wide.cuh"
#include "kcjax/cliques/policy.h"

namespace kcjax::cuda {
namespace {

using Policy = CliquePolicy;

constexpr uint32_t kNone = 0xffffffffu;  // "no bit": larger than any position
constexpr int kThreads = Policy::kWarpsPerBlock * kWarp;
static_assert(Policy::kSmallTaskMax <= 32, "small tasks use one 32-bit word per bitmap row");
static_assert(Policy::kSmallTaskMax <= Policy::kWarpTaskMax &&
                  Policy::kWarpTaskMax <= Policy::kMaxBitmapDim,
              "task-size classes must be nested");

enum Method : int {
  kKCMiner = 0,
  kBinarySearch = 1,
  kStaticBitmapL1 = 2,
  kStaticBitmapL2 = 3,
  kWarpBitmap = 4,
  kThreadBitmap = 5,
};


// ---------------------------------------------------------------------------
// Exact counters.
// ---------------------------------------------------------------------------

// Per-warp counters: slots[0..nslots) in shared memory, owned by one warp.
struct Counts {
  u64* slots;
  int nslots;
  u64* out;

  // One lane only (warp-private slots, no atomics). Exact: a wrapping slot
  // is first moved into the 128-bit output.
  __device__ __forceinline__ void AddLane(int size, u64 v) const {
    if (v == 0) return;
    if (size < nslots) {
      const u64 old = slots[size];
      u64 next = old + v;
      if (next < old) {
        GlobalAdd128(out, size, old);
        next = v;
      }
      slots[size] = next;
    } else {
      GlobalAdd128(out, size, v);
    }
  }
  // Warp-uniform `size`, per-lane value (< 2^27 per lane: bitmap popcounts).
  __device__ __forceinline__ void AddWarp(int size, uint32_t lane_value) const {
    const uint32_t s = __reduce_add_sync(kFull, lane_value);
    if (LaneId() == 0) AddLane(size, s);
  }
  // Divergent lanes (lane-private DFS): atomics on the shared slots; a wrap
  // carries 2^64 straight into the output's high word.
  __device__ __forceinline__ void AddAtomic(int size, u64 v) const {
    if (v == 0) return;
    if (size < nslots) {
      const u64 old = atomicAdd(&slots[size], v);
      if (old + v < old) atomicAdd(out + 2 * static_cast<int64_t>(size) + 1, 1ull);
    } else {
      GlobalAdd128(out, size, v);
    }
  }
  __device__ void Zero() const {
    for (int s = LaneId(); s < nslots; s += kWarp) slots[s] = 0;
    __syncwarp();
  }
  __device__ void Flush() const {
    __syncwarp();
    for (int s = LaneId(); s < nslots; s += kWarp) GlobalAdd128(out, s, slots[s]);
  }
};

// ---------------------------------------------------------------------------
// Sorted-list helpers (warp-cooperative).
// ---------------------------------------------------------------------------



// ---------------------------------------------------------------------------
// Bitmap construction.
// ---------------------------------------------------------------------------


// Builds rows i = i0, i0 + istep, ... < d of the bitmap space over the sorted
// list S (W words per row). Word c of row i is one ballot: lane l tests
// S[32c + l] ∈ N+(S[i]). Two rows (i, i + istep) are built together, their
// searches in lock step (Member2). Returns Σ popcount of the rows built (the
// induced edge count used for γ), warp-uniform.
__device__ u64 BuildRows(const DagView& g, const int32_t* S, int d, int W, uint32_t* rows, int i0,
                         int istep) {
  const int lane = LaneId();
  u64 edges = 0;
  for (int i = i0; i < d; i += 2 * istep) {
    const int i2 = i + istep;  // second row of the pair, if i2 < d
    const int32_t* adj1 = g.Row(S[i]);
    const int na1 = g.Degree(S[i]);
    const int32_t amax1 = na1 > 0 ? adj1[na1 - 1] : -1;
    const int32_t* adj2 = adj1;
    int na2 = 0;
    int32_t amax2 = -1;
    if (i2 < d) {
      adj2 = g.Row(S[i2]);
      na2 = g.Degree(S[i2]);
      amax2 = na2 > 0 ? adj2[na2 - 1] : -1;
    }
    uint32_t keep1 = 0, keep2 = 0;  // lane c % 32 keeps word c, stores once per 32 words
    for (int c = 0; c < W; ++c) {
      // Words entirely at or below the diagonal are zero (warp-uniform tests).
      const int32_t first = S[min(32 * c, d - 1)];
      const bool need1 = 32 * c + 31 > i && first <= amax1;
      const bool need2 = 32 * c + 31 > i2 && first <= amax2;
      const int j = 32 * c + lane;
      const int32_t x = j < d ? S[j] : 0;
      const bool t1 = need1 && j > i && j < d && x <= amax1;
      const bool t2 = need2 && j > i2 && j < d && x <= amax2;
      bool in1, in2;
      Member2(adj1, t1 ? na1 : 0, x, adj2, t2 ? na2 : 0, x, in1, in2);
      const uint32_t word1 = __ballot_sync(kFull, in1);
      const uint32_t word2 = __ballot_sync(kFull, in2);
      edges += __popc(word1) + __popc(word2);
      if (lane == (c & 31)) keep1 = word1, keep2 = word2;
      if ((c & 31) == 31 || c == W - 1) {
        const int cb = c & ~31;
        if (cb + lane <= c) {
          rows[static_cast<int64_t>(i) * W + cb + lane] = keep1;
          if (i2 < d) rows[static_cast<int64_t>(i2) * W + cb + lane] = keep2;
        }
      }
    }
  }
  __syncwarp();
  return edges;
}

// Pair q of the strict upper triangle of a d x d space in row-major order:
// (i, j), 0 <= i < j < d, for 0 <= q < d(d-1)/2 (d <= 4096).
__device__ __forceinline__ void PairAt(int d, int q, int& i, int& j) {
  const int n2 = 2 * d - 1;
  auto before = [n2](int r) { return r * (n2 - r) / 2; };  // pairs in rows < r
  i = static_cast<int>((n2 - sqrtf(static_cast<float>(n2 * n2 - 8 * q))) * 0.5f);
  i = max(0, min(i, d - 2));
  while (before(i + 1) <= q) ++i;  // float rounding: at most a step either way
  while (before(i) > q) --i;
  j = q - before(i) + i + 1;
}

// Single-word version (d <= 32). The d(d-1)/2 probes (i < j: S[j] ∈ N+(S[i]))
// are dealt over the lanes, 32 per round, instead of one ballot per row:
// ceil(d(d-1)/64) dependent binary searches per lane instead of d - 1 (a
// small task is bound by that latency chain, not by its few probes).
__device__ u64 BuildRows1(const DagView& g, const int32_t* S, int d, uint32_t* rows) {
  const int lane = LaneId();
  if (lane < d) rows[lane] = 0u;
  __syncwarp();
  const int pairs = d * (d - 1) / 2;
  u64 edges = 0;
  for (int q0 = 0; q0 < pairs; q0 += kWarp) {  // warp-uniform
    const int q = q0 + lane;
    bool in = false;
    int i = 0, j = 0;
    if (q < pairs) {
      PairAt(d, q, i, j);
      const int32_t w = S[i];
      in = Member(g.Row(w), g.Degree(w), S[j]);
    }
    if (in) atomicOr(rows + i, 1u << j);
    edges += __popc(__ballot_sync(kFull, in));
  }
  __syncwarp();
  return edges;
}

// Bitmap space over a subset of a parent space: child element a is parent
// position pos[a] (ascending); child row a bit b = parent row pos[a] bit
// pos[b]. Used to build at level 3 from the level-2 rows without touching the
// graph again. Returns Σ popcount (warp-uniform).
__device__ u64 CompactRows(const uint32_t* prow, int pW, const int32_t* pos, int d, int W,
                           uint32_t* rows) {
  const int lane = LaneId();
  u64 edges = 0;
  for (int a = 0; a < d; ++a) {
    const uint32_t* pr = prow + static_cast<int64_t>(pos[a]) * pW;
    uint32_t keep = 0;
    for (int c = 0; c < W; ++c) {
      uint32_t word = 0;
      if (32 * c + 31 > a) {
        const int b = 32 * c + lane;
        bool in = false;
        if (b > a && b < d) {
          const int pb = pos[b];
          in = (pr[pb >> 5] >> (pb & 31)) & 1u;
        }
        word = __ballot_sync(kFull, in);
      }
      edges += __popc(word);
      if (lane == (c & 31)) keep = word;
      if ((c & 31) == 31 || c == W - 1) {
        const int cb = c & ~31;
        if (cb + lane <= c) rows[static_cast<int64_t>(a) * W + cb + lane] = keep;
      }
    }
  }
  __syncwarp();
  return edges;
}

// Single-word CompactRows (d <= 32): rows1[a] bit b = parent row pos[a] has
// bit pos[b].
__device__ void CompactRows1(const uint32_t* prow, int pW, const int32_t* pos, int d,
                             uint32_t* rows1) {
  const int lane = LaneId();
  const int pb = lane < d ? pos[lane] : 0;
  for (int a = 0; a < d; ++a) {
    const uint32_t* pr = prow + static_cast<int64_t>(pos[a]) * pW;
    const bool in = lane > a && lane < d && ((pr[pb >> 5] >> (pb & 31)) & 1u);
    const uint32_t word = __ballot_sync(kFull, in);
    if (lane == 0) rows1[a] = word;
  }
  __syncwarp();
}

// ---------------------------------------------------------------------------
// Bit scanning.
// ---------------------------------------------------------------------------

// First set bit of bm[0, W) at position >= from, or kNone.
__device__ __forceinline__ uint32_t NextBit(const uint32_t* bm, int W, uint32_t from) {
  int w = static_cast<int>(from >> 5);
  if (w >= W) return kNone;
  uint32_t x = bm[w] & (~0u << (from & 31));
  while (true) {
    if (x) return 32u * w + __ffs(x) - 1;
    if (++w >= W) return kNone;
    x = bm[w];
  }
}

__device__ __forceinline__ uint32_t NextBit1(uint32_t x, uint32_t from) {
  if (from >= 32) return kNone;
  x >>= from;
  return x ? from + __ffs(x) - 1 : kNone;
}

// Warp-cooperative NextBit (uniform result).
__device__ uint32_t WarpNextBit(const uint32_t* bm, int W, uint32_t from) {
  const int lane = LaneId();
  const int w0 = static_cast<int>(from >> 5);
  for (int c0 = w0; c0 < W; c0 += kWarp) {
    const int c = c0 + lane;
    uint32_t x = c < W ? bm[c] : 0u;
    if (c == w0) x &= ~0u << (from & 31);
    const unsigned m = __ballot_sync(kFull, x != 0);
    if (m) {
      const int l = __ffs(m) - 1;
      const uint32_t xx = __shfl_sync(kFull, x, l);
      return 32u * (c0 + l) + __ffs(xx) - 1;
    }
  }
  return kNone;
}

// ---------------------------------------------------------------------------
// The inter-thread scheduler (KCMiner Algorithm 3).
//
// A warp explores a bitmap space level by level. At level `lvl` every lane
// owns one node (its cur bitmap: node size s0 + 1 + lvl); a task is a pair
// (lane, bit p) with bit p set in that lane's cur, and executing it yields the
// child bitmap cur[lane] & row(p) (size s0 + 2 + lvl, contributing its
// popcount to counts[s0 + 3 + lvl]).
//
// Gather ("fill" phase): a scan window visits bit positions p in increasing
// order, all lanes in lock step (the next p is the warp minimum of the lanes'
// next pending bits); lanes with bit p set get queue slots by
// __ballot_sync/__popc. When 32 tasks are queued they are launched (one per
// lane) and the children become the next level; at the end of the window the
// remaining < 32 tasks are flushed.
//
// Implementation note: instead of a 2x32 ring that carries the overflow of a
// window step into the next launch, a window step that does not fit is split:
// the tasks that fit are queued, the others stay pending, because each lane's
// progress is one register `nb` (next pending bit, kNone when done). Pending
// tasks therefore never need queue memory across a descent: the state saved
// per level is (cur bitmaps, nb per lane). The order of tasks (bit major, lane
// minor), the lock-step window and the 32-wide launches are those of
// Algorithm 3. Cur bitmaps are never modified: row(p) has no bits <= p, so a
// child only reads bits > p of its parent.
// ---------------------------------------------------------------------------

// Collects up to 32 tasks into q (entry = p << 5 | lane). `advance(p)`
// returns the lane's next pending bit after p. Returns the number queued.
template <typename Advance>
__device__ __forceinline__ int GatherTasks(uint32_t& nb, int32_t* q, Advance advance) {
  const int lane = LaneId();
  int filled = 0;
  while (filled < kWarp) {
    const uint32_t p = __reduce_min_sync(kFull, nb);
    if (p == kNone) break;
    const unsigned m = __ballot_sync(kFull, nb == p);
    const int take = min(__popc(m), kWarp - filled);
    const int rank = __popc(m & LaneMaskLt());
    if (nb == p && rank < take) {
      q[filled + rank] = static_cast<int32_t>((p << 5) | lane);
      nb = advance(p);
    }
    filled += take;
  }
  __syncwarp();
  return filled;
}

// Shared-memory pieces of one warp (see WarpSmemLayout).
struct WarpSmem {
  int32_t* q;        // [32] task queue
  uint32_t* rows1;   // [32] single-word bitmap space
  int32_t* list1;    // [32] small candidate list
  uint32_t* st1;     // [ls1 * 32] single-word stack: cur per lane per level
  uint32_t* nb1;     // [ls1 * 32] saved next-bit per lane per level
};

// Edges inside the single-word node x: Σ over bits q of x of
// popcount(x & rows[q]), by one lane (the fused last level of RunEngine1).
__device__ __forceinline__ uint32_t EdgesWithin1(uint32_t x, const uint32_t* rows) {
  uint32_t s = 0;
  for (uint32_t bits = x; bits; bits &= bits - 1) s += __popc(x & rows[__ffs(bits) - 1]);
  return s;
}

// Single-word engine (d <= 32): rows in shared memory, the current level's
// cur bitmap in a register per lane, deeper levels spilled to the shared
// stack only on descent. Counts every clique extending a size-s0 node with
// candidates {0..d-1} by at least 2 vertices (counts[s0 + 1] += d is the
// caller's). The last expanded level below level 0 is fused as in RunEngine:
// a lane counts the edges inside its child (EdgesWithin1) instead of
// scheduling its tasks. Level 0 itself (L = 1, k = 5) keeps its gathered
// tasks: counting there per lane leaves lane 0 with up to 31 rows (slower;
// docs/tuning.md).
__device__ void RunEngine1(const uint32_t* rows, int d, int s0, int kmax, const WarpSmem& ws,
                           const Counts& cnt) {
  const int lane = LaneId();
  // Level-0 pre-assignment: lane i takes candidate i (queue padded to 32).
  uint32_t my = lane < d ? rows[lane] : 0u;
  cnt.AddWarp(s0 + 2, __popc(my));
  // Levels whose nodes are expanded: node size s0 + 1 + lvl < kmax - 1;
  // nonempty level-lvl nodes need lvl + 2 < d + 1.
  const int L = min(kmax - s0 - 2, d - 1);
  if (L <= 0 || !__ballot_sync(kFull, my != 0)) return;
  uint32_t nb = my ? __ffs(my) - 1 : kNone;
  int lvl = 0;
  while (true) {
    const int filled = GatherTasks(nb, ws.q, [&](uint32_t p) { return NextBit1(my, p + 1); });
    if (filled == 0) {
      if (lvl == 0) return;
      --lvl;
      my = ws.st1[lvl * kWarp + lane];
      nb = ws.nb1[lvl * kWarp + lane];
      continue;
    }
    const int32_t t = lane < filled ? ws.q[lane] : -1;
    __syncwarp();  // q is rewritten by the next gather
    const uint32_t parent = __shfl_sync(kFull, my, t & 31);
    const uint32_t child = t >= 0 ? parent & rows[static_cast<uint32_t>(t) >> 5] : 0u;
    cnt.AddWarp(s0 + 3 + lvl, __popc(child));
    if (lvl + 2 == L) {
      cnt.AddWarp(s0 + 4 + lvl, EdgesWithin1(child, rows));
    } else if (lvl + 1 < L && __ballot_sync(kFull, child != 0)) {
      ws.st1[lvl * kWarp + lane] = my;
      ws.nb1[lvl * kWarp + lane] = nb;
      ++lvl;
      my = child;
      nb = child ? __ffs(child) - 1 : kNone;
    }
  }
}

constexpr int kFuse = Policy::kFuseLastMaxWords;

// Words [w, kW) of the row at p into y[w, kW) (the others: zero, or loaded
// anyway by one vector load for kW = 2 and 4, which need p 8- and 16-byte
// aligned: rows, stacks and cur0 start at 16-byte boundaries of their arena
// or slot and have kW words each).
template <int kW>
__device__ __forceinline__ void LoadRowFrom(const uint32_t* p, int w, uint32_t (&y)[kW]) {
  if constexpr (kW == 4) {
    const uint4 v = *reinterpret_cast<const uint4*>(p);
    y[0] = v.x, y[1] = v.y, y[2] = v.z, y[3] = v.w;
  } else if constexpr (kW == 2) {
    const uint2 v = *reinterpret_cast<const uint2*>(p);
    y[0] = v.x, y[1] = v.y;
  } else {
#pragma unroll
    for (int v = 0; v < kW; ++v) y[v] = v >= w ? p[v] : 0u;
  }
}

// The fused last expanded level of RunEngine, for rows of exactly kW words:
// one lane forms its child x = a & r (words below w0 zero) in registers,
// adds popcount(x) to c and returns the edges inside x, i.e. Σ over bits q
// of x of popcount(x & row(q)), its children's popcounts, which are never
// scheduled. kW is a compile-time constant so that only the row's own words
// are loaded and addressed (with a runtime W every word up to kFuse was
// compiled as a predicated instruction, and those issue even when off), and
// rows of 2 or 4 words take one vector load. The row pointer is kept in a
// register by RunEngine: a bit costs about 12-20 instructions.
template <int kW>
__device__ __forceinline__ uint32_t FusedChild(const uint32_t* a, const uint32_t* r,
                                               const uint32_t* rows, int w0, uint32_t& c) {
  uint32_t x[kW], y[kW];
  LoadRowFrom<kW>(a, 0, x);
  LoadRowFrom<kW>(r, 0, y);
#pragma unroll
  for (int w = 0; w < kW; ++w) {
    x[w] = w >= w0 ? x[w] & y[w] : 0u;
    c += __popc(x[w]);
  }
  uint32_t s = 0;
#pragma unroll
  for (int w = 0; w < kW; ++w) {
    uint32_t bits = x[w];
    while (bits) {
      // The sum does not depend on the order of the bits: take the highest
      // (one FLO, where the lowest costs a bit reversal too).
      const int q = 31 - __clz(bits);
      bits ^= 1u << q;
      // d <= 32 * kW rows of kW words: the offset fits 32 bits.
      LoadRowFrom<kW>(reinterpret_cast<const uint32_t*>(reinterpret_cast<const char*>(rows) +
                                                        static_cast<uint32_t>((32 * w + q) * kW * 4)),
                      w, y);
      uint32_t t = 0;
#pragma unroll
      for (int v = w; v < kW; ++v) t += __popc(x[v] & y[v]);  // row(q) has no bits <= q
      s += t;
    }
  }
  return s;
}

// FusedChild for any W <= kFuse at run time: every word up to kFuse is
// compiled, predicated on w < W.
__device__ __forceinline__ uint32_t FusedChildAnyW(int W, const uint32_t* a, const uint32_t* r,
                                                   const uint32_t* rows, int w0, uint32_t& c) {
  uint32_t x[kFuse];
#pragma unroll
  for (int w = 0; w < kFuse; ++w) {
    x[w] = w >= w0 && w < W ? a[w] & r[w] : 0u;
    c += __popc(x[w]);
  }
  uint32_t s = 0;
#pragma unroll
  for (int w = 0; w < kFuse; ++w) {
    uint32_t bits = x[w];  // zero at w >= W
    while (bits) {
      const uint32_t* rq = rows + static_cast<int64_t>(32 * w + __ffs(bits) - 1) * W;
      bits &= bits - 1;
      uint32_t t = __popc(x[w] & rq[w]);  // row(q) has no bits <= q
#pragma unroll
      for (int v = w + 1; v < kFuse; ++v)
        if (v < W) t += __popc(x[v] & rq[v]);
      s += t;
    }
  }
  return s;
}

// The fused level for a warp-uniform W <= kFuse: FusedChild<W> up to
// Policy::kFuseExactMaxWords, FusedChildAnyW above.
template <int kW = 1>
__device__ __forceinline__ uint32_t FusedChildOf(int W, const uint32_t* a, const uint32_t* r,
                                                 const uint32_t* rows, int w0, uint32_t& c) {
  if constexpr (kW <= Policy::kFuseExactMaxWords) {
    if (W == kW) return FusedChild<kW>(a, r, rows, w0, c);
    return FusedChildOf<kW + 1>(W, a, r, rows, w0, c);
  } else {
    return FusedChildAnyW(W, a, r, rows, w0, c);
  }
}

// Multi-word engine state in the arena.
struct StackMem {
  uint32_t* cur;  // [levels][32][W]: cur of level lvl >= 1 at ((lvl-1)*32 + lane)*W
  uint32_t* nb;   // [levels][32]: saved next-bit of level lvl at lvl*32 + lane
};

// Multi-word engine over rows[d][W]. Level-0 tasks are the root candidates
// (positions root[k], k < nroot; root == nullptr: k itself), distributed in
// batches of 32 (batch b0, b0 + bstride, ...) -- several warps of a block can
// share one bitmap space. Level-0 cur bitmaps are the rows themselves (no
// copy), or with a `mask` (the candidates of the size-s0 node inside a space
// built for an ancestor) row & mask, kept in cur0[32][W]; deeper levels live
// in `st`. With W <= kFuseLastMaxWords the last expanded level is fused
// into the one above it: a lane keeps its child in registers and counts the
// edges inside it (FusedChild), so that level is neither stored nor
// gathered. kW > 0: compiled for rows of exactly kW words
// (RunEngine picks it, see Policy::kEngineExactMaxWords); 0: W = w_any.
template <int kW>
__device__ void RunEngineW(const uint32_t* rows, int d, int w_any, const int32_t* root, int nroot,
                           int s0, int kmax, int32_t* q, StackMem st, const Counts& cnt, int b0,
                           int bstride, const uint32_t* mask, uint32_t* cur0) {
  const int W = kW > 0 ? kW : w_any;
  rows = KeepInRegister(rows);  // FusedChild addresses rows per bit
  const int lane = LaneId();
  const int L = min(kmax - s0 - 2, d - 1);
  for (int base = b0 * kWarp; base < nroot; base += bstride * kWarp) {
    const int k = base + lane;
    const int row0 = k < nroot ? (root ? root[k] : k) : -1;
    const uint32_t* r0 = rows + static_cast<int64_t>(max(row0, 0)) * W;
    uint32_t c = 0;
    if (mask != nullptr) {
      __syncwarp();  // the previous batch's cur0 has been read by every lane
      uint32_t* m0 = cur0 + lane * W;
      for (int w = 0; w < W; ++w) {
        const uint32_t x = row0 >= 0 ? r0[w] & mask[w] : 0u;
        m0[w] = x;
        c += __popc(x);
      }
      r0 = m0;
      __syncwarp();  // other lanes read this cur0 as a parent
    } else if (row0 >= 0) {
      for (int w = (row0 + 1) >> 5; w < W; ++w) c += __popc(r0[w]);
    }
    cnt.AddWarp(s0 + 2, c);
    if (L <= 0 || !__ballot_sync(kFull, c != 0)) continue;
    uint32_t nb = c ? NextBit(r0, W, row0 + 1) : kNone;
    int lvl = 0;
    while (true) {
      const uint32_t* mine =
          lvl == 0 ? r0 : st.cur + (static_cast<int64_t>(lvl - 1) * kWarp + lane) * W;
      const int filled = GatherTasks(nb, q, [&](uint32_t p) { return NextBit(mine, W, p + 1); });
      if (filled == 0) {
        if (lvl == 0) break;
        --lvl;
        nb = st.nb[lvl * kWarp + lane];
        continue;
      }
      const int32_t t = lane < filled ? q[lane] : -1;
      __syncwarp();
      const int srcl = t & 31;
      const uint32_t p = static_cast<uint32_t>(t) >> 5;
      const int srow0 = __shfl_sync(kFull, row0, srcl);
      const bool fuse = lvl + 2 == L && W <= kFuse;
      const bool store = lvl + 1 < L && !fuse;
      c = 0;
      uint32_t c2 = 0;  // fused: the children's popcounts
      if (t >= 0) {
        const uint32_t* a =
            lvl > 0          ? st.cur + (static_cast<int64_t>(lvl - 1) * kWarp + srcl) * W
            : mask != nullptr ? cur0 + srcl * W
                              : rows + static_cast<int64_t>(srow0) * W;
        const uint32_t* r = rows + static_cast<int64_t>(p) * W;
        const int w0 = static_cast<int>(p >> 5);  // row(p) is zero below word p/32
        if (fuse) {
          c2 = FusedChildOf(W, a, r, rows, w0, c);
        } else if (store) {
          uint32_t* out = st.cur + (static_cast<int64_t>(lvl) * kWarp + lane) * W;
          for (int w = 0; w < w0; ++w) out[w] = 0u;
          for (int w = w0; w < W; ++w) {
            const uint32_t x = a[w] & r[w];
            out[w] = x;
            c += __popc(x);
          }
        } else {
          for (int w = w0; w < W; ++w) c += __popc(a[w] & r[w]);
        }
      }
      cnt.AddWarp(s0 + 3 + lvl, c);
      if (fuse) cnt.AddWarp(s0 + 4 + lvl, c2);
      if (store && __ballot_sync(kFull, c != 0)) {
        st.nb[lvl * kWarp + lane] = nb;
        ++lvl;
        nb = c ? NextBit(st.cur + (static_cast<int64_t>(lvl - 1) * kWarp + lane) * W, W, p + 1)
               : kNone;
        __syncwarp();  // children written above are read by other lanes next
      }
    }
  }
}

// RunEngineW<W> for W in [kW, Policy::kEngineExactMaxWords], else with W
// at run time (RunEngineW<0>); W is warp-uniform.
template <int kW = 2>
__device__ __forceinline__ void RunEngineOf(const uint32_t* rows, int d, int W,
                                            const int32_t* root, int nroot, int s0, int kmax,
                                            int32_t* q, StackMem st, const Counts& cnt, int b0,
                                            int bstride, const uint32_t* mask, uint32_t* cur0) {
  if constexpr (kW <= Policy::kEngineExactMaxWords) {
    if (W == kW) {
      return RunEngineW<kW>(rows, d, W, root, nroot, s0, kmax, q, st, cnt, b0, bstride, mask,
                            cur0);
    }
    return RunEngineOf<kW + 1>(rows, d, W, root, nroot, s0, kmax, q, st, cnt, b0, bstride, mask,
                               cur0);
  } else {
    return RunEngineW<0>(rows, d, W, root, nroot, s0, kmax, q, st, cnt, b0, bstride, mask, cur0);
  }
}

// The multi-word engine (RunEngineW) for a warp-uniform row width W.
__device__ void RunEngine(const uint32_t* rows, int d, int W, const int32_t* root, int nroot,
                          int s0, int kmax, int32_t* q, StackMem st, const Counts& cnt, int b0,
                          int bstride, const uint32_t* mask = nullptr, uint32_t* cur0 = nullptr) {
  RunEngineOf(rows, d, W, root, nroot, s0, kmax, q, st, cnt, b0, bstride, mask, cur0);
}

// kWarpBitmap (GraphFold-like): the whole warp walks one node's bits in order
// and splits every AND over its lanes (word-parallel). Stack: cur of level lvl
// >= 1 at cur + (lvl-1)*W, resume position at pos[lvl].
__device__ void RunWarpSerial(const uint32_t* rows, int d, int W, int s0, int kmax,
                              uint32_t* stcur, uint32_t* stpos, const Counts& cnt) {
  const int lane = LaneId();
  const int L = min(kmax - s0 - 2, d - 1);
  for (int i = 0; i < d; ++i) {
    const uint32_t* ri = rows + static_cast<int64_t>(i) * W;
    uint32_t c = 0;
    for (int w = lane; w < W; w += kWarp) c += __popc(ri[w]);
    const uint32_t total = __reduce_add_sync(kFull, c);
    if (lane == 0) cnt.AddLane(s0 + 2, total);
    if (L <= 0 || total == 0) continue;
    int lvl = 0;
    uint32_t p = i + 1;
    while (true) {
      const uint32_t* cur = lvl == 0 ? ri : stcur + static_cast<int64_t>(lvl - 1) * W;
      const uint32_t b = WarpNextBit(cur, W, p);
      if (b == kNone) {
        if (lvl == 0) break;
        --lvl;
        p = stpos[lvl];
        __syncwarp();  // every lane's reads of the popped slot precede its rewrite
        continue;
      }
      p = b + 1;
      const uint32_t* r = rows + static_cast<int64_t>(b) * W;
      const bool store = lvl + 1 < L;
      uint32_t* out = stcur + static_cast<int64_t>(lvl) * W;
      c = 0;
      for (int w = lane; w < W; w += kWarp) {
        const uint32_t x = cur[w] & r[w];
        if (store) out[w] = x;
        c += __popc(x);
      }
      const uint32_t sum = __reduce_add_sync(kFull, c);
      if (lane == 0) cnt.AddLane(s0 + 3 + lvl, sum);
      __syncwarp();
      if (store && sum != 0) {
        if (lane == 0) stpos[lvl] = p;
        ++lvl;
        __syncwarp();
      }
    }
  }
}

// kThreadBitmap (KCGPU-like): lane i takes candidate i and runs its own DFS
// (no scheduler: lanes diverge). Uses the engine's stack layout.
__device__ void RunThreadDfs(const uint32_t* rows, int d, int W, int s0, int kmax, StackMem st,
                             const Counts& cnt) {
  const int lane = LaneId();
  const int L = min(kmax - s0 - 2, d - 1);
  for (int base = 0; base < d; base += kWarp) {
    const int i = base + lane;
    if (i < d) {
      const uint32_t* ri = rows + static_cast<int64_t>(i) * W;
      uint32_t c = 0;
      for (int w = 0; w < W; ++w) c += __popc(ri[w]);
      cnt.AddAtomic(s0 + 2, c);
      if (L > 0 && c != 0) {
        int lvl = 0;
        uint32_t nb = NextBit(ri, W, i + 1);
        while (true) {
          if (nb == kNone) {
            if (lvl == 0) break;
            --lvl;
            nb = st.nb[lvl * kWarp + lane];
            continue;
          }
          const uint32_t* cur =
              lvl == 0 ? ri : st.cur + (static_cast<int64_t>(lvl - 1) * kWarp + lane) * W;
          const uint32_t p = nb;
          nb = NextBit(cur, W, p + 1);
          const uint32_t* r = rows + static_cast<int64_t>(p) * W;
          const bool store = lvl + 1 < L;
          uint32_t* out = st.cur + (static_cast<int64_t>(lvl) * kWarp + lane) * W;
          c = 0;
          for (int w = 0; w < W; ++w) {
            const uint32_t x = cur[w] & r[w];
            if (store) out[w] = x;
            c += __popc(x);
          }
          cnt.AddAtomic(s0 + 3 + lvl, c);
          if (store && c != 0) {
            st.nb[lvl * kWarp + lane] = nb;
            ++lvl;
            nb = NextBit(out, W, p + 1);
          }
        }
      }
    }
  }
  __syncwarp();
}

// ---------------------------------------------------------------------------
// Shared / arena layouts (host and device agree on these).
// ---------------------------------------------------------------------------

// Per-warp shared memory: [counters u64 x nslots][q 32][rows1 32][list1 32]
// [st1 ls1*32][nb1 ls1*32], a multiple of 16 bytes.
struct WarpSmemLayout {
  int nslots;
  int ls1;
  KCJAX_HD static WarpSmemLayout Make(int kmax) {
    WarpSmemLayout l;
    l.nslots = min(kmax, Policy::kMaxCountSlots - 1) + 1;
    // Single-word engine: saved levels <= min(kmax - 5, d - 2) with d <= 32.
    l.ls1 = max(0, min(kmax - 5, 30));
    return l;
  }
  KCJAX_HD int64_t Bytes() const {
    return RoundUp(8LL * nslots + 4LL * (3 * kWarp + 2LL * ls1 * kWarp), 16);
  }
};

// kKeep: the warp's offsets go through KeepInRegister. The heavy kernel needs
// it: without it, ptxas rebuilt q's address from kmax and threadIdx at every
// step of the scheduler; the other kernels keep it unasked.
template <bool kKeep = false>
__device__ void CarveWarpSmem(unsigned char* base, const WarpSmemLayout& l, u64* out,
                              Counts* cnt, WarpSmem* ws) {
  unsigned char* p = base + l.Bytes() * WarpInBlock();
  unsigned char* pq = p + 8LL * l.nslots;
  if (kKeep) {
    p = base + KeepInRegister(static_cast<uint32_t>(p - base));
    pq = base + KeepInRegister(static_cast<uint32_t>(pq - base));
  }
  cnt->slots = reinterpret_cast<u64*>(p);
  cnt->nslots = l.nslots;
  cnt->out = out;
  int32_t* w = reinterpret_cast<int32_t*>(pq);
  ws->q = w;
  ws->rows1 = reinterpret_cast<uint32_t*>(w + kWarp);
  ws->list1 = w + 2 * kWarp;
  ws->st1 = reinterpret_cast<uint32_t*>(w + 3 * kWarp);
  ws->nb1 = ws->st1 + l.ls1 * kWarp;
}

// Per-warp arena of the warp kernel (offsets in 32-bit words).
struct ArenaLayout {
  int D, W, levels;
  int64_t list, rows, pos, rows3, stack, nbs, words;
  KCJAX_HD static ArenaLayout Make(int D, int kmax, bool with_rows3) {
    ArenaLayout a;
    a.D = max(D, 1);
    a.W = WordsFor(a.D);
    // Saved levels of the multi-word engine (s0 = 2): L - 1 = min(kmax-5, d-2).
    a.levels = max(0, min(kmax - 5, a.D - 2));
    a.list = 0;
    a.rows = RoundUp(a.D, 4);
    a.pos = a.rows + RoundUp(static_cast<int64_t>(a.D) * a.W, 4);
    a.rows3 = a.pos + RoundUp(a.D, 4);
    a.stack = a.rows3 + (with_rows3 ? RoundUp(static_cast<int64_t>(a.D) * a.W, 4) : 0);
    a.nbs = a.stack + static_cast<int64_t>(a.levels) * kWarp * a.W;
    a.words = RoundUp(a.nbs + static_cast<int64_t>(a.levels) * kWarp, 4);
    return a;
  }
};

// Whether the warp kernel's tasks may take KCMiner's level-3 construction
// (γ <= λ(kmax, 2)), which needs the arena's rows3: only KCMiner tasks not
// split into level-3 units, kmax >= 5, and λ(kmax, 2) > 0 (with λ = 0 only a
// space without edges has γ <= λ, and it holds nothing past size 3). Shared
// by PlanSolve (arena size) and WarpKernel (branch), so that KCMiner's arena
// is no larger than static_l2's wherever the branch cannot be taken.
KCJAX_HD inline bool UsesLevel3(int method, int kmax, float lam, bool split3) {
  const float lambda2 = lam >= 0.f ? lam : Policy::Lambda(kmax, 2);
  return method == kKCMiner && !split3 && kmax >= 5 && lambda2 > 0.f;
}

// List-DFS arena: frames[F][D] + frame state (idx, n) x F.
struct ListLayout {
  int D, F;
  int64_t words;
  KCJAX_HD static ListLayout Make(int D, int kmax) {
    ListLayout l;
    l.D = max(D, 1);
    l.F = max(1, min(kmax - 3, l.D - 1));
    l.words = RoundUp(static_cast<int64_t>(l.F) * l.D + 2LL * l.F, 4);
    return l;
  }
};

// ---------------------------------------------------------------------------
// Kernels.
// ---------------------------------------------------------------------------

__device__ __forceinline__ bool ValidTask(const DagView& g, int32_t e) {
  return e >= 0 && e < g.num_edges;
}

// Edge id of input task t: tasks[t], or t itself for a whole-graph count
// (tasks == nullptr: no task-id array).
__device__ __forceinline__ int32_t TaskAt(const int32_t* tasks, int64_t t) {
  return tasks != nullptr ? tasks[t] : static_cast<int32_t>(t);
}

// prefix[i] = keys[i] (int64), scanned in place afterwards.
__global__ void WidenKeysKernel(const uint32_t* keys, int n, int64_t* prefix) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    prefix[i] = keys[i];
}

// Class boundaries of the descending keys.
// One warp per class boundary (block of kClassWarps warps): a 32-ary search
// over the descending keys, so each boundary costs ~log32(n) dependent loads.
constexpr int kClassWarps = Policy::kClassWarps;
static_assert(Policy::kSmallTaskMax <= Policy::kHeavySplitMinDim &&
                  Policy::kHeavySplitMinDim <= Policy::kWarpTaskMax &&
                  Policy::kSmallTaskMax <= Policy::kHeavySplitDeepMinDim &&
                  Policy::kHeavySplitDeepMinDim <= Policy::kWarpTaskMax,
              "heavy tasks are medium tasks");
__global__ void ClassesKernel(const uint32_t* keys, int64_t n, uint32_t heavy_min_dim,
                              TaskClasses* classes) {
  const int lane = LaneId();
  const int warp = static_cast<int>(threadIdx.x) / kWarp;
  const uint32_t bound = warp == 0   ? Policy::kMaxBitmapDim
                         : warp == 1 ? Policy::kWarpTaskMax
                         : warp == 2 ? Policy::kSmallTaskMax - 1
                         : warp == 3 ? 0u
                                     : heavy_min_dim - 1;
  // First index whose key <= bound (n if none). Invariant: it lies in [lo, hi].
  int64_t lo = 0, hi = n;
  while (lo < hi) {
    const int64_t step = (hi - lo + kWarp - 1) / kWarp;
    const int64_t idx = lo + lane * step;
    const unsigned le = __ballot_sync(kFull, idx < hi && keys[idx] <= bound);
    if (le == 0) {
      const int64_t probes = (hi - 1 - lo) / step;  // index of the last probe below hi
      lo += (probes < kWarp - 1 ? probes : kWarp - 1) * step + 1;
    } else {
      const int first = __ffs(le) - 1;
      hi = lo + first * step;
      if (first > 0) lo += (first - 1) * step + 1;
    }
  }
  if (lane == 0) {
    const int32_t at = static_cast<int32_t>(lo);
    if (warp == 0) classes->huge_end = at;
    if (warp == 1) classes->large_end = at;
    if (warp == 2) classes->medium_end = at;
    if (warp == 3) {
      classes->small_end = at;
      classes->max_key = n > 0 ? static_cast<int32_t>(keys[0]) : 0;
      classes->pad = 0;  // key_overflow is the pre-pass's
    }
    if (warp == 4) classes->heavy_end = at;
  }
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
__global__ void __launch_bounds__(kThreads) SmallKernel(DagView g, TaskSpan span, int kmax,
                                                        int* work, u64* out) {
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
__global__ void __launch_bounds__(kThreads) WarpKernel(DagView g, TaskSpan span, int kmax,
                                                       int method, float lam, int dim, int* work,
                                                       u64* out, uint32_t* arena_global,
                                                       const int64_t* split_prefix,
                                                       u64* split_work) {
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
        if (static_cast<u64>(split_prefix[mid]) > x) hi = mid;
        else lo = mid + 1;
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
__global__ void __launch_bounds__(kThreads) BlockKernel(DagView g, TaskSpan span, int kmax,
                                                        int dim, int* work, u64* out,
                                                        uint32_t* region) {
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
__global__ void __launch_bounds__(kThreads) ListKernel(DagView g, TaskSpan span, int kmax,
                                                       int dim, int* work, u64* out,
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
      arena_all + ll.words * (static_cast<int64_t>(blockIdx.x) * Policy::kWarpsPerBlock +
                              WarpInBlock());
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

// ---------------------------------------------------------------------------
// Direct shallow path (kmax == 3, and kmax == 4 for kKCMiner/kBinarySearch):
// one persistent kernel, no sort, no host synchronization, list-based.
//
// For a task e = (u, v) with C = N+(u) ∩ N+(v):
//   counts[3] += |C|
//   counts[4] += Σ_{w ∈ C} |N+(w) ∩ C|   (edges of the subgraph induced by C;
//                every x ∈ N+(w) is > w, so each 4-clique {u, v, w, x} with
//                w < x is counted exactly once, at w).
// Since v is N+(u)[e - indptr[u]] and N+(v) only holds vertices > v, C is the
// intersection of N+(v) with the suffix indices[e + 1, indptr[u + 1]).
//
// A warp pulls 32 consecutive tasks (one per lane for the metadata loads) and
// flattens all of their work over its lanes: the elements of the shorter
// lists to probe, then the candidates w, then the adjacency entries x. Tiny
// tasks (the bulk of sparse graphs) therefore do not leave lanes idle, and
// neighbouring lanes read neighbouring addresses. C lives in a per-warp
// shared buffer; a task whose shorter list exceeds it runs alone, chunked.
// ---------------------------------------------------------------------------

constexpr int kShallowBuf = Policy::kShallowWarpBuf;
static_assert(kShallowBuf >= kWarp && kShallowBuf % kWarp == 0,
              "the shallow buffer holds whole 32-element probe steps");

// Per-lane task of the shallow path: C = indices[a, a + na) ∩ indices[b, b + nb)
// with na <= nb; na == 0 means nothing to do (invalid or empty task).
struct ShallowTask {
  int a, na, b, nb;
  int32_t bmax;  // indices[b + nb - 1] (valid when na > 0)
};

__device__ __forceinline__ ShallowTask LoadShallowTask(const DagView& g, const int32_t* tasks,
                                                       int64_t t, int64_t num) {
  ShallowTask s{0, 0, 0, 0, 0};
  const int32_t e = t < num ? TaskAt(tasks, t) : -1;
  if (!ValidTask(g, e)) return s;
  const int32_t u = g.src[e], v = g.indices[e];
  int a = e + 1, na = g.indptr[u + 1] - a;  // N+(u) restricted to > v
  int b = g.indptr[v], nb = g.indptr[v + 1] - b;
  if (na > nb) {
    const int ta = a, tn = na;
    a = b, na = nb, b = ta, nb = tn;
  }
  if (na <= 0) return s;
  s.a = a, s.na = na, s.b = b, s.nb = nb;
  s.bmax = g.indices[b + nb - 1];
  return s;
}



// For every lane-held candidate w (has): acc += |{x ∈ N+(w) : x ∈ C}|, where
// either (!global) the part of C above w is cbuf[lo, hi) (sorted, lo < hi),
// or (global) C = indices[a, a + na) ∩ indices[b, b + nb) with warp-uniform
// lists. The adjacency entries of all lanes' w are flattened over the lanes.
__device__ void CountAdjacent(const DagView& g, bool has, int32_t w, int lo, int hi, bool global,
                              const ShallowTask& gt, const int32_t* cbuf, u64& acc) {
  const int lane = LaneId();
  int start = 0;
  int64_t deg = 0;
  int32_t cmax = 0;
  if (has) {
    start = g.indptr[w];
    deg = g.indptr[w + 1] - start;
    if (!global) cmax = cbuf[hi - 1];
  }
  const int64_t incl = WarpInclusiveScan(deg);  // int64: 32 degrees may exceed 2^31
  const int64_t total = __shfl_sync(kFull, incl, kWarp - 1);
  for (int64_t q0 = 0; q0 < total; q0 += kWarp) {  // warp-uniform
    const int64_t q = q0 + lane;
    const int l = OwnerLane(incl, q);
    const int64_t first = __shfl_sync(kFull, incl, l) - __shfl_sync(kFull, deg, l);
    const int ls = __shfl_sync(kFull, start, l);
    const int llo = __shfl_sync(kFull, lo, l), lhi = __shfl_sync(kFull, hi, l);
    const int32_t lmax = __shfl_sync(kFull, cmax, l);
    if (q < total) {
      const int32_t x = g.indices[ls + (q - first)];
      bool in;
      if (global) {
        in = x <= gt.bmax && Member(g.indices + gt.a, gt.na, x) &&
             Member(g.indices + gt.b, gt.nb, x);
      } else {
        in = x <= lmax && Member(cbuf + llo, lhi - llo, x);
      }
      acc += in ? 1u : 0u;
    }
  }
}

// KCMiner's k = 4 on candidate lists in the shallow buffer: counts[4] of a
// task is the number of edges of its bitmap space (popcount of the last
// level), so its bits are tested and counted without storing the space. The
// pairs (i < j) of all selected tasks (lane-held d, cbuf offset off; d = 0
// for lanes without one) are flattened over the lanes, two per lane and
// round with their searches in lock step: bit (i, j) is C[j] ∈ N+(C[i]).
// Σ pairs < kShallowBuf^2 / 2 fits an int.
__device__ void CountPairs(const DagView& g, int d, int off, const int32_t* cbuf, u64& acc) {
  const int lane = LaneId();
  const int pairs = d * (d - 1) / 2;
  const int incl = WarpInclusiveScan(pairs);
  const int total = __shfl_sync(kFull, incl, kWarp - 1);
  for (int q0 = 0; q0 < total; q0 += 2 * kWarp) {  // warp-uniform
    int32_t w[2] = {0, 0}, x[2] = {0, 0};
    int n[2] = {0, 0};
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      const int q = q0 + h * kWarp + lane;
      const int t = OwnerLane(incl, q);
      const int tp = __shfl_sync(kFull, pairs, t);
      const int tfirst = __shfl_sync(kFull, incl, t) - tp;
      const int td = __shfl_sync(kFull, d, t), toff = __shfl_sync(kFull, off, t);
      if (q < total) {
        int i, j;
        PairAt(td, q - tfirst, i, j);
        w[h] = cbuf[toff + i], x[h] = cbuf[toff + j];
        n[h] = 1;
      }
    }
    const int32_t* a0 = g.Row(w[0]);
    const int32_t* a1 = g.Row(w[1]);
    const int n0 = n[0] ? g.Degree(w[0]) : 0, n1 = n[1] ? g.Degree(w[1]) : 0;
    bool in0, in1;
    Member2(a0, n0, x[0], a1, n1, x[1], in0, in1);
    acc += static_cast<u64>(in0) + static_cast<u64>(in1);
  }
}

// Candidate lists of the selected lanes' tasks (Σ na <= kShallowBuf): lane j's
// C goes to cbuf[off_j, off_j + |C_j|), ascending. All probe elements of the
// set are flattened over the lanes (the items of one task are consecutive
// lanes of a round). cnt[32]: per-task fill, warp-private shared memory.
// Returns |C| of the lane's own task (0 unless sel).
__device__ int ShallowGenerate(const DagView& g, bool sel, const ShallowTask& t, int off, int* cnt,
                               int32_t* cbuf) {
  const int lane = LaneId();
  const int n = sel ? t.na : 0;
  const int incl = WarpInclusiveScan(n);
  const int total = __shfl_sync(kFull, incl, kWarp - 1);
  cnt[lane] = 0;
  __syncwarp();
  for (int q0 = 0; q0 < total; q0 += kWarp) {  // warp-uniform
    const int q = q0 + lane;
    const int j = OwnerLane(incl, q);
    const int jend = __shfl_sync(kFull, incl, j);
    const int jbeg = jend - __shfl_sync(kFull, n, j);
    const int ja = __shfl_sync(kFull, t.a, j), jb = __shfl_sync(kFull, t.b, j);
    const int jnb = __shfl_sync(kFull, t.nb, j), joff = __shfl_sync(kFull, off, j);
    const int32_t jbmax = __shfl_sync(kFull, t.bmax, j);
    const bool valid = q < total;
    bool hit = false;
    int32_t x = 0;
    if (valid) {
      x = g.indices[ja + (q - jbeg)];
      hit = x <= jbmax && Member(g.indices + jb, jnb, x);
    }
    const unsigned hits = __ballot_sync(kFull, hit);
    // Lanes [seg0, seg1] hold task j's items of this round.
    const int seg0 = min(max(jbeg - q0, 0), kWarp - 1);  // clamped for idle lanes
    const int seg1 = min(jend - q0, kWarp) - 1;
    const unsigned below = LaneMaskLt() & ~((1u << seg0) - 1u);
    if (hit) cbuf[joff + cnt[j] + __popc(hits & below)] = x;
    __syncwarp();
    if (valid && lane == seg1) cnt[j] += __popc(hits & (below | (1u << lane)));
    __syncwarp();
  }
  return sel ? cnt[lane] : 0;
}

// A task whose shorter list exceeds the buffer (warp-uniform t): C is produced
// in chunks of <= kShallowBuf. If the first chunk is all of C, membership in C
// is a shared-memory search; otherwise it is tested against both lists.
__device__ void ShallowOversize(const DagView& g, const ShallowTask& t, bool count4, int32_t* cbuf,
                                u64& acc3, u64& acc4) {
  const int lane = LaneId();
  int pos = 0;
  bool first = true, complete = false;
  while (true) {
    int n = 0;
    while (pos < t.na && n + kWarp <= kShallowBuf) {  // warp-uniform
      const int i = pos + lane;
      bool hit = false, beyond = false;
      int32_t x = 0;
      if (i < t.na) {
        x = g.indices[t.a + i];
        beyond = x > t.bmax;
        hit = !beyond && Member(g.indices + t.b, t.nb, x);
      }
      const unsigned m = __ballot_sync(kFull, hit);
      if (hit) cbuf[n + __popc(m & LaneMaskLt())] = x;
      n += __popc(m);
      pos = __ballot_sync(kFull, beyond) ? t.na : pos + kWarp;  // the rest is > bmax
    }
    __syncwarp();
    if (first) complete = pos >= t.na, first = false;
    if (lane == 0) acc3 += static_cast<u64>(n);
    if (count4) {
      for (int r = 0; r < n; r += kWarp) {
        const int i = r + lane;
        const bool has = i < n && (!complete || i + 1 < n);
        CountAdjacent(g, has, has ? cbuf[i] : 0, i + 1, n, !complete, t, cbuf, acc4);
      }
    }
    __syncwarp();  // cbuf is rewritten by the next chunk
    if (pos >= t.na) break;
  }
}

// Shared memory: u64 red[2][kWarpsPerBlock], then per warp int cnt[32] and
// int32 cbuf[kShallowBuf].
KCJAX_HD inline size_t ShallowSmemBytes() {
  return 16 * Policy::kWarpsPerBlock +
         static_cast<size_t>(Policy::kWarpsPerBlock) * (kWarp + kShallowBuf) * 4;
}

// One warp's shallow-path shared memory (ShallowSmemBytes per block).
struct ShallowSmem {
  u64* red;       // [2][kWarpsPerBlock] block reduction, shared by the block
  int* cnt;       // [32] per-task fill of cbuf
  int32_t* cbuf;  // [kShallowBuf] candidate lists of the current set
};

__device__ __forceinline__ ShallowSmem CarveShallowSmem(unsigned char* smem) {
  ShallowSmem sm;
  sm.red = reinterpret_cast<u64*>(smem);
  sm.cnt = reinterpret_cast<int*>(smem + 16 * Policy::kWarpsPerBlock) +
           WarpInBlock() * (kWarp + kShallowBuf);
  sm.cbuf = sm.cnt + kWarp;
  return sm;
}

// Builds the candidate lists of a warp's 32 tasks (lane-held t) in sets whose
// probe lists fit the buffer (lane order; the first pending task always
// fits, so every set is nonempty) and calls set(sel, d, off) after each:
// the lane's task is in the set (sel), |C| (0 unless sel) and its cbuf
// offset. Returns the lanes whose probe lists exceed the buffer.
template <typename Set>
__device__ unsigned ForEachBufferSet(const DagView& g, const ShallowTask& t, const ShallowSmem& sm,
                                     Set set) {
  const int lane = LaneId();
  unsigned pending = __ballot_sync(kFull, t.na > 0 && t.na <= kShallowBuf);
  while (pending != 0) {
    const bool mine = (pending >> lane) & 1u;
    const int n = mine ? t.na : 0;
    const int incl = WarpInclusiveScan(n);
    const bool sel = mine && incl <= kShallowBuf;
    pending &= ~__ballot_sync(kFull, sel);
    const int off = incl - n;
    set(sel, ShallowGenerate(g, sel, t, off, sm.cnt, sm.cbuf), off);
    __syncwarp();  // cnt and cbuf are rewritten by the next set
  }
  return __ballot_sync(kFull, t.na > kShallowBuf);
}

// Adds the block's acc[i] (per lane) to the 128-bit output slot first + i:
// one atomic per block and slot. red holds N * kWarpsPerBlock u64.
template <int N>
__device__ void BlockFlush(u64 (&acc)[N], u64* red, u64* out, int first) {
#pragma unroll
  for (int i = 0; i < N; ++i) {
    acc[i] = WarpSum64(acc[i]);
    if (LaneId() == 0) red[i * Policy::kWarpsPerBlock + WarpInBlock()] = acc[i];
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    for (int i = 0; i < N; ++i) {
      u64 sum = 0;
      for (int w = 0; w < Policy::kWarpsPerBlock; ++w) sum += red[i * Policy::kWarpsPerBlock + w];
      GlobalAdd128(out, first + i, sum);
    }
  }
}

// Exactness: every lane counter grows by at most one per probe (or by |C| <=
// the probes that produced it), so per-lane, per-warp and per-block sums stay
// far below 2^64; blocks combine into the 128-bit output with GlobalAdd128.
__global__ void __launch_bounds__(kThreads, Policy::kShallowMinBlocksPerSm)
    ShallowKernel(DagView g, const int32_t* tasks, int64_t num, int kmax, bool pairs, int* work,
                  u64* out) {
  extern __shared__ __align__(16) unsigned char smem[];
  const ShallowSmem sm = CarveShallowSmem(smem);
  const int lane = LaneId();
  const bool count4 = kmax >= 4;
  u64 acc[2] = {0, 0};  // counts[3], counts[4]
  const int64_t batches = CeilDiv(num, kWarp);
  for (int64_t bt = PullTask(work); bt < batches; bt = PullTask(work)) {
    const ShallowTask t = LoadShallowTask(g, tasks, bt * kWarp + lane, num);
    unsigned over = ForEachBufferSet(g, t, sm, [&](bool, int d, int off) {
      acc[0] += static_cast<u64>(d);
      if (count4 && pairs) {
        CountPairs(g, d, off, sm.cbuf, acc[1]);
      } else if (count4) {
        // Candidates w of all selected tasks, flattened (p -> task j, index i).
        const int dincl = WarpInclusiveScan(d);
        const int total = __shfl_sync(kFull, dincl, kWarp - 1);
        for (int p0 = 0; p0 < total; p0 += kWarp) {  // warp-uniform
          const int p = p0 + lane;
          const int j = OwnerLane(dincl, p);
          const int jd = __shfl_sync(kFull, d, j);
          const int i = p - (__shfl_sync(kFull, dincl, j) - jd);
          const int joff = __shfl_sync(kFull, off, j);
          const bool has = p < total && i + 1 < jd;  // the last of C has nothing above it
          CountAdjacent(g, has, has ? sm.cbuf[joff + i] : 0, joff + i + 1, joff + jd, false, t,
                        sm.cbuf, acc[1]);
        }
      }
    });
    while (over != 0) {  // rare: lists longer than the buffer
      const int j = __ffs(over) - 1;
      over &= over - 1;
      ShallowTask tj;
      tj.a = __shfl_sync(kFull, t.a, j), tj.na = __shfl_sync(kFull, t.na, j);
      tj.b = __shfl_sync(kFull, t.b, j), tj.nb = __shfl_sync(kFull, t.nb, j);
      tj.bmax = __shfl_sync(kFull, t.bmax, j);
      ShallowOversize(g, tj, count4, sm.cbuf, acc[0], acc[1]);
    }
  }
  BlockFlush(acc, sm.red, out, 3);
}

// Pre-pass of the general path, with the shallow kernel's batching: a warp
// takes 32 consecutive tasks (grid-stride over batches) and flattens their
// intersections over its lanes. key = work size (0: nothing beyond
// counts[3]), value = edge id, both written coalesced. counts[3] += Σ |C|.
// With kSmallPairs (PrepassCountsSmall: KCMiner at kmax == 4) a task whose C
// is in the buffer with |C| < kSmallTaskMax is finished here, while the
// batch's pairs stay within kPrepassPairBudget: counts[4] += the edges of its
// one-word bitmap space (CountPairs), and its key is 0. The budget keeps a
// batch of 32 large small tasks (a hub's edges) off one warp: the rest go
// to the small-task kernel, one task per warp.
template <bool kSmallPairs>
__global__ void __launch_bounds__(kThreads, Policy::kShallowMinBlocksPerSm)
    PrepassKernel(DagView g, const int32_t* tasks, int64_t num, int kmax, int method,
                  uint64_t key_limit, uint32_t* keys, int32_t* vals, TaskClasses* classes,
                  u64* out) {
  extern __shared__ __align__(16) unsigned char smem[];
  const ShallowSmem sm = CarveShallowSmem(smem);
  const int lane = LaneId();
  u64 acc[kSmallPairs ? 2 : 1] = {};  // counts[3] (and counts[4])
  const int64_t batches = CeilDiv(num, kWarp);
  const int64_t warps = static_cast<int64_t>(gridDim.x) * Policy::kWarpsPerBlock;
  for (int64_t bt = static_cast<int64_t>(blockIdx.x) * Policy::kWarpsPerBlock + WarpInBlock();
       bt < batches; bt += warps) {
    const int64_t i = bt * kWarp + lane;
    const ShallowTask t = LoadShallowTask(g, tasks, i, num);
    int d = 0;
    bool done = false;                        // counted here (kSmallPairs)
    int budget = Policy::kPrepassPairBudget;  // warp-uniform
    unsigned over = ForEachBufferSet(g, t, sm, [&](bool sel, int dj, int off) {
      if (sel) d = dj;
      if constexpr (kSmallPairs) {
        const bool small = sel && dj < Policy::kSmallTaskMax;
        const int pairs = small ? dj * (dj - 1) / 2 : 0;
        const int incl = WarpInclusiveScan(pairs);  // nondecreasing over lanes
        const bool take = small && incl <= budget;
        budget -= static_cast<int>(__reduce_max_sync(kFull, take ? incl : 0));
        if (sel) done = take;
        CountPairs(g, take ? dj : 0, off, sm.cbuf, acc[1]);
      }
    });
    while (over != 0) {  // count only: no buffer needed
      const int j = __ffs(over) - 1;
      over &= over - 1;
      const int a = __shfl_sync(kFull, t.a, j), na = __shfl_sync(kFull, t.na, j);
      const int b = __shfl_sync(kFull, t.b, j), nb = __shfl_sync(kFull, t.nb, j);
      const int c = WarpIntersect(g.indices + a, na, g.indices + b, nb, nullptr);
      if (lane == j) d = c;
    }
    acc[0] += static_cast<u64>(d);
    if (i < num) {
      const int32_t e = TaskAt(tasks, i);
      uint32_t key = 0;
      if (d >= 2 && kmax >= 4 && !done) {
        // d >= 2 implies a valid edge e.
        key = static_cast<uint32_t>(d);
        if (method == kStaticBitmapL1) {
          const int32_t u = g.src[e];
          key = static_cast<uint32_t>(g.Degree(u));
        }
      }
      if (key >= key_limit) classes->key_overflow = 1;  // above the hint (or the sort's bits)
      keys[i] = key;
      vals[i] = e;
    }
  }
  BlockFlush(acc, sm.red, out, 3);
}

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
    HeavyBuildKernel(DagView g, const int32_t* tasks, int nh, int dim, bool level4,
                     uint32_t* slots, int64_t* units, u64* out) {
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
    if (nroot >= 2)
      RunEngine(rows, d, W, root, nroot, s0, kmax, ws.q, st, cnt, 0, 1, mask, cur0);
    __syncwarp();  // mask, root and cur0 are rewritten by the next unit
  }
  cnt.Flush();
}

cudaError_t LastError() { return cudaGetLastError(); }

// Byte offsets inside the pre-pass scratch.
struct PrepassLayout {
  size_t keys_in, keys_out, vals_in, vals_out, classes, temp, temp_bytes, total;
  static PrepassLayout Make(int64_t n) {
    PrepassLayout l;
    const size_t a = RoundUp(std::max<int64_t>(n, 1) * 4, kScratchAlign);
    l.classes = 0;
    l.keys_in = kScratchAlign;
    l.keys_out = l.keys_in + a;
    l.vals_in = l.keys_out + a;
    l.vals_out = l.vals_in + a;
    l.temp = l.vals_out + a;
    l.temp_bytes = 0;
    cub::DeviceRadixSort::SortPairsDescending(
        nullptr, l.temp_bytes, static_cast<const uint32_t*>(nullptr), static_cast<uint32_t*>(nullptr),
        static_cast<const int32_t*>(nullptr), static_cast<int32_t*>(nullptr),
        static_cast<int>(std::max<int64_t>(n, 1)), 0, 32);
    l.total = l.temp + RoundUp(l.temp_bytes, kScratchAlign);
    return l;
  }
};

int BitWidth(uint64_t x) {
  int b = 0;
  while (x) {
    ++b;
    x >>= 1;
  }
  return b;
}

// Bits of the pre-pass keys the radix sort looks at. Keys are <= max(num_nodes,
// num_edges) (a degree or an intersection size); with a max_degree hint they
// are <= max_degree, which on real graphs leaves one 8-bit sort pass instead
// of three. A key above the hint sets TaskClasses::key_overflow.
int KeyBits(const CountProblem& p, bool full) {
  const int all = std::min(32, std::max(1, BitWidth(static_cast<uint64_t>(
                                               std::max(p.dag.num_nodes, p.dag.num_edges)))));
  if (full || p.max_degree < 0) return all;
  return std::min(all, std::max(1, BitWidth(static_cast<uint64_t>(p.max_degree))));
}

// Occupancy of a persistent kernel. The dynamic shared memory limit is set to
// the device maximum (not to this call's need) so that concurrent handlers
// with different kmax never race on the function attribute. Results are
// memoized per (device, kernel, shared memory): the attribute and occupancy
// queries cost host time between the pre-pass and the solve kernels of every
// call, which shows as a device gap on small graphs.
template <typename Kernel>
cudaError_t MaxBlocks(Kernel k, size_t smem, int* blocks_per_sm) {
  struct Entry {
    int dev;
    const void* fn;
    size_t smem;
    int blocks;
  };
  static std::mutex mu;
  static std::vector<Entry> cache;
  int dev = 0, optin = 0;
  cudaError_t err = cudaGetDevice(&dev);
  if (err != cudaSuccess) return err;
  const void* fn = reinterpret_cast<const void*>(k);
  {
    std::lock_guard<std::mutex> lock(mu);
    for (const Entry& e : cache) {
      if (e.dev == dev && e.fn == fn && e.smem == smem) {
        *blocks_per_sm = e.blocks;
        return cudaSuccess;
      }
    }
  }
  err = cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev);
  if (err != cudaSuccess) return err;
  cudaFuncAttributes attr;
  err = cudaFuncGetAttributes(&attr, k);
  if (err != cudaSuccess) return err;
  const int limit = optin - static_cast<int>(attr.sharedSizeBytes);
  if (static_cast<int64_t>(smem) > limit) return cudaErrorInvalidConfiguration;
  err = cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, limit);
  if (err != cudaSuccess) return err;
  err = cudaOccupancyMaxActiveBlocksPerMultiprocessor(blocks_per_sm, k, kThreads, smem);
  if (err != cudaSuccess) return err;
  if (*blocks_per_sm < 1) return cudaErrorInvalidConfiguration;
  std::lock_guard<std::mutex> lock(mu);
  cache.push_back(Entry{dev, fn, smem, *blocks_per_sm});
  return cudaSuccess;
}

// KCMiner at kmax == 4 counts its small tasks (|C| < kSmallTaskMax) in the
// pre-pass, which already holds their C in shared memory: their 4-cliques
// are the edges of a one-word bitmap space, tested by flattened pair probes
// (CountPairs) as in the shallow kernel, up to kPrepassPairBudget pairs per
// batch of 32 tasks. The small-task kernel gets only the rest.
bool PrepassCountsSmall(const CountProblem& p) { return p.kmax == 4 && p.method == kKCMiner; }

}  // namespace

bool UseShallowPath(const CountProblem& p) {
  // The list-based shallow kernel is the kBinarySearch baseline at kmax == 4.
  // KCMiner takes it at kmax == 4 only when the caller's max_degree hint says
  // every candidate set is small (|C| <= max out-degree - 1 < kSmallTaskMax):
  // the one kernel then spares the pre-pass, sort and host read-back, and
  // counts each task's one-word bitmap space by flattened pair probes
  // (CountPairs): 2-7x faster on sparse graphs. Where candidate sets are
  // larger, 32 consecutive tasks per warp leave a dense batch on one warp
  // (3-5x slower), so those keep the general path (docs/tuning.md). kmax == 3
  // ends after the pre-pass, which adds counts[3].
  if (p.kmax != 4) return false;
  if (p.method == kBinarySearch) return true;
  return p.method == kKCMiner && p.max_degree >= 0 && p.max_degree <= Policy::kSmallTaskMax;
}

size_t ShallowScratchBytes() { return kScratchAlign; }

cudaError_t LaunchShallow(const CountProblem& p, void* scratch, int num_sms,
                          cudaStream_t stream) {
  const size_t out_bytes = static_cast<size_t>(p.kmax + 1) * 16;
  cudaError_t err = cudaMemsetAsync(p.counts, 0, out_bytes, stream);
  if (err != cudaSuccess) return err;
  if (p.num_tasks == 0) return cudaSuccess;
  int* work = static_cast<int*>(scratch);  // batch counter
  err = cudaMemsetAsync(work, 0, sizeof(int), stream);
  if (err != cudaSuccess) return err;
  const size_t smem = ShallowSmemBytes();  // < 48 KiB: no opt-in attribute needed
  int bpm = 0;
  err = MaxBlocks(ShallowKernel, smem, &bpm);
  if (err != cudaSuccess) return err;
  const int64_t want = CeilDiv(CeilDiv(p.num_tasks, kWarp), Policy::kWarpsPerBlock);
  const int blocks = static_cast<int>(
      std::max<int64_t>(1, std::min<int64_t>(want, int64_t{std::max(bpm, 1)} * num_sms)));
  const DagView g = p.dag;
  // KCMiner counts the bits of each bitmap space (CountPairs); the
  // binary-search baseline intersects C with every N+(w) (CountAdjacent).
  const bool pairs = p.method == kKCMiner;
  ShallowKernel<<<blocks, kThreads, smem, stream>>>(g, p.tasks, p.num_tasks, p.kmax, pairs, work,
                                                    reinterpret_cast<u64*>(p.counts));
  return LastError();
}

size_t PrepassScratchBytes(int64_t num_tasks) { return PrepassLayout::Make(num_tasks).total; }

const TaskClasses* PrepassClasses(const void* scratch) {
  return reinterpret_cast<const TaskClasses*>(static_cast<const char*>(scratch) +
                                              PrepassLayout::Make(0).classes);
}

const int32_t* PrepassSortedTasks(const void* scratch, int64_t num_tasks) {
  return reinterpret_cast<const int32_t*>(static_cast<const char*>(scratch) +
                                          PrepassLayout::Make(num_tasks).vals_out);
}

const uint32_t* PrepassSortedKeys(const void* scratch, int64_t num_tasks) {
  return reinterpret_cast<const uint32_t*>(static_cast<const char*>(scratch) +
                                           PrepassLayout::Make(num_tasks).keys_out);
}

cudaError_t LaunchPrepass(const CountProblem& p, void* scratch, int num_sms,
                          cudaStream_t stream) {
  const size_t out_bytes = static_cast<size_t>(p.kmax + 1) * 16;
  cudaError_t err = cudaMemsetAsync(p.counts, 0, out_bytes, stream);
  if (err != cudaSuccess) return err;
  const PrepassLayout l = PrepassLayout::Make(p.num_tasks);
  char* s = static_cast<char*>(scratch);
  auto* classes = reinterpret_cast<TaskClasses*>(s + l.classes);
  err = cudaMemsetAsync(classes, 0, sizeof(TaskClasses), stream);
  if (err != cudaSuccess) return err;
  if (p.num_tasks == 0) return cudaSuccess;
  const DagView g = p.dag;
  const size_t smem = ShallowSmemBytes();  // < 48 KiB: no opt-in attribute needed
  int bpm = 0;
  const auto kernel = PrepassCountsSmall(p) ? PrepassKernel<true> : PrepassKernel<false>;
  err = MaxBlocks(kernel, smem, &bpm);
  if (err != cudaSuccess) return err;
  const int64_t want = CeilDiv(CeilDiv(p.num_tasks, kWarp), Policy::kWarpsPerBlock);
  const int blocks = static_cast<int>(
      std::max<int64_t>(1, std::min<int64_t>(want, int64_t{std::max(bpm, 1)} * num_sms)));
  // With a hint, a key above it is flagged (the radix sort then lacks bits,
  // and a device-bounds plan sized its arenas for keys up to the hint).
  uint64_t key_limit = uint64_t{1} << KeyBits(p, /*full=*/false);
  if (p.max_degree >= 0) key_limit = std::min<uint64_t>(key_limit, uint64_t(p.max_degree) + 1);
  kernel<<<blocks, kThreads, smem, stream>>>(
      g, p.tasks, p.num_tasks, p.kmax, p.method, key_limit,
      reinterpret_cast<uint32_t*>(s + l.keys_in), reinterpret_cast<int32_t*>(s + l.vals_in),
      classes, reinterpret_cast<u64*>(p.counts));
  if ((err = LastError()) != cudaSuccess) return err;
  if (p.kmax < 4) return cudaSuccess;  // classes stay empty
  return LaunchSortClasses(p, scratch, /*full_keys=*/false, stream);
}

cudaError_t LaunchSortClasses(const CountProblem& p, void* scratch, bool full_keys,
                              cudaStream_t stream) {
  const PrepassLayout l = PrepassLayout::Make(p.num_tasks);
  char* s = static_cast<char*>(scratch);
  size_t temp_bytes = l.temp_bytes;
  cudaError_t err = cub::DeviceRadixSort::SortPairsDescending(
      s + l.temp, temp_bytes, reinterpret_cast<const uint32_t*>(s + l.keys_in),
      reinterpret_cast<uint32_t*>(s + l.keys_out), reinterpret_cast<const int32_t*>(s + l.vals_in),
      reinterpret_cast<int32_t*>(s + l.vals_out), static_cast<int>(p.num_tasks), 0,
      KeyBits(p, full_keys), stream);
  if (err != cudaSuccess) return err;
  ClassesKernel<<<1, kClassWarps * kWarp, 0, stream>>>(
      reinterpret_cast<const uint32_t*>(s + l.keys_out), p.num_tasks,
      static_cast<uint32_t>(Policy::HeavySplitMinDim(p.kmax)),
      reinterpret_cast<TaskClasses*>(s + l.classes));
  return LastError();
}

// KCMiner never builds at level 2 when λ(kmax, 2) >= 1/2 (γ < 1/2 in a
// strictly upper triangular space): medium tasks are split into level-3 units.
bool SplitsLevel3(const CountProblem& p) {
  const float lambda2 = p.lam >= 0.f ? p.lam : Policy::Lambda(p.kmax, 2);
  return p.method == kKCMiner && p.kmax >= 5 && lambda2 >= 0.5f;
}

bool UseDeviceBounds(const CountProblem& p) {
  if (p.max_degree < 0 || p.kmax < 4 || p.kmax > Policy::kDeviceBoundsMaxK ||
      Policy::HeavySplit(p.kmax) || SplitsLevel3(p) ||
      p.num_tasks <= 0) {
    return false;
  }
  // Arenas sized from the hint, not from the largest key, must stay small:
  // only the medium and small classes (hint <= kWarpTaskMax), with the
  // medium kernel's arenas in shared memory (no global arena). Larger hints
  // (keys are intersection sizes, often far below the largest out-degree)
  // keep the read-back plan.
  if (p.max_degree > Policy::kWarpTaskMax) return false;
  const ArenaLayout al =
      ArenaLayout::Make(p.max_degree, p.kmax, UsesLevel3(p.method, p.kmax, p.lam, false));
  return al.words * 4 * Policy::kWarpsPerBlock <= Policy::kSmemArenaBytes;
}

cudaError_t PlanSolve(const CountProblem& p, const TaskClasses* classes, int num_sms,
                      SolvePlan* plan) {
  *plan = SolvePlan{};
  plan->num_sms = num_sms;
  plan->device_bounds = classes == nullptr;
  if (p.kmax < 4) return cudaSuccess;
  if (classes != nullptr && classes->small_end <= 0) return cudaSuccess;
  const int m = p.method;
  // Device bounds: every key is <= the hint (the pre-pass flags key_overflow
  // otherwise, and the kernels then run no task).
  const int maxk = classes != nullptr ? classes->max_key : p.max_degree;
  const int64_t warp_smem = WarpSmemLayout::Make(p.kmax).Bytes();
  const int64_t base_smem = warp_smem * Policy::kWarpsPerBlock;

  // Ranges per kernel, as fields of TaskClasses (0 huge_end, 1 large_end,
  // 2 medium_end, 3 small_end; -1: zero).
  const int fields[3][4][2] = {
      {{-1, 3}, {-1, -1}, {-1, -1}, {-1, -1}},  // binary search: the list kernel
      {{-1, 0}, {0, 1}, {1, 2}, {2, 3}},        // KCMiner, static-L2: every class
      {{-1, 0}, {-1, -1}, {0, 3}, {-1, -1}},    // other bitmap baselines
  };
  const int row = m == kBinarySearch ? 0 : (m == kKCMiner || m == kStaticBitmapL2) ? 1 : 2;
  // Smallest key of each class (huge, large, medium, small): a class is
  // planned under device bounds when the hint reaches it.
  const int class_min_key[4] = {Policy::kMaxBitmapDim + 1, Policy::kWarpTaskMax + 1,
                                Policy::kSmallTaskMax, 1};
  for (int k = 0; k < 4; ++k) {
    const int bf = fields[row][k][0], ef = fields[row][k][1];
    if (ef < 0) continue;
    plan->begin_field[k] = bf;
    plan->end_field[k] = ef;
    if (classes != nullptr) {
      const int32_t at[4] = {classes->huge_end, classes->large_end, classes->medium_end,
                             classes->small_end};
      plan->begin[k] = bf < 0 ? 0 : at[bf];
      plan->end[k] = at[ef];
    } else {
      // The range's smallest keys are those of its last class (ef): it can
      // hold tasks only if the hint reaches them. Its size is unknown: the
      // number of tasks bounds it (grids are capped by occupancy anyway).
      plan->begin[k] = 0;
      plan->end[k] = maxk >= class_min_key[ef] ? p.num_tasks : 0;
    }
  }
  // The largest key of a range is the key of its first task (descending);
  // bounded by the class limit (the host only knows the overall maximum).
  plan->dim[0] = maxk;
  plan->dim[1] = std::min(maxk, Policy::kMaxBitmapDim);
  plan->dim[2] = (m == kKCMiner || m == kStaticBitmapL2) ? std::min(maxk, Policy::kWarpTaskMax)
                                                        : std::min(maxk, Policy::kMaxBitmapDim);
  plan->dim[3] = Policy::kSmallTaskMax;

  // Heavy-task split: the largest medium tasks (as many slots as the budget
  // holds) leave the medium kernel.
  if (m == kKCMiner && Policy::HeavySplit(p.kmax) && classes != nullptr &&
      classes->heavy_end > classes->large_end) {
    const int dim = std::min(maxk, Policy::kWarpTaskMax);
    const int64_t slot_bytes = HeavySlot::Make(dim).words * 4;
    const int64_t nh = std::min<int64_t>(classes->heavy_end - classes->large_end,
                                         Policy::kHeavySlotBudgetBytes / slot_bytes);
    if (nh > 0) {
      plan->heavy_begin = classes->large_end;
      plan->heavy_end = classes->large_end + nh;
      plan->heavy_dim = dim;
      plan->heavy_slot_bytes = static_cast<size_t>(slot_bytes);
      plan->begin[2] = plan->heavy_end;
      cudaError_t e = cub::DeviceScan::InclusiveSum(nullptr, plan->heavy_scan_bytes,
                                                    static_cast<int64_t*>(nullptr),
                                                    static_cast<int64_t*>(nullptr),
                                                    static_cast<int>(nh));
      if (e != cudaSuccess) return e;
    }
  }

  const int64_t n_medium = plan->end[2] - plan->begin[2];
  if (SplitsLevel3(p) && n_medium > 0) {
    plan->split3 = true;
    plan->split_scan_bytes = 0;
    cudaError_t e = cub::DeviceScan::InclusiveSum(nullptr, plan->split_scan_bytes,
                                                  static_cast<int64_t*>(nullptr),
                                                  static_cast<int64_t*>(nullptr),
                                                  static_cast<int>(n_medium));
    if (e != cudaSuccess) return e;
  }
  size_t total = 256;  // work counters
  if (plan->split3) {
    total += RoundUp(n_medium * 8, kScratchAlign) + RoundUp(static_cast<int64_t>(plan->split_scan_bytes), kScratchAlign);
  }
  cudaError_t err;
  if (plan->heavy_end > plan->heavy_begin) {
    const int64_t nh = plan->heavy_end - plan->heavy_begin;
    size_t smem = base_smem;
    const int64_t arena_block =
        HeavyArena::Make(plan->heavy_dim, p.kmax).words * 4 * Policy::kWarpsPerBlock;
    int64_t per_block = 0;  // global arena bytes per block
    if (arena_block <= Policy::kSmemArenaBytes) {
      smem += arena_block;
    } else {
      per_block = arena_block;
    }
    int bpm = 0;
    if ((err = MaxBlocks(HeavyKernel, smem, &bpm)) != cudaSuccess) return err;
    int64_t blocks = int64_t{bpm} * num_sms;
    if (per_block > 0)
      blocks = std::min<int64_t>(blocks, std::max<int64_t>(1, Policy::kArenaBudgetBytes / per_block));
    plan->heavy_blocks = static_cast<int>(std::max<int64_t>(blocks, 1));
    plan->heavy_smem = smem;
    plan->heavy_arena_bytes = static_cast<size_t>(per_block * plan->heavy_blocks);
    plan->heavy_build_blocks = static_cast<int>(
        std::min<int64_t>(CeilDiv(nh, Policy::kWarpsPerBlock), int64_t{32} * num_sms));
    total += RoundUp(nh * 8, kScratchAlign) + RoundUp(static_cast<int64_t>(plan->heavy_scan_bytes), kScratchAlign) +
             RoundUp(nh * static_cast<int64_t>(plan->heavy_slot_bytes), kScratchAlign) +
             RoundUp(static_cast<int64_t>(plan->heavy_arena_bytes), kScratchAlign);
  }
  for (int k = 0; k < 4; ++k) {
    const int64_t n = plan->end[k] - plan->begin[k];
    if (n <= 0) continue;
    int bpm = 0;
    int64_t warps_per_block = Policy::kWarpsPerBlock;
    int64_t per_unit = 0;  // arena bytes per block
    size_t smem = base_smem;
    int64_t want_blocks = 0;
    if (k == 0) {
      err = MaxBlocks(ListKernel, smem, &bpm);
      per_unit = ListLayout::Make(plan->dim[0], p.kmax).words * 4 * warps_per_block;
      want_blocks = CeilDiv(n, warps_per_block);
    } else if (k == 1) {
      err = MaxBlocks(BlockKernel, smem, &bpm);
      const int d = plan->dim[1], W = WordsFor(d);
      const int levels = std::max(0, std::min(p.kmax - 5, d - 2));
      const int64_t block_words = RoundUp(d, 4) + RoundUp(int64_t{d} * W, 4);
      const int64_t warp_words = RoundUp(int64_t{levels} * kWarp * (W + 1), 4);
      per_unit = (block_words + warp_words * warps_per_block) * 4;
      want_blocks = n;
    } else if (k == 2) {
      const ArenaLayout al = ArenaLayout::Make(
          plan->dim[2], p.kmax, UsesLevel3(m, p.kmax, p.lam, plan->split3));
      const int64_t arena_block = al.words * 4 * warps_per_block;
      if (arena_block <= Policy::kSmemArenaBytes) {
        plan->arena_in_smem = true;
        smem += arena_block;
      } else {
        per_unit = arena_block;
      }
      err = MaxBlocks(WarpKernel, smem, &bpm);
      want_blocks = CeilDiv(n, warps_per_block);
    } else {
      err = MaxBlocks(SmallKernel, smem, &bpm);
      want_blocks = CeilDiv(n, warps_per_block);
    }
    if (err != cudaSuccess) return err;
    int64_t blocks = std::min<int64_t>(want_blocks, int64_t{bpm} * num_sms);
    if (per_unit > 0)
      blocks = std::min<int64_t>(blocks, std::max<int64_t>(1, Policy::kArenaBudgetBytes / per_unit));
    blocks = std::max<int64_t>(blocks, 1);
    plan->blocks[k] = static_cast<int>(blocks);
    plan->smem[k] = smem;
    plan->arena_bytes[k] = static_cast<size_t>(per_unit * blocks);
    total += RoundUp(static_cast<int64_t>(plan->arena_bytes[k]), kScratchAlign);
  }
  plan->scratch_bytes = total;
  return cudaSuccess;
}

cudaError_t LaunchSolve(const CountProblem& p, const SolvePlan& plan, const int32_t* sorted,
                        const uint32_t* sorted_keys, const TaskClasses* device_classes,
                        void* scratch, cudaStream_t stream) {
  if (plan.scratch_bytes == 0) return cudaSuccess;
  char* s = static_cast<char*>(scratch);
  int* work = reinterpret_cast<int*>(s);  // [0..3]: per-kernel task counters
  u64* split_work = reinterpret_cast<u64*>(s + 32);
  u64* heavy_work = reinterpret_cast<u64*>(s + 40);
  cudaError_t err = cudaMemsetAsync(work, 0, 64, stream);
  if (err != cudaSuccess) return err;
  // Side streams: the small-task kernel and the heavy-task split run beside
  // the medium and larger classes (which keep their heaviest-first order on
  // the caller's stream), so that the tail of one class overlaps the others
  // instead of idling the device before the next launch.
  // The heavy units start first (stream priority, see SideStream).
  const bool heavy = plan.heavy_end > plan.heavy_begin;
  const bool small = plan.blocks[3] > 0;
  const bool others = plan.blocks[0] + plan.blocks[1] + plan.blocks[2] > 0;
  StreamFork fork(stream);
  cudaStream_t small_stream = stream, heavy_stream = stream;
  if ((err = fork.Side(0, small && (others || heavy), &small_stream)) != cudaSuccess ||
      (err = fork.Side(1, heavy && (others || small) && p.kmax <= Policy::kHeavyOverlapMaxK,
                       &heavy_stream)) != cudaSuccess)
    return err;
  const DagView g = p.dag;
  u64* out = reinterpret_cast<u64*>(p.counts);
  size_t off = kScratchAlign;
  int64_t* split_prefix = nullptr;
  if (plan.split3) {
    const int n = static_cast<int>(plan.end[2] - plan.begin[2]);
    split_prefix = reinterpret_cast<int64_t*>(s + off);
    off += RoundUp(int64_t{n} * 8, kScratchAlign);
    void* temp = s + off;
    off += RoundUp(static_cast<int64_t>(plan.split_scan_bytes), kScratchAlign);
    const int blocks = static_cast<int>(std::min<int64_t>(
        CeilDiv(n, Policy::kElementwiseThreads), Policy::kElementwiseMaxBlocks));
    WidenKeysKernel<<<blocks, Policy::kElementwiseThreads, 0, stream>>>(sorted_keys + plan.begin[2], n, split_prefix);
    if ((err = LastError()) != cudaSuccess) return err;
    size_t temp_bytes = plan.split_scan_bytes;
    err = cub::DeviceScan::InclusiveSum(temp, temp_bytes, split_prefix, split_prefix, n, stream);
    if (err != cudaSuccess) return err;
  }
  if (heavy) {
    // Same scratch order as PlanSolve: prefix, scan temp, slots, arena.
    const int nh = static_cast<int>(plan.heavy_end - plan.heavy_begin);
    auto* prefix = reinterpret_cast<int64_t*>(s + off);
    off += RoundUp(int64_t{nh} * 8, kScratchAlign);
    void* temp = s + off;
    off += RoundUp(static_cast<int64_t>(plan.heavy_scan_bytes), kScratchAlign);
    auto* slots = reinterpret_cast<uint32_t*>(s + off);
    off += RoundUp(int64_t{nh} * static_cast<int64_t>(plan.heavy_slot_bytes), kScratchAlign);
    uint32_t* harena = nullptr;
    if (plan.heavy_arena_bytes > 0) {
      harena = reinterpret_cast<uint32_t*>(s + off);
      off += RoundUp(static_cast<int64_t>(plan.heavy_arena_bytes), kScratchAlign);
    }
    const bool level4 = p.kmax >= Policy::kHeavyLevel4MinK;
    HeavyBuildKernel<<<plan.heavy_build_blocks, kThreads, 0, heavy_stream>>>(
        g, sorted + plan.heavy_begin, nh, plan.heavy_dim, level4, slots, prefix, out);
    if ((err = LastError()) != cudaSuccess) return err;
    size_t temp_bytes = plan.heavy_scan_bytes;
    err = cub::DeviceScan::InclusiveSum(temp, temp_bytes, prefix, prefix, nh, heavy_stream);
    if (err != cudaSuccess) return err;
    // The medium class waits for the slots (a short kernel), so that the
    // heavy units and the medium tasks become ready together and the
    // higher-priority heavy units take the device first: heaviest first.
    if ((err = fork.Await(1)) != cudaSuccess) return err;
    HeavyKernel<<<plan.heavy_blocks, kThreads, plan.heavy_smem, heavy_stream>>>(
        nh, plan.heavy_dim, p.kmax, level4, slots, prefix, heavy_work, out, harena);
    if ((err = LastError()) != cudaSuccess) return err;
  }
  void* arena[4] = {nullptr, nullptr, nullptr, nullptr};
  for (int k = 0; k < 4; ++k) {
    if (plan.blocks[k] == 0 || plan.arena_bytes[k] == 0) continue;
    arena[k] = s + off;
    off += RoundUp(static_cast<int64_t>(plan.arena_bytes[k]), kScratchAlign);
  }
  for (int k = 0; k < 4 && err == cudaSuccess; ++k) {
    if (plan.blocks[k] == 0) continue;
    const TaskSpan t{sorted,
                     plan.device_bounds ? device_classes : nullptr,
                     plan.begin_field[k],
                     plan.end_field[k],
                     static_cast<int>(plan.begin[k]),
                     static_cast<int>(plan.end[k])};
    switch (k) {
      case 0:
        ListKernel<<<plan.blocks[k], kThreads, plan.smem[k], stream>>>(
            g, t, p.kmax, plan.dim[k], work + k, out, static_cast<int32_t*>(arena[k]));
        break;
      case 1:
        BlockKernel<<<plan.blocks[k], kThreads, plan.smem[k], stream>>>(
            g, t, p.kmax, plan.dim[k], work + k, out, static_cast<uint32_t*>(arena[k]));
        break;
      case 2:
        WarpKernel<<<plan.blocks[k], kThreads, plan.smem[k], stream>>>(
            g, t, p.kmax, p.method, p.lam, plan.dim[k], work + k, out,
            plan.arena_in_smem ? nullptr : static_cast<uint32_t*>(arena[k]), split_prefix,
            split_work);
        break;
      default:
        SmallKernel<<<plan.blocks[k], kThreads, plan.smem[k], small_stream>>>(g, t, p.kmax,
                                                                              work + k, out);
        break;
    }
    err = LastError();
  }
  const cudaError_t join = fork.Join();
  return err != cudaSuccess ? err : join;
}

cudaError_t CopyClassesAsync(const void* prepass_scratch, TaskClasses* host, cudaEvent_t done,
                             cudaStream_t stream) {
  cudaStream_t side = nullptr;
  cudaEvent_t ready = nullptr;
  cudaError_t err = SideStream(&side);
  if (err == cudaSuccess) err = cudaEventCreateWithFlags(&ready, cudaEventDisableTiming);
  if (err != cudaSuccess) return err;
  if ((err = cudaEventRecord(ready, stream)) == cudaSuccess &&
      (err = cudaStreamWaitEvent(side, ready, 0)) == cudaSuccess &&
      (err = cudaMemcpyAsync(host, PrepassClasses(prepass_scratch), sizeof(TaskClasses),
                             cudaMemcpyDeviceToHost, side)) == cudaSuccess) {
    err = cudaEventRecord(done, side);
  }
  cudaEventDestroy(ready);  // released once the side stream has waited on it
  return err;
}

}  // namespace kcjax::cuda
