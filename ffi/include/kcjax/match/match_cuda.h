// Host interface between the CUDA matching handlers (match_cuda.cc) and the
// search's launchers (match.cu): the handlers decode and check the FFI call,
// these run it on the call's stream.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "kcjax/core/ffi.h"
#include "kcjax/cuda/scratch.h"
#include "kcjax/match/match.h"

namespace kcjax::match {

// One checked search (device pointers; the operands as in match.h).
struct MatchSearch {
  MatchView view;
  const int32_t* roots;     // [num_roots]
  const int32_t* task_ptr;  // [num_roots + 1]
  int64_t num_roots;
  int32_t task_width;
};

// "kcjax_match_count": zeroes `out` (out_bytes: uint32[4], or [num_roots, 4] per
// root) and adds every root's 128-bit count.
xla::ffi::Error RunCount(const MatchSearch& s, bool per_root, uint32_t* out, size_t out_bytes,
                         cuda::DeviceScratch& scratch, const Reporter& rep, cudaStream_t stream);

// "kcjax_match_list": the first `cap` embeddings into rows (int32[cap, q], -1
// past the last) and their number, capped at cap + 1, into found_out (uint32[4]).
xla::ffi::Error RunList(const MatchSearch& s, int32_t* rows, int64_t cap, uint32_t* found_out,
                        cuda::DeviceScratch& scratch, const Reporter& rep, cudaStream_t stream);

}  // namespace kcjax::match
