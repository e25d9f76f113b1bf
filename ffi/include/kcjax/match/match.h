// Labeled subgraph matching (GVSM-style): FFI handler symbols and the plan
// layout the CPU and CUDA handlers share.
//
// Semantics: an embedding of a query q (|V(q)| <= 32) in the data graph G is
// an injective map f: V(q) -> V(G) with equal vertex labels and every query
// edge mapped to a data edge (non-induced, subgraph monomorphism). With the
// plan's non-adjacency masks set, non-edges must also map to non-edges
// (induced). Labels are checked by the caller through the candidate bitmaps.
//
// The query is matched in a fixed order of "levels": level i matches query
// vertex order[i] (the caller permutes the result columns back).
//
// FFI contract of target "kcjax_match_count" (identical on CPU and CUDA):
//   args  indptr   int32[n + 1]  data CSR row pointers (symmetric, rows sorted)
//         indices  int32[e]      data CSR columns; entries past indptr[n] ignored
//         mult     int32[n]      multiplicity of vertex v: how many data
//                                vertices v stands for (twins sharing one
//                                branch); an embedding may use v up to mult[v]
//                                times and is weighted by the falling
//                                factorial. All ones: plain injectivity.
//         cand     uint32[q, w]  candidate bitmap of level i (w >= ceil(n/32))
//         plan     int32[q, 6]   per level i: [back, nonadj, list_row, list_len,
//                                above, under] (columns: PlanCol)
//                                back: bit j (j < i) set iff levels j and i are
//                                  adjacent in q; nonadj: bit j set iff the map
//                                  must send them to a non-edge (induced);
//                                list_row/list_len: for a level with back == 0
//                                  (first level of a component, i > 0), the row
//                                  of `lists` holding its candidates, else -1/0;
//                                above/under: bit j set iff level i's image must
//                                  be greater / smaller than level j's (the
//                                  query's symmetry-breaking order constraints).
//         lists    int32[c, L]   candidate id lists of the free levels
//         roots    int32[r]      level-0 images to search from; -1 is padding
//         task_ptr int32[r + 1]  prefix sum over roots of ceil(|level-1 source|
//                                / task_width) (the CUDA handler's task split;
//                                the CPU handler checks its shape only)
//         leaf_sum int32[n]      sum of mult[w] over the neighbours w of v that
//                                are candidates of the last level. Where the
//                                last level (q >= 3) has one backward neighbour
//                                and no non-adjacency or order mask, it is counted as
//                                leaf_sum[pivot image] minus the earlier images
//                                that are such neighbours, without a scan.
//   attrs per_root    bool      one count per root (else one total)
//         num_threads int32     CPU worker threads; 0: all cores (CUDA ignores)
//         task_width  int32     level-1 source entries per CUDA task, 1..32
//                               (the CPU handler checks the range only)
//   ret   counts   uint32[R, 4]  R = r with per_root, else 1: 128-bit
//                                little-endian number of embeddings (weighted
//                                by the multiplicities), modulo 2^128.
//
// FFI contract of target "kcjax_match_list": the same args (mult must be all
// ones), num_threads and task_width; ret rows int32[cap, q] (level order; rows past the
// number written are -1; row order unspecified) and found uint32[4]: the
// number of embeddings found, stopping once it exceeds cap (found > cap:
// the rows are a truncated listing, flagged).
#pragma once

#include <cstdint>

#include "xla/ffi/api/ffi.h"

XLA_FFI_DECLARE_HANDLER_SYMBOL(kcjax_match_count_cpu);
XLA_FFI_DECLARE_HANDLER_SYMBOL(kcjax_match_list_cpu);
#ifdef KCJAX_WITH_CUDA
XLA_FFI_DECLARE_HANDLER_SYMBOL(kcjax_match_count_cuda);
XLA_FFI_DECLARE_HANDLER_SYMBOL(kcjax_match_list_cuda);
#endif

namespace kcjax::match {

// Largest query handled (level masks are 32-bit words).
inline constexpr int kMaxQuery = 32;

// The columns of a plan row (the contract above): plan[kPlanCols * level + col].
enum PlanCol : int { kBack = 0, kNonAdj, kListRow, kListLen, kAbove, kUnder, kPlanCols };

// Read-only view of the inputs (host or device pointers).
struct MatchView {
  const int32_t* indptr;
  const int32_t* indices;
  const int32_t* mult;
  const uint32_t* cand;
  const int32_t* plan;
  const int32_t* lists;
  const int32_t* leaf_sum;
  int64_t num_nodes;
  int64_t words;        // cand row stride
  int64_t list_stride;  // lists row stride
  int32_t q;
};

}  // namespace kcjax::match
