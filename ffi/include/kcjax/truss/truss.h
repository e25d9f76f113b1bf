// The k-truss op family: FFI contract, policy and the checks the CPU and CUDA
// handlers share.
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
//   attrs mode        int32  kcjax::TrussMode
//         method      int32  kcjax::SupportMethod (how supports are first counted)
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
#include <string>
#include <utility>

#include "xla/ffi/api/ffi.h"

XLA_FFI_DECLARE_HANDLER_SYMBOL(kcjax_truss_cpu);
XLA_FFI_DECLARE_HANDLER_SYMBOL(kcjax_truss_triangle_edges_cpu);
#ifdef KCJAX_WITH_CUDA
XLA_FFI_DECLARE_HANDLER_SYMBOL(kcjax_truss_cuda);
XLA_FFI_DECLARE_HANDLER_SYMBOL(kcjax_truss_triangle_edges_cuda);
#endif

namespace kcjax {

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

struct TrussPolicy {
  // CUDA launch shape: 8 warps per block keeps the persistent kernel's blocks co-resident.
  static constexpr int kThreads = 256;
  // Peeling kernel blocks per SM: few blocks keep each grid-wide sync cheap.
  static constexpr int kPeelBlocksPerSm = 2;
  // Support pass over the prefilter's live list (its length known on the device only):
  // a grid-strided grid of this many blocks per SM, so a short list does not pay for
  // m / 256 blocks that find nothing to do (8 x 256 threads fill an SM).
  static constexpr int kListBlocksPerSm = 8;
  // kAuto: a support pass over at most this many edges runs kEdge, a longer one kDag: a
  // warp per edge fills the GPU on short lists, while the edge pass probes full
  // neighbour lists (not DAG out-lists), so on long lists its extra work outweighs that.
  // Measured with the DAG pass of a warp per 32 edges; the split by probes is faster
  // below it too on some rows and slower on others (docs/tuning.md).
  static constexpr int32_t kEdgeList = 16384;
  // kDag (supports, the h-index's triangle store): a block stages kThreads DAG edges and
  // its threads take their probes (each entry of an edge's shorter out-list, searched in
  // the longer) kThreads x this many at a time, a thread's searched in lock step. A warp
  // per 32 edges one after another left most lanes idle (a few probes per edge) and
  // made each warp a chain of 32 edges (docs/tuning.md).
  static constexpr int kDagTileProbes = 4;
  // k-truss with the prefilter: recount steps before the peeling (drop the listed edges
  // of support <= k - 3, count the survivors' triangles afresh). The first peeling round
  // after a k-core is the largest by far (soc-Epinions1 k = 33: 129 K of the 172 K
  // listed edges, then 24 K); a recount costs in the kept edges, decrements cost in the
  // removed ones, so one recount pays wherever the first round removes most edges.
  static constexpr int kRecounts = 1;
  // k-truss: the peeling's first round is replaced by a recount (its frontier dropped, the
  // other listed edges' supports counted afresh, a warp each) when that frontier holds at
  // least this percentage of the list (above 100: never). Off: on the H200 the one row it
  // served (cit-HepTh k = 30, a 78 % first round) took 0.459 ms with it at 75 and 0.379 ms
  // without, although a host replay had counted 0.3x the round's probes (docs/tuning.md).
  static constexpr int kRoundRecountPercent = 101;
  // First kernel's launch bound (blocks per SM): with no minimum, ptxas held it at 32
  // registers and spilled (ptxas -v, sm_90); 4 allows 64 registers.
  static constexpr int kInitBlocksPerSm = 4;
  // Seed pass: largest neighbour list staged in shared memory (48 KiB of int32).
  static constexpr int kSharedList = 12288;
  // An edge whose longer list has at most this many entries is intersected by one
  // thread (a merge of two short lists); longer ones get a warp or more. A thread's
  // merge is a chain of dependent loads that sets the round's critical path: 64 made
  // decompositions 2-3x slower than 4 on the H200 (docs/tuning.md).
  static constexpr int kLaneList = 4;
  // Peeling: a frontier edge above kLaneList is split into chunks of this many probes
  // of its shorter list, one warp each, spread over the grid (no edge serializes a round).
  static constexpr int kChunkProbes = 32;
  // Peeling: the live-edge list is compacted at a level's scan once this fraction
  // (1 / kCompactDivisor) of it has died since the last compaction; scans cost O(list).
  static constexpr int kCompactDivisor = 8;
  // Peeling: steps this small run in block 0 alone with block barriers (the other
  // blocks wait at the next grid sync): a round of at most kTailFrontier merged edges
  // (one per thread) and kTailChunks chunks (two per warp), or a scan of a live list of
  // at most kTailScan entries (eight per thread). Off (0): with 256 / 16 / 2048 one
  // block's serial chains cost more than the grid syncs they saved (docs/tuning.md).
  static constexpr int kTailFrontier = 0;
  static constexpr int kTailChunks = 0;
  static constexpr int kTailScan = 0;
  // kHIndex: an edge with at most this many triangles is updated by one thread, all its
  // values loaded at once into registers. A thread walking its triangles one load after another (up
  // to 64 in a first version) set each round's critical path (docs/tuning.md).
  static constexpr int kHIndexLane = 8;
  // kHIndex: an edge with more than kHIndexLane and at most kHIndexLane x kHIndexGroup
  // triangles is updated by this many lanes of a warp (kHIndexLane entries each, in
  // registers), four edges a warp at once; more triangles get the whole warp.
  static constexpr int kHIndexGroup = 8;
  // kHIndex, warp path: histogram bins in shared memory (1 KiB a warp); a pass narrows
  // h to one bin, so edges with t below this take one pass over their triangles.
  static constexpr int kHIndexWindow = 256;
  // kHIndex, warp path: entries a lane loads at once (their store entries, then their
  // values); a warp edge's pass is a chain of s / (32 x this) batches. 8 and 4 ran
  // equally fast on the H200; 8 leaves ptxas fewer spills (12 bytes against 28).
  static constexpr int kHIndexBatch = 8;
  // kHIndex: blocks per SM of the cooperative update kernel (8 KiB of warp windows each):
  // a group's registers need 80 (ptxas -v, sm_90); 4 (64 registers, spills) and 6 ran
  // slower on the H200 although the rounds wait on latency (docs/tuning.md).
  static constexpr int kHIndexBlocksPerSm = 3;
  // kHIndex: the triangle store's limit (three entries of two edge ids per triangle):
  // beyond it the peeling answers (kDecompose).
  static constexpr int64_t kHIndexMaxEntries = (int64_t{1} << 31) - 1;
  // kHIndex: rounds update every edge without queueing while the round before lowered
  // more than m / this many edges (0: never), then one all-edge round queues and the
  // queued rounds follow. The first rounds lower most edges, and queue passes over the
  // fallen edges' triangles (an exchange per candidate) cost more than re-reading the
  // edges that did not fall (experiments/truss/hindex_sim.py, docs/tuning.md).
  static constexpr int kHIndexAllDivisor = 4;
  // kHIndex: once a round queues at most this many edges, the rounds end and the
  // asynchronous tail (no grid syncs; a warp an edge, claimed from one queue) runs to the
  // fixed point (0: never). The last rounds queue few edges and cost a grid sync each;
  // a tail edge costs more than a round's, so the tail from the first queued round (2^40)
  // was slower on the H200 (docs/tuning.md).
  static constexpr int64_t kHIndexAsyncEdges = 16384;
  // kHIndex: blocks per SM of the asynchronous tail's kernel (a warp per queued edge);
  // its own kernel, so the rounds' kernel keeps its registers.
  static constexpr int kHIndexTailBlocksPerSm = 4;
  // kHIndex: the asynchronous tail's queue holds this many pushes per edge; a push past
  // it is dropped and every edge updated again in rounds (always correct, slower).
  static constexpr int kHIndexQueuePerEdge = 4;
  // kHIndex: a warp waiting for the queue's next edge polls it every this many ns, and
  // the pending count (one word every waiting warp reads) every this many polls (the
  // measured values; no others were measured beside them).
  static constexpr int kHIndexPollNs = 32;
  static constexpr int kHIndexPendingPolls = 8;
};

// The pass a support count over `items` edges runs (kAuto resolved; others unchanged).
inline constexpr SupportMethod ResolveSupport(SupportMethod method, int64_t items) {
  if (method != SupportMethod::kAuto) return method;
  return items <= TrussPolicy::kEdgeList ? SupportMethod::kEdge : SupportMethod::kDag;
}

// Shape and attribute checks shared by both handlers. Returns an empty string when valid.
inline std::string CheckTrussCall(int64_t n1, int64_t nnz, int64_t eid, int64_t esrc, int64_t edst,
                                  int64_t dag_n1, int64_t dag_m, int64_t dag_src, int64_t dag_eid,
                                  int64_t core, int64_t kbuf, int64_t out, bool out_pred,
                                  int32_t mode, int32_t method, int64_t store_entries) {
  if (n1 < 1) return "indptr must be int32[n + 1] with n >= 0";
  if (nnz % 2 != 0) return "indices must hold every undirected edge twice (int32[2m])";
  const int64_t m = nnz / 2;
  if (eid != nnz) return "eid must be int32[2m], one edge id per CSR entry";
  if (esrc != m || edst != m) return "esrc and edst must be int32[m]";
  if (dag_n1 != n1) return "dag_indptr must be int32[n + 1]";
  if (dag_m != m || dag_src != m || dag_eid != m) {
    return "dag_indices, dag_src and dag_eid must be int32[m]";
  }
  if (core != 0 && core != n1 - 1) return "core must be int32[n] or int32[0]";
  if (out != m) return "the result must be int32[m]";
  if (mode < 0 || mode >= kNumTrussModes) return "mode must be 0, 1, 2 or 3";
  if (out_pred != (mode == static_cast<int32_t>(TrussMode::kKTruss))) {
    return "the result must be bool[m] for mode kKTruss, int32[m] otherwise";
  }
  if (method < 0 || method >= kNumSupportMethods) return "method must be 0, 1, 2 or 3";
  if (kbuf != 1) return "k must be int32[1]";
  if (nnz >= (int64_t{1} << 31)) return "graphs must have fewer than 2^31 CSR entries";
  if (store_entries < -1) return "store_entries must be -1 (unknown) or a bound >= 0";
  return {};
}

// FFI signature of "kcjax_truss", shared by its CPU and CUDA handlers: binding
// is kcjax::CpuBinding() or kcjax::CudaBinding().
template <typename Binding>
auto BindTruss(Binding&& binding) {
  using xla::ffi::Buffer, xla::ffi::S32;
  return std::move(binding)
      .template Arg<Buffer<S32>>()  // indptr
      .template Arg<Buffer<S32>>()  // indices
      .template Arg<Buffer<S32>>()  // eid
      .template Arg<Buffer<S32>>()  // esrc
      .template Arg<Buffer<S32>>()  // edst
      .template Arg<Buffer<S32>>()  // dag_indptr
      .template Arg<Buffer<S32>>()  // dag_indices
      .template Arg<Buffer<S32>>()  // dag_src
      .template Arg<Buffer<S32>>()  // dag_eid
      .template Arg<Buffer<S32>>()  // core
      .template Arg<Buffer<S32>>()  // k
      .template Attr<int32_t>("mode")
      .template Attr<int32_t>("method")
      .template Attr<int32_t>("num_threads")
      .template Attr<int64_t>("store_entries")
      .template Ret<xla::ffi::AnyBuffer>();  // out: bool[m] (kKTruss) or int32[m]
}

// Shape checks of "kcjax_truss_triangle_edges". Returns an empty string when valid.
inline std::string CheckTriangleEdgesCall(int64_t n1, int64_t nnz, int64_t esrc, int64_t edst,
                                          int64_t out) {
  if (n1 < 1) return "indptr must be int32[n + 1] with n >= 0";
  if (nnz % 2 != 0) return "indices must hold every undirected edge twice (int32[2m])";
  const int64_t m = nnz / 2;
  if (esrc != m || edst != m) return "esrc and edst must be int32[m]";
  if (out != m) return "the result must be bool[m]";
  if (nnz >= (int64_t{1} << 31)) return "graphs must have fewer than 2^31 CSR entries";
  return {};
}

// FFI signature of "kcjax_truss_triangle_edges".
template <typename Binding>
auto BindTriangleEdges(Binding&& binding) {
  using xla::ffi::Buffer, xla::ffi::S32, xla::ffi::PRED;
  return std::move(binding)
      .template Arg<Buffer<S32>>()  // indptr
      .template Arg<Buffer<S32>>()  // indices
      .template Arg<Buffer<S32>>()  // esrc
      .template Arg<Buffer<S32>>()  // edst
      .template Attr<int32_t>("num_threads")
      .template Ret<Buffer<PRED>>();  // out
}

}  // namespace kcjax
