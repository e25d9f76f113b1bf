// The one read-only view of a graph in CSR form, used by host and device code
// alike (plain pointers: host or device memory): row u is
// indices[indptr[u], indptr[u + 1]), rows ascending; src[e] is the row of entry e
// (an edge-task array needs it; vertex-task code may leave it nullptr).
//
// CsrView is a symmetric graph (every edge in both rows: BFS, k-truss's support
// and peeling) or any other CSR; DagView is the oriented DAG (u -> v iff u comes
// before v in the orientation's order; the cliques' kernels and k-truss's
// triangle listing). Kernels whose parameters carry more than a graph (BFS's
// BfsProblem, k-truss's edge-indexed Csr, matching's MatchView) keep these field
// names.
#pragma once

#include <cstdint>

#include "kcjax/core/config.h"

namespace kcjax {

struct CsrView {
  const int32_t* indptr;   // [num_nodes + 1]
  const int32_t* indices;  // [num_edges]
  const int32_t* src;      // [num_edges] or nullptr
  int64_t num_edges;
  int64_t num_nodes;

  KCJAX_HD_INLINE const int32_t* Row(int32_t w) const { return indices + indptr[w]; }
  KCJAX_HD_INLINE int Degree(int32_t w) const { return indptr[w + 1] - indptr[w]; }
};

// The oriented DAG: a CsrView whose rows hold each vertex's out-neighbours.
struct DagView : CsrView {};

}  // namespace kcjax
