// The k-truss op family: the FFI contract, its modes and support methods (the policy
// in policy.h, the handlers' checks and bindings in args.h).
//
// FFI contract of target "kcjax_truss" (identical on CPU and CUDA):
//   args  indptr      int32[n + 1]  symmetric CSR row pointers of the Graph
//         indices     int32[2m]     symmetric CSR columns; rows sorted, no loops
//         eid         int32[2m]     edge id of every CSR entry: the position of
//                                   {row, col} in Graph.edges() (src < dst, CSR order)
//         esrc, edst  int32[m]      Graph.edges(): endpoints of edge e, esrc < edst
//         dag_indptr  int32[n + 1]  degree-oriented DAG (kcjax.orient), rank space
//         dag_indices int32[m]
//         dag_src     int32[m]      row of every DAG edge
//         dag_eid     int32[m]      edge id (position in Graph.edges()) of DAG edge d
//         core        int32[n] or int32[0]: core numbers for the k-core prefilter
//                                   (mode kKTruss only; int32[0]: no prefilter)
//         k           int32[1]      mode kKTruss: the k of the k-truss (a runtime
//                                   value, so one executable serves every k; k <= 2
//                                   keeps every edge); else ignored
//   attrs mode        int32  kcjax::truss::TrussMode
//         method      int32  kcjax::truss::SupportMethod (how supports are first counted)
//         num_threads int32  CPU worker threads; 0: all cores (CUDA ignores)
//         store_entries int64  kHIndex: at least the degree bound of the triangle
//                             store, sum over edges {u, v} of min(deg u, deg v) - 1
//                             (an edge lies in at most that many triangles), so the
//                             CUDA handler sizes the store without reading anything
//                             back; -1: unknown (it reads the store's exact size back,
//                             one host sync). Other modes ignore it. In kHIndex a
//                             value >= 0 below the bound breaks the contract: the CPU
//                             handler rejects it, the CUDA handler writes -1 for every
//                             edge.
//   ret   out         indexed like Graph.edges():
//         kSupport:   int32[m], triangles containing edge e
//         kDecompose: int32[m], trussness of e (largest k whose k-truss holds e; 2 if in
//                     no triangle)
//         kHIndex:    int32[m], the same trussness by the local h-index iteration over
//                     stored triangles (below); where the triangle store does not fit,
//                     kDecompose's peeling gives it
//         kKTruss:    bool[m], e lies in the k-truss
//
// FFI contract of target "kcjax_truss_triangle_edges" (the 3-truss in one pass):
//   args  indptr, indices, esrc, edst   as above
//   attrs num_threads int32  CPU worker threads; 0: all cores (CUDA ignores)
//   ret   out         bool[m]: edge e lies in a triangle (the 3-truss: removing edges
//                     of support 0 removes no triangle, so no peeling is needed)
//
// Convention (networkx.k_truss): the k-truss is the largest subgraph in which
// every edge lies in at least k - 2 triangles of that subgraph. Peeling at
// level l removes every live edge whose live support is <= l; an edge removed
// at level l has trussness l + 2. The k-truss is what survives level k - 3.
//
// kHIndex (Sariyuce, Seshadhri and Pinar's local algorithm, the AND variant): with
// t(e) = trussness - 2, t is the largest fixed point of
//   t(e) = H({ min(t(a), t(b)) : triangle {e, a, b} }),
// H the h-index (the largest h with at least h values >= h). Starting from
// t = support and updating any edge in any order (in place, concurrently) never
// goes below it and reaches it; an edge is updated again only when a value it
// reads fell below its own t. Each triangle is listed once and stored with each
// of its three edges, so an update reads no adjacency.
#pragma once

#include <cstdint>

#include "kcjax/truss/policy.h"
#include "xla/ffi/api/ffi.h"

XLA_FFI_DECLARE_HANDLER_SYMBOL(kcjax_truss_cpu);
XLA_FFI_DECLARE_HANDLER_SYMBOL(kcjax_truss_triangle_edges_cpu);
#ifdef KCJAX_WITH_CUDA
XLA_FFI_DECLARE_HANDLER_SYMBOL(kcjax_truss_cuda);
XLA_FFI_DECLARE_HANDLER_SYMBOL(kcjax_truss_triangle_edges_cuda);
#endif

namespace kcjax::truss {

enum class TrussMode : int32_t { kSupport = 0, kDecompose = 1, kKTruss = 2, kHIndex = 3 };
inline constexpr int32_t kNumTrussModes = 4;

// How the first supports are counted; every method gives identical supports.
enum class SupportMethod : int32_t {
  kDag = 0,     // each triangle once from the degree-oriented DAG, +1 to its three edges
  kEdge = 1,    // one warp per edge intersects both full neighbour lists (no atomics)
  kVertex = 2,  // the seed's pass: block per vertex, its list in shared memory,
                // one thread per higher neighbour counts |N(u) ∩ N(v)| in a register
  kAuto = 3,    // per pass by the edges it counts: kEdge up to TrussPolicy::kEdgeList, else kDag
};
inline constexpr int32_t kNumSupportMethods = 4;

// The pass a support count over `items` edges runs (kAuto resolved; others unchanged).
inline constexpr SupportMethod ResolveSupport(SupportMethod method, int64_t items) {
  if (method != SupportMethod::kAuto) return method;
  return items <= TrussPolicy::kEdgeList ? SupportMethod::kEdge : SupportMethod::kDag;
}

}  // namespace kcjax::truss
