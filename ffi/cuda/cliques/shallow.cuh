// Clique counting (count.cu): the list-based shallow path (kmax <= 4) and
// the general path's pre-pass, which share its batching.
// Private to count.cu (one translation unit: included there, in order, so
// that every kernel's inlining is that of a single file).
#pragma once

#include "solve.cuh"

namespace kcjax::cliques {
namespace {

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
    ShallowKernel(DagView g, const int32_t* tasks, int64_t num, int kmax, bool pairs, bool strided,
                  int* work, u64* out) {
  extern __shared__ __align__(16) unsigned char smem[];
  const ShallowSmem sm = CarveShallowSmem(smem);
  const int lane = LaneId();
  const bool count4 = kmax >= 4;
  u64 acc[2] = {0, 0};  // counts[3], counts[4]
  const int64_t batches = CeilDiv(num, kWarp);
  for (int64_t bt = PullTask(work); bt < batches; bt = PullTask(work)) {
    // strided: lane i takes task bt + i * batches, so that the consecutive
    // edges of a dense region spread over warps instead of loading one.
    const int64_t ti = strided ? bt + lane * batches : bt * kWarp + lane;
    const ShallowTask t = LoadShallowTask(g, tasks, ti, num);
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

}  // namespace
}  // namespace kcjax::cliques
