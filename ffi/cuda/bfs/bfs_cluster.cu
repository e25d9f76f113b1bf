// CUDA kernel of "kcjax_bfs" for kBfsCluster: a whole single-source traversal
// in one launch on one thread block cluster (Hopper), with no grid sync.
//
// The grid path (bfs_levels.cu) pays per level three grid syncs over all its
// blocks and two reads of the whole status array in global memory; on a graph
// of a few hundred thousand edges those levels, not the edges, are the time.
// Here one cluster of C blocks (1 to 16; BfsPolicy sizes it from the edges)
// runs the traversal and its level state lives in shared memory as bitmaps:
//   visited[W], front[W]  every block holds a full copy (W = ceil(n / 32)
//                         words): the reached vertices before this level and
//                         this level's frontier, so every test an edge needs
//                         is a shared-memory load;
//   next[3][W / C]        the next frontier, distributed: word w lives in
//                         block w % C at w / C; a top-down claim is an
//                         atomicOr there (distributed shared memory), whose
//                         old bit picks the one winner of a vertex;
//   counters[3][2]        per block: vertices reached this level and the sum
//                         of their degrees (the direction rule's inputs).
// A level is: expand (every block over its share), cluster.sync() (a hardware
// barrier with release/acquire order over the cluster's shared memory), then
// every block copies the next frontier from its C owners into front, ORs it
// into visited and sums the C blocks' counters. The next-frontier words and
// counters rotate over three buffers: the owner clears the one read two
// levels ago, which no block can still be reading or already writing.
// Direction: kcjax::ClusterBottomUp (Beamer's edge rule, as GAP), whose inputs
// the claims count on the way, so the kernel has no O(n) pre-pass (the grid
// path's hub rule needs the graph's hub count first).
// Top-down: the cluster's warps take the frontier words round robin, a warp
// per word (a small frontier of wide vertices spreads over as many warps as it
// has words); a warp lays the word's vertices out by a scan of their degrees
// and walks their edges 32 x kEdgeBatch at a time (edge-balanced, coalesced);
// a vertex of degree >= kClusterBlockDegree is listed and walked by its
// whole block.
// Bottom-up: block b takes the words it owns (so its claims are plain local
// stores, or shared atomics where a word is split over warps), a warp per word
// (or per part of a word where the block has at most half as many words as
// warps): a thread per unvisited vertex of degree < kClusterGroupDegree,
// groups of kClusterGroupLanes lanes for those up to kMiddleMax (kGroups at a
// time), the warp for wider ones, each stopping at the first batch that holds
// a frontier neighbour.
// dist and parent are only written: a reached vertex once, at its claim (the
// source by block 0); at the end every block writes -1 over the unreached
// vertices of its words. Several sources ([s, n], batch "each"): one cluster
// per source, the grid's clusters taking sources round robin.
#include <cooperative_groups.h>

#include <algorithm>
#include <cstdint>
#include <mutex>

#include "kcjax/bfs/bfs_cuda.h"
#include "kcjax/bfs/bottom_up.cuh"
#include "kcjax/bfs/policy.h"
#include "kcjax/cuda/limits.h"
#include "kcjax/cuda/warp.cuh"

namespace cg = cooperative_groups;

namespace kcjax::bfs {

using namespace kcjax::cuda;  // the shared device primitives
namespace {

constexpr int kThreads = BfsPolicy::kClusterThreads;
constexpr int kWarps = kThreads / kWarp;
constexpr int kBuffers = 3;  // next-frontier slices and counters in rotation
constexpr int kCounts = 2;   // per level: vertices reached, the sum of their degrees
// Clusters of one launch at most (each takes sources round robin).
constexpr int64_t kMaxClusters = 65535;

// One block's view of the cluster's level state (pointers into its shared memory).
struct View {
  uint32_t* visited;  // [words]
  uint32_t* front;    // [words]
  uint32_t* next;     // [kBuffers][slice]: this block's words of the next frontier
  int words;
  int slice;
  int ranks;  // blocks in the cluster
  int rank;   // this block's rank
  int64_t n;
};

// Reached vertices and their degrees counted by one thread during a level
// (int: both are at most m < 2^31).
struct Tally {
  int reached = 0;
  int edges = 0;
};

__device__ __forceinline__ bool Bit(const uint32_t* bits, int32_t v) {
  return (bits[v >> 5] >> (v & 31)) & 1u;
}

// Word w of the next frontier in buffer buf: in block w % ranks, at w / ranks.
__device__ __forceinline__ uint32_t* NextWord(const View& v, int buf, int w) {
  if (v.ranks == 1) return v.next + buf * v.slice + w;
  return cg::this_cluster().map_shared_rank(v.next + buf * v.slice + w / v.ranks,
                                            static_cast<unsigned>(w % v.ranks));
}

// Top-down over one batch of edges src[j] -> x[j] (x[j] < 0: none): claims
// the children not reached before this level (atomicOr on their next-frontier
// word; the one that sets the bit writes distance and parent and counts the
// child). Degrees, then claims, then stores, each batch-wide.
__device__ __forceinline__ void ClaimBatch(const BfsProblem& p, const View& v, int32_t* dist,
                                           int32_t* parent, int buf, int32_t next_level,
                                           const int32_t (&x)[kBatch], const int32_t (&src)[kBatch],
                                           Tally& t) {
  bool cand[kBatch];
  int32_t lo[kBatch], hi[kBatch];
#pragma unroll
  for (int j = 0; j < kBatch; ++j) cand[j] = x[j] >= 0 && !Bit(v.visited, x[j]);
#pragma unroll
  for (int j = 0; j < kBatch; ++j) {
    lo[j] = cand[j] ? __ldg(p.indptr + x[j]) : 0;
    hi[j] = cand[j] ? __ldg(p.indptr + x[j] + 1) : 0;
  }
  // Every claim is issued before any store (a store to dist between them could
  // alias a claim's generic address, so each would wait for the one before).
  bool won[kBatch];
#pragma unroll
  for (int j = 0; j < kBatch; ++j) {
    const uint32_t bit = 1u << (x[j] & 31);
    won[j] = cand[j] && !(atomicOr(NextWord(v, buf, x[j] >> 5), bit) & bit);
  }
#pragma unroll
  for (int j = 0; j < kBatch; ++j) {
    if (!won[j]) continue;
    dist[x[j]] = next_level;
    if (parent != nullptr) parent[x[j]] = src[j];
    ++t.reached;
    t.edges += hi[j] - lo[j];
  }
}

// A top-down level (see the file comment). heavy / num_heavy: the block's
// list of high-degree frontier vertices (shared; num_heavy is 0 on entry and
// on return).
__device__ void TopDown(const BfsProblem& p, const View& v, int32_t* dist, int32_t* parent, int buf,
                        int32_t level, int32_t* heavy, int* num_heavy, Tally& t) {
  const int lane = LaneId(), warp = WarpInBlock();
  const int32_t next_level = level + 1;
  // A warp per frontier word, round robin over the cluster's warps: a small
  // frontier of wide vertices is spread over as many warps as it has words.
  for (int w = v.rank * kWarps + warp; w < v.words; w += v.ranks * kWarps) {
    const uint32_t bits = v.front[w];
    if (bits == 0u) continue;
    int32_t u = -1, lo = 0, deg = 0;
    if (lane < __popc(bits)) {
      u = w * 32 + NthBit(bits, lane);
      lo = __ldg(p.indptr + u);
      deg = __ldg(p.indptr + u + 1) - lo;
      if (deg >= BfsPolicy::kClusterBlockDegree) {
        const int slot = atomicAdd(num_heavy, 1);
        if (slot < BfsPolicy::kClusterBlockSlots) {
          heavy[slot] = u;
          deg = 0;
        }
      }
    }
    const int32_t incl = WarpInclusiveScan(deg);
    const int32_t excl = incl - deg;
    const int32_t total = __shfl_sync(kFull, incl, kWarp - 1);
    for (int32_t base = 0; base < total; base += kWarp * kBatch) {
      int32_t x[kBatch], src[kBatch];
#pragma unroll
      for (int j = 0; j < kBatch; ++j) {
        const int32_t q = base + j * kWarp + lane;  // the q-th edge of the word's vertices
        const int owner = OwnerLane(incl, min(q, total - 1));
        const int32_t olo = __shfl_sync(kFull, lo, owner);
        const int32_t oexcl = __shfl_sync(kFull, excl, owner);
        src[j] = __shfl_sync(kFull, u, owner);
        x[j] = q < total ? __ldg(p.indices + olo + (q - oexcl)) : -1;
      }
      ClaimBatch(p, v, dist, parent, buf, next_level, x, src, t);
    }
  }
  __syncthreads();  // the heavy list is complete
  const int count = min(*num_heavy, BfsPolicy::kClusterBlockSlots);
  for (int h = 0; h < count; ++h) {
    const int32_t u = heavy[h];
    const int64_t lo = __ldg(p.indptr + u), hi = __ldg(p.indptr + u + 1);
    for (int64_t e0 = lo + threadIdx.x; e0 < hi; e0 += int64_t{kThreads} * kBatch) {
      int32_t x[kBatch], src[kBatch];
#pragma unroll
      for (int j = 0; j < kBatch; ++j) {
        const int64_t e = e0 + int64_t{j} * kThreads;
        x[j] = e < hi ? __ldg(p.indices + e) : -1;
        src[j] = u;
      }
      ClaimBatch(p, v, dist, parent, buf, next_level, x, src, t);
    }
  }
  __syncthreads();  // every thread has read the list
  if (threadIdx.x == 0) *num_heavy = 0;
}

// A bottom-up level (see the file comment): the words w % ranks == rank. A
// block with at most half as many words as warps splits each word's lanes
// over `parts` warps (a power of two), so its wide vertices are searched by
// more warps at once instead of leaving warps idle.
__device__ void BottomUp(const BfsProblem& p, const View& v, int32_t* dist, int32_t* parent,
                         int buf, int32_t level, Tally& t) {
  const int lane = LaneId(), warp = WarpInBlock();
  const int32_t next_level = level + 1;
  int parts = 1;
  while (parts < kWarp && v.slice * parts * 2 <= kWarps) parts *= 2;
  const int span = kWarp / parts;  // lanes of a word per part
  for (int item = warp;; item += kWarps) {
    const int k = item / parts;          // local index k in this block's slice
    const int w = v.rank + k * v.ranks;  // k grows with item: nothing after is ours
    if (w >= v.words) break;
    const int part = item % parts;
    const uint32_t part_lanes =
        parts == 1 ? ~0u : ((1u << span) - 1u) << (part * span);  // span < 32 here
    const int64_t first = int64_t{w} * 32;
    uint32_t unreached = ~v.visited[w] & part_lanes;
    if (v.n - first < 32) unreached &= (1u << (v.n - first)) - 1u;
    if (unreached == 0) continue;
    const int32_t x = static_cast<int32_t>(first) + lane;
    const bool mine = (unreached >> lane) & 1u;
    int64_t lo = 0, hi = 0;
    if (mine) {
      lo = __ldg(p.indptr + x);
      hi = __ldg(p.indptr + x + 1);
    }
    const int32_t found = bfs::SearchWord<false>(p.indices, v.front, unreached, lo, hi);
    const unsigned got = __ballot_sync(kFull, found >= 0);
    if (found >= 0) {
      dist[x] = next_level;
      if (parent != nullptr) parent[x] = found;
      ++t.reached;
      t.edges += static_cast<int>(hi - lo);
    }
    if (lane == 0 && got != 0) {  // a split word: its other parts OR in theirs
      if (parts == 1) {
        v.next[buf * v.slice + k] = got;
      } else {
        atomicOr(v.next + buf * v.slice + k, got);
      }
    }
  }
}

__global__ void __launch_bounds__(kThreads, 1)
    BfsClusterKernel(BfsProblem p, int words, int slice) {
  extern __shared__ uint32_t smem[];
  __shared__ int counts[kBuffers][kCounts];
  __shared__ int32_t heavy[BfsPolicy::kClusterBlockSlots];
  __shared__ int num_heavy;
  __shared__ long long level_counts[kCounts];
  cg::cluster_group cluster = cg::this_cluster();
  View v;
  v.ranks = static_cast<int>(cluster.num_blocks());
  v.rank = static_cast<int>(cluster.block_rank());
  v.words = words;
  v.slice = slice;
  v.n = p.n;
  v.visited = smem;
  v.front = smem + words;
  v.next = smem + 2 * static_cast<int64_t>(words);
  const int lane = LaneId(), warp = WarpInBlock();
  const int64_t clusters = gridDim.x / v.ranks;
  const int state = 2 * words + kBuffers * slice;
  for (int64_t s = blockIdx.x / v.ranks; s < p.s; s += clusters) {
    int32_t* dist = p.dist + s * p.n;
    int32_t* parent = p.parent != nullptr ? p.parent + s * p.n : nullptr;
    const int32_t src = p.sources[s];
    const bool valid = src >= 0 && src < p.n;
    for (int i = threadIdx.x; i < state; i += kThreads) smem[i] = 0;
    if (threadIdx.x < kBuffers * kCounts) counts[threadIdx.x / kCounts][threadIdx.x % kCounts] = 0;
    if (threadIdx.x == 0) num_heavy = 0;
    __syncthreads();
    int64_t frontier = 0, frontier_edges = 0, unexplored = p.m;
    if (valid) {
      if (threadIdx.x == 0) {
        v.visited[src >> 5] = 1u << (src & 31);
        v.front[src >> 5] = 1u << (src & 31);
        if (v.rank == 0) {
          dist[src] = 0;
          if (parent != nullptr) parent[src] = src;
        }
      }
      frontier = 1;
      frontier_edges = __ldg(p.indptr + src + 1) - __ldg(p.indptr + src);
      unexplored -= frontier_edges;
    }
    cluster.sync();  // every block's state is set before any block reaches into it
    bool bottom_up = false;
    int64_t prev = 0;
    for (int32_t level = 0; frontier > 0; ++level) {
      const int buf = level % kBuffers;
      const bool bu =
          ClusterBottomUp(p.direction, bottom_up, frontier, prev, frontier_edges, unexplored, p.n);
      prev = frontier;
      bottom_up = bu;
      Tally t;
      if (bu) {
        BottomUp(p, v, dist, parent, buf, level, t);
      } else {
        TopDown(p, v, dist, parent, buf, level, heavy, &num_heavy, t);
      }
      const int reached = WarpSum(t.reached), edges = WarpSum(t.edges);
      if (lane == 0 && reached != 0) {
        atomicAdd(&counts[buf][0], reached);
        atomicAdd(&counts[buf][1], edges);
      }
      cluster.sync();  // the level's claims and counters are complete in every block
      const uint32_t* next = v.next + buf * slice;
      for (int w0 = threadIdx.x; w0 < words; w0 += 4 * kThreads) {
        uint32_t f[4];
#pragma unroll
        for (int i = 0; i < 4; ++i) {
          const int w = w0 + i * kThreads;
          f[i] = w >= words     ? 0u
                 : v.ranks == 1 ? next[w]
                                : *cluster.map_shared_rank(next + w / v.ranks,
                                                           static_cast<unsigned>(w % v.ranks));
        }
#pragma unroll
        for (int i = 0; i < 4; ++i) {
          const int w = w0 + i * kThreads;
          if (w >= words) break;
          v.front[w] = f[i];
          v.visited[w] |= f[i];
        }
      }
      if (warp == 0) {
        long long c[kCounts] = {0, 0};
        if (lane < v.ranks) {
          const int* at = lane == v.rank
                              ? counts[buf]
                              : cluster.map_shared_rank(counts[buf], static_cast<unsigned>(lane));
          for (int i = 0; i < kCounts; ++i) c[i] = at[i];
        }
        for (int i = 0; i < kCounts; ++i) c[i] = WarpSum(c[i]);
        if (lane == 0)
          for (int i = 0; i < kCounts; ++i) level_counts[i] = c[i];
      }
      // The buffer read two levels ago: every block copied it before the last
      // cluster.sync, and none writes it again before the next one.
      const int old = (level + 2) % kBuffers;
      for (int i = threadIdx.x; i < slice; i += kThreads) v.next[old * slice + i] = 0;
      if (threadIdx.x < kCounts) counts[old][threadIdx.x] = 0;
      __syncthreads();
      frontier = level_counts[0];
      frontier_edges = level_counts[1];
      unexplored -= frontier_edges;
    }
    for (int k = warp;; k += kWarps) {  // -1 over this block's unreached vertices
      const int w = v.rank + k * v.ranks;
      if (w >= words) break;
      const int64_t x = int64_t{w} * 32 + lane;
      if (x < p.n && !((v.visited[w] >> lane) & 1u)) {
        dist[x] = -1;
        if (parent != nullptr) parent[x] = -1;
      }
    }
    cluster.sync();  // no block reaches into another's shared memory past this point
  }
}

// Dynamic shared memory of a cluster of c blocks over `words` bitmap words.
size_t SharedBytes(int64_t words, int c) {
  return static_cast<size_t>(2 * words + kBuffers * CeilDiv(words, c)) * sizeof(uint32_t);
}

// Launch config of `clusters` clusters of c blocks with `bytes` of dynamic
// shared memory each (dims: storage for its one attribute).
cudaLaunchConfig_t ClusterConfig(int c, int64_t clusters, size_t bytes, cudaStream_t stream,
                                 cudaLaunchAttribute* dims) {
  cudaLaunchConfig_t cfg = {};
  dims[0].id = cudaLaunchAttributeClusterDimension;
  dims[0].val.clusterDim.x = static_cast<unsigned>(c);
  dims[0].val.clusterDim.y = 1;
  dims[0].val.clusterDim.z = 1;
  cfg.gridDim = dim3(static_cast<unsigned>(c * clusters));
  cfg.blockDim = dim3(kThreads);
  cfg.dynamicSmemBytes = bytes;
  cfg.stream = stream;
  cfg.attrs = dims;
  cfg.numAttrs = 1;
  return cfg;
}

constexpr int kMaxClusterSize = 16;  // the hardware's limit (non-portable above 8)

// What a device allows the kernel, found once per device: the dynamic shared
// memory a block may have (room; the kernel's limit is set to it, the same
// value on every call) and how many clusters of each size fit at once.
struct ClusterLimits {
  int64_t room = 0;
  int resident[kMaxClusterSize + 1] = {};
};

// *out: this device's limits (nullptr for a device id past kMaxDevices or
// one that cannot launch clusters: the caller falls back to the grid kernel).
cudaError_t Limits(int device, ClusterLimits** out) {
  static std::mutex mu;
  static ClusterLimits limits[kMaxDevices];
  static bool known[kMaxDevices] = {};
  *out = nullptr;
  if (device < 0 || device >= kMaxDevices) return cudaSuccess;
  std::lock_guard<std::mutex> lock(mu);
  if (!known[device]) {
    int optin = 0;
    cudaFuncAttributes attr;
    cudaError_t err =
        cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device);
    if (err == cudaSuccess) err = cudaFuncGetAttributes(&attr, BfsClusterKernel);
    if (err != cudaSuccess) return err;
    ClusterLimits& l = limits[device];
    l.room = static_cast<int64_t>(optin) - static_cast<int64_t>(attr.sharedSizeBytes);
    if (l.room > 0) {
      err = cudaFuncSetAttribute(BfsClusterKernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                 static_cast<int>(l.room));
      if (err == cudaSuccess)
        err = cudaFuncSetAttribute(BfsClusterKernel, cudaFuncAttributeNonPortableClusterSizeAllowed,
                                   1);
      if (err != cudaSuccess) {  // no cluster launch on this device
        cudaGetLastError();
        l.room = 0;
      }
    }
    for (int c = 1; c <= kMaxClusterSize && l.room > 0; ++c) {
      cudaLaunchAttribute dims[1];
      const cudaLaunchConfig_t cfg =
          ClusterConfig(c, 1, static_cast<size_t>(l.room), nullptr, dims);
      if (cudaOccupancyMaxActiveClusters(&l.resident[c], BfsClusterKernel, &cfg) != cudaSuccess) {
        cudaGetLastError();  // this size cannot be placed
        l.resident[c] = 0;
      }
    }
    known[device] = true;
  }
  *out = &limits[device];
  return cudaSuccess;
}

}  // namespace

cudaError_t PlanCluster(const BfsProblem& p, BfsPlan* plan) {
  int device = 0;
  cudaError_t err = cudaGetDevice(&device);
  if (err != cudaSuccess) return err;
  ClusterLimits* limits = nullptr;
  err = Limits(device, &limits);
  if (err != cudaSuccess) return err;
  if (limits == nullptr || limits->room <= 0) return cudaSuccess;  // no cluster launch here
  const int64_t words = CeilDiv(p.n, 32);
  const int by_edges = static_cast<int>(std::clamp<int64_t>(
      CeilDiv(p.m, BfsPolicy::kClusterEdgesPerBlock), 1, BfsPolicy::kMaxClusterBlocks));
  const int first = p.cluster > 0 ? p.cluster : by_edges;
  const int last = p.cluster > 0 ? p.cluster : BfsPolicy::kMaxClusterBlocks;
  for (int c = first; c <= last; ++c) {  // more blocks: smaller next-frontier slices
    const size_t bytes = SharedBytes(words, c);
    if (static_cast<int64_t>(bytes) > limits->room || limits->resident[c] < 1) continue;
    plan->kernel = BfsKernel::kCluster;
    plan->cluster = c;
    plan->words = static_cast<int>(words);
    plan->shared_bytes = bytes;
    plan->grid = c * static_cast<int>(std::min(p.s, kMaxClusters));
    plan->scratch_bytes = 0;
    return cudaSuccess;
  }
  return cudaSuccess;
}

cudaError_t RunCluster(const BfsProblem& p, const BfsPlan& plan, cudaStream_t stream) {
  cudaLaunchAttribute dims[1];
  const cudaLaunchConfig_t cfg =
      ClusterConfig(plan.cluster, plan.grid / plan.cluster, plan.shared_bytes, stream, dims);
  const int slice = static_cast<int>(CeilDiv(plan.words, plan.cluster));
  return cudaLaunchKernelEx(&cfg, BfsClusterKernel, p, plan.words, slice);
}

}  // namespace kcjax::bfs
