// CUDA handlers of "kcjax_bfs_mesh_push" and "kcjax_bfs_mesh_pull" (contract in
// kcjax/bfs/mesh.h; kernels in mesh.cu).
#include "kcjax/bfs/mesh_cuda.h"

#include <cuda_runtime.h>

#include <cstdint>

#include "kcjax/bfs/mesh.h"
#include "kcjax/core/ffi.h"
#include "kcjax/cuda/limits.h"

namespace ffi = xla::ffi;

namespace kcjax::bfs {
namespace {

// Copies `count` elements unless the two buffers are one (an aliased operand).
template <typename T>
cudaError_t Copy(T* to, const T* from, int64_t count, cudaStream_t stream) {
  if (to == from || count == 0) return cudaSuccess;
  return cudaMemcpyAsync(to, from, count * sizeof(T), cudaMemcpyDeviceToDevice, stream);
}

MeshShard Shard(const ffi::Buffer<ffi::S32>& indptr, const ffi::Buffer<ffi::S32>& cols,
                const MeshShape& shape) {
  return {indptr.typed_data(), cols.typed_data(), shape.words, shape.global_words};
}

ffi::Error MeshPushCuda(cudaStream_t stream, ffi::ScratchAllocator, ffi::Buffer<ffi::S32> indptr,
                        ffi::Buffer<ffi::S32> cols, ffi::Buffer<ffi::U32> front,
                        ffi::Buffer<ffi::U32> visited, ffi::Buffer<ffi::S32> mode,
                        ffi::ResultBuffer<ffi::U32> push, ffi::ResultBuffer<ffi::S32> queue) {
  const Reporter rep("kcjax_bfs_mesh_push", "CUDA");
  MeshShape shape;
  if (auto err = CheckPush(rep, indptr, cols, front, visited, mode, push, queue, &shape);
      err.failure())
    return err;
  int num_sms = 0;
  cudaError_t err = cuda::SmCount(&num_sms);
  if (err != cudaSuccess) return rep.Cuda("querying the SM count", err);
  err = MeshPush(Shard(indptr, cols, shape), front.typed_data(), visited.typed_data(),
                 mode.typed_data(), push->typed_data(), queue->typed_data(), num_sms, stream);
  if (err != cudaSuccess) return rep.Cuda("top-down push kernels", err);
  return ffi::Error::Success();
}

ffi::Error MeshPullCuda(cudaStream_t stream, ffi::ScratchAllocator, ffi::Buffer<ffi::S32> indptr,
                        ffi::Buffer<ffi::S32> cols, ffi::Buffer<ffi::U32> front,
                        ffi::Buffer<ffi::U32> got, ffi::Buffer<ffi::U32> seen_in,
                        ffi::Buffer<ffi::S32> mode, ffi::Buffer<ffi::S32> level,
                        ffi::Buffer<ffi::S32> dist_in, ffi::Buffer<ffi::S32> parent_in,
                        ffi::ResultBuffer<ffi::S32> dist, ffi::ResultBuffer<ffi::S32> parent,
                        ffi::ResultBuffer<ffi::U32> seen, ffi::ResultBuffer<ffi::U32> msg,
                        ffi::ResultBuffer<ffi::S32> queue) {
  const Reporter rep("kcjax_bfs_mesh_pull", "CUDA");
  MeshShape shape;
  if (auto err = CheckPull(rep, indptr, cols, front, got, seen_in, mode, level, dist_in, parent_in,
                           dist, parent, seen, msg, queue, &shape);
      err.failure())
    return err;
  // Aliased operands share the results' memory; copy where XLA gave other buffers.
  cudaError_t err = Copy(dist->typed_data(), dist_in.typed_data(), 32 * shape.words, stream);
  if (err == cudaSuccess)
    err = Copy(parent->typed_data(), parent_in.typed_data(), 32 * shape.words, stream);
  if (err == cudaSuccess) err = Copy(seen->typed_data(), seen_in.typed_data(), shape.words, stream);
  if (err != cudaSuccess) return rep.Cuda("copying dist, parent and seen", err);
  int num_sms = 0;
  err = cuda::SmCount(&num_sms);
  if (err != cudaSuccess) return rep.Cuda("querying the SM count", err);
  err = MeshPull(Shard(indptr, cols, shape), front.typed_data(), got.typed_data(), shape.parts,
                 mode.typed_data(), level.typed_data(), dist->typed_data(), parent->typed_data(),
                 seen->typed_data(), msg->typed_data(), queue->typed_data(), num_sms, stream);
  if (err != cudaSuccess) return rep.Cuda("pull kernel", err);
  return ffi::Error::Success();
}

}  // namespace
}  // namespace kcjax::bfs

// Command-buffer compatible: the handlers only enqueue work on their stream (no scratch,
// no memset, no read-back), so XLA may record a level's steps with its other operations.
XLA_FFI_DEFINE_HANDLER_SYMBOL(kcjax_bfs_mesh_push_cuda, kcjax::bfs::MeshPushCuda,
                              kcjax::bfs::BindMeshPush(kcjax::CudaBinding()),
                              {xla::ffi::Traits::kCmdBufferCompatible});
XLA_FFI_DEFINE_HANDLER_SYMBOL(kcjax_bfs_mesh_pull_cuda, kcjax::bfs::MeshPullCuda,
                              kcjax::bfs::BindMeshPull(kcjax::CudaBinding()),
                              {xla::ffi::Traits::kCmdBufferCompatible});
