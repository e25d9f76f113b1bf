// Sorted-list search and warp-cooperative intersection, shared by every
// CUDA family (lists are strictly ascending int32 vertex ids).
//
// Two warp intersections, both one ballot per 32 probes of the shorter side,
// and one lane's (LaneIntersect, a count only, for short lists):
//   WarpIntersect  |a ∩ b| and optionally the intersection itself (the
//                  count kernels' candidate sets);
//   IntersectPos   calls hit(rank, pos, x) per common element, with x's
//                  position in a (the listing DFS needs positions); it skips
//                  to the first element >= the other list's minimum.
// They differ in their loop heads on purpose: each is the one its kernels were
// tuned with, and folding one into the other changes those kernels' code.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "kcjax/cuda/warp.cuh"

namespace kcjax::cuda {

// First index i in [0, n) with a[i] >= x, or n (never reads a[n]).
__device__ __forceinline__ int LowerBound(const int32_t* a, int n, int32_t x) {
  int lo = 0, len = n;
  while (len > 0) {
    const int half = len >> 1;
    if (a[lo + half] < x) {
      lo += half + 1;
      len -= half + 1;
    } else {
      len = half;
    }
  }
  return lo;
}

// True iff x occurs in the sorted list a[0, n).
__device__ __forceinline__ bool Member(const int32_t* a, int n, int32_t x) {
  const int lo = LowerBound(a, n, x);
  return lo < n && a[lo] == x;
}

// x1 ∈ a1[0, n1) and x2 ∈ a2[0, n2) (n <= 0: false), two lower_bound searches
// in lock step: both probe loads of a step are issued before either is used,
// so two dependent-load chains overlap instead of running back to back.
__device__ __forceinline__ void Member2(const int32_t* a1, int n1, int32_t x1, const int32_t* a2,
                                        int n2, int32_t x2, bool& in1, bool& in2) {
  int lo1 = 0, len1 = max(n1, 0), lo2 = 0, len2 = max(n2, 0);
  while (len1 > 0 || len2 > 0) {
    const int h1 = len1 >> 1, h2 = len2 >> 1;
    const int32_t v1 = len1 > 0 ? a1[lo1 + h1] : 0;
    const int32_t v2 = len2 > 0 ? a2[lo2 + h2] : 0;
    if (len1 > 0) {
      if (v1 < x1)
        lo1 += h1 + 1, len1 -= h1 + 1;
      else
        len1 = h1;
    }
    if (len2 > 0) {
      if (v2 < x2)
        lo2 += h2 + 1, len2 -= h2 + 1;
      else
        len2 = h2;
    }
  }
  const int32_t f1 = lo1 < n1 ? a1[lo1] : 0;
  const int32_t f2 = lo2 < n2 ? a2[lo2] : 0;
  in1 = lo1 < n1 && f1 == x1;
  in2 = lo2 < n2 && f2 == x2;
}

// |a ∩ b| by one lane (a, b sorted): each element of the shorter list is
// searched in the rest of the longer one, so a short list against a hub's
// long one costs the short one's length times a binary search. For lists of
// at most a warp's width, 32 lanes sizing 32 pairs beat a warp per pair.
__device__ __forceinline__ int LaneIntersect(const int32_t* a, int na, const int32_t* b, int nb) {
  if (na > nb) {
    const int32_t* t = a;
    a = b;
    b = t;
    const int tn = na;
    na = nb;
    nb = tn;
  }
  int c = 0, lo = 0;
  for (int i = 0; i < na && lo < nb; ++i) {
    const int32_t x = a[i];
    lo += LowerBound(b + lo, nb - lo, x);
    c += lo < nb && b[lo] == x;
  }
  return c;
}

// |a ∩ b| (a, b sorted); if out != nullptr also writes the intersection, in
// ascending order, to out. Iterates the shorter list and binary-searches the
// longer one. Warp-uniform result.
__device__ inline int WarpIntersect(const int32_t* a, int na, const int32_t* b, int nb,
                                    int32_t* out) {
  const int lane = LaneId();
  if (na > nb) {
    const int32_t* t = a;
    a = b;
    b = t;
    const int tn = na;
    na = nb;
    nb = tn;
  }
  int total = 0;
  if (na == 0 || nb == 0) return 0;
  // Elements outside [b[0], b[nb - 1]] cannot match.
  const int32_t bmin = b[0], bmax = b[nb - 1];
  for (int base = 0; base < na; base += kWarp) {
    const int i = base + lane;
    bool hit = false;
    int32_t x = 0;
    if (i < na) {
      x = a[i];
      hit = x >= bmin && x <= bmax && Member(b, nb, x);
    }
    const unsigned m = __ballot_sync(kFull, hit);
    if (out != nullptr && hit) out[total + __popc(m & LaneMaskLt())] = x;
    total += __popc(m);
    if (base + kWarp < na && a[base + kWarp] > bmax) break;  // uniform: rest is > bmax
  }
  __syncwarp();
  return total;
}

// Warp-cooperative a ∩ b of two strictly ascending lists. For every common
// element, exactly one lane calls hit(rank, pos, x): x = a[pos], rank = its
// index in the (ascending) intersection. Lanes of one call see distinct
// ranks and positions. Returns the intersection size (warp-uniform) and ends
// with __syncwarp, so whatever hit() wrote is visible to the whole warp.
template <typename Hit>
__device__ inline int IntersectPos(const int32_t* a, int na, const int32_t* b, int nb, Hit hit) {
  const int lane = LaneId();
  int total = 0;
  if (na > 0 && nb > 0) {
    if (na <= nb) {
      // Lanes walk a from its first element >= b[0] and search b.
      const int32_t bmax = b[nb - 1];
      for (int base = LowerBound(a, na, b[0]); base < na; base += kWarp) {
        const int i = base + lane;
        int32_t x = 0;
        bool in = false;
        if (i < na) {
          x = a[i];
          if (x <= bmax) {
            const int j = LowerBound(b, nb, x);
            in = b[j] == x;  // j < nb because x <= bmax
          }
        }
        const unsigned m = __ballot_sync(kFull, in);
        if (in) hit(total + __popc(m & LaneMaskLt()), i, x);
        total += __popc(m);
        if (base + kWarp < na && a[base + kWarp] > bmax) break;  // uniform: rest > bmax
      }
    } else {
      // Lanes walk b from its first element >= a[0] and search a.
      const int32_t amax = a[na - 1];
      for (int base = LowerBound(b, nb, a[0]); base < nb; base += kWarp) {
        const int j = base + lane;
        int32_t y = 0;
        int pos = 0;
        bool in = false;
        if (j < nb) {
          y = b[j];
          if (y <= amax) {
            pos = LowerBound(a, na, y);
            in = a[pos] == y;  // pos < na because y <= amax
          }
        }
        const unsigned m = __ballot_sync(kFull, in);
        if (in) hit(total + __popc(m & LaneMaskLt()), pos, y);
        total += __popc(m);
        if (base + kWarp < nb && b[base + kWarp] > amax) break;  // uniform: rest > amax
      }
    }
  }
  __syncwarp();
  return total;
}

}  // namespace kcjax::cuda
