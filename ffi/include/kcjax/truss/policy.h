// The k-truss family's tuning constants, shared by the CPU handler and the CUDA
// kernels (no XLA headers: nvcc compiles it). Each value's reason and evidence:
// docs/tuning.md, k-truss.
#pragma once

#include <cstdint>

namespace kcjax::truss {

struct TrussPolicy {
  // CUDA launch shape: 8 warps per block keeps the persistent kernel's blocks co-resident.
  static constexpr int kThreads = 256;
  // Peeling kernel blocks per SM: few blocks keep each grid-wide sync cheap.
  static constexpr int kPeelBlocksPerSm = 2;
  // Support pass over the prefilter's live list (its length known on the device only):
  // a grid-strided grid of this many blocks per SM, so a short list does not pay for
  // m / 256 blocks that find nothing to do (8 x 256 threads fill an SM).
  static constexpr int kListBlocksPerSm = 8;
  // kAuto: a support pass over at most this many edges runs kEdge, a longer one kDag: a
  // warp per edge fills the GPU on short lists, while the edge pass probes full
  // neighbour lists (not DAG out-lists), so on long lists its extra work outweighs that.
  // Measured with the DAG pass of a warp per 32 edges; the split by probes is faster
  // below it too on some rows and slower on others (docs/tuning.md).
  static constexpr int32_t kEdgeList = 16384;
  // kDag (supports, the h-index's triangle store): a block stages kThreads DAG edges and
  // its threads take their probes (each entry of an edge's shorter out-list, searched in
  // the longer) kThreads x this many at a time, a thread's searched in lock step. A warp
  // per 32 edges one after another left most lanes idle (a few probes per edge) and
  // made each warp a chain of 32 edges (docs/tuning.md).
  static constexpr int kDagTileProbes = 4;
  // k-truss with the prefilter: recount steps before the peeling (drop the listed edges
  // of support <= k - 3, count the survivors' triangles afresh). The first peeling round
  // after a k-core is the largest by far (soc-Epinions1 k = 33: 129 K of the 172 K
  // listed edges, then 24 K); a recount costs in the kept edges, decrements cost in the
  // removed ones, so one recount pays wherever the first round removes most edges.
  static constexpr int kRecounts = 1;
  // k-truss: the peeling's first round is replaced by a recount (its frontier dropped, the
  // other listed edges' supports counted afresh, a warp each) when that frontier holds at
  // least this percentage of the list (above 100: never). Off: on the H200 the one row it
  // served (cit-HepTh k = 30, a 78 % first round) took 0.459 ms with it at 75 and 0.379 ms
  // without, although a host replay had counted 0.3x the round's probes (docs/tuning.md).
  static constexpr int kRoundRecountPercent = 101;
  // First kernel's launch bound (blocks per SM): with no minimum, ptxas held it at 32
  // registers and spilled (ptxas -v, sm_90); 4 allows 64 registers.
  static constexpr int kInitBlocksPerSm = 4;
  // Seed pass: largest neighbour list staged in shared memory (48 KiB of int32).
  static constexpr int kSharedList = 12288;
  // An edge whose longer list has at most this many entries is intersected by one
  // thread (a merge of two short lists); longer ones get a warp or more. A thread's
  // merge is a chain of dependent loads that sets the round's critical path: 64 made
  // decompositions 2-3x slower than 4 on the H200 (docs/tuning.md).
  static constexpr int kLaneList = 4;
  // Peeling: a frontier edge above kLaneList is split into chunks of this many probes
  // of its shorter list, one warp each, spread over the grid (no edge serializes a round).
  static constexpr int kChunkProbes = 32;
  // Peeling: the live-edge list is compacted at a level's scan once this fraction
  // (1 / kCompactDivisor) of it has died since the last compaction; scans cost O(list).
  static constexpr int kCompactDivisor = 8;
  // Peeling: steps this small run in block 0 alone with block barriers (the other
  // blocks wait at the next grid sync): a round of at most kTailFrontier merged edges
  // (one per thread) and kTailChunks chunks (two per warp), or a scan of a live list of
  // at most kTailScan entries (eight per thread). Off (0): with 256 / 16 / 2048 one
  // block's serial chains cost more than the grid syncs they saved (docs/tuning.md).
  static constexpr int kTailFrontier = 0;
  static constexpr int kTailChunks = 0;
  static constexpr int kTailScan = 0;
  // kHIndex: an edge with at most this many triangles is updated by one thread, all its
  // values loaded at once into registers. A thread walking its triangles one load after another (up
  // to 64 in a first version) set each round's critical path (docs/tuning.md).
  static constexpr int kHIndexLane = 8;
  // kHIndex: an edge with more than kHIndexLane and at most kHIndexLane x kHIndexGroup
  // triangles is updated by this many lanes of a warp (kHIndexLane entries each, in
  // registers), four edges a warp at once; more triangles get the whole warp.
  static constexpr int kHIndexGroup = 8;
  // kHIndex, warp path: histogram bins in shared memory (1 KiB a warp); a pass narrows
  // h to one bin, so edges with t below this take one pass over their triangles.
  static constexpr int kHIndexWindow = 256;
  // kHIndex, warp path: entries a lane loads at once (their store entries, then their
  // values); a warp edge's pass is a chain of s / (32 x this) batches. 8 and 4 ran
  // equally fast on the H200; 8 leaves ptxas fewer spills (12 bytes against 28).
  static constexpr int kHIndexBatch = 8;
  // kHIndex: blocks per SM of the cooperative update kernel (8 KiB of warp windows each):
  // a group's registers need 80 (ptxas -v, sm_90); 4 (64 registers, spills) and 6 ran
  // slower on the H200 although the rounds wait on latency (docs/tuning.md).
  static constexpr int kHIndexBlocksPerSm = 3;
  // kHIndex: the triangle store's limit (three entries of two edge ids per triangle):
  // beyond it the peeling answers (kDecompose).
  static constexpr int64_t kHIndexMaxEntries = (int64_t{1} << 31) - 1;
  // kHIndex: rounds update every edge without queueing while the round before lowered
  // more than m / this many edges (0: never), then one all-edge round queues and the
  // queued rounds follow. The first rounds lower most edges, and queue passes over the
  // fallen edges' triangles (an exchange per candidate) cost more than re-reading the
  // edges that did not fall (experiments/truss/hindex_sim.py, docs/tuning.md).
  static constexpr int kHIndexAllDivisor = 4;
  // kHIndex: once a round queues at most this many edges, the rounds end and the
  // asynchronous tail (no grid syncs; a warp an edge, claimed from one queue) runs to the
  // fixed point (0: never). The last rounds queue few edges and cost a grid sync each;
  // a tail edge costs more than a round's, so the tail from the first queued round (2^40)
  // was slower on the H200 (docs/tuning.md).
  static constexpr int64_t kHIndexAsyncEdges = 16384;
  // kHIndex: blocks per SM of the asynchronous tail's kernel (a warp per queued edge);
  // its own kernel, so the rounds' kernel keeps its registers.
  static constexpr int kHIndexTailBlocksPerSm = 4;
  // kHIndex: the asynchronous tail's queue holds this many pushes per edge; a push past
  // it is dropped and every edge updated again in rounds (always correct, slower).
  static constexpr int kHIndexQueuePerEdge = 4;
  // kHIndex: a warp waiting for the queue's next edge polls it every this many ns, and
  // the pending count (one word every waiting warp reads) every this many polls (the
  // measured values; no others were measured beside them).
  static constexpr int kHIndexPollNs = 32;
  static constexpr int kHIndexPendingPolls = 8;
};

}  // namespace kcjax::truss
