// CUDA handlers of "kcjax_bfs_mesh_push" and "kcjax_bfs_mesh_pull" (contract in
// kcjax/bfs/mesh.h; kernels in mesh.cu).
#include "kcjax/bfs/mesh_cuda.h"

#include <cuda_runtime.h>

#include <cstdint>

#include "kcjax/bfs/mesh.h"
#include "kcjax/core/ffi.h"
#include "kcjax/cuda/limits.h"
#include "kcjax/cuda/scratch.h"

namespace ffi = xla::ffi;

namespace {

kcjax::cuda::MeshShard Shard(const ffi::Buffer<ffi::S32>& indptr, const ffi::Buffer<ffi::S32>& cols,
                             const kcjax::bfs::MeshShape& shape) {
  return {indptr.typed_data(), cols.typed_data(), shape.words, shape.global_words};
}

ffi::Error MeshPushCuda(cudaStream_t stream, ffi::ScratchAllocator scratch,
                        ffi::Buffer<ffi::S32> indptr, ffi::Buffer<ffi::S32> cols,
                        ffi::Buffer<ffi::U32> front, ffi::Buffer<ffi::U32> visited,
                        ffi::ResultBuffer<ffi::U32> push) {
  const kcjax::Reporter rep("kcjax_bfs_mesh_push", "CUDA");
  kcjax::bfs::MeshShape shape;
  if (auto err = kcjax::bfs::CheckPush(rep, indptr, cols, front, visited, push, &shape);
      err.failure())
    return err;
  int num_sms = 0;
  cudaError_t err = kcjax::cuda::SmCount(&num_sms);
  if (err != cudaSuccess) return rep.Cuda("querying the SM count", err);
  kcjax::cuda::DeviceScratch memory(scratch, stream);
  const kcjax::cuda::MeshShard shard = Shard(indptr, cols, shape);
  const size_t bytes = kcjax::cuda::MeshPushQueueBytes(shard, shape.e);
  void* queue = memory.Allocate(bytes);
  if (queue == nullptr) return rep.Exhausted(bytes, "the queue of frontier edge chunks");
  err = kcjax::cuda::MeshPush(shard, front.typed_data(), visited.typed_data(), push->typed_data(),
                              queue, num_sms, stream);
  if (err != cudaSuccess) return rep.Cuda("top-down push kernels", err);
  return ffi::Error::Success();
}

ffi::Error MeshPullCuda(cudaStream_t stream, ffi::ScratchAllocator, ffi::Buffer<ffi::S32> indptr,
                        ffi::Buffer<ffi::S32> cols, ffi::Buffer<ffi::U32> front,
                        ffi::Buffer<ffi::U32> cand, ffi::Buffer<ffi::S32> level,
                        ffi::Buffer<ffi::S32> dist_in, ffi::Buffer<ffi::S32> parent_in,
                        ffi::ResultBuffer<ffi::S32> dist, ffi::ResultBuffer<ffi::S32> parent,
                        ffi::ResultBuffer<ffi::U32> next, ffi::ResultBuffer<ffi::S32> stats) {
  const kcjax::Reporter rep("kcjax_bfs_mesh_pull", "CUDA");
  kcjax::bfs::MeshShape shape;
  if (auto err = kcjax::bfs::CheckPull(rep, indptr, cols, front, cand, level, dist_in, parent_in,
                                       dist, parent, next, stats, &shape);
      err.failure())
    return err;
  const size_t bytes = shape.words * 32 * sizeof(int32_t);
  // Aliased operands share the results' memory; copy where XLA gave other buffers.
  cudaError_t err = cudaSuccess;
  if (dist->typed_data() != dist_in.typed_data())
    err = cudaMemcpyAsync(dist->typed_data(), dist_in.typed_data(), bytes, cudaMemcpyDeviceToDevice,
                          stream);
  if (err == cudaSuccess && parent->typed_data() != parent_in.typed_data())
    err = cudaMemcpyAsync(parent->typed_data(), parent_in.typed_data(), bytes,
                          cudaMemcpyDeviceToDevice, stream);
  if (err != cudaSuccess) return rep.Cuda("copying dist and parent", err);
  int num_sms = 0;
  err = kcjax::cuda::SmCount(&num_sms);
  if (err != cudaSuccess) return rep.Cuda("querying the SM count", err);
  err = kcjax::cuda::MeshPull(Shard(indptr, cols, shape), front.typed_data(), cand.typed_data(),
                              level.typed_data(), dist->typed_data(), parent->typed_data(),
                              next->typed_data(), stats->typed_data(), num_sms, stream);
  if (err != cudaSuccess) return rep.Cuda("pull kernel", err);
  return ffi::Error::Success();
}

}  // namespace

XLA_FFI_DEFINE_HANDLER_SYMBOL(kcjax_bfs_mesh_push_cuda, MeshPushCuda,
                              kcjax::bfs::BindMeshPush(kcjax::CudaBinding()));
XLA_FFI_DEFINE_HANDLER_SYMBOL(kcjax_bfs_mesh_pull_cuda, MeshPullCuda,
                              kcjax::bfs::BindMeshPull(kcjax::CudaBinding()));
