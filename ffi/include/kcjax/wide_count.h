// Exact 128-bit accumulation of clique counts.
//
// Counts are returned to Python as uint32[..., 4] little-endian limbs so that
// they never wrap and need no jax_enable_x64. 2^128 cliques cannot be
// enumerated in any realistic time; pivoting histograms use the same format
// and are finished with Python integers on the host.
#pragma once

#include <cstdint>

#include "kcjax/policy.h"

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

}  // namespace kcjax
