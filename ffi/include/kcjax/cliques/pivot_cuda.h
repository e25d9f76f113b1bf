// Host interface of the CUDA pivot counter (ffi/cuda/cliques/pivot.cu), used
// by its FFI handler (ffi/cuda/cliques/pivot_cuda.cc). Semantics: kcjax/cliques/cliques.h.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

namespace kcjax::cliques {

// Filled by LaunchPivotPrepare (zero it first). d = |N+(v)| of a task's root.
struct PivotStats {
  int32_t max_d;        // largest d over valid tasks
  int32_t max_small_d;  // largest d <= CliquePolicy::kPivotSmallMaxDim
  int32_t num_valid;    // tasks that are vertex ids (not -1 padding)
  int32_t num_large;    // valid tasks with d > kPivotSmallMaxDim
  int32_t num_heavy;    // valid tasks with d >= kPivotChunkDegree (large included)
  int32_t bad_task;     // 1 + index of a task that is neither -1 nor in [0, n); 0: none
  int32_t bad_task_value;
  int32_t bad_row;  // 1 + a CSR row breaking "ascending ids in (u, n)", or indptr
                    // not non-decreasing / starting at 0 / within len(indices); 0: none
};

// Validates the CSR and the tasks, writes keys[t] = d + 1 for valid tasks and
// 0 for padding or invalid ones, and accumulates `stats`.
cudaError_t LaunchPivotPrepare(cudaStream_t stream, const int32_t* indptr, const int32_t* indices,
                               int32_t n, int32_t m, const int32_t* tasks, int32_t num_tasks,
                               uint32_t* keys, PivotStats* stats);

// Tasks are then sorted by key, descending, with the shared task stage
// (kcjax/cuda/tasks.h; the caller's task array as its values), so that
// valid tasks come first, largest candidate sets first.

// Global scratch (in 64-bit words) one warp needs for a root with d > 128
// candidates, for every d <= dcap: bitmap space, DFS frames and frame data.
int64_t PivotLargeWarpWords(int32_t dcap);

struct PivotParams {
  const int32_t* indptr;
  const int32_t* indices;
  // Tasks sorted by key (descending): [0, num_large) have d > 128,
  // [num_large, num_heavy) have kPivotChunkDegree <= d <= 128, and
  // [num_heavy, num_valid) smaller ones (taken in chunks).
  const int32_t* tasks;
  int32_t num_large;
  int32_t num_heavy;
  int32_t num_valid;
  // The first num_split tasks (the largest d; never tiny ones) are each walked
  // by CliquePolicy::kPivotSplitParts warps, a part of the tree each (pivot.cu's
  // Split); 0 in per-vertex mode.
  int32_t num_split;
  int32_t* counters;  // 3 zeroed ints: next large / heavy / small queue entry
  // Output: (hmax + 1) x out_p cells of 128-bit little-endian counts (zeroed).
  unsigned long long* hist;
  int32_t out_p;   // pmax + 1
  int32_t hist_h;  // cells written have h < hist_h = min(hmax, max_d + 1) + 1
  int32_t hist_p;  // and p < hist_p = max_d + 1
  int32_t hmax;
  int32_t kmin;
  // Large-root workspace: num_large_warps slots of large_warp_words words.
  unsigned long long* large_scratch;
  int64_t large_warp_words;
  int32_t num_large_warps;
  // Per-vertex mode (kcjax_clique_pivot_local; hmax = kmin = k, hist unused):
  // per_vertex = n zeroed 128-bit totals as (lo, hi) pairs; binom = C(a, b) as
  // (lo, hi) pairs, [max_d + 1][hmax + 1] (kcjax::BinomialTable).
  unsigned long long* per_vertex;
  const unsigned long long* binom;
};

// The count kernel's variants: small_w in {1, 2} is the row width (64-bit
// words) of the largest small root; per_vertex selects the per-vertex mode.
struct PivotKernelShape {
  int small_w;
  bool per_vertex;
};

// Dynamic shared memory of one block of the count kernel.
size_t PivotCountSmemBytes(PivotKernelShape shape);

// Largest number of resident blocks of the count kernel on `device`.
cudaError_t PivotCountMaxBlocks(int device, PivotKernelShape shape, int* blocks);

// Launches the persistent count kernel with `blocks` blocks of
// CliquePolicy::kPivotWarpsPerBlock warps.
cudaError_t LaunchPivotCount(cudaStream_t stream, const PivotParams& params, PivotKernelShape shape,
                             int blocks);

}  // namespace kcjax::cliques
