// CUDA handlers of "kcjax_match_count" and "kcjax_match_list" (contracts in
// kcjax/match/match.h; reference: ffi/cpu/match/match_cpu.cc).
//
// Warp-per-task depth-first backtracking. A task is one root and one chunk of
// task_width entries of its level-1 source list (task_ptr, built by the
// caller, gives each root's chunk count), so a root of high degree is spread
// over many warps. A warp keeps its search stack in shared memory: per level the source
// list, the chunk position and the ballot of valid candidates of the chunk
// still to descend into. Each lane checks one candidate (candidate bitmap,
// multiplicity, adjacency to the other backward images by binary search,
// non-adjacency for induced matching); the last level is counted with a warp
// reduction (or written out, for listing) instead of descended. Persistent
// warps take tasks from an atomic counter; counts are 128-bit.
#include <cuda_runtime.h>

#include <cstdint>

#include "kcjax/core/ffi.h"
#include "kcjax/cuda/intersect.cuh"
#include "kcjax/cuda/scratch.h"
#include "kcjax/cuda/warp.cuh"
#include "kcjax/cuda/wide.cuh"
#include "kcjax/match/args.h"
#include "kcjax/match/match.h"
#include "kcjax/match/policy.h"

namespace ffi = xla::ffi;

namespace kcjax::match {
namespace {

using u128 = unsigned __int128;
using cuda::kFull;
using cuda::u64;

struct WarpStack {
  const int32_t* src[kMaxQuery];
  u128 weight[kMaxQuery];  // product of the weights of levels <= i
  int32_t img[kMaxQuery];
  int32_t pos[kMaxQuery];
  int32_t end[kMaxQuery];
  int32_t base[kMaxQuery];
  uint32_t mask[kMaxQuery];
  int32_t pivot[kMaxQuery];
};

__device__ __forceinline__ bool InCand(const MatchView& m, int level, int32_t v) {
  return (__ldg(m.cand + level * m.words + (v >> 5)) >> (v & 31)) & 1u;
}

// a and b adjacent: a search of the shorter row that stops at the first hit
// (kept over cuda::Member, whose full lower_bound makes the count kernel spill
// 20 bytes at its 32 registers).
__device__ __forceinline__ bool Adjacent(const MatchView& m, int32_t a, int32_t b) {
  int32_t lo = __ldg(m.indptr + a), hi = __ldg(m.indptr + a + 1);
  const int32_t lb = __ldg(m.indptr + b), hb = __ldg(m.indptr + b + 1);
  if (hb - lb < hi - lo) {
    lo = lb;
    hi = hb;
    b = a;
  }
  while (lo < hi) {
    const int32_t mid = (lo + hi) >> 1;
    const int32_t x = __ldg(m.indices + mid);
    if (x == b) return true;
    if (x < b) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  return false;
}

// Sets up level's source list (all lanes compute it; lane 0 stores it).
__device__ __forceinline__ void InitLevel(const MatchView& m, WarpStack& s, int level, int lane,
                                          int32_t first, int32_t last) {
  const uint32_t back = static_cast<uint32_t>(__ldg(m.plan + 4 * level));
  const int32_t* src;
  int32_t len, pivot = -1;
  if (back != 0) {
    int32_t best = -1;
    for (uint32_t b = back; b; b &= b - 1) {
      const int j = __ffs(b) - 1;
      const int32_t d = __ldg(m.indptr + s.img[j] + 1) - __ldg(m.indptr + s.img[j]);
      if (best < 0 || d < best) {
        best = d;
        pivot = j;
      }
    }
    src = m.indices + __ldg(m.indptr + s.img[pivot]);
    len = best;
  } else {
    src = m.lists + static_cast<int64_t>(__ldg(m.plan + 4 * level + 2)) * m.list_stride;
    len = __ldg(m.plan + 4 * level + 3);
  }
  __syncwarp();
  if (lane == 0) {
    s.src[level] = src;
    s.pivot[level] = pivot;
    s.pos[level] = first;
    s.end[level] = last < 0 || last > len ? len : last;
    s.mask[level] = 0;
  }
  __syncwarp();
}

// Weight of v at level (0: not a valid image).
__device__ __forceinline__ uint32_t Check(const MatchView& m, const WarpStack& s, int level,
                                          int32_t v) {
  if (v < 0 || v >= m.num_nodes || !InCand(m, level, v)) return 0;
  int used = 0;
  for (int j = 0; j < level; ++j) used += s.img[j] == v;
  const int32_t mult = __ldg(m.mult + v);
  if (used >= mult) return 0;
  const uint32_t back = static_cast<uint32_t>(__ldg(m.plan + 4 * level));
  const uint32_t nonadj = static_cast<uint32_t>(__ldg(m.plan + 4 * level + 1));
  const int pivot = s.pivot[level];
  for (uint32_t b = back & ~(pivot >= 0 ? (1u << pivot) : 0u); b; b &= b - 1)
    if (!Adjacent(m, s.img[__ffs(b) - 1], v)) return 0;
  for (uint32_t b = nonadj; b; b &= b - 1)
    if (Adjacent(m, s.img[__ffs(b) - 1], v)) return 0;
  return static_cast<uint32_t>(mult - used);
}

// cell[0..1] += v (one 128-bit count of counts).
__device__ __forceinline__ void AddCount(u64* cell, u128 v) {
  cuda::AtomicAdd128(cell, static_cast<u64>(v), static_cast<u64>(v >> 64));
}

// kList: write embeddings to rows (capacity cap) and count them in *found;
// else add counts to counts (per root or one total).
template <bool kList>
__global__ void __launch_bounds__(32 * MatchPolicy::kWarpsPerBlock)
    MatchKernel(MatchView m, const int32_t* __restrict__ roots,
                const int32_t* __restrict__ task_ptr, int64_t r, int32_t width, u64* next_task,
                u64* counts, bool per_root, int32_t* rows, int64_t cap, u64* found) {
  __shared__ WarpStack stacks[MatchPolicy::kWarpsPerBlock];
  const int lane = cuda::LaneId();
  WarpStack& s = stacks[cuda::WarpInBlock()];
  const int64_t num_tasks = __ldg(task_ptr + r);
  const int q = m.q;
  u128 total = 0;
  for (;;) {
    u64 task = 0;
    if (lane == 0) task = atomicAdd(next_task, 1ull);
    task = __shfl_sync(kFull, task, 0);
    if (static_cast<int64_t>(task) >= num_tasks) break;
    if (kList) {
      int full = 0;  // read once and broadcast: every lane must leave together
      if (lane == 0) full = *reinterpret_cast<volatile u64*>(found) > static_cast<u64>(cap);
      if (__shfl_sync(kFull, full, 0)) break;
    }
    // The root owning this task: the last i < r with task_ptr[i] <= task (0
    // if none), i.e. how many of task_ptr[1, r) are <= task.
    const int64_t ri =
        cuda::LowerBound(task_ptr + 1, static_cast<int>(r - 1), static_cast<int32_t>(task) + 1);
    const int32_t chunk = static_cast<int32_t>(task - __ldg(task_ptr + ri));
    const int32_t root = __ldg(roots + ri);
    if (root < 0 || root >= m.num_nodes || !InCand(m, 0, root) || __ldg(m.mult + root) <= 0)
      continue;
    u128 acc = 0;
    __syncwarp();
    if (lane == 0) {
      s.img[0] = root;
      s.weight[0] = static_cast<u128>(__ldg(m.mult + root));
    }
    __syncwarp();
    if (q == 1) {
      if (kList) {
        if (lane == 0) {
          const u64 slot = atomicAdd(found, 1ull);
          if (slot < static_cast<u64>(cap)) rows[slot] = root;
        }
      } else {
        acc = s.weight[0];
      }
    } else {
      InitLevel(m, s, 1, lane, chunk * width, chunk * width + width);
      int level = 1;
      while (level >= 1) {
        if (s.mask[level] == 0) {
          const int32_t p = s.pos[level];
          if (p >= s.end[level]) {
            --level;
            continue;
          }
          const int32_t idx = p + lane;
          const int32_t v = idx < s.end[level] ? __ldg(s.src[level] + idx) : -1;
          const uint32_t w = Check(m, s, level, v);
          const uint32_t bal = __ballot_sync(kFull, w != 0);
          __syncwarp();
          if (lane == 0) s.pos[level] = p + 32;
          __syncwarp();
          if (level == q - 1) {
            if (kList) {
              u64 slot = 0;
              if (lane == 0 && bal) slot = atomicAdd(found, static_cast<u64>(__popc(bal)));
              slot = __shfl_sync(kFull, slot, 0);
              if (w != 0) {
                const u64 at = slot + __popc(bal & cuda::LaneMaskLt());
                if (at < static_cast<u64>(cap)) {
                  int32_t* row = rows + at * q;
                  for (int j = 0; j < q - 1; ++j) row[j] = s.img[j];
                  row[q - 1] = v;
                }
              }
              if (bal && slot + __popc(bal) > static_cast<u64>(cap)) break;
            } else {
              const u64 sum = cuda::WarpSum64(w);
              acc += s.weight[level - 1] * static_cast<u128>(sum);
            }
            continue;
          }
          if (lane == 0) {
            s.mask[level] = bal;
            s.base[level] = p;
          }
          __syncwarp();
        } else {
          const uint32_t mk = s.mask[level];
          const int bit = __ffs(mk) - 1;
          const int32_t v = __ldg(s.src[level] + s.base[level] + bit);
          int used = 0;
          for (int j = 0; j < level; ++j) used += s.img[j] == v;
          const uint32_t w = static_cast<uint32_t>(__ldg(m.mult + v) - used);
          __syncwarp();
          if (lane == 0) {
            s.mask[level] = mk & (mk - 1);
            s.img[level] = v;
            s.weight[level] = s.weight[level - 1] * w;
          }
          __syncwarp();
          ++level;
          InitLevel(m, s, level, lane, 0, -1);
          if (!kList && level == q - 1 && level >= 2 && s.pivot[level] >= 0 &&
              __ldg(m.plan + 4 * level + 1) == 0 &&
              __popc(static_cast<uint32_t>(__ldg(m.plan + 4 * level))) == 1) {
            // One backward neighbour: the precomputed candidate-neighbour sum
            // of the pivot image, less the earlier images among them.
            const int32_t pv = s.img[s.pivot[level]];
            const bool hit =
                lane < level && InCand(m, level, s.img[lane]) && Adjacent(m, pv, s.img[lane]);
            const int used = __popc(__ballot_sync(kFull, hit));
            const int64_t leaf = static_cast<int64_t>(__ldg(m.leaf_sum + pv)) - used;
            acc += s.weight[level - 1] * static_cast<u128>(leaf);
            --level;
          }
        }
      }
    }
    if (!kList && lane == 0) {
      if (per_root) {
        if (acc) AddCount(counts + 2 * ri, acc);
      } else {
        total += acc;
      }
    }
  }
  if (!kList && !per_root && lane == 0 && total) AddCount(counts, total);
}

__global__ void StoreFound(const u64* found, int64_t cap, uint32_t* out) {
  const u64 f = *found > static_cast<u64>(cap) ? static_cast<u64>(cap) + 1 : *found;
  out[0] = static_cast<uint32_t>(f);
  out[1] = static_cast<uint32_t>(f >> 32);
  out[2] = 0;
  out[3] = 0;
}

template <bool kList>
cudaError_t Launch(cudaStream_t stream, const MatchView& view, const int32_t* roots,
                   const int32_t* task_ptr, int64_t r, int32_t width, u64* next_task, u64* counts,
                   bool per_root, int32_t* rows, int64_t cap, u64* found) {
  int sms = 0, per_sm = 0;
  cuda::SmCount(&sms);
  const int threads = 32 * MatchPolicy::kWarpsPerBlock;
  cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, MatchKernel<kList>, threads, 0);
  const int blocks = sms * (per_sm > 0 ? per_sm : 1);
  MatchKernel<kList><<<blocks, threads, 0, stream>>>(view, roots, task_ptr, r, width, next_task,
                                                     counts, per_root, rows, cap, found);
  return cudaGetLastError();
}

ffi::Error MatchCountCuda(cudaStream_t stream, ffi::ScratchAllocator scratch_alloc,
                          ffi::Buffer<ffi::S32> indptr, ffi::Buffer<ffi::S32> indices,
                          ffi::Buffer<ffi::S32> mult, ffi::Buffer<ffi::U32> cand,
                          ffi::Buffer<ffi::S32> plan, ffi::Buffer<ffi::S32> lists,
                          ffi::Buffer<ffi::S32> roots, ffi::Buffer<ffi::S32> task_ptr,
                          ffi::Buffer<ffi::S32> leaf_sum, bool per_root, int32_t /*num_threads*/,
                          int32_t task_width, ffi::ResultBuffer<ffi::U32> out) {
  const Reporter rep("kcjax_match_count", "CUDA");
  const Inputs in{indptr, indices, mult, cand, plan, lists, roots, task_ptr, leaf_sum};
  MatchView view;
  if (auto err = CheckInputs(rep, in, task_width, &view); err.failure()) return err;
  if (auto err = CheckCounts(rep, in, per_root, out); err.failure()) return err;
  const int64_t r = static_cast<int64_t>(roots.element_count());
  cudaError_t err = cudaMemsetAsync(out->typed_data(), 0, out->size_bytes(), stream);
  if (err != cudaSuccess) return rep.Cuda("memset", err);
  if (r == 0) return ffi::Error::Success();
  cuda::DeviceScratch scratch(scratch_alloc, stream);
  auto* next = static_cast<u64*>(scratch.Allocate(sizeof(u64)));
  if (next == nullptr) return rep.Exhausted(sizeof(u64), "the task counter");
  if ((err = cudaMemsetAsync(next, 0, sizeof(u64), stream)) != cudaSuccess)
    return rep.Cuda("memset", err);
  err = Launch<false>(stream, view, roots.typed_data(), task_ptr.typed_data(), r, task_width, next,
                      reinterpret_cast<u64*>(out->typed_data()), per_root, nullptr, 0, nullptr);
  if (err != cudaSuccess) return rep.Cuda("launch", err);
  return ffi::Error::Success();
}

ffi::Error MatchListCuda(cudaStream_t stream, ffi::ScratchAllocator scratch_alloc,
                         ffi::Buffer<ffi::S32> indptr, ffi::Buffer<ffi::S32> indices,
                         ffi::Buffer<ffi::S32> mult, ffi::Buffer<ffi::U32> cand,
                         ffi::Buffer<ffi::S32> plan, ffi::Buffer<ffi::S32> lists,
                         ffi::Buffer<ffi::S32> roots, ffi::Buffer<ffi::S32> task_ptr,
                         ffi::Buffer<ffi::S32> leaf_sum, int32_t /*num_threads*/,
                         int32_t task_width, ffi::ResultBuffer<ffi::S32> rows,
                         ffi::ResultBuffer<ffi::U32> found_out) {
  const Reporter rep("kcjax_match_list", "CUDA");
  const Inputs in{indptr, indices, mult, cand, plan, lists, roots, task_ptr, leaf_sum};
  MatchView view;
  if (auto err = CheckInputs(rep, in, task_width, &view); err.failure()) return err;
  if (auto err = CheckListing(rep, view, rows, found_out); err.failure()) return err;
  const int64_t cap = rows->dimensions()[0];
  const int64_t r = static_cast<int64_t>(roots.element_count());
  cudaError_t err = cudaMemsetAsync(rows->typed_data(), 0xff, rows->size_bytes(), stream);
  if (err != cudaSuccess) return rep.Cuda("memset", err);
  cuda::DeviceScratch scratch(scratch_alloc, stream);
  constexpr size_t kWords = 2 * sizeof(u64);  // next task, found
  auto* words = static_cast<u64*>(scratch.Allocate(kWords));
  if (words == nullptr) return rep.Exhausted(kWords, "the task and embedding counters");
  if ((err = cudaMemsetAsync(words, 0, kWords, stream)) != cudaSuccess)
    return rep.Cuda("memset", err);
  if (r > 0) {
    err = Launch<true>(stream, view, roots.typed_data(), task_ptr.typed_data(), r, task_width,
                       words, nullptr, false, rows->typed_data(), cap, words + 1);
    if (err != cudaSuccess) return rep.Cuda("launch", err);
  }
  StoreFound<<<1, 1, 0, stream>>>(words + 1, cap, found_out->typed_data());
  if ((err = cudaGetLastError()) != cudaSuccess) return rep.Cuda("launch", err);
  return ffi::Error::Success();
}

}  // namespace
}  // namespace kcjax::match

XLA_FFI_DEFINE_HANDLER_SYMBOL(kcjax_match_count_cuda, kcjax::match::MatchCountCuda,
                              kcjax::match::BindMatchCount(kcjax::CudaBinding()));
XLA_FFI_DEFINE_HANDLER_SYMBOL(kcjax_match_list_cuda, kcjax::match::MatchListCuda,
                              kcjax::match::BindMatchList(kcjax::CudaBinding()));
