// CUDA handler of "kcjax_clique_maximal" (contract in kcjax/cliques/cliques.h; the
// search in ffi/cuda/cliques/maximal.cu, its rules in ffi/cpu/cliques/maximal.cc).
//
// Steps on the XLA stream: the CSR, ranks and tasks are read back to the host and
// checked as the CPU handler checks them (that also sizes each thread's scratch);
// a count pass (per task its cliques and vertex entries, and every vertex's largest
// clique); the per-task counts read back and summed into offsets on the host; when
// the cliques fit, a list pass writing each task's cliques at its offsets. Two host
// synchronizations: the handler cannot run inside CUDA graph capture.
#include "kcjax/cliques/maximal_cuda.h"

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "kcjax/cliques/args.h"
#include "kcjax/cliques/cliques.h"
#include "kcjax/core/ffi.h"
#include "kcjax/cuda/scratch.h"

namespace ffi = xla::ffi;

namespace kcjax::cliques {
namespace {

// Scratch memory for the threads' bitmap spaces, at most this much (the number of
// threads follows from it).
constexpr int64_t kMaximalScratchBytes = int64_t{1} << 30;
constexpr int64_t kMaximalMaxThreads = int64_t{1} << 16;

template <typename T>
cudaError_t ToHost(std::vector<T>* out, const T* device, int64_t count, cudaStream_t stream) {
  out->resize(static_cast<size_t>(std::max<int64_t>(count, 0)));
  if (count <= 0) return cudaSuccess;
  return cudaMemcpyAsync(out->data(), device, count * sizeof(T), cudaMemcpyDeviceToHost, stream);
}

ffi::Error MaximalCuda(cudaStream_t stream, ffi::ScratchAllocator xla_scratch,
                       ffi::Buffer<ffi::S32> indptr, ffi::Buffer<ffi::S32> indices,
                       ffi::Buffer<ffi::S32> rank, ffi::Buffer<ffi::S32> tasks, int32_t num_threads,
                       ffi::ResultBuffer<ffi::S32> verts, ffi::ResultBuffer<ffi::S32> sizes,
                       ffi::ResultBuffer<ffi::S32> totals, ffi::ResultBuffer<ffi::S32> best) {
  const Reporter rep("kcjax_clique_maximal");
  if (ffi::Error err = CheckMaximalShapes(rep, indptr, indices, rank, tasks, num_threads, *verts,
                                          *sizes, *totals, *best);
      err.failure()) {
    return err;
  }
  if (ffi::Error err = RequireNoCapture(rep, stream, "the graph and the clique counts");
      err.failure()) {
    return err;
  }
  const int64_t n = static_cast<int64_t>(indptr.element_count()) - 1;
  const int64_t e = static_cast<int64_t>(indices.element_count());
  const int64_t num_tasks = static_cast<int64_t>(tasks.element_count());
  std::vector<int32_t> ip, ix, rk, task;
  cudaError_t err;
  if ((err = ToHost(&ip, indptr.typed_data(), n + 1, stream)) != cudaSuccess ||
      (err = ToHost(&ix, indices.typed_data(), e, stream)) != cudaSuccess ||
      (err = ToHost(&rk, rank.typed_data(), n, stream)) != cudaSuccess ||
      (err = ToHost(&task, tasks.typed_data(), num_tasks, stream)) != cudaSuccess ||
      (err = cudaStreamSynchronize(stream)) != cudaSuccess) {
    return rep.Cuda("reading the graph back", err);
  }
  if (ffi::Error err =
          CheckMaximalData(rep, ip.data(), n, ix.data(), e, rk.data(), task.data(), num_tasks);
      err.failure()) {
    return err;
  }
  // Each thread's scratch: enough for the largest root of the call.
  int64_t dmax = 0, words = 1, valid = 0;
  for (int64_t t = 0; t < num_tasks; ++t) {
    const int32_t v = task[t];
    if (v < 0) continue;
    ++valid;
    int64_t p = 0, x = 0;
    for (int32_t i = ip[v]; i < ip[v + 1]; ++i) {
      if (ix[i] == v) continue;
      (rk[ix[i]] > rk[v] ? p : x) += 1;
    }
    dmax = std::max<int64_t>(dmax, ip[v + 1] - ip[v]);
    words = std::max(words, cliques::MaximalRootWords(p, x));
  }
  int32_t* out_best = best->typed_data();
  if ((err = cudaMemsetAsync(out_best, 0, n * sizeof(int32_t), stream)) != cudaSuccess) {
    return rep.Cuda("zeroing best", err);
  }
  const int64_t ints = cliques::MaximalThreadInts(dmax);
  const int64_t per_thread = words * 8 + ints * 4;
  const int64_t threads = std::max<int64_t>(
      1, std::min({valid, kMaximalMaxThreads, kMaximalScratchBytes / per_thread}));
  cuda::DeviceScratch scratch(xla_scratch, stream);
  auto alloc = [&](size_t bytes) { return scratch.Allocate(std::max<size_t>(bytes, 8)); };
  auto* w_scratch = static_cast<unsigned long long*>(alloc(threads * words * 8));
  auto* i_scratch = static_cast<int32_t*>(alloc(threads * ints * 4));
  auto* counts = static_cast<int64_t*>(alloc(4 * std::max<int64_t>(num_tasks, 1) * 8));
  auto* counter = static_cast<int32_t*>(alloc(sizeof(int32_t)));
  if (w_scratch == nullptr || i_scratch == nullptr || counts == nullptr || counter == nullptr) {
    return rep.Exhausted(threads * per_thread, "the maximal-clique search's bitmap spaces");
  }
  cliques::MaximalParams prm{};
  prm.indptr = indptr.typed_data();
  prm.indices = indices.typed_data();
  prm.rank = rank.typed_data();
  prm.tasks = tasks.typed_data();
  prm.num_tasks = static_cast<int32_t>(num_tasks);
  prm.next_task = counter;
  prm.task_cliques = counts;
  prm.task_entries = counts + num_tasks;
  prm.clique_offsets = counts + 2 * num_tasks;
  prm.entry_offsets = counts + 3 * num_tasks;
  prm.verts = verts->typed_data();
  prm.sizes = sizes->typed_data();
  prm.best = out_best;
  prm.words = w_scratch;
  prm.thread_words = words;
  prm.ints = i_scratch;
  prm.thread_ints = ints;
  int64_t cliques = 0, entries = 0;
  std::vector<int64_t> host_counts;
  if (num_tasks > 0) {
    if ((err = cudaMemsetAsync(counter, 0, sizeof(int32_t), stream)) != cudaSuccess ||
        (err = cliques::LaunchMaximal(stream, prm, threads, dmax)) != cudaSuccess) {
      return rep.Cuda("launching the count pass", err);
    }
    if ((err = ToHost(&host_counts, counts, 2 * num_tasks, stream)) != cudaSuccess ||
        (err = cudaStreamSynchronize(stream)) != cudaSuccess) {
      return rep.Cuda("reading the clique counts back", err);
    }
    // Offsets in task order (the CPU handler's order).
    host_counts.resize(static_cast<size_t>(4 * num_tasks));
    for (int64_t t = 0; t < num_tasks; ++t) {
      host_counts[2 * num_tasks + t] = cliques;
      host_counts[3 * num_tasks + t] = entries;
      cliques += host_counts[t];
      entries += host_counts[num_tasks + t];
    }
  }
  constexpr int64_t kMaxI32 = std::numeric_limits<int32_t>::max();
  const int32_t host_totals[2] = {static_cast<int32_t>(std::min(cliques, kMaxI32)),
                                  static_cast<int32_t>(std::min(entries, kMaxI32))};
  if ((err = cudaMemcpyAsync(totals->typed_data(), host_totals, sizeof(host_totals),
                             cudaMemcpyHostToDevice, stream)) != cudaSuccess) {
    return rep.Cuda("writing the totals", err);
  }
  const int64_t cap_sizes = static_cast<int64_t>(sizes->element_count());
  const int64_t cap_verts = static_cast<int64_t>(verts->element_count());
  if (num_tasks > 0 && cap_sizes > 0 && cliques <= cap_sizes && entries <= cap_verts) {
    prm.write = true;
    if ((err = cudaMemcpyAsync(counts + 2 * num_tasks, host_counts.data() + 2 * num_tasks,
                               2 * num_tasks * sizeof(int64_t), cudaMemcpyHostToDevice, stream)) !=
            cudaSuccess ||
        (err = cudaMemsetAsync(counter, 0, sizeof(int32_t), stream)) != cudaSuccess ||
        (err = cliques::LaunchMaximal(stream, prm, threads, dmax)) != cudaSuccess) {
      return rep.Cuda("launching the list pass", err);
    }
  }
  // The host arrays copied from must outlive the copies.
  if ((err = cudaStreamSynchronize(stream)) != cudaSuccess) {
    return rep.Cuda("finishing the search", err);
  }
  return ffi::Error::Success();
}

}  // namespace
}  // namespace kcjax::cliques

XLA_FFI_DEFINE_HANDLER_SYMBOL(kcjax_clique_maximal_cuda, kcjax::cliques::MaximalCuda,
                              kcjax::cliques::BindMaximal(kcjax::CudaBinding()));
