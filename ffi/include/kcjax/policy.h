// Tuning constants and strategy names shared by the CPU and CUDA handlers.
//
// Every tunable number of the clique kernels lives in CliquePolicy; nothing
// else in ffi/ hard-codes a threshold.
#pragma once

#include <cstdint>

#if defined(__CUDACC__)
#define KCJAX_HD __host__ __device__
#else
#define KCJAX_HD
#endif

namespace kcjax {

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

struct CliquePolicy {
  // Task-size classes (candidate-set size of an edge task), as in KCMiner.
  static constexpr int kSmallTaskMax = 32;    // < 32: one 32-bit word per row
  static constexpr int kWarpTaskMax = 1024;   // 32..1024: one warp per task
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
  // Dynamic shared memory per block the warp kernel may spend on per-warp
  // arenas (candidate list, bitmap space, scheduler stack); larger arenas
  // live in global scratch (cached in L1).
  static constexpr int kSmemArenaBytes = 160 * 1024;
  // Cap on the global scratch of one kernel's arenas; the persistent grid
  // shrinks (never below one warp/block) to stay under it.
  static constexpr long long kArenaBudgetBytes = 1LL << 30;
  // Persistent blocks per SM of the pre-pass (exact task sizes).
  static constexpr int kPrepassBlocksPerSm = 8;

  // λ(k, level): build the bitmap space over a candidate set formed after
  // `level` vertices are fixed when its density γ = edges / d² exceeds this.
  // level 2 is the edge task's candidate set N+(v0) ∩ N+(v1). Defaults follow
  // the KCMiner sensitivity study (build at level 3 for k >= 7; for k = 6
  // build at level 2 unless γ < 25%) and are tuned in experiments/.
  static KCJAX_HD float Lambda(int k, int level) {
    if (level >= 3) return 0.0f;
    if (k <= 5) return 0.0f;
    if (k == 6) return 0.25f;
    return 1.0f;  // γ <= 1 always: never build at level 2 for k >= 7
  }

  // ---- Pivot counter (kcjax_clique_pivot; ffi/cpu/pivot_cpu.cc and
  // ffi/cuda/pivot_*.{cu,cc}) ----
  // Root tasks a CPU worker takes per grab from the shared task counter.
  static constexpr int kPivotCpuChunk = 16;
};

}  // namespace kcjax
