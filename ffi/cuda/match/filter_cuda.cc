// CUDA handler of "kcjax_match_filter" (contract in kcjax/match/filter.h): the
// operands checked as by the CPU twin (ffi/cpu/match/filter.cc), then filter.cu's
// launcher enqueues the rounds.
#include "kcjax/match/filter_cuda.h"

#include <cuda_runtime.h>

#include <cstdint>

#include "kcjax/core/ffi.h"
#include "kcjax/match/filter.h"

namespace ffi = xla::ffi;

namespace kcjax::match {
namespace {

ffi::Error MatchFilterCuda(cudaStream_t stream, ffi::ScratchAllocator /*scratch*/,
                           ffi::Buffer<ffi::S32> indptr, ffi::Buffer<ffi::S32> indices,
                           ffi::Buffer<ffi::S32> slot, ffi::Buffer<ffi::U32> cand,
                           ffi::Buffer<ffi::S32> need, ffi::Buffer<ffi::U32> adj,
                           ffi::Buffer<ffi::S32> refine, int32_t rounds,
                           ffi::ResultBuffer<ffi::U32> out, ffi::ResultBuffer<ffi::S32> info,
                           ffi::ResultBuffer<ffi::U32> work) {
  const Reporter rep("kcjax_match_filter", "CUDA");
  const FilterIo io{indptr, indices, slot, cand, need, adj, refine, out, info, work};
  if (auto err = CheckFilter(rep, io, rounds); err.failure()) return err;
  const int64_t n = static_cast<int64_t>(indptr.element_count()) - 1;
  uint32_t* spare = work->typed_data();
  auto* flags = reinterpret_cast<int32_t*>(spare + n);
  FilterArgs A{indptr.typed_data(),
               indices.typed_data(),
               slot.typed_data(),
               cand.typed_data(),
               out->typed_data(),
               spare,
               need.typed_data(),
               adj.typed_data(),
               refine.typed_data(),
               info->typed_data(),
               flags,
               n,
               static_cast<int32_t>(adj.element_count()),
               rounds};
  return RunFilter(A, rep, stream);
}

}  // namespace
}  // namespace kcjax::match

// Command-buffer compatible: the handler only enqueues work on its stream (no
// allocation, no host read-back), so XLA may capture it with its neighbours.
XLA_FFI_DEFINE_HANDLER_SYMBOL(kcjax_match_filter_cuda, kcjax::match::MatchFilterCuda,
                              kcjax::match::BindMatchFilter(kcjax::CudaBinding()),
                              {xla::ffi::Traits::kCmdBufferCompatible});
