// Host interface between the CUDA filter handler (filter_cuda.cc) and its
// launcher (filter.cu): the handler decodes and checks the FFI call, RunFilter
// enqueues the cooperative kernel of every round on the call's stream.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "kcjax/core/ffi.h"
#include "kcjax/match/filter.h"

namespace kcjax::match {

// One checked "kcjax_match_filter" call (device pointers; the operands as in
// filter.h), the kernel's argument.
struct FilterArgs {
  const int32_t* indptr;
  const int32_t* indices;
  const int32_t* slot;
  const uint32_t* cand;  // round 0's input
  uint32_t* out;         // written by the even rounds
  uint32_t* spare;       // written by the odd rounds
  const int32_t* need;
  const uint32_t* adj;
  const int32_t* refine;
  int32_t* info;
  int32_t* flags;  // three rotating "a vertex changed" flags (kcjax/cuda/grid.cuh)
  int64_t n;
  int32_t q;
  int32_t rounds;
};

// Enqueues the rounds (allocates nothing, reads nothing back: command-buffer
// compatible).
xla::ffi::Error RunFilter(FilterArgs A, const Reporter& rep, cudaStream_t stream);

}  // namespace kcjax::match
