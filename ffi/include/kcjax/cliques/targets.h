// The clique family's FFI targets: name -> handler, per platform. The Python
// extension (ffi/bindings.cc) merges every family's lists; target names are
// the ones the Python package registers and must not change.
#pragma once

#include "kcjax/cliques/cliques.h"
#include "kcjax/core/ffi.h"

namespace kcjax::cliques {

inline Targets CpuTargets() {
  return {{"kcjax_clique_count", kcjax_clique_count_cpu},
          {"kcjax_clique_list", kcjax_clique_list_cpu},
          {"kcjax_clique_per_vertex", kcjax_clique_per_vertex_cpu},
          {"kcjax_clique_pivot", kcjax_clique_pivot_cpu},
          {"kcjax_clique_pivot_local", kcjax_clique_pivot_local_cpu},
          {"kcjax_clique_maximal", kcjax_clique_maximal_cpu}};
}

#ifdef KCJAX_WITH_CUDA
inline Targets CudaTargets() {
  return {{"kcjax_clique_count", kcjax_clique_count_cuda},
          {"kcjax_clique_list", kcjax_clique_list_cuda},
          {"kcjax_clique_per_vertex", kcjax_clique_per_vertex_cuda},
          {"kcjax_clique_pivot", kcjax_clique_pivot_cuda},
          {"kcjax_clique_pivot_local", kcjax_clique_pivot_local_cuda},
          {"kcjax_clique_maximal", kcjax_clique_maximal_cuda}};
}
#endif

}  // namespace kcjax::cliques
