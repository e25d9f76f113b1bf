// The k-truss family's FFI targets: name -> handler, per platform (merged by
// ffi/bindings.cc with every family's lists).
#pragma once

#include "kcjax/core/ffi.h"
#include "kcjax/truss/truss.h"

namespace kcjax::truss {

inline Targets CpuTargets() {
  return {{"kcjax_truss", kcjax_truss_cpu},
          {"kcjax_truss_triangle_edges", kcjax_truss_triangle_edges_cpu}};
}

#ifdef KCJAX_WITH_CUDA
inline Targets CudaTargets() {
  return {{"kcjax_truss", kcjax_truss_cuda},
          {"kcjax_truss_triangle_edges", kcjax_truss_triangle_edges_cuda}};
}
#endif

}  // namespace kcjax::truss
