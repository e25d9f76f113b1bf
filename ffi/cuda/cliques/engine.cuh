// Clique counting (count.cu): the warp engine: KCMiner's inter-thread
// scheduler over a bitmap space, the fused last levels, and the shared /
// arena layouts host and device agree on.
// Private to count.cu (one translation unit: included there, in order, so
// that every kernel's inlining is that of a single file).
#pragma once

#include "build.cuh"

namespace kcjax::cliques {
namespace {

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
  int32_t* q;       // [32] task queue
  uint32_t* rows1;  // [32] single-word bitmap space
  int32_t* list1;   // [32] small candidate list
  uint32_t* st1;    // [ls1 * 32] single-word stack: cur per lane per level
  uint32_t* nb1;    // [ls1 * 32] saved next-bit per lane per level
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
      LoadRowFrom<kW>(
          reinterpret_cast<const uint32_t*>(reinterpret_cast<const char*>(rows) +
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
        const uint32_t* a = lvl > 0 ? st.cur + (static_cast<int64_t>(lvl - 1) * kWarp + srcl) * W
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
__device__ __forceinline__ void RunEngineOf(const uint32_t* rows, int d, int W, const int32_t* root,
                                            int nroot, int s0, int kmax, int32_t* q, StackMem st,
                                            const Counts& cnt, int b0, int bstride,
                                            const uint32_t* mask, uint32_t* cur0) {
  if constexpr (kW <= Policy::kEngineExactMaxWords) {
    if (W == kW) {
      return RunEngineW<kW>(rows, d, W, root, nroot, s0, kmax, q, st, cnt, b0, bstride, mask, cur0);
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
__device__ void RunWarpSerial(const uint32_t* rows, int d, int W, int s0, int kmax, uint32_t* stcur,
                              uint32_t* stpos, const Counts& cnt) {
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
__device__ void CarveWarpSmem(unsigned char* base, const WarpSmemLayout& l, u64* out, Counts* cnt,
                              WarpSmem* ws) {
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

}  // namespace
}  // namespace kcjax::cliques
