// CUDA handler of "kcjax_truss" (contract in kcjax/truss/truss.h); the twin of
// ffi/cpu/truss/truss.cc.
//
// Steps, all on the XLA stream with no host synchronization: mark the live
// edges (k-core prefilter), count supports by the chosen pass, then peel in
// one cooperative persistent kernel: each level scans the live edges for the
// frontier (support <= level), and synchronous rounds (grid-wide syncs, the
// frontier size read on the device) remove it, decrementing the other two
// edges of every live triangle (PKT's rule for triangles with two frontier
// edges), until no round adds an edge; then the next level. Frontier edges
// whose shorter list is long are intersected by the whole grid, not one warp.
//
// Intersections and warp sums come from kcjax/cuda/; the two warp helpers
// marked below (min, aggregated push) are candidates for warp.cuh.
#include <cooperative_groups.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <climits>
#include <cstdint>
#include <optional>
#include <string>

#include "kcjax/core/ffi.h"
#include "kcjax/cuda/intersect.cuh"
#include "kcjax/cuda/scratch.h"
#include "kcjax/cuda/warp.cuh"
#include "kcjax/truss/truss.h"

namespace ffi = xla::ffi;
namespace cg = cooperative_groups;

namespace kcjax {
namespace {

using cuda::kWarp;
using cuda::WarpMin;
using cuda::WarpPush;
using cuda::WarpSum;
constexpr int kThreads = TrussPolicy::kThreads;

// Edge states during peeling.
constexpr uint8_t kDead = 0, kLive = 1, kFrontier = 2, kNext = 3;

// Counters of the peeling kernel (int32 slots).
enum Counter : int {
  kSize0 = 0,  // frontier sizes, double-buffered
  kSize1 = 1,
  kRemaining = 2,  // live edges
  kHeavy = 3,      // heavy frontier edges this round
  kMin0 = 4,       // smallest live support above the level, double-buffered
  kMin1 = 5,
  kNumCounters = 8,
};

// First position p in [lo, hi) with col[p] >= x (hi if none).
__device__ __forceinline__ int32_t LowerBound(const int32_t* __restrict__ col, int32_t lo,
                                              int32_t hi, int32_t x) {
  return lo + cuda::LowerBound(col + lo, hi - lo, x);
}

struct Csr {
  const int32_t* indptr;
  const int32_t* indices;
  const int32_t* eid;
  const int32_t* esrc;
  const int32_t* edst;
  int32_t m;
};

__global__ void InitKernel(Csr g, const int32_t* __restrict__ core, int32_t use_core,
                           const int32_t* __restrict__ kbuf, uint8_t* state, int32_t* sup,
                           int32_t* counters) {
  const int32_t k = max(*kbuf, 2);
  const int64_t stride = int64_t{gridDim.x} * blockDim.x;
  for (int64_t e = int64_t{blockIdx.x} * blockDim.x + threadIdx.x; e < g.m; e += stride) {
    bool alive = true;
    if (use_core) alive = core[g.esrc[e]] >= k - 1 && core[g.edst[e]] >= k - 1;
    state[e] = alive ? kLive : kDead;
    sup[e] = 0;
  }
  if (blockIdx.x == 0 && threadIdx.x < kNumCounters) {
    counters[threadIdx.x] = (threadIdx.x == kMin0 || threadIdx.x == kMin1) ? INT_MAX : 0;
  }
}

// Each triangle once from the degree-oriented DAG: warp per DAG edge (a, b), lanes
// search the shorter out-list's entries in the longer one.
__global__ void SupportDagKernel(const int32_t* __restrict__ dptr, const int32_t* __restrict__ dcol,
                                 const int32_t* __restrict__ dsrc, const int32_t* __restrict__ deid,
                                 int32_t m, const uint8_t* __restrict__ state, int32_t* sup) {
  const int lane = threadIdx.x & (kWarp - 1);
  const int64_t warps = int64_t{gridDim.x} * blockDim.x / kWarp;
  for (int64_t d = (int64_t{blockIdx.x} * blockDim.x + threadIdx.x) / kWarp; d < m; d += warps) {
    const int32_t e = deid[d];
    if (!state[e]) continue;
    const int32_t a = dsrc[d], b = dcol[d];
    int32_t a0 = dptr[a], a1 = dptr[a + 1], b0 = dptr[b], b1 = dptr[b + 1];
    if (a1 - a0 > b1 - b0) {
      int32_t t0 = a0, t1 = a1;
      a0 = b0, a1 = b1, b0 = t0, b1 = t1;
    }
    int32_t own = 0;
    for (int32_t i = a0 + lane; i < a1; i += kWarp) {
      const int32_t w = dcol[i];
      const int32_t j = LowerBound(dcol, b0, b1, w);
      if (j < b1 && dcol[j] == w) {
        const int32_t e1 = deid[i], e2 = deid[j];
        if (state[e1] && state[e2]) {
          ++own;
          atomicAdd(sup + e1, 1);
          atomicAdd(sup + e2, 1);
        }
      }
    }
    own = WarpSum(own);
    if (lane == 0 && own) atomicAdd(sup + e, own);
  }
}

// Warp per edge: |N(u) ∩ N(v)| over live triangles, no atomics.
__global__ void SupportEdgeKernel(Csr g, const uint8_t* __restrict__ state, int32_t* sup) {
  const int lane = threadIdx.x & (kWarp - 1);
  const int64_t warps = int64_t{gridDim.x} * blockDim.x / kWarp;
  for (int64_t e = (int64_t{blockIdx.x} * blockDim.x + threadIdx.x) / kWarp; e < g.m; e += warps) {
    if (!state[e]) continue;
    const int32_t u = g.esrc[e], v = g.edst[e];
    int32_t a0 = g.indptr[u], a1 = g.indptr[u + 1], b0 = g.indptr[v], b1 = g.indptr[v + 1];
    if (a1 - a0 > b1 - b0) {
      int32_t t0 = a0, t1 = a1;
      a0 = b0, a1 = b1, b0 = t0, b1 = t1;
    }
    int32_t c = 0;
    for (int32_t i = a0 + lane; i < a1; i += kWarp) {
      const int32_t w = g.indices[i];
      const int32_t j = LowerBound(g.indices, b0, b1, w);
      c += j < b1 && g.indices[j] == w && state[g.eid[i]] && state[g.eid[j]];
    }
    c = WarpSum(c);
    if (lane == 0) sup[e] = c;
  }
}

// The seed's pass: block b takes vertices b, b + #blocks, ...; the vertex's list goes
// to shared memory; a thread per higher neighbour v walks N(v) and counts, in a
// register, the entries found in N(u).
__global__ void SupportVertexKernel(Csr g, int32_t n, const uint8_t* __restrict__ state,
                                    int32_t* sup) {
  __shared__ int32_t list[TrussPolicy::kSharedList];
  for (int32_t u = blockIdx.x; u < n; u += gridDim.x) {
    const int32_t u0 = g.indptr[u], du = g.indptr[u + 1] - u0;
    const bool staged = du <= TrussPolicy::kSharedList;
    if (staged) {
      for (int32_t i = threadIdx.x; i < du; i += blockDim.x) list[i] = g.indices[u0 + i];
    }
    __syncthreads();
    const int32_t* nu = staged ? list : g.indices + u0;
    for (int32_t p = threadIdx.x; p < du; p += blockDim.x) {
      const int32_t v = nu[p];
      const int32_t e = g.eid[u0 + p];
      if (v < u || !state[e]) continue;
      int32_t c = 0;
      for (int32_t j = g.indptr[v]; j < g.indptr[v + 1]; ++j) {
        const int32_t w = g.indices[j];
        const int32_t i = LowerBound(nu, 0, du, w);
        c += i < du && nu[i] == w && state[g.eid[u0 + i]] && state[g.eid[j]];
      }
      sup[e] = c;
    }
    __syncthreads();
  }
}

struct PeelParams {
  Csr g;
  uint8_t* state;
  int32_t* sup;
  int32_t* buf0;  // frontier lists, double-buffered
  int32_t* buf1;
  int32_t* heavy;  // frontier edges split over the grid
  int32_t* counters;
  int32_t* truss;       // kDecompose: trussness output; else nullptr
  const int32_t* kbuf;  // kKTruss: the k (device), one level k - 3; else nullptr: levels from 0
};

__device__ __forceinline__ int32_t Load(const int32_t* p) { return __ldcg(p); }
__device__ __forceinline__ uint8_t Load(const uint8_t* p) { return __ldcg(p); }

// One support decrement of live edge x at `level` (PKT): pushes x to the next
// frontier when it reaches the level; never lets it fall below.
__device__ __forceinline__ void Decrement(const PeelParams& P, int32_t x, int32_t level,
                                          int32_t* next, int32_t* next_size) {
  if (Load(P.sup + x) <= level) return;
  const int32_t a = atomicSub(P.sup + x, 1);
  if (a == level + 1) {
    P.state[x] = kNext;
    next[atomicAdd(next_size, 1)] = x;
  } else if (a <= level) {
    atomicAdd(P.sup + x, 1);
  }
}

// The triangle (e, e1, e2) as frontier edge e is removed.
__device__ __forceinline__ void OnTriangle(const PeelParams& P, int32_t e, int32_t e1, int32_t e2,
                                           int32_t level, int32_t* next, int32_t* next_size) {
  const uint8_t s1 = Load(P.state + e1), s2 = Load(P.state + e2);
  if (s1 == kDead || s2 == kDead) return;
  const bool f1 = s1 == kFrontier, f2 = s2 == kFrontier;
  if (f1 && f2) return;
  if (f1) {
    if (e < e1) Decrement(P, e2, level, next, next_size);
    return;
  }
  if (f2) {
    if (e < e2) Decrement(P, e1, level, next, next_size);
    return;
  }
  Decrement(P, e1, level, next, next_size);
  Decrement(P, e2, level, next, next_size);
}

// The shorter and longer neighbour ranges of edge e.
__device__ __forceinline__ void Ranges(const Csr& g, int32_t e, int32_t& a0, int32_t& a1,
                                       int32_t& b0, int32_t& b1) {
  const int32_t u = g.esrc[e], v = g.edst[e];
  a0 = g.indptr[u], a1 = g.indptr[u + 1], b0 = g.indptr[v], b1 = g.indptr[v + 1];
  if (a1 - a0 > b1 - b0) {
    int32_t t0 = a0, t1 = a1;
    a0 = b0, a1 = b1, b0 = t0, b1 = t1;
  }
}

// CSR entry a of edge e's shorter range: if its vertex also lies in the longer
// range [b0, b1), the triangle it closes loses edge e (OnTriangle). A is the
// caller's loop index type (int32 for a warp's stride, int64 for the grid's).
template <typename A>
__device__ __forceinline__ void ProbeTriangle(const PeelParams& P, int32_t e, A a, int32_t b0,
                                              int32_t b1, int32_t level, int32_t* next,
                                              int32_t* next_size) {
  const Csr& g = P.g;
  const int32_t w = g.indices[a];
  const int32_t b = LowerBound(g.indices, b0, b1, w);
  if (b < b1 && g.indices[b] == w) {
    OnTriangle(P, e, g.eid[a], g.eid[b], level, next, next_size);
  }
}

__global__ void __launch_bounds__(kThreads) PeelKernel(PeelParams P) {
  cg::grid_group grid = cg::this_grid();
  const Csr& g = P.g;
  int32_t* C = P.counters;
  const int64_t tid = int64_t{blockIdx.x} * blockDim.x + threadIdx.x;
  const int64_t threads = int64_t{gridDim.x} * blockDim.x;
  const int lane = threadIdx.x & (kWarp - 1);
  const int64_t warp = tid / kWarp, warps = threads / kWarp;

  // Live edges.
  int32_t live = 0;
  for (int64_t e = tid; e < g.m; e += threads) live += P.state[e] != kDead;
  live = WarpSum(live);
  if (lane == 0 && live) atomicAdd(C + kRemaining, live);

  const bool single = P.kbuf != nullptr;
  int32_t level = single ? max(*P.kbuf, 2) - 3 : 0;
  int p = 0;
  for (int it = 0;; ++it) {
    grid.sync();
    if (Load(C + kRemaining) == 0) break;
    // Scan: the level's frontier, and the smallest live support above it.
    if (tid == 0) C[kMin0 + ((it + 1) & 1)] = INT_MAX;
    int32_t* curr = p ? P.buf1 : P.buf0;
    const int64_t scan_end = (g.m + kWarp - 1) / kWarp * kWarp;
    int32_t low = INT_MAX;
    for (int64_t e = tid; e < scan_end; e += threads) {
      bool take = false;
      if (e < g.m && Load(P.state + e) == kLive) {
        const int32_t s = Load(P.sup + e);
        take = s <= level;
        if (take) {
          P.state[e] = kFrontier;
        } else {
          low = min(low, s);
        }
      }
      WarpPush(take, static_cast<int32_t>(e), curr, C + kSize0 + p);
    }
    low = WarpMin(low);
    if (lane == 0 && low != INT_MAX) atomicMin(C + kMin0 + (it & 1), low);
    grid.sync();
    int32_t n = Load(C + kSize0 + p);
    if (n == 0) {
      if (single) break;
      level = Load(C + kMin0 + (it & 1));  // nothing to remove: supports stand, jump
      continue;
    }
    while (n > 0) {
      curr = p ? P.buf1 : P.buf0;
      int32_t* next = p ? P.buf0 : P.buf1;
      int32_t* next_size = C + kSize0 + (p ^ 1);
      // Light frontier edges: a warp each; heavy ones are queued for the grid.
      for (int64_t i = warp; i < n; i += warps) {
        const int32_t e = Load(curr + i);
        int32_t a0, a1, b0, b1;
        Ranges(g, e, a0, a1, b0, b1);
        if (a1 - a0 > TrussPolicy::kHeavyEdge) {
          if (lane == 0) P.heavy[atomicAdd(C + kHeavy, 1)] = e;
          continue;
        }
        for (int32_t a = a0 + lane; a < a1; a += kWarp) {
          ProbeTriangle(P, e, a, b0, b1, level, next, next_size);
        }
      }
      grid.sync();
      const int32_t heavy = Load(C + kHeavy);
      if (heavy > 0) {
        for (int32_t h = 0; h < heavy; ++h) {
          const int32_t e = Load(P.heavy + h);
          int32_t a0, a1, b0, b1;
          Ranges(g, e, a0, a1, b0, b1);
          for (int64_t a = a0 + tid; a < a1; a += threads) {
            ProbeTriangle(P, e, a, b0, b1, level, next, next_size);
          }
        }
        grid.sync();
      }
      // Retire the frontier; the next one becomes the frontier.
      const int32_t nn = Load(next_size);
      for (int64_t i = tid; i < n; i += threads) {
        const int32_t e = Load(curr + i);
        P.state[e] = kDead;
        if (P.truss != nullptr) P.truss[e] = level + 2;
      }
      for (int64_t i = tid; i < nn; i += threads) P.state[Load(next + i)] = kFrontier;
      if (tid == 0) {
        C[kRemaining] -= n;
        C[kSize0 + p] = 0;
        C[kHeavy] = 0;
      }
      grid.sync();
      p ^= 1;
      n = nn;
    }
    if (single) break;
    ++level;
  }
}

__global__ void FlagsKernel(const uint8_t* __restrict__ state, int32_t m, int32_t* out) {
  const int64_t stride = int64_t{gridDim.x} * blockDim.x;
  for (int64_t e = int64_t{blockIdx.x} * blockDim.x + threadIdx.x; e < m; e += stride) {
    out[e] = state[e] != kDead;
  }
}

int Blocks(int64_t work_threads, int sms) {
  const int64_t b = (work_threads + kThreads - 1) / kThreads;
  return static_cast<int>(std::clamp<int64_t>(b, 1, int64_t{sms} * 32));
}

ffi::Error TrussCuda(cudaStream_t stream, ffi::ScratchAllocator xla_scratch,
                     ffi::Buffer<ffi::S32> indptr, ffi::Buffer<ffi::S32> indices,
                     ffi::Buffer<ffi::S32> eid, ffi::Buffer<ffi::S32> esrc,
                     ffi::Buffer<ffi::S32> edst, ffi::Buffer<ffi::S32> dag_indptr,
                     ffi::Buffer<ffi::S32> dag_indices, ffi::Buffer<ffi::S32> dag_src,
                     ffi::Buffer<ffi::S32> dag_eid, ffi::Buffer<ffi::S32> core,
                     ffi::Buffer<ffi::S32> kbuf, int32_t mode, int32_t method, int32_t num_threads,
                     ffi::ResultBuffer<ffi::S32> out) {
  (void)num_threads;
  const Reporter report("kcjax_truss", "CUDA");
  const std::string bad = CheckTrussCall(
      indptr.element_count(), indices.element_count(), eid.element_count(), esrc.element_count(),
      edst.element_count(), dag_indptr.element_count(), dag_indices.element_count(),
      dag_src.element_count(), dag_eid.element_count(), core.element_count(), kbuf.element_count(),
      out->element_count(), mode, method);
  if (!bad.empty()) return report.Invalid(bad);
  const int32_t n = static_cast<int32_t>(indptr.element_count() - 1);
  const int32_t m = static_cast<int32_t>(indices.element_count() / 2);
  if (m == 0) return ffi::Error::Success();
  const auto tmode = static_cast<TrussMode>(mode);

  int sms = 0;
  cudaError_t err = cuda::SmCount(&sms);
  if (err != cudaSuccess) return report.Cuda("querying the SM count", err);

  cuda::DeviceScratch scratch(xla_scratch, stream);
  const size_t m4 = static_cast<size_t>(m) * sizeof(int32_t);
  auto* state = static_cast<uint8_t*>(scratch.Allocate(static_cast<size_t>(m)));
  int32_t* sup = tmode == TrussMode::kSupport ? out->typed_data()
                                              : static_cast<int32_t*>(scratch.Allocate(m4));
  auto* counters = static_cast<int32_t*>(scratch.Allocate(kNumCounters * sizeof(int32_t)));
  if (state == nullptr || sup == nullptr || counters == nullptr) {
    return report.Exhausted(m4 * 2 + m, "the edge state");
  }
  Csr g{indptr.typed_data(), indices.typed_data(), eid.typed_data(),
        esrc.typed_data(),   edst.typed_data(),    m};
  const bool use_core = tmode == TrussMode::kKTruss && core.element_count() > 0;
  InitKernel<<<Blocks(m, sms), kThreads, 0, stream>>>(g, core.typed_data(), use_core,
                                                      kbuf.typed_data(), state, sup, counters);
  const int warp_blocks = Blocks(int64_t{m} * kWarp, sms);
  switch (static_cast<SupportMethod>(method)) {
    case SupportMethod::kDag:
      SupportDagKernel<<<warp_blocks, kThreads, 0, stream>>>(
          dag_indptr.typed_data(), dag_indices.typed_data(), dag_src.typed_data(),
          dag_eid.typed_data(), m, state, sup);
      break;
    case SupportMethod::kEdge:
      SupportEdgeKernel<<<warp_blocks, kThreads, 0, stream>>>(g, state, sup);
      break;
    case SupportMethod::kVertex:
      SupportVertexKernel<<<std::max(1, std::min(n, sms * 8)), kThreads, 0, stream>>>(g, n, state,
                                                                                      sup);
      break;
  }
  if ((err = cudaGetLastError()) != cudaSuccess) return report.Cuda("support kernel", err);
  if (tmode == TrussMode::kSupport) return ffi::Error::Success();

  int32_t* buf0 = static_cast<int32_t*>(scratch.Allocate(m4));
  int32_t* buf1 = static_cast<int32_t*>(scratch.Allocate(m4));
  int32_t* heavy = static_cast<int32_t*>(scratch.Allocate(m4));
  if (buf0 == nullptr || buf1 == nullptr || heavy == nullptr) {
    return report.Exhausted(m4 * 3, "the peeling frontiers");
  }
  PeelParams P{g,
               state,
               sup,
               buf0,
               buf1,
               heavy,
               counters,
               tmode == TrussMode::kDecompose ? out->typed_data() : nullptr,
               tmode == TrussMode::kKTruss ? kbuf.typed_data() : nullptr};
  int per_sm = 0;
  err = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, PeelKernel, kThreads, 0);
  if (err != cudaSuccess || per_sm < 1) return report.Cuda("occupancy of the peeling kernel", err);
  const int grid = std::min(std::min(per_sm, TrussPolicy::kPeelBlocksPerSm) * sms,
                            Blocks(int64_t{m} * kWarp, sms));
  void* args[] = {&P};
  err = cudaLaunchCooperativeKernel(reinterpret_cast<void*>(PeelKernel), dim3(grid), dim3(kThreads),
                                    args, 0, stream);
  if (err != cudaSuccess) return report.Cuda("peeling kernel launch", err);
  if (tmode == TrussMode::kKTruss) {
    FlagsKernel<<<Blocks(m, sms), kThreads, 0, stream>>>(state, m, out->typed_data());
    if ((err = cudaGetLastError()) != cudaSuccess) return report.Cuda("flags kernel", err);
  }
  return ffi::Error::Success();
}

}  // namespace
}  // namespace kcjax

XLA_FFI_DEFINE_HANDLER_SYMBOL(kcjax_truss_cuda, kcjax::TrussCuda,
                              kcjax::BindTruss(kcjax::CudaBinding()));
