// Tuning constants and strategy names shared by the CPU and CUDA handlers.
//
// Every tunable number of the clique kernels lives in CliquePolicy; nothing
// else in ffi/ hard-codes a threshold.
#pragma once

#include <cstdint>

#include "kcjax/core/config.h"

namespace kcjax::cliques {

// Counting strategies, selectable from Python (kcjax.cliques.METHODS). All of
// them return identical counts; they differ only in how candidate sets are
// intersected and scheduled, for ablation studies.
enum class CountMethod : int32_t {
  kKCMiner = 0,         // dynamic bitmap construction (γ vs λ) + warp scheduler
  kBinarySearch = 1,    // sorted-list intersection at every level (G2Miner-like)
  kStaticBitmapL1 = 2,  // bitmap space over N+(v0), built once per root vertex
  kStaticBitmapL2 = 3,  // bitmap space over the edge task's candidate set
  kWarpBitmap = 4,      // warp walks one row, splits each AND (GraphFold-like)
  kThreadBitmap = 5,    // one lane per bit, no scheduler (KCGPU-like)
};
inline constexpr int32_t kNumCountMethods = 6;

// Not a tuning constant: tags a pivot in a frame's `added` entry of the
// per-vertex pivot walk (held vertices are untagged), CPU and CUDA alike.
inline constexpr int kPivotTag = 1 << 30;

struct CliquePolicy {
  // Task-size classes (candidate-set size of an edge task), as in KCMiner.
  static constexpr int kSmallTaskMax = 32;   // < 32: one 32-bit word per row
  static constexpr int kWarpTaskMax = 1024;  // 32..1024: one warp per task
  // Largest candidate set a bitmap space is built over. Larger sets keep
  // intersecting sorted lists until they shrink below it (no degree limit).
  static constexpr int kMaxBitmapDim = 8192;
  // CUDA launch shape.
  static constexpr int kWarpsPerBlock = 8;
  static constexpr int kMaxLevels = 64;  // deepest bitmap stack kept on chip
  // CUDA resource limits (added with the CUDA kernels).
  // Per-warp 64-bit clique counters kept in shared memory for sizes
  // 0..kMaxCountSlots-1; larger sizes are added to the output atomically.
  static constexpr int kMaxCountSlots = 64;
  // The scheduler's last expanded level is fused into the level above it
  // when bitmap rows have at most this many 32-bit words (d <= 256): a lane
  // keeps its child in registers and counts the edges inside it alone,
  // instead of storing the child and gathering its tasks.
  static constexpr int kFuseLastMaxWords = 8;
  // Row widths (words) for which the fused level is compiled with W known
  // (FusedChild<W> in count.cu): only the row's own words are
  // loaded, where a runtime W issues predicated instructions for all
  // kFuseLastMaxWords (about 2x at k = 7, 8). Exact widths 5 and 6 too push
  // WarpKernel past 64 registers (3 blocks per SM, not 4).
  static constexpr int kFuseExactMaxWords = 4;
  // Row widths 2..kEngineExactMaxWords for which the whole multi-word engine
  // (RunEngineW<W>) is compiled with W known, not only its fused level; 1:
  // none. About 9% faster at k = 8, 9; WarpKernel then spills 24 bytes.
  static constexpr int kEngineExactMaxWords = 4;
  // Dynamic shared memory per block the warp kernel may spend on per-warp
  // arenas (candidate list, bitmap space, scheduler stack); larger arenas
  // live in global scratch (cached in L1).
  static constexpr int kSmemArenaBytes = 160 * 1024;
  // Cap on the global scratch of one kernel's arenas; the persistent grid
  // shrinks (never below one warp/block) to stay under it.
  static constexpr long long kArenaBudgetBytes = 1LL << 30;
  // KCMiner at k = 4 counts small tasks in the pre-pass (PrepassCountsSmall
  // in count.cu), at most this many pair probes per batch of 32
  // tasks; the rest of the batch goes to the small-task kernel. A cap keeps
  // one dense batch from stalling the pre-pass; 512 beat 128 and no cap.
  static constexpr int kPrepassPairBudget = 512;
  // Direct shallow path of the CUDA count (the kBinarySearch baseline at
  // kmax == 4): one kernel, no sort, no host synchronization. A warp
  // takes 32 tasks per pull and keeps their candidate lists C in a shared
  // buffer of kShallowWarpBuf int32 (a multiple of 32); a task whose shorter
  // probe list is longer than the buffer is handled alone in buffer-sized
  // chunks. kShallowMinBlocksPerSm feeds __launch_bounds__ (register cap).
  static constexpr int kShallowWarpBuf = 512;
  static constexpr int kShallowMinBlocksPerSm = 6;
  // KCMiner at kmax == 4 takes the shallow path when the max_degree hint is
  // at most this: 1.1-2.1x faster than the general path up to out-degree 121,
  // level at 125 (ego-Facebook); beyond, untested.
  static constexpr int kShallowMaxDegree = 128;

  // Heavy-task split (KCMiner, HeavySplit(kmax)): medium tasks with
  // |C| >= kHeavySplitMinDim are not given to one warp each. Their level-2
  // bitmap spaces are built once into global scratch (at most
  // kHeavySlotBudgetBytes of it, the largest tasks first; the rest stay
  // warp tasks) and the work units are their level-3 nodes (task, i), or
  // level-4 nodes (task, edge (i, j) of the space) from kmax >=
  // kHeavyLevel4MinK on, pulled from one counter. Without it one warp owns
  // each dense task, and the edges inside com-dblp's 114-clique bound the
  // whole call. It pays at k = 7, where the level-2 spaces are kept; at
  // k = 6 a warp counts a dense task faster than level-3 units that do not
  // fuse, and from k = 8 the level-3 units of λ(k, 2) = 1 already balance.
  // From kHeavySplitDeepMinK on the split returns for the largest tasks
  // only (|C| >= kHeavySplitDeepMinDim), by level-4 units: one level-3 node
  // of a 114-clique holds ~C(110, k - 3) cliques, which outlasts a device's
  // share of a sharded count. HeavySplit follows the policy's λ, not a
  // per-call λ override (the `lam` attribute). Measurements: docs/tuning.md.
  static constexpr int kHeavySplitMinDim = 48;
  static constexpr int kHeavySplitMinK = 7;
  static constexpr int kHeavySplitDeepMinK = 9;
  static constexpr int kHeavySplitDeepMinDim = 96;
  static constexpr int kHeavyLevel4MinK = 8;
  // Up to this kmax the heavy split runs on a side stream beside the medium
  // class (count.cu, LaunchSolve), so that either's tail overlaps
  // the other; above it, the heavy units run alone before the medium class:
  // at k = 9 the level-4 units are each device's critical path of a sharded
  // count, and medium warps beside them slow it.
  static constexpr int kHeavyOverlapMaxK = 8;
  static constexpr long long kHeavySlotBudgetBytes = 256LL << 20;
  static constexpr bool HeavySplit(int kmax) {
    return (kmax >= kHeavySplitMinK && Lambda(kmax, 2) < 0.5f) || kmax >= kHeavySplitDeepMinK;
  }
  static constexpr int HeavySplitMinDim(int kmax) {
    return kmax >= kHeavySplitDeepMinK ? kHeavySplitDeepMinDim : kHeavySplitMinDim;
  }
  // With a max_degree hint, counts up to this kmax plan their solve kernels
  // from the hint (no wait for the task classes; cliques/count_cuda.h,
  // UseDeviceBounds): skips the host wait, 5-30% faster at k = 6.
  static constexpr int kDeviceBoundsMaxK = 6;

  // λ(k, level): build the bitmap space over a candidate set formed after
  // `level` vertices are fixed when its density γ = edges / d² exceeds this.
  // level 2 is the edge task's candidate set N+(v0) ∩ N+(v1). λ(k, 2) >= 0.5
  // (SplitsLevel3) makes every medium task's level-3 nodes units of their
  // own. At k <= 7 building at level 2 wins or ties on every graph; from
  // k = 8 the level-3 units win; the paper's rule (level 3 when γ < 25%)
  // lost at both. Measurements: docs/tuning.md.
  static constexpr KCJAX_HD float Lambda(int k, int level) {
    if (level >= 3) return 0.0f;
    if (k <= 7) return 0.0f;
    return 1.0f;  // γ <= 1 always: never build at level 2 for k >= 8
  }

  // ---- Pivot counter (kcjax_clique_pivot: ffi/cpu/cliques/pivot.cc,
  // ffi/cuda/cliques/pivot.cu, ffi/cuda/cliques/pivot_cuda.cc) ----
  // A succinct-clique-tree node with h >= hmax - kPivotResolveDepth is not
  // expanded: its cliques of size <= hmax are counted in closed form from the
  // 0-, 1-, 2- and 3-cliques of its candidate set (see Resolve in
  // cliques/pivot.cc). Part of the result's definition: the CPU and CUDA
  // handlers must use the same value to return the same histogram.
  static constexpr int kPivotResolveDepth = 3;
  // The per-vertex counter (kcjax_clique_pivot_local) resolves nodes within
  // this many held vertices of k: each candidate's share then needs only its
  // degree inside the candidate set (see PerVertexResolve in cliques/pivot.cc).
  static constexpr int kPivotPerVertexResolveDepth = 2;
  // Root tasks a CPU worker takes per grab from the shared task counter.
  static constexpr int kPivotCpuChunk = 16;
  // Edge tasks a CPU worker of the count/list/per-vertex handlers takes per
  // grab from the shared task counter: amortizes the atomic over tiny tasks.
  static constexpr int64_t kCpuTaskChunk = 64;
  // The CPU intersection gallops (binary-searches each element of the shorter
  // list) when the longer list is more than this many times longer; below it
  // a linear merge is cheaper.
  static constexpr int kCpuGallopRatio = 16;
  // CUDA: one warp per root (or per part of a split root). Roots with d <= kPivotSmallMaxDim
  // candidates keep their bitmap space and DFS frames in shared memory (rows of one or two 64-bit
  // words, so at most 128); larger ones use per-warp global scratch, at most
  // kPivotLargeScratchBytes in all (at least one warp's worth).
  static constexpr int kPivotSmallMaxDim = 128;
  static constexpr long long kPivotLargeScratchBytes = 1LL << 30;
  static constexpr int kPivotWarpsPerBlock = 8;
  // Register budget of the count kernel: 3 blocks of 8 warps per SM leave 80
  // registers a thread (4 would cap at 64 and spill more).
  static constexpr int kPivotMinBlocksPerSm = 3;
  // The roots of largest d, as many as the grid's warps / kPivotSplitParts (never
  // one with d < kPivotChunkDegree), are each split over kPivotSplitParts warps:
  // one warp per root left the heaviest roots' trees as the call's critical path
  // (ego-Facebook k = 8 on one H200: 407 ms whole, 81 ms split).
  static constexpr int kPivotSplitParts = 8;
  // Roots with d < kPivotChunkDegree are taken kPivotTinyChunk at a time.
  static constexpr int kPivotChunkDegree = 16;
  static constexpr int kPivotTinyChunk = 32;
  // Histogram cells (h * (max_d + 1) + p below this) counted per block in
  // shared memory before one flush to global memory.
  static constexpr int kPivotHistCacheCells = 1024;

  // ---- Listing and per-vertex counts, CUDA (kcjax_clique_list and
  // kcjax_clique_per_vertex: ffi/cuda/cliques/list.cu, list_cuda.cc) ----
  // One warp per edge task, persistent grid; tasks sorted by candidate-set
  // size, largest first.
  static constexpr int kListWarpsPerBlock = 8;
  // Listed cliques a warp stages before reserving output rows with one
  // atomicAdd (the stage always holds at least the largest candidate set).
  static constexpr int kListStageRows = 2048;
  // Clique prefixes (the k - 2 vertices shared by the cliques of one DFS
  // node) staged per warp: at most kListStagePrefixes and
  // kListStagePrefixInts / (k - 2), at least one.
  static constexpr int kListStagePrefixes = 1024;
  static constexpr int kListStagePrefixInts = 16384;
  // Cap on the global scratch of all per-warp arenas; the grid shrinks (never
  // below one warp) to stay under it.
  static constexpr long long kListArenaBudgetBytes = 1LL << 30;
  // Warps per block of the listing pre-pass (one warp per task; any value
  // works, 8 matches the DFS kernel's block).
  static constexpr int kListPrepassWarps = 8;
  // Blocks per SM of the listing pre-pass grid (grid-stride beyond it).
  static constexpr int kListPrepassBlocksPerSm = 8;

  // ---- Launch shapes of the small helper kernels ----
  // Grid-stride element-wise kernels (pivot's prepare, the count's key
  // widening): a common 256-thread block, at most 4096 blocks (enough to fill
  // any current GPU; the loops stride over the rest).
  static constexpr int kElementwiseThreads = 256;
  static constexpr int kElementwiseMaxBlocks = 4096;
};

}  // namespace kcjax::cliques
