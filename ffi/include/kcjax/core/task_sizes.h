// FFI target "kcjax_task_sizes": the candidate-set size of every edge task
// of an oriented DAG, the key the tasks stage sorts and classes by, and the
// input of the clique counters' cost estimate (kcjax/cliques/auto.py).
//
// Arguments (int32, device or host memory of the handler's platform):
//   indptr  [n + 1]  DAG rows (u -> v only if u < v, rows ascending)
//   indices [m]
//   src     [m]      the row of every edge
// Result:
//   sizes   [m]      sizes[e] = |N+(src[e]) ∩ N+(indices[e])|: the triangles
//                    whose two lowest vertices are edge e's ends
//
// The CPU handler checks the whole DAG first (an invalid one is an error);
// the CUDA handler does not read the graph back to the host, so it range-
// checks every edge in the kernel instead and writes -1 for an edge whose
// ends or rows are out of range (the wrapper turns that into an error).
#pragma once

#include <cstdint>
#include <string>
#include <utility>

#include "kcjax/core/ffi.h"
#include "xla/ffi/api/ffi.h"

XLA_FFI_DECLARE_HANDLER_SYMBOL(kcjax_task_sizes_cpu);
#ifdef KCJAX_WITH_CUDA
XLA_FFI_DECLARE_HANDLER_SYMBOL(kcjax_task_sizes_cuda);
#endif

namespace kcjax {

// Threads per block of the CUDA kernel (one warp per edge task, grid-stride):
// eight warps per block keeps every SM busy at a modest register count.
inline constexpr int kTaskSizesThreads = 256;
// Most blocks per SM of one launch: eight 256-thread blocks are an SM's full
// 2,048 threads; more edges than that are served grid-stride.
inline constexpr int kTaskSizesBlocksPerSm = 8;

// FFI signature of "kcjax_task_sizes", shared by its CPU and CUDA handlers:
// binding is kcjax::CpuBinding() or kcjax::CudaBinding().
template <typename Binding>
auto BindTaskSizes(Binding&& binding) {
  using xla::ffi::Buffer, xla::ffi::S32;
  return std::move(binding)
      .template Arg<Buffer<S32>>()   // indptr
      .template Arg<Buffer<S32>>()   // indices
      .template Arg<Buffer<S32>>()   // src
      .template Ret<Buffer<S32>>();  // sizes
}

// The operand shapes both handlers check: n = len(indptr) - 1 >= 0, and src
// and sizes as long as indices (m).
inline xla::ffi::Error CheckTaskSizesShapes(const Reporter& rep, int64_t indptr_len, int64_t m,
                                            int64_t src_len, int64_t sizes_len) {
  if (indptr_len < 1) return rep.Invalid("indptr must hold num_nodes + 1 >= 1 entries");
  if (src_len != m || sizes_len != m) {
    return rep.Invalid("src and the result must have len(indices)=" + std::to_string(m) +
                       " entries");
  }
  return xla::ffi::Error::Success();
}

}  // namespace kcjax
