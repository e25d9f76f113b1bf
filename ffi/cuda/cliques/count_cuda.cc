// CUDA handler of "kcjax_clique_count" (contract in kcjax/cliques/cliques.h). The
// kernels and their launchers are in count.cu.
#include "kcjax/cliques/count_cuda.h"

#include <cuda_runtime.h>

#include <cstdint>
#include <optional>
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

const Reporter rep("kcjax_clique_count");

// Pinned host memory for one TaskClasses per thread (a handler call reads it
// back before it returns), or nullptr if it cannot be allocated.
TaskClasses* PinnedClasses() {
  struct Buffer {
    TaskClasses* p = nullptr;
    bool tried = false;
    ~Buffer() {
      if (p != nullptr) cudaFreeHost(p);
    }
  };
  thread_local Buffer buffer;
  if (!buffer.tried) {
    buffer.tried = true;
    void* p = nullptr;
    if (cudaMallocHost(&p, sizeof(TaskClasses)) == cudaSuccess) {
      buffer.p = static_cast<TaskClasses*>(p);
    } else {
      cudaGetLastError();  // clear it: the caller reads the classes back instead
    }
  }
  return buffer.p;
}

// Phase 2: the persistent kernels per size class, planned from the read-back
// classes, or from the max_degree hint when classes is nullptr.
ffi::Error Solve(const CountProblem& p, const TaskClasses* classes, void* pre, int num_sms,
                 cuda::DeviceScratch& memory, cudaStream_t stream) {
  SolvePlan plan;
  cudaError_t err = PlanSolve(p, classes, num_sms, &plan);
  if (err != cudaSuccess) return rep.Cuda("planning the clique kernels (occupancy)", err);
  if (plan.scratch_bytes == 0) return ffi::Error::Success();
  void* work = memory.Allocate(plan.scratch_bytes);
  if (work == nullptr)
    return rep.Exhausted(
        plan.scratch_bytes,
        "the clique kernels (largest task key " +
            std::to_string(classes != nullptr ? classes->max_key : p.max_degree) +
            "; lower kmax, use a degeneracy/degree orientation, or free GPU memory)");
  const cuda::TaskLayout l = cuda::TaskLayout::Make(p.num_tasks);
  err =
      LaunchSolve(p, plan, cuda::TaskLayout::At<int32_t>(pre, l.vals_out),
                  cuda::TaskLayout::At<uint32_t>(pre, l.keys_out), CountClasses(pre), work, stream);
  if (err != cudaSuccess) return rep.Cuda("clique kernel launch", err);
  return ffi::Error::Success();
}

ffi::Error CliqueCountCuda(cudaStream_t stream, ffi::ScratchAllocator scratch,
                           ffi::Buffer<ffi::S32> indptr, ffi::Buffer<ffi::S32> indices,
                           ffi::Buffer<ffi::S32> src, ffi::Buffer<ffi::S32> tasks, int32_t kmax,
                           int32_t method, float lam, int32_t /*num_threads*/, bool all_edges,
                           int32_t max_degree, ffi::ResultBuffer<ffi::U32> counts) {
  // ---- Argument checks (shapes only: device data is not inspected). ----
  if (all_edges && tasks.element_count() != 0)
    return rep.Invalid("all_edges needs an empty tasks array (got " +
                       std::to_string(tasks.element_count()) + " task ids)");
  const int64_t num_tasks = all_edges ? indices.element_count() : tasks.element_count();
  if (ffi::Error e = CheckCliqueOperands(rep, indptr, indices, src, tasks, kmax, method, num_tasks);
      e.failure())
    return e;
  const auto out_dims = counts->dimensions();
  if (out_dims.size() != 2 || out_dims[0] != int64_t{kmax} + 1 || out_dims[1] != 4)
    return rep.Invalid("counts must be uint32[kmax + 1, 4] = [" + std::to_string(kmax + 1) +
                       ", 4] (128-bit counts per clique size)");

  CountProblem p;
  p.dag.indptr = indptr.typed_data();
  p.dag.indices = indices.typed_data();
  p.dag.src = src.typed_data();
  p.tasks = all_edges ? nullptr : tasks.typed_data();
  p.dag.num_nodes = indptr.element_count() - 1;
  p.dag.num_edges = indices.element_count();
  p.num_tasks = num_tasks;
  p.max_degree = max_degree;
  p.kmax = kmax;
  p.method = method;
  p.lam = lam;
  p.counts = counts->typed_data();

  int num_sms = 0;
  cudaError_t err = cuda::SmCount(&num_sms);
  if (err != cudaSuccess) return rep.Cuda("querying the SM count", err);

  cuda::DeviceScratch memory(scratch, stream);
  // ---- Shallow counts: one kernel, nothing read back to the host. ----
  if (UseShallowPath(p)) {
    void* work = memory.Allocate(ShallowScratchBytes());
    if (work == nullptr)
      return rep.Exhausted(ShallowScratchBytes(), "the shallow kernel's work counter");
    err = LaunchShallow(p, work, num_sms, stream);
    if (err != cudaSuccess) return rep.Cuda("shallow clique kernel launch", err);
    return ffi::Error::Success();
  }

  // ---- Small route: one kernel; only its overflow flag comes back. ----
  TaskClasses* pinned = nullptr;
  if (UseSmallRoute(p) && (pinned = PinnedClasses()) != nullptr) {
    if (ffi::Error e = RequireNoCapture(rep, stream, "the small route's overflow flag");
        e.failure())
      return e;
    void* work = memory.Allocate(SmallRouteScratchBytes());
    if (work == nullptr)
      return rep.Exhausted(SmallRouteScratchBytes(), "the small-route kernel's work counter");
    err = LaunchSmallRoute(p, work, num_sms, stream);
    if (err != cudaSuccess) return rep.Cuda("small-route clique kernel launch", err);
    err = cudaMemcpyAsync(&pinned->key_overflow, SmallRouteOverflow(work), sizeof(int32_t),
                          cudaMemcpyDeviceToHost, stream);
    if (err != cudaSuccess) return rep.Cuda("copying the small route's flag to the host", err);
    err = cudaStreamSynchronize(stream);
    if (err != cudaSuccess) return rep.Cuda("small-route clique kernel", err);
    // Set: the hint was below the true maximum and some tasks were skipped;
    // the general pipeline below recounts every task from zero.
    if (!pinned->key_overflow) return ffi::Error::Success();
  }

  // ---- Phase 1: output zeroing, counts[3], task sizes, sort, classes. ----
  const size_t pre_bytes = cuda::TaskScratchBytes(p.num_tasks);
  void* pre = memory.Allocate(pre_bytes);
  if (pre == nullptr)
    return rep.Exhausted(pre_bytes,
                         "the task pre-pass (too many tasks for the free GPU memory: split the "
                         "task list)");
  err = LaunchPrepass(p, pre, num_sms, stream);
  if (err != cudaSuccess) return rep.Cuda("pre-pass launch", err);
  if (kmax == 3 || p.num_tasks == 0) return ffi::Error::Success();

  if (ffi::Error e = RequireNoCapture(rep, stream, "task statistics"); e.failure()) return e;
  TaskClasses classes;
  if (UseDeviceBounds(p) && (pinned = PinnedClasses()) != nullptr) {
    // ---- Solve planned from the hint, queued right behind the pre-pass;
    // the classes come back on a side stream meanwhile. ----
    cudaEvent_t copied = nullptr;
    err = cudaEventCreateWithFlags(&copied, cudaEventDisableTiming);
    if (err != cudaSuccess) return rep.Cuda("creating an event", err);
    err = CopyClassesAsync(pre, pinned, copied, stream);
    ffi::Error solved = ffi::Error::Success();
    if (err == cudaSuccess) solved = Solve(p, nullptr, pre, num_sms, memory, stream);
    if (err == cudaSuccess) err = cudaEventSynchronize(copied);
    cudaEventDestroy(copied);
    if (err != cudaSuccess) return rep.Cuda("copying task classes to the host", err);
    if (solved.failure()) return solved;
    if (!pinned->key_overflow) return ffi::Error::Success();
    classes = *pinned;  // the kernels ran no task: plan from the classes below
  } else {
    // ---- Read the class boundaries back (sizes the solve phase exactly). ----
    err = cudaMemcpyAsync(&classes, CountClasses(pre), sizeof(classes), cudaMemcpyDeviceToHost,
                          stream);
    if (err != cudaSuccess) return rep.Cuda("copying task classes to the host", err);
    err = cudaStreamSynchronize(stream);
    if (err != cudaSuccess) return rep.Cuda("pre-pass execution", err);
  }
  if (classes.key_overflow) {  // the max_degree hint was below the true maximum
    err = LaunchSortClasses(p, pre, /*full_keys=*/true, stream);
    if (err != cudaSuccess)
      return rep.Cuda("re-sorting the tasks (max_degree hint too small)", err);
    err = cudaMemcpyAsync(&classes, CountClasses(pre), sizeof(classes), cudaMemcpyDeviceToHost,
                          stream);
    if (err != cudaSuccess) return rep.Cuda("copying task classes to the host", err);
    err = cudaStreamSynchronize(stream);
    if (err != cudaSuccess) return rep.Cuda("re-sorting the tasks", err);
  }
  return Solve(p, &classes, pre, num_sms, memory, stream);
}

}  // namespace
}  // namespace kcjax::cliques

XLA_FFI_DEFINE_HANDLER_SYMBOL(kcjax_clique_count_cuda, kcjax::cliques::CliqueCountCuda,
                              kcjax::cliques::BindCliqueCount(kcjax::CudaBinding()));
