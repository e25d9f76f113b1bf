// CUDA kernels of the multi-device BFS's level steps (contract in kcjax/bfs/mesh.h,
// host interface in kcjax/bfs/mesh_cuda.h). A warp takes 32 bitmap words of the shard's
// owned vertices at once, a lane each (one coalesced load; grid-stride over words), then
// works through the non-empty ones together, a lane per vertex.
//   MeshPush: top-down. A frontier vertex of degree < kSmallMax is walked by its lane,
//             larger ones are cut into chunks of kMeshChunkEdges edges, queued and walked
//             a warp per chunk by a second kernel (the frontier's edges spread evenly);
//             every unvisited neighbour's bit is set in the push bitmap (atomicOr).
//   MeshPull: settles candidates with the single-GPU bitmap variant's bottom-up
//             search (bottom_up.cuh's SearchWord over the whole frontier bitmap); on a
//             top-down level a candidate of degree >= kMeshPullChunkMin has its first
//             chunk searched there and, where that holds no frontier neighbour, the rest
//             cut into chunks like the push's, searched a warp per chunk by a second
//             kernel, the first frontier neighbour found taking the parent (atomicCAS).
// Only kernels are enqueued (the buffers they count into are cleared by ZeroKernel,
// not cudaMemset): XLA may record the handlers in a command buffer.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>

#include "kcjax/bfs/bottom_up.cuh"
#include "kcjax/bfs/mesh_cuda.h"
#include "kcjax/bfs/policy.h"
#include "kcjax/cuda/warp.cuh"

namespace kcjax::bfs {

using namespace kcjax::cuda;  // the shared device primitives
namespace {

constexpr int kThreads = BfsPolicy::kBlockThreads;
constexpr int kBatch = BfsPolicy::kTopDownEdgeBatch;

// Sets x's bit in push unless `seen` (x's word of the visited bitmap, read-only during the
// kernel) has it.
__device__ __forceinline__ void PushOne(uint32_t* push, int32_t x, uint32_t seen) {
  const uint32_t bit = 1u << (x & 31);
  if ((seen & bit) == 0) atomicOr(push + (x >> 5), bit);
}

// Pushes the edges e0, e0 + step, ... (kBatch of them, < hi): the ids, then their visited
// words, all in flight before any is tested.
__device__ __forceinline__ void PushBatch(const int32_t* cols, const uint32_t* visited,
                                          uint32_t* push, int64_t e0, int64_t hi, int64_t step) {
  int32_t x[kBatch];
  uint32_t seen[kBatch];
#pragma unroll
  for (int j = 0; j < kBatch; ++j) {
    const int64_t e = e0 + j * step;
    x[j] = e < hi ? __ldg(cols + e) : -1;
  }
#pragma unroll
  for (int j = 0; j < kBatch; ++j) seen[j] = x[j] >= 0 ? __ldg(visited + (x[j] >> 5)) : ~0u;
#pragma unroll
  for (int j = 0; j < kBatch; ++j)
    if (x[j] >= 0) PushOne(push, x[j], seen[j]);
}

// Zeroes words[0, n) and, with thread 0, *count.
__global__ void __launch_bounds__(kThreads) ZeroKernel(uint32_t* words, int64_t n, int32_t* count) {
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += step)
    words[i] = 0;
  if (count != nullptr && blockIdx.x == 0 && threadIdx.x == 0) *count = 0;
}

// One frontier word w's vertices (`bits`), by the whole warp: a vertex of degree <
// kSmallMax is walked by its lane; a larger one is cut into chunks of kMeshChunkEdges edges,
// queued (vertex, chunk) for PushChunkKernel.
__device__ __forceinline__ void PushWord(const MeshShard& s, const uint32_t* visited,
                                         uint32_t* push, int2* queue, int32_t* queued, int64_t w,
                                         uint32_t bits, int lane) {
  constexpr int kChunk = BfsPolicy::kMeshChunkEdges;
  const bool mine = (bits >> lane) & 1u;
  const int64_t u = w * kWarp + lane;
  const int64_t lo = mine ? __ldg(s.indptr + u) : 0, hi = mine ? __ldg(s.indptr + u + 1) : 0;
  const int64_t deg = hi - lo;
  if (mine && deg < BfsPolicy::kSmallMax) {
    for (int64_t e0 = lo; e0 < hi; e0 += kBatch) PushBatch(s.cols, visited, push, e0, hi, 1);
  }
  for (unsigned big = __ballot_sync(kFull, mine && deg >= BfsPolicy::kSmallMax); big != 0;
       big &= big - 1) {
    const int o = __ffs(big) - 1;
    const int64_t odeg = __shfl_sync(kFull, deg, o);
    const int32_t chunks = static_cast<int32_t>((odeg + kChunk - 1) / kChunk);
    int32_t at = 0;
    if (lane == 0) at = atomicAdd(queued, chunks);
    at = __shfl_sync(kFull, at, 0);
    const int32_t vertex = static_cast<int32_t>(w * kWarp + o);
    for (int32_t i = lane; i < chunks; i += kWarp) queue[at + i] = make_int2(vertex, i);
  }
}

// Top-down (*mode 0; nothing otherwise): a warp takes 32 frontier words at once, a lane each
// (one coalesced load: a sparse frontier leaves most empty), then walks the non-empty ones.
__global__ void __launch_bounds__(kThreads)
    PushKernel(MeshShard s, const uint32_t* front, const uint32_t* visited, const int32_t* mode,
               uint32_t* push, int2* queue, int32_t* queued) {
  if (__ldg(mode) != 0) return;
  const int lane = LaneId();
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;  // words a round
  for (int64_t base = (static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x) / kWarp * kWarp;
       base < s.words; base += step) {
    const uint32_t word = base + lane < s.words ? __ldg(front + base + lane) : 0u;
    for (unsigned todo = __ballot_sync(kFull, word != 0); todo != 0; todo &= todo - 1) {
      const int src = __ffs(todo) - 1;
      PushWord(s, visited, push, queue, queued, base + src, __shfl_sync(kFull, word, src), lane);
    }
  }
}

// The queued chunks, a warp each (kMeshChunkEdges / 32 edges a lane).
__global__ void __launch_bounds__(kThreads)
    PushChunkKernel(MeshShard s, const uint32_t* visited, uint32_t* push, const int2* queue,
                    const int32_t* queued) {
  constexpr int kChunk = BfsPolicy::kMeshChunkEdges;
  const int lane = LaneId();
  const int64_t warps = static_cast<int64_t>(gridDim.x) * (blockDim.x / kWarp);
  const int32_t count = *queued;
  for (int64_t i = (static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x) / kWarp; i < count;
       i += warps) {
    const int2 q = queue[i];
    const int64_t start = __ldg(s.indptr + q.x) + int64_t{q.y} * kChunk;
    const int64_t hi = min(start + kChunk, static_cast<int64_t>(__ldg(s.indptr + q.x + 1)));
    for (int64_t e0 = start + lane; e0 < hi; e0 += int64_t{kWarp} * kBatch)
      PushBatch(s.cols, visited, push, e0, hi, kWarp);
  }
}

__global__ void __launch_bounds__(kThreads)
    PullKernel(MeshShard s, const uint32_t* front, const uint32_t* got, int64_t parts,
               const int32_t* mode, const int32_t* level, int32_t* dist, int32_t* parent,
               uint32_t* seen, uint32_t* msg, int2* queue, int32_t* queued) {
  constexpr int kChunk = BfsPolicy::kMeshChunkEdges;
  const int lane = LaneId();
  const int32_t how = __ldg(mode);
  const int32_t reached = __ldg(level) + 1;
  // The next frontier's size and degree sum: per warp over its words, then per block, then
  // one atomic per block (an atomic per word serialized on two addresses).
  int32_t found_count = 0, found_degrees = 0;
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;  // words a round
  for (int64_t base = (static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x) / kWarp * kWarp;
       base < s.words; base += step) {
    // 32 words at once, a lane each (coalesced loads): the candidates (top-down: the
    // pushes of every device ORed; bottom-up: all) not yet seen.
    const int64_t mine_w = base + lane;
    uint32_t bits_l = 0, had_l = 0;
    if (mine_w < s.words) {
      uint32_t cand = how == 1 ? ~0u : 0u;
      for (int64_t r = 0; how == 0 && r < parts; ++r) cand |= __ldg(got + r * s.words + mine_w);
      had_l = seen[mine_w];
      bits_l = cand & ~had_l;
      if (bits_l == 0) msg[mine_w] = 0;
    }
    // Then the warp settles the non-empty words one after another, a lane per vertex.
    for (unsigned todo = __ballot_sync(kFull, bits_l != 0); todo != 0; todo &= todo - 1) {
      const int src = __ffs(todo) - 1;
      const int64_t w = base + src;
      const uint32_t bits = __shfl_sync(kFull, bits_l, src);
      const uint32_t had = __shfl_sync(kFull, had_l, src);
      const bool mine = (bits >> lane) & 1u;
      const int64_t v = w * kWarp + lane;
      const int64_t lo = mine ? __ldg(s.indptr + v) : 0, hi = mine ? __ldg(s.indptr + v + 1) : 0;
      // Top-down, a long list's first chunk is searched here, its rest (where that chunk
      // holds no frontier neighbour) by PullChunkKernel in chunks (queued here): a level
      // with a large frontier finds most parents in a list's first entries (hubs first).
      const unsigned long_lists =
          how == 0 ? __ballot_sync(kFull, mine && hi - lo >= BfsPolicy::kMeshPullChunkMin) : 0u;
      const bool cut = (long_lists >> lane) & 1u;
      const int32_t found = bfs::SearchWord<true>(s.cols, front, bits, lo, cut ? lo + kChunk : hi);
      const unsigned hit = __ballot_sync(kFull, found >= 0);
      for (unsigned todo = long_lists & ~hit; todo != 0; todo &= todo - 1) {
        const int o = __ffs(todo) - 1;
        const int64_t odeg = __shfl_sync(kFull, hi - lo, o);
        const int32_t chunks = static_cast<int32_t>((odeg + kChunk - 1) / kChunk) - 1;
        int32_t at = 0;
        if (lane == 0) at = atomicAdd(queued, chunks);
        at = __shfl_sync(kFull, at, 0);
        const int32_t vertex = static_cast<int32_t>(w * kWarp + o);
        for (int32_t i = lane; i < chunks; i += kWarp) queue[at + i] = make_int2(vertex, i + 1);
      }
      if (found >= 0) {
        dist[v] = reached;
        parent[v] = found;
        ++found_count;
        found_degrees += static_cast<int32_t>(hi - lo);
      }
      if (lane == 0) {
        msg[w] = hit;
        seen[w] = had | hit;
      }
    }
  }
  __shared__ int32_t totals[2];
  if (threadIdx.x == 0) totals[0] = totals[1] = 0;
  __syncthreads();
  found_count = WarpSum(found_count);
  found_degrees = WarpSum(found_degrees);
  if (lane == 0 && found_count != 0) {
    atomicAdd(&totals[0], found_count);
    atomicAdd(&totals[1], found_degrees);
  }
  __syncthreads();
  int32_t* stats = reinterpret_cast<int32_t*>(msg + s.words);
  if (threadIdx.x == 0 && totals[0] != 0) {
    atomicAdd(stats, totals[0]);
    atomicAdd(stats + 1, totals[1]);
  }
}

// The queued chunks of long candidate lists, a warp each: a frontier neighbour found
// becomes the vertex's parent if none is yet (atomicCAS on parent, -1 while unreached);
// the winner sets the vertex's distance, its bits in msg and seen, and counts it.
__global__ void __launch_bounds__(kThreads)
    PullChunkKernel(MeshShard s, const uint32_t* front, const int32_t* level, int32_t* dist,
                    int32_t* parent, uint32_t* seen, uint32_t* msg, const int2* queue,
                    const int32_t* queued) {
  constexpr int kChunk = BfsPolicy::kMeshChunkEdges;
  constexpr int kStep = kWarp * bfs::kBatchOf<true>;
  const int lane = LaneId();
  const int64_t warps = static_cast<int64_t>(gridDim.x) * (blockDim.x / kWarp);
  const int32_t count = *queued;
  const int32_t reached = __ldg(level) + 1;
  int32_t* stats = reinterpret_cast<int32_t*>(msg + s.words);
  for (int64_t i = (static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x) / kWarp; i < count;
       i += warps) {
    const int2 q = queue[i];
    const int64_t row = __ldg(s.indptr + q.x), end = __ldg(s.indptr + q.x + 1);
    const int64_t start = row + int64_t{q.y} * kChunk, hi = min(start + kChunk, end);
    if (*reinterpret_cast<volatile int32_t*>(parent + q.x) >= 0) continue;  // found already
    for (int64_t e0 = start; e0 < hi; e0 += kStep) {
      const int32_t hit = bfs::FrontierNeighbour<true>(s.cols, front, e0 + lane, hi, kWarp);
      const unsigned any = __ballot_sync(kFull, hit >= 0);
      if (any == 0) continue;
      const int32_t par = __shfl_sync(kFull, hit, __ffs(any) - 1);
      if (lane == 0 && atomicCAS(parent + q.x, -1, par) == -1) {
        dist[q.x] = reached;
        const uint32_t bit = 1u << (q.x & 31);
        atomicOr(msg + (q.x >> 5), bit);
        atomicOr(seen + (q.x >> 5), bit);
        atomicAdd(stats, 1);
        atomicAdd(stats + 1, static_cast<int32_t>(end - row));
      }
      break;
    }
  }
}

// Blocks of a grid-stride launch over `words` warps' worth of work.
int Blocks(int64_t words, int num_sms) {
  const int64_t need = CeilDiv(std::max<int64_t>(words, 1) * kWarp, kThreads);
  return static_cast<int>(std::min<int64_t>(need, int64_t{num_sms} * BfsPolicy::kMeshBlocksPerSm));
}

}  // namespace

cudaError_t MeshPush(const MeshShard& s, const uint32_t* front, const uint32_t* visited,
                     const int32_t* mode, uint32_t* push, int32_t* queue, int num_sms,
                     cudaStream_t stream) {
  int32_t* queued = queue;
  auto* chunks = reinterpret_cast<int2*>(queue + 2);
  ZeroKernel<<<Blocks(CeilDiv(s.global_words, kWarp), num_sms), kThreads, 0, stream>>>(
      push, s.global_words, queued);
  cudaError_t err = cudaGetLastError();
  if (err != cudaSuccess || s.words == 0) return err;
  const int blocks = Blocks(CeilDiv(s.words, kWarp), num_sms);  // a lane per word
  PushKernel<<<blocks, kThreads, 0, stream>>>(s, front, visited, mode, push, chunks, queued);
  err = cudaGetLastError();
  if (err != cudaSuccess) return err;
  PushChunkKernel<<<num_sms * BfsPolicy::kMeshBlocksPerSm, kThreads, 0, stream>>>(s, visited, push,
                                                                                  chunks, queued);
  return cudaGetLastError();
}

cudaError_t MeshPull(const MeshShard& s, const uint32_t* front, const uint32_t* got, int64_t parts,
                     const int32_t* mode, const int32_t* level, int32_t* dist, int32_t* parent,
                     uint32_t* seen, uint32_t* msg, int32_t* queue, int num_sms,
                     cudaStream_t stream) {
  int32_t* queued = queue;
  auto* chunks = reinterpret_cast<int2*>(queue + 2);
  ZeroKernel<<<1, kWarp, 0, stream>>>(msg + s.words, 2, queued);
  cudaError_t err = cudaGetLastError();
  if (err != cudaSuccess || s.words == 0) return err;
  const int blocks = Blocks(CeilDiv(s.words, kWarp), num_sms);  // a lane per word
  PullKernel<<<blocks, kThreads, 0, stream>>>(s, front, got, parts, mode, level, dist, parent, seen,
                                              msg, chunks, queued);
  err = cudaGetLastError();
  if (err != cudaSuccess) return err;
  PullChunkKernel<<<num_sms * BfsPolicy::kMeshBlocksPerSm, kThreads, 0, stream>>>(
      s, front, level, dist, parent, seen, msg, chunks, queued);
  return cudaGetLastError();
}

}  // namespace kcjax::bfs
