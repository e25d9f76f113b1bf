// CUDA handlers of "kcjax_truss" and "kcjax_truss_triangle_edges" (contracts in
// kcjax/truss/truss.h): the operands checked as by the CPU twins
// (ffi/cpu/truss/truss.cc), then the launchers of truss.cu run the call.
#include "kcjax/truss/truss_cuda.h"

#include <cuda_runtime.h>

#include <cstdint>
#include <string>

#include "kcjax/core/ffi.h"
#include "kcjax/cuda/scratch.h"
#include "kcjax/truss/args.h"

namespace ffi = xla::ffi;

namespace kcjax::truss {
namespace {

ffi::Error TrussCuda(cudaStream_t stream, ffi::ScratchAllocator xla_scratch,
                     ffi::Buffer<ffi::S32> indptr, ffi::Buffer<ffi::S32> indices,
                     ffi::Buffer<ffi::S32> eid, ffi::Buffer<ffi::S32> esrc,
                     ffi::Buffer<ffi::S32> edst, ffi::Buffer<ffi::S32> dag_indptr,
                     ffi::Buffer<ffi::S32> dag_indices, ffi::Buffer<ffi::S32> dag_src,
                     ffi::Buffer<ffi::S32> dag_eid, ffi::Buffer<ffi::S32> core,
                     ffi::Buffer<ffi::S32> kbuf, int32_t mode, int32_t method,
                     int32_t /*num_threads*/, int64_t store_entries,
                     ffi::Result<ffi::AnyBuffer> out) {
  const Reporter report("kcjax_truss", "CUDA");
  const std::string bad = CheckTrussCall(
      indptr.element_count(), indices.element_count(), eid.element_count(), esrc.element_count(),
      edst.element_count(), dag_indptr.element_count(), dag_indices.element_count(),
      dag_src.element_count(), dag_eid.element_count(), core.element_count(), kbuf.element_count(),
      out->element_count(), out->element_type() == ffi::PRED, mode, method, store_entries);
  if (!bad.empty()) return report.Invalid(bad);
  const TrussProblem p{indptr.typed_data(),
                       indices.typed_data(),
                       eid.typed_data(),
                       esrc.typed_data(),
                       edst.typed_data(),
                       dag_indptr.typed_data(),
                       dag_indices.typed_data(),
                       dag_src.typed_data(),
                       dag_eid.typed_data(),
                       core.element_count() > 0 ? core.typed_data() : nullptr,
                       kbuf.typed_data(),
                       static_cast<int32_t>(indptr.element_count() - 1),
                       static_cast<int32_t>(indices.element_count() / 2),
                       static_cast<TrussMode>(mode),
                       static_cast<SupportMethod>(method),
                       store_entries,
                       out->untyped_data()};
  if (p.m == 0) return ffi::Error::Success();
  cuda::DeviceScratch scratch(xla_scratch, stream);
  return RunTruss(p, scratch, report, stream);
}

ffi::Error TriangleEdgesCuda(cudaStream_t stream, ffi::ScratchAllocator /*unused*/,
                             ffi::Buffer<ffi::S32> indptr, ffi::Buffer<ffi::S32> indices,
                             ffi::Buffer<ffi::S32> esrc, ffi::Buffer<ffi::S32> edst,
                             int32_t /*num_threads*/, ffi::ResultBuffer<ffi::PRED> out) {
  const Reporter report("kcjax_truss_triangle_edges", "CUDA");
  const std::string bad =
      CheckTriangleEdgesCall(indptr.element_count(), indices.element_count(), esrc.element_count(),
                             edst.element_count(), out->element_count());
  if (!bad.empty()) return report.Invalid(bad);
  const int32_t m = static_cast<int32_t>(esrc.element_count());
  if (m == 0) return ffi::Error::Success();
  return RunTriangleEdges(indptr.typed_data(), indices.typed_data(), esrc.typed_data(),
                          edst.typed_data(), m, out->typed_data(), report, stream);
}

}  // namespace
}  // namespace kcjax::truss

XLA_FFI_DEFINE_HANDLER_SYMBOL(kcjax_truss_cuda, kcjax::truss::TrussCuda,
                              kcjax::truss::BindTruss(kcjax::CudaBinding()));
XLA_FFI_DEFINE_HANDLER_SYMBOL(kcjax_truss_triangle_edges_cuda, kcjax::truss::TriangleEdgesCuda,
                              kcjax::truss::BindTriangleEdges(kcjax::CudaBinding()));
