// The CUDA k-truss peeling kernel (ffi/cuda/truss/truss.cu): one cooperative
// persistent kernel of grid-wide steps (scans, rounds, recounts).
#pragma once

#include "common.cuh"

namespace kcjax::truss {
namespace {

// The peeling loop's state. Every field is the same in all threads that run a step:
// it changes only through values they all read after the same barrier.
struct PeelState {
  int32_t s;  // step
  int32_t level;
  int32_t prev;  // what the last step did: kStart, kProbe, kScan, kRecount
  int32_t list;  // live-edge list: 0 every edge, 1 live0, 2 live1
  int32_t list_size;
  int32_t pending;  // the list the last step's scan compacted into (0: none)
  int32_t done;
  int32_t pad;
  int64_t died;  // edges removed since the list was last compacted
};
enum : int32_t { kStart = 0, kProbe = 1, kScan = 2, kRecount = 3 };

struct PeelParams {
  Csr g;
  int32_t* tag;
  int32_t* sup;
  // By step parity (fields, not arrays: a runtime index into a kernel parameter's
  // array would copy it to local memory): frontier edges, merged ones from the
  // front as {edge, a0, b0, |a| << 8 | |b|} (its ranges, so the round that removes
  // it starts its merge after one load) and chunked ones from the back (edge in .x);
  // the first chunk of every chunked edge (ascending with its position); the
  // compacted live-edge lists.
  int4* frontier0;
  int4* frontier1;
  uint32_t* offset0;
  uint32_t* offset1;
  int32_t* live0;
  int32_t* live1;
  Slot* slots;
  PeelState* records;   // the state a one-block run hands back (two, alternating)
  int32_t* truss;       // kDecompose: trussness output; else nullptr
  const int32_t* kbuf;  // kKTruss: the k (device), one level k - 3; else nullptr: levels from 0
  bool* flags;          // kKTruss: the result (cleared), its survivors set at the end; else nullptr
  const int32_t* live_count;  // the edges in the start list; nullptr: every edge (list 0)
  int32_t start_list;         // with live_count: 1 (live0) or 2 (live1)
  int32_t chunk_shift;        // a chunk is kChunkProbes << chunk_shift probes
};

// Edge x joins the frontier of step s + 1 at `level` (its trussness is level + 2).
// It goes to the merged list when its longer list is short, else to the chunked
// list with its chunk count.
__device__ __forceinline__ void Push(const PeelParams& P, int32_t x, int32_t s, int32_t level) {
  P.tag[x] = s + 1;
  if (P.truss != nullptr) P.truss[x] = level + 2;
  if (level == 0) return;  // support 0: x closes no live triangle, nothing to probe
  int32_t a0, a1, b0, b1;
  Ranges(P.g, x, a0, a1, b0, b1);
  const bool light = b1 - b0 <= kLaneList;
  Slot* slot = P.slots + s % kSlots;
  int4* buf = s & 1 ? P.frontier1 : P.frontier0;
  // Merged edges: one atomic per group of lanes that push together (the threads of
  // a warp that reached this point).
  const unsigned lights = __ballot_sync(__activemask(), light);
  if (light) {
    const int leader = __ffs(lights) - 1;
    int32_t base = 0;
    if (cuda::LaneId() == leader) base = atomicAdd(&slot->light, __popc(lights));
    base = __shfl_sync(lights, base, leader);
    buf[base + __popc(lights & cuda::LaneMaskLt())] =
        make_int4(x, a0, b0, (a1 - a0) << 8 | (b1 - b0));
    return;
  }
  // Chunked edges (few: long lists): one 64-bit atomic gives the position and the
  // first chunk together, so chunk offsets ascend with positions.
  const int shift = kLogWarp + P.chunk_shift;  // log2(kChunkProbes << chunk_shift)
  const uint32_t chunks = static_cast<uint32_t>((a1 - a0 + (1 << shift) - 1) >> shift);
  const u64 old = atomicAdd(&slot->heavy, (u64{1} << 32) | chunks);
  const uint32_t pos = static_cast<uint32_t>(old >> 32);
  buf[P.g.m - 1 - static_cast<int32_t>(pos)].x = x;
  (s & 1 ? P.offset1 : P.offset0)[pos] = static_cast<uint32_t>(old);
}

// One support decrement of live edge x at `level` (PKT): pushes x to the next
// frontier when it reaches the level; never lets it fall below.
__device__ __forceinline__ void Decrement(const PeelParams& P, int32_t x, int32_t s,
                                          int32_t level) {
  if (Load(P.sup + x) <= level) return;
  const int32_t a = atomicSub(P.sup + x, 1);
  if (a == level + 1) {
    Push(P, x, s, level);
  } else if (a <= level) {
    atomicAdd(P.sup + x, 1);
  }
}

// The triangle (e, e1, e2) as frontier edge e is removed at step s.
__device__ __forceinline__ void OnTriangle(const PeelParams& P, int32_t e, int32_t e1, int32_t e2,
                                           int32_t s, int32_t level) {
  const int32_t t1 = Load(P.tag + e1), t2 = Load(P.tag + e2);
  if (t1 < s || t2 < s) return;
  const bool f1 = t1 == s, f2 = t2 == s;
  if (f1 && f2) return;
  if (f1) {
    if (e < e1) Decrement(P, e2, s, level);
    return;
  }
  if (f2) {
    if (e < e2) Decrement(P, e1, s, level);
    return;
  }
  Decrement(P, e1, s, level);
  Decrement(P, e2, s, level);
}

// Probes [p0, p1) of frontier edge e's shorter range, a lane each, searched in the
// longer range [b0, b1).
__device__ __forceinline__ void ProbeWarp(const PeelParams& P, int32_t e, int32_t p0, int32_t p1,
                                          int32_t b0, int32_t b1, int32_t s, int32_t level,
                                          int lane) {
  const Csr& g = P.g;
  for (int32_t a = p0 + lane; a < p1; a += kWarp) {
    const int32_t w = g.indices[a];
    const int32_t b = LowerBound(g.indices, b0, b1, w);
    if (b < b1 && g.indices[b] == w) OnTriangle(P, e, g.eid[a], g.eid[b], s, level);
  }
}

// Round s: removes the frontier (nl merged edges, nh chunked edges of nc chunks).
__device__ __forceinline__ void Round(const PeelParams& P, int32_t s, int32_t level, int32_t nl,
                                      int32_t nh, uint32_t nc, int64_t tid, int64_t threads,
                                      int64_t warp, int64_t warps, int lane) {
  const Csr& g = P.g;
  const int4* buf = (s - 1) & 1 ? P.frontier1 : P.frontier0;
  const uint32_t* offset = (s - 1) & 1 ? P.offset1 : P.offset0;
  for (int64_t i = tid; i < nl; i += threads) {
    const int4 item = __ldcg(buf + i);
    const int32_t e = item.x, a0 = item.y, b0 = item.z;
    const int32_t a1 = a0 + (item.w >> 8), b1 = b0 + (item.w & 0xff);
    LaneMerge(g.indices, a0, a1, b0, b1, [&](int32_t i1, int32_t i2) {
      OnTriangle(P, e, g.eid[i1], g.eid[i2], s, level);
      return false;
    });
  }
  if (nc == 0) return;
  // Chunks [c, c_end) of this warp, contiguous; the first one's edge by binary search.
  uint32_t c = static_cast<uint32_t>(u64{nc} * warp / warps);
  const uint32_t c_end = static_cast<uint32_t>(u64{nc} * (warp + 1) / warps);
  if (c >= c_end) return;
  int32_t lo = 0, len = nh;
  while (len > 0) {  // last item with offset <= c
    const int32_t half = len >> 1;
    if (Load(offset + lo + half) <= c) {
      lo += half + 1;
      len -= half + 1;
    } else {
      len = half;
    }
  }
  const int shift = kLogWarp + P.chunk_shift;
  for (int32_t i = lo - 1; c < c_end; ++i) {
    const int32_t e = Load(&buf[g.m - 1 - i].x);
    const uint32_t first = Load(offset + i);
    const uint32_t last = i + 1 < nh ? Load(offset + i + 1) : nc;
    const uint32_t stop = min(last, c_end);
    int32_t a0, a1, b0, b1;
    Ranges(g, e, a0, a1, b0, b1);
    const int32_t p0 = a0 + static_cast<int32_t>((c - first) << shift);
    const int32_t p1 = min(a1, a0 + static_cast<int32_t>((stop - first) << shift));
    ProbeWarp(P, e, p0, p1, b0, b1, s, level, lane);
    c = stop;
  }
}

// Step s of a k-truss as a recount in place of its round: the frontier (tag s) is
// dropped and every other live edge of the list (nullptr: every edge) gets its support
// among the edges that stay (tag > s) afresh, a warp per edge. Only the edge's own warp
// writes its support, and no one reads supports in this step.
__device__ __forceinline__ void Recount(const PeelParams& P, int32_t s, const int32_t* list,
                                        int32_t size, int64_t warp, int64_t warps, int lane) {
  const Csr& g = P.g;
  for (int64_t t = warp; t < size; t += warps) {
    const int32_t e = list != nullptr ? Load(list + t) : static_cast<int32_t>(t);
    if (Load(P.tag + e) <= s) continue;  // the same e in every lane of the warp
    int32_t a0, a1, b0, b1;
    Ranges(g, e, a0, a1, b0, b1);
    int32_t c = 0;
    for (int32_t i = a0 + lane; i < a1; i += kWarp) {
      const int32_t w = g.indices[i];
      const int32_t j = LowerBound(g.indices, b0, b1, w);
      c += j < b1 && g.indices[j] == w && Load(P.tag + g.eid[i]) > s && Load(P.tag + g.eid[j]) > s;
    }
    c = WarpSum(c);
    if (lane == 0) P.sup[e] = c;
  }
}

// Step s's scan at `level`: live edges of the list (nullptr: every edge) with
// support <= level join the frontier; the others' smallest support goes to the slot,
// and with `compact` they are copied to `kept`.
__device__ __forceinline__ void Scan(const PeelParams& P, int32_t s, int32_t level,
                                     const int32_t* list, int32_t size, bool compact, int32_t* kept,
                                     int64_t tid, int64_t threads, int lane) {
  Slot* slot = P.slots + s % kSlots;
  const int64_t end = cuda::RoundUp(size, kWarp);
  int32_t low = INT_MAX;
  for (int64_t i = tid; i < end; i += threads) {
    int32_t e = 0;
    bool live = false;
    if (i < size) {
      e = list != nullptr ? Load(list + i) : static_cast<int32_t>(i);
      live = Load(P.tag + e) > s;
    }
    bool keep = false;
    if (live) {
      const int32_t sp = Load(P.sup + e);
      if (sp <= level) {
        Push(P, e, s, level);
      } else {
        keep = true;
        low = min(low, sp);
      }
    }
    if (compact) WarpPush(keep, e, kept, &slot->kept);
  }
  low = WarpMin(low);
  if (lane == 0 && low != INT_MAX) atomicMin(&slot->low, low);
}

// The threads that run a step: the grid, or block 0 alone.
struct Team {
  int64_t tid, threads, warp, warps;
  int lane;
};

__device__ __forceinline__ int32_t* ListOf(const PeelParams& P, int32_t sel) {
  return sel == 0 ? nullptr : sel == 1 ? P.live0 : P.live1;
}

// Step st.s's report from the last step; takes over the list a compacting scan wrote.
__device__ __forceinline__ Slot Read(const PeelParams& P, PeelState& st) {
  const Slot* in = P.slots + (st.s + kSlots - 1) % kSlots;
  Slot r{Load(&in->heavy), Load(&in->light), Load(&in->low), Load(&in->kept), 0};
  if (st.pending != 0) {
    st.list = st.pending;
    st.list_size = r.kept;
    st.pending = 0;
  }
  return r;
}

// A record written by block 0 before the last grid sync (read from L2: an older
// record at the same place may sit in this SM's L1).
__device__ __forceinline__ PeelState LoadState(const PeelState* p) {
  PeelState st;
  st.s = Load(&p->s);
  st.level = Load(&p->level);
  st.prev = Load(&p->prev);
  st.list = Load(&p->list);
  st.list_size = Load(&p->list_size);
  st.pending = Load(&p->pending);
  st.done = Load(&p->done);
  st.pad = 0;
  st.died = __ldcg(reinterpret_cast<const long long*>(&p->died));
  return st;
}

// Whether block 0 alone runs the step: a small frontier, or a scan of a short list.
__device__ __forceinline__ bool Small(const PeelState& st, const Slot& r) {
  const int32_t nh = static_cast<int32_t>(r.heavy >> 32);
  if (r.light + int64_t{nh} > 0) {
    return r.light <= TrussPolicy::kTailFrontier &&
           static_cast<uint32_t>(r.heavy) <= TrussPolicy::kTailChunks;
  }
  return st.list_size <= TrussPolicy::kTailScan;
}

// Runs step st.s with team T (a round, or a scan), or sets st.done when the peeling
// is over. The caller then clears the next slot, syncs and advances st.s.
__device__ __forceinline__ void Step(const PeelParams& P, PeelState& st, const Slot& r,
                                     const Team& T) {
  const bool single = P.kbuf != nullptr;
  const int32_t nh = static_cast<int32_t>(r.heavy >> 32);
  const int64_t frontier = r.light + int64_t{nh};
  // Step 1 of a k-truss from the prefilter's list is the round after its first scan
  // (step 0), which compacted nothing (a list, none dead): the list then holds the
  // frontier and every live edge.
  constexpr int kPercent = TrussPolicy::kRoundRecountPercent;
  if (single && P.live_count != nullptr && st.s == 1 && kPercent <= 100 && frontier > 0 &&
      frontier * 100 >= int64_t{st.list_size} * kPercent) {
    Recount(P, st.s, ListOf(P, st.list), st.list_size, T.warp, T.warps, T.lane);
    st.died += frontier;
    st.prev = kRecount;  // the next step scans the same level
    return;
  }
  if (frontier > 0) {
    Round(P, st.s, st.level, r.light, nh, static_cast<uint32_t>(r.heavy), T.tid, T.threads, T.warp,
          T.warps, T.lane);
    st.died += frontier;
    st.prev = kProbe;
    return;
  }
  if (st.prev == kProbe) {  // the level's last round is done
    if (single) {
      st.done = 1;
      return;
    }
    ++st.level;
  } else if (st.prev == kScan) {  // the scan removed nothing to probe: jump
    if (single || r.low == INT_MAX) {
      st.done = 1;
      return;
    }
    st.level = r.low;
  }
  const bool compact = st.list == 0 || st.died * TrussPolicy::kCompactDivisor >= st.list_size;
  const int32_t into = st.list == 1 ? 2 : 1;
  Scan(P, st.s, st.level, ListOf(P, st.list), st.list_size, compact, ListOf(P, into), T.tid,
       T.threads, T.lane);
  if (compact) {
    st.pending = into;
    st.died = 0;
  }
  st.prev = kScan;
}

__global__ void __launch_bounds__(kThreads, TrussPolicy::kPeelBlocksPerSm)
    PeelKernel(PeelParams P) {
  if (SmallK(P.kbuf)) return;  // every block reads the same k: none reaches a grid sync
  cg::grid_group grid = cg::this_grid();
  const int64_t tid = int64_t{blockIdx.x} * blockDim.x + threadIdx.x;
  const int64_t threads = int64_t{gridDim.x} * blockDim.x;
  const int lane = threadIdx.x & (kWarp - 1);
  const Team all{tid, threads, tid / kWarp, threads / kWarp, lane};
  const Team one{threadIdx.x, blockDim.x, threadIdx.x / kWarp, blockDim.x / kWarp, lane};

  PeelState st{0, P.kbuf != nullptr ? *P.kbuf - 3 : 0, kStart, 0, P.g.m, 0, 0, 0, 0};
  if (P.live_count != nullptr) {
    st.list = P.start_list;
    st.list_size = Load(P.live_count);
  }
  for (int32_t runs = 0;;) {
    Slot r = Read(P, st);
    if (Small(st, r)) {
      // Block 0 runs the steps alone, with block barriers, while they stay small; the
      // other blocks wait at the grid sync and then take its state from a record
      // (two, alternating: a record is rewritten only after a further grid sync).
      PeelState* record = P.records + (runs & 1);
      if (blockIdx.x == 0) {
        while (true) {
          Step(P, st, r, one);
          if (st.done) break;
          if (threadIdx.x == 0) P.slots[(st.s + 1) % kSlots] = Slot{0, 0, INT_MAX, 0, 0};
          __syncthreads();
          ++st.s;
          r = Read(P, st);
          if (!Small(st, r)) break;
        }
        if (threadIdx.x == 0) *record = st;
      }
      grid.sync();
      st = LoadState(record);
      ++runs;
      if (st.done) break;
      continue;
    }
    Step(P, st, r, all);
    if (st.done) break;
    if (tid == 0) P.slots[(st.s + 1) % kSlots] = Slot{0, 0, INT_MAX, 0, 0};
    grid.sync();
    ++st.s;
  }
  // The step that ends the peeling writes nothing, and the list holds every live
  // edge (a compacting scan's list is taken over before that step): the k-truss is
  // the list's edges never removed.
  if (P.flags == nullptr) return;
  const int32_t* list = ListOf(P, st.list);
  for (int64_t i = tid; i < st.list_size; i += threads) {
    const int32_t e = list != nullptr ? Load(list + i) : static_cast<int32_t>(i);
    if (Load(P.tag + e) == kLiveTag) P.flags[e] = true;
  }
}

}  // namespace
}  // namespace kcjax::truss
