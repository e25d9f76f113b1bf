// Host interface of the CUDA maximal-clique search (ffi/cuda/cliques/maximal.cu), used
// by its FFI handler (ffi/cuda/cliques/maximal_cuda.cc). Semantics and the search's
// rules: kcjax/cliques/cliques.h and ffi/cpu/cliques/maximal.cc.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

namespace kcjax::cliques {

// Scratch of one root with p members of P and at most x of X: 64-bit words (bitmap
// rows and per-level sets); and int32s of a thread whose roots have at most dmax
// neighbours.
int64_t MaximalRootWords(int64_t p, int64_t x);
int64_t MaximalThreadInts(int64_t dmax);

struct MaximalParams {
  const int32_t* indptr;
  const int32_t* indices;
  const int32_t* rank;
  const int32_t* tasks;
  int32_t num_tasks;
  int32_t* next_task;  // a zeroed counter
  // write = false: count pass, per task its cliques and vertex entries, and best.
  // write = true: list pass, each task's cliques at its offsets.
  bool write;
  int64_t* task_cliques;
  int64_t* task_entries;
  const int64_t* clique_offsets;
  const int64_t* entry_offsets;
  int32_t* verts;
  int32_t* sizes;
  int32_t* best;
  unsigned long long* words;  // threads x thread_words
  int64_t thread_words;
  int32_t* ints;  // threads x thread_ints
  int64_t thread_ints;
};

// Launches one pass over the tasks with `threads` persistent threads, each taking
// roots from the counter and searching one root at a time.
cudaError_t LaunchMaximal(cudaStream_t stream, const MaximalParams& params, int64_t threads,
                          int64_t dmax);

}  // namespace kcjax::cliques
