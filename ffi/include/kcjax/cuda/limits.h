// Host-side constants and device queries shared by every CUDA family.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>

namespace kcjax::cuda {

// Alignment of every piece of device scratch (DeviceScratch's pointers and
// the offsets the planners carve out of them): a CUB temporary-storage and
// coalescing-friendly boundary.
inline constexpr size_t kScratchAlign = 256;
// Devices for which per-device state (memory pools, side streams) is kept.
inline constexpr int kMaxDevices = 64;
// Scratch memory kcjax's own CUDA memory pool keeps mapped between calls
// (kcjax/cuda/scratch.h): a call's scratch up to this size is reused by the
// next call instead of being mapped again after every synchronization.
inline constexpr long long kScratchPoolKeepBytes = 4LL << 30;

// The number of SMs of the current device (the grid size unit of every
// persistent kernel).
inline cudaError_t SmCount(int* sms) {
  int device = 0;
  const cudaError_t err = cudaGetDevice(&device);
  if (err != cudaSuccess) return err;
  return cudaDeviceGetAttribute(sms, cudaDevAttrMultiProcessorCount, device);
}

}  // namespace kcjax::cuda
