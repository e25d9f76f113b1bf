// The operand checks both "kcjax_bfs" handlers make (one code, the same messages
// on CPU and CUDA, through the shared Reporter).
#pragma once

#include <cstdint>
#include <string>
#include <utility>

#include "kcjax/bfs/bfs.h"
#include "kcjax/core/ffi.h"

namespace kcjax::bfs {

// The sizes of one call: n vertices, m CSR entries, s sources.
struct Shape {
  int64_t n = 0;
  int64_t m = 0;
  int64_t s = 0;
  bool want_parents = false;
};

// Every dimension but the last has extent 1 (an unbatched operand).
inline bool Unbatched(const xla::ffi::Buffer<xla::ffi::S32>& b) {
  const auto dims = b.dimensions();
  return dims.size() != 0 && static_cast<int64_t>(b.element_count()) == dims.back();
}

inline xla::ffi::Error CheckArgs(const Reporter& rep, const xla::ffi::Buffer<xla::ffi::S32>& indptr,
                                 const xla::ffi::Buffer<xla::ffi::S32>& indices,
                                 const xla::ffi::Buffer<xla::ffi::S32>& sources, int32_t method,
                                 int32_t direction, int32_t batch, int32_t cluster,
                                 xla::ffi::ResultBuffer<xla::ffi::S32>& dist,
                                 xla::ffi::ResultBuffer<xla::ffi::S32>& parent, Shape* shape) {
  if (!Unbatched(indptr) || indptr.element_count() < 1)
    return rep.Invalid("indptr must be int32[n + 1] (batching over graphs is not supported)");
  if (!Unbatched(indices)) return rep.Invalid("indices must be int32[m] (one graph per call)");
  if (sources.dimensions().size() == 0) return rep.Invalid("sources must be an int32 array of ids");
  if (method < 0 || method >= kNumBfsMethods) return rep.Invalid("unknown method");
  if (direction < 0 || direction >= kNumBfsDirections) return rep.Invalid("unknown direction");
  if (batch < 0 || batch >= kNumBfsBatches) return rep.Invalid("unknown batch mode");
  if (cluster > 16)
    return rep.Invalid(
        "cluster must be 1 to 16 blocks, 0 for the grid kernel, or negative for the policy's "
        "size");
  shape->n = static_cast<int64_t>(indptr.element_count()) - 1;
  shape->m = static_cast<int64_t>(indices.element_count());
  shape->s = static_cast<int64_t>(sources.element_count());
  if (shape->m >= (int64_t{1} << 31)) return rep.Invalid("more than 2^31 - 1 CSR entries");
  const int64_t cells = shape->s * shape->n;
  if (static_cast<int64_t>(dist->element_count()) != cells)
    return rep.Invalid("dist must be int32[..., s, n] = " + std::to_string(cells) + " elements");
  shape->want_parents = parent->element_count() != 0;
  if (shape->want_parents && static_cast<int64_t>(parent->element_count()) != cells)
    return rep.Invalid("parent must be int32[..., s, n] or int32[..., s, 0]");
  return xla::ffi::Error::Success();
}

// FFI signature of "kcjax_bfs", shared by its CPU and CUDA handlers: binding
// is kcjax::CpuBinding() or kcjax::CudaBinding().
template <typename Binding>
auto BindBfs(Binding&& binding) {
  using xla::ffi::Buffer, xla::ffi::S32;
  return std::move(binding)
      .template Arg<Buffer<S32>>()  // indptr
      .template Arg<Buffer<S32>>()  // indices
      .template Arg<Buffer<S32>>()  // sources
      .template Attr<int32_t>("method")
      .template Attr<int32_t>("direction")
      .template Attr<int32_t>("batch")
      .template Attr<int32_t>("hub_tau")
      .template Attr<int32_t>("cluster")
      .template Ret<Buffer<S32>>()   // dist
      .template Ret<Buffer<S32>>();  // parent
}

}  // namespace kcjax::bfs
