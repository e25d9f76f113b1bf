// CPU handler of "kcjax_bfs": the reference twin of the CUDA kernels.
//
// One source: a frontier queue, top-down or bottom-up per level by the same
// rule the CUDA kernel applies (kcjax::bfs::NextBottomUp); bottom-up walks the
// list of still-unvisited vertices and keeps those it does not reach, the
// seed's "previous queue minus what this level visited". Several sources with
// kBfsBitset: groups of 64 traversals share one pull scan per level (bit b of
// visited[v] / frontier[v] belongs to source b of the group). Groups, or single
// sources, are spread over the cores.
#include "kcjax/bfs/bfs.h"

#include <algorithm>
#include <atomic>
#include <bit>
#include <cstdint>
#include <string>
#include <thread>
#include <vector>

#include "kcjax/bfs/args.h"
#include "kcjax/core/csr.h"
#include "kcjax/core/ffi.h"

namespace ffi = xla::ffi;

namespace kcjax::bfs {
namespace {

void BfsOne(const CsrView& g, int32_t source, int32_t method, int32_t direction, int64_t tau,
            int64_t total_hubs, int32_t* dist, int32_t* parent) {
  const int64_t n = g.num_nodes;
  std::fill(dist, dist + n, -1);
  if (parent != nullptr) std::fill(parent, parent + n, -1);
  if (source < 0 || source >= n) return;
  dist[source] = 0;
  if (parent != nullptr) parent[source] = source;
  std::vector<int32_t> frontier{source}, next, unvisited, still;
  bool bottom_up = false;
  int64_t prev_size = 0;
  for (int32_t level = 0; !frontier.empty(); ++level) {
    int64_t hubs = 0;
    for (int32_t u : frontier) hubs += (g.indptr[u + 1] - g.indptr[u]) > tau;
    const bool bu =
        NextBottomUp(method, direction, bottom_up, static_cast<int64_t>(frontier.size()), prev_size,
                     hubs, total_hubs, n);
    prev_size = static_cast<int64_t>(frontier.size());
    next.clear();
    if (bu) {
      if (!bottom_up) {  // the switch level: collect every unvisited vertex once
        unvisited.clear();
        for (int64_t v = 0; v < n; ++v)
          if (dist[v] < 0) unvisited.push_back(static_cast<int32_t>(v));
      }
      still.clear();
      for (int32_t v : unvisited) {
        int32_t found = -1;
        for (int32_t e = g.indptr[v]; e < g.indptr[v + 1]; ++e) {
          if (dist[g.indices[e]] == level) {
            found = g.indices[e];
            break;
          }
        }
        if (found < 0) {
          still.push_back(v);
          continue;
        }
        dist[v] = level + 1;
        if (parent != nullptr) parent[v] = found;
        next.push_back(v);
      }
      unvisited.swap(still);
    } else {
      for (int32_t u : frontier) {
        for (int32_t e = g.indptr[u]; e < g.indptr[u + 1]; ++e) {
          const int32_t w = g.indices[e];
          if (dist[w] >= 0) continue;
          dist[w] = level + 1;
          if (parent != nullptr) parent[w] = u;
          next.push_back(w);
        }
      }
    }
    bottom_up = bu;
    frontier.swap(next);
  }
}

// Bit-parallel BFS of up to 64 sources: dist/parent rows of the group's sources.
void BfsBitset(const CsrView& g, const int32_t* sources, int count, int32_t** dist,
               int32_t** parent) {
  const int64_t n = g.num_nodes;
  std::vector<uint64_t> visited(n, 0), frontier(n, 0), next(n, 0);
  uint64_t full = 0;
  for (int b = 0; b < count; ++b) {
    std::fill(dist[b], dist[b] + n, -1);
    if (parent[b] != nullptr) std::fill(parent[b], parent[b] + n, -1);
    const int32_t s = sources[b];
    if (s < 0 || s >= n) continue;
    full |= uint64_t{1} << b;
    visited[s] |= uint64_t{1} << b;
    frontier[s] |= uint64_t{1} << b;
    dist[b][s] = 0;
    if (parent[b] != nullptr) parent[b][s] = s;
  }
  for (int32_t level = 0;; ++level) {
    bool any = false;
    for (int64_t v = 0; v < n; ++v) {
      const uint64_t seen = visited[v];
      uint64_t acc = 0;
      if (seen != full) {
        for (int32_t e = g.indptr[v]; e < g.indptr[v + 1]; ++e) {
          const int32_t u = g.indices[e];
          uint64_t fresh = frontier[u] & ~seen & ~acc;
          if (fresh == 0) continue;
          acc |= fresh;
          for (; fresh != 0; fresh &= fresh - 1) {
            const int b = std::countr_zero(fresh);
            dist[b][v] = level + 1;
            if (parent[b] != nullptr) parent[b][v] = u;
          }
          if ((seen | acc) == full) break;
        }
      }
      next[v] = acc;
      any |= acc != 0;
    }
    if (!any) break;
    for (int64_t v = 0; v < n; ++v) visited[v] |= next[v];
    frontier.swap(next);
  }
}

ffi::Error BfsCpu(ffi::Buffer<ffi::S32> indptr, ffi::Buffer<ffi::S32> indices,
                  ffi::Buffer<ffi::S32> sources, int32_t method, int32_t direction, int32_t batch,
                  int32_t hub_tau, int32_t cluster, ffi::ResultBuffer<ffi::S32> dist,
                  ffi::ResultBuffer<ffi::S32> parent) {
  const kcjax::Reporter rep("kcjax_bfs", "CPU");
  kcjax::bfs::Shape shape;
  if (auto err = kcjax::bfs::CheckArgs(rep, indptr, indices, sources, method, direction, batch,
                                       cluster, dist, parent, &shape);
      err.failure()) {
    return err;
  }
  const CsrView g{indptr.typed_data(), indices.typed_data(), nullptr, shape.m, shape.n};
  const int64_t s = shape.s;
  const bool want_parents = shape.want_parents;
  if (g.num_nodes == 0 || s == 0) return ffi::Error::Success();
  if (g.indptr[g.num_nodes] != g.num_edges) return rep.Invalid("indptr[n] must equal len(indices)");

  const int64_t tau = HubTau(g.num_nodes, g.num_edges, hub_tau);
  int64_t total_hubs = 0;
  for (int64_t v = 0; v < g.num_nodes; ++v) total_hubs += (g.indptr[v + 1] - g.indptr[v]) > tau;

  const int32_t* src = sources.typed_data();
  int32_t* d = dist->typed_data();
  int32_t* p = want_parents ? parent->typed_data() : nullptr;
  const bool bitset = batch == kBfsBitset && s > 1;
  const int64_t width = BfsPolicy::kBitsetWidth;
  const int64_t tasks = bitset ? (s + width - 1) / width : s;
  const int64_t workers =
      std::min<int64_t>(tasks, std::max(1u, std::thread::hardware_concurrency()));
  std::atomic<int64_t> next_task{0};
  auto work = [&]() {
    for (int64_t t; (t = next_task.fetch_add(1)) < tasks;) {
      if (!bitset) {
        BfsOne(g, src[t], method, direction, tau, total_hubs, d + t * g.num_nodes,
               p != nullptr ? p + t * g.num_nodes : nullptr);
        continue;
      }
      const int64_t first = t * width;
      const int count = static_cast<int>(std::min(width, s - first));
      std::vector<int32_t*> drows(count), prows(count);
      for (int b = 0; b < count; ++b) {
        drows[b] = d + (first + b) * g.num_nodes;
        prows[b] = p != nullptr ? p + (first + b) * g.num_nodes : nullptr;
      }
      BfsBitset(g, src + first, count, drows.data(), prows.data());
    }
  };
  std::vector<std::thread> pool;
  for (int64_t i = 1; i < workers; ++i) pool.emplace_back(work);
  work();
  for (auto& th : pool) th.join();
  return ffi::Error::Success();
}

}  // namespace
}  // namespace kcjax::bfs

XLA_FFI_DEFINE_HANDLER_SYMBOL(kcjax_bfs_cpu, kcjax::bfs::BfsCpu,
                              kcjax::bfs::BindBfs(kcjax::CpuBinding()));
