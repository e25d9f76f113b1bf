// The local h-index decomposition of the CUDA k-truss (TrussMode::kHIndex; the
// rule and why it converges: kcjax/truss/truss.h). truss.cu runs OffsetsKernel and a
// scan (the triangle store's offsets), StoreKernel (each triangle listed once from
// the DAG and stored with its three edges, each edge's triangles counted as they are
// placed), HIndexInitKernel and the cooperative HIndexKernel. The offsets give each
// edge either its support (counted by a support pass before; the store's size is then
// read back, one host sync) or its degree bound min(deg u, deg v) - 1 (the store sized
// by the call's store_entries: no support pass and no host sync; an edge's slots may
// then end in unused entries).
//
// HIndexKernel works in rounds with one grid-wide sync each. The first rounds update
// every edge without queueing, while the round before lowered more than m /
// kHIndexAllDivisor edges (round 0 always); then one all-edge round queues, and later
// rounds update the edges queued by the round before. An update reads the
// values min(t(a), t(b)) of the edge's stored triangles and lowers t(e) to their
// h-index: an edge of at most kHIndexLane triangles by one thread, of at most
// kHIndexLane x kHIndexGroup by a group of kHIndexGroup lanes (all values in
// registers at once, a binary search for h), a longer one by a warp (a histogram of
// kHIndexWindow bins in shared memory, refined pass by pass). An edge that lowers
// t(e) to h queues each other edge x of its triangles whose value fell below t(x),
// i.e. h < t(x) <= the third edge's t (stale reads only queue more). Values are
// written to L2 (st.cg) and read through L1 (Value).
//
// Once a round queues at most kHIndexAsyncEdges edges, the rounds end: the queued
// edges seed one queue and the asynchronous tail (HIndexTailKernel) runs to the fixed point
// with no grid syncs, a warp an edge, each edge it lowers pushing the edges above as
// soon as it falls. Its values are read from L2 and lowered by atomicMin.
#pragma once

#include <cooperative_groups/scan.h>

#include "support.cuh"

namespace kcjax::truss {
namespace {

constexpr int kHLane = TrussPolicy::kHIndexLane;
constexpr int kHGroup = TrussPolicy::kHIndexGroup;
constexpr int kHGroupMax = kHLane * kHGroup;  // triangles of an edge for a group
static_assert(kWarp % kHGroup == 0 && (kHGroup & (kHGroup - 1)) == 0, "groups tile a warp");
constexpr int kHWindow = TrussPolicy::kHIndexWindow;
static_assert(kHWindow % kWarp == 0, "a warp's window splits evenly over its lanes");

// Counts of round r + 1, written in round r into slot (r + 1) % 3. Round r also
// clears slot (r + 2) % 3, last read in round r - 1, for round r + 1 to fill.
struct HSlot {
  int32_t lane;   // queued edges for one thread each
  int32_t group;  // queued edges for kHGroup lanes each
  int32_t warp;   // queued edges for a warp each
  int32_t fell;   // edges round r lowered (counted in all-edge rounds without queueing)
};

struct HState {
  HSlot slot[3];
  int32_t groups, warps;  // lengths of the all-edge rounds' group and warp lists
  int32_t overflow;       // the offsets passed the store's capacity (a bad store_entries)
  // Hand-over between the kernels: the round whose lists seeded the asynchronous
  // tail's queue (-1: none, the rounds reached the fixed point), and whether a push of
  // the tail found the queue full.
  int32_t seeded_round;
  int32_t full;
  // The asynchronous tail's counters, each on a line of its own (every warp polls or
  // adds to them): queue indices claimed by warps, indices reserved by pushes, and
  // edges pushed and not yet updated.
  alignas(128) int32_t head;
  alignas(128) int32_t tail;
  alignas(128) int32_t pending;
};

struct HIndexParams {
  const int64_t* off;  // [m + 1]: edge e's triangles are store[off[e], off[e] + cnt[e])
  const int32_t* cnt;  // [m]: triangles of e
  const int2* store;   // the other two edges of each triangle of e
  int32_t* t;          // [m]: t(e) (the result's buffer; trussness = t + 2 at the end)
  int32_t* mark;       // [m]: the round an edge is queued for (0: none)
  int32_t* lane_list[2];
  int32_t* group_list[2];
  int32_t* warp_list[2];
  int32_t* all_group;  // the group and warp edges of all-edge rounds
  int32_t* all_warp;
  int32_t* queue;  // [queue_size]: the asynchronous tail's edges (-1: not yet pushed)
  HState* state;
  int32_t m;
  int32_t queue_size;
};

// off[0] = 0 and off[e + 1] = e's slots (scanned next): sup[e], or without supports
// (nullptr) the degree bound min(deg u, deg v) - 1; cnt cleared, the state cleared.
__global__ void OffsetsKernel(const int32_t* __restrict__ sup, const int32_t* __restrict__ indptr,
                              const int32_t* __restrict__ esrc, const int32_t* __restrict__ edst,
                              int32_t m, int64_t* off, int32_t* cnt, HState* state) {
  const int64_t stride = int64_t{gridDim.x} * blockDim.x;
  for (int64_t e = int64_t{blockIdx.x} * blockDim.x + threadIdx.x; e < m; e += stride) {
    if (sup != nullptr) {
      off[e + 1] = sup[e];
    } else {
      const int32_t u = esrc[e], v = edst[e];
      off[e + 1] = min(indptr[u + 1] - indptr[u], indptr[v + 1] - indptr[v]) - 1;
    }
    cnt[e] = 0;
    if (e == 0) {
      off[0] = 0;
      *state = HState{};
      state->seeded_round = -1;
    }
  }
}

// Every triangle once from the DAG, stored with each of its edges: e's entries are
// placed through cnt[e], which ends as its triangle count. Where the offsets pass
// `capacity` entries (a store_entries below the degree bound) nothing is written and
// the state's overflow flag is set.
__global__ void StoreKernel(const int32_t* __restrict__ dptr, const int32_t* __restrict__ dcol,
                            const int32_t* __restrict__ dsrc, const int32_t* __restrict__ deid,
                            int32_t m, const int64_t* __restrict__ off, int64_t capacity,
                            int32_t* cnt, HState* state, int2* store) {
  if (off[m] > capacity) {
    if (blockIdx.x == 0 && threadIdx.x == 0) state->overflow = 1;
    return;
  }
  auto put = [&](int32_t e, int32_t x, int32_t y) {
    store[off[e] + atomicAdd(cnt + e, 1)] = make_int2(x, y);
  };
  DagTriangles(
      dptr, dcol, dsrc, deid, m, nullptr, nullptr,
      [&](int32_t e, int32_t e1, int32_t e2) {
        put(e, e1, e2);
        put(e1, e, e2);
        put(e2, e, e1);
        return 0;
      },
      [](int32_t, int32_t) {});
}

// list[i & 1] by a select: a runtime index into an array of the kernel parameter
// would copy the array to local memory.
__device__ __forceinline__ int32_t* Pick(int32_t* const (&list)[2], int32_t i) {
  return (i & 1) != 0 ? list[1] : list[0];
}

// t(e). Rounds read it through L1 (writes go to L2): a round may miss writes of the
// same round on another SM. A stale value is larger, which only leaves the edge
// reading it updated a round later (the edge that fell queued it), and the grid
// sync's fences make every earlier round's writes visible. The asynchronous tail
// has no grid syncs: it reads L2, where a push's writes are seen by the edge it
// pushed once that edge is claimed.
template <bool kAsync>
__device__ __forceinline__ int32_t Value(const HIndexParams& P, int32_t e) {
  return kAsync ? __ldcg(P.t + e) : P.t[e];
}

// Lowers t(e) to h: a plain write in rounds (an edge is updated once a round); in
// the asynchronous tail a minimum, as two warps may update e at once (it was pushed
// again while being updated) and the one that read older values may write last.
template <bool kAsync>
__device__ __forceinline__ void Lower(const HIndexParams& P, int32_t e, int32_t h) {
  if (kAsync) {
    atomicMin(P.t + e, h);
  } else {
    __stcg(P.t + e, h);
  }
}

__device__ __forceinline__ int32_t Triangles(const HIndexParams& P, int32_t e) { return P.cnt[e]; }

// Round 0's state: t(e) = its triangles, no marks, the group and warp edges listed
// for the all-edge rounds, the asynchronous tail's queue empty.
__global__ void HIndexInitKernel(HIndexParams P) {
  const int64_t stride = int64_t{gridDim.x} * blockDim.x;
  const int lane = threadIdx.x & (kWarp - 1);
  for (int64_t e = int64_t{blockIdx.x} * blockDim.x + threadIdx.x; e - lane < P.m; e += stride) {
    const int32_t s = e < P.m ? Triangles(P, static_cast<int32_t>(e)) : 0;
    if (e < P.m) {
      P.t[e] = s;
      P.mark[e] = 0;
    }
    const auto id = static_cast<int32_t>(e);
    cuda::WarpPush(s > kHLane && s <= kHGroupMax, id, P.all_group, &P.state->groups);
    cuda::WarpPush(s > kHGroupMax, id, P.all_warp, &P.state->warps);
  }
  for (int64_t i = int64_t{blockIdx.x} * blockDim.x + threadIdx.x; i < P.queue_size; i += stride) {
    P.queue[i] = -1;
  }
}

// Queues the edges xs[i] with bit i of `want` set for round `next`, except those queued
// already: the exchanges are issued together, then one atomic per class reserves the
// thread's places (one per edge would pile every thread of a round onto three words).
template <int N>
__device__ __forceinline__ void EnqueueAll(const HIndexParams& P, const int32_t (&xs)[N],
                                           uint32_t want, int32_t next) {
  if (want == 0) return;
  int32_t cls[N];  // 0: one thread, 1: a group, 2: a warp; -1: not queued here
  int32_t count0 = 0, count1 = 0, count2 = 0;
#pragma unroll
  for (int i = 0; i < N; ++i) {
    cls[i] = -1;
    if ((want >> i) & 1u) {
      const int32_t s = Triangles(P, xs[i]);  // loaded beside the exchange
      if (atomicExch(P.mark + xs[i], next) != next) cls[i] = s > kHGroupMax ? 2 : s > kHLane;
    }
    count0 += cls[i] == 0;
    count1 += cls[i] == 1;
    count2 += cls[i] == 2;
  }
  HSlot& slot = P.state->slot[next % 3];
  int32_t at0 = count0 ? atomicAdd(&slot.lane, count0) : 0;
  int32_t at1 = count1 ? atomicAdd(&slot.group, count1) : 0;
  int32_t at2 = count2 ? atomicAdd(&slot.warp, count2) : 0;
#pragma unroll
  for (int i = 0; i < N; ++i) {
    if (cls[i] == 0) Pick(P.lane_list, next)[at0++] = xs[i];
    if (cls[i] == 1) Pick(P.group_list, next)[at1++] = xs[i];
    if (cls[i] == 2) Pick(P.warp_list, next)[at2++] = xs[i];
  }
}

// The tail's fences: a release (a new t(e) before the marks a push exchanges) and an
// acquire (a claimed edge's mark exchange before its reads) pair through the marks'
// atomics, which read each other's writes, so acq_rel suffices (no sequential
// consistency fence).
__device__ __forceinline__ void AcqRelFence() { asm volatile("fence.acq_rel.gpu;" ::: "memory"); }

// The asynchronous tail's marks: an edge in the queue and not yet claimed.
constexpr int32_t kAsyncMark = -1;

// Pushes the edges xs[i] with bit i of `want` set onto the asynchronous tail's queue,
// except those in it already. pending counts them before the pushing warp's own edge
// is counted done, so pending = 0 means no edge is queued or being updated. A push past
// the queue's end is dropped and flagged (the kernel then runs an all-edge round).
template <int N>
__device__ __forceinline__ void PushAll(const HIndexParams& P, const int32_t (&xs)[N],
                                        uint32_t want) {
  uint32_t push = 0;
#pragma unroll
  for (int i = 0; i < N; ++i) {
    if (((want >> i) & 1u) && atomicExch(P.mark + xs[i], kAsyncMark) != kAsyncMark) {
      push |= 1u << i;
    }
  }
  // One reservation for the lanes here together: the counters are a hot spot.
  const cg::coalesced_group lanes = cg::coalesced_threads();
  const int32_t count = __popc(push);
  const int32_t below = cg::exclusive_scan(lanes, count);
  const int32_t total = lanes.shfl(below + count, lanes.num_threads() - 1);
  if (total == 0) return;
  HState* S = P.state;
  int32_t at = 0;
  if (lanes.thread_rank() == 0) {
    atomicAdd(&S->pending, total);
    at = atomicAdd(&S->tail, total);
  }
  at = lanes.shfl(at, 0) + below;
  int32_t lost = 0;
#pragma unroll
  for (int i = 0; i < N; ++i) {
    if ((push >> i) & 1u) {
      if (at < P.queue_size) {
        __stcg(P.queue + at, xs[i]);
      } else {
        ++lost;
      }
      ++at;
    }
  }
  if (lost > 0) {
    atomicSub(&S->pending, lost);
    atomicExch(&S->full, 1);
  }
}

// Queues the wanted edges for round `next`, or (kAsync) pushes them.
template <bool kAsync, int N>
__device__ __forceinline__ void Queue(const HIndexParams& P, const int32_t (&xs)[N], uint32_t want,
                                      int32_t next) {
  if (kAsync) {
    PushAll(P, xs, want);
  } else {
    EnqueueAll(P, xs, want, next);
  }
}

// G lanes (one thread, or a group of a warp: `mask` its lanes, `gl` the lane's rank in
// it) update edge e of at most kHLane * G triangles: each lane loads its entries and
// their values at once into registers (one chain of dependent loads, not one per
// triangle), and h, the largest x <= t(e) with at least x values >= x, is found by
// binary search over x with the group's counts summed by shuffles. The loaded values
// also decide what to queue (stale ones only queue more; nothing when !queue). A lowered
// edge adds one to `fell` (its lane gl = 0).
template <int G, bool kAsync = false>
__device__ __forceinline__ void GroupUpdate(const HIndexParams& P, int32_t e, int32_t next,
                                            bool queue, int gl, unsigned mask, int32_t& fell) {
  const int32_t c = Value<kAsync>(P, e);
  if (c == 0) return;
  const int64_t p0 = P.off[e];
  const int32_t s = Triangles(P, e);
  int2 ab[kHLane];
  int32_t ta[kHLane], tb[kHLane];
#pragma unroll
  for (int i = 0; i < kHLane; ++i) {
    const int32_t q = gl + i * G;
    ab[i] = q < s ? P.store[p0 + q] : make_int2(0, 0);
  }
#pragma unroll
  for (int i = 0; i < kHLane; ++i) {
    const bool mine = gl + i * G < s;
    ta[i] = mine ? Value<kAsync>(P, ab[i].x) : -1;
    tb[i] = mine ? Value<kAsync>(P, ab[i].y) : -1;
  }
  int32_t lo = 0, hi = c;  // at least lo values >= lo: true for lo = 0
  while (lo < hi) {
    const int32_t mid = (lo + hi + 1) >> 1;
    int32_t count = 0;
#pragma unroll
    for (int i = 0; i < kHLane; ++i) count += min(ta[i], tb[i]) >= mid;
#pragma unroll
    for (int d = G / 2; d > 0; d /= 2) count += __shfl_xor_sync(mask, count, d);
    if (count >= mid) {
      lo = mid;
    } else {
      hi = mid - 1;
    }
  }
  if (lo == c) return;
  if (gl == 0) {
    Lower<kAsync>(P, e, lo);
    ++fell;
  }
  if (kAsync) {  // the new t(e) before the marks: a pushed edge's reads see it
    __syncwarp(mask);
    AcqRelFence();
  }
  if (!queue) return;
  int32_t xs[2 * kHLane];
  uint32_t want = 0;
#pragma unroll
  for (int i = 0; i < kHLane; ++i) {
    const bool mine = gl + i * G < s;
    xs[2 * i] = ab[i].x;
    xs[2 * i + 1] = ab[i].y;
    want |= static_cast<uint32_t>(mine && lo < ta[i] && tb[i] >= lo) << (2 * i);
    want |= static_cast<uint32_t>(mine && lo < tb[i] && ta[i] >= lo) << (2 * i + 1);
  }
  Queue<kAsync>(P, xs, want, next);
}

// Calls fn(ab, ta, tb, in) for the warp's entries of [p0, p1) (lane-strided), kHBatch
// per lane at a time: ab[j] an entry's two edges, ta[j], tb[j] their values, bit j of
// `in` set where entry j exists. The batch's loads are issued together (one chain per
// batch, not one per entry).
constexpr int kHBatch = TrussPolicy::kHIndexBatch;
static_assert(2 * kHBatch <= 32, "a batch's queue candidates fit one uint32 mask");
template <bool kAsync, typename Fn>
__device__ __forceinline__ void ForWarpEntries(const HIndexParams& P, int64_t p0, int64_t p1,
                                               int lane, Fn fn) {
  for (int64_t p = p0 + lane; p < p1; p += kHBatch * kWarp) {
    int2 ab[kHBatch];
    int32_t ta[kHBatch], tb[kHBatch];
#pragma unroll
    for (int j = 0; j < kHBatch; ++j) {
      ab[j] = p + j * kWarp < p1 ? P.store[p + j * kWarp] : make_int2(0, 0);
    }
#pragma unroll
    for (int j = 0; j < kHBatch; ++j) {
      const bool in = p + j * kWarp < p1;
      ta[j] = in ? Value<kAsync>(P, ab[j].x) : -1;
      tb[j] = in ? Value<kAsync>(P, ab[j].y) : -1;
    }
    uint32_t in = 0;
#pragma unroll
    for (int j = 0; j < kHBatch; ++j) in |= static_cast<uint32_t>(p + j * kWarp < p1) << j;
    fn(ab, ta, tb, in);
  }
}

// A warp updates edge e (more than kHLane * kHGroup triangles). window: kHWindow ints of
// shared memory for this warp. Each pass counts the values of [lo, hi] in kHWindow bins
// of width w and finds the highest bin start x with at least x values >= x: h lies in
// that bin, which the next pass splits, until w = 1 (one pass while t(e) < kHWindow,
// log_kHWindow(t(e)) + 1 at most).
template <bool kAsync = false>
__device__ __forceinline__ void WarpUpdate(const HIndexParams& P, int32_t e, int32_t next,
                                           bool queue, int lane, int32_t* window, int32_t& fell) {
  const int32_t c = Value<kAsync>(P, e);
  const int64_t p0 = P.off[e], p1 = p0 + Triangles(P, e);
  constexpr int kPer = kHWindow / kWarp;  // bins per lane
  int32_t lo = 0, hi = c, above = 0;      // h in [lo, hi]; `above` values are > hi
  while (true) {
    const int32_t w = (hi - lo) / kHWindow + 1;
    for (int i = lane; i < kHWindow; i += kWarp) window[i] = 0;
    __syncwarp();
    ForWarpEntries<kAsync>(P, p0, p1, lane,
                           [&](const int2(&)[kHBatch], const int32_t (&ta)[kHBatch],
                               const int32_t (&tb)[kHBatch], uint32_t in) {
#pragma unroll
                             for (int j = 0; j < kHBatch; ++j) {
                               const int32_t v = min(min(ta[j], tb[j]), c);
                               if (((in >> j) & 1u) && v >= lo && v <= hi)
                                 atomicAdd(window + (v - lo) / w, 1);
                             }
                           });
    __syncwarp();
    // Lane L holds bins [L * kPer, (L + 1) * kPer); values >= x counted from the top.
    int32_t mine = 0;
    for (int j = 0; j < kPer; ++j) mine += window[lane * kPer + j];
    const int32_t incl = cuda::WarpInclusiveScan(mine);
    const int32_t total = __shfl_sync(kFull, incl, kWarp - 1);
    int32_t count = above + total - incl;  // values in bins of higher lanes, and above
    int32_t best = -1, best_above = 0;     // the bin found, and the values above it
    for (int j = kPer - 1; j >= 0; --j) {
      const int32_t x = lo + (lane * kPer + j) * w;
      const int32_t in_bin = window[lane * kPer + j];
      if (x <= hi && count + in_bin >= x) {
        best = lane * kPer + j;
        best_above = count;
        break;
      }
      count += in_bin;
    }
    const int32_t bin = __reduce_max_sync(kFull, best);  // bin 0 (x = lo) always holds
    best_above = __shfl_sync(kFull, best_above, bin / kPer);
    __syncwarp();  // the window is cleared by the next pass
    lo += bin * w;
    if (w == 1) break;
    hi = min(hi, lo + w - 1);
    above = best_above;
  }
  if (lo == c) return;
  if (lane == 0) {
    Lower<kAsync>(P, e, lo);
    ++fell;
  }
  if (kAsync) {  // the new t(e) before the marks: a pushed edge's reads see it
    __syncwarp();
    AcqRelFence();
  }
  if (!queue) return;
  ForWarpEntries<kAsync>(
      P, p0, p1, lane,
      [&](const int2(&ab)[kHBatch], const int32_t (&ta)[kHBatch], const int32_t (&tb)[kHBatch],
          uint32_t in) {
        int32_t xs[2 * kHBatch];
        uint32_t want = 0;
#pragma unroll
        for (int j = 0; j < kHBatch; ++j) {
          const bool mine = (in >> j) & 1u;
          xs[2 * j] = ab[j].x;
          xs[2 * j + 1] = ab[j].y;
          want |= static_cast<uint32_t>(mine && lo < ta[j] && tb[j] >= lo) << (2 * j);
          want |= static_cast<uint32_t>(mine && lo < tb[j] && ta[j] >= lo) << (2 * j + 1);
        }
        Queue<kAsync>(P, xs, want, next);
      });
}

// Round kinds: every edge without queueing, every edge with queueing, queued edges;
// kDone: no round (the work is done).
enum class HRound { kAll, kAllQueue, kQueued, kDone };

// The asynchronous tail: with no grid syncs, each warp claims the queue's next index,
// waits until an edge is pushed there (or until pending = 0: no edge is queued or being
// updated, the fixed point) and updates it, pushing the edges its fall may lower. Its
// mark is cleared (an atomic) before its values are read, so a neighbour that falls
// after that read pushes it again, and one that fell before is seen (the fences order
// the neighbour's write before its mark exchange). An edge of at most kHLane x 32
// triangles is one group of the whole warp (kHLane entries a lane at most), a longer
// one takes the warp path.
__global__ void __launch_bounds__(kThreads, TrussPolicy::kHIndexTailBlocksPerSm)
    HIndexTailKernel(HIndexParams P) {
  __shared__ int32_t windows[kThreads / kWarp][kHWindow];
  HState* S = P.state;
  if (Load(&S->seeded_round) < 0 || Load(&S->overflow) != 0) return;
  const int lane = threadIdx.x & (kWarp - 1);
  int32_t* window = windows[threadIdx.x / kWarp];
  int32_t fell = 0;  // counted by the updates, unused here
  while (true) {
    int32_t e = -1;
    if (lane == 0) {
      const int32_t i = atomicAdd(&S->head, 1);
      for (int32_t poll = 0;; ++poll) {
        if (i < P.queue_size && (e = __ldcv(P.queue + i)) >= 0) break;
        if (poll % TrussPolicy::kHIndexPendingPolls == 0 && __ldcv(&S->pending) == 0) break;
        __nanosleep(TrussPolicy::kHIndexPollNs);
      }
      if (e >= 0) {
        atomicExch(P.mark + e, 0);
        AcqRelFence();
      }
    }
    e = __shfl_sync(kFull, e, 0);
    if (e < 0) return;
    if (Triangles(P, e) <= kHLane * kWarp) {
      GroupUpdate<kWarp, true>(P, e, 0, true, lane, kFull, fell);
    } else {
      WarpUpdate<true>(P, e, 0, true, lane, window, fell);
    }
    __syncwarp();
    if (lane == 0) atomicSub(&S->pending, 1);
  }
}

// The rounds. The first launch runs them from round 0 until the fixed point, or until
// a round queues at most kHIndexAsyncEdges edges: that round's lists then seed the
// tail's queue and the kernel returns. The second (resume, after HIndexTailKernel) ends
// the work: if the tail found its queue full, the rounds go on from the seeded round,
// every edge again first.
__global__ void __launch_bounds__(kThreads, TrussPolicy::kHIndexBlocksPerSm)
    HIndexKernel(HIndexParams P, bool resume) {
  __shared__ int32_t windows[kThreads / kWarp][kHWindow];
  __shared__ int32_t block_fell;
  cg::grid_group grid = cg::this_grid();
  const int lane = threadIdx.x & (kWarp - 1);
  const int64_t tid = int64_t{blockIdx.x} * blockDim.x + threadIdx.x;
  const int64_t stride = int64_t{gridDim.x} * blockDim.x;
  if (Load(&P.state->overflow) != 0) {
    for (int64_t e = tid; e < P.m && !resume; e += stride) P.t[e] = -1;
    return;
  }
  const int32_t seeded = Load(&P.state->seeded_round);
  if (resume && seeded < 0) return;  // the first launch reached the fixed point
  int32_t* window = windows[threadIdx.x / kWarp];
  const unsigned group_mask = ((1u << kHGroup) - 1) << (lane & ~(kHGroup - 1));
  const int32_t all_groups = Load(&P.state->groups), all_warps = Load(&P.state->warps);
  if (threadIdx.x == 0) block_fell = 0;
  __syncthreads();
  HRound kind = TrussPolicy::kHIndexAllDivisor > 0 ? HRound::kAll : HRound::kAllQueue;
  int32_t r = 0;
  if (resume) {
    kind = Load(&P.state->full) != 0 ? HRound::kAllQueue : HRound::kDone;
    r = seeded;
  }
  for (; kind != HRound::kDone; ++r) {
    const int32_t next = r + 1;
    const HSlot& now = P.state->slot[r % 3];
    if (TrussPolicy::kHIndexAsyncEdges > 0 && kind == HRound::kQueued && !resume) {
      const int64_t queued = int64_t{Load(&now.lane)} + Load(&now.group) + Load(&now.warp);
      if (queued <= TrussPolicy::kHIndexAsyncEdges && queued <= P.queue_size) {
        // Round r's lists seed the tail's queue, their edges marked as queued there.
        const int32_t lanes = Load(&now.lane), groups = Load(&now.group);
        for (int64_t i = tid; i < queued; i += stride) {
          const int32_t e = i < lanes            ? Pick(P.lane_list, r)[i]
                            : i < lanes + groups ? Pick(P.group_list, r)[i - lanes]
                                                 : Pick(P.warp_list, r)[i - lanes - groups];
          P.mark[e] = kAsyncMark;
          P.queue[i] = e;
        }
        if (tid == 0) {
          P.state->tail = static_cast<int32_t>(queued);
          P.state->pending = static_cast<int32_t>(queued);
          P.state->seeded_round = r;
        }
        return;
      }
    }
    const bool every = kind != HRound::kQueued, queue = kind != HRound::kAll;
    const int32_t lanes = every ? P.m : Load(&now.lane);
    const int32_t groups = every ? all_groups : Load(&now.group);
    const int32_t wides = every ? all_warps : Load(&now.warp);
    const int32_t* warp_list = every ? P.all_warp : Pick(P.warp_list, r);
    const int32_t* group_list = every ? P.all_group : Pick(P.group_list, r);
    int32_t fell = 0;
    // The round as one range of thread slots, so that the three paths run side by side,
    // not one after another: a warp's 32 slots per warp edge, then kHGroup per group edge,
    // then one per thread edge (all-edge rounds: every edge id, other classes skipped).
    // Warps take 32 consecutive slots (the stride is a multiple of 32), so a warp edge
    // has a whole warp and a group edge kHGroup aligned lanes.
    const int64_t warp_end = int64_t{kWarp} * wides;
    const int64_t group_end = warp_end + int64_t{kHGroup} * groups;
    const int64_t total = group_end + lanes;
    for (int64_t q0 = tid - lane; q0 < total; q0 += stride) {
      const int64_t q = q0 + lane;
      if (q0 < warp_end) {
        WarpUpdate(P, Load(warp_list + q0 / kWarp), next, queue, lane, window, fell);
      } else if (q < group_end) {
        const int32_t e = Load(group_list + (q - warp_end) / kHGroup);
        GroupUpdate<kHGroup>(P, e, next, queue, lane % kHGroup, group_mask, fell);
      } else if (q < total) {
        const int64_t i = q - group_end;
        const int32_t e = every ? static_cast<int32_t>(i) : Load(Pick(P.lane_list, r) + i);
        if (!every || Triangles(P, e) <= kHLane) GroupUpdate<1>(P, e, next, queue, 0, 0, fell);
      }
    }
    if (kind == HRound::kAll) {  // one atomic per block: the rounds' falls decide the kind
      fell = __reduce_add_sync(kFull, fell);
      if (lane == 0 && fell > 0) atomicAdd(&block_fell, fell);
      __syncthreads();
      // Taken and reset in one atomic: a plain read here could be hoisted above the
      // thread-0 test and race with the reset (compute-sanitizer racecheck).
      if (threadIdx.x == 0) {
        const int32_t block_total = atomicExch(&block_fell, 0);
        if (block_total > 0) atomicAdd(&P.state->slot[next % 3].fell, block_total);
      }
    }
    if (tid == 0) P.state->slot[(r + 2) % 3] = HSlot{0, 0, 0, 0};
    grid.sync();
    const HSlot& after = P.state->slot[next % 3];
    if (kind == HRound::kAll) {
      const int32_t lowered = Load(&after.fell);
      if (lowered == 0) break;  // every edge read values that did not change: a fixed point
      if (int64_t{lowered} * TrussPolicy::kHIndexAllDivisor <= P.m) kind = HRound::kAllQueue;
    } else {
      if (Load(&after.lane) == 0 && Load(&after.group) == 0 && Load(&after.warp) == 0) break;
      kind = HRound::kQueued;
    }
  }
  for (int64_t e = tid; e < P.m; e += stride) P.t[e] += 2;
}

}  // namespace
}  // namespace kcjax::truss
