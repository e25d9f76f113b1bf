// CUDA handler of "kcjax_bfs" (contract in ffi/include/kcjax/bfs/bfs.h).
#include "kcjax/bfs/bfs_cuda.h"

#include <cuda_runtime.h>

#include <cstdint>
#include <string>

#include "kcjax/bfs/args.h"
#include "kcjax/bfs/bfs.h"
#include "kcjax/core/ffi.h"
#include "kcjax/cuda/scratch.h"

namespace ffi = xla::ffi;

namespace kcjax::bfs {
namespace {

ffi::Error BfsCuda(cudaStream_t stream, ffi::ScratchAllocator scratch, ffi::Buffer<ffi::S32> indptr,
                   ffi::Buffer<ffi::S32> indices, ffi::Buffer<ffi::S32> sources, int32_t method,
                   int32_t direction, int32_t batch, int32_t hub_tau, int32_t cluster,
                   ffi::ResultBuffer<ffi::S32> dist, ffi::ResultBuffer<ffi::S32> parent) {
  const Reporter rep("kcjax_bfs", "CUDA");
  Shape shape;
  if (auto err = CheckArgs(rep, indptr, indices, sources, method, direction, batch, cluster, dist,
                           parent, &shape);
      err.failure()) {
    return err;
  }
  BfsProblem p;
  p.indptr = indptr.typed_data();
  p.indices = indices.typed_data();
  p.sources = sources.typed_data();
  p.n = shape.n;
  p.m = shape.m;
  p.s = shape.s;
  const bool want_parents = shape.want_parents;
  if (p.n == 0 || p.s == 0) return ffi::Error::Success();
  p.dist = dist->typed_data();
  p.parent = want_parents ? parent->typed_data() : nullptr;
  p.method = method;
  p.direction = direction;
  p.bitset = batch == kBfsBitset && p.s > 1;
  p.tau = HubTau(p.n, p.m, hub_tau);
  p.cluster = cluster;

  int num_sms = 0;
  cudaError_t err = cuda::SmCount(&num_sms);
  if (err != cudaSuccess) return rep.Cuda("querying the SM count", err);
  BfsPlan plan;
  err = PlanBfs(p, num_sms, &plan);
  if (err != cudaSuccess) return rep.Cuda("planning the BFS kernel (occupancy, cluster size)", err);
  cuda::DeviceScratch memory(scratch, stream);
  void* buf = nullptr;
  if (plan.scratch_bytes > 0) {
    buf = memory.Allocate(plan.scratch_bytes);
    if (buf == nullptr)
      return rep.Exhausted(plan.scratch_bytes, "the BFS queues and status arrays");
  }
  err = RunBfs(p, plan, buf, stream);
  if (err != cudaSuccess) return rep.Cuda("BFS kernel launch", err);
  return ffi::Error::Success();
}

}  // namespace
}  // namespace kcjax::bfs

XLA_FFI_DEFINE_HANDLER_SYMBOL(kcjax_bfs_cuda, kcjax::bfs::BfsCuda,
                              kcjax::bfs::BindBfs(kcjax::CudaBinding()));
