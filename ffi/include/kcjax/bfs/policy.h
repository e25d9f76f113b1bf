// The BFS family's methods, policy and direction rule, shared by the CPU
// handler and the CUDA kernels (no XLA headers: nvcc compiles it).
#pragma once

#include <cstdint>

#include "kcjax/core/config.h"

namespace kcjax::bfs {

// The ablation ladder: each method adds one of Enterprise's techniques.
enum BfsMethod : int32_t {
  kBfsScan = 0,        // status-array scan, a thread per vertex, no queue
  kBfsQueue = 1,       // + streamlined frontier queue (bins + prefix sum)
  kBfsClasses = 2,     // + out-degree classes (thread / warp / block / grid)
  kBfsDirection = 3,   // + hub-based top-down -> bottom-up switching
  kBfsEnterprise = 4,  // + shared-memory cache of last level's hubs
  kBfsCluster = 5,     // small graphs: a whole traversal in one thread block cluster
  kBfsAutoMethod = 6,  // kBfsCluster where SmallGraph() holds, else kBfsEnterprise (bitmaps
                       // where GridBitmaps() holds)
  kNumBfsMethods = 7,
};

enum BfsDirection : int32_t {
  kBfsAuto = 0,      // the method's rule (top-down for methods below kBfsDirection)
  kBfsTopDown = 1,   // force top-down every level
  kBfsBottomUp = 2,  // force bottom-up every level
  kNumBfsDirections = 3,
};

enum BfsBatch : int32_t {
  kBfsBitset = 0,  // 64 sources per word, one pull scan serves them all
  kBfsEach = 1,    // one traversal per source with `method`
  kNumBfsBatches = 2,
};

// Tuning constants of the family (one place; each value's reason and evidence in docs/tuning.md).
struct BfsPolicy {
  // Degree classes: below kSmallMax a thread per frontier vertex, the seed's SmallQueue.
  static constexpr int kSmallMax = 32;
  // Up to kMiddleMax a warp per vertex (the seed's MiddleQueue).
  static constexpr int kMiddleMax = 256;
  // Up to kLargeMax a block per vertex; above, the whole grid (the seed's ExtremeQueue).
  static constexpr int kLargeMax = 65536;
  // γ: go bottom-up when more than this share of all hubs is in the frontier (the seed's 30%).
  static constexpr float kHubShare = 0.3f;
  // τ = kHubDegreeFactor × average degree: hubs are the high-degree tail the seed names.
  static constexpr int kHubDegreeFactor = 4;
  // τ is at least this, so tiny or sparse graphs do not call every vertex a hub.
  static constexpr int kHubMinDegree = 16;
  // Back to top-down when the frontier shrinks below n / kBackToTopDown (Beamer's β).
  static constexpr int kBackToTopDown = 24;
  // Shared-memory hub cache slots per block (power of two; 4 KiB of int32).
  static constexpr int kHubCacheSlots = 1024;
  // Threads per block of the persistent CUDA kernels (warp-multiple, scan-friendly).
  static constexpr int kBlockThreads = 256;
  // Sources per bit-parallel group (the bitmap word width).
  static constexpr int kBitsetWidth = 64;
  // kBfsAutoMethod's bitmap variant: Beamer's edge rule (kClusterAlpha, kBackToTopDown)
  // instead of the seed's hub share: its bottom-up by words stops where a serial walk
  // would, so the earlier switch pays.
  static constexpr bool kGridEdgeRule = true;
  // Grid kernel: status entries a thread loads before it tests any, in its scans of the n
  // distances and of the unvisited queue (one load at a time, a scan was latency-bound).
  static constexpr int kScanUnroll = 4;
  // Neighbours a CUDA thread gathers before it stores: the ids, then their
  // distances, are all in flight at once (a hop is two L2 round trips, not 2 × batch).
  static constexpr int kEdgeBatch = 4;
  // The same for the grid kernel's bitmap variant (top-down gathers, bottom-up batches): its
  // tests are L2 bitmap words, and fewer per batch was faster there (not in the cluster kernel).
  static constexpr int kBitmapEdgeBatch = 2;
  // The bitmap variant's top-down: edges per thread of a tile (ExpandTopDownFlat), all their
  // ids, then all their visited bits, in flight at once.
  static constexpr int kTopDownEdgeBatch = 4;
  // CSR entries per thread that size the cooperative grid: a small graph gets
  // max(n, m / kEdgesPerThread) threads, not occupancy × SMs, so its grid syncs and
  // grid scans span few blocks (large graphs still fill the device).
  static constexpr int kEdgesPerThread = 8;
  // Resident blocks per SM the single-source kernel is compiled for: 80 registers,
  // enough for kEdgeBatch ids and distances without spilling (at 4 blocks, 64 spill).
  static constexpr int kSingleMinBlocksPerSm = 3;
  // kBfsCluster: threads per block, the most one block may have (its level loop has no
  // grid: more threads per cluster means more gathers in flight on the same few SMs).
  static constexpr int kClusterThreads = 1024;
  // kBfsCluster: CSR entries per block of a cluster (its size is m / this, rounded up, at
  // most kMaxClusterBlocks): more blocks were faster on every graph measured, so graphs
  // from 0.1 M entries get the largest portable cluster.
  static constexpr int kClusterEdgesPerBlock = 1 << 14;
  // The portable cluster size limit on Hopper (16 needs the non-portable attribute).
  static constexpr int kMaxClusterBlocks = 8;
  // kBfsAutoMethod takes kBfsCluster up to this many CSR entries: below, a grid traversal
  // is a fixed cost per level (grid syncs, status scans) that one cluster's barriers avoid;
  // above, the grid's bandwidth wins over a cluster of at most kMaxClusterBlocks SMs.
  static constexpr int64_t kClusterAutoEdges = int64_t{1} << 20;
  // kBfsAutoMethod on the grid runs its bitmap variant from this many vertices: below, on
  // graphs of many levels, a bitmap clear and a word pass per level cost more than it saves.
  static constexpr int64_t kGridBitmapMinVertices = int64_t{1} << 20;
  // kBfsCluster (Beamer's α): go bottom-up once the frontier's edges exceed the
  // unexplored edges / kClusterAlpha (GAP's value; no hub count, so no O(n) pre-pass).
  static constexpr int kClusterAlpha = 15;
  // kBfsCluster: a top-down frontier vertex of at least this degree is walked by the whole
  // block (a warp would take more than 8 rounds of 32 x kEdgeBatch edges alone).
  static constexpr int kClusterBlockDegree = 1024;
  // kBfsCluster: slots of the block's list of such vertices per level (1 KiB of shared
  // memory); a vertex past the last slot is walked by its warp.
  static constexpr int kClusterBlockSlots = 256;
  // kBfsCluster bottom-up: an unvisited vertex of at least this degree is searched by a
  // group of lanes (a thread alone would take more than 4 dependent batches to exhaust it).
  static constexpr int kClusterGroupDegree = 16;
  // Bottom-up by bitmap words (cluster and grid): every unreached vertex's lane first tests
  // its list's first batch alone, so a word's vertices that meet the frontier early (most,
  // at a large frontier) take one round of loads, not one per group of 4.
  static constexpr bool kSoloFirstBatch = true;
  // The grid kernel's bitmap variant: bitmap words a warp's bottom-up tests at once (their
  // first batches' loads all in flight together: a round is a chain of dependent loads).
  static constexpr int kBottomUpWordsAtOnce = 2;
  // kBfsCluster bottom-up: lanes per group (a round covers this x kEdgeBatch edges; a warp
  // searches 32 / this vertices at once instead of one).
  static constexpr int kClusterGroupLanes = 8;
  // Multi-device BFS (kcjax_bfs_mesh_push): a frontier vertex of degree >= kSmallMax is cut
  // into chunks of this many edges, a warp each (32 lanes x 2 batches of kTopDownEdgeBatch),
  // so a few hubs' edges spread over the grid instead of one warp or a grid per hub.
  static constexpr int kMeshChunkEdges = 256;
  // Multi-device BFS: resident blocks per SM of its level-step kernels (grid-stride over
  // bitmap words; enough warps in flight to hide the L2 latency of their gathers).
  static constexpr int kMeshBlocksPerSm = 8;
  // Multi-device BFS: levels run between two host reads of the frontier's size (the
  // lax.while_loop's test, a device-to-host copy that stalls every device and lets their
  // launches drift apart); a level run past the end is idle (two exchanges of n / 8 bytes).
  static constexpr int kMeshLevelsPerRead = 4;
  // Multi-device BFS, top-down pull: a candidate of at least this degree is searched for
  // its parent in kMeshChunkEdges chunks over the whole grid, not by one warp (a pushed
  // hub's frontier neighbour may sit deep in a list of millions).
  static constexpr int kMeshPullChunkMin = 2048;
};

// Hub threshold τ for a graph of n vertices and m CSR entries (override if >= 0).
KCJAX_HD inline int64_t HubTau(int64_t n, int64_t m, int32_t override_tau) {
  if (override_tau >= 0) return override_tau;
  const int64_t avg = n > 0 ? m / n : 0;
  const int64_t tau = avg * BfsPolicy::kHubDegreeFactor;
  return tau > BfsPolicy::kHubMinDegree ? tau : BfsPolicy::kHubMinDegree;
}

// Whether the level whose frontier is described next runs bottom-up.
//   bottom_up: the previous level's direction; frontier / prev_frontier: sizes
//   of this level's and the previous level's frontiers; frontier_hubs /
//   total_hubs: hubs in the frontier and in the graph.
KCJAX_HD inline bool NextBottomUp(int32_t method, int32_t direction, bool bottom_up,
                                  int64_t frontier, int64_t prev_frontier, int64_t frontier_hubs,
                                  int64_t total_hubs, int64_t n) {
  if (direction == kBfsTopDown) return false;
  if (direction == kBfsBottomUp) return true;
  if (method < kBfsDirection) return false;
  if (!bottom_up) {
    return total_hubs > 0 && static_cast<float>(frontier_hubs) >
                                 BfsPolicy::kHubShare * static_cast<float>(total_hubs);
  }
  return !(frontier < prev_frontier && frontier * BfsPolicy::kBackToTopDown < n);
}

// kBfsCluster's rule (Beamer's, as GAP): top-down -> bottom-up when the frontier's
// edges exceed the unexplored edges / kClusterAlpha; back to top-down as NextBottomUp.
//   frontier_edges: the sum of the frontier's degrees; unexplored_edges: the sum of
//   the degrees of the vertices not yet reached.
KCJAX_HD inline bool ClusterBottomUp(int32_t direction, bool bottom_up, int64_t frontier,
                                     int64_t prev_frontier, int64_t frontier_edges,
                                     int64_t unexplored_edges, int64_t n) {
  if (direction == kBfsTopDown) return false;
  if (direction == kBfsBottomUp) return true;
  if (!bottom_up) return frontier_edges * BfsPolicy::kClusterAlpha > unexplored_edges;
  return !(frontier < prev_frontier && frontier * BfsPolicy::kBackToTopDown < n);
}

// Whether kBfsAutoMethod's grid traversal of an n-vertex graph tests bitmaps.
KCJAX_HD inline bool GridBitmaps(int64_t n) { return n >= BfsPolicy::kGridBitmapMinVertices; }

// Whether kBfsAutoMethod takes kBfsCluster for a graph of m CSR entries (the CUDA
// handler also needs the graph's bitmaps to fit a cluster's shared memory).
KCJAX_HD inline bool SmallGraph(int64_t m) { return m <= BfsPolicy::kClusterAutoEdges; }

}  // namespace kcjax::bfs
