// The graph core's FFI targets: name -> handler, per platform (merged by
// ffi/bindings.cc with every family's lists).
#pragma once

#include "kcjax/core/ffi.h"
#include "kcjax/core/task_sizes.h"

namespace kcjax::core {

inline Targets CpuTargets() { return {{"kcjax_task_sizes", kcjax_task_sizes_cpu}}; }

#ifdef KCJAX_WITH_CUDA
inline Targets CudaTargets() { return {{"kcjax_task_sizes", kcjax_task_sizes_cuda}}; }
#endif

}  // namespace kcjax::core
