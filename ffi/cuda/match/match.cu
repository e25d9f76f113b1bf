// The search behind the CUDA handlers of "kcjax_match_count" and "kcjax_match_list"
// (handlers in match_cuda.cc, host interface in kcjax/match/match_cuda.h, contracts
// in kcjax/match/match.h; reference: ffi/cpu/match/match.cc).
//
// Warp-per-unit depth-first backtracking with work donation. A static unit is
// one root and one chunk of task_width entries of its level-1 source list
// (task_ptr, built by the caller, gives each root's chunk count). A warp keeps
// its search stack in shared memory: per level the image, its CSR row, the
// source list, the chunk position and the ballot of valid candidates of the
// chunk still to descend into. Each lane checks one candidate (candidate
// bitmap, the order constraints against earlier images, multiplicity,
// adjacency to the other backward images by binary search in the shorter row,
// non-adjacency for induced matching); the last level is
// counted with a warp reduction (or written out, for listing) instead of
// descended.
//
// Load balance: roots are few on selective queries (one root and one level-1
// vertex on some), so static units alone leave most warps idle while one warp
// walks a deep tree. Persistent warps take static units from an atomic
// counter, then each takes one ticket t of a ring of donated units and waits
// until item t is published; a busy warp that sees tickets without items
// (every kDonateEvery chunk steps) splits off the unexplored part of its
// shallowest level that has any (half of the pending ballot bits and half of
// the unscanned range, with the images above it) and publishes it as the next
// item. A ticket is one atomic per idle warp: thousands of idle warps racing
// for each item with compare-and-swap serialized on one word.
// Termination: `open` counts the units taken or published and not finished
// (a donor counts its donation before publishing it, while its own unit is
// still open), so open == 0 means no work exists anywhere and never will
// again (only open units donate); a warp leaves only when the static units
// are gone and open == 0, so warps need not be co-resident, and a ticket left
// unserved then has no item to wait for. Counts are 128-bit.
#include <cuda_runtime.h>

#include <cstdint>

#include "kcjax/core/ffi.h"
#include "kcjax/cuda/intersect.cuh"
#include "kcjax/cuda/scratch.h"
#include "kcjax/cuda/warp.cuh"
#include "kcjax/cuda/wide.cuh"
#include "kcjax/match/match.h"
#include "kcjax/match/match_cuda.h"
#include "kcjax/match/policy.h"

namespace ffi = xla::ffi;

namespace kcjax::match {
namespace {

using u128 = unsigned __int128;
using cuda::kFull;
using cuda::u64;
using P = MatchPolicy;

struct WarpStack {
  const int32_t* src[kMaxQuery];
  u128 weight[kMaxQuery];  // product of the weights of levels <= i
  int32_t img[kMaxQuery];
  int32_t row[kMaxQuery];  // indptr[img[i]]
  int32_t deg[kMaxQuery];  // degree of img[i]
  int32_t pos[kMaxQuery];
  int32_t end[kMaxQuery];
  int32_t base[kMaxQuery];
  uint32_t mask[kMaxQuery];
  int32_t pivot[kMaxQuery];
  u128 acc;    // lane 0: weighted embeddings of the current unit
  u128 total;  // lane 0: of every unit so far (one total)
  // A received unit (Receive): its level, root index, range, ballot bits and base.
  int32_t in_level, in_ri, in_pos, in_end, in_base;
  uint32_t in_mask;
};

// The shared counters of one launch (zeroed by the handler), each on its own
// 128-byte line: waiting warps poll `head` and `open`, donors read `tail`.
struct WorkQueue {
  alignas(128) u64 head;       // ring items reserved by donors
  alignas(128) u64 tail;       // tickets taken by waiting warps
  alignas(128) u64 next_task;  // static units handed out
  alignas(128) u64 open;       // units taken or published and not finished
};

// One donated unit: levels < level fixed to img; level's candidates are the
// ballot bits mask at base plus source entries [pos, end).
// A slot serves ring items i, i + K, i + 2K, ... (K slots) in turn: state 2r
// means free for the item of round r, 2r + 1 holding it (zeroed: free for
// round 0), so a donor never overwrites an item not yet read.
struct Donation {
  u64 state;
  int32_t level, ri, base, pos, end;
  uint32_t mask;
  int32_t img[kMaxQuery];
};

__device__ __forceinline__ u64 Volatile(const u64* p) {
  return *reinterpret_cast<const volatile u64*>(p);
}

// Column col of level's plan row (kcjax/match/match.h).
__device__ __forceinline__ int32_t PlanAt(const MatchView& m, int level, int col) {
  return __ldg(m.plan + kPlanCols * level + col);
}

__device__ __forceinline__ bool InCand(const MatchView& m, int level, int32_t v) {
  return (__ldg(m.cand + level * m.words + (v >> 5)) >> (v & 31)) & 1u;
}

// a (row ra, degree da) and b (row rb, degree db) adjacent: a search of the
// shorter row that stops at the first hit.
__device__ __forceinline__ bool Adjacent(const MatchView& m, int32_t a, int32_t ra, int32_t da,
                                         int32_t b, int32_t rb, int32_t db) {
  if (db < da) {
    ra = rb;
    da = db;
    b = a;
  }
  int32_t lo = ra, hi = ra + da;
  while (lo < hi) {
    const int32_t mid = (lo + hi) >> 1;
    const int32_t x = __ldg(m.indices + mid);
    if (x == b) return true;
    if (x < b) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  return false;
}

// Lane 0: level's image v with weight w (its row cached for the checks below).
__device__ __forceinline__ void SetImage(const MatchView& m, WarpStack& s, int level, int32_t v,
                                         uint32_t w) {
  const int32_t r0 = __ldg(m.indptr + v);
  s.img[level] = v;
  s.row[level] = r0;
  s.deg[level] = __ldg(m.indptr + v + 1) - r0;
  s.weight[level] = (level == 0 ? u128{1} : s.weight[level - 1]) * w;
}

// Sets up level's source list (all lanes compute it; lane 0 stores it).
__device__ __forceinline__ void InitLevel(const MatchView& m, WarpStack& s, int level, int lane,
                                          int32_t first, int32_t last) {
  __syncwarp();
  const uint32_t back = static_cast<uint32_t>(PlanAt(m, level, kBack));
  const int32_t* src;
  int32_t len, pivot = -1;
  if (back != 0) {
    int32_t best = -1;
    for (uint32_t b = back; b; b &= b - 1) {
      const int j = __ffs(b) - 1;
      const int32_t d = s.deg[j];
      if (best < 0 || d < best) {
        best = d;
        pivot = j;
      }
    }
    src = m.indices + s.row[pivot];
    len = best;
  } else {
    src = m.lists + static_cast<int64_t>(PlanAt(m, level, kListRow)) * m.list_stride;
    len = PlanAt(m, level, kListLen);
  }
  __syncwarp();
  if (lane == 0) {
    s.src[level] = src;
    s.pivot[level] = pivot;
    s.pos[level] = first;
    s.end[level] = last < 0 || last > len ? len : last;
    s.mask[level] = 0;
  }
  __syncwarp();
}

// Weight of v at level (0: not a valid image).
__device__ __forceinline__ uint32_t Check(const MatchView& m, const WarpStack& s, int level,
                                          int32_t v) {
  if (v < 0 || v >= m.num_nodes || !InCand(m, level, v)) return 0;
  for (uint32_t b = static_cast<uint32_t>(PlanAt(m, level, kAbove)); b; b &= b - 1)
    if (v <= s.img[__ffs(b) - 1]) return 0;
  for (uint32_t b = static_cast<uint32_t>(PlanAt(m, level, kUnder)); b; b &= b - 1)
    if (v >= s.img[__ffs(b) - 1]) return 0;
  int used = 0;
  for (int j = 0; j < level; ++j) used += s.img[j] == v;
  const int32_t mult = __ldg(m.mult + v);
  if (used >= mult) return 0;
  const uint32_t back = static_cast<uint32_t>(PlanAt(m, level, kBack));
  const uint32_t nonadj = static_cast<uint32_t>(PlanAt(m, level, kNonAdj));
  const int pivot = s.pivot[level];
  const uint32_t others = back & ~(pivot >= 0 ? (1u << pivot) : 0u);
  if ((others | nonadj) == 0) return static_cast<uint32_t>(mult - used);
  const int32_t rv = __ldg(m.indptr + v);
  const int32_t dv = __ldg(m.indptr + v + 1) - rv;
  for (uint32_t b = others; b; b &= b - 1) {
    const int j = __ffs(b) - 1;
    if (!Adjacent(m, s.img[j], s.row[j], s.deg[j], v, rv, dv)) return 0;
  }
  for (uint32_t b = nonadj; b; b &= b - 1) {
    const int j = __ffs(b) - 1;
    if (Adjacent(m, s.img[j], s.row[j], s.deg[j], v, rv, dv)) return 0;
  }
  return static_cast<uint32_t>(mult - used);
}

// cell[0..1] += v (one 128-bit count of counts).
__device__ __forceinline__ void AddCount(u64* cell, u128 v) {
  cuda::AtomicAdd128(cell, static_cast<u64>(v), static_cast<u64>(v >> 64));
}

// Lane 0: the next static unit, counted open; ~0 once they are gone.
__device__ __forceinline__ u64 TakeStatic(WorkQueue* wq, int64_t num_tasks) {
  atomicAdd(&wq->open, 1ull);
  __threadfence();
  const u64 t = atomicAdd(&wq->next_task, 1ull);
  if (static_cast<int64_t>(t) < num_tasks) return t;
  atomicAdd(&wq->open, ~0ull);
  __threadfence();
  return ~0ull;
}

// Lane 0: takes a ticket and waits for its ring item; ~0 when no work is left
// anywhere.
__device__ __forceinline__ u64 Claim(WorkQueue* wq) {
  const u64 t = atomicAdd(&wq->tail, 1ull);
  for (;;) {
    const u64 h = Volatile(&wq->head);
    if (t < h) return t;
    if (Volatile(&wq->open) == 0) return ~0ull;
    // The next ticket to be served polls most often; one further back, less.
    __nanosleep(static_cast<unsigned>(
        min(static_cast<u64>(P::kIdleSleepMaxNs), (t - h + 1) * P::kIdleSleepNs)));
  }
}

// Lane 0: copies ring item t into the stack (images, weights, the in_*
// fields); frees the slot.
__device__ __forceinline__ void Receive(const MatchView& m, WarpStack& s, Donation* ring, u64 t) {
  Donation* d = ring + t % P::kRingSlots;
  const u64 round = t / P::kRingSlots;
  while (Volatile(&d->state) != 2 * round + 1) __nanosleep(32);
  __threadfence();
  const volatile Donation* vd = d;
  const int level = vd->level;
  s.in_level = level;
  s.in_ri = vd->ri;
  s.in_pos = vd->pos;
  s.in_end = vd->end;
  s.in_mask = vd->mask;
  s.in_base = vd->base;
  for (int j = 0; j < level; ++j) {
    const int32_t v = vd->img[j];
    int used = 0;
    for (int i = 0; i < j; ++i) used += s.img[i] == v;
    SetImage(m, s, j, v, static_cast<uint32_t>(__ldg(m.mult + v) - used));
  }
  __threadfence();
  atomicExch(&d->state, 2 * round + 2);
}

// Lane 0: publishes the unexplored part of level l (ballot bits give at
// base[l], source entries [from, to)) with the images above it.
__device__ __forceinline__ void Publish(WorkQueue* wq, Donation* ring, const WarpStack& s, int l,
                                        int32_t ri, uint32_t give, int32_t from, int32_t to) {
  atomicAdd(&wq->open, 1ull);
  __threadfence();
  const u64 h = atomicAdd(&wq->head, 1ull);
  Donation* d = ring + h % P::kRingSlots;
  const u64 round = h / P::kRingSlots;
  while (Volatile(&d->state) != 2 * round) __nanosleep(32);
  d->level = l;
  d->ri = ri;
  d->base = s.base[l];
  d->pos = from;
  d->end = to;
  d->mask = give;
  for (int j = 0; j < l; ++j) d->img[j] = s.img[j];
  __threadfence();
  atomicExch(&d->state, 2 * round + 1);
}

// Called by the whole warp at a chunk step of `level` (unit starting at l0):
// if a ticket waits for an item, splits off half of the shallowest level in
// [l0, min(level, q - 1 - kDonateLeafGap)] that has unexplored candidates.
// Donors that look at once may publish more items than tickets; the excess
// waits for later tickets. Items in the ring, at most one per waiting ticket
// plus one per donor that looked at once, stay under kRingSlots (the grid has
// at most kRingSlots / 2 warps).
__device__ __forceinline__ void MaybeDonate(WorkQueue* wq, Donation* ring, WarpStack& s, int l0,
                                            int level, int q, int32_t ri, int lane) {
  int want = 0;
  if (lane == 0) want = Volatile(&wq->tail) > Volatile(&wq->head);
  if (!__shfl_sync(kFull, want, 0)) return;
  const int top = min(level, q - 1 - P::kDonateLeafGap);
  if (lane == 0) {
    for (int l = l0; l <= top; ++l) {
      const uint32_t mk = s.mask[l];
      const int32_t p = s.pos[l], e = s.end[l];
      if (mk == 0 && p >= e) continue;
      const int bits = __popc(mk);
      const int32_t r = e > p ? e - p : 0;
      // Below level l the donor works in a subtree, so it may give all of l; at
      // l == level it keeps an entry (else one unit could pass warp to warp).
      const bool busy = l < level;
      int give_bits = !busy ? 0 : (r == 0 && bits == 1 ? 1 : bits / 2);
      const int32_t mid = min(e, p + (busy || r >= 2 ? r / 2 : r));
      if (give_bits == 0 && mid >= e) continue;
      uint32_t give = 0;
      for (uint32_t b = mk; give_bits > 0; --give_bits) {  // the highest bits
        const uint32_t top_bit = 1u << (31 - __clz(b));
        give |= top_bit;
        b &= ~top_bit;
      }
      s.mask[l] = mk & ~give;
      s.end[l] = mid;
      Publish(wq, ring, s, l, ri, give, mid, e);
      break;
    }
  }
  __syncwarp();
}

// kList: write embeddings to rows (capacity cap) and count them in *found;
// else add counts to counts (per root or one total).
template <bool kList>
__global__ void __launch_bounds__(32 * P::kWarpsPerBlock, P::kMinBlocksPerSm)
    MatchKernel(MatchView m, const int32_t* __restrict__ roots,
                const int32_t* __restrict__ task_ptr, int64_t r, int32_t width, WorkQueue* wq,
                Donation* ring, u64* counts, bool per_root, int32_t* rows, int64_t cap,
                u64* found) {
  __shared__ WarpStack stacks[P::kWarpsPerBlock];
  const int lane = cuda::LaneId();
  WarpStack& s = stacks[cuda::WarpInBlock()];
  const int64_t num_tasks = __ldg(task_ptr + r);
  const int q = m.q;
  if (lane == 0) s.total = 0;
  bool fresh = true;  // static units may remain
  int clock = 0;
  for (;;) {
    int l0 = 1;
    int32_t ri = 0;
    u64 task = ~0ull;
    if (fresh) {
      if (lane == 0) task = TakeStatic(wq, num_tasks);
      task = __shfl_sync(kFull, task, 0);
      fresh = task != ~0ull;
    }
    bool skip = false;
    if (fresh) {
      // The root owning this unit: the last i < r with task_ptr[i] <= task (0
      // if none), i.e. how many of task_ptr[1, r) are <= task.
      ri = cuda::LowerBound(task_ptr + 1, static_cast<int>(r - 1), static_cast<int32_t>(task) + 1);
      const int32_t chunk = static_cast<int32_t>(task - __ldg(task_ptr + ri));
      const int32_t root = __ldg(roots + ri);
      skip = root < 0 || root >= m.num_nodes || !InCand(m, 0, root) || __ldg(m.mult + root) <= 0;
      if (!skip) {
        __syncwarp();
        if (lane == 0) SetImage(m, s, 0, root, static_cast<uint32_t>(__ldg(m.mult + root)));
        __syncwarp();
        if (q == 1) {
          if (kList) {
            if (lane == 0) {
              const u64 slot = atomicAdd(found, 1ull);
              if (slot < static_cast<u64>(cap)) rows[slot] = root;
            }
          } else if (lane == 0) {
            if (per_root) {
              AddCount(counts + 2 * ri, s.weight[0]);
            } else {
              s.total += s.weight[0];
            }
          }
          skip = true;
        } else {
          InitLevel(m, s, 1, lane, chunk * width, chunk * width + width);
        }
      }
    } else {
      u64 item = 0;
      if (lane == 0) item = Claim(wq);
      item = __shfl_sync(kFull, item, 0);
      if (item == ~0ull) break;
      __syncwarp();
      if (lane == 0) Receive(m, s, ring, item);
      __syncwarp();
      l0 = s.in_level;
      ri = s.in_ri;
      InitLevel(m, s, l0, lane, s.in_pos, s.in_end);
      if (lane == 0) {
        s.mask[l0] = s.in_mask;
        s.base[l0] = s.in_base;
      }
      __syncwarp();
    }
    if (kList && !skip) {
      int full = 0;  // read once and broadcast: every lane must leave together
      if (lane == 0) full = *reinterpret_cast<volatile u64*>(found) > static_cast<u64>(cap);
      skip = __shfl_sync(kFull, full, 0);
    }
    if (lane == 0) s.acc = 0;
    int level = l0;
    while (!skip && level >= l0) {
      if (s.mask[level] == 0) {
        if (++clock == P::kDonateEvery) {
          clock = 0;
          MaybeDonate(wq, ring, s, l0, level, q, ri, lane);
        }
        const int32_t p = s.pos[level];
        if (p >= s.end[level]) {
          --level;
          continue;
        }
        const int32_t idx = p + lane;
        const int32_t v = idx < s.end[level] ? __ldg(s.src[level] + idx) : -1;
        const uint32_t w = Check(m, s, level, v);
        const uint32_t bal = __ballot_sync(kFull, w != 0);
        __syncwarp();
        if (lane == 0) s.pos[level] = p + 32;
        __syncwarp();
        if (level == q - 1) {
          if (kList) {
            u64 slot = 0;
            if (lane == 0 && bal) slot = atomicAdd(found, static_cast<u64>(__popc(bal)));
            slot = __shfl_sync(kFull, slot, 0);
            if (w != 0) {
              const u64 at = slot + __popc(bal & cuda::LaneMaskLt());
              if (at < static_cast<u64>(cap)) {
                int32_t* row = rows + at * q;
                for (int j = 0; j < q - 1; ++j) row[j] = s.img[j];
                row[q - 1] = v;
              }
            }
            if (bal && slot + __popc(bal) > static_cast<u64>(cap)) break;
          } else {
            const u64 sum = cuda::WarpSum64(w);
            if (lane == 0) s.acc += s.weight[level - 1] * static_cast<u128>(sum);
          }
          continue;
        }
        if (lane == 0) {
          s.mask[level] = bal;
          s.base[level] = p;
        }
        __syncwarp();
      } else {
        const uint32_t mk = s.mask[level];
        const int bit = __ffs(mk) - 1;
        const int32_t v = __ldg(s.src[level] + s.base[level] + bit);
        int used = 0;
        for (int j = 0; j < level; ++j) used += s.img[j] == v;
        const uint32_t w = static_cast<uint32_t>(__ldg(m.mult + v) - used);
        __syncwarp();
        if (lane == 0) {
          s.mask[level] = mk & (mk - 1);
          SetImage(m, s, level, v, w);
        }
        __syncwarp();
        ++level;
        InitLevel(m, s, level, lane, 0, -1);
        if (!kList && level == q - 1 && level >= 2 && s.pivot[level] >= 0 &&
            (PlanAt(m, level, kNonAdj) | PlanAt(m, level, kAbove) | PlanAt(m, level, kUnder)) ==
                0 &&
            __popc(static_cast<uint32_t>(PlanAt(m, level, kBack))) == 1) {
          // One backward neighbour and no other condition: the precomputed
          // candidate-neighbour sum of the pivot image, less the earlier
          // images among them.
          const int pj = s.pivot[level];
          const bool hit =
              lane < level && InCand(m, level, s.img[lane]) &&
              Adjacent(m, s.img[pj], s.row[pj], s.deg[pj], s.img[lane], s.row[lane], s.deg[lane]);
          const int used = __popc(__ballot_sync(kFull, hit));
          if (lane == 0) {
            const int64_t leaf = static_cast<int64_t>(__ldg(m.leaf_sum + s.img[pj])) - used;
            s.acc += s.weight[level - 1] * static_cast<u128>(leaf);
          }
          --level;
        }
      }
    }
    if (!kList && lane == 0 && s.acc) {
      if (per_root) {
        AddCount(counts + 2 * ri, s.acc);
      } else {
        s.total += s.acc;
      }
    }
    __syncwarp();
    if (lane == 0) atomicAdd(&wq->open, ~0ull);  // this unit is finished
  }
  if (!kList && !per_root && lane == 0 && s.total) AddCount(counts, s.total);
}

__global__ void StoreFound(const u64* found, int64_t cap, uint32_t* out) {
  const u64 f = *found > static_cast<u64>(cap) ? static_cast<u64>(cap) + 1 : *found;
  out[0] = static_cast<uint32_t>(f);
  out[1] = static_cast<uint32_t>(f >> 32);
  out[2] = 0;
  out[3] = 0;
}

// The work queue and its donation ring, zeroed on the stream (nullptr if
// scratch is exhausted).
WorkQueue* NewQueue(cuda::DeviceScratch& scratch, cudaStream_t stream, cudaError_t* err) {
  constexpr size_t kBytes = sizeof(WorkQueue) + sizeof(Donation) * P::kRingSlots;
  auto* wq = static_cast<WorkQueue*>(scratch.Allocate(kBytes));
  if (wq != nullptr) *err = cudaMemsetAsync(wq, 0, kBytes, stream);
  return wq;
}

Donation* RingOf(WorkQueue* wq) { return reinterpret_cast<Donation*>(wq + 1); }

template <bool kList>
cudaError_t Launch(cudaStream_t stream, const MatchView& view, const int32_t* roots,
                   const int32_t* task_ptr, int64_t r, int32_t width, WorkQueue* wq, u64* counts,
                   bool per_root, int32_t* rows, int64_t cap, u64* found) {
  int sms = 0, per_sm = 0;
  cuda::SmCount(&sms);
  const int threads = 32 * P::kWarpsPerBlock;
  cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, MatchKernel<kList>, threads, 0);
  // At most kRingSlots / 2 warps: the ring then never holds more items than slots.
  const int blocks = min(sms * (per_sm > 0 ? per_sm : 1), P::kRingSlots / (2 * P::kWarpsPerBlock));
  MatchKernel<kList><<<blocks, threads, 0, stream>>>(
      view, roots, task_ptr, r, width, wq, RingOf(wq), counts, per_root, rows, cap, found);
  return cudaGetLastError();
}

}  // namespace

ffi::Error RunCount(const MatchSearch& s, bool per_root, uint32_t* out, size_t out_bytes,
                    cuda::DeviceScratch& scratch, const Reporter& rep, cudaStream_t stream) {
  cudaError_t err = cudaMemsetAsync(out, 0, out_bytes, stream);
  if (err != cudaSuccess) return rep.Cuda("memset", err);
  if (s.num_roots == 0) return ffi::Error::Success();
  WorkQueue* wq = NewQueue(scratch, stream, &err);
  if (wq == nullptr) return rep.Exhausted(sizeof(WorkQueue), "the work queue");
  if (err != cudaSuccess) return rep.Cuda("memset", err);
  err = Launch<false>(stream, s.view, s.roots, s.task_ptr, s.num_roots, s.task_width, wq,
                      reinterpret_cast<u64*>(out), per_root, nullptr, 0, nullptr);
  if (err != cudaSuccess) return rep.Cuda("launch", err);
  return ffi::Error::Success();
}

ffi::Error RunList(const MatchSearch& s, int32_t* rows, int64_t cap, uint32_t* found_out,
                   cuda::DeviceScratch& scratch, const Reporter& rep, cudaStream_t stream) {
  cudaError_t err = cudaMemsetAsync(rows, 0xff, static_cast<size_t>(cap) * s.view.q * 4, stream);
  if (err != cudaSuccess) return rep.Cuda("memset", err);
  auto* found = static_cast<u64*>(scratch.Allocate(sizeof(u64)));
  if (found == nullptr) return rep.Exhausted(sizeof(u64), "the embedding counter");
  if ((err = cudaMemsetAsync(found, 0, sizeof(u64), stream)) != cudaSuccess)
    return rep.Cuda("memset", err);
  if (s.num_roots > 0) {
    WorkQueue* wq = NewQueue(scratch, stream, &err);
    if (wq == nullptr) return rep.Exhausted(sizeof(WorkQueue), "the work queue");
    if (err != cudaSuccess) return rep.Cuda("memset", err);
    err = Launch<true>(stream, s.view, s.roots, s.task_ptr, s.num_roots, s.task_width, wq, nullptr,
                       false, rows, cap, found);
    if (err != cudaSuccess) return rep.Cuda("launch", err);
  }
  StoreFound<<<1, 1, 0, stream>>>(found, cap, found_out);
  if ((err = cudaGetLastError()) != cudaSuccess) return rep.Cuda("launch", err);
  return ffi::Error::Success();
}

}  // namespace kcjax::match
