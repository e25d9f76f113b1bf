// Clique counting (count.cu): warp-cooperative construction of bitmap
// spaces over sorted candidate lists, and bit scanning.
// Private to count.cu (one translation unit: included there, in order, so
// that every kernel's inlining is that of a single file).
#pragma once

#include "count_base.cuh"

namespace kcjax::cliques {
namespace {

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

}  // namespace
}  // namespace kcjax::cliques
