// Tuning constants of the labeled-matching CUDA kernels (one reason each).
#pragma once

namespace kcjax::match {

struct MatchPolicy {
  static constexpr int kWarpsPerBlock = 8;  // 256 threads: enough warps per SM to hide gathers
  // Resident blocks per SM asked of ptxas: 8 x 256 threads is the full 64 warps (32 registers
  // per thread), the most latency hiding for the dependent loads of the checks.
  static constexpr int kMinBlocksPerSm = 8;
  // Donation ring slots: more than the resident warps (about 8.5K on an H200), so a donor
  // rarely finds it full and the ring never holds more than the idle warps can take.
  static constexpr int kRingSlots = 1 << 14;
  // Chunk steps between a busy warp's looks at the idle counter: one L2 read per ~8 node
  // expansions costs little, yet a starving grid is noticed within microseconds.
  static constexpr int kDonateEvery = 8;
  // Donated work is a level at least this many levels above the last one: below that a
  // candidate is one ballot of leaves, cheaper than the ring round trip.
  static constexpr int kDonateLeafGap = 2;
  // Back-off of an idle warp between polls of the ring, doubling from the first to the
  // second: thousands of idle warps polling one L2 line would slow the busy ones' atomics,
  // while a 10 us wake-up is small against the units a donation hands over.
  static constexpr int kIdleSleepNs = 100;
  static constexpr int kIdleSleepMaxNs = 10000;
};

}  // namespace kcjax::match
