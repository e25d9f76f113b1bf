// The filter rounds behind the CUDA handler of "kcjax_match_filter" (handler in
// filter_cuda.cc, host interface in kcjax/match/filter_cuda.h, contract in
// kcjax/match/filter.h; reference: ffi/cpu/match/filter.cc).
//
// One cooperative kernel runs every round: a warp per data vertex (grid
// stride), rounds separated by grid syncs, and the loop stops on the device
// once a round removes nothing, so a query whose filter settles in two
// rounds pays for three, not for a fixed count. The rounds alternate between
// the output (even rounds) and the work result (odd rounds; copied to the
// output if the last round wrote it). The handler allocates nothing and reads
// nothing back, so it is registered command-buffer compatible: XLA captures
// it into one CUDA graph with the plan's other operations; it enqueues the
// kernel alone (the kernel clears its own counters).
//
// A warp's vertex v: lane j of each chunk of 32 neighbours loads neighbour w's
// mask, slot and label-group membership (the OR of adj over w's candidate
// bits), kChunksPerBatch chunks' loads issued together; the warp ORs the
// masks, counts alive neighbours per slot in shared memory, and lane u
// counts, for its query vertex u, the chunk's neighbours in U(u) per slot
// (the slots and memberships of the lanes with any passed by shuffles) in its
// own column of a per-warp byte table (saturating at 255: every threshold is
// at most 31). Lane u then decides u and a ballot gives C'[v].
#include <cooperative_groups.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <atomic>
#include <cstdint>

#include "kcjax/core/ffi.h"
#include "kcjax/cuda/grid.cuh"
#include "kcjax/cuda/limits.h"
#include "kcjax/cuda/warp.cuh"
#include "kcjax/match/filter_cuda.h"
#include "kcjax/match/policy.h"

namespace ffi = xla::ffi;
namespace cg = cooperative_groups;

namespace kcjax::match {
namespace {

using cuda::kFull;
using FP = FilterPolicy;
constexpr int kThreads = 32 * FP::kWarpsPerBlock;

struct WarpTables {
  uint8_t grp[kMaxQuery][kMaxQuery];  // [slot k][query vertex u]
  int32_t prof[kMaxQuery];
};

// C'[v] (contract) of a vertex with candidates cv, from the round's masks c.
__device__ uint32_t WarpSurvivors(const FilterArgs& A, const uint32_t* c, int64_t v, uint32_t cv,
                                  bool refine, WarpTables& t, const uint32_t* adj,
                                  const uint8_t (*need)[kMaxQuery]) {
  const int lane = threadIdx.x & 31;
  const int q = A.q;
  for (int k = 0; k < q; ++k) t.grp[k][lane] = 0;
  t.prof[lane] = 0;
  __syncwarp();
  uint32_t has = 0;
  const int32_t end = A.indptr[v + 1];
  constexpr int kBatch = FP::kChunksPerBatch;
  for (int32_t base = A.indptr[v]; base < end; base += 32 * kBatch) {
    int32_t w[kBatch];
    uint32_t cw[kBatch];
    int32_t k[kBatch];
#pragma unroll
    for (int b = 0; b < kBatch; ++b) {
      const int32_t i = base + 32 * b + lane;
      w[b] = i < end ? A.indices[i] : -1;
    }
#pragma unroll
    for (int b = 0; b < kBatch; ++b) {
      cw[b] = w[b] >= 0 ? __ldcg(c + w[b]) : 0u;
      k[b] = w[b] >= 0 ? A.slot[w[b]] : -1;
    }
#pragma unroll
    for (int b = 0; b < kBatch; ++b) {
      has |= cw[b];
      if (k[b] >= 0 && cw[b] != 0) atomicAdd(&t.prof[k[b]], 1);
      if (!refine) continue;
      uint32_t un = 0;
      if (k[b] >= 0)
        for (uint32_t m = cw[b]; m != 0; m &= m - 1) un |= adj[__ffs(m) - 1];
      // Lane u counts, in its column, the batch's neighbours in U(u): only the
      // lanes whose neighbour is in some U(u) are visited.
      for (uint32_t m = __ballot_sync(kFull, un != 0); m != 0; m &= m - 1) {
        const int j = __ffs(m) - 1;
        const int32_t kj = __shfl_sync(kFull, k[b], j);
        const uint32_t uj = __shfl_sync(kFull, un, j);
        if ((uj >> lane) & 1u) {
          uint8_t& g = t.grp[kj][lane];
          g = g < 255 ? g + 1 : 255;
        }
      }
    }
  }
  has = __reduce_or_sync(kFull, has);
  __syncwarp();
  bool keep = false;
  if (lane < q && ((cv >> lane) & 1u)) {
    keep = !refine || (adj[lane] & ~has) == 0;
    for (int k = 0; keep && k < q; ++k) {
      const int32_t nd = need[k][lane];
      keep = t.prof[k] >= nd && (!refine || t.grp[k][lane] >= nd);
    }
  }
  const uint32_t out = __ballot_sync(kFull, keep);
  __syncwarp();
  return out;
}

__global__ void __launch_bounds__(kThreads, FP::kBlocksPerSm) FilterKernel(FilterArgs A) {
  __shared__ uint32_t s_adj[kMaxQuery];
  __shared__ uint8_t s_need[kMaxQuery][kMaxQuery];  // [k][u], clamped to 255
  __shared__ WarpTables s_warp[FP::kWarpsPerBlock];
  __shared__ int32_t s_total[FP::kWarpsPerBlock];
  __shared__ int32_t s_any[FP::kWarpsPerBlock];
  cg::grid_group grid = cg::this_grid();
  const int q = A.q;
  for (int i = threadIdx.x; i < kMaxQuery * kMaxQuery; i += kThreads) {
    const int k = i / kMaxQuery, u = i % kMaxQuery;
    s_need[k][u] = (u < q && k < q) ? static_cast<uint8_t>(min(A.need[u * q + k], 255)) : 0;
  }
  if (threadIdx.x < kMaxQuery) s_adj[threadIdx.x] = threadIdx.x < q ? A.adj[threadIdx.x] : 0u;
  __syncthreads();
  const bool refining = *A.refine != 0;
  const int lane = threadIdx.x & 31, wib = threadIdx.x >> 5;
  const int64_t tid = static_cast<int64_t>(blockIdx.x) * kThreads + threadIdx.x;
  const int64_t threads = static_cast<int64_t>(gridDim.x) * kThreads;
  // The info totals and the change flags start at zero: cleared here, before a
  // grid sync, rather than by memsets the handler would enqueue beside the kernel.
  for (int64_t i = tid; i < 4 + A.rounds; i += threads) A.info[i] = 0;
  if (tid < 3) A.flags[tid] = 0;
  grid.sync();
  const uint32_t* src = A.cand;
  int tick = 0, cur = 0, run = 0, removed = 0, fixpoint = 0;
  for (int32_t r = 0; r <= A.rounds; ++r) {
    int32_t* changed = cuda::NextFlag(A.flags, tick, tid);
    uint32_t* dst = (r & 1) ? A.spare : A.out;
    int32_t total = 0, any = 0;
    for (int64_t v = tid >> 5; v < A.n; v += threads >> 5) {
      const uint32_t cv = __ldcg(src + v);
      const uint32_t keep =
          cv == 0 ? 0u
                  : WarpSurvivors(A, src, v, cv, r > 0 && refining, s_warp[wib], s_adj, s_need);
      if (lane == 0) {
        dst[v] = keep;
        total += __popc(keep);
        any |= keep != cv;
      }
    }
    if (lane == 0) {
      s_total[wib] = total;
      s_any[wib] = any;
    }
    __syncthreads();
    if (threadIdx.x == 0) {
      int32_t sum = 0, block_any = 0;
      for (int w = 0; w < FP::kWarpsPerBlock; ++w) {
        sum += s_total[w];
        block_any |= s_any[w];
      }
      if (sum != 0) atomicAdd(A.info + 3 + r, sum);
      if (block_any) *reinterpret_cast<volatile int32_t*>(changed) = 1;
    }
    grid.sync();
    cur = r & 1;
    src = dst;
    if (r == 0) continue;
    run = r;
    if (*reinterpret_cast<volatile int32_t*>(changed) == 0) {
      fixpoint = 1;
      break;
    }
    ++removed;
  }
  if (cur == 1)
    for (int64_t v = tid; v < A.n; v += threads) A.out[v] = __ldcg(A.spare + v);
  if (tid == 0) {
    A.info[0] = run;
    A.info[1] = removed;
    A.info[2] = fixpoint;
    const int32_t last = __ldcg(A.info + 3 + run);
    for (int32_t r = run + 1; r <= A.rounds; ++r) A.info[3 + r] = last;
  }
}

// Resident blocks of FilterKernel per SM on `device`, queried once (the
// handler runs again whenever XLA records its command buffer).
cudaError_t BlocksPerSm(int device, int* per_sm) {
  static std::atomic<int> cached[cuda::kMaxDevices] = {};
  if (device < 0 || device >= cuda::kMaxDevices)
    return cudaOccupancyMaxActiveBlocksPerMultiprocessor(per_sm, FilterKernel, kThreads, 0);
  if ((*per_sm = cached[device].load()) > 0) return cudaSuccess;
  const cudaError_t err =
      cudaOccupancyMaxActiveBlocksPerMultiprocessor(per_sm, FilterKernel, kThreads, 0);
  if (err == cudaSuccess) cached[device].store(*per_sm);
  return err;
}

}  // namespace

ffi::Error RunFilter(FilterArgs A, const Reporter& rep, cudaStream_t stream) {
  const int64_t n = A.n;
  cudaError_t err = cudaSuccess;
  int device = 0, sms = 0, per_sm = 0;
  if ((err = cudaGetDevice(&device)) != cudaSuccess || (err = cuda::SmCount(&sms)) != cudaSuccess)
    return rep.Cuda("querying the device", err);
  if ((err = BlocksPerSm(device, &per_sm)) != cudaSuccess || per_sm < 1)
    return rep.Cuda("occupancy of the filter kernel", err);
  const int64_t wanted = (n + FP::kWarpsPerBlock - 1) / FP::kWarpsPerBlock;
  const int64_t resident = static_cast<int64_t>(std::min(per_sm, FP::kBlocksPerSm)) * sms;
  const int grid = static_cast<int>(std::max<int64_t>(1, std::min(resident, wanted)));
  void* args[] = {&A};
  err = cudaLaunchCooperativeKernel(reinterpret_cast<void*>(FilterKernel), dim3(grid),
                                    dim3(kThreads), args, 0, stream);
  if (err != cudaSuccess) return rep.Cuda("filter kernel launch", err);
  return ffi::Error::Success();
}

}  // namespace kcjax::match
