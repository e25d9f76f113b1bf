// PlanBfs / RunBfs: which BFS kernel serves a call (ffi/include/kcjax/bfs/bfs_cuda.h).
#include <cuda_runtime.h>

#include "kcjax/bfs/bfs_cuda.h"
#include "kcjax/bfs/policy.h"

namespace kcjax::bfs {

cudaError_t PlanBfs(const BfsProblem& p, int num_sms, BfsPlan* plan) {
  if (p.bitset) return PlanBitset(p, num_sms, plan);
  // cluster == 0 asks for the grid kernel where a cluster would serve (tests reach
  // kBfsAutoMethod's grid path on small graphs through it).
  const bool cluster = p.cluster != 0 &&
                       (p.method == kBfsCluster || (p.method == kBfsAutoMethod && SmallGraph(p.m)));
  if (cluster) {
    const cudaError_t err = PlanCluster(p, plan);
    if (err != cudaSuccess || plan->kernel == BfsKernel::kCluster) return err;
  }
  // Larger graphs, or a graph whose bitmaps no cluster holds: the grid kernel
  // (kBfsAutoMethod its bitmap variant, kBfsCluster the Enterprise rung).
  BfsProblem grid = p;
  if (grid.method == kBfsCluster) grid.method = kBfsEnterprise;
  return PlanLevels(grid, num_sms, plan);
}

cudaError_t RunBfs(const BfsProblem& p, const BfsPlan& plan, void* scratch, cudaStream_t stream) {
  switch (plan.kernel) {
    case BfsKernel::kBitset:
      return RunBitset(p, plan, scratch, stream);
    case BfsKernel::kCluster:
      return RunCluster(p, plan, stream);
    case BfsKernel::kLevels:
      break;
  }
  BfsProblem grid = p;
  if (grid.method == kBfsCluster) grid.method = kBfsEnterprise;
  return RunLevels(grid, plan, scratch, stream);
}

}  // namespace kcjax::bfs
