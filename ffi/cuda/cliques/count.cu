// CUDA k-clique counting kernels (KCMiner) and their
// host launchers. The FFI handler lives in count_cuda.cc.
//
// Terminology used throughout:
//   task        a DAG edge e = (u, v); its candidate set C = N+(u) ∩ N+(v),
//               sorted, d = |C|. Level = number of fixed vertices (C: level 2).
//   node        a clique S (s = |S| vertices) with its candidate bitmap/list;
//               it contributes popcount(candidates) to counts[s + 1].
//   bitmap      row i of a bitmap space over a sorted list X (d = |X|) has bit
//               j set iff X[i] -> X[j]; rows are strictly upper triangular
//               (u -> v iff u < v), W = ceil(d / 32) words per row.
//   arena       per-warp scratch (global, or shared when small) holding
//               candidate lists, bitmap spaces and the scheduler stack.
// All counters are exact: per-warp uint64 in shared memory, spilled into the
// 128-bit output with a carry whenever they would wrap.
//
// Layout: count_base.cuh (constants, exact counters) -> build.cuh (bitmap
// construction) -> engine.cuh (the warp scheduler and fused levels, arena
// layouts) -> solve.cuh (the size-class kernels) -> shallow.cuh (shallow
// path, pre-pass) -> heavy.cuh (heavy split); this file: host planning and
// launches. The headers hold device code private to this translation unit.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cub/device/device_scan.cuh>
#include <mutex>
#include <vector>

#include "heavy.cuh"
#include "kcjax/cliques/count_cuda.h"
#include "kcjax/cuda/limits.h"
#include "kcjax/cuda/streams.h"
#include "kcjax/cuda/tasks.h"

namespace kcjax::cliques {
namespace {

cudaError_t LastError() { return cudaGetLastError(); }

// Bits of the pre-pass keys the radix sort looks at. Keys are <= max(num_nodes,
// num_edges) (a degree or an intersection size); with a max_degree hint they
// are <= max_degree, which on real graphs leaves one 8-bit sort pass instead
// of three. A key above the hint sets TaskClasses::key_overflow.
int KeyBits(const CountProblem& p, bool full) {
  const int all = TaskKeyBits(static_cast<uint64_t>(std::max(p.dag.num_nodes, p.dag.num_edges)));
  if (full || p.max_degree < 0) return all;
  return std::min(all, TaskKeyBits(static_cast<uint64_t>(p.max_degree)));
}

// Occupancy of a persistent kernel. The dynamic shared memory limit is set to
// the device maximum (not to this call's need) so that concurrent handlers
// with different kmax never race on the function attribute. Results are
// memoized per (device, kernel, shared memory): the attribute and occupancy
// queries cost host time between the pre-pass and the solve kernels of every
// call, which shows as a device gap on small graphs.
template <typename Kernel>
cudaError_t MaxBlocks(Kernel k, size_t smem, int* blocks_per_sm) {
  struct Entry {
    int dev;
    const void* fn;
    size_t smem;
    int blocks;
  };
  static std::mutex mu;
  static std::vector<Entry> cache;
  int dev = 0, optin = 0;
  cudaError_t err = cudaGetDevice(&dev);
  if (err != cudaSuccess) return err;
  const void* fn = reinterpret_cast<const void*>(k);
  {
    std::lock_guard<std::mutex> lock(mu);
    for (const Entry& e : cache) {
      if (e.dev == dev && e.fn == fn && e.smem == smem) {
        *blocks_per_sm = e.blocks;
        return cudaSuccess;
      }
    }
  }
  err = cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev);
  if (err != cudaSuccess) return err;
  cudaFuncAttributes attr;
  err = cudaFuncGetAttributes(&attr, k);
  if (err != cudaSuccess) return err;
  const int limit = optin - static_cast<int>(attr.sharedSizeBytes);
  if (static_cast<int64_t>(smem) > limit) return cudaErrorInvalidConfiguration;
  err = cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, limit);
  if (err != cudaSuccess) return err;
  err = cudaOccupancyMaxActiveBlocksPerMultiprocessor(blocks_per_sm, k, kThreads, smem);
  if (err != cudaSuccess) return err;
  if (*blocks_per_sm < 1) return cudaErrorInvalidConfiguration;
  std::lock_guard<std::mutex> lock(mu);
  cache.push_back(Entry{dev, fn, smem, *blocks_per_sm});
  return cudaSuccess;
}

// KCMiner at kmax == 4 counts its small tasks (|C| < kSmallTaskMax) in the
// pre-pass, which already holds their C in shared memory: their 4-cliques
// are the edges of a one-word bitmap space, tested by flattened pair probes
// (CountPairs) as in the shallow kernel, up to kPrepassPairBudget pairs per
// batch of 32 tasks. The small-task kernel gets only the rest.
bool PrepassCountsSmall(const CountProblem& p) { return p.kmax == 4 && p.method == kKCMiner; }

}  // namespace

bool UseShallowPath(const CountProblem& p) {
  // The list-based shallow kernel is the kBinarySearch baseline at kmax == 4.
  // KCMiner takes it at kmax == 4 only when the caller's max_degree hint says
  // every candidate set is small (|C| <= max out-degree - 1 < kSmallTaskMax):
  // the one kernel then spares the pre-pass, sort and host read-back, and
  // counts each task's one-word bitmap space by flattened pair probes
  // (CountPairs): 2-7x faster on sparse graphs. Above a max out-degree of
  // kSmallTaskMax its warps take their 32 tasks strided over the task list
  // (ShallowTaskStrided), so that a dense region's consecutive edges spread
  // over warps; above kShallowMaxDegree the general path is kept
  // (docs/tuning.md). kmax == 3 ends after the pre-pass, which adds counts[3].
  if (p.kmax != 4) return false;
  if (p.method == kBinarySearch) return true;
  return p.method == kKCMiner && p.max_degree >= 0 && p.max_degree <= Policy::kShallowMaxDegree;
}

namespace {
// Consecutive tasks per warp keep the task loads coalesced where every
// candidate set fits one word (sparse graphs: com-amazon 1.6x faster than
// strided); strided ones balance the dense regions of larger ones.
bool ShallowTaskStrided(const CountProblem& p) {
  return p.method == kKCMiner && p.max_degree > Policy::kSmallTaskMax;
}
}  // namespace

size_t ShallowScratchBytes() { return kScratchAlign; }

cudaError_t LaunchShallow(const CountProblem& p, void* scratch, int num_sms, cudaStream_t stream) {
  const size_t out_bytes = static_cast<size_t>(p.kmax + 1) * 16;
  cudaError_t err = cudaMemsetAsync(p.counts, 0, out_bytes, stream);
  if (err != cudaSuccess) return err;
  if (p.num_tasks == 0) return cudaSuccess;
  int* work = static_cast<int*>(scratch);  // batch counter
  err = cudaMemsetAsync(work, 0, sizeof(int), stream);
  if (err != cudaSuccess) return err;
  const size_t smem = ShallowSmemBytes();  // < 48 KiB: no opt-in attribute needed
  int bpm = 0;
  err = MaxBlocks(ShallowKernel, smem, &bpm);
  if (err != cudaSuccess) return err;
  const int64_t want = CeilDiv(CeilDiv(p.num_tasks, kWarp), Policy::kWarpsPerBlock);
  const int blocks = static_cast<int>(
      std::max<int64_t>(1, std::min<int64_t>(want, int64_t{std::max(bpm, 1)} * num_sms)));
  const DagView g = p.dag;
  // KCMiner counts the bits of each bitmap space (CountPairs); the
  // binary-search baseline intersects C with every N+(w) (CountAdjacent).
  const bool pairs = p.method == kKCMiner;
  ShallowKernel<<<blocks, kThreads, smem, stream>>>(g, p.tasks, p.num_tasks, p.kmax, pairs,
                                                    ShallowTaskStrided(p), work,
                                                    reinterpret_cast<u64*>(p.counts));
  return LastError();
}

bool UseSmallRoute(const CountProblem& p) {
  // KCMiner from kmax == 5 on when the hint says every candidate set is small
  // (|C| <= max out-degree - 1 < kSmallTaskMax): every task would land in the
  // small class, so the pre-pass, its sort and the class read-back (about
  // 0.1 ms of launches and waits on a small graph) only delay one kernel.
  return p.method == kKCMiner && p.kmax >= 5 && p.max_degree >= 0 &&
         p.max_degree <= Policy::kSmallTaskMax && p.num_tasks > 0;
}

size_t SmallRouteScratchBytes() { return kScratchAlign; }

cudaError_t LaunchSmallRoute(const CountProblem& p, void* scratch, int num_sms,
                             cudaStream_t stream) {
  const size_t out_bytes = static_cast<size_t>(p.kmax + 1) * 16;
  cudaError_t err = cudaMemsetAsync(p.counts, 0, out_bytes, stream);
  if (err != cudaSuccess) return err;
  int* work = static_cast<int*>(scratch);  // [0]: task counter, [1]: overflow flag
  if ((err = cudaMemsetAsync(work, 0, 2 * sizeof(int), stream)) != cudaSuccess) return err;
  const size_t smem = WarpSmemLayout::Make(p.kmax).Bytes() * Policy::kWarpsPerBlock;
  int bpm = 0;
  if ((err = MaxBlocks(SmallRouteKernel, smem, &bpm)) != cudaSuccess) return err;
  const int64_t want = CeilDiv(CeilDiv(p.num_tasks, kWarp), Policy::kWarpsPerBlock);
  const int blocks = static_cast<int>(std::clamp<int64_t>(want, 1, int64_t{bpm} * num_sms));
  SmallRouteKernel<<<blocks, kThreads, smem, stream>>>(p.dag, p.tasks,
                                                       static_cast<int>(p.num_tasks), p.kmax, work,
                                                       work + 1, reinterpret_cast<u64*>(p.counts));
  return LastError();
}

const int* SmallRouteOverflow(const void* scratch) { return static_cast<const int*>(scratch) + 1; }

cudaError_t LaunchPrepass(const CountProblem& p, void* scratch, int num_sms, cudaStream_t stream) {
  const size_t out_bytes = static_cast<size_t>(p.kmax + 1) * 16;
  cudaError_t err = cudaMemsetAsync(p.counts, 0, out_bytes, stream);
  if (err != cudaSuccess) return err;
  const TaskLayout l = TaskLayout::Make(p.num_tasks);
  auto* classes = TaskLayout::At<TaskClasses>(scratch, l.header);
  err = cudaMemsetAsync(classes, 0, sizeof(TaskClasses), stream);
  if (err != cudaSuccess) return err;
  if (p.num_tasks == 0) return cudaSuccess;
  const DagView g = p.dag;
  const size_t smem = ShallowSmemBytes();  // < 48 KiB: no opt-in attribute needed
  int bpm = 0;
  const auto kernel = PrepassCountsSmall(p) ? PrepassKernel<true> : PrepassKernel<false>;
  err = MaxBlocks(kernel, smem, &bpm);
  if (err != cudaSuccess) return err;
  const int64_t want = CeilDiv(CeilDiv(p.num_tasks, kWarp), Policy::kWarpsPerBlock);
  const int blocks = static_cast<int>(
      std::max<int64_t>(1, std::min<int64_t>(want, int64_t{std::max(bpm, 1)} * num_sms)));
  // With a hint, a key above it is flagged (the radix sort then lacks bits,
  // and a device-bounds plan sized its arenas for keys up to the hint).
  uint64_t key_limit = uint64_t{1} << KeyBits(p, /*full=*/false);
  if (p.max_degree >= 0) key_limit = std::min<uint64_t>(key_limit, uint64_t(p.max_degree) + 1);
  kernel<<<blocks, kThreads, smem, stream>>>(g, p.tasks, p.num_tasks, p.kmax, p.method, key_limit,
                                             TaskLayout::At<uint32_t>(scratch, l.keys_in),
                                             TaskLayout::At<int32_t>(scratch, l.vals_in), classes,
                                             reinterpret_cast<u64*>(p.counts));
  if ((err = LastError()) != cudaSuccess) return err;
  if (p.kmax < 4) return cudaSuccess;  // classes stay empty
  return LaunchSortClasses(p, scratch, /*full_keys=*/false, stream);
}

static_assert(Policy::kSmallTaskMax <= Policy::kHeavySplitMinDim &&
                  Policy::kHeavySplitMinDim <= Policy::kWarpTaskMax &&
                  Policy::kSmallTaskMax <= Policy::kHeavySplitDeepMinDim &&
                  Policy::kHeavySplitDeepMinDim <= Policy::kWarpTaskMax,
              "heavy tasks are medium tasks");
static_assert(offsetof(TaskClasses, large_end) == 4 && offsetof(TaskClasses, medium_end) == 8 &&
                  offsetof(TaskClasses, small_end) == 12 && offsetof(TaskClasses, heavy_end) == 16,
              "the class ends are consecutive, in the order of the bounds below");

cudaError_t LaunchSortClasses(const CountProblem& p, void* scratch, bool full_keys,
                              cudaStream_t stream) {
  const TaskLayout l = TaskLayout::Make(p.num_tasks);
  cudaError_t err =
      SortTasksDescending(scratch, l, nullptr, p.num_tasks, KeyBits(p, full_keys), stream);
  if (err != cudaSuccess) return err;
  ClassBounds bounds;
  bounds.num = 5;  // huge, large, medium, small and heavy-split ends (TaskClasses)
  bounds.at_most[0] = Policy::kMaxBitmapDim;
  bounds.at_most[1] = Policy::kWarpTaskMax;
  bounds.at_most[2] = Policy::kSmallTaskMax - 1;
  bounds.at_most[3] = 0;
  bounds.at_most[4] = static_cast<uint32_t>(Policy::HeavySplitMinDim(p.kmax)) - 1;
  auto* classes = TaskLayout::At<TaskClasses>(scratch, l.header);
  return LaunchTaskClasses(TaskLayout::At<const uint32_t>(scratch, l.keys_out), p.num_tasks, bounds,
                           &classes->huge_end, &classes->max_key, stream);
}

// KCMiner never builds at level 2 when λ(kmax, 2) >= 1/2 (γ < 1/2 in a
// strictly upper triangular space): medium tasks are split into level-3 units.
bool SplitsLevel3(const CountProblem& p) {
  const float lambda2 = p.lam >= 0.f ? p.lam : Policy::Lambda(p.kmax, 2);
  return p.method == kKCMiner && p.kmax >= 5 && lambda2 >= 0.5f;
}

bool UseDeviceBounds(const CountProblem& p) {
  if (p.max_degree < 0 || p.kmax < 4 || p.kmax > Policy::kDeviceBoundsMaxK ||
      Policy::HeavySplit(p.kmax) || SplitsLevel3(p) || p.num_tasks <= 0) {
    return false;
  }
  // Arenas sized from the hint, not from the largest key, must stay small:
  // only the medium and small classes (hint <= kWarpTaskMax), with the
  // medium kernel's arenas in shared memory (no global arena). Larger hints
  // (keys are intersection sizes, often far below the largest out-degree)
  // keep the read-back plan.
  if (p.max_degree > Policy::kWarpTaskMax) return false;
  const ArenaLayout al =
      ArenaLayout::Make(p.max_degree, p.kmax, UsesLevel3(p.method, p.kmax, p.lam, false));
  return al.words * 4 * Policy::kWarpsPerBlock <= Policy::kSmemArenaBytes;
}

cudaError_t PlanSolve(const CountProblem& p, const TaskClasses* classes, int num_sms,
                      SolvePlan* plan) {
  *plan = SolvePlan{};
  plan->num_sms = num_sms;
  plan->device_bounds = classes == nullptr;
  if (p.kmax < 4) return cudaSuccess;
  if (classes != nullptr && classes->small_end <= 0) return cudaSuccess;
  const int m = p.method;
  // Device bounds: every key is <= the hint (the pre-pass flags key_overflow
  // otherwise, and the kernels then run no task).
  const int maxk = classes != nullptr ? classes->max_key : p.max_degree;
  const int64_t warp_smem = WarpSmemLayout::Make(p.kmax).Bytes();
  const int64_t base_smem = warp_smem * Policy::kWarpsPerBlock;

  // Ranges per kernel, as fields of TaskClasses (0 huge_end, 1 large_end,
  // 2 medium_end, 3 small_end; -1: zero).
  const int fields[3][4][2] = {
      {{-1, 3}, {-1, -1}, {-1, -1}, {-1, -1}},  // binary search: the list kernel
      {{-1, 0}, {0, 1}, {1, 2}, {2, 3}},        // KCMiner, static-L2: every class
      {{-1, 0}, {-1, -1}, {0, 3}, {-1, -1}},    // other bitmap baselines
  };
  const int row = m == kBinarySearch ? 0 : (m == kKCMiner || m == kStaticBitmapL2) ? 1 : 2;
  // Smallest key of each class (huge, large, medium, small): a class is
  // planned under device bounds when the hint reaches it.
  const int class_min_key[4] = {Policy::kMaxBitmapDim + 1, Policy::kWarpTaskMax + 1,
                                Policy::kSmallTaskMax, 1};
  for (int k = 0; k < 4; ++k) {
    const int bf = fields[row][k][0], ef = fields[row][k][1];
    if (ef < 0) continue;
    plan->begin_field[k] = bf;
    plan->end_field[k] = ef;
    if (classes != nullptr) {
      const int32_t at[4] = {classes->huge_end, classes->large_end, classes->medium_end,
                             classes->small_end};
      plan->begin[k] = bf < 0 ? 0 : at[bf];
      plan->end[k] = at[ef];
    } else {
      // The range's smallest keys are those of its last class (ef): it can
      // hold tasks only if the hint reaches them. Its size is unknown: the
      // number of tasks bounds it (grids are capped by occupancy anyway).
      plan->begin[k] = 0;
      plan->end[k] = maxk >= class_min_key[ef] ? p.num_tasks : 0;
    }
  }
  // The largest key of a range is the key of its first task (descending);
  // bounded by the class limit (the host only knows the overall maximum).
  plan->dim[0] = maxk;
  plan->dim[1] = std::min(maxk, Policy::kMaxBitmapDim);
  plan->dim[2] = (m == kKCMiner || m == kStaticBitmapL2) ? std::min(maxk, Policy::kWarpTaskMax)
                                                         : std::min(maxk, Policy::kMaxBitmapDim);
  plan->dim[3] = Policy::kSmallTaskMax;

  // Heavy-task split: the largest medium tasks (as many slots as the budget
  // holds) leave the medium kernel.
  if (m == kKCMiner && Policy::HeavySplit(p.kmax) && classes != nullptr &&
      classes->heavy_end > classes->large_end) {
    const int dim = std::min(maxk, Policy::kWarpTaskMax);
    const int64_t slot_bytes = HeavySlot::Make(dim).words * 4;
    const int64_t nh = std::min<int64_t>(classes->heavy_end - classes->large_end,
                                         Policy::kHeavySlotBudgetBytes / slot_bytes);
    if (nh > 0) {
      plan->heavy_begin = classes->large_end;
      plan->heavy_end = classes->large_end + nh;
      plan->heavy_dim = dim;
      plan->heavy_slot_bytes = static_cast<size_t>(slot_bytes);
      plan->begin[2] = plan->heavy_end;
      cudaError_t e = cub::DeviceScan::InclusiveSum(
          nullptr, plan->heavy_scan_bytes, static_cast<int64_t*>(nullptr),
          static_cast<int64_t*>(nullptr), static_cast<int>(nh));
      if (e != cudaSuccess) return e;
    }
  }

  const int64_t n_medium = plan->end[2] - plan->begin[2];
  if (SplitsLevel3(p) && n_medium > 0) {
    plan->split3 = true;
    plan->split_scan_bytes = 0;
    cudaError_t e = cub::DeviceScan::InclusiveSum(
        nullptr, plan->split_scan_bytes, static_cast<int64_t*>(nullptr),
        static_cast<int64_t*>(nullptr), static_cast<int>(n_medium));
    if (e != cudaSuccess) return e;
  }
  size_t total = 256;  // work counters
  if (plan->split3) {
    total += RoundUp(n_medium * 8, kScratchAlign) +
             RoundUp(static_cast<int64_t>(plan->split_scan_bytes), kScratchAlign);
  }
  cudaError_t err;
  if (plan->heavy_end > plan->heavy_begin) {
    const int64_t nh = plan->heavy_end - plan->heavy_begin;
    size_t smem = base_smem;
    const int64_t arena_block =
        HeavyArena::Make(plan->heavy_dim, p.kmax).words * 4 * Policy::kWarpsPerBlock;
    int64_t per_block = 0;  // global arena bytes per block
    if (arena_block <= Policy::kSmemArenaBytes) {
      smem += arena_block;
    } else {
      per_block = arena_block;
    }
    int bpm = 0;
    if ((err = MaxBlocks(HeavyKernel, smem, &bpm)) != cudaSuccess) return err;
    int64_t blocks = int64_t{bpm} * num_sms;
    if (per_block > 0)
      blocks =
          std::min<int64_t>(blocks, std::max<int64_t>(1, Policy::kArenaBudgetBytes / per_block));
    plan->heavy_blocks = static_cast<int>(std::max<int64_t>(blocks, 1));
    plan->heavy_smem = smem;
    plan->heavy_arena_bytes = static_cast<size_t>(per_block * plan->heavy_blocks);
    plan->heavy_build_blocks = static_cast<int>(
        std::min<int64_t>(CeilDiv(nh, Policy::kWarpsPerBlock), int64_t{32} * num_sms));
    total += RoundUp(nh * 8, kScratchAlign) +
             RoundUp(static_cast<int64_t>(plan->heavy_scan_bytes), kScratchAlign) +
             RoundUp(nh * static_cast<int64_t>(plan->heavy_slot_bytes), kScratchAlign) +
             RoundUp(static_cast<int64_t>(plan->heavy_arena_bytes), kScratchAlign);
  }
  for (int k = 0; k < 4; ++k) {
    const int64_t n = plan->end[k] - plan->begin[k];
    if (n <= 0) continue;
    int bpm = 0;
    int64_t warps_per_block = Policy::kWarpsPerBlock;
    int64_t per_unit = 0;  // arena bytes per block
    size_t smem = base_smem;
    int64_t want_blocks = 0;
    if (k == 0) {
      err = MaxBlocks(SortedListKernel, smem, &bpm);
      per_unit = ListLayout::Make(plan->dim[0], p.kmax).words * 4 * warps_per_block;
      want_blocks = CeilDiv(n, warps_per_block);
    } else if (k == 1) {
      err = MaxBlocks(BlockKernel, smem, &bpm);
      const int d = plan->dim[1], W = WordsFor(d);
      const int levels = std::max(0, std::min(p.kmax - 5, d - 2));
      const int64_t block_words = RoundUp(d, 4) + RoundUp(int64_t{d} * W, 4);
      const int64_t warp_words = RoundUp(int64_t{levels} * kWarp * (W + 1), 4);
      per_unit = (block_words + warp_words * warps_per_block) * 4;
      want_blocks = n;
    } else if (k == 2) {
      const ArenaLayout al =
          ArenaLayout::Make(plan->dim[2], p.kmax, UsesLevel3(m, p.kmax, p.lam, plan->split3));
      const int64_t arena_block = al.words * 4 * warps_per_block;
      if (arena_block <= Policy::kSmemArenaBytes) {
        plan->arena_in_smem = true;
        smem += arena_block;
      } else {
        per_unit = arena_block;
      }
      err = MaxBlocks(WarpKernel, smem, &bpm);
      want_blocks = CeilDiv(n, warps_per_block);
    } else {
      err = MaxBlocks(SmallKernel, smem, &bpm);
      want_blocks = CeilDiv(n, warps_per_block);
    }
    if (err != cudaSuccess) return err;
    int64_t blocks = std::min<int64_t>(want_blocks, int64_t{bpm} * num_sms);
    if (per_unit > 0)
      blocks =
          std::min<int64_t>(blocks, std::max<int64_t>(1, Policy::kArenaBudgetBytes / per_unit));
    blocks = std::max<int64_t>(blocks, 1);
    plan->blocks[k] = static_cast<int>(blocks);
    plan->smem[k] = smem;
    plan->arena_bytes[k] = static_cast<size_t>(per_unit * blocks);
    total += RoundUp(static_cast<int64_t>(plan->arena_bytes[k]), kScratchAlign);
  }
  plan->scratch_bytes = total;
  return cudaSuccess;
}

cudaError_t LaunchSolve(const CountProblem& p, const SolvePlan& plan, const int32_t* sorted,
                        const uint32_t* sorted_keys, const TaskClasses* device_classes,
                        void* scratch, cudaStream_t stream) {
  if (plan.scratch_bytes == 0) return cudaSuccess;
  char* s = static_cast<char*>(scratch);
  int* work = reinterpret_cast<int*>(s);  // [0..3]: per-kernel task counters
  u64* split_work = reinterpret_cast<u64*>(s + 32);
  u64* heavy_work = reinterpret_cast<u64*>(s + 40);
  cudaError_t err = cudaMemsetAsync(work, 0, 64, stream);
  if (err != cudaSuccess) return err;
  // Side streams: the small-task kernel and the heavy-task split run beside
  // the medium and larger classes (which keep their heaviest-first order on
  // the caller's stream), so that the tail of one class overlaps the others
  // instead of idling the device before the next launch.
  // The heavy units start first (stream priority, see SideStream).
  const bool heavy = plan.heavy_end > plan.heavy_begin;
  const bool small = plan.blocks[3] > 0;
  const bool others = plan.blocks[0] + plan.blocks[1] + plan.blocks[2] > 0;
  StreamFork fork(stream);
  cudaStream_t small_stream = stream, heavy_stream = stream;
  if ((err = fork.Side(0, small && (others || heavy), &small_stream)) != cudaSuccess ||
      (err = fork.Side(1, heavy && (others || small) && p.kmax <= Policy::kHeavyOverlapMaxK,
                       &heavy_stream)) != cudaSuccess)
    return err;
  const DagView g = p.dag;
  u64* out = reinterpret_cast<u64*>(p.counts);
  size_t off = kScratchAlign;
  int64_t* split_prefix = nullptr;
  if (plan.split3) {
    const int n = static_cast<int>(plan.end[2] - plan.begin[2]);
    split_prefix = reinterpret_cast<int64_t*>(s + off);
    off += RoundUp(int64_t{n} * 8, kScratchAlign);
    void* temp = s + off;
    off += RoundUp(static_cast<int64_t>(plan.split_scan_bytes), kScratchAlign);
    const int blocks = static_cast<int>(
        std::min<int64_t>(CeilDiv(n, Policy::kElementwiseThreads), Policy::kElementwiseMaxBlocks));
    WidenKeysKernel<<<blocks, Policy::kElementwiseThreads, 0, stream>>>(sorted_keys + plan.begin[2],
                                                                        n, split_prefix);
    if ((err = LastError()) != cudaSuccess) return err;
    size_t temp_bytes = plan.split_scan_bytes;
    err = cub::DeviceScan::InclusiveSum(temp, temp_bytes, split_prefix, split_prefix, n, stream);
    if (err != cudaSuccess) return err;
  }
  if (heavy) {
    // Same scratch order as PlanSolve: prefix, scan temp, slots, arena.
    const int nh = static_cast<int>(plan.heavy_end - plan.heavy_begin);
    auto* prefix = reinterpret_cast<int64_t*>(s + off);
    off += RoundUp(int64_t{nh} * 8, kScratchAlign);
    void* temp = s + off;
    off += RoundUp(static_cast<int64_t>(plan.heavy_scan_bytes), kScratchAlign);
    auto* slots = reinterpret_cast<uint32_t*>(s + off);
    off += RoundUp(int64_t{nh} * static_cast<int64_t>(plan.heavy_slot_bytes), kScratchAlign);
    uint32_t* harena = nullptr;
    if (plan.heavy_arena_bytes > 0) {
      harena = reinterpret_cast<uint32_t*>(s + off);
      off += RoundUp(static_cast<int64_t>(plan.heavy_arena_bytes), kScratchAlign);
    }
    const bool level4 = p.kmax >= Policy::kHeavyLevel4MinK;
    HeavyBuildKernel<<<plan.heavy_build_blocks, kThreads, 0, heavy_stream>>>(
        g, sorted + plan.heavy_begin, nh, plan.heavy_dim, level4, slots, prefix, out);
    if ((err = LastError()) != cudaSuccess) return err;
    size_t temp_bytes = plan.heavy_scan_bytes;
    err = cub::DeviceScan::InclusiveSum(temp, temp_bytes, prefix, prefix, nh, heavy_stream);
    if (err != cudaSuccess) return err;
    // The medium class waits for the slots (a short kernel), so that the
    // heavy units and the medium tasks become ready together and the
    // higher-priority heavy units take the device first: heaviest first.
    if ((err = fork.Await(1)) != cudaSuccess) return err;
    HeavyKernel<<<plan.heavy_blocks, kThreads, plan.heavy_smem, heavy_stream>>>(
        nh, plan.heavy_dim, p.kmax, level4, slots, prefix, heavy_work, out, harena);
    if ((err = LastError()) != cudaSuccess) return err;
  }
  void* arena[4] = {nullptr, nullptr, nullptr, nullptr};
  for (int k = 0; k < 4; ++k) {
    if (plan.blocks[k] == 0 || plan.arena_bytes[k] == 0) continue;
    arena[k] = s + off;
    off += RoundUp(static_cast<int64_t>(plan.arena_bytes[k]), kScratchAlign);
  }
  for (int k = 0; k < 4 && err == cudaSuccess; ++k) {
    if (plan.blocks[k] == 0) continue;
    const TaskSpan t{sorted,
                     plan.device_bounds ? device_classes : nullptr,
                     plan.begin_field[k],
                     plan.end_field[k],
                     static_cast<int>(plan.begin[k]),
                     static_cast<int>(plan.end[k])};
    switch (k) {
      case 0:
        SortedListKernel<<<plan.blocks[k], kThreads, plan.smem[k], stream>>>(
            g, t, p.kmax, plan.dim[k], work + k, out, static_cast<int32_t*>(arena[k]));
        break;
      case 1:
        BlockKernel<<<plan.blocks[k], kThreads, plan.smem[k], stream>>>(
            g, t, p.kmax, plan.dim[k], work + k, out, static_cast<uint32_t*>(arena[k]));
        break;
      case 2:
        WarpKernel<<<plan.blocks[k], kThreads, plan.smem[k], stream>>>(
            g, t, p.kmax, p.method, p.lam, plan.dim[k], work + k, out,
            plan.arena_in_smem ? nullptr : static_cast<uint32_t*>(arena[k]), split_prefix,
            split_work);
        break;
      default:
        SmallKernel<<<plan.blocks[k], kThreads, plan.smem[k], small_stream>>>(g, t, p.kmax,
                                                                              work + k, out);
        break;
    }
    err = LastError();
  }
  const cudaError_t join = fork.Join();
  return err != cudaSuccess ? err : join;
}

cudaError_t CopyClassesAsync(const void* prepass_scratch, TaskClasses* host, cudaEvent_t done,
                             cudaStream_t stream) {
  cudaStream_t side = nullptr;
  cudaEvent_t ready = nullptr;
  cudaError_t err = SideStream(&side);
  if (err == cudaSuccess) err = cudaEventCreateWithFlags(&ready, cudaEventDisableTiming);
  if (err != cudaSuccess) return err;
  if ((err = cudaEventRecord(ready, stream)) == cudaSuccess &&
      (err = cudaStreamWaitEvent(side, ready, 0)) == cudaSuccess &&
      (err = cudaMemcpyAsync(host, CountClasses(prepass_scratch), sizeof(TaskClasses),
                             cudaMemcpyDeviceToHost, side)) == cudaSuccess) {
    err = cudaEventRecord(done, side);
  }
  cudaEventDestroy(ready);  // released once the side stream has waited on it
  return err;
}

}  // namespace kcjax::cliques
