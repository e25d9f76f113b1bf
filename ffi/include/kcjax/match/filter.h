// The matching plan's candidate filter rounds as one FFI target, run to their
// fixpoint on the device (no host round trip per round).
//
// FFI contract of target "kcjax_match_filter" (identical on CPU and CUDA):
//   args  indptr int32[n + 1]  data CSR row pointers (symmetric)
//         indices int32[e]     data CSR columns; entries past indptr[n] ignored
//         slot   int32[n]      query label slot of vertex v (0..q-1), -1 if v's
//                              label is no query label
//         cand   uint32[n]     bit u set: v is a candidate of query vertex u
//                              (only vertices with slot >= 0 may have bits)
//         need   int32[q, q]   NLC[u, k]: neighbours of u with label slot k
//         adj    uint32[q]     bit u' of adj[u] set: u and u' adjacent in q
//         refine int32[1]      nonzero: rounds >= 1 also apply the
//                              refinement tests (below)
//   attrs rounds int32         the most refinement rounds after round 0
//   ret   out    uint32[n]     the candidates after the rounds
//         info   int32[4 + rounds]: [refinement rounds run, of them the rounds
//                              that removed a candidate, fixpoint reached (the
//                              last round run removed nothing), candidates
//                              after round 0, after round 1, ..., after round
//                              `rounds`] (rounds not run repeat the last total)
//         work   uint32[n + 3] the handlers' working memory (contents
//                              unspecified): results, not scratch, so that the
//                              CUDA handler allocates nothing and XLA can
//                              capture the call into a command buffer (CUDA
//                              graph) with the operations around it
//
// Round r maps C to C' (synchronous: every vertex reads the C of round r - 1).
// A neighbour w of v is alive if C[w] != 0. For v with C[v] != 0:
//   prof[k]   = alive neighbours w of v with slot[w] = k
//   has       = OR of C[w] over v's neighbours
//   grp[k][u] = neighbours w of v with slot[w] = k and w in U(u), the union
//               of C(u') over u's query neighbours u' (bit u of the OR of
//               adj[u'] over the bits u' of C[w])
// and u stays in C'[v] iff u is in C[v], prof[k] >= need[u][k] for every k,
// and, in a refinement round, adj[u] & ~has == 0 and grp[k][u] >= need[u][k]
// for every k. Round 0 applies the profile test alone; rounds 1, 2, ... stop
// after the first round that removes nothing, or after `rounds` of them. The
// rounds only remove candidates that no embedding uses (kcjax/match/plan.py),
// and both handlers run the same synchronous rounds, so their outputs agree
// bit for bit.
#pragma once

#include <cstdint>
#include <utility>

#include "kcjax/core/ffi.h"
#include "kcjax/match/match.h"
#include "xla/ffi/api/ffi.h"

XLA_FFI_DECLARE_HANDLER_SYMBOL(kcjax_match_filter_cpu);
#ifdef KCJAX_WITH_CUDA
XLA_FFI_DECLARE_HANDLER_SYMBOL(kcjax_match_filter_cuda);
#endif

namespace kcjax::match {

// The filter's operands and results, in binding order.
struct FilterIo {
  xla::ffi::Buffer<xla::ffi::S32>& indptr;
  xla::ffi::Buffer<xla::ffi::S32>& indices;
  xla::ffi::Buffer<xla::ffi::S32>& slot;
  xla::ffi::Buffer<xla::ffi::U32>& cand;
  xla::ffi::Buffer<xla::ffi::S32>& need;
  xla::ffi::Buffer<xla::ffi::U32>& adj;
  xla::ffi::Buffer<xla::ffi::S32>& refine;
  xla::ffi::ResultBuffer<xla::ffi::U32>& out;
  xla::ffi::ResultBuffer<xla::ffi::S32>& info;
  xla::ffi::ResultBuffer<xla::ffi::U32>& work;
};

// Shapes and the rounds attribute (both handlers; the same messages).
inline xla::ffi::Error CheckFilter(const Reporter& rep, const FilterIo& io, int32_t rounds) {
  if (io.indptr.dimensions().size() != 1 || io.indptr.element_count() < 1)
    return rep.Invalid("indptr must be int32[n + 1]");
  const int64_t n = static_cast<int64_t>(io.indptr.element_count()) - 1;
  if (static_cast<int64_t>(io.slot.element_count()) != n ||
      static_cast<int64_t>(io.cand.element_count()) != n ||
      static_cast<int64_t>(io.out->element_count()) != n)
    return rep.Invalid("slot, cand and out must have n entries");
  const int64_t q = static_cast<int64_t>(io.adj.element_count());
  if (q < 1 || q > kMaxQuery) return rep.Invalid("adj must be uint32[q] with 1 <= q <= 32");
  if (io.need.dimensions().size() != 2 || io.need.dimensions()[0] != q ||
      io.need.dimensions()[1] != q)
    return rep.Invalid("need must be int32[q, q]");
  if (io.refine.element_count() != 1) return rep.Invalid("refine must be int32[1]");
  if (rounds < 0) return rep.Invalid("rounds must be >= 0");
  if (static_cast<int64_t>(io.info->element_count()) != 4 + static_cast<int64_t>(rounds))
    return rep.Invalid("info must be int32[4 + rounds]");
  if (static_cast<int64_t>(io.work->element_count()) != n + 3)
    return rep.Invalid("work must be uint32[n + 3]");
  return xla::ffi::Error::Success();
}

// FFI signature of "kcjax_match_filter", shared by its CPU and CUDA handlers
// (binding: kcjax::CpuBinding() or kcjax::CudaBinding()).
template <typename Binding>
auto BindMatchFilter(Binding&& binding) {
  using xla::ffi::Buffer, xla::ffi::S32, xla::ffi::U32;
  return std::move(binding)
      .template Arg<Buffer<S32>>()  // indptr
      .template Arg<Buffer<S32>>()  // indices
      .template Arg<Buffer<S32>>()  // slot
      .template Arg<Buffer<U32>>()  // cand
      .template Arg<Buffer<S32>>()  // need
      .template Arg<Buffer<U32>>()  // adj
      .template Arg<Buffer<S32>>()  // refine
      .template Attr<int32_t>("rounds")
      .template Ret<Buffer<U32>>()   // out
      .template Ret<Buffer<S32>>()   // info
      .template Ret<Buffer<U32>>();  // work
}

}  // namespace kcjax::match
