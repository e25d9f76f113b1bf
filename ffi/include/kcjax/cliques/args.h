// The k-clique targets' operand checks and FFI signatures, shared by the CPU and
// CUDA handlers (the contracts: cliques.h).
#pragma once

#include <cstdint>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "kcjax/cliques/cliques.h"
#include "kcjax/cliques/policy.h"
#include "kcjax/core/csr.h"
#include "kcjax/core/ffi.h"
#include "xla/ffi/api/ffi.h"

namespace kcjax::cliques {

// Attribute and output-shape checks of the pivot targets (contracts in cliques.h),
// shared by their CPU and CUDA handlers. Dims: the result's dimensions();
// errors through the handler's reporter.
// Operand shapes of the pivot targets, shared by their CPU and CUDA handlers.
inline xla::ffi::Error CheckPivotShapes(const Reporter& rep,
                                        const xla::ffi::Buffer<xla::ffi::S32>& indptr,
                                        const xla::ffi::Buffer<xla::ffi::S32>& indices,
                                        const xla::ffi::Buffer<xla::ffi::S32>& tasks) {
  if (indptr.dimensions().size() != 1 || indptr.element_count() < 1) {
    return rep.Invalid("indptr must be int32[n + 1] with n >= 0");
  }
  if (indices.dimensions().size() != 1) {
    return rep.Invalid("indices must be a 1-D int32 array");
  }
  if (tasks.dimensions().size() != 1) {
    return rep.Invalid("tasks must be a 1-D int32 array of root vertex ids");
  }
  constexpr int64_t kMaxI32 = std::numeric_limits<int32_t>::max();
  if (static_cast<int64_t>(indptr.element_count()) - 1 >= kMaxI32 ||
      static_cast<int64_t>(indices.element_count()) > kMaxI32 ||
      static_cast<int64_t>(tasks.element_count()) > kMaxI32) {
    return rep.Invalid("graphs and task lists must have fewer than 2^31 entries (int32 CSR)");
  }
  return xla::ffi::Error::Success();
}

template <typename Dims>
xla::ffi::Error CheckPivotHist(const Reporter& rep, int32_t hmax, const Dims& dims) {
  if (hmax < 1) {
    return rep.Invalid("hmax must be >= 1, got " + std::to_string(hmax));
  }
  if (dims.size() != 3 || dims[0] != static_cast<int64_t>(hmax) + 1 || dims[1] < 1 ||
      dims[2] != 4) {
    return rep.Invalid("hist must be uint32[hmax + 1, pmax + 1, 4] with hmax=" +
                       std::to_string(hmax));
  }
  return xla::ffi::Error::Success();
}

// Shape and attribute checks of the DAG operands of "kcjax_clique_count",
// "kcjax_clique_list" and "kcjax_clique_per_vertex" on CUDA. Device data is
// not inspected here: the pre-pass reports invalid task ids; the DAG itself is
// trusted (build it with kcjax.orient). num_tasks: the tasks the call runs
// (the length of tasks, or every edge with all_edges).
inline xla::ffi::Error CheckCliqueOperands(const Reporter& rep,
                                           const xla::ffi::Buffer<xla::ffi::S32>& indptr,
                                           const xla::ffi::Buffer<xla::ffi::S32>& indices,
                                           const xla::ffi::Buffer<xla::ffi::S32>& src,
                                           const xla::ffi::Buffer<xla::ffi::S32>& tasks,
                                           int32_t kmax, int32_t method, int64_t num_tasks) {
  if (indptr.dimensions().size() != 1 || indptr.element_count() < 1)
    return rep.Invalid("indptr must be int32[num_nodes + 1] with at least one element");
  if (indices.dimensions().size() != 1)
    return rep.Invalid("indices must be a 1-D int32 array (DAG CSR columns)");
  if (src.dimensions().size() != 1 || src.element_count() != indices.element_count())
    return rep.Invalid("src must be int32[num_edges] with the same length as indices (got " +
                       std::to_string(src.element_count()) + " vs " +
                       std::to_string(indices.element_count()) + ")");
  if (tasks.dimensions().size() != 1)
    return rep.Invalid("tasks must be a 1-D int32 array of edge ids (-1: padding)");
  if (kmax < 3) return rep.Invalid("kmax must be >= 3 (got " + std::to_string(kmax) + ")");
  if (method < 0 || method >= kNumCountMethods)
    return rep.Invalid("method must be a kcjax.CountMethod in [0, " +
                       std::to_string(kNumCountMethods) + ") (got " + std::to_string(method) + ")");
  constexpr int64_t kMaxI32 = std::numeric_limits<int32_t>::max();
  if (num_tasks >= kMaxI32)
    return rep.Invalid("too many tasks for one call (" + std::to_string(num_tasks) +
                       " >= 2^31 - 1): split the task list");
  if (static_cast<int64_t>(indptr.element_count()) - 1 >= kMaxI32 ||
      static_cast<int64_t>(indices.element_count()) > kMaxI32)
    return rep.Invalid("graphs must have fewer than 2^31 - 1 vertices and edges (int32 CSR)");
  return xla::ffi::Error::Success();
}

template <typename Dims>
xla::ffi::Error CheckPivotPerVertex(const Reporter& rep, int32_t k, int64_t num_nodes,
                                    const Dims& dims) {
  if (k < 1) return rep.Invalid("k must be >= 1, got " + std::to_string(k));
  if (dims.size() != 2 || dims[0] != num_nodes || dims[1] != 4) {
    return rep.Invalid("counts must be uint32[n, 4] with n=" + std::to_string(num_nodes));
  }
  return xla::ffi::Error::Success();
}

// FFI signatures of the contracts in cliques.h, each shared by the target's CPU and
// CUDA handlers: binding is kcjax::CpuBinding() or kcjax::CudaBinding().
template <typename Binding>
auto BindCliqueInputs(Binding&& binding) {
  using xla::ffi::Buffer, xla::ffi::S32;
  return std::move(binding)
      .template Arg<Buffer<S32>>()  // indptr
      .template Arg<Buffer<S32>>()  // indices
      .template Arg<Buffer<S32>>()  // src
      .template Arg<Buffer<S32>>()  // tasks
      .template Attr<int32_t>("kmax")
      .template Attr<int32_t>("method")
      .template Attr<float>("lam")
      .template Attr<int32_t>("num_threads");
}

template <typename Binding>
auto BindCliqueCount(Binding&& binding) {
  return BindCliqueInputs(std::move(binding))
      .template Attr<bool>("all_edges")
      .template Attr<int32_t>("max_degree")
      .template Ret<xla::ffi::Buffer<xla::ffi::U32>>();  // counts
}

template <typename Binding>
auto BindCliqueList(Binding&& binding) {
  return BindCliqueInputs(std::move(binding))
      .template Attr<bool>("stop_when_full")
      .template Ret<xla::ffi::Buffer<xla::ffi::S32>>()   // cliques
      .template Ret<xla::ffi::Buffer<xla::ffi::U32>>();  // count
}

template <typename Binding>
auto BindCliquePerVertex(Binding&& binding) {
  return BindCliqueInputs(std::move(binding))
      .template Ret<xla::ffi::Buffer<xla::ffi::U32>>();  // counts
}

template <typename Binding>
auto BindPivotInputs(Binding&& binding) {
  using xla::ffi::Buffer, xla::ffi::S32;
  return std::move(binding)
      .template Arg<Buffer<S32>>()   // indptr
      .template Arg<Buffer<S32>>()   // indices
      .template Arg<Buffer<S32>>();  // tasks
}

template <typename Binding>
auto BindPivot(Binding&& binding) {
  return BindPivotInputs(std::move(binding))
      .template Attr<int32_t>("hmax")
      .template Attr<int32_t>("kmin")
      .template Attr<int32_t>("num_threads")
      .template Ret<xla::ffi::Buffer<xla::ffi::U32>>();  // hist
}

template <typename Binding>
auto BindPivotPerVertex(Binding&& binding) {
  return BindPivotInputs(std::move(binding))
      .template Attr<int32_t>("k")
      .template Attr<int32_t>("num_threads")
      .template Ret<xla::ffi::Buffer<xla::ffi::U32>>();  // counts
}

// Operand and output shapes of "kcjax_clique_maximal" (its CPU and CUDA handlers).
inline xla::ffi::Error CheckMaximalShapes(
    const Reporter& rep, const xla::ffi::Buffer<xla::ffi::S32>& indptr,
    const xla::ffi::Buffer<xla::ffi::S32>& indices, const xla::ffi::Buffer<xla::ffi::S32>& rank,
    const xla::ffi::Buffer<xla::ffi::S32>& tasks, int32_t num_threads,
    const xla::ffi::Buffer<xla::ffi::S32>& verts, const xla::ffi::Buffer<xla::ffi::S32>& sizes,
    const xla::ffi::Buffer<xla::ffi::S32>& totals, const xla::ffi::Buffer<xla::ffi::S32>& best) {
  if (indptr.dimensions().size() != 1 || indptr.element_count() < 1) {
    return rep.Invalid("indptr must be int32[n + 1] with n >= 0");
  }
  if (indices.dimensions().size() != 1 || tasks.dimensions().size() != 1) {
    return rep.Invalid("indices and tasks must be 1-D int32 arrays");
  }
  const int64_t n = static_cast<int64_t>(indptr.element_count()) - 1;
  constexpr int64_t kMaxI32 = std::numeric_limits<int32_t>::max();
  if (n >= kMaxI32 || static_cast<int64_t>(indices.element_count()) > kMaxI32 ||
      static_cast<int64_t>(tasks.element_count()) > kMaxI32) {
    return rep.Invalid("graphs must have fewer than 2^31 - 1 vertices and entries (int32 CSR)");
  }
  if (rank.dimensions().size() != 1 || static_cast<int64_t>(rank.element_count()) != n) {
    return rep.Invalid("rank must be int32[n] with n=" + std::to_string(n));
  }
  if (num_threads < 0) {
    return rep.Invalid("num_threads must be >= 0 (0: all cores), got " +
                       std::to_string(num_threads));
  }
  if (verts.dimensions().size() != 1 || sizes.dimensions().size() != 1) {
    return rep.Invalid("verts and sizes must be 1-D int32 arrays");
  }
  if (totals.element_count() != 2) return rep.Invalid("totals must be int32[2]");
  if (best.dimensions().size() != 1 || static_cast<int64_t>(best.element_count()) != n) {
    return rep.Invalid("best must be int32[n] with n=" + std::to_string(n));
  }
  return xla::ffi::Error::Success();
}

// The data checks of "kcjax_clique_maximal" on host copies: a CSR with
// strictly ascending rows, rank a permutation, tasks vertex ids or -1.
inline xla::ffi::Error CheckMaximalData(const Reporter& rep, const int32_t* ip, int64_t n,
                                        const int32_t* ix, int64_t e, const int32_t* rk,
                                        const int32_t* task, int64_t num_tasks) {
  if (ip[0] != 0 || ip[n] != e) {
    return rep.Invalid("indptr must start at 0 and end at len(indices)=" + std::to_string(e));
  }
  for (int64_t v = 0; v < n; ++v) {
    if (ip[v + 1] < ip[v]) return rep.Invalid("indptr must be non-decreasing");
    for (int64_t i = ip[v]; i < ip[v + 1]; ++i) {
      if (ix[i] < 0 || ix[i] >= n) {
        return rep.Invalid("indices[" + std::to_string(i) + "]=" + std::to_string(ix[i]) +
                           " is not a vertex id in [0, " + std::to_string(n) + ")");
      }
      if (i > ip[v] && ix[i] <= ix[i - 1]) {
        return rep.Invalid("row " + std::to_string(v) +
                           " is not strictly ascending (a canonical CSR is needed)");
      }
    }
  }
  std::vector<char> seen(static_cast<size_t>(n), 0);
  for (int64_t v = 0; v < n; ++v) {
    if (rk[v] < 0 || rk[v] >= n || seen[rk[v]]) {
      return rep.Invalid("rank must be a permutation of 0..n-1 (entry " + std::to_string(v) +
                         " is " + std::to_string(rk[v]) + ")");
    }
    seen[rk[v]] = 1;
  }
  for (int64_t t = 0; t < num_tasks; ++t) {
    if (task[t] < -1 || task[t] >= n) {
      return rep.Invalid("tasks[" + std::to_string(t) + "]=" + std::to_string(task[t]) +
                         " is not a vertex id in [0, " + std::to_string(n) + ") nor -1 (padding)");
    }
  }
  return xla::ffi::Error::Success();
}

template <typename Binding>
auto BindMaximal(Binding&& binding) {
  using xla::ffi::Buffer, xla::ffi::S32;
  return std::move(binding)
      .template Arg<Buffer<S32>>()  // indptr
      .template Arg<Buffer<S32>>()  // indices
      .template Arg<Buffer<S32>>()  // rank
      .template Arg<Buffer<S32>>()  // tasks
      .template Attr<int32_t>("num_threads")
      .template Ret<Buffer<S32>>()   // verts
      .template Ret<Buffer<S32>>()   // sizes
      .template Ret<Buffer<S32>>()   // totals
      .template Ret<Buffer<S32>>();  // best
}

}  // namespace kcjax::cliques
