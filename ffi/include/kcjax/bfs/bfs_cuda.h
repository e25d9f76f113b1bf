// Host interface of the BFS CUDA kernels (ffi/cuda/bfs/bfs_kernels.cu).
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

namespace kcjax::cuda {

struct BfsProblem {
  const int32_t* indptr;   // device, int32[n + 1]
  const int32_t* indices;  // device, int32[m]
  const int32_t* sources;  // device, int32[s]
  int64_t n;
  int64_t m;
  int64_t s;
  int32_t* dist;        // device, int32[s, n]
  int32_t* parent;      // device, int32[s, n], or nullptr (no parents)
  int32_t method;       // kcjax::BfsMethod
  int32_t direction;    // kcjax::BfsDirection
  bool bitset;          // serve the sources 64 at a time (kBfsBitset and s > 1)
  int64_t tau;          // hub degree threshold
  int64_t block_edges;  // kBfsHybrid: frontier edges of a one-block level
};

struct BfsPlan {
  int grid = 0;              // blocks of the cooperative launch (all resident)
  size_t scratch_bytes = 0;  // device scratch the launch needs
};

// Sizes the persistent launch for this device (occupancy × SMs).
cudaError_t PlanBfs(const BfsProblem& p, int num_sms, BfsPlan* plan);

// Runs every traversal of `p` on `stream` with no host synchronization:
// the level loop lives in one cooperative kernel per call.
cudaError_t RunBfs(const BfsProblem& p, const BfsPlan& plan, void* scratch, cudaStream_t stream);

}  // namespace kcjax::cuda
