// The one read-only view of a graph in CSR form, used by host and device
// code alike (plain pointers: host or device memory).
//
// Every family works on the oriented DAG (u -> v iff u < v, rows ascending):
// indptr[u, u + 1) bounds row u in indices, and src[e] is the row of edge e
// (an edge-task array needs it; vertex-task families may leave it nullptr).
#pragma once

#include <cstdint>

#include "kcjax/core/config.h"

namespace kcjax {

struct DagView {
  const int32_t* indptr;   // [num_nodes + 1]
  const int32_t* indices;  // [num_edges]
  const int32_t* src;      // [num_edges] or nullptr
  int64_t num_edges;
  int64_t num_nodes;

  KCJAX_HD_INLINE const int32_t* Row(int32_t w) const { return indices + indptr[w]; }
  KCJAX_HD_INLINE int Degree(int32_t w) const { return indptr[w + 1] - indptr[w]; }
};

}  // namespace kcjax
