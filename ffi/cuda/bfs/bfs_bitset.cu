// CUDA kernel of "kcjax_bfs" for several sources with kBfsBitset: 64
// traversals per 64-bit word; each level one pull over all vertices (a thread
// per vertex, a warp for degree >= 32) serves every source of the group. One
// cooperative grid; levels separated by grid syncs.
#include <cooperative_groups.h>

#include <algorithm>
#include <cstdint>

#include "kcjax/bfs/bfs_cuda.h"
#include "kcjax/bfs/policy.h"
#include "kcjax/cuda/grid.cuh"
#include "kcjax/cuda/warp.cuh"

namespace cg = cooperative_groups;

namespace kcjax::bfs {

using namespace kcjax::cuda;  // the shared device primitives
namespace {

constexpr int kThreads = BfsPolicy::kBlockThreads;

__device__ __forceinline__ uint64_t LoadBits(const uint64_t* p) {
  return __ldcg(reinterpret_cast<const unsigned long long*>(p));
}

struct BitsetScratch {
  uint64_t* visited;   // [n]
  uint64_t* front[2];  // [n] each
  int32_t* flags;      // [3]
};

__global__ void __launch_bounds__(kThreads) BfsBitsetKernel(BfsProblem p, BitsetScratch sc) {
  cg::grid_group grid = cg::this_grid();
  constexpr int kWidth = BfsPolicy::kBitsetWidth;
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  const int64_t tid = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const int lane = threadIdx.x & 31;
  int tick = 0;
  for (int64_t first = 0; first < p.s; first += kWidth) {
    const int count = static_cast<int>(p.s - first < kWidth ? p.s - first : kWidth);
    for (int64_t v = tid; v < p.n; v += stride) {
      sc.visited[v] = 0;
      sc.front[0][v] = 0;
    }
    grid.sync();
    uint64_t full = 0;
    for (int b = 0; b < count; ++b) {
      const int32_t src = p.sources[first + b];
      if (src >= 0 && src < p.n) full |= uint64_t{1} << b;
    }
    if (tid < count && ((full >> tid) & 1)) {
      const int32_t src = p.sources[first + tid];
      atomicOr(reinterpret_cast<unsigned long long*>(sc.visited + src), 1ull << tid);
      atomicOr(reinterpret_cast<unsigned long long*>(sc.front[0] + src), 1ull << tid);
      p.dist[(first + tid) * p.n + src] = 0;
      if (p.parent != nullptr) p.parent[(first + tid) * p.n + src] = src;
    }
    grid.sync();
    // Warps walk 32 consecutive vertices at a time: lane l owns vertex base + l.
    const int64_t warps = stride / 32, wid = tid / 32;
    const int64_t span = (p.n + 31) / 32 * 32;
    for (int32_t level = 0;; ++level) {
      const uint64_t* cur = sc.front[level & 1];
      uint64_t* nxt = sc.front[(level + 1) & 1];
      int32_t* flag = NextFlag(sc.flags, tick, tid);
      bool changed = false;
      for (int64_t base = wid * 32; base < span; base += warps * 32) {
        const int64_t v = base + lane;
        const bool mine = v < p.n;
        const uint64_t seen = mine ? LoadBits(sc.visited + v) : full;
        const uint64_t need = full & ~seen;
        const int32_t lo = mine ? p.indptr[v] : 0, hi = mine ? p.indptr[v + 1] : 0;
        const bool wide = need != 0 && hi - lo >= BfsPolicy::kSmallMax;
        uint64_t acc = 0;
        if (need != 0 && !wide) {
          for (int32_t e = lo; e < hi; ++e) {
            const int32_t u = p.indices[e];
            uint64_t fresh = LoadBits(cur + u) & need & ~acc;
            if (fresh == 0) continue;
            acc |= fresh;
            if (p.parent != nullptr)
              for (uint64_t f = fresh; f != 0; f &= f - 1)
                p.parent[(first + __ffsll(static_cast<long long>(f)) - 1) * p.n + v] = u;
            if (acc == need) break;
          }
        }
        for (unsigned todo = __ballot_sync(0xffffffffu, wide); todo != 0; todo &= todo - 1) {
          const int owner = __ffs(todo) - 1;
          const int64_t w = base + owner;
          const uint64_t wneed = __shfl_sync(0xffffffffu, need, owner);
          const int32_t wlo = __shfl_sync(0xffffffffu, lo, owner);
          const int32_t whi = __shfl_sync(0xffffffffu, hi, owner);
          uint64_t got = 0;
          for (int32_t e0 = wlo; e0 < whi; e0 += 32) {
            const int32_t e = e0 + lane;
            if (e < whi) {
              const int32_t u = p.indices[e];
              const uint64_t fresh = LoadBits(cur + u) & wneed & ~got;
              if (fresh != 0 && p.parent != nullptr)
                for (uint64_t f = fresh; f != 0; f &= f - 1)
                  p.parent[(first + __ffsll(static_cast<long long>(f)) - 1) * p.n + w] = u;
              got |= fresh;
            }
            got = WarpOr(got);
            if (got == wneed) break;
          }
          if (lane == owner) acc = got;
        }
        if (mine) {
          nxt[v] = acc;
          if (acc != 0) {
            sc.visited[v] = seen | acc;
            changed = true;
            for (uint64_t f = acc; f != 0; f &= f - 1)
              p.dist[(first + __ffsll(static_cast<long long>(f)) - 1) * p.n + v] = level + 1;
          }
        }
      }
      if (changed) *flag = 1;
      grid.sync();
      if (__ldcg(flag) == 0) break;
    }
    grid.sync();
  }
}

}  // namespace

cudaError_t PlanBitset(const BfsProblem& p, int num_sms, BfsPlan* plan) {
  int per_sm = 0;
  const cudaError_t err =
      cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, BfsBitsetKernel, kThreads, 0);
  if (err != cudaSuccess) return err;
  const int64_t resident = static_cast<int64_t>(max(1, per_sm)) * num_sms;
  const int64_t work = std::max(p.n, p.m / BfsPolicy::kEdgesPerThread);
  plan->kernel = BfsKernel::kBitset;
  plan->grid = static_cast<int>(std::max<int64_t>(1, std::min(resident, CeilDiv(work, kThreads))));
  const size_t n = static_cast<size_t>(p.n);
  plan->scratch_bytes = 3 * AlignScratch(n * sizeof(uint64_t)) + AlignScratch(3 * sizeof(int32_t));
  return cudaSuccess;
}

cudaError_t RunBitset(const BfsProblem& p, const BfsPlan& plan, void* scratch,
                      cudaStream_t stream) {
  ScratchCursor cursor(scratch);
  const size_t n = static_cast<size_t>(p.n);
  BfsProblem problem = p;
  BitsetScratch sc;
  sc.visited = cursor.Take<uint64_t>(n);
  sc.front[0] = cursor.Take<uint64_t>(n);
  sc.front[1] = cursor.Take<uint64_t>(n);
  sc.flags = cursor.Take<int32_t>(3);
  // Batched sources: memsets here keep the kernel's registers for the pull
  // (their launch cost is shared by 64 traversals a group).
  const size_t rows = static_cast<size_t>(p.s) * n * sizeof(int32_t);
  cudaError_t err = cudaMemsetAsync(p.dist, 0xff, rows, stream);
  if (err == cudaSuccess && p.parent != nullptr)
    err = cudaMemsetAsync(p.parent, 0xff, rows, stream);
  if (err == cudaSuccess) err = cudaMemsetAsync(sc.flags, 0, 3 * sizeof(int32_t), stream);
  if (err != cudaSuccess) return err;
  void* args[] = {&problem, &sc};
  return cudaLaunchCooperativeKernel(reinterpret_cast<void*>(BfsBitsetKernel), plan.grid, kThreads,
                                     args, 0, stream);
}

}  // namespace kcjax::bfs
