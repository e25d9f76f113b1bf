// Host-side constants shared by every CUDA family.
#pragma once

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

}  // namespace kcjax::cuda
