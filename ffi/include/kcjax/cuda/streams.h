// Side streams and fork/join of work from the caller's (XLA's) stream, for
// handlers that run independent kernels beside each other. Host only.
#pragma once

#include <cuda_runtime.h>

#include <mutex>

#include "kcjax/cuda/limits.h"

namespace kcjax::cuda {

// Non-blocking side streams per device, created once. 0: the small-task
// kernel and the class read-back. 1: the heavy-task split (cliques count), at the device's
// highest stream priority, so that its blocks are dispatched before those
// of kernels that become ready at the same time.
inline constexpr int kSideStreams = 2;
inline cudaError_t SideStream(cudaStream_t* out, int which = 0) {
  static std::mutex mu;
  static cudaStream_t streams[kMaxDevices][kSideStreams] = {};
  int dev = 0;
  cudaError_t err = cudaGetDevice(&dev);
  if (err != cudaSuccess) return err;
  if (dev < 0 || dev >= kMaxDevices) return cudaErrorInvalidDevice;
  std::lock_guard<std::mutex> lock(mu);
  if (streams[dev][which] == nullptr) {
    int least = 0, greatest = 0;
    if ((err = cudaDeviceGetStreamPriorityRange(&least, &greatest)) != cudaSuccess) return err;
    err = cudaStreamCreateWithPriority(&streams[dev][which], cudaStreamNonBlocking,
                                       which == 1 ? greatest : least);
    if (err != cudaSuccess) return err;
  }
  *out = streams[dev][which];
  return cudaSuccess;
}

// Work forked from a caller's stream onto side streams and joined back
// through events, so that the call stays ordered on the caller's stream.
class StreamFork {
 public:
  explicit StreamFork(cudaStream_t stream) : stream_(stream) {}
  StreamFork(const StreamFork&) = delete;
  StreamFork& operator=(const StreamFork&) = delete;
  // Join even after a failed launch: the caller frees scratch on `stream`.
  ~StreamFork() { Join(); }

  // The stream for side `which`, ordered after the work queued so far on
  // the caller's stream; the caller's own stream when `fork` is false.
  cudaError_t Side(int which, bool fork, cudaStream_t* out) {
    *out = stream_;
    if (!fork) return cudaSuccess;
    cudaError_t err = cudaSuccess;
    if (forked_ == nullptr) {
      if ((err = cudaEventCreateWithFlags(&forked_, cudaEventDisableTiming)) != cudaSuccess ||
          (err = cudaEventRecord(forked_, stream_)) != cudaSuccess)
        return err;
    }
    cudaStream_t side = nullptr;
    if ((err = SideStream(&side, which)) != cudaSuccess ||
        (err = cudaStreamWaitEvent(side, forked_, 0)) != cudaSuccess)
      return err;
    sides_[which] = side;
    *out = side;
    return cudaSuccess;
  }

  // Orders the caller's stream after the work queued so far on side `which`
  // (nothing if that side was not forked).
  cudaError_t Await(int which) {
    if (sides_[which] == nullptr) return cudaSuccess;
    cudaEvent_t ev = nullptr;
    cudaError_t err = cudaEventCreateWithFlags(&ev, cudaEventDisableTiming);
    if (err == cudaSuccess) err = cudaEventRecord(ev, sides_[which]);
    if (err == cudaSuccess) err = cudaStreamWaitEvent(stream_, ev, 0);
    if (ev != nullptr) cudaEventDestroy(ev);
    return err;
  }

  // Orders the caller's stream after every side's work; idempotent.
  cudaError_t Join() {
    cudaError_t first = cudaSuccess;
    for (cudaStream_t& side : sides_) {
      if (side == nullptr) continue;
      cudaEvent_t joined = nullptr;
      cudaError_t err = cudaEventCreateWithFlags(&joined, cudaEventDisableTiming);
      if (err == cudaSuccess) err = cudaEventRecord(joined, side);
      if (err == cudaSuccess) err = cudaStreamWaitEvent(stream_, joined, 0);
      if (err != cudaSuccess) cudaStreamSynchronize(side);
      if (joined != nullptr) cudaEventDestroy(joined);
      if (first == cudaSuccess) first = err;
      side = nullptr;
    }
    if (forked_ != nullptr) {
      cudaEventDestroy(forked_);
      forked_ = nullptr;
    }
    return first;
  }

 private:
  cudaStream_t stream_;
  cudaStream_t sides_[kSideStreams] = {};
  cudaEvent_t forked_ = nullptr;
};

}  // namespace kcjax::cuda
