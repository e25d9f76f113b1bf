// CUDA handlers of "kcjax_clique_pivot" and "kcjax_clique_pivot_local"
// (contracts in kcjax/cliques/cliques.h; node rules in ffi/cpu/cliques/pivot.cc, kernels
// in ffi/cuda/cliques/pivot.cu).
//
// Steps, all on the XLA stream: validate CSR and tasks on the device and read
// back a small PivotStats (the one host synchronization: it decides errors,
// the shared-memory layout and the large-root workspace); sort tasks by
// candidate-set size, largest first (cub, in scratch); zero the output; run
// the persistent count kernel. The caller's task order does not matter.
#include "kcjax/cliques/pivot_cuda.h"

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "kcjax/cliques/args.h"
#include "kcjax/cliques/cliques.h"
#include "kcjax/cliques/policy.h"
#include "kcjax/core/ffi.h"
#include "kcjax/core/wide_count.h"
#include "kcjax/cuda/scratch.h"
#include "kcjax/cuda/tasks.h"

namespace ffi = xla::ffi;

namespace kcjax::cliques {
namespace {

// One call of either target: its error reporter, stream and scratch.
struct Call {
  Reporter rep;
  cudaStream_t stream;
  kcjax::cuda::DeviceScratch scratch;

  ffi::Error OutOfScratch(size_t bytes, const std::string& what) const {
    return rep.Exhausted(bytes, what + "; lower XLA_PYTHON_CLIENT_MEM_FRACTION or split the tasks");
  }
  // Scratch memory for `count` objects of type T, or nullopt.
  template <typename T>
  std::optional<T*> Scratch(size_t count) {
    void* p = scratch.Allocate(std::max<size_t>(count, 1) * sizeof(T));
    if (p == nullptr) return std::nullopt;
    return static_cast<T*>(p);
  }
};

// The steps shared by both targets, after the caller checked shapes and
// attributes. zero(): zeroes the output (cudaError_t). setup(st, prm):
// checks the stats and fills the mode's fields of prm (ffi::Error); called
// after zero() and only if some task is valid.
template <typename Zero, typename Setup>
ffi::Error RunPivot(Call& call, ffi::Buffer<ffi::S32> indptr, ffi::Buffer<ffi::S32> indices,
                    ffi::Buffer<ffi::S32> tasks, int32_t hmax, int32_t kmin, bool per_vertex,
                    Zero&& zero, Setup&& setup) {
  using cliques::PivotStats;
  const int32_t n = static_cast<int32_t>(indptr.element_count() - 1);
  const int32_t m = static_cast<int32_t>(indices.element_count());
  const int32_t num_tasks = static_cast<int32_t>(tasks.element_count());
  cudaStream_t stream = call.stream;
  cudaError_t err;
  if (num_tasks == 0) {
    err = zero();
    return err == cudaSuccess ? ffi::Error::Success() : call.rep.Cuda("zeroing the output", err);
  }

  // 1. Validation and statistics. One task-stage scratch (kcjax/cuda/tasks.h):
  // its header holds the stats and the kernel's three task counters; the
  // caller's task array is the sort's input values.
  const cuda::TaskLayout layout = cuda::TaskLayout::Make(num_tasks, /*with_vals_in=*/false);
  void* task_scratch = call.scratch.Allocate(layout.total);
  if (task_scratch == nullptr) return call.OutOfScratch(layout.total, "the task lists");
  static_assert(sizeof(PivotStats) + 3 * sizeof(int32_t) <= cuda::kTaskHeaderBytes,
                "the stats and counters fit the task stage's header");
  auto* stats = cuda::TaskLayout::At<PivotStats>(task_scratch, layout.header);
  auto* counters = cuda::TaskLayout::At<int32_t>(task_scratch, layout.header + sizeof(PivotStats));
  auto* keys = cuda::TaskLayout::At<uint32_t>(task_scratch, layout.keys_in);
  if ((err = cudaMemsetAsync(stats, 0, sizeof(PivotStats), stream)) != cudaSuccess) {
    return call.rep.Cuda("zeroing stats", err);
  }
  err = cliques::LaunchPivotPrepare(stream, indptr.typed_data(), indices.typed_data(), n, m,
                                    tasks.typed_data(), num_tasks, keys, stats);
  if (err != cudaSuccess) return call.rep.Cuda("launching the prepare kernel", err);
  PivotStats st{};
  if ((err = cudaMemcpyAsync(&st, stats, sizeof(st), cudaMemcpyDeviceToHost, stream)) !=
          cudaSuccess ||
      (err = cudaStreamSynchronize(stream)) != cudaSuccess) {
    return call.rep.Cuda("reading the prepare kernel's stats", err);
  }
  if (st.bad_row != 0) {
    return call.rep.Invalid(
        "row " + std::to_string(st.bad_row - 1) +
        " of the DAG breaks the CSR contract (indptr[0] = 0, non-decreasing, at most "
        "len(indices); row u holds ascending vertex ids in (u, n)); orient the graph first "
        "(u -> v iff u < v)");
  }
  if (st.bad_task != 0) {
    return call.rep.Invalid(
        "tasks[" + std::to_string(st.bad_task - 1) + "]=" + std::to_string(st.bad_task_value) +
        " is not a vertex id in [0, " + std::to_string(n) + ") nor -1 (padding)");
  }
  if ((err = zero()) != cudaSuccess) return call.rep.Cuda("zeroing the output", err);
  if (st.num_valid == 0) return ffi::Error::Success();
  cliques::PivotParams prm{};
  if (ffi::Error e = setup(st, prm); e.failure()) return e;
  if (prm.hist == nullptr && prm.per_vertex == nullptr) return ffi::Error::Success();

  // 2. Largest candidate sets first.
  err = cuda::SortTasksDescending(task_scratch, layout, tasks.typed_data(), num_tasks,
                                  cuda::TaskKeyBits(static_cast<uint32_t>(st.max_d) + 1), stream);
  if (err != cudaSuccess) return call.rep.Cuda("sorting the tasks", err);

  // 3. Launch shape: persistent blocks, no more than there is work for.
  const cliques::PivotKernelShape shape{st.max_small_d > 64 ? 2 : 1, per_vertex};
  int device = 0, max_blocks = 0;
  if ((err = cudaGetDevice(&device)) != cudaSuccess ||
      (err = cliques::PivotCountMaxBlocks(device, shape, &max_blocks)) != cudaSuccess) {
    return call.rep.Cuda("querying the count kernel's occupancy", err);
  }
  constexpr int kWarps = CliquePolicy::kPivotWarpsPerBlock;
  constexpr int kChunk = CliquePolicy::kPivotTinyChunk;
  constexpr int kParts = CliquePolicy::kPivotSplitParts;
  // The largest roots split over kParts warps each, as many as the grid's warps / kParts
  // (per-vertex mode: none).
  prm.num_split = per_vertex ? 0
                             : static_cast<int32_t>(std::min<int64_t>(
                                   st.num_heavy, int64_t{max_blocks} * kWarps / kParts));
  const int64_t units = st.num_heavy + int64_t{prm.num_split} * (kParts - 1) +
                        (st.num_valid - st.num_heavy + kChunk - 1) / kChunk;
  const int blocks = static_cast<int>(
      std::max<int64_t>(1, std::min<int64_t>(max_blocks, (units + kWarps - 1) / kWarps)));

  // 4. Workspace of roots with d > kPivotSmallMaxDim: as many warps as fit
  // the budget (at least one), never more than such queue entries.
  if (st.num_large > 0) {
    const int64_t large_entries =
        st.num_large + std::min<int64_t>(prm.num_split, st.num_large) * (kParts - 1);
    prm.large_warp_words = cliques::PivotLargeWarpWords(st.max_d);
    const int64_t warp_bytes = prm.large_warp_words * 8;
    const int64_t fit = CliquePolicy::kPivotLargeScratchBytes / warp_bytes;
    prm.num_large_warps = static_cast<int32_t>(std::max<int64_t>(
        1, std::min<int64_t>({fit, static_cast<int64_t>(blocks) * kWarps, large_entries})));
    const size_t bytes = static_cast<size_t>(prm.num_large_warps) * warp_bytes;
    auto ws = call.Scratch<unsigned long long>(bytes / 8);
    if (!ws) {
      return call.OutOfScratch(
          bytes, "the bitmap spaces of roots with " + std::to_string(st.max_d) + " candidates");
    }
    prm.large_scratch = *ws;
  }
  if ((err = cudaMemsetAsync(counters, 0, 3 * sizeof(int32_t), stream)) != cudaSuccess) {
    return call.rep.Cuda("zeroing the task counters", err);
  }
  prm.indptr = indptr.typed_data();
  prm.indices = indices.typed_data();
  prm.tasks = cuda::TaskLayout::At<int32_t>(task_scratch, layout.vals_out);
  prm.num_large = st.num_large;
  prm.num_heavy = st.num_heavy;
  prm.num_valid = st.num_valid;
  prm.counters = counters;
  prm.hmax = hmax;
  prm.kmin = kmin;
  err = cliques::LaunchPivotCount(stream, prm, shape, blocks);
  if (err != cudaSuccess) return call.rep.Cuda("launching the count kernel", err);
  return ffi::Error::Success();
}

ffi::Error PivotCuda(cudaStream_t stream, ffi::ScratchAllocator xla_scratch,
                     ffi::Buffer<ffi::S32> indptr, ffi::Buffer<ffi::S32> indices,
                     ffi::Buffer<ffi::S32> tasks, int32_t hmax, int32_t kmin,
                     int32_t /*num_threads: CPU only*/, ffi::ResultBuffer<ffi::U32> hist) {
  const Reporter rep("kcjax_clique_pivot");
  if (ffi::Error e = CheckPivotShapes(rep, indptr, indices, tasks); e.failure()) return e;
  const auto hdims = hist->dimensions();
  if (ffi::Error err = CheckPivotHist(rep, hmax, hdims); err.failure()) return err;
  const int64_t pmax = hdims[1] - 1;
  auto* out = reinterpret_cast<unsigned long long*>(hist->typed_data());
  Call call{rep, stream, kcjax::cuda::DeviceScratch(xla_scratch, stream)};
  auto zero = [&] { return cudaMemsetAsync(out, 0, hist->size_bytes(), stream); };
  auto setup = [&](const cliques::PivotStats& st, cliques::PivotParams& prm) {
    if (st.max_d > pmax) {
      return call.rep.Invalid("candidate set of size " + std::to_string(st.max_d) +
                              " exceeds pmax=" + std::to_string(pmax) +
                              "; orient the graph first / pass a larger pmax");
    }
    prm.hist = out;
    prm.out_p = static_cast<int32_t>(hdims[1]);
    prm.hist_h = std::min(hmax, st.max_d + 1) + 1;
    prm.hist_p = st.max_d + 1;
    return ffi::Error::Success();
  };
  return RunPivot(call, indptr, indices, tasks, hmax, kmin, false, zero, setup);
}

ffi::Error PivotPerVertexCuda(cudaStream_t stream, ffi::ScratchAllocator xla_scratch,
                              ffi::Buffer<ffi::S32> indptr, ffi::Buffer<ffi::S32> indices,
                              ffi::Buffer<ffi::S32> tasks, int32_t k,
                              int32_t /*num_threads: CPU only*/,
                              ffi::ResultBuffer<ffi::U32> counts) {
  const Reporter rep("kcjax_clique_pivot_local");
  if (ffi::Error e = CheckPivotShapes(rep, indptr, indices, tasks); e.failure()) return e;
  const int64_t n = static_cast<int64_t>(indptr.element_count()) - 1;
  if (ffi::Error err = CheckPivotPerVertex(rep, k, n, counts->dimensions()); err.failure())
    return err;
  auto* out = reinterpret_cast<unsigned long long*>(counts->typed_data());
  Call call{rep, stream, kcjax::cuda::DeviceScratch(xla_scratch, stream)};
  auto zero = [&] { return cudaMemsetAsync(out, 0, counts->size_bytes(), stream); };
  auto setup = [&](const cliques::PivotStats& st, cliques::PivotParams& prm) {
    if (k > st.max_d + 1) return ffi::Error::Success();  // no root reaches k: all zero
    // Pageable host memory: the copy has read the table when it returns.
    const std::vector<u128> binom = BinomialTable(st.max_d, k);
    const size_t bytes = binom.size() * sizeof(u128);
    auto table = call.Scratch<unsigned long long>(bytes / 8);
    if (!table) return call.OutOfScratch(bytes, "the binomial table");
    const cudaError_t err =
        cudaMemcpyAsync(*table, binom.data(), bytes, cudaMemcpyHostToDevice, stream);
    if (err != cudaSuccess) return call.rep.Cuda("copying the binomial table", err);
    prm.per_vertex = out;
    prm.binom = *table;
    return ffi::Error::Success();
  };
  return RunPivot(call, indptr, indices, tasks, k, k, true, zero, setup);
}

}  // namespace
}  // namespace kcjax::cliques

XLA_FFI_DEFINE_HANDLER_SYMBOL(kcjax_clique_pivot_cuda, kcjax::cliques::PivotCuda,
                              kcjax::cliques::BindPivot(kcjax::CudaBinding()));

XLA_FFI_DEFINE_HANDLER_SYMBOL(kcjax_clique_pivot_local_cuda, kcjax::cliques::PivotPerVertexCuda,
                              kcjax::cliques::BindPivotPerVertex(kcjax::CudaBinding()));
