// Tuning constants of the labeled-matching CUDA kernels (one reason each).
#pragma once

namespace kcjax::match {

struct MatchPolicy {
  static constexpr int kWarpsPerBlock = 8;  // 256 threads: enough warps per SM to hide gathers
};

}  // namespace kcjax::match
