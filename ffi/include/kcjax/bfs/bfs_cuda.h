// Host interface of the BFS CUDA kernels (ffi/cuda/bfs/): PlanBfs / RunBfs
// (bfs_launch.cc) pick one of three kernels, each in its own file:
//   bfs_levels.cu   the ablation ladder kBfsScan..kBfsEnterprise: one cooperative
//                   grid, levels separated by grid syncs
//   bfs_cluster.cu  kBfsCluster: a whole traversal in one thread block cluster
//   bfs_bitset.cu   kBfsBitset: 64 sources per word, one pull scan per level
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "kcjax/cuda/limits.h"

namespace kcjax::bfs {

struct BfsProblem {
  const int32_t* indptr;   // device, int32[n + 1]
  const int32_t* indices;  // device, int32[m]
  const int32_t* sources;  // device, int32[s]
  int64_t n;
  int64_t m;
  int64_t s;
  int32_t* dist;      // device, int32[s, n]
  int32_t* parent;    // device, int32[s, n], or nullptr (no parents)
  int32_t method;     // kcjax::bfs::BfsMethod
  int32_t direction;  // kcjax::bfs::BfsDirection
  bool bitset;        // serve the sources 64 at a time (kBfsBitset and s > 1)
  int64_t tau;        // hub degree threshold
  int32_t cluster;    // kBfsCluster: blocks per cluster (< 0: the policy's size)
};

enum class BfsKernel { kLevels, kCluster, kBitset };

struct BfsPlan {
  BfsKernel kernel = BfsKernel::kLevels;
  int grid = 0;              // blocks of the launch (cooperative: all resident)
  size_t scratch_bytes = 0;  // device scratch the launch needs
  int cluster = 0;           // kCluster: blocks per cluster
  int words = 0;             // kCluster: 32-bit words of a vertex bitmap
  size_t shared_bytes = 0;   // kCluster: dynamic shared memory per block
};

// Picks the kernel and sizes its launch for this device.
cudaError_t PlanBfs(const BfsProblem& p, int num_sms, BfsPlan* plan);

// Runs every traversal of `p` on `stream` with no host synchronization: one
// kernel launch per call (the bitset kernel after three memsets).
cudaError_t RunBfs(const BfsProblem& p, const BfsPlan& plan, void* scratch, cudaStream_t stream);

// Per kernel (used by PlanBfs / RunBfs).
cudaError_t PlanLevels(const BfsProblem& p, int num_sms, BfsPlan* plan);
cudaError_t RunLevels(const BfsProblem& p, const BfsPlan& plan, void* scratch, cudaStream_t stream);
cudaError_t PlanBitset(const BfsProblem& p, int num_sms, BfsPlan* plan);
cudaError_t RunBitset(const BfsProblem& p, const BfsPlan& plan, void* scratch, cudaStream_t stream);
// Sets plan->kernel = kCluster if a cluster of up to kMaxClusterBlocks blocks
// (or exactly p.cluster) holds the graph's bitmaps and can be resident; leaves
// the plan untouched otherwise.
cudaError_t PlanCluster(const BfsProblem& p, BfsPlan* plan);
cudaError_t RunCluster(const BfsProblem& p, const BfsPlan& plan, cudaStream_t stream);

// Bytes rounded up to the scratch alignment (every piece of a plan's scratch).
inline size_t AlignScratch(size_t bytes) {
  return (bytes + cuda::kScratchAlign - 1) / cuda::kScratchAlign * cuda::kScratchAlign;
}

// Hands out a plan's scratch as consecutive pieces, each rounded up by AlignScratch
// (the layout the plan's scratch_bytes sums).
class ScratchCursor {
 public:
  explicit ScratchCursor(void* base) : at_(static_cast<char*>(base)) {}
  template <typename T>
  T* Take(size_t count) {
    T* piece = reinterpret_cast<T*>(at_);
    at_ += AlignScratch(count * sizeof(T));
    return piece;
  }

 private:
  char* at_;
};

}  // namespace kcjax::bfs
