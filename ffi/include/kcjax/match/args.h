// The operand checks both "kcjax_match_count" and both "kcjax_match_list"
// handlers make (one code, the same messages on CPU and CUDA, through the
// shared Reporter). Shapes and attributes only: the CPU handler also checks
// the host data (CheckHostData); on CUDA the device data is trusted (the
// Python wrappers build it; ids out of range in roots or lists are skipped by
// the kernel).
#pragma once

#include <cstdint>
#include <string>
#include <utility>

#include "kcjax/core/ffi.h"
#include "kcjax/match/match.h"

namespace kcjax::match {

// The operands every matching target takes, in binding order.
struct Inputs {
  xla::ffi::Buffer<xla::ffi::S32>& indptr;
  xla::ffi::Buffer<xla::ffi::S32>& indices;
  xla::ffi::Buffer<xla::ffi::S32>& mult;
  xla::ffi::Buffer<xla::ffi::U32>& cand;
  xla::ffi::Buffer<xla::ffi::S32>& plan;
  xla::ffi::Buffer<xla::ffi::S32>& lists;
  xla::ffi::Buffer<xla::ffi::S32>& roots;
  xla::ffi::Buffer<xla::ffi::S32>& task_ptr;
  xla::ffi::Buffer<xla::ffi::S32>& leaf_sum;
};

// Checks the inputs' shapes and task_width; fills view (data pointers of the
// handler's platform).
inline xla::ffi::Error CheckInputs(const Reporter& rep, const Inputs& in, int32_t task_width,
                                   MatchView* view) {
  if (in.indptr.dimensions().size() != 1 || in.indptr.element_count() < 1)
    return rep.Invalid("indptr must be int32[n + 1]");
  const int64_t n = static_cast<int64_t>(in.indptr.element_count()) - 1;
  if (static_cast<int64_t>(in.mult.element_count()) != n ||
      static_cast<int64_t>(in.leaf_sum.element_count()) != n)
    return rep.Invalid("mult and leaf_sum must be int32[n]");
  if (in.plan.dimensions().size() != 2 || in.plan.dimensions()[1] != kPlanCols)
    return rep.Invalid("plan must be int32[q, 6]");
  const int64_t q = in.plan.dimensions()[0];
  if (q < 1 || q > kMaxQuery)
    return rep.Invalid("query size must be in [1, 32], got " + std::to_string(q));
  if (in.cand.dimensions().size() != 2 || in.cand.dimensions()[0] != q ||
      in.cand.dimensions()[1] * 32 < n)
    return rep.Invalid("cand must be uint32[q, >= ceil(n / 32)]");
  if (in.lists.dimensions().size() != 2) return rep.Invalid("lists must be int32[c, L]");
  if (in.task_ptr.element_count() != in.roots.element_count() + 1)
    return rep.Invalid("task_ptr must be int32[r + 1]");
  if (static_cast<int64_t>(in.roots.element_count()) >= (int64_t{1} << 31) - 1)
    return rep.Invalid("more than 2^31 - 2 roots (split the call)");
  if (task_width < 1 || task_width > 32) return rep.Invalid("task_width must be in [1, 32]");
  *view = MatchView{in.indptr.typed_data(),   in.indices.typed_data(),
                    in.mult.typed_data(),     in.cand.typed_data(),
                    in.plan.typed_data(),     in.lists.typed_data(),
                    in.leaf_sum.typed_data(), n,
                    in.cand.dimensions()[1],  in.lists.dimensions()[1],
                    static_cast<int32_t>(q)};
  return xla::ffi::Error::Success();
}

// "kcjax_match_count"'s result: uint32[per_root ? r : 1, 4].
inline xla::ffi::Error CheckCounts(const Reporter& rep, const Inputs& in, bool per_root,
                                   xla::ffi::ResultBuffer<xla::ffi::U32>& out) {
  const int64_t r = static_cast<int64_t>(in.roots.element_count());
  if (static_cast<int64_t>(out->element_count()) != (per_root ? r : 1) * 4)
    return rep.Invalid("counts must be uint32[per_root ? r : 1, 4]");
  return xla::ffi::Error::Success();
}

// "kcjax_match_list"'s results: rows int32[cap, q], found uint32[4].
inline xla::ffi::Error CheckListing(const Reporter& rep, const MatchView& view,
                                    xla::ffi::ResultBuffer<xla::ffi::S32>& rows,
                                    xla::ffi::ResultBuffer<xla::ffi::U32>& found) {
  if (rows->dimensions().size() != 2 || rows->dimensions()[1] != view.q)
    return rep.Invalid("rows must be int32[cap, q]");
  if (found->element_count() != 4) return rep.Invalid("found must be uint32[4]");
  return xla::ffi::Error::Success();
}

// The host-side data checks of the CPU handlers (view: host pointers, checked
// by CheckInputs): indptr fits indices, plan masks name earlier levels only,
// free levels have a list row, roots and lists hold vertex ids or -1; with
// `listing`, every multiplicity is at most 1.
inline xla::ffi::Error CheckHostData(const Reporter& rep, const Inputs& in, const MatchView& view,
                                     bool listing) {
  const int64_t n = view.num_nodes, q = view.q;
  const int32_t* ip = view.indptr;
  if (ip[0] != 0 || ip[n] > static_cast<int64_t>(in.indices.element_count()))
    return rep.Invalid("indptr does not fit indices");
  const int64_t c = in.lists.dimensions()[0], stride = view.list_stride;
  const int32_t* pl = view.plan;
  for (int64_t i = 0; i < q; ++i) {
    const int32_t* row = pl + kPlanCols * i;
    const uint32_t below = i == 0 ? 0u : (i >= 32 ? ~0u : ((1u << i) - 1u));
    uint32_t named = 0;
    for (int col : {kBack, kNonAdj, kAbove, kUnder}) named |= static_cast<uint32_t>(row[col]);
    if (named & ~below) return rep.Invalid("plan masks may only name earlier levels");
    if (i > 0 && row[kBack] == 0 &&
        (row[kListRow] < 0 || row[kListRow] >= c || row[kListLen] < 0 || row[kListLen] > stride))
      return rep.Invalid("a level without backward neighbours needs a list row");
  }
  const int32_t* r = in.roots.typed_data();
  for (int64_t i = 0; i < static_cast<int64_t>(in.roots.element_count()); ++i)
    if (r[i] < -1 || r[i] >= n) return rep.Invalid("roots must be vertex ids or -1");
  const int32_t* l = view.lists;
  for (int64_t i = 0; i < static_cast<int64_t>(in.lists.element_count()); ++i)
    if (l[i] < -1 || l[i] >= n) return rep.Invalid("lists must hold vertex ids or -1");
  if (listing)
    for (int64_t v = 0; v < n; ++v)
      if (view.mult[v] > 1) return rep.Invalid("listing needs mult == 1 (no shared branches)");
  return xla::ffi::Error::Success();
}

// FFI signatures of "kcjax_match_count" and "kcjax_match_list", each shared by
// the target's CPU and CUDA handlers: binding is kcjax::CpuBinding() or
// kcjax::CudaBinding(). The operands are those of Inputs, in its order.
template <typename Binding>
auto BindMatchInputs(Binding&& binding) {
  using xla::ffi::Buffer, xla::ffi::S32, xla::ffi::U32;
  return std::move(binding)
      .template Arg<Buffer<S32>>()   // indptr
      .template Arg<Buffer<S32>>()   // indices
      .template Arg<Buffer<S32>>()   // mult
      .template Arg<Buffer<U32>>()   // cand
      .template Arg<Buffer<S32>>()   // plan
      .template Arg<Buffer<S32>>()   // lists
      .template Arg<Buffer<S32>>()   // roots
      .template Arg<Buffer<S32>>()   // task_ptr
      .template Arg<Buffer<S32>>();  // leaf_sum
}

template <typename Binding>
auto BindMatchCount(Binding&& binding) {
  return BindMatchInputs(std::move(binding))
      .template Attr<bool>("per_root")
      .template Attr<int32_t>("num_threads")
      .template Attr<int32_t>("task_width")
      .template Ret<xla::ffi::Buffer<xla::ffi::U32>>();  // counts
}

template <typename Binding>
auto BindMatchList(Binding&& binding) {
  return BindMatchInputs(std::move(binding))
      .template Attr<int32_t>("num_threads")
      .template Attr<int32_t>("task_width")
      .template Ret<xla::ffi::Buffer<xla::ffi::S32>>()   // rows
      .template Ret<xla::ffi::Buffer<xla::ffi::U32>>();  // found
}

}  // namespace kcjax::match
