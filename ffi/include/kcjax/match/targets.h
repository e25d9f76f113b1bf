// The labeled-matching family's FFI targets: name -> handler, per platform
// (merged by ffi/bindings.cc with every family's lists).
#pragma once

#include "kcjax/core/ffi.h"
#include "kcjax/match/filter.h"
#include "kcjax/match/match.h"

namespace kcjax::match {

inline Targets CpuTargets() {
  return {{"kcjax_match_count", kcjax_match_count_cpu},
          {"kcjax_match_list", kcjax_match_list_cpu},
          {"kcjax_match_filter", kcjax_match_filter_cpu}};
}

#ifdef KCJAX_WITH_CUDA
inline Targets CudaTargets() {
  return {{"kcjax_match_count", kcjax_match_count_cuda},
          {"kcjax_match_list", kcjax_match_list_cuda},
          {"kcjax_match_filter", kcjax_match_filter_cuda}};
}
#endif

}  // namespace kcjax::match
