// Helpers shared by every FFI handler: the one error reporter and the
// platform context every binding starts from.
#pragma once

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#ifdef KCJAX_WITH_CUDA
#include <cuda_runtime.h>
#endif

#include "xla/ffi/api/ffi.h"

namespace kcjax {

// A family's FFI targets on one platform: (target name, handler).
using Targets = std::vector<std::pair<const char*, XLA_FFI_Handler*>>;

// The binding a CPU handler starts from: no context. Each family binds its
// operands on top (a Bind<Target>(binding) template next to its contract), so
// that the CPU and CUDA twins of a target share one signature.
inline auto CpuBinding() { return xla::ffi::Ffi::Bind(); }

#ifdef KCJAX_WITH_CUDA
// The binding a CUDA handler starts from: its stream, then XLA's scratch
// allocator (the handler's first two parameters).
inline auto CudaBinding() {
  return xla::ffi::Ffi::Bind()
      .Ctx<xla::ffi::PlatformStream<cudaStream_t>>()
      .Ctx<xla::ffi::ScratchAllocator>();
}
#endif

// Builds a handler's errors, each message prefixed by "<target> (<platform>): "
// so that a failure names the FFI target and the backend that raised it.
class Reporter {
 public:
  explicit Reporter(const char* target, const char* platform = "CUDA")
      : target_(target), platform_(platform) {}

  std::string Prefix() const { return std::string(target_) + " (" + platform_ + "): "; }
  // A bad argument, attribute or output shape (kInvalidArgument).
  xla::ffi::Error Invalid(const std::string& msg) const {
    return xla::ffi::Error::InvalidArgument(Prefix() + msg);
  }
  // The call cannot run in this context (kFailedPrecondition).
  xla::ffi::Error Failed(const std::string& msg) const {
    return xla::ffi::Error(xla::ffi::ErrorCode::kFailedPrecondition, Prefix() + msg);
  }
  // A broken internal invariant (kInternal).
  xla::ffi::Error Internal(const std::string& msg) const {
    return xla::ffi::Error::Internal(Prefix() + msg);
  }
  // Temporary memory the call could not get (kResourceExhausted).
  xla::ffi::Error Exhausted(size_t bytes, const std::string& what) const {
    return xla::ffi::Error(
        xla::ffi::ErrorCode::kResourceExhausted,
        Prefix() + "cannot allocate " + std::to_string(bytes) + " bytes of scratch for " + what);
  }
#ifdef KCJAX_WITH_CUDA
  // A failed CUDA runtime call or launch (kInternal).
  xla::ffi::Error Cuda(const std::string& what, cudaError_t err) const {
    return Internal(what + ": " + cudaGetErrorName(err) + ": " + cudaGetErrorString(err));
  }
#endif

 private:
  const char* target_;
  const char* platform_;
};

#ifdef KCJAX_WITH_CUDA
// Fails (Reporter::Failed) while stream is being captured into a CUDA graph:
// for handlers that read device results (what) back to the host mid-call.
inline xla::ffi::Error RequireNoCapture(const Reporter& rep, cudaStream_t stream,
                                        const std::string& what) {
  cudaStreamCaptureStatus capture = cudaStreamCaptureStatusNone;
  const cudaError_t err = cudaStreamIsCapturing(stream, &capture);
  if (err != cudaSuccess) return rep.Cuda("cudaStreamIsCapturing", err);
  if (capture != cudaStreamCaptureStatusNone)
    return rep.Failed("reads " + what +
                      " back to the host and cannot run inside CUDA graph capture (do not "
                      "register it as command-buffer compatible)");
  return xla::ffi::Error::Success();
}
#endif

}  // namespace kcjax
