// Temporary device memory for one CUDA FFI call.
//
// XLA's scratch allocator is tried first (it draws from JAX's memory pool).
// Where it cannot serve the request (some jaxlib builds give FFI handlers no
// device allocator), the memory comes from the stream-ordered CUDA allocator
// instead and is released on the same stream when the call ends, after every
// kernel that uses it. Pointers are 256-byte aligned.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <vector>

#include "xla/ffi/api/ffi.h"

namespace kcjax {

class DeviceScratch {
 public:
  static constexpr size_t kAlign = 256;

  DeviceScratch(xla::ffi::ScratchAllocator& xla, cudaStream_t stream)
      : xla_(xla), stream_(stream) {}
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
    if (cudaMallocAsync(&p, padded, stream_) != cudaSuccess) {
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
  std::vector<void*> owned_;
};

}  // namespace kcjax
