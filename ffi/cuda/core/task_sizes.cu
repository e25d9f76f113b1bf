// CUDA handler of "kcjax_task_sizes" (contract in kcjax/core/task_sizes.h):
// a lane per edge task sizes short lists, a warp per task the long ones
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

// A warp takes 32 consecutive edges. A lane sizes its own edge when the
// shorter list holds at most kTaskSizesLaneMax entries; the warp then
// intersects the longer ones together, one at a time.
__global__ void __launch_bounds__(kTaskSizesThreads)
    TaskSizesKernel(const int32_t* __restrict__ indptr, const int32_t* __restrict__ indices,
                    const int32_t* __restrict__ src, int64_t n, int64_t m,
                    int32_t* __restrict__ sizes) {
  const int lane = cuda::LaneId();
  const int64_t warps = static_cast<int64_t>(gridDim.x) * (blockDim.x / cuda::kWarp);
  const int64_t first = (static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x) / cuda::kWarp;
  for (int64_t base = first * cuda::kWarp; base < m; base += warps * cuda::kWarp) {
    const int64_t e = base + lane;
    int32_t ub = 0, ue = 0, vb = 0, ve = 0, size = -1;
    bool warp_task = false;
    if (e < m && RowOf(indptr, n, m, src[e], ub, ue) && RowOf(indptr, n, m, indices[e], vb, ve)) {
      warp_task = min(ue - ub, ve - vb) > kTaskSizesLaneMax;
      if (!warp_task) size = cuda::LaneIntersect(indices + ub, ue - ub, indices + vb, ve - vb);
    }
    for (unsigned todo = __ballot_sync(cuda::kFull, warp_task); todo != 0u; todo &= todo - 1) {
      const int j = __ffs(todo) - 1;
      const int32_t jub = __shfl_sync(cuda::kFull, ub, j), jue = __shfl_sync(cuda::kFull, ue, j);
      const int32_t jvb = __shfl_sync(cuda::kFull, vb, j), jve = __shfl_sync(cuda::kFull, ve, j);
      const int32_t s =
          cuda::WarpIntersect(indices + jub, jue - jub, indices + jvb, jve - jvb, nullptr);
      if (lane == j) size = s;
    }
    if (e < m) sizes[e] = size;
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
  // 32 edges per warp, at most one full wave of resident blocks.
  const int64_t blocks =
      std::min<int64_t>(cuda::CeilDiv(cuda::CeilDiv(m, cuda::kWarp), kWarpsPerBlock),
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
