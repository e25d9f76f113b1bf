// The BFS family's FFI targets: name -> handler, per platform (merged by
// ffi/bindings.cc with every family's lists).
#pragma once

#include "kcjax/bfs/bfs.h"
#include "kcjax/bfs/mesh.h"
#include "kcjax/core/ffi.h"

namespace kcjax::bfs {

inline Targets CpuTargets() {
  return {{"kcjax_bfs", kcjax_bfs_cpu},
          {"kcjax_bfs_mesh_push", kcjax_bfs_mesh_push_cpu},
          {"kcjax_bfs_mesh_pull", kcjax_bfs_mesh_pull_cpu}};
}

#ifdef KCJAX_WITH_CUDA
inline Targets CudaTargets() {
  return {{"kcjax_bfs", kcjax_bfs_cuda},
          {"kcjax_bfs_mesh_push", kcjax_bfs_mesh_push_cuda},
          {"kcjax_bfs_mesh_pull", kcjax_bfs_mesh_pull_cuda}};
}
#endif

}  // namespace kcjax::bfs
