// The BFS family's FFI targets: name -> handler, per platform (merged by
// ffi/bindings.cc with every family's lists).
#pragma once

#include "kcjax/bfs/bfs.h"
#include "kcjax/core/ffi.h"

namespace kcjax::bfs {

inline Targets CpuTargets() { return {{"kcjax_bfs", kcjax_bfs_cpu}}; }

#ifdef KCJAX_WITH_CUDA
inline Targets CudaTargets() { return {{"kcjax_bfs", kcjax_bfs_cuda}}; }
#endif

}  // namespace kcjax::bfs
