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
#include <string>

#include "kcjax/match/match.h"

namespace ffi = xla::ffi;

namespace kcjax::match {
namespace {

using u128 = unsigned __int128;
using ull = unsigned long long;

// Tuning constants of the matching kernels (MARKED FOR THE MOVE to a shared
// policy header once ffi-house lands).
struct MatchPolicy {
  static constexpr int kWarpsPerBlock = 8;  // 256 threads: enough warps per SM to hide gathers
};

constexpr unsigned kFull = 0xffffffffu;

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

__device__ __forceinline__ void AtomicAdd128(ull* p, u128 v) {
  const ull lo = static_cast<ull>(v);
  const ull old = atomicAdd(p, lo);
  const ull carry = (old + lo < old) ? 1ull : 0ull;
  const ull hi = static_cast<ull>(v >> 64) + carry;
  if (hi) atomicAdd(p + 1, hi);
}

// kList: write embeddings to rows (capacity cap) and count them in *found;
// else add counts to counts (per root or one total).
template <bool kList>
__global__ void __launch_bounds__(32 * MatchPolicy::kWarpsPerBlock)
    MatchKernel(MatchView m, const int32_t* __restrict__ roots,
                const int32_t* __restrict__ task_ptr, int64_t r, int32_t width, ull* next_task,
                ull* counts, bool per_root, int32_t* rows, int64_t cap, ull* found) {
  __shared__ WarpStack stacks[MatchPolicy::kWarpsPerBlock];
  const int lane = threadIdx.x & 31;
  WarpStack& s = stacks[threadIdx.x >> 5];
  const int64_t num_tasks = __ldg(task_ptr + r);
  const int q = m.q;
  u128 total = 0;
  for (;;) {
    ull task = 0;
    if (lane == 0) task = atomicAdd(next_task, 1ull);
    task = __shfl_sync(kFull, task, 0);
    if (static_cast<int64_t>(task) >= num_tasks) break;
    if (kList) {
      int full = 0;  // read once and broadcast: every lane must leave together
      if (lane == 0) full = *reinterpret_cast<volatile ull*>(found) > static_cast<ull>(cap);
      if (__shfl_sync(kFull, full, 0)) break;
    }
    // The root owning this task: the last i with task_ptr[i] <= task.
    int64_t lo = 0, hi = r;
    while (hi - lo > 1) {
      const int64_t mid = (lo + hi) >> 1;
      if (__ldg(task_ptr + mid) <= static_cast<int64_t>(task)) {
        lo = mid;
      } else {
        hi = mid;
      }
    }
    const int64_t ri = lo;
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
          const ull slot = atomicAdd(found, 1ull);
          if (slot < static_cast<ull>(cap)) rows[slot] = root;
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
              ull slot = 0;
              if (lane == 0 && bal) slot = atomicAdd(found, static_cast<ull>(__popc(bal)));
              slot = __shfl_sync(kFull, slot, 0);
              if (w != 0) {
                const ull at = slot + __popc(bal & ((1u << lane) - 1u));
                if (at < static_cast<ull>(cap)) {
                  int32_t* row = rows + at * q;
                  for (int j = 0; j < q - 1; ++j) row[j] = s.img[j];
                  row[q - 1] = v;
                }
              }
              if (bal && slot + __popc(bal) > static_cast<ull>(cap)) break;
            } else {
              ull sum = w;
              for (int off = 16; off > 0; off >>= 1) sum += __shfl_xor_sync(kFull, sum, off);
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
        if (acc) AtomicAdd128(counts + 2 * ri, acc);
      } else {
        total += acc;
      }
    }
  }
  if (!kList && !per_root && lane == 0 && total) AtomicAdd128(counts, total);
}

__global__ void StoreFound(const ull* found, int64_t cap, uint32_t* out) {
  const ull f = *found > static_cast<ull>(cap) ? static_cast<ull>(cap) + 1 : *found;
  out[0] = static_cast<uint32_t>(f);
  out[1] = static_cast<uint32_t>(f >> 32);
  out[2] = 0;
  out[3] = 0;
}

ffi::Error Invalid(const char* target, const std::string& msg) {
  return ffi::Error::InvalidArgument(std::string(target) + " (CUDA): " + msg);
}

ffi::Error CudaError(const char* target, const char* what, cudaError_t err) {
  return ffi::Error::Internal(std::string(target) + " (CUDA): " + what + ": " +
                              cudaGetErrorName(err) + ": " + cudaGetErrorString(err));
}

// Shape checks (device data is trusted: the Python wrappers build it; ids out
// of range in roots or lists are skipped by the kernel).
ffi::Error CheckShapes(const char* target, ffi::Buffer<ffi::S32>& indptr,
                       ffi::Buffer<ffi::S32>& indices, ffi::Buffer<ffi::S32>& mult,
                       ffi::Buffer<ffi::U32>& cand, ffi::Buffer<ffi::S32>& plan,
                       ffi::Buffer<ffi::S32>& lists, ffi::Buffer<ffi::S32>& roots,
                       ffi::Buffer<ffi::S32>& task_ptr, ffi::Buffer<ffi::S32>& leaf_sum,
                       MatchView* view) {
  if (indptr.dimensions().size() != 1 || indptr.element_count() < 1)
    return Invalid(target, "indptr must be int32[n + 1]");
  const int64_t n = static_cast<int64_t>(indptr.element_count()) - 1;
  if (static_cast<int64_t>(mult.element_count()) != n ||
      static_cast<int64_t>(leaf_sum.element_count()) != n)
    return Invalid(target, "mult and leaf_sum must be int32[n]");
  if (plan.dimensions().size() != 2 || plan.dimensions()[1] != 4)
    return Invalid(target, "plan must be int32[q, 4]");
  const int64_t q = plan.dimensions()[0];
  if (q < 1 || q > kMaxQuery)
    return Invalid(target, "query size must be in [1, 32], got " + std::to_string(q));
  if (cand.dimensions().size() != 2 || cand.dimensions()[0] != q || cand.dimensions()[1] * 32 < n)
    return Invalid(target, "cand must be uint32[q, >= ceil(n / 32)]");
  if (lists.dimensions().size() != 2) return Invalid(target, "lists must be int32[c, L]");
  if (task_ptr.element_count() != roots.element_count() + 1)
    return Invalid(target, "task_ptr must be int32[r + 1]");
  *view = MatchView{
      indptr.typed_data(),  indices.typed_data(),  mult.typed_data(),      cand.typed_data(),
      plan.typed_data(),    lists.typed_data(),    leaf_sum.typed_data(),  n,
      cand.dimensions()[1], lists.dimensions()[1], static_cast<int32_t>(q)};
  return ffi::Error::Success();
}

// Scratch words from XLA's allocator, else stream-ordered cudaMallocAsync.
class Scratch {
 public:
  Scratch(ffi::ScratchAllocator& xla, cudaStream_t stream) : xla_(xla), stream_(stream) {}
  ~Scratch() {
    if (owned_) cudaFreeAsync(owned_, stream_);
  }
  ull* Words(size_t count) {
    const size_t bytes = count * sizeof(ull);
    if (auto p = xla_.Allocate(bytes, 16); p.has_value() && *p != nullptr)
      return static_cast<ull*>(*p);
    if (cudaMallocAsync(&owned_, bytes, stream_) != cudaSuccess) {
      cudaGetLastError();
      owned_ = nullptr;
    }
    return static_cast<ull*>(owned_);
  }

 private:
  ffi::ScratchAllocator& xla_;
  cudaStream_t stream_;
  void* owned_ = nullptr;
};

template <bool kList>
cudaError_t Launch(cudaStream_t stream, const MatchView& view, const int32_t* roots,
                   const int32_t* task_ptr, int64_t r, int32_t width, ull* next_task, ull* counts,
                   bool per_root, int32_t* rows, int64_t cap, ull* found) {
  int device = 0, sms = 0, per_sm = 0;
  cudaGetDevice(&device);
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
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
  constexpr const char* kTarget = "kcjax_match_count";
  MatchView view;
  if (auto err = CheckShapes(kTarget, indptr, indices, mult, cand, plan, lists, roots, task_ptr,
                             leaf_sum, &view);
      err.failure())
    return err;
  if (task_width < 1 || task_width > 32) return Invalid(kTarget, "task_width must be in [1, 32]");
  const int64_t r = static_cast<int64_t>(roots.element_count());
  if (static_cast<int64_t>(out->element_count()) != (per_root ? r : 1) * 4)
    return Invalid(kTarget, "counts must be uint32[per_root ? r : 1, 4]");
  cudaError_t err = cudaMemsetAsync(out->typed_data(), 0, out->size_bytes(), stream);
  if (err != cudaSuccess) return CudaError(kTarget, "memset", err);
  if (r == 0) return ffi::Error::Success();
  Scratch scratch(scratch_alloc, stream);
  ull* next = scratch.Words(1);
  if (next == nullptr)
    return ffi::Error(ffi::ErrorCode::kResourceExhausted, "kcjax_match_count (CUDA): no scratch");
  if ((err = cudaMemsetAsync(next, 0, sizeof(ull), stream)) != cudaSuccess)
    return CudaError(kTarget, "memset", err);
  err = Launch<false>(stream, view, roots.typed_data(), task_ptr.typed_data(), r, task_width, next,
                      reinterpret_cast<ull*>(out->typed_data()), per_root, nullptr, 0, nullptr);
  if (err != cudaSuccess) return CudaError(kTarget, "launch", err);
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
  constexpr const char* kTarget = "kcjax_match_list";
  MatchView view;
  if (auto err = CheckShapes(kTarget, indptr, indices, mult, cand, plan, lists, roots, task_ptr,
                             leaf_sum, &view);
      err.failure())
    return err;
  if (rows->dimensions().size() != 2 || rows->dimensions()[1] != view.q)
    return Invalid(kTarget, "rows must be int32[cap, q]");
  if (found_out->element_count() != 4) return Invalid(kTarget, "found must be uint32[4]");
  if (task_width < 1 || task_width > 32) return Invalid(kTarget, "task_width must be in [1, 32]");
  const int64_t cap = rows->dimensions()[0];
  const int64_t r = static_cast<int64_t>(roots.element_count());
  cudaError_t err = cudaMemsetAsync(rows->typed_data(), 0xff, rows->size_bytes(), stream);
  if (err != cudaSuccess) return CudaError(kTarget, "memset", err);
  Scratch scratch(scratch_alloc, stream);
  ull* words = scratch.Words(2);  // next task, found
  if (words == nullptr)
    return ffi::Error(ffi::ErrorCode::kResourceExhausted, "kcjax_match_list (CUDA): no scratch");
  if ((err = cudaMemsetAsync(words, 0, 2 * sizeof(ull), stream)) != cudaSuccess)
    return CudaError(kTarget, "memset", err);
  if (r > 0) {
    err = Launch<true>(stream, view, roots.typed_data(), task_ptr.typed_data(), r, task_width,
                       words, nullptr, false, rows->typed_data(), cap, words + 1);
    if (err != cudaSuccess) return CudaError(kTarget, "launch", err);
  }
  StoreFound<<<1, 1, 0, stream>>>(words + 1, cap, found_out->typed_data());
  if ((err = cudaGetLastError()) != cudaSuccess) return CudaError(kTarget, "launch", err);
  return ffi::Error::Success();
}

}  // namespace
}  // namespace kcjax::match

XLA_FFI_DEFINE_HANDLER_SYMBOL(kcjax_match_count_cuda, kcjax::match::MatchCountCuda,
                              ffi::Ffi::Bind()
                                  .Ctx<ffi::PlatformStream<cudaStream_t>>()
                                  .Ctx<ffi::ScratchAllocator>()
                                  .Arg<ffi::Buffer<ffi::S32>>()  // indptr
                                  .Arg<ffi::Buffer<ffi::S32>>()  // indices
                                  .Arg<ffi::Buffer<ffi::S32>>()  // mult
                                  .Arg<ffi::Buffer<ffi::U32>>()  // cand
                                  .Arg<ffi::Buffer<ffi::S32>>()  // plan
                                  .Arg<ffi::Buffer<ffi::S32>>()  // lists
                                  .Arg<ffi::Buffer<ffi::S32>>()  // roots
                                  .Arg<ffi::Buffer<ffi::S32>>()  // task_ptr
                                  .Arg<ffi::Buffer<ffi::S32>>()  // leaf_sum
                                  .Attr<bool>("per_root")
                                  .Attr<int32_t>("num_threads")
                                  .Attr<int32_t>("task_width")
                                  .Ret<ffi::Buffer<ffi::U32>>());
XLA_FFI_DEFINE_HANDLER_SYMBOL(kcjax_match_list_cuda, kcjax::match::MatchListCuda,
                              ffi::Ffi::Bind()
                                  .Ctx<ffi::PlatformStream<cudaStream_t>>()
                                  .Ctx<ffi::ScratchAllocator>()
                                  .Arg<ffi::Buffer<ffi::S32>>()  // indptr
                                  .Arg<ffi::Buffer<ffi::S32>>()  // indices
                                  .Arg<ffi::Buffer<ffi::S32>>()  // mult
                                  .Arg<ffi::Buffer<ffi::U32>>()  // cand
                                  .Arg<ffi::Buffer<ffi::S32>>()  // plan
                                  .Arg<ffi::Buffer<ffi::S32>>()  // lists
                                  .Arg<ffi::Buffer<ffi::S32>>()  // roots
                                  .Arg<ffi::Buffer<ffi::S32>>()  // task_ptr
                                  .Arg<ffi::Buffer<ffi::S32>>()  // leaf_sum
                                  .Attr<int32_t>("num_threads")
                                  .Attr<int32_t>("task_width")
                                  .Ret<ffi::Buffer<ffi::S32>>()    // rows
                                  .Ret<ffi::Buffer<ffi::U32>>());  // found
