// CUDA handlers of "kcjax_match_count" and "kcjax_match_list" (contracts in
// kcjax/match/match.h): the operands checked as by the CPU twins
// (ffi/cpu/match/match.cc), then the launchers of match.cu run the search.
#include "kcjax/match/match_cuda.h"

#include <cuda_runtime.h>

#include <cstdint>

#include "kcjax/core/ffi.h"
#include "kcjax/cuda/scratch.h"
#include "kcjax/match/args.h"

namespace ffi = xla::ffi;

namespace kcjax::match {
namespace {

ffi::Error MatchCountCuda(cudaStream_t stream, ffi::ScratchAllocator scratch_alloc,
                          ffi::Buffer<ffi::S32> indptr, ffi::Buffer<ffi::S32> indices,
                          ffi::Buffer<ffi::S32> mult, ffi::Buffer<ffi::U32> cand,
                          ffi::Buffer<ffi::S32> plan, ffi::Buffer<ffi::S32> lists,
                          ffi::Buffer<ffi::S32> roots, ffi::Buffer<ffi::S32> task_ptr,
                          ffi::Buffer<ffi::S32> leaf_sum, bool per_root, int32_t /*num_threads*/,
                          int32_t task_width, ffi::ResultBuffer<ffi::U32> out) {
  const Reporter rep("kcjax_match_count", "CUDA");
  const Inputs in{indptr, indices, mult, cand, plan, lists, roots, task_ptr, leaf_sum};
  MatchView view;
  if (auto err = CheckInputs(rep, in, task_width, &view); err.failure()) return err;
  if (auto err = CheckCounts(rep, in, per_root, out); err.failure()) return err;
  const MatchSearch s{view, roots.typed_data(), task_ptr.typed_data(),
                      static_cast<int64_t>(roots.element_count()), task_width};
  cuda::DeviceScratch scratch(scratch_alloc, stream);
  return RunCount(s, per_root, out->typed_data(), out->size_bytes(), scratch, rep, stream);
}

ffi::Error MatchListCuda(cudaStream_t stream, ffi::ScratchAllocator scratch_alloc,
                         ffi::Buffer<ffi::S32> indptr, ffi::Buffer<ffi::S32> indices,
                         ffi::Buffer<ffi::S32> mult, ffi::Buffer<ffi::U32> cand,
                         ffi::Buffer<ffi::S32> plan, ffi::Buffer<ffi::S32> lists,
                         ffi::Buffer<ffi::S32> roots, ffi::Buffer<ffi::S32> task_ptr,
                         ffi::Buffer<ffi::S32> leaf_sum, int32_t /*num_threads*/,
                         int32_t task_width, ffi::ResultBuffer<ffi::S32> rows,
                         ffi::ResultBuffer<ffi::U32> found_out) {
  const Reporter rep("kcjax_match_list", "CUDA");
  const Inputs in{indptr, indices, mult, cand, plan, lists, roots, task_ptr, leaf_sum};
  MatchView view;
  if (auto err = CheckInputs(rep, in, task_width, &view); err.failure()) return err;
  if (auto err = CheckListing(rep, view, rows, found_out); err.failure()) return err;
  const MatchSearch s{view, roots.typed_data(), task_ptr.typed_data(),
                      static_cast<int64_t>(roots.element_count()), task_width};
  cuda::DeviceScratch scratch(scratch_alloc, stream);
  return RunList(s, rows->typed_data(), rows->dimensions()[0], found_out->typed_data(), scratch,
                 rep, stream);
}

}  // namespace
}  // namespace kcjax::match

XLA_FFI_DEFINE_HANDLER_SYMBOL(kcjax_match_count_cuda, kcjax::match::MatchCountCuda,
                              kcjax::match::BindMatchCount(kcjax::CudaBinding()));
XLA_FFI_DEFINE_HANDLER_SYMBOL(kcjax_match_list_cuda, kcjax::match::MatchListCuda,
                              kcjax::match::BindMatchList(kcjax::CudaBinding()));
