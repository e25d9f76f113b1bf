// Host interface between the CUDA handlers of "kcjax_clique_list" and
// "kcjax_clique_per_vertex" (list_cuda.cc; contracts in kcjax/cliques/cliques.h)
// and their kernels (list.cu). Plain C++ and CUDA runtime types
// only, so that the handlers compile with the host compiler.
//
// Pipeline (all on the caller's stream):
//   1. LaunchListPrepass: initialise the outputs (cliques to -1, counts to 0);
//      one warp per task computes its key d = |N+(u) ∩ N+(v)| and flags
//      invalid task ids.
//   2. The handler copies the 16-byte ListStats back (one stream
//      synchronization) and sizes the per-warp arenas to the largest d.
//   3. PlanList + LaunchList: radix sort of the tasks by d (largest first),
//      then the persistent sorted-list DFS, one warp per task.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "kcjax/core/csr.h"

namespace kcjax::cuda {

struct ListProblem {
  DagView dag;  // device pointers, src required
  const int32_t* tasks;    // device, [num_tasks]; -1: padding
  int64_t num_tasks;  // < 2^31 - 1 (checked by the handler)
  int32_t k;          // clique size, >= 3
  bool per_vertex;    // false: listing, true: per-vertex counts
  // Listing (per_vertex == false).
  bool stop_when_full;
  int32_t* cliques;   // device, [capacity, k]
  int64_t capacity;
  // Listing: count uint32[4]; per-vertex: counts uint32[num_nodes, 4]. Both
  // 128-bit little-endian, 8-byte aligned (viewed as uint64 (lo, hi) pairs).
  uint32_t* counts;
};

// Read back by the handler after the pre-pass.
struct ListStats {
  int32_t max_d;       // largest d = |N+(u) ∩ N+(v)| over the valid tasks (0 if none)
  int32_t num_viable;  // valid tasks with d >= k - 2 (the others hold no k-clique)
  int32_t bad_task;    // 1 + index of a task that is neither -1 nor an edge id; 0: none
  int32_t bad_task_value;
};

// Scratch of the pre-pass (and of the DFS kernel's counters), 256-byte
// aligned base expected.
size_t ListPrepassScratchBytes(int64_t num_tasks);
cudaError_t LaunchListPrepass(const ListProblem& problem, void* scratch, int num_sms,
                              cudaStream_t stream);
const ListStats* ListPrepassStats(const void* scratch);

// Launch shape and arena size of the DFS kernel for the largest task size.
struct ListPlan {
  int max_d = 0;              // frame size: largest candidate set
  int blocks = 0;             // persistent grid (0: nothing to launch)
  int warps_per_block = 0;
  size_t arena_words = 0;     // int32 words of one warp's arena
  size_t scratch_bytes = 0;   // arenas of all warps
};

cudaError_t PlanList(const ListProblem& problem, const ListStats& stats, int num_sms,
                     ListPlan* plan);
cudaError_t LaunchList(const ListProblem& problem, const ListPlan& plan,
                       void* prepass_scratch, void* arena, cudaStream_t stream);

}  // namespace kcjax::cuda
