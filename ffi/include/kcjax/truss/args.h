// The k-truss targets' operand checks and FFI signatures, shared by the CPU and CUDA
// handlers (the contract: truss.h).
#pragma once

#include <cstdint>
#include <string>
#include <utility>

#include "kcjax/truss/truss.h"
#include "xla/ffi/api/ffi.h"

namespace kcjax::truss {

// Shape and attribute checks shared by both handlers. Returns an empty string when valid.
inline std::string CheckTrussCall(int64_t n1, int64_t nnz, int64_t eid, int64_t esrc, int64_t edst,
                                  int64_t dag_n1, int64_t dag_m, int64_t dag_src, int64_t dag_eid,
                                  int64_t core, int64_t kbuf, int64_t out, bool out_pred,
                                  int32_t mode, int32_t method, int64_t store_entries) {
  if (n1 < 1) return "indptr must be int32[n + 1] with n >= 0";
  if (nnz % 2 != 0) return "indices must hold every undirected edge twice (int32[2m])";
  const int64_t m = nnz / 2;
  if (eid != nnz) return "eid must be int32[2m], one edge id per CSR entry";
  if (esrc != m || edst != m) return "esrc and edst must be int32[m]";
  if (dag_n1 != n1) return "dag_indptr must be int32[n + 1]";
  if (dag_m != m || dag_src != m || dag_eid != m) {
    return "dag_indices, dag_src and dag_eid must be int32[m]";
  }
  if (core != 0 && core != n1 - 1) return "core must be int32[n] or int32[0]";
  if (out != m) return "the result must be int32[m]";
  if (mode < 0 || mode >= kNumTrussModes) return "mode must be 0, 1, 2 or 3";
  if (out_pred != (mode == static_cast<int32_t>(TrussMode::kKTruss))) {
    return "the result must be bool[m] for mode kKTruss, int32[m] otherwise";
  }
  if (method < 0 || method >= kNumSupportMethods) return "method must be 0, 1, 2 or 3";
  if (kbuf != 1) return "k must be int32[1]";
  if (nnz >= (int64_t{1} << 31)) return "graphs must have fewer than 2^31 CSR entries";
  if (store_entries < -1) return "store_entries must be -1 (unknown) or a bound >= 0";
  return {};
}

// FFI signature of "kcjax_truss", shared by its CPU and CUDA handlers: binding
// is kcjax::CpuBinding() or kcjax::CudaBinding().
template <typename Binding>
auto BindTruss(Binding&& binding) {
  using xla::ffi::Buffer, xla::ffi::S32;
  return std::move(binding)
      .template Arg<Buffer<S32>>()  // indptr
      .template Arg<Buffer<S32>>()  // indices
      .template Arg<Buffer<S32>>()  // eid
      .template Arg<Buffer<S32>>()  // esrc
      .template Arg<Buffer<S32>>()  // edst
      .template Arg<Buffer<S32>>()  // dag_indptr
      .template Arg<Buffer<S32>>()  // dag_indices
      .template Arg<Buffer<S32>>()  // dag_src
      .template Arg<Buffer<S32>>()  // dag_eid
      .template Arg<Buffer<S32>>()  // core
      .template Arg<Buffer<S32>>()  // k
      .template Attr<int32_t>("mode")
      .template Attr<int32_t>("method")
      .template Attr<int32_t>("num_threads")
      .template Attr<int64_t>("store_entries")
      .template Ret<xla::ffi::AnyBuffer>();  // out: bool[m] (kKTruss) or int32[m]
}

// Shape checks of "kcjax_truss_triangle_edges". Returns an empty string when valid.
inline std::string CheckTriangleEdgesCall(int64_t n1, int64_t nnz, int64_t esrc, int64_t edst,
                                          int64_t out) {
  if (n1 < 1) return "indptr must be int32[n + 1] with n >= 0";
  if (nnz % 2 != 0) return "indices must hold every undirected edge twice (int32[2m])";
  const int64_t m = nnz / 2;
  if (esrc != m || edst != m) return "esrc and edst must be int32[m]";
  if (out != m) return "the result must be bool[m]";
  if (nnz >= (int64_t{1} << 31)) return "graphs must have fewer than 2^31 CSR entries";
  return {};
}

// FFI signature of "kcjax_truss_triangle_edges".
template <typename Binding>
auto BindTriangleEdges(Binding&& binding) {
  using xla::ffi::Buffer, xla::ffi::S32, xla::ffi::PRED;
  return std::move(binding)
      .template Arg<Buffer<S32>>()  // indptr
      .template Arg<Buffer<S32>>()  // indices
      .template Arg<Buffer<S32>>()  // esrc
      .template Arg<Buffer<S32>>()  // edst
      .template Attr<int32_t>("num_threads")
      .template Ret<Buffer<PRED>>();  // out
}

}  // namespace kcjax::truss
