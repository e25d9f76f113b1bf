// CUDA handlers of "kcjax_clique_list" and "kcjax_clique_per_vertex"
// (contracts in kcjax/cliques/cliques.h; reference: ffi/cpu/cliques/count.cc). The
// kernels and their launchers are in list.cu.
//
// Every CountMethod runs the same sorted-list DFS (the method only selects
// counting strategies; results are identical by contract), and lam is
// ignored. Steps, all on the XLA stream: initialise the outputs and compute
// the task sizes (pre-pass), read back 16 bytes of statistics (the one host
// synchronization: invalid tasks, arena size), sort the tasks largest first
// and run the persistent DFS kernel.
#include "kcjax/cliques/list_cuda.h"

#include <cuda_runtime.h>

#include <cstdint>
#include <string>

#include "kcjax/cliques/args.h"
#include "kcjax/cliques/cliques.h"
#include "kcjax/cliques/policy.h"
#include "kcjax/core/ffi.h"
#include "kcjax/cuda/scratch.h"
#include "kcjax/cuda/tasks.h"

namespace ffi = xla::ffi;

namespace kcjax::cliques {
namespace {

// Runs the whole pipeline for a problem whose outputs are set.
ffi::Error Run(const Reporter& rep, cudaStream_t stream, ffi::ScratchAllocator& scratch,
               ListProblem& p) {
  if (reinterpret_cast<uintptr_t>(p.counts) % 8 != 0)
    return rep.Internal("the count output is not 8-byte aligned");
  int num_sms = 0;
  cudaError_t err = cuda::SmCount(&num_sms);
  if (err != cudaSuccess) return rep.Cuda("querying the SM count", err);

  // ---- Phase 1: outputs, task sizes. ----
  cuda::DeviceScratch memory(scratch, stream);
  const size_t pre_bytes = cuda::TaskScratchBytes(p.num_tasks);
  void* pre = memory.Allocate(pre_bytes);
  if (pre == nullptr)
    return rep.Exhausted(pre_bytes,
                         "the task pre-pass (too many tasks for the free GPU "
                         "memory: split the task list)");
  err = LaunchListPrepass(p, pre, num_sms, stream);
  if (err != cudaSuccess) return rep.Cuda("pre-pass launch", err);
  if (p.num_tasks == 0) return ffi::Error::Success();

  // ---- Read the statistics back (sizes the arenas exactly). ----
  if (ffi::Error e = RequireNoCapture(rep, stream, "task statistics"); e.failure()) return e;
  ListStats stats;
  err =
      cudaMemcpyAsync(&stats, ListPrepassStats(pre), sizeof(stats), cudaMemcpyDeviceToHost, stream);
  if (err != cudaSuccess) return rep.Cuda("copying task statistics to the host", err);
  err = cudaStreamSynchronize(stream);
  if (err != cudaSuccess) return rep.Cuda("pre-pass execution", err);
  if (stats.bad_task != 0)
    return rep.Invalid("tasks[" + std::to_string(stats.bad_task - 1) + "] = " +
                       std::to_string(stats.bad_task_value) + " is not an edge id in [0, " +
                       std::to_string(p.dag.num_edges) + ") nor -1 (padding)");

  // ---- Phase 2: sort, persistent DFS. ----
  ListPlan plan;
  err = PlanList(p, stats, num_sms, &plan);
  if (err != cudaSuccess) return rep.Cuda("planning the listing kernel (occupancy)", err);
  if (plan.blocks == 0) return ffi::Error::Success();  // no task can hold a k-clique
  void* arena = memory.Allocate(plan.scratch_bytes);
  if (arena == nullptr)
    return rep.Exhausted(plan.scratch_bytes,
                         "the DFS arenas (" + std::to_string(plan.blocks * plan.warps_per_block) +
                             " warps x " + std::to_string(plan.arena_words * 4) +
                             " bytes for k = " + std::to_string(p.k) +
                             " and a largest candidate set of " + std::to_string(plan.max_d) +
                             "; use a degeneracy orientation, a smaller k, or free GPU memory)");
  err = LaunchList(p, plan, pre, arena, stream);
  if (err != cudaSuccess) return rep.Cuda("listing kernel launch (sort or DFS)", err);
  return ffi::Error::Success();
}

ListProblem MakeProblem(ffi::Buffer<ffi::S32>& indptr, ffi::Buffer<ffi::S32>& indices,
                        ffi::Buffer<ffi::S32>& src, ffi::Buffer<ffi::S32>& tasks, int32_t k) {
  ListProblem p{};
  p.dag.indptr = indptr.typed_data();
  p.dag.indices = indices.typed_data();
  p.dag.src = src.typed_data();
  p.tasks = tasks.typed_data();
  p.dag.num_nodes = static_cast<int64_t>(indptr.element_count()) - 1;
  p.dag.num_edges = static_cast<int64_t>(indices.element_count());
  p.num_tasks = static_cast<int64_t>(tasks.element_count());
  p.k = k;
  return p;
}

ffi::Error CliqueListCuda(cudaStream_t stream, ffi::ScratchAllocator scratch,
                          ffi::Buffer<ffi::S32> indptr, ffi::Buffer<ffi::S32> indices,
                          ffi::Buffer<ffi::S32> src, ffi::Buffer<ffi::S32> tasks, int32_t k,
                          int32_t method, float /*lam*/, int32_t /*num_threads*/,
                          bool stop_when_full, ffi::ResultBuffer<ffi::S32> cliques,
                          ffi::ResultBuffer<ffi::U32> count) {
  const Reporter rep("kcjax_clique_list");
  if (ffi::Error e =
          CheckCliqueOperands(rep, indptr, indices, src, tasks, k, method, tasks.element_count());
      e.failure())
    return e;
  const auto dims = cliques->dimensions();
  if (dims.size() != 2 || dims[1] != k || count->element_count() != 4)
    return rep.Invalid("cliques must be int32[capacity, k] (k = " + std::to_string(k) +
                       ") and count uint32[4]");
  ListProblem p = MakeProblem(indptr, indices, src, tasks, k);
  p.per_vertex = false;
  p.stop_when_full = stop_when_full;
  p.cliques = cliques->typed_data();
  p.capacity = dims[0];
  p.counts = count->typed_data();
  return Run(rep, stream, scratch, p);
}

ffi::Error CliquePerVertexCuda(cudaStream_t stream, ffi::ScratchAllocator scratch,
                               ffi::Buffer<ffi::S32> indptr, ffi::Buffer<ffi::S32> indices,
                               ffi::Buffer<ffi::S32> src, ffi::Buffer<ffi::S32> tasks, int32_t k,
                               int32_t method, float /*lam*/, int32_t /*num_threads*/,
                               ffi::ResultBuffer<ffi::U32> counts) {
  const Reporter rep("kcjax_clique_per_vertex");
  if (ffi::Error e =
          CheckCliqueOperands(rep, indptr, indices, src, tasks, k, method, tasks.element_count());
      e.failure())
    return e;
  const auto dims = counts->dimensions();
  if (dims.size() != 2 || dims[0] != static_cast<int64_t>(indptr.element_count()) - 1 ||
      dims[1] != 4)
    return rep.Invalid("counts must be uint32[num_nodes, 4] = [" +
                       std::to_string(indptr.element_count() - 1) +
                       ", 4] (128-bit counts per vertex)");
  ListProblem p = MakeProblem(indptr, indices, src, tasks, k);
  p.per_vertex = true;
  p.counts = counts->typed_data();
  return Run(rep, stream, scratch, p);
}

}  // namespace
}  // namespace kcjax::cliques

XLA_FFI_DEFINE_HANDLER_SYMBOL(kcjax_clique_list_cuda, kcjax::cliques::CliqueListCuda,
                              kcjax::cliques::BindCliqueList(kcjax::CudaBinding()));
XLA_FFI_DEFINE_HANDLER_SYMBOL(kcjax_clique_per_vertex_cuda, kcjax::cliques::CliquePerVertexCuda,
                              kcjax::cliques::BindCliquePerVertex(kcjax::CudaBinding()));
