// Host interface between the CUDA k-truss handlers (truss_cuda.cc) and their
// launchers (truss.cu, which holds the kernels' order, grids and scratch): the
// handlers decode and check the FFI call, these run it on the call's stream.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "kcjax/core/ffi.h"
#include "kcjax/cuda/scratch.h"
#include "kcjax/truss/truss.h"

namespace kcjax::truss {

// One checked "kcjax_truss" call (device pointers; the operands as in truss.h).
struct TrussProblem {
  const int32_t* indptr;
  const int32_t* indices;
  const int32_t* eid;
  const int32_t* esrc;
  const int32_t* edst;
  const int32_t* dag_indptr;
  const int32_t* dag_indices;
  const int32_t* dag_src;
  const int32_t* dag_eid;
  const int32_t* core;  // int32[n], or nullptr: no k-core prefilter
  const int32_t* k;     // int32[1]
  int32_t n;
  int32_t m;  // >= 1
  TrussMode mode;
  SupportMethod method;
  int64_t store_entries;
  void* out;  // int32[m], bool[m] in kKTruss
};

// Enqueues the whole call on `stream` (kHIndex without store_entries reads the
// triangle store's size back: the one host sync).
xla::ffi::Error RunTruss(const TrussProblem& p, cuda::DeviceScratch& scratch,
                         const Reporter& report, cudaStream_t stream);

// "kcjax_truss_triangle_edges": out[e] = edge e lies in a triangle (m >= 1).
xla::ffi::Error RunTriangleEdges(const int32_t* indptr, const int32_t* indices, const int32_t* esrc,
                                 const int32_t* edst, int32_t m, bool* out, const Reporter& report,
                                 cudaStream_t stream);

}  // namespace kcjax::truss
