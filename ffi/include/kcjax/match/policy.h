// Tuning constants of the labeled-matching CUDA kernels (one reason each).
#pragma once

namespace kcjax::match {

struct MatchPolicy {
  static constexpr int kWarpsPerBlock = 8;  // 256 threads: enough warps per SM to hide gathers
  // Resident blocks per SM asked of ptxas: 8 x 256 threads is the full 64 warps (32 registers
  // per thread), the most latency hiding for the dependent loads of the checks.
  static constexpr int kMinBlocksPerSm = 8;
  // Donation ring slots: twice the resident warps (about 8.5K on an H200), the most items
  // the ring can hold (one per waiting ticket, one per donor that looked at once).
  static constexpr int kRingSlots = 1 << 15;
  // Chunk steps between a busy warp's looks at the ticket counter: one L2 read per ~8 node
  // expansions costs little, yet a starving grid is noticed within microseconds.
  static constexpr int kDonateEvery = 8;
  // Donated work is a level at least this many levels above the last one: below that a
  // candidate is one ballot of leaves, cheaper than the ring round trip.
  static constexpr int kDonateLeafGap = 2;
  // Sleep of a waiting warp between polls of the ring: kIdleSleepNs per ticket ahead of its
  // own, at most kIdleSleepMaxNs: thousands of warps polling one L2 line would slow the busy
  // ones' loads, while the next ticket in line wakes within 100 ns of its item.
  static constexpr int kIdleSleepNs = 100;
  static constexpr int kIdleSleepMaxNs = 10000;
};

// Tuning constants of the filter rounds (ffi/cuda/match/filter.cu).
struct FilterPolicy {
  // A warp per data vertex, 32 warps a block (35 KB of per-warp counters): a grid sync
  // per round costs about one atomic per block, so few large blocks keep rounds short.
  static constexpr int kWarpsPerBlock = 32;
  // Two blocks per SM: the whole 64 warps (32 registers a thread).
  static constexpr int kBlocksPerSm = 2;
  // Neighbour chunks of 32 whose loads a warp issues together: a hub's row costs one
  // load latency per 128 neighbours instead of per 32.
  static constexpr int kChunksPerBatch = 4;
};

}  // namespace kcjax::match
