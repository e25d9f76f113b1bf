// CUDA handler of "kcjax_bfs" (contract in ffi/include/kcjax/bfs/bfs.h).
#include <cuda_runtime.h>

#include <cstdint>
#include <string>

#include "kcjax/bfs/bfs.h"
#include "kcjax/bfs/bfs_cuda.h"
#include "kcjax/cuda_scratch.h"

namespace ffi = xla::ffi;

namespace {

ffi::Error CudaError(const char* what, cudaError_t err) {
  return ffi::Error::Internal(std::string("kcjax_bfs (CUDA): ") + what + ": " +
                              cudaGetErrorName(err) + ": " + cudaGetErrorString(err));
}

ffi::Error Invalid(const std::string& msg) {
  return ffi::Error::InvalidArgument("kcjax_bfs (CUDA): " + msg);
}

bool Unbatched(const ffi::Buffer<ffi::S32>& b) {
  const auto dims = b.dimensions();
  return dims.size() != 0 && static_cast<int64_t>(b.element_count()) == dims.back();
}

ffi::Error BfsCuda(cudaStream_t stream, ffi::ScratchAllocator scratch,
                   ffi::Buffer<ffi::S32> indptr, ffi::Buffer<ffi::S32> indices,
                   ffi::Buffer<ffi::S32> sources, int32_t method, int32_t direction,
                   int32_t batch, int32_t hub_tau, ffi::ResultBuffer<ffi::S32> dist,
                   ffi::ResultBuffer<ffi::S32> parent) {
  if (!Unbatched(indptr) || indptr.element_count() < 1)
    return Invalid("indptr must be int32[n + 1] (batching over graphs is not supported)");
  if (!Unbatched(indices)) return Invalid("indices must be int32[m] (one graph per call)");
  if (sources.dimensions().size() == 0) return Invalid("sources must be an int32 array of ids");
  if (method < 0 || method >= kcjax::kNumBfsMethods) return Invalid("unknown method");
  if (direction < 0 || direction >= kcjax::kNumBfsDirections) return Invalid("unknown direction");
  if (batch < 0 || batch >= kcjax::kNumBfsBatches) return Invalid("unknown batch mode");
  kcjax::cuda::BfsProblem p;
  p.indptr = indptr.typed_data();
  p.indices = indices.typed_data();
  p.sources = sources.typed_data();
  p.n = static_cast<int64_t>(indptr.element_count()) - 1;
  p.m = static_cast<int64_t>(indices.element_count());
  p.s = static_cast<int64_t>(sources.element_count());
  if (static_cast<int64_t>(dist->element_count()) != p.s * p.n)
    return Invalid("dist must be int32[..., s, n]");
  const bool want_parents = parent->element_count() != 0;
  if (want_parents && static_cast<int64_t>(parent->element_count()) != p.s * p.n)
    return Invalid("parent must be int32[..., s, n] or int32[..., s, 0]");
  if (p.m >= (int64_t{1} << 31)) return Invalid("more than 2^31 - 1 CSR entries");
  if (p.n == 0 || p.s == 0) return ffi::Error::Success();
  p.dist = dist->typed_data();
  p.parent = want_parents ? parent->typed_data() : nullptr;
  p.method = method;
  p.direction = direction;
  p.bitset = batch == kcjax::kBfsBitset && p.s > 1;
  p.tau = kcjax::HubTau(p.n, p.m, hub_tau);

  int dev = 0, num_sms = 0;
  cudaError_t err = cudaGetDevice(&dev);
  if (err != cudaSuccess) return CudaError("cudaGetDevice", err);
  err = cudaDeviceGetAttribute(&num_sms, cudaDevAttrMultiProcessorCount, dev);
  if (err != cudaSuccess) return CudaError("cudaDeviceGetAttribute(SM count)", err);
  kcjax::cuda::BfsPlan plan;
  err = kcjax::cuda::PlanBfs(p, num_sms, &plan);
  if (err != cudaSuccess) return CudaError("planning the BFS kernel (occupancy)", err);
  kcjax::DeviceScratch memory(scratch, stream);
  void* buf = memory.Allocate(plan.scratch_bytes);
  if (buf == nullptr)
    return ffi::Error(ffi::ErrorCode::kResourceExhausted,
                      "kcjax_bfs (CUDA): cannot allocate " + std::to_string(plan.scratch_bytes) +
                          " bytes of scratch");
  err = kcjax::cuda::RunBfs(p, plan, buf, stream);
  if (err != cudaSuccess) return CudaError("BFS kernel launch", err);
  return ffi::Error::Success();
}

}  // namespace

XLA_FFI_DEFINE_HANDLER_SYMBOL(kcjax_bfs_cuda, BfsCuda,
                              ffi::Ffi::Bind()
                                  .Ctx<ffi::PlatformStream<cudaStream_t>>()
                                  .Ctx<ffi::ScratchAllocator>()
                                  .Arg<ffi::Buffer<ffi::S32>>()  // indptr
                                  .Arg<ffi::Buffer<ffi::S32>>()  // indices
                                  .Arg<ffi::Buffer<ffi::S32>>()  // sources
                                  .Attr<int32_t>("method")
                                  .Attr<int32_t>("direction")
                                  .Attr<int32_t>("batch")
                                  .Attr<int32_t>("hub_tau")
                                  .Ret<ffi::Buffer<ffi::S32>>()  // dist
                                  .Ret<ffi::Buffer<ffi::S32>>()  // parent
);
