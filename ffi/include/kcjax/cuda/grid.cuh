// Device primitives of persistent grid-synchronized loops (a cooperative
// launch: every block resident, rounds separated by grid syncs).
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

namespace kcjax::cuda {

// The "something changed" flag of the next round, from three flags in
// rotation: the one reset here (by thread `tid` 0) was last read two grid
// syncs ago, so no block still reads it. `tick` is the caller's rotation
// state (starts at 0, runs on across rounds and loops).
__device__ __forceinline__ int32_t* NextFlag(int32_t* flags, int& tick, int64_t tid) {
  int32_t* flag = flags + tick % 3;
  if (tid == 0) flags[(tick + 1) % 3] = 0;
  tick = (tick + 1) % 3;
  return flag;
}

}  // namespace kcjax::cuda
