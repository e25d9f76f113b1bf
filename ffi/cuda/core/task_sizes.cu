// CUDA handler of "kcjax_task_sizes" (contract in kcjax/core/task_sizes.h):
// one warp per edge task intersects the two out-neighbour lists
// (kcjax/cuda/intersect.cuh), grid-stride over the edges, on the XLA stream.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>

#include "kcjax/core/ffi.h"
#include "kcjax/core/task_sizes.h"
#include "kcjax/cuda/intersect.cuh"
#include "kcjax/cuda/limits.h"
#include "kcjax/cuda/warp.cuh"

namespace ffi = xla::ffi;

namespace kcjax {
namespace {

// Row bounds of vertex w, or false when w or its row is out of range.
__device__ __forceinline__ bool RowOf(const int32_t* indptr, int64_t n, int64_t m, int32_t w,
                                      int32_t& begin, int32_t& end) {
  if (w < 0 || w >= n) return false;
  begin = indptr[w];
  end = indptr[w + 1];
  return 0 <= begin && begin <= end && end <= m;
}

__global__ void __launch_bounds__(kTaskSizesThreads)
    TaskSizesKernel(const int32_t* __restrict__ indptr, const int32_t* __restrict__ indices,
                    const int32_t* __restrict__ src, int64_t n, int64_t m,
                    int32_t* __restrict__ sizes) {
  const int64_t warps = static_cast<int64_t>(gridDim.x) * (blockDim.x / cuda::kWarp);
  for (int64_t e = (static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x) / cuda::kWarp;
       e < m; e += warps) {
    int32_t ub = 0, ue = 0, vb = 0, ve = 0;
    const bool ok = RowOf(indptr, n, m, src[e], ub, ue) && RowOf(indptr, n, m, indices[e], vb, ve);
    // Warp-uniform: every lane read the same edge.
    const int32_t size =
        ok ? cuda::WarpIntersect(indices + ub, ue - ub, indices + vb, ve - vb, nullptr) : -1;
    if (cuda::LaneId() == 0) sizes[e] = size;
  }
}

ffi::Error TaskSizesCuda(cudaStream_t stream, ffi::ScratchAllocator, ffi::Buffer<ffi::S32> indptr,
                         ffi::Buffer<ffi::S32> indices, ffi::Buffer<ffi::S32> src,
                         ffi::ResultBuffer<ffi::S32> sizes) {
  const Reporter rep("kcjax_task_sizes", "CUDA");
  const int64_t n = static_cast<int64_t>(indptr.element_count()) - 1;
  const int64_t m = static_cast<int64_t>(indices.element_count());
  if (auto err = CheckTaskSizesShapes(rep, n + 1, m, src.element_count(), sizes->element_count());
      err.failure()) {
    return err;
  }
  if (m == 0) return ffi::Error::Success();
  int sms = 0;
  if (cudaError_t err = cuda::SmCount(&sms); err != cudaSuccess) {
    return rep.Cuda("querying the SM count", err);
  }
  constexpr int kWarpsPerBlock = kTaskSizesThreads / cuda::kWarp;
  // One warp per edge, at most one full wave of resident blocks.
  const int64_t blocks = std::min<int64_t>(cuda::CeilDiv(m, kWarpsPerBlock),
                                           static_cast<int64_t>(kTaskSizesBlocksPerSm) * sms);
  TaskSizesKernel<<<static_cast<unsigned>(blocks), kTaskSizesThreads, 0, stream>>>(
      indptr.typed_data(), indices.typed_data(), src.typed_data(), n, m, sizes->typed_data());
  if (cudaError_t err = cudaGetLastError(); err != cudaSuccess) {
    return rep.Cuda("launching TaskSizesKernel", err);
  }
  return ffi::Error::Success();
}

}  // namespace
}  // namespace kcjax

XLA_FFI_DEFINE_HANDLER_SYMBOL(kcjax_task_sizes_cuda, kcjax::TaskSizesCuda,
                              kcjax::BindTaskSizes(kcjax::CudaBinding()));
