// Exact 128-bit accumulation of clique counts.
//
// Counts are returned to Python as uint32[..., 4] little-endian limbs so that
// they never wrap and need no jax_enable_x64. 2^128 cliques cannot be
// enumerated in any realistic time; pivoting histograms use the same format
// and are finished with Python integers on the host.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "kcjax/core/config.h"

namespace kcjax {

struct U128 {
  uint64_t lo = 0;
  uint64_t hi = 0;

  KCJAX_HD void Add(uint64_t v) {
    const uint64_t old = lo;
    lo += v;
    hi += (lo < old) ? 1u : 0u;
  }
  KCJAX_HD void Add(const U128& o) {
    Add(o.lo);
    hi += o.hi;
  }
  // Writes the value as four little-endian 32-bit limbs.
  KCJAX_HD void Store(uint32_t* limbs) const {
    limbs[0] = static_cast<uint32_t>(lo);
    limbs[1] = static_cast<uint32_t>(lo >> 32);
    limbs[2] = static_cast<uint32_t>(hi);
    limbs[3] = static_cast<uint32_t>(hi >> 32);
  }
};

// Unsigned 128-bit integers for the pivot counter's per-vertex totals (GCC and
// nvcc both provide the type on the host and the device).
using u128 = unsigned __int128;

// C(a, b) for 0 <= a <= amax, 0 <= b <= bmax, row-major [amax + 1][bmax + 1],
// by Pascal's rule with additions that saturate at 2^128 - 1. A saturated
// entry is never a count the caller adds: every binomial the per-vertex pivot
// counter adds is a number of real k-cliques, and the caller guarantees
// k * count_k < 2^128 (kcjax.clique_counts_per_vertex checks it).
inline std::vector<u128> BinomialTable(int amax, int bmax) {
  const size_t cols = static_cast<size_t>(bmax) + 1;
  std::vector<u128> c((static_cast<size_t>(amax) + 1) * cols, 0);
  for (int a = 0; a <= amax; ++a) {
    c[a * cols] = 1;
    for (int b = 1; b <= bmax && b <= a; ++b) {
      const u128 x = c[(a - 1) * cols + b - 1], y = c[(a - 1) * cols + b];
      c[a * cols + b] = x + y < x ? ~u128{0} : x + y;
    }
  }
  return c;
}

}  // namespace kcjax
