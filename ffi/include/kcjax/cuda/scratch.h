// Temporary device memory for one CUDA FFI call.
//
// XLA's scratch allocator is tried first (it draws from JAX's memory pool).
// Where it cannot serve the request (some jaxlib builds give FFI handlers no
// device allocator), the memory comes from a stream-ordered memory pool that
// kcjax owns, one per device, and is released on the same stream when the
// call ends, after every kernel that uses it. Pointers are 256-byte aligned.
//
// Why an own pool: the device's default pool returns its memory to the
// driver at every synchronization (release threshold 0), so each call would
// map its scratch afresh. kcjax's pool keeps up to
// kScratchPoolKeepBytes (kcjax/cuda/limits.h) mapped between calls.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <mutex>
#include <optional>
#include <vector>

#include "kcjax/cuda/limits.h"
#include "xla/ffi/api/ffi.h"

namespace kcjax::cuda {

// kcjax's memory pool on `device`, created on first use (nullptr if the
// device has no memory-pool support; callers then use cudaMallocAsync).
inline cudaMemPool_t ScratchPool(int device) {
  static std::mutex mu;
  static cudaMemPool_t pools[kMaxDevices] = {};
  static bool tried[kMaxDevices] = {};
  if (device < 0 || device >= kMaxDevices) return nullptr;
  std::lock_guard<std::mutex> lock(mu);
  if (!tried[device]) {
    tried[device] = true;
    cudaMemPoolProps props = {};
    props.allocType = cudaMemAllocationTypePinned;
    props.location.type = cudaMemLocationTypeDevice;
    props.location.id = device;
    cudaMemPool_t pool = nullptr;
    if (cudaMemPoolCreate(&pool, &props) == cudaSuccess) {
      uint64_t keep = static_cast<uint64_t>(kScratchPoolKeepBytes);
      cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep);
      pools[device] = pool;
    } else {
      cudaGetLastError();  // clear the error: fall back to the default pool
    }
  }
  return pools[device];
}

class DeviceScratch {
 public:
  static constexpr size_t kAlign = kScratchAlign;

  DeviceScratch(xla::ffi::ScratchAllocator& xla, cudaStream_t stream)
      : xla_(xla), stream_(stream) {
    int device = 0;
    if (cudaGetDevice(&device) == cudaSuccess) {
      pool_ = ScratchPool(device);
    } else {
      cudaGetLastError();
    }
  }
  DeviceScratch(const DeviceScratch&) = delete;
  DeviceScratch& operator=(const DeviceScratch&) = delete;
  ~DeviceScratch() {
    for (void* p : owned_) cudaFreeAsync(p, stream_);
  }

  // Returns at least `bytes` of device memory, or nullptr if neither
  // allocator can provide them.
  void* Allocate(size_t bytes) {
    const size_t padded = (bytes == 0 ? 1 : bytes) + kAlign;
    if (std::optional<void*> p = xla_.Allocate(padded, 16); p.has_value() && *p != nullptr) {
      return AlignUp(*p);
    }
    void* p = nullptr;
    const cudaError_t err = pool_ != nullptr ? cudaMallocFromPoolAsync(&p, padded, pool_, stream_)
                                             : cudaMallocAsync(&p, padded, stream_);
    if (err != cudaSuccess) {
      cudaGetLastError();  // clear the sticky error of the failed allocation
      return nullptr;
    }
    owned_.push_back(p);
    return AlignUp(p);
  }

 private:
  static void* AlignUp(void* p) {
    const auto x = reinterpret_cast<uintptr_t>(p);
    return reinterpret_cast<void*>((x + kAlign - 1) / kAlign * kAlign);
  }

  xla::ffi::ScratchAllocator& xla_;
  cudaStream_t stream_;
  cudaMemPool_t pool_ = nullptr;
  std::vector<void*> owned_;
};

}  // namespace kcjax::cuda
