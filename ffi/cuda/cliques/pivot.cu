// CUDA kernels of "kcjax_clique_pivot": one warp walks the succinct clique
// tree (Pivoter) of one root, or of a part of it (Split), at a time, with
// exactly the node rules of ffi/cpu/cliques/pivot.cc (read its header comment
// first), so both handlers return the same histogram.
//
// Pipeline (driven by ffi/cuda/cliques/pivot_cuda.cc):
//   PrepareKernel  validates CSR and tasks, keys every task by d + 1, stats;
//   the shared task stage sorts tasks by key, descending (largest candidate
//                  sets first; kcjax/cuda/tasks.h);
//   CountKernel    persistent warps pull roots from three queues (d > 128:
//                  global-memory workspace; 16 <= d <= 128 one at a time;
//                  d < 16 in chunks) and add leaves to a block-shared
//                  histogram cache flushed once into the 128-bit output.
//                  The roots of largest d (PivotParams::num_split) are each
//                  split over kPivotSplitParts warps (Split, below).
//
// Split roots: the root's pivot chain (the root and its pivot child, that
// child's pivot child, ...: the chain frames) is walked by every part; the
// held (non-neighbour) children of the chain frames, numbered in the order
// the walk meets them, go to part rank % parts, and the chain's end (a leaf or
// a resolved node) to part 0. A skipped child still leaves its frame's
// candidates, as in the whole walk, so the parts' leaves are the whole tree's
// (tests/reference/pivot_split.py models the walk and its split; the CI checks
// that the parts add up).
//
// Per-vertex mode (kcjax_clique_pivot_local, template flag kPerVertex): the same
// walk; every terminal node adds its k-clique shares to its candidates and to
// the held and pivot sums of its frame, which move up the path as children
// finish (PerVertexSmall / PerVertexLarge, FrameSums; rules in cliques/pivot.cc).
//
// Warp-level invariants of the DFS (both paths):
//   * every value steering control flow (masks, h, p, n, top, pending) is
//     warp-uniform: each lane computes it from the same shared or global data
//     or from a full-warp reduction;
//   * only lane 0 adds to the histogram.
#include <algorithm>
#include <climits>

#include "kcjax/cliques/pivot_cuda.h"
#include "kcjax/cliques/policy.h"
#include "kcjax/core/wide_count.h"
#include "kcjax/cuda/warp.cuh"
#include "kcjax/cuda/wide.cuh"

namespace kcjax::cliques {
namespace {

using namespace kcjax::cuda;
constexpr int kWarps = CliquePolicy::kPivotWarpsPerBlock;
constexpr int kCacheCells = CliquePolicy::kPivotHistCacheCells;
constexpr int kResolve = CliquePolicy::kPivotResolveDepth;
constexpr int kSmallMax = CliquePolicy::kPivotSmallMaxDim;
static_assert(kSmallMax >= CliquePolicy::kPivotChunkDegree && kSmallMax <= 128,
              "small roots use rows of at most two 64-bit words");
static_assert(CliquePolicy::kPivotChunkDegree <= 64, "chunked roots use one-word rows");
static_assert(kResolve >= 0 && kResolve <= 3, "see Resolve in cliques/pivot.cc");
constexpr int kPerVertexResolve = CliquePolicy::kPivotPerVertexResolveDepth;
static_assert(kPerVertexResolve >= 0 && kPerVertexResolve <= 2,
              "see PerVertexResolve in cliques/pivot.cc");

// ---------------------------------------------------------------------------
// Histogram

// Cells f = h * hist_p + p < kCacheCells live in the block's shared cache;
// others go straight to the global 128-bit cell (h, p).
struct Hist {
  u64* cache;
  u64* out;
  int hist_p;
  int out_p;
  __device__ void Add(int h, int p, u64 v) const {
    const int f = h * hist_p + p;
    if (f < kCacheCells) {
      atomicAdd(cache + f, v);
    } else {
      AtomicAdd128(out + 2 * (static_cast<size_t>(h) * out_p + p), v);
    }
  }
};

// ---------------------------------------------------------------------------
// Per-vertex shares

// 128-bit per-vertex totals and the binomial table (PivotParams::per_vertex, binom).
struct PerVertexSink {
  u64* acc;
  const u64* binom;
  int k;
  // C(a, b); 0 outside 0 <= b <= a. Callers keep a <= max_d and b <= k.
  __device__ u128 C(int a, int b) const {
    if (b < 0 || b > a) return 0;
    const u64* c = binom + 2 * (static_cast<size_t>(a) * (k + 1) + b);
    return (static_cast<u128>(c[1]) << 64) | c[0];
  }
  // Exact while the vertex's total stays below 2^128 (the caller's contract).
  __device__ void Add(int32_t v, u128 x) const {
    if (x == 0) return;
    u64* cell = acc + 2 * static_cast<size_t>(v);
    const u64 lo = static_cast<u64>(x);
    u64 hi = static_cast<u64>(x >> 64);
    const u64 old = atomicAdd(cell, lo);
    if (old + lo < old) ++hi;
    if (hi != 0) atomicAdd(cell + 1, hi);
  }
};

// What a terminal node adds: `held` to each held vertex, `pivot` to each pivot
// on its path, one + per_edge * deg_P(x) to each candidate x. All zero iff
// held is zero (held counts every k-clique of the node).
struct Shares {
  u128 held, pivot, one, per_edge;
};

// A leaf (h, p + n) whose n candidates join the pivots.
__device__ Shares LeafShares(const PerVertexSink& s, int h, int p, int n) {
  const int r = s.k - h;
  const u128 pivot = s.C(p + n - 1, r - 1);
  return {s.C(p + n, r), pivot, pivot, 0};
}

// A node resolved in closed form (r = k - h <= kPerVertexResolve).
__device__ Shares ResolveShares(const PerVertexSink& s, int h, int p, int n, u64 edges) {
  const int r = s.k - h;
  const u128 c1 = static_cast<u128>(n), c2 = edges;
  return {s.C(p, r) + c1 * s.C(p, r - 1) + c2 * s.C(p, r - 2),
          s.C(p - 1, r - 1) + c1 * s.C(p - 1, r - 2) + c2 * s.C(p - 1, r - 3), s.C(p, r - 1),
          s.C(p, r - 2)};
}

__device__ __forceinline__ u128 Load128(const u64* p) {
  return (static_cast<u128>(p[1]) << 64) | p[0];
}

__device__ __forceinline__ void Store128(u64* p, u128 x) {
  p[0] = static_cast<u64>(x);
  p[1] = static_cast<u64>(x >> 64);
}

// The per-vertex sums of one warp's open frames, as in PivotWorker
// (ffi/cpu/cliques/pivot.cc): frame L keeps the vertex its current child added (`added`, pivots
// tagged) and the held and pivot sums of that child's subtree (`sums`, four
// words a frame); root_held is the root's held sum. Lane 0 alone reads and
// writes them, so they need no warp synchronization.
struct FrameSums {
  int32_t* added;
  u64* sums;
  const int32_t* ids;  // the root's candidates by local index
  u128 root_held;

  // A new frame at `top` whose current child is `a`.
  __device__ void Open(int top, int a) {
    added[top] = a;
    for (int i = 0; i < 4; ++i) sums[4 * top + i] = 0;
  }
  // A terminal node below frame top (top < 0: the root itself).
  __device__ void AddShares(int top, const Shares& sh) {
    if (top < 0) {
      root_held += sh.held;
      return;
    }
    Store128(sums + 4 * top, Load128(sums + 4 * top) + sh.held);
    Store128(sums + 4 * top + 2, Load128(sums + 4 * top + 2) + sh.pivot);
  }
  // Frame top's current child is done: its sums go to the vertex it added
  // and up to frame top - 1 (or the root).
  __device__ void CloseChild(const PerVertexSink& s, int top) {
    const u128 held = Load128(sums + 4 * top), pivot = Load128(sums + 4 * top + 2);
    if (held == 0) return;  // no k-clique below (pivot <= held)
    const int a = added[top];
    s.Add(ids[a & ~kPivotTag], (a & kPivotTag) ? pivot : held);
    if (top > 0) {
      Store128(sums + 4 * (top - 1), Load128(sums + 4 * (top - 1)) + held);
      Store128(sums + 4 * (top - 1) + 2, Load128(sums + 4 * (top - 1) + 2) + pivot);
    } else {
      root_held += held;
    }
    for (int i = 0; i < 4; ++i) sums[4 * top + i] = 0;
  }
};

// The sinks of a count kernel: the histogram, or the per-vertex totals.
struct Sinks {
  Hist hist;
  PerVertexSink per_vertex;
};

// Word q of the mask of members {0..d-1}.
__device__ __forceinline__ u64 FullWord(int d, int q) {
  const int rem = d - 64 * q;
  return rem >= 64 ? ~0ull : (rem <= 0 ? 0ull : (1ull << rem) - 1);
}

// Word q of the mask of positions > i.
__device__ __forceinline__ u64 AboveWord(int i, int q) {
  const int qi = i >> 6;
  return q < qi ? 0ull : (q > qi ? ~0ull : ~((2ull << (i & 63)) - 1));
}

// Position of the r-th (0-based) set bit of x; r < popcount(x).
__device__ __forceinline__ int Select64(u64 x, int r) {
  const unsigned lo = static_cast<unsigned>(x);
  const int pl = __popc(lo);
  if (r < pl) return static_cast<int>(__fns(lo, 0, r + 1));
  return 32 + static_cast<int>(__fns(static_cast<unsigned>(x >> 32), 0, r - pl + 1));
}

// Fills adj (d rows of w words, row stride w) with the undirected adjacency
// inside the sorted candidate list ids[0..d): lane per row i, each entry x of
// N+(ids[i]) located among ids[i+1..d) by binary search (rows are ascending,
// so the search window only moves right).
__device__ void BuildSpace(const int32_t* indptr, const int32_t* indices, const int32_t* ids, int d,
                           u64* adj, int w, int lane) {
  for (int q = lane; q < d * w; q += 32) adj[q] = 0;
  __syncwarp();
  const int32_t last = ids[d - 1];
  for (int i = lane; i < d; i += 32) {
    const int32_t u = ids[i];
    int lo = i + 1;
    for (int32_t e = indptr[u], end = indptr[u + 1]; e < end && lo < d; ++e) {
      const int32_t x = indices[e];
      if (x > last) break;
      int hi = d;
      while (lo < hi) {
        const int mid = (lo + hi) >> 1;
        if (ids[mid] < x) {
          lo = mid + 1;
        } else {
          hi = mid;
        }
      }
      if (lo < d && ids[lo] == x) {
        atomicOr(adj + static_cast<size_t>(i) * w + (lo >> 6), 1ull << (lo & 63));
        atomicOr(adj + static_cast<size_t>(lo) * w + (i >> 6), 1ull << (i & 63));
      }
    }
  }
  __syncwarp();
}

// ---------------------------------------------------------------------------
// Small roots (d <= 128): rows of kW words in shared memory; the current
// node's mask and the top frame live in registers of every lane.

// Per-warp shared arena for rows of up to kMaxW words.
template <int kMaxW, bool kPerVertex>
struct SmallArena {
  static constexpr int kDim = 64 * kMaxW;
  static constexpr int kLevels = kDim + 2;  // DFS depth <= d + 1
  static constexpr int kSumWords = kPerVertex ? 4 * kLevels : 0;
  static constexpr size_t kBytes =
      sizeof(u64) * (static_cast<size_t>(kDim) * kMaxW + 2 * kLevels * kMaxW + kSumWords) +
      sizeof(uint32_t) * kLevels + sizeof(int32_t) * kDim +
      (kPerVertex ? sizeof(int32_t) * kLevels : 0);
  u64* adj;        // kDim rows
  u64* cand;       // frame masks, kLevels rows
  u64* branch;     // frame branch masks, kLevels rows
  u64* sums;       // kPerVertex: FrameSums::sums, kLevels frames
  uint32_t* meta;  // frame h | p << 10 | n << 20 (all <= 129)
  int32_t* ids;    // the root's candidate list
  int32_t* added;  // kPerVertex: FrameSums::added, kLevels frames

  __device__ SmallArena(unsigned char* base) {
    adj = reinterpret_cast<u64*>(base);
    cand = adj + static_cast<size_t>(kDim) * kMaxW;
    branch = cand + kLevels * kMaxW;
    sums = branch + kLevels * kMaxW;
    meta = reinterpret_cast<uint32_t*>(sums + kSumWords);
    ids = reinterpret_cast<int32_t*>(meta + kLevels);
    added = kPerVertex ? ids + kDim : nullptr;
  }
};

template <int kW>
__device__ __forceinline__ int SelectW(const u64 (&P)[kW], int r) {
#pragma unroll
  for (int q = 0; q < kW - 1; ++q) {
    const int pc = __popcll(P[q]);
    if (r < pc) return 64 * q + Select64(P[q], r);
    r -= pc;
  }
  return 64 * (kW - 1) + Select64(P[kW - 1], r);
}

// Pivot of P (cn >= 2 members): the first member with the most neighbours in
// P (best of them); clique: every member has cn - 1.
template <int kW>
__device__ __forceinline__ void ScanSmall(const u64 (&P)[kW], int cn, const u64* adj, int lane,
                                          int* best, int* pivot, bool* clique) {
  unsigned key = 0, least = UINT_MAX;
  for (int r = lane; r < cn; r += 32) {
    const int i = SelectW<kW>(P, r);
    const u64* row = adj + i * kW;
    unsigned c = 0;
#pragma unroll
    for (int q = 0; q < kW; ++q) c += __popcll(P[q] & row[q]);
    key = max(key, (c << 16) | (0xffffu - i));
    least = min(least, c);
  }
  key = __reduce_max_sync(kFull, key);
  least = __reduce_min_sync(kFull, least);
  *best = static_cast<int>(key >> 16);
  *pivot = static_cast<int>(0xffffu - (key & 0xffffu));
  *clique = least == static_cast<unsigned>(cn - 1);
}

// Resolve of cliques/pivot.cc: cells (h + j, p) += c_j(P), j <= min(3, hmax - h).
template <int kW>
__device__ void ResolveSmall(const u64 (&P)[kW], int cn, int h, int p, int hmax, const u64* adj,
                             const Hist& hist, int lane) {
  const int jmax = hmax - h;
  if (lane == 0) {
    hist.Add(h, p, 1);
    if (jmax >= 1) hist.Add(h + 1, p, cn);
  }
  if (jmax < 2) return;
  unsigned edges = 0, triangles2 = 0;  // triangles2: each triangle twice
  for (int r = lane; r < cn; r += 32) {
    const int i = SelectW<kW>(P, r);
    const u64* ri = adj + i * kW;
    u64 R[kW];  // members after i adjacent to i
#pragma unroll
    for (int q = 0; q < kW; ++q) {
      R[q] = P[q] & AboveWord(i, q) & ri[q];
      edges += __popcll(R[q]);
    }
    if (jmax < 3) continue;
#pragma unroll
    for (int q = 0; q < kW; ++q) {
      for (u64 bits = R[q]; bits != 0; bits &= bits - 1) {
        const u64* rj = adj + (64 * q + __ffsll(bits) - 1) * kW;
#pragma unroll
        for (int q2 = 0; q2 < kW; ++q2) triangles2 += __popcll(R[q2] & rj[q2]);
      }
    }
  }
  edges = __reduce_add_sync(kFull, edges);
  triangles2 = __reduce_add_sync(kFull, triangles2);
  if (lane == 0) {
    if (edges != 0) hist.Add(h + 2, p, edges);
    if (triangles2 != 0) hist.Add(h + 3, p, triangles2 / 2);
  }
}

// Per-vertex shares of a terminal node below frame top with cn candidates:
// resolved in closed form, or a leaf whose candidates join the pivots.
// Warp-wide: for_each(f) calls f(i) for each candidate i, spread over the
// lanes; degree(i) is |P & row(i)|. Lane 0 adds the node's shares to `fs`.
template <typename ForEach, typename Degree>
__device__ void PerVertexTerminal(const PerVertexSink& s, FrameSums& fs, int top, int cn, int h,
                                  int p, bool resolve, int lane, ForEach&& for_each,
                                  Degree&& degree) {
  Shares sh;
  if (resolve) {
    u64 twice = 0;  // sum of degrees inside P
    if (s.k - h >= 2) {
      for_each([&](int i) { twice += degree(i); });
      twice = WarpSum64(twice);
    }
    sh = ResolveShares(s, h, p, cn, twice / 2);
  } else {
    sh = LeafShares(s, h, p, cn);
  }
  if (sh.held == 0) return;
  if (lane == 0) fs.AddShares(top, sh);
  for_each([&](int i) {
    s.Add(fs.ids[i], sh.one + (sh.per_edge == 0 ? u128{0} : sh.per_edge * degree(i)));
  });
}

// PerVertexTerminal of a small root: P in registers, rows of kW words in shared
// memory.
template <int kW>
__device__ void PerVertexSmall(const PerVertexSink& s, FrameSums& fs, const u64* adj, int top,
                               const u64 (&P)[kW], int cn, int h, int p, bool resolve, int lane) {
  PerVertexTerminal(
      s, fs, top, cn, h, p, resolve, lane,
      [&](auto f) {
        for (int r = lane; r < cn; r += 32) f(SelectW<kW>(P, r));
      },
      [&](int i) {
        const u64* row = adj + i * kW;
        int c = 0;
#pragma unroll
        for (int q = 0; q < kW; ++q) c += __popcll(P[q] & row[q]);
        return c;
      });
}

// A split root task's walk state: part j of kPivotSplitParts starts with countdown j, and
// part 0 is `first`. The walks take splitting as a template flag kSplit (false: the
// whole tree, none of this state kept); per-vertex mode is never split.
struct Split {
  int chain = 0;      // frames 0 .. chain - 1 are the pivot chain's
  int countdown = 0;  // chain frames' held children to skip before this part's next one
  bool first = true;  // part 0: the chain's end is its
  // Whether the pending node, generated by frame `top` (-1: the root), is on the chain.
  __device__ bool OnChain(int top, bool via_pivot) const { return via_pivot && top == chain - 1; }
  // Whether this part walks the next held child of frame `top` (every lane alike): a chain
  // frame's held children go to the parts in turn, part j taking ranks j, j + parts, ...
  __device__ bool Takes(int top) {
    if (top >= chain) return true;
    const bool mine = countdown == 0;
    countdown = mine ? CliquePolicy::kPivotSplitParts - 1 : countdown - 1;
    return mine;
  }
};

// The tree of root v (0 < d <= 64 * kW), walked as in PivotWorker::Search:
// frames 0..top are the open nodes; frame top is cached in registers
// (TC = cand, TB = branch, th / tp / tn, warp-uniform), frames below it in
// the arena. Lane 0 spills a frame (write of slot top) and __syncwarp
// follows; a pop reads slot top in every lane and __syncwarp follows, so
// every lane reads a slot only after it was written and before it is
// overwritten.
template <int kW, int kMaxW, bool kPerVertex, bool kSplit>
__device__ void SmallTask(const PivotParams& prm, const SmallArena<kMaxW, kPerVertex>& ar,
                          const Sinks& out, int lane, int32_t v, int32_t base, int d, Split split) {
  const Hist& hist = out.hist;
  for (int i = lane; i < d; i += 32) ar.ids[i] = prm.indices[base + i];
  __syncwarp();
  const u64* adj = ar.adj;
  BuildSpace(prm.indptr, prm.indices, ar.ids, d, ar.adj, kW, lane);
  const int hmax = prm.hmax, kmin = prm.kmin;
  FrameSums fs{ar.added, ar.sums, ar.ids, 0};

  u64 P[kW];  // candidates of the pending child
#pragma unroll
  for (int q = 0; q < kW; ++q) P[q] = FullWord(d, q);
  u64 TC[kW], TB[kW];
  int th = 0, tp = 0, tn = 0;
  int top = -1;
  bool pending = true, via_pivot = true;
  int ch = 1, cp = 0, cn = d;
  while (true) {
    if (pending) {
      pending = false;
      const bool chain = kSplit && split.OnChain(top, via_pivot);
      const bool resolve = hmax - ch <= (kPerVertex ? kPerVertexResolve : kResolve);
      bool leaf = cn <= 1;
      int best = 0, pivot = 0;
      if (!leaf && !resolve) ScanSmall<kW>(P, cn, adj, lane, &best, &pivot, &leaf);
      if (leaf || resolve) {  // leaf: empty, one vertex (the pivot), or a clique
        if constexpr (kPerVertex) {
          PerVertexSmall<kW>(out.per_vertex, fs, adj, top, P, cn, ch, cp, !leaf, lane);
        } else if (chain && !split.first) {
          // the chain's end is part 0's
        } else if (leaf) {
          if (lane == 0) hist.Add(ch, cp + cn, 1);
        } else {
          ResolveSmall<kW>(P, cn, ch, cp, hmax, adj, hist, lane);
        }
        continue;
      }
      if (chain) split.chain = top + 2;
      if (top >= 0) {  // spill the current top frame (lane 0: the values are uniform)
        if (lane == 0) {
#pragma unroll
          for (int q = 0; q < kW; ++q) {
            ar.cand[top * kW + q] = TC[q];
            ar.branch[top * kW + q] = TB[q];
          }
          ar.meta[top] = th | (tp << 10) | (tn << 20);
        }
        __syncwarp();
      }
      ++top;
      if constexpr (kPerVertex) {
        if (lane == 0) fs.Open(top, pivot | kPivotTag);
      }
      const u64* row = adj + pivot * kW;
#pragma unroll
      for (int q = 0; q < kW; ++q) {
        const u64 keep = q == (pivot >> 6) ? ~(1ull << (pivot & 63)) : ~0ull;
        TC[q] = P[q] & keep;
        TB[q] = P[q] & ~row[q] & keep;
        P[q] &= row[q];
      }
      th = ch;
      tp = cp;
      tn = cn - 1;
      if (ch + cp + 1 + best >= kmin) {  // pivot child (P & row(u), h, p + 1)
        cp += 1;
        cn = best;
        pending = via_pivot = true;
      }
      continue;
    }
    if (top < 0) break;
    if constexpr (kPerVertex) {
      if (lane == 0) fs.CloseChild(out.per_vertex, top);
    }
    int x = -1;  // first remaining non-neighbour (unrolled: TB stays in registers)
#pragma unroll
    for (int q = kW - 1; q >= 0; --q) {
      if (TB[q] != 0) x = 64 * q + __ffsll(TB[q]) - 1;
    }
    if (x < 0 || th + tp + tn < kmin) {  // frame exhausted or all siblings pruned
      if (kSplit && top == split.chain - 1) split.chain = top;
      if (--top >= 0) {
#pragma unroll
        for (int q = 0; q < kW; ++q) {
          TC[q] = ar.cand[top * kW + q];
          TB[q] = ar.branch[top * kW + q];
        }
        const uint32_t m = ar.meta[top];
        th = m & 1023;
        tp = (m >> 10) & 1023;
        tn = m >> 20;
        __syncwarp();  // every lane has read slot top before lane 0 rewrites it
      }
      continue;
    }
    // Clear bit x of TB and TC by masks, not TB[x >> 6]: a dynamic index
    // would move the arrays to local memory.
#pragma unroll
    for (int q = 0; q < kW; ++q) {
      const u64 hit = (q == (x >> 6)) ? 1ull << (x & 63) : 0ull;
      TB[q] &= ~hit;
      TC[q] &= ~hit;
    }
    --tn;
    if (kSplit && !split.Takes(top)) continue;  // another part's child
    if constexpr (kPerVertex) {
      if (lane == 0) fs.added[top] = x;
    }
    const u64* row = adj + x * kW;
    int c = 0;
#pragma unroll
    for (int q = 0; q < kW; ++q) {
      P[q] = TC[q] & row[q];
      c += __popcll(P[q]);
    }
    if (th + 1 + tp + c >= kmin) {
      ch = th + 1;
      cp = tp;
      cn = c;
      pending = true;
      via_pivot = false;
    }
  }
  if constexpr (kPerVertex) {
    if (lane == 0) out.per_vertex.Add(v, fs.root_held);
  }
}

template <int kMaxW, bool kPerVertex>
__device__ void SmallRoot(const PivotParams& prm, const SmallArena<kMaxW, kPerVertex>& ar,
                          const Sinks& out, int lane, int32_t v, Split split, bool is_split) {
  __syncwarp();  // no lane still reads the previous root's arena
  const int32_t base = prm.indptr[v];
  const int d = prm.indptr[v + 1] - base;
  if (1 + d < prm.kmin) return;  // h + p + |P| < kmin at the root
  if (d == 0) {                  // never split (d < kPivotChunkDegree)
    if (lane == 0) {
      if constexpr (kPerVertex) {
        out.per_vertex.Add(v, out.per_vertex.C(0, prm.hmax - 1));
      } else {
        out.hist.Add(1, 0, 1);
      }
    }
    return;
  }
  if constexpr (!kPerVertex) {
    if (is_split) {
      if (kMaxW == 1 || d <= 64) {
        SmallTask<1, kMaxW, false, true>(prm, ar, out, lane, v, base, d, split);
      } else {
        SmallTask<kMaxW, kMaxW, false, true>(prm, ar, out, lane, v, base, d, split);
      }
      return;
    }
  }
  if (kMaxW == 1 || d <= 64) {
    SmallTask<1, kMaxW, kPerVertex, false>(prm, ar, out, lane, v, base, d, split);
  } else {
    SmallTask<kMaxW, kMaxW, kPerVertex, false>(prm, ar, out, lane, v, base, d, split);
  }
}

// ---------------------------------------------------------------------------
// Large roots (d > 128): w = ceil(d / 64) words per row; bitmap space and all
// frames in the warp's global workspace, word loops split over lanes
// (__syncwarp between a word's write and other lanes' reads).

struct LargeArena {
  u64* adj;        // d rows of w words
  u64* cand;       // (d + 2) frame masks; slot top + 1 holds the pending child
  u64* branch;     // (d + 2) frame branch masks
  u64* sums;       // per-vertex mode: FrameSums::sums, (d + 2) frames
  int32_t* meta;   // (d + 2) x {h, p, n}
  int32_t* added;  // per-vertex mode: FrameSums::added, (d + 2) frames

  __device__ LargeArena(u64* ws, int d, int w) {
    adj = ws;
    cand = adj + static_cast<size_t>(d) * w;
    branch = cand + static_cast<size_t>(d + 2) * w;
    sums = branch + static_cast<size_t>(d + 2) * w;
    meta = reinterpret_cast<int32_t*>(sums + 4 * static_cast<size_t>(d + 2));
    added = meta + 3 * static_cast<size_t>(d + 2);
  }
};

// Calls f(i) on the lanes, each member i of P (w words) on one lane.
template <typename F>
__device__ __forceinline__ void ForMembers(const u64* P, int w, int lane, F&& f) {
  for (int base = 0; base < w; base += 32) {
    const u64 mine = base + lane < w ? P[base + lane] : 0ull;
    unsigned words = __ballot_sync(kFull, mine != 0);
    while (words != 0) {
      const int s = __ffs(words) - 1;
      words &= words - 1;
      const u64 x = __shfl_sync(kFull, mine, s);
      const int q = base + s;
      if ((x >> lane) & 1) f(64 * q + lane);
      if ((x >> (lane + 32)) & 1) f(64 * q + lane + 32);
    }
  }
}

// Index of the first nonzero word of B, or -1.
__device__ __forceinline__ int FirstWord(const u64* B, int w, int lane) {
  for (int base = 0; base < w; base += 32) {
    const unsigned nz = __ballot_sync(kFull, base + lane < w && B[base + lane] != 0);
    if (nz != 0) return base + __ffs(nz) - 1;
  }
  return -1;
}

__device__ void ScanLarge(const u64* P, int w, int cn, const u64* adj, int lane, int* best,
                          int* pivot, bool* clique) {
  u64 key = 0;
  unsigned least = UINT_MAX;
  ForMembers(P, w, lane, [&](int i) {
    const u64* row = adj + static_cast<size_t>(i) * w;
    unsigned c = 0;
    for (int q = 0; q < w; ++q) c += __popcll(P[q] & row[q]);
    key = max(key, (static_cast<u64>(c) << 32) | (0xffffffffu - static_cast<unsigned>(i)));
    least = min(least, c);
  });
  key = WarpMax64(key);
  least = __reduce_min_sync(kFull, least);
  *best = static_cast<int>(key >> 32);
  *pivot = static_cast<int>(0xffffffffu - static_cast<unsigned>(key));
  *clique = least == static_cast<unsigned>(cn - 1);
}

// ResolveSmall for a P of w words in memory: the same cells, with P walked
// through ForMembers instead of the kW words held in registers (the two are
// kept apart so the small kernels' P stays in registers).
__device__ void ResolveLarge(const u64* P, int w, int cn, int h, int p, int hmax, const u64* adj,
                             const Hist& hist, int lane) {
  const int jmax = hmax - h;
  if (lane == 0) {
    hist.Add(h, p, 1);
    if (jmax >= 1) hist.Add(h + 1, p, cn);
  }
  if (jmax < 2) return;
  u64 edges = 0, triangles2 = 0;
  ForMembers(P, w, lane, [&](int i) {
    const u64* ri = adj + static_cast<size_t>(i) * w;
    for (int q = i >> 6; q < w; ++q) {
      const u64 R = P[q] & AboveWord(i, q) & ri[q];
      edges += __popcll(R);
      if (jmax < 3) continue;
      for (u64 bits = R; bits != 0; bits &= bits - 1) {
        const u64* rj = adj + static_cast<size_t>(64 * q + __ffsll(bits) - 1) * w;
        for (int q2 = i >> 6; q2 < w; ++q2) {
          triangles2 += __popcll(P[q2] & AboveWord(i, q2) & ri[q2] & rj[q2]);
        }
      }
    }
  });
  edges = WarpSum64(edges);
  triangles2 = WarpSum64(triangles2);
  if (lane == 0) {
    if (edges != 0) hist.Add(h + 2, p, edges);
    if (triangles2 != 0) hist.Add(h + 3, p, triangles2 / 2);
  }
}

// PerVertexTerminal of a large root: P is w words in global memory.
__device__ void PerVertexLarge(const PerVertexSink& s, FrameSums& fs, const u64* adj, int w,
                               int top, const u64* P, int cn, int h, int p, bool resolve,
                               int lane) {
  PerVertexTerminal(
      s, fs, top, cn, h, p, resolve, lane, [&](auto f) { ForMembers(P, w, lane, f); },
      [&](int i) {
        const u64* row = adj + static_cast<size_t>(i) * w;
        int c = 0;
        for (int q = 0; q < w; ++q) c += __popcll(P[q] & row[q]);
        return c;
      });
}

template <bool kPerVertex, bool kSplit>
__device__ void LargeRoot(const PivotParams& prm, u64* ws, const Sinks& out, int lane, int32_t v,
                          Split split) {
  const Hist& hist = out.hist;
  __syncwarp();  // no lane still reads the previous root's workspace
  const int32_t base = prm.indptr[v];
  const int d = prm.indptr[v + 1] - base;
  if (1 + d < prm.kmin) return;
  const int w = (d + 63) / 64;
  const LargeArena ar(ws, d, w);
  BuildSpace(prm.indptr, prm.indices, prm.indices + base, d, ar.adj, w, lane);
  const u64* adj = ar.adj;
  const int hmax = prm.hmax, kmin = prm.kmin;
  FrameSums fs{ar.added, ar.sums, prm.indices + base, 0};
  for (int q = lane; q < w; q += 32) ar.cand[q] = FullWord(d, q);
  __syncwarp();
  int top = -1;
  bool pending = true, via_pivot = true;
  int ch = 1, cp = 0, cn = d;
  while (true) {
    if (pending) {
      pending = false;
      const int level = top + 1;
      const bool chain = kSplit && split.OnChain(top, via_pivot);
      u64* P = ar.cand + static_cast<size_t>(level) * w;
      const bool resolve = hmax - ch <= (kPerVertex ? kPerVertexResolve : kResolve);
      bool leaf = cn <= 1;
      int best = 0, pivot = 0;
      if (!leaf && !resolve) ScanLarge(P, w, cn, adj, lane, &best, &pivot, &leaf);
      if (leaf || resolve) {  // leaf: empty, one vertex (the pivot), or a clique
        if constexpr (kPerVertex) {
          PerVertexLarge(out.per_vertex, fs, adj, w, top, P, cn, ch, cp, !leaf, lane);
        } else if (chain && !split.first) {
          // the chain's end is part 0's
        } else if (leaf) {
          if (lane == 0) hist.Add(ch, cp + cn, 1);
        } else {
          ResolveLarge(P, w, cn, ch, cp, hmax, adj, hist, lane);
        }
        continue;
      }
      if (chain) split.chain = level + 1;
      const u64* row = adj + static_cast<size_t>(pivot) * w;
      u64* B = ar.branch + static_cast<size_t>(level) * w;
      u64* C = P + w;
      for (int q = lane; q < w; q += 32) {
        const u64 keep = q == (pivot >> 6) ? ~(1ull << (pivot & 63)) : ~0ull;
        const u64 pq = P[q], rq = row[q];
        B[q] = pq & ~rq & keep;
        C[q] = pq & rq;
        P[q] = pq & keep;
      }
      if (lane == 0) {
        ar.meta[3 * level] = ch;
        ar.meta[3 * level + 1] = cp;
        ar.meta[3 * level + 2] = cn - 1;
        if constexpr (kPerVertex) fs.Open(level, pivot | kPivotTag);
      }
      __syncwarp();
      top = level;
      if (ch + cp + 1 + best >= kmin) {
        cp += 1;
        cn = best;
        pending = via_pivot = true;
      }
      continue;
    }
    if (top < 0) break;
    const int level = top;
    if constexpr (kPerVertex) {
      if (lane == 0) fs.CloseChild(out.per_vertex, level);
    }
    const int h = ar.meta[3 * level], p = ar.meta[3 * level + 1], n = ar.meta[3 * level + 2];
    u64* B = ar.branch + static_cast<size_t>(level) * w;
    const int k = FirstWord(B, w, lane);
    if (k < 0 || h + p + n < kmin) {
      if (kSplit && level == split.chain - 1) split.chain = level;
      --top;
      continue;
    }
    const u64 bk = B[k];
    const int x = 64 * k + __ffsll(bk) - 1;
    u64* P = ar.cand + static_cast<size_t>(level) * w;
    __syncwarp();  // every lane read B[k] and meta before lane 0 updates them
    if (lane == 0) {
      B[k] = bk & (bk - 1);
      P[k] &= ~(1ull << (x & 63));
      ar.meta[3 * level + 2] = n - 1;
      if constexpr (kPerVertex) fs.added[level] = x;
    }
    __syncwarp();
    if (kSplit && !split.Takes(level)) continue;  // another part's child
    const u64* row = adj + static_cast<size_t>(x) * w;
    u64* C = P + w;
    unsigned c = 0;
    for (int q = lane; q < w; q += 32) {
      const u64 cq = P[q] & row[q];
      C[q] = cq;
      c += __popcll(cq);
    }
    c = __reduce_add_sync(kFull, c);
    __syncwarp();
    if (h + 1 + p + static_cast<int>(c) >= kmin) {
      ch = h + 1;
      cp = p;
      cn = static_cast<int>(c);
      pending = true;
      via_pivot = false;
    }
  }
  if constexpr (kPerVertex) {
    if (lane == 0) out.per_vertex.Add(v, fs.root_held);
  }
}

// ---------------------------------------------------------------------------
// Kernels

__global__ void PrepareKernel(const int32_t* __restrict__ indptr,
                              const int32_t* __restrict__ indices, int32_t n, int32_t m,
                              const int32_t* __restrict__ tasks, int32_t num_tasks,
                              uint32_t* __restrict__ keys, PivotStats* stats) {
  const int stride = gridDim.x * blockDim.x;
  const int tid = blockIdx.x * blockDim.x + threadIdx.x;
  for (int u = tid; u < n; u += stride) {
    const int32_t b = indptr[u], e = indptr[u + 1];
    bool bad = (u == 0 && b != 0) || e < b || e > m || b < 0;
    for (int32_t i = b, prev = u; !bad && i < e; ++i) {
      const int32_t x = indices[i];
      bad = x <= prev || x >= n;
      prev = x;
    }
    if (bad) atomicCAS(&stats->bad_row, 0, u + 1);
  }
  unsigned max_d = 0, max_small = 0, valid = 0, large = 0, heavy = 0;
  for (int t = tid; t < num_tasks; t += stride) {
    const int32_t v = tasks[t];
    uint32_t key = 0;
    if (v != -1) {
      if (v < 0 || v >= n) {
        if (atomicCAS(&stats->bad_task, 0, t + 1) == 0) stats->bad_task_value = v;
      } else {
        const int32_t d = max(0, indptr[v + 1] - indptr[v]);
        key = static_cast<uint32_t>(d) + 1;
        max_d = max(max_d, static_cast<unsigned>(d));
        if (d <= kSmallMax) max_small = max(max_small, static_cast<unsigned>(d));
        valid += 1;
        large += d > kSmallMax;
        heavy += d >= CliquePolicy::kPivotChunkDegree;
      }
    }
    keys[t] = key;
  }
  max_d = __reduce_max_sync(kFull, max_d);
  max_small = __reduce_max_sync(kFull, max_small);
  valid = __reduce_add_sync(kFull, valid);
  large = __reduce_add_sync(kFull, large);
  heavy = __reduce_add_sync(kFull, heavy);
  if ((threadIdx.x & 31) == 0 && valid != 0) {
    atomicMax(&stats->max_d, static_cast<int>(max_d));
    atomicMax(&stats->max_small_d, static_cast<int>(max_small));
    atomicAdd(&stats->num_valid, static_cast<int>(valid));
    atomicAdd(&stats->num_large, static_cast<int>(large));
    atomicAdd(&stats->num_heavy, static_cast<int>(heavy));
  }
}

// Entry v of a queue over the sorted tasks [lo, hi) whose first `split` tasks are split in
// kPivotSplitParts parts (the queue's length: hi - lo + split * (parts - 1)): its task,
// and its part's walk state if split.
struct QueueEntry {
  int task;
  Split split;
  bool is_split;
};
__device__ __forceinline__ QueueEntry Entry(int lo, int split, int v) {
  constexpr int parts = CliquePolicy::kPivotSplitParts;
  if (v < split * parts) return {lo + v / parts, Split{0, v % parts, v % parts == 0}, true};
  return {lo + v - split * (parts - 1), Split{}, false};
}

template <int kMaxW, bool kPerVertex>
__global__ void __launch_bounds__(kWarps * 32, CliquePolicy::kPivotMinBlocksPerSm)
    CountKernel(PivotParams prm) {
  extern __shared__ __align__(16) unsigned char smem[];
  u64* cache = reinterpret_cast<u64*>(smem);
  for (int f = threadIdx.x; f < kCacheCells; f += blockDim.x) cache[f] = 0;
  __syncthreads();
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const Sinks out{{cache, prm.hist, prm.hist_p, prm.out_p}, {prm.per_vertex, prm.binom, prm.hmax}};
  using Arena = SmallArena<kMaxW, kPerVertex>;
  const Arena arena(smem + sizeof(u64) * kCacheCells + Arena::kBytes * warp);
  const int gwarp = blockIdx.x * kWarps + warp;

  constexpr int parts = CliquePolicy::kPivotSplitParts;
  const int split_large = min(prm.num_split, prm.num_large);
  if (gwarp < prm.num_large_warps) {
    u64* ws = prm.large_scratch + static_cast<size_t>(gwarp) * prm.large_warp_words;
    const int queue = prm.num_large + split_large * (parts - 1);
    for (int t = PullTask(prm.counters, 1); t < queue; t = PullTask(prm.counters, 1)) {
      const QueueEntry e = Entry(0, split_large, t);
      if (!kPerVertex && e.is_split) {
        LargeRoot<false, true>(prm, ws, out, lane, prm.tasks[e.task], e.split);
      } else {
        LargeRoot<kPerVertex, false>(prm, ws, out, lane, prm.tasks[e.task], e.split);
      }
    }
  }
  const int split_heavy = prm.num_split - split_large;
  const int num_heavy = prm.num_heavy - prm.num_large + split_heavy * (parts - 1);
  for (int t = PullTask(prm.counters + 1, 1); t < num_heavy; t = PullTask(prm.counters + 1, 1)) {
    const QueueEntry e = Entry(prm.num_large, split_heavy, t);
    SmallRoot(prm, arena, out, lane, prm.tasks[e.task], e.split, e.is_split);
  }
  const int num_tiny = prm.num_valid - prm.num_heavy;
  constexpr int kChunk = CliquePolicy::kPivotTinyChunk;
  for (int t = PullTask(prm.counters + 2, kChunk); t < num_tiny;
       t = PullTask(prm.counters + 2, kChunk)) {
    for (int i = t; i < min(t + kChunk, num_tiny); ++i) {
      SmallRoot(prm, arena, out, lane, prm.tasks[prm.num_heavy + i], Split{}, false);
    }
  }

  __syncthreads();
  for (int f = threadIdx.x; f < kCacheCells; f += blockDim.x) {
    const int h = f / prm.hist_p, p = f % prm.hist_p;
    if (h < prm.hist_h && cache[f] != 0) {
      AtomicAdd128(prm.hist + 2 * (static_cast<size_t>(h) * prm.out_p + p), cache[f]);
    }
  }
}

template <int kMaxW, bool kPerVertex>
size_t SmemBytes() {
  return sizeof(u64) * kCacheCells + SmallArena<kMaxW, kPerVertex>::kBytes * kWarps;
}

// Calls f(kernel, dynamic shared memory bytes) for the variant `shape`.
template <typename F>
cudaError_t WithCountKernel(PivotKernelShape shape, F&& f) {
  if (shape.per_vertex) {
    return shape.small_w == 1 ? f(CountKernel<1, true>, SmemBytes<1, true>())
                              : f(CountKernel<2, true>, SmemBytes<2, true>());
  }
  return shape.small_w == 1 ? f(CountKernel<1, false>, SmemBytes<1, false>())
                            : f(CountKernel<2, false>, SmemBytes<2, false>());
}

}  // namespace

cudaError_t LaunchPivotPrepare(cudaStream_t stream, const int32_t* indptr, const int32_t* indices,
                               int32_t n, int32_t m, const int32_t* tasks, int32_t num_tasks,
                               uint32_t* keys, PivotStats* stats) {
  constexpr int kThreads = CliquePolicy::kElementwiseThreads;
  const int64_t work = std::max<int64_t>(std::max<int64_t>(n, num_tasks), 1);
  const int blocks = static_cast<int>(
      std::min<int64_t>((work + kThreads - 1) / kThreads, CliquePolicy::kElementwiseMaxBlocks));
  PrepareKernel<<<blocks, kThreads, 0, stream>>>(indptr, indices, n, m, tasks, num_tasks, keys,
                                                 stats);
  return cudaGetLastError();
}

int64_t PivotLargeWarpWords(int32_t dcap) {
  const int64_t d = dcap, w = (d + 63) / 64;
  return d * w + 2 * (d + 2) * w + 4 * (d + 2) + (4 * (d + 2) + 1) / 2;
}

size_t PivotCountSmemBytes(PivotKernelShape shape) {
  size_t bytes = 0;
  WithCountKernel(shape, [&](auto, size_t smem) {
    bytes = smem;
    return cudaSuccess;
  });
  return bytes;
}

cudaError_t PivotCountMaxBlocks(int device, PivotKernelShape shape, int* blocks) {
  int sms = 0;
  cudaError_t err = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
  if (err != cudaSuccess) return err;
  return WithCountKernel(shape, [&](auto kernel, size_t smem) {
    int per_sm = 0;
    cudaError_t e = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                         static_cast<int>(smem));
    if (e != cudaSuccess) return e;
    e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, kWarps * 32, smem);
    *blocks = std::max(1, sms * per_sm);
    return e;
  });
}

cudaError_t LaunchPivotCount(cudaStream_t stream, const PivotParams& params, PivotKernelShape shape,
                             int blocks) {
  return WithCountKernel(shape, [&](auto kernel, size_t smem) {
    const cudaError_t e = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                               static_cast<int>(smem));
    if (e != cudaSuccess) return e;
    kernel<<<blocks, kWarps * 32, smem, stream>>>(params);
    return cudaGetLastError();
  });
}

}  // namespace kcjax::cliques
