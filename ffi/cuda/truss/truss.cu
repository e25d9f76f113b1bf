// The launchers behind the CUDA handlers of "kcjax_truss" and
// "kcjax_truss_triangle_edges" (handlers in truss_cuda.cc, host interface in
// kcjax/truss/truss_cuda.h, contracts in kcjax/truss/truss.h; the twins of
// ffi/cpu/truss/truss.cc). The kernels are in common.cuh (shared pieces),
// prefilter.cuh (the first kernels), support.cuh (the support passes), peel.cuh (the
// peeling kernel) and hindex.cuh (the h-index rounds); this file launches them.
//
// "kcjax_truss_triangle_edges" (the 3-truss) is one kernel: every edge looks for
// one common neighbour of its ends and stops at the first (WarpInTriangle).
//
// "kcjax_truss", all on the XLA stream with no host synchronization: the first
// kernel marks the live edges (k-core prefilter; with it, the edges that pass
// are also listed, and the support pass and the peeling work on that list
// alone, so a large k costs one pass over m plus work on the kept edges), then
//   * k-truss with a runtime k <= 3: the first kernel does it in one pass (the
//     3-truss is the edges in a triangle: removing edges of support 0 removes
//     no triangle); the later kernels see k and return;
//   * otherwise count supports by the chosen pass and peel in one cooperative
//     persistent kernel of grid-wide steps. A step either scans the live-edge
//     list for a level's first frontier (support <= level; the list is
//     compacted as it shrinks, so scans cost O(live), not O(m)), or runs one
//     synchronous round: the frontier is removed and the other two edges of
//     every live triangle lose a support (PKT's rule for triangles with two
//     frontier edges); edges that fall to the level form the next frontier.
//     One grid-wide sync per step: an edge's state is the step that removes it
//     (its tag), so removal needs no retiring pass, and every counter a step
//     writes lives in one of three slots (written at step s, read at s + 1,
//     cleared at s + 2). Frontier edges with short lists are merged by one
//     thread; longer ones are cut into chunks of warp probes that the whole grid
//     shares, so no hub edge serializes a round. Level 0 removes edges of
//     support 0, which close no live triangle: they are not probed. Runs of
//     small steps (a tail round, a scan of a short list) go to block 0 alone
//     with block barriers while the other blocks wait at the next grid sync.
//     A k-truss's result is cleared by the first kernel and its survivors set
//     by the peeling kernel as it ends.
//   * kHIndex (hindex.cuh): with store_entries (the degree bound) known, no first
//     kernel and no support pass: each edge gets min(deg u, deg v) - 1 slots of a
//     store of that many entries, the triangles are listed into it (counting each
//     edge's), and the h-index rounds run in one cooperative kernel; no host sync.
//     Otherwise (store_entries -1, or that store does not fit) after the supports
//     their scan gives the store's offsets, its size is read back (the call's one
//     host sync) and, if the store fits, the same kernels run; else the peeling
//     above answers.

#include <cub/device/device_scan.cuh>

#include "common.cuh"
#include "hindex.cuh"
#include "kcjax/truss/truss_cuda.h"
#include "peel.cuh"
#include "prefilter.cuh"
#include "support.cuh"

namespace kcjax::truss {
namespace {

// Resident blocks per SM of the cooperative `Kernel` (kThreads, static shared memory
// only): the occupancy query, once per device.
template <auto Kernel>
cudaError_t BlocksPerSm(int* per_sm) {
  static std::array<std::atomic<int>, cuda::kMaxDevices> known{};
  int device = 0;
  cudaError_t err = cudaGetDevice(&device);
  if (err != cudaSuccess) return err;
  const bool cached = device >= 0 && device < static_cast<int>(known.size());
  if (cached && (*per_sm = known[device].load(std::memory_order_relaxed)) > 0) return cudaSuccess;
  err = cudaOccupancyMaxActiveBlocksPerMultiprocessor(per_sm, Kernel, kThreads, 0);
  if (err == cudaSuccess && cached) known[device].store(*per_sm, std::memory_order_relaxed);
  return err;
}

int Blocks(int64_t work_threads, int sms) {
  const int64_t b = (work_threads + kThreads - 1) / kThreads;
  return static_cast<int>(std::clamp<int64_t>(b, 1, int64_t{sms} * 32));
}

// Smallest s for which a round's chunks (kChunkProbes << s probes each) fit 32 bits:
// a round probes at most sum_e min(d_u, d_v) <= 2m (sqrt(2m) + 1) entries
// (Chiba & Nishizeki), plus one partial chunk per edge.
int32_t ChunkShift(int64_t m) {
  const double probes = 2.0 * m * (std::sqrt(2.0 * m) + 1.0);
  int32_t s = 0;
  while (probes / (double{TrussPolicy::kChunkProbes} * (int64_t{1} << s)) + m >= 4.0e9) ++s;
  return s;
}

struct DagArgs {
  const int32_t* indptr;
  const int32_t* indices;
  const int32_t* src;
  const int32_t* eid;
};

// off[1, n] scanned in place (inclusive): off[i] becomes where item i starts.
ffi::Error ScanOffsets(cudaStream_t stream, cuda::DeviceScratch& scratch, const Reporter& report,
                       int64_t* off, int32_t n, const char* what) {
  size_t temp_bytes = 0;
  cudaError_t err = cub::DeviceScan::InclusiveSum(nullptr, temp_bytes, off + 1, off + 1, n, stream);
  if (err != cudaSuccess) return report.Cuda(what, err);
  void* temp = scratch.Allocate(temp_bytes);
  if (temp == nullptr) return report.Exhausted(temp_bytes, what);
  err = cub::DeviceScan::InclusiveSum(temp, temp_bytes, off + 1, off + 1, n, stream);
  if (err != cudaSuccess) return report.Cuda(what, err);
  return ffi::Error::Success();
}

// The grid of a DagTriangles pass over all m DAG edges: every block resident at once,
// and no more blocks than tiles of kThreads edges.
template <auto Kernel>
ffi::Error DagBlocks(const Reporter& report, int32_t m, int sms, int* grid) {
  int per_sm = 0;
  cudaError_t err = BlocksPerSm<Kernel>(&per_sm);
  if (err != cudaSuccess || per_sm < 1) return report.Cuda("occupancy of a DAG pass", err);
  *grid = std::min(per_sm * sms, Blocks(m, sms));
  return ffi::Error::Success();
}

// The grid of a cooperative kernel: at most `per_sm` blocks per SM (its policy), all
// resident at once, and no more blocks than tiles of kThreads of the m edges.
template <auto Kernel>
ffi::Error CooperativeGrid(const Reporter& report, int per_sm, int32_t m, int sms, int* grid) {
  int resident = 0;
  cudaError_t err = BlocksPerSm<Kernel>(&resident);
  if (err != cudaSuccess || resident < 1) return report.Cuda("occupancy of an h-index kernel", err);
  *grid = std::min(std::min(resident, per_sm) * sms, Blocks(m, sms));
  return ffi::Error::Success();
}

// kHIndex: the triangle store and the h-index rounds, writing the trussness to `out`.
// With the supports `sup` counted before, each edge's slots are its support and the
// store's size is read back (the one host sync); with sup = nullptr and `capacity` the
// call's store_entries (>= the degree bound), each edge gets min(deg u, deg v) - 1 slots
// and the store kernel counts its triangles, so no support pass and no host sync run.
// *ran = false when the store does not fit (nothing is launched then, or nothing after
// the size read-back): the caller counts supports and tries again, or peels.
ffi::Error HIndexDecompose(cudaStream_t stream, cuda::DeviceScratch& scratch,
                           const Reporter& report, int sms, const Csr& g, const DagArgs& dag,
                           const int32_t* sup, int64_t capacity, int32_t* out, bool* ran) {
  *ran = false;
  const int32_t m = g.m;
  int2* store = nullptr;
  if (sup == nullptr) {
    store = static_cast<int2*>(scratch.Allocate(std::max<int64_t>(capacity, 1) * sizeof(int2)));
    if (store == nullptr) return ffi::Error::Success();
  }
  const size_t m4 = static_cast<size_t>(m) * sizeof(int32_t);
  HIndexParams P{};
  auto* off = static_cast<int64_t*>(scratch.Allocate((static_cast<size_t>(m) + 1) * 8));
  auto* cnt = static_cast<int32_t*>(scratch.Allocate(m4));
  P.mark = static_cast<int32_t*>(scratch.Allocate(m4));
  P.all_group = static_cast<int32_t*>(scratch.Allocate(m4));
  P.all_warp = static_cast<int32_t*>(scratch.Allocate(m4));
  bool fits = off != nullptr && cnt != nullptr && P.mark != nullptr && P.all_group != nullptr &&
              P.all_warp != nullptr;
  for (int i = 0; i < 2; ++i) {
    for (int32_t** list : {P.lane_list + i, P.group_list + i, P.warp_list + i}) {
      *list = static_cast<int32_t*>(scratch.Allocate(m4));
      fits = fits && *list != nullptr;
    }
  }
  P.queue_size = static_cast<int32_t>(
      std::min<int64_t>(int64_t{TrussPolicy::kHIndexQueuePerEdge} * m, INT32_MAX));
  P.queue = static_cast<int32_t*>(scratch.Allocate(std::max<size_t>(P.queue_size, 1) * 4));
  P.state = static_cast<HState*>(scratch.Allocate(sizeof(HState)));
  if (!fits || P.queue == nullptr || P.state == nullptr) {
    return report.Exhausted(m4 * (12 + TrussPolicy::kHIndexQueuePerEdge), "the h-index state");
  }
  OffsetsKernel<<<Blocks(m, sms), kThreads, 0, stream>>>(sup, g.indptr, g.esrc, g.edst, m, off, cnt,
                                                         P.state);
  ffi::Error status = ScanOffsets(stream, scratch, report, off, m, "the store offsets scan");
  if (!status.success()) return status;
  int64_t entries = capacity;
  if (sup != nullptr) {
    cudaError_t err =
        cudaMemcpyAsync(&entries, off + m, sizeof(entries), cudaMemcpyDeviceToHost, stream);
    if (err == cudaSuccess) err = cudaStreamSynchronize(stream);
    if (err != cudaSuccess) return report.Cuda("reading the triangle store's size", err);
    if (entries > TrussPolicy::kHIndexMaxEntries) return ffi::Error::Success();
    store = static_cast<int2*>(scratch.Allocate(std::max<int64_t>(entries, 1) * sizeof(int2)));
    if (store == nullptr) return ffi::Error::Success();
  }
  P.off = off;
  P.cnt = cnt;
  P.store = store;
  P.t = out;
  P.m = m;
  int blocks = 0;
  if (status = DagBlocks<StoreKernel>(report, m, sms, &blocks); !status.success()) return status;
  StoreKernel<<<blocks, kThreads, 0, stream>>>(dag.indptr, dag.indices, dag.src, dag.eid, m, off,
                                               entries, cnt, P.state, store);
  HIndexInitKernel<<<Blocks(m, sms), kThreads, 0, stream>>>(P);
  cudaError_t err = cudaGetLastError();
  if (err != cudaSuccess) return report.Cuda("triangle store kernels", err);
  // The rounds, the asynchronous tail, and the rounds' resume (each returns at once
  // where the one before ended the work), all cooperative: the tail's warps wait on
  // each other, so its blocks must be resident together too.
  int rounds_grid = 0, tail_grid = 0;
  status =
      CooperativeGrid<HIndexKernel>(report, TrussPolicy::kHIndexBlocksPerSm, m, sms, &rounds_grid);
  if (status.success()) {
    status = CooperativeGrid<HIndexTailKernel>(report, TrussPolicy::kHIndexTailBlocksPerSm, m, sms,
                                               &tail_grid);
  }
  if (!status.success()) return status;
  bool resume = false;
  void* rounds_args[] = {&P, &resume};
  void* tail_args[] = {&P};
  err = cudaLaunchCooperativeKernel(reinterpret_cast<void*>(HIndexKernel), dim3(rounds_grid),
                                    dim3(kThreads), rounds_args, 0, stream);
  if (err == cudaSuccess) {
    err = cudaLaunchCooperativeKernel(reinterpret_cast<void*>(HIndexTailKernel), dim3(tail_grid),
                                      dim3(kThreads), tail_args, 0, stream);
  }
  if (err == cudaSuccess) {
    resume = true;  // the launch copies its arguments
    err = cudaLaunchCooperativeKernel(reinterpret_cast<void*>(HIndexKernel), dim3(rounds_grid),
                                      dim3(kThreads), rounds_args, 0, stream);
  }
  if (err != cudaSuccess) return report.Cuda("h-index kernel launch", err);
  *ran = true;
  return ffi::Error::Success();
}

}  // namespace

ffi::Error RunTruss(const TrussProblem& p, cuda::DeviceScratch& scratch, const Reporter& report,
                    cudaStream_t stream) {
  const int32_t n = p.n, m = p.m;
  const TrussMode tmode = p.mode;
  int sms = 0;
  cudaError_t err = cuda::SmCount(&sms);
  if (err != cudaSuccess) return report.Cuda("querying the SM count", err);

  const Csr g{p.indptr, p.indices, p.eid, p.esrc, p.edst, m};
  const DagArgs dag{p.dag_indptr, p.dag_indices, p.dag_src, p.dag_eid};
  if (tmode == TrussMode::kHIndex && p.store_entries >= 0) {
    bool ran = false;
    ffi::Error status = HIndexDecompose(stream, scratch, report, sms, g, dag, nullptr,
                                        p.store_entries, static_cast<int32_t*>(p.out), &ran);
    if (ran || !status.success()) return status;
  }
  const size_t m4 = static_cast<size_t>(m) * sizeof(int32_t);
  auto* tag = static_cast<int32_t*>(scratch.Allocate(m4));
  int32_t* sup = tmode == TrussMode::kSupport ? static_cast<int32_t*>(p.out)
                                              : static_cast<int32_t*>(scratch.Allocate(m4));
  auto* slots = static_cast<Slot*>(scratch.Allocate(kSlots * sizeof(Slot)));
  auto* records = static_cast<PeelState*>(scratch.Allocate(2 * sizeof(PeelState)));
  constexpr int kRecounts = TrussPolicy::kRecounts;
  auto* counts = static_cast<int32_t*>(scratch.Allocate((kRecounts + 1) * sizeof(int32_t)));
  if (tag == nullptr || sup == nullptr || slots == nullptr || records == nullptr ||
      counts == nullptr) {
    return report.Exhausted(m4 * 2, "the edge state");
  }
  // Peeling: two frontier item lists, their chunk offsets, two live-edge lists
  // (kHIndex: only if its triangle store does not fit).
  int4* items[2] = {nullptr, nullptr};
  int32_t* bufs[4] = {nullptr, nullptr, nullptr, nullptr};
  auto peel_buffers = [&]() {
    for (auto& b : items) b = static_cast<int4*>(scratch.Allocate(m4 * 4));
    for (auto& b : bufs) b = static_cast<int32_t*>(scratch.Allocate(m4));
    return items[0] != nullptr && items[1] != nullptr && bufs[0] != nullptr && bufs[1] != nullptr &&
           bufs[2] != nullptr && bufs[3] != nullptr;
  };
  if (tmode != TrussMode::kSupport && tmode != TrussMode::kHIndex && !peel_buffers()) {
    return report.Exhausted(m4 * 12, "the peeling frontiers and live lists");
  }
  const bool ktruss = tmode == TrussMode::kKTruss;
  const int32_t* small_k = ktruss ? p.k : nullptr;
  const bool use_core = ktruss && p.core != nullptr;
  bool* flags = ktruss ? static_cast<bool*>(p.out) : nullptr;
  // With the prefilter, the edges that pass it are listed (elist, their DAG edges in
  // dlist) and the support pass and the peeling work on that list. Lists alternate
  // between two places (the live lists and the item lists' space, free until the
  // peeling), list j counting into counts[j].
  auto listed = [&](int j) {
    return j % 2 == 0 ? LiveLists{bufs[2], reinterpret_cast<int32_t*>(items[1]), counts + j}
                      : LiveLists{bufs[3], reinterpret_cast<int32_t*>(items[0]), counts + j};
  };
  const LiveLists none{nullptr, nullptr, nullptr};
  if (use_core) {
    err = cudaMemsetAsync(counts, 0, (kRecounts + 1) * sizeof(int32_t), stream);
    if (err != cudaSuccess) return report.Cuda("clearing the live counts", err);
  }
  InitKernel<<<Blocks(m, sms), kThreads, 0, stream>>>(g, p.dag_eid, p.core, use_core, p.k, tag, sup,
                                                      slots, flags, use_core ? listed(0) : none);
  // Listed work is grid-strided over a capped grid (its size is known on the device only).
  const int capped = TrussPolicy::kListBlocksPerSm * sms;
  auto support = [&](const LiveLists& lists) -> ffi::Error {
    const bool on_list = lists.elist != nullptr;
    // Without a list the pass counts all m edges: kAuto is resolved here.
    const auto pass = on_list ? p.method : ResolveSupport(p.method, m);
    switch (pass) {
      case SupportMethod::kDag: {
        // All m edges: every block resident at once; a list: the capped grid.
        int blocks = std::min(capped, Blocks(m, sms));
        if (!on_list) {
          if (ffi::Error status = DagBlocks<SupportDagKernel>(report, m, sms, &blocks);
              !status.success()) {
            return status;
          }
        }
        SupportDagKernel<<<blocks, kThreads, 0, stream>>>(dag.indptr, dag.indices, dag.src, dag.eid,
                                                          m, small_k, tag, sup, lists, pass);
        break;
      }
      case SupportMethod::kEdge:
        SupportEdgeKernel<<<on_list ? std::min(capped, Blocks(int64_t{m} * kWarp, sms))
                                    : Blocks(int64_t{m} * kWarp, sms),
                            kThreads, 0, stream>>>(g, small_k, tag, sup, lists, pass);
        break;
      case SupportMethod::kVertex:
        SupportVertexKernel<<<std::max(1, std::min(n, sms * 8)), kThreads, 0, stream>>>(
            g, n, small_k, tag, sup);
        break;
      case SupportMethod::kAuto:
        // On a list, whose length is on the device only: both kernels, and the one
        // ResolveSupport does not pick returns at once (every thread reads the length).
        SupportEdgeKernel<<<std::min(capped, Blocks(int64_t{m} * kWarp, sms)), kThreads, 0,
                            stream>>>(g, small_k, tag, sup, lists, pass);
        SupportDagKernel<<<std::min(capped, Blocks(m, sms)), kThreads, 0, stream>>>(
            dag.indptr, dag.indices, dag.src, dag.eid, m, small_k, tag, sup, lists, pass);
        break;
    }
    return ffi::Error::Success();
  };
  if (ffi::Error status = support(use_core ? listed(0) : none); !status.success()) return status;
  const int recounts = use_core ? kRecounts : 0;
  for (int j = 1; j <= recounts; ++j) {
    RecountKernel<<<std::min(capped, Blocks(m, sms)), kThreads, 0, stream>>>(small_k, listed(j - 1),
                                                                             listed(j), tag, sup);
    if (ffi::Error status = support(listed(j)); !status.success()) return status;
  }
  if ((err = cudaGetLastError()) != cudaSuccess) return report.Cuda("support kernel", err);
  if (tmode == TrussMode::kSupport) return ffi::Error::Success();
  if (tmode == TrussMode::kHIndex) {
    bool ran = false;
    ffi::Error status = HIndexDecompose(stream, scratch, report, sms, g, dag, sup, -1,
                                        static_cast<int32_t*>(p.out), &ran);
    if (ran || !status.success()) return status;
    if (!peel_buffers()) return report.Exhausted(m4 * 12, "the peeling frontiers and live lists");
  }

  PeelParams P{g,
               tag,
               sup,
               items[0],
               items[1],
               reinterpret_cast<uint32_t*>(bufs[0]),
               reinterpret_cast<uint32_t*>(bufs[1]),
               bufs[2],
               bufs[3],
               slots,
               records,
               ktruss ? nullptr : static_cast<int32_t*>(p.out),
               small_k,
               flags,
               use_core ? counts + recounts : nullptr,
               recounts % 2 == 0 ? 1 : 2,
               ChunkShift(m)};
  int per_sm = 0;
  err = BlocksPerSm<PeelKernel>(&per_sm);
  if (err != cudaSuccess || per_sm < 1) return report.Cuda("occupancy of the peeling kernel", err);
  const int grid = std::min(std::min(per_sm, TrussPolicy::kPeelBlocksPerSm) * sms,
                            Blocks(int64_t{m} * kWarp, sms));
  void* args[] = {&P};
  err = cudaLaunchCooperativeKernel(reinterpret_cast<void*>(PeelKernel), dim3(grid), dim3(kThreads),
                                    args, 0, stream);
  if (err != cudaSuccess) return report.Cuda("peeling kernel launch", err);
  return ffi::Error::Success();
}

ffi::Error RunTriangleEdges(const int32_t* indptr, const int32_t* indices, const int32_t* esrc,
                            const int32_t* edst, int32_t m, bool* out, const Reporter& report,
                            cudaStream_t stream) {
  int sms = 0;
  cudaError_t err = cuda::SmCount(&sms);
  if (err != cudaSuccess) return report.Cuda("querying the SM count", err);
  TriangleEdgesKernel<<<Blocks(m, sms), kThreads, 0, stream>>>(indptr, indices, esrc, edst, m, out);
  if ((err = cudaGetLastError()) != cudaSuccess) return report.Cuda("triangle-edges kernel", err);
  return ffi::Error::Success();
}

}  // namespace kcjax::truss
