// Host-side check that a CSR is an oriented DAG as the handlers expect.
#pragma once

#include <cstdint>
#include <string>

#include "xla/ffi/api/ffi.h"

namespace kcjax {

// Checks indptr/indices form a DAG with ascending rows (u -> v only if u < v,
// ids in range), and, when src is given, that src[e] is the row of edge e, so
// every access the CPU workers make is in bounds. O(n + m).
inline xla::ffi::Error ValidateDag(const int32_t* indptr, int64_t n, const int32_t* indices,
                                   int64_t m, const int32_t* src = nullptr) {
  auto bad = [](const std::string& what) {
    return xla::ffi::Error::InvalidArgument(
        "the graph is not an oriented DAG: " + what +
        " (rows ascending, every entry above its row; build it with kcjax.orient)");
  };
  if (indptr[0] != 0 || indptr[n] != m) {
    return bad("indptr must start at 0 and end at len(indices)=" + std::to_string(m));
  }
  for (int64_t u = 0; u < n; ++u) {
    const int32_t b = indptr[u], e = indptr[u + 1];
    if (e < b || e > m) {
      return bad("row " + std::to_string(u) + " spans [" + std::to_string(b) + ", " +
                 std::to_string(e) + ")");
    }
    int64_t prev = u;
    for (int32_t i = b; i < e; ++i) {
      if (indices[i] <= prev || indices[i] >= n) {
        return bad("row " + std::to_string(u) + " holds " + std::to_string(indices[i]));
      }
      if (src != nullptr && src[i] != u) {
        return bad("src[" + std::to_string(i) + "] is not its row " + std::to_string(u));
      }
      prev = indices[i];
    }
  }
  return xla::ffi::Error::Success();
}

}  // namespace kcjax
