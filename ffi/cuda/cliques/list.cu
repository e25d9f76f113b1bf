// CUDA kernels of k-clique listing and per-vertex k-clique counts, and their
// host launchers (interface in kcjax/cliques/list_cuda.h; FFI handlers in
// list_cuda.cc; reference semantics in ffi/cpu/cliques/count.cc).
//
// Strategy (one for every kcjax::cliques::CountMethod): sorted-list DFS, one warp per
// edge task e = (u, v), persistent grid pulling tasks from an atomic counter,
// tasks sorted by d = |N+(u) ∩ N+(v)|, largest first.
//
//   node   s fixed vertices path[0, s) (ascending) and their common
//          out-neighbours, the sorted candidate list L (n = |L|). The root
//          node is (u, v) with L = N+(u) ∩ N+(v).
//   child  of candidate L[i]: path + L[i], candidates L[i+1, n) ∩ N+(L[i])
//          (every intersection is warp-cooperative, lanes split the shorter
//          list and binary-search the longer one).
//   leaf   node with s = k - 2 fixed vertices: the child of L[i] is not built
//          as a node, its candidates x directly give the k-cliques
//          path[0, k-2) + L[i] + x, which go to a Sink (staged rows for
//          listing, per-position counters for per-vertex counts).
//          k = 3: the root's intersection itself is the leaf intersection
//          (prefix (u), w = v).
//   prune  a child of L[i] has at most n - i - 1 candidates, so only
//          i <= n - (k - s) can lead to a k-clique; a child node is entered
//          only if s + 1 + |its candidates| >= k (as the CPU's Prune).
//
// Warp invariants: all control flow outside the per-lane bodies of
// IntersectPos, the flush loops and lane-0 bookkeeping is warp-uniform;
// every variable named in a loop condition is the same in all lanes (values
// read from memory that another warp may change, such as the stop flag, are
// read by lane 0 and broadcast). Arena memory written by some lanes is read
// by other lanes only after a __syncwarp (IntersectPos ends with one).
#include <algorithm>
#include <cstdint>
#include <type_traits>

#include "kcjax/cliques/list_cuda.h"
#include "kcjax/cliques/policy.h"
#include "kcjax/core/csr.h"
#include "kcjax/cuda/intersect.cuh"
#include "kcjax/cuda/limits.h"
#include "kcjax/cuda/tasks.h"
#include "kcjax/cuda/warp.cuh"
#include "kcjax/cuda/wide.cuh"

namespace kcjax::cliques {
namespace {

using namespace kcjax::cuda;  // the shared primitives

using Policy = CliquePolicy;

constexpr int kMaxThreads = Policy::kListWarpsPerBlock * kWarp;
constexpr int kPrepassWarps = Policy::kListPrepassWarps;

// Lane 0 reads *flag (written by other warps) and broadcasts it, so that the
// decision taken on it is warp-uniform. flag == nullptr: never set.
__device__ __forceinline__ bool Stopped(const volatile int* flag) {
  if (flag == nullptr) return false;
  int v = 0;
  if (LaneId() == 0) v = *flag;
  return __shfl_sync(kFull, v, 0) != 0;
}

// ---------------------------------------------------------------------------
// Per-warp arena (global scratch), offsets in int32 words, each piece
// 16-byte aligned. D = largest candidate set over all tasks (every list any
// node of any task holds has at most D entries).
//   frames [F][D]  frame f: candidate list of the node with s = 2 + f fixed
//                  vertices, F = k - 3 (the root is frame 0; the leaf frame
//                  is f = k - 4; k = 3 needs none)
//   fidx, fn [F]   saved (next candidate, list size) of the frames above
//   path [k]       path[0, s) of the current node
// Listing:
//   st_c, st_w, st_p [S]  staged cliques: row r = ptab[st_p[r]] + st_w[r] +
//                         st_c[r], S = max(D, kListStageRows)
//   ptab [P][k - 2]       staged prefixes path[0, k - 2)
// Per-vertex:
//   acc [D]               uint32 per position of the leaf node's list L: the
//                         k-cliques of the node that contain L[j]
// ---------------------------------------------------------------------------
struct ArenaLayout {
  int k, D, F, S, P;
  int64_t frames, fidx, fn, path, st_c, st_w, st_p, ptab, acc, words;

  KCJAX_HD static ArenaLayout Make(int k, int D, bool per_vertex) {
    ArenaLayout l;
    l.k = k;
    l.D = D < 1 ? 1 : D;
    l.F = k - 3;
    l.S = 0;
    l.P = 0;
    int64_t at = 0;
    auto take = [&at](int64_t words) {
      const int64_t off = at;
      at += RoundUp(words, 4);
      return off;
    };
    l.frames = take(static_cast<int64_t>(l.F) * l.D);
    l.fidx = take(l.F);
    l.fn = take(l.F);
    l.path = take(k);
    l.st_c = l.st_w = l.st_p = l.ptab = l.acc = at;
    if (per_vertex) {
      l.acc = take(l.D);
    } else {
      l.S = l.D > Policy::kListStageRows ? l.D : Policy::kListStageRows;
      int p = Policy::kListStagePrefixInts / (k - 2);
      p = p < Policy::kListStagePrefixes ? p : Policy::kListStagePrefixes;
      l.P = p < 1 ? 1 : p;
      l.st_c = take(l.S);
      l.st_w = take(l.S);
      l.st_p = take(l.S);
      l.ptab = take(static_cast<int64_t>(l.P) * (k - 2));
    }
    l.words = at;
    return l;
  }
};

struct ListArgs {
  DagView g;
  const int32_t* tasks;  // sorted by key, descending
  const uint32_t* keys;  // d of each sorted task; 0 for padding
  int num_tasks;
  int k;
  int* task_counter;  // zeroed before the launch
  int* stop;          // listing with stop_when_full: set once capacity rows are reserved
  bool stop_when_full;
  int32_t* cliques;  // [capacity, k]
  u64 capacity;
  u64* out;  // listing: count (lo, hi); per-vertex: [num_nodes] (lo, hi)
  int32_t* arenas;
  ArenaLayout lay;
};

// ---------------------------------------------------------------------------
// Sinks: what a leaf intersection does with its cliques. Interface:
//   Leaf(w, a, na, b, nb, pos_base): the cliques path[0, k-2) + w + x for
//     x in a ∩ b; for k >= 4, a = L + pos_base with w = L[pos_base - 1] in
//     the leaf node's list L; for k = 3, a = N+(u), b = N+(v), w = v.
//   NodeDone(L, n): the leaf node with list L[0, n) is finished (the prefix
//     path[0, k-2) changes after it). k = 3: called after every task.
//   Finish(): the warp exits.
// All members are warp-uniform except where noted.
// ---------------------------------------------------------------------------

// Listing: staged rows, reserved in the output with one atomicAdd per flush.
struct ListSink {
  int32_t* st_c;
  int32_t* st_w;
  int32_t* st_p;
  int32_t* ptab;
  const int32_t* path;
  int k, S, P, D;  // D <= S: largest candidate set
  int32_t* cliques;
  u64 capacity;
  u64* count;
  int* stop;
  bool stop_when_full;
  int n = 0;     // staged rows
  int np = 0;    // staged prefixes
  int pid = -1;  // index in ptab of the current leaf node's prefix; -1: not staged

  __device__ void Init() {}

  // Invariant: n <= S, np <= P. A leaf intersection yields at most
  // min(na, nb) and at most D <= S rows, so after a flush it always fits.
  __device__ void Leaf(int32_t w, const int32_t* a, int na, const int32_t* b, int nb,
                       int /*pos_base*/) {
    const int bound = min(min(na, nb), D);  // no list has more than D elements
    if (bound == 0) return;
    if (static_cast<int64_t>(n) + bound > S) Flush();
    if (pid < 0 && np == P) Flush();
    const int p = pid < 0 ? np : pid;  // prefix slot (staged below if there are hits)
    const int base = n;
    int32_t* c_out = st_c + base;
    int32_t* w_out = st_w + base;
    int32_t* p_out = st_p + base;
    const int c = IntersectPos(a, na, b, nb, [&](int r, int, int32_t x) {
      c_out[r] = x;
      w_out[r] = w;
      p_out[r] = p;
    });
    if (c == 0) return;
    if (pid < 0) {  // first cliques of this node since the last flush: stage its prefix
      const int len = k - 2;
      for (int j = LaneId(); j < len; j += kWarp) ptab[static_cast<int64_t>(p) * len + j] = path[j];
      pid = np++;
      __syncwarp();
    }
    n += c;
    // With stop_when_full, reserve as soon as the stage alone can fill the
    // output, so that every warp learns early that it may stop.
    if (stop_when_full && static_cast<u64>(n) >= capacity) Flush();
  }

  __device__ void NodeDone(const int32_t*, int) { pid = -1; }

  // Reserves n rows with one atomicAdd (the count includes rows past the
  // capacity, which are not written) and writes the reserved rows that fit,
  // row-major and coalesced: flat element t = r * k + col of the stage.
  __device__ void Flush() {
    const int lane = LaneId();
    if (n > 0) {
      u64 slot = 0;
      if (lane == 0) {
        slot = atomicAdd(count, static_cast<u64>(n));
        if (slot + n < slot) atomicAdd(count + 1, 1ull);
      }
      slot = __shfl_sync(kFull, slot, 0);
      if (slot < capacity) {
        const u64 room = capacity - slot;
        const int rows = room < static_cast<u64>(n) ? static_cast<int>(room) : n;
        int32_t* dst = cliques + static_cast<int64_t>(slot) * k;
        const int64_t total = static_cast<int64_t>(rows) * k;
        const int len = k - 2;
        const int dr = kWarp / k, dc = kWarp % k;
        int r = lane / k, col = lane % k;  // invariant: t = r * k + col
        for (int64_t t = lane; t < total; t += kWarp) {
          int32_t v;
          if (col < len) {
            v = ptab[static_cast<int64_t>(st_p[r]) * len + col];
          } else if (col == len) {
            v = st_w[r];
          } else {
            v = st_c[r];
          }
          dst[t] = v;
          r += dr;
          col += dc;
          if (col >= k) {
            col -= k;
            ++r;
          }
        }
      }
      if (stop_when_full && lane == 0 && slot + n >= capacity) atomicExch(stop, 1);
    }
    n = 0;
    np = 0;
    pid = -1;
    __syncwarp();  // the stage is rewritten next
  }

  __device__ void Finish() { Flush(); }
};

// Per-vertex counts: per-position counters of the leaf node, flushed with one
// atomic per position (and per prefix vertex) when the node is done.
struct VertexSink {
  uint32_t* acc;  // all zero between leaf nodes
  const int32_t* path;
  int k, D;
  u64* out;
  u64 total = 0;  // k-cliques of the current leaf node

  __device__ void Init() {
    for (int j = LaneId(); j < D; j += kWarp) acc[j] = 0u;
    __syncwarp();
  }

  __device__ void Leaf(int32_t w, const int32_t* a, int na, const int32_t* b, int nb,
                       int pos_base) {
    if (k == 3) {  // root task (u, v): u, v in every clique, each x in one
      const int c =
          IntersectPos(a, na, b, nb, [&](int, int, int32_t x) { GlobalAdd128(out, x, 1); });
      if (LaneId() == 0 && c > 0) {
        GlobalAdd128(out, path[0], static_cast<u64>(c));
        GlobalAdd128(out, w, static_cast<u64>(c));
      }
      return;
    }
    // Positions pos_base + pos are distinct within one call, and differ from
    // pos_base - 1 (w), which lane 0 updates after the call's __syncwarp.
    uint32_t* acc_a = acc + pos_base;
    const int c = IntersectPos(a, na, b, nb, [&](int, int pos, int32_t) { acc_a[pos] += 1u; });
    if (LaneId() == 0) acc[pos_base - 1] += static_cast<uint32_t>(c);
    total += static_cast<u64>(c);
    __syncwarp();
  }

  __device__ void NodeDone(const int32_t* L, int n) {
    const int lane = LaneId();
    for (int j = lane; j < n; j += kWarp) {
      const uint32_t v = acc[j];
      if (v != 0u) {
        GlobalAdd128(out, L[j], v);
        acc[j] = 0u;
      }
    }
    if (total != 0) {
      for (int j = lane; j < k - 2; j += kWarp) GlobalAdd128(out, path[j], total);
    }
    total = 0;
    __syncwarp();
  }

  __device__ void Finish() {}
};

// All k-cliques whose two lowest vertices are u < v (u -> v a DAG edge).
template <typename Sink>
__device__ void RunTask(const DagView& g, int32_t u, int32_t v, int k, const ArenaLayout& lay,
                        int32_t* arena, Sink& sink, const volatile int* stop) {
  const int lane = LaneId();
  int32_t* path = arena + lay.path;
  if (lane == 0) {
    path[0] = u;
    path[1] = v;
  }
  __syncwarp();
  if (k == 3) {
    sink.Leaf(v, g.Row(u), g.Degree(u), g.Row(v), g.Degree(v), 0);
    sink.NodeDone(nullptr, 0);
    return;
  }
  int32_t* frames = arena + lay.frames;
  int32_t* fidx = arena + lay.fidx;
  int32_t* fn = arena + lay.fn;
  const int64_t D = lay.D;
  int n = IntersectPos(g.Row(u), g.Degree(u), g.Row(v), g.Degree(v),
                       [&](int r, int, int32_t x) { frames[r] = x; });
  if (2 + n < k) return;
  // The node at frame f has s = 2 + f fixed vertices and candidates
  // frames[f][0, n); idx is its next candidate to expand.
  int f = 0, idx = 0;
  while (true) {
    if (Stopped(stop)) return;
    const int s = 2 + f;
    const bool leaf = s == k - 2;
    const int32_t* cur = frames + f * D;
    if (idx + (k - s) > n) {  // no later candidate can reach k: node done
      if (leaf) sink.NodeDone(cur, n);
      if (f == 0) return;
      --f;
      idx = fidx[f];
      n = fn[f];
      continue;
    }
    const int32_t w = cur[idx];
    // path[s] is read (as part of a prefix) only after later __syncwarps.
    if (lane == 0) path[s] = w;
    if (leaf) {
      sink.Leaf(w, cur + idx + 1, n - idx - 1, g.Row(w), g.Degree(w), idx + 1);
      ++idx;
      continue;
    }
    int32_t* child = frames + (f + 1) * D;
    const int c = IntersectPos(cur + idx + 1, n - idx - 1, g.Row(w), g.Degree(w),
                               [&](int r, int, int32_t x) { child[r] = x; });
    ++idx;
    if (s + 1 + c >= k) {  // enter the child node (frame f + 1 <= k - 4 exists)
      if (lane == 0) {
        fidx[f] = idx;
        fn[f] = n;
      }
      __syncwarp();
      ++f;
      idx = 0;
      n = c;
    }
  }
}

template <bool kPerVertex>
__global__ void __launch_bounds__(kMaxThreads) ListDfsKernel(ListArgs a) {
  const int warps_per_block = blockDim.x / kWarp;
  const int64_t warp = static_cast<int64_t>(blockIdx.x) * warps_per_block + (threadIdx.x / kWarp);
  int32_t* arena = a.arenas + warp * a.lay.words;
  const int k = a.k;
  const volatile int* stop = (!kPerVertex && a.stop_when_full) ? a.stop : nullptr;
  using Sink = typename std::conditional<kPerVertex, VertexSink, ListSink>::type;
  Sink sink;
  if constexpr (kPerVertex) {
    sink.acc = reinterpret_cast<uint32_t*>(arena + a.lay.acc);
    sink.path = arena + a.lay.path;
    sink.k = k;
    sink.D = a.lay.D;
    sink.out = a.out;
  } else {
    sink.st_c = arena + a.lay.st_c;
    sink.st_w = arena + a.lay.st_w;
    sink.st_p = arena + a.lay.st_p;
    sink.ptab = arena + a.lay.ptab;
    sink.path = arena + a.lay.path;
    sink.k = k;
    sink.S = a.lay.S;
    sink.P = a.lay.P;
    sink.D = a.lay.D;
    sink.cliques = a.cliques;
    sink.capacity = a.capacity;
    sink.count = a.out;
    sink.stop = a.stop;
    sink.stop_when_full = a.stop_when_full;
  }
  sink.Init();
  for (int t = PullTask(a.task_counter); t < a.num_tasks; t = PullTask(a.task_counter)) {
    if (Stopped(stop)) break;
    // Keys descend: once a task cannot hold a k-clique, no later one can
    // (padding and invalid ids have key 0 < k - 2).
    if (static_cast<int64_t>(a.keys[t]) + 2 < k) break;
    const int32_t e = a.tasks[t];
    RunTask(a.g, a.g.src[e], a.g.indices[e], k, a.lay, arena, sink, stop);
  }
  sink.Finish();
}

// Pre-pass: one warp per task (grid-stride). keys[i] = d (0 for padding),
// vals[i] = the edge id; stats collects max d, tasks with d >= k - 2 and one
// invalid task id.
__global__ void __launch_bounds__(kPrepassWarps* kWarp)
    ListPrepassKernel(DagView g, const int32_t* tasks, int64_t num_tasks, int k, uint32_t* keys,
                      int32_t* vals, ListStats* stats) {
  const int lane = LaneId();
  const int64_t warps = static_cast<int64_t>(gridDim.x) * kPrepassWarps;
  int max_d = 0, viable = 0;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * kPrepassWarps + threadIdx.x / kWarp;
       i < num_tasks; i += warps) {
    const int32_t e = tasks[i];
    int d = 0;
    if (e >= 0 && e < g.num_edges) {
      const int32_t u = g.src[e], v = g.indices[e];
      d = IntersectPos(g.Row(u), g.Degree(u), g.Row(v), g.Degree(v), [](int, int, int32_t) {});
      max_d = max(max_d, d);
      viable += d + 2 >= k ? 1 : 0;
    } else if (e != -1 && lane == 0) {
      if (atomicCAS(&stats->bad_task, 0, static_cast<int>(i + 1)) == 0) stats->bad_task_value = e;
    }
    if (lane == 0) {
      keys[i] = static_cast<uint32_t>(d);
      vals[i] = e;
    }
  }
  if (lane == 0) {
    if (max_d > 0) atomicMax(&stats->max_d, max_d);
    if (viable > 0) atomicAdd(&stats->num_viable, viable);
  }
}

// The pre-pass's scratch is the shared task stage's (kcjax/cuda/tasks.h);
// its header holds [stats | task counter | stop].
constexpr size_t kStatsOffset = 0;
constexpr size_t kCounterOffset = sizeof(ListStats);
constexpr size_t kStopOffset = kCounterOffset + sizeof(int);
static_assert(kStopOffset + sizeof(int) <= kTaskHeaderBytes, "the header fits the task stage's");

}  // namespace

const ListStats* ListPrepassStats(const void* scratch) {
  return TaskLayout::At<ListStats>(scratch, kStatsOffset);
}

cudaError_t LaunchListPrepass(const ListProblem& p, void* scratch, int num_sms,
                              cudaStream_t stream) {
  const TaskLayout l = TaskLayout::Make(p.num_tasks);
  cudaError_t err = cudaMemsetAsync(scratch, 0, kTaskHeaderBytes, stream);  // stats, counter, stop
  if (err != cudaSuccess) return err;
  if (p.per_vertex) {
    err = cudaMemsetAsync(p.counts, 0, static_cast<size_t>(p.dag.num_nodes) * 4 * sizeof(uint32_t),
                          stream);
  } else {
    err = cudaMemsetAsync(p.counts, 0, 4 * sizeof(uint32_t), stream);
    if (err == cudaSuccess && p.capacity > 0) {
      err = cudaMemsetAsync(p.cliques, 0xFF,
                            static_cast<size_t>(p.capacity) * p.k * sizeof(int32_t), stream);
    }
  }
  if (err != cudaSuccess || p.num_tasks == 0) return err;
  const int64_t want = CeilDiv(p.num_tasks, kPrepassWarps);
  const int blocks = static_cast<int>(std::max<int64_t>(
      1, std::min<int64_t>(want, int64_t{num_sms} * Policy::kListPrepassBlocksPerSm)));
  ListPrepassKernel<<<blocks, kPrepassWarps * kWarp, 0, stream>>>(
      p.dag, p.tasks, p.num_tasks, p.k, TaskLayout::At<uint32_t>(scratch, l.keys_in),
      TaskLayout::At<int32_t>(scratch, l.vals_in),
      TaskLayout::At<ListStats>(scratch, kStatsOffset));
  return cudaGetLastError();
}

cudaError_t PlanList(const ListProblem& p, const ListStats& stats, int num_sms, ListPlan* plan) {
  *plan = ListPlan{};
  plan->max_d = stats.max_d;
  if (stats.num_viable <= 0 || stats.max_d + 2 < p.k) return cudaSuccess;  // no k-clique
  const ArenaLayout lay = ArenaLayout::Make(p.k, stats.max_d, p.per_vertex);
  plan->arena_words = static_cast<size_t>(lay.words);
  const int64_t arena_bytes = lay.words * static_cast<int64_t>(sizeof(int32_t));
  int per_sm = 0;
  cudaError_t err = p.per_vertex ? cudaOccupancyMaxActiveBlocksPerMultiprocessor(
                                       &per_sm, ListDfsKernel<true>, kMaxThreads, 0)
                                 : cudaOccupancyMaxActiveBlocksPerMultiprocessor(
                                       &per_sm, ListDfsKernel<false>, kMaxThreads, 0);
  if (err != cudaSuccess) return err;
  if (per_sm < 1) return cudaErrorInvalidConfiguration;
  const int64_t resident = int64_t{num_sms} * per_sm * Policy::kListWarpsPerBlock;
  const int64_t fit = std::max<int64_t>(1, Policy::kListArenaBudgetBytes / arena_bytes);
  const int64_t warps = std::max<int64_t>(
      1, std::min<int64_t>({resident, fit, static_cast<int64_t>(stats.num_viable)}));
  plan->warps_per_block = static_cast<int>(std::min<int64_t>(warps, Policy::kListWarpsPerBlock));
  plan->blocks = static_cast<int>(CeilDiv(warps, plan->warps_per_block));
  plan->scratch_bytes =
      static_cast<size_t>(plan->blocks) * plan->warps_per_block * static_cast<size_t>(arena_bytes);
  return cudaSuccess;
}

cudaError_t LaunchList(const ListProblem& p, const ListPlan& plan, void* pre, void* arena,
                       cudaStream_t stream) {
  if (plan.blocks == 0) return cudaSuccess;
  const TaskLayout l = TaskLayout::Make(p.num_tasks);
  // Sort only the significant bits of the keys (all keys <= max_d).
  cudaError_t err = SortTasksDescending(pre, l, nullptr, p.num_tasks,
                                        TaskKeyBits(static_cast<uint32_t>(plan.max_d)), stream);
  if (err != cudaSuccess) return err;
  ListArgs a;
  a.g = p.dag;
  a.tasks = TaskLayout::At<const int32_t>(pre, l.vals_out);
  a.keys = TaskLayout::At<const uint32_t>(pre, l.keys_out);
  a.num_tasks = static_cast<int>(p.num_tasks);
  a.k = p.k;
  a.task_counter = TaskLayout::At<int>(pre, kCounterOffset);
  a.stop = TaskLayout::At<int>(pre, kStopOffset);
  a.stop_when_full = p.stop_when_full;
  a.cliques = p.cliques;
  a.capacity = static_cast<u64>(p.capacity);
  a.out = reinterpret_cast<u64*>(p.counts);
  a.arenas = static_cast<int32_t*>(arena);
  a.lay = ArenaLayout::Make(p.k, plan.max_d, p.per_vertex);
  const int threads = plan.warps_per_block * kWarp;
  if (p.per_vertex) {
    ListDfsKernel<true><<<plan.blocks, threads, 0, stream>>>(a);
  } else {
    ListDfsKernel<false><<<plan.blocks, threads, 0, stream>>>(a);
  }
  return cudaGetLastError();
}

}  // namespace kcjax::cliques
