// CPU handlers of "kcjax_truss" and "kcjax_truss_triangle_edges" (contracts in
// kcjax/truss/truss.h): the twins of ffi/cuda/truss/truss.cu. Supports are
// counted by the chosen method (threads split the edges or vertices); peeling
// is Wang & Cheng's level order, one thread, with the same level rule as the
// GPU's level-synchronous rounds, so both give the same trussness. A k-truss
// with k <= 3 is one pass of early-exit intersections (no supports, no peeling).
// kHIndex lists every triangle once into per-edge stores and runs the h-index
// update from a work queue (one thread, in place), as the GPU does in rounds.
#include <algorithm>
#include <atomic>
#include <cstdint>
#include <deque>
#include <functional>
#include <thread>
#include <vector>

#include "kcjax/core/csr.h"
#include "kcjax/core/ffi.h"
#include "kcjax/truss/args.h"

namespace ffi = xla::ffi;

namespace kcjax::truss {
namespace {

// The call's graph: the symmetric CSR with the edge id of every entry and the
// endpoints of every edge id, and the degree-oriented DAG with the edge id of
// every DAG edge (m = dag.num_edges undirected edges).
struct TrussView {
  CsrView graph;
  DagView dag;
  const int32_t* eid;
  const int32_t* esrc;
  const int32_t* edst;
  const int32_t* dag_eid;

  int64_t m() const { return dag.num_edges; }  // undirected edges
};

// Calls fn(a, b) for every common element of the sorted ranges [a0, a1) and
// [b0, b1), with a and b the positions of that element in each range.
template <typename Fn>
inline void Intersect(const int32_t* col, int64_t a0, int64_t a1, int64_t b0, int64_t b1, Fn fn) {
  while (a0 < a1 && b0 < b1) {
    const int32_t x = col[a0], y = col[b0];
    if (x < y) {
      ++a0;
    } else if (y < x) {
      ++b0;
    } else {
      fn(a0++, b0++);
    }
  }
}

// True iff the sorted ranges [a0, a1) and [b0, b1) share an element (stops at the first).
inline bool Meet(const int32_t* col, int64_t a0, int64_t a1, int64_t b0, int64_t b1) {
  while (a0 < a1 && b0 < b1) {
    const int32_t x = col[a0], y = col[b0];
    if (x == y) return true;
    if (x < y) {
      ++a0;
    } else {
      ++b0;
    }
  }
  return false;
}

void ParallelFor(int64_t count, int threads, const std::function<void(int64_t, int64_t)>& body) {
  if (threads <= 1 || count < 4096) {
    body(0, count);
    return;
  }
  std::vector<std::thread> pool;
  const int64_t chunk = (count + threads - 1) / threads;
  for (int t = 0; t < threads; ++t) {
    const int64_t lo = t * chunk, hi = std::min(count, lo + chunk);
    if (lo < hi) pool.emplace_back(body, lo, hi);
  }
  for (auto& th : pool) th.join();
}

void CountSupport(const TrussView& g, SupportMethod method, const std::vector<uint8_t>& alive,
                  int threads, int32_t* sup) {
  std::fill(sup, sup + g.m(), 0);
  if (method == SupportMethod::kAuto) {
    method = ResolveSupport(method, std::count(alive.begin(), alive.end(), uint8_t{1}));
  }
  if (method == SupportMethod::kDag) {
    ParallelFor(g.m(), threads, [&](int64_t lo, int64_t hi) {
      for (int64_t d = lo; d < hi; ++d) {
        const int32_t e = g.dag_eid[d];
        if (!alive[e]) continue;
        const int32_t a = g.dag.src[d], b = g.dag.indices[d];
        int32_t own = 0;
        Intersect(g.dag.indices, g.dag.indptr[a], g.dag.indptr[a + 1], g.dag.indptr[b],
                  g.dag.indptr[b + 1], [&](int64_t i, int64_t j) {
                    const int32_t e1 = g.dag_eid[i], e2 = g.dag_eid[j];
                    if (!alive[e1] || !alive[e2]) return;
                    ++own;
                    std::atomic_ref<int32_t>(sup[e1]).fetch_add(1, std::memory_order_relaxed);
                    std::atomic_ref<int32_t>(sup[e2]).fetch_add(1, std::memory_order_relaxed);
                  });
        std::atomic_ref<int32_t>(sup[e]).fetch_add(own, std::memory_order_relaxed);
      }
    });
  } else if (method == SupportMethod::kEdge) {
    ParallelFor(g.m(), threads, [&](int64_t lo, int64_t hi) {
      for (int64_t e = lo; e < hi; ++e) {
        if (!alive[e]) continue;
        const int32_t u = g.esrc[e], v = g.edst[e];
        int32_t c = 0;
        Intersect(g.graph.indices, g.graph.indptr[u], g.graph.indptr[u + 1], g.graph.indptr[v],
                  g.graph.indptr[v + 1],
                  [&](int64_t i, int64_t j) { c += alive[g.eid[i]] && alive[g.eid[j]]; });
        sup[e] = c;
      }
    });
  } else {
    // The seed's vertex pass: vertex u, each higher neighbour v, |N(u) ∩ N(v)|.
    ParallelFor(g.graph.num_nodes, threads, [&](int64_t lo, int64_t hi) {
      for (int64_t u = lo; u < hi; ++u) {
        for (int64_t p = g.graph.indptr[u]; p < g.graph.indptr[u + 1]; ++p) {
          const int32_t v = g.graph.indices[p], e = g.eid[p];
          if (v < u || !alive[e]) continue;
          int32_t c = 0;
          Intersect(g.graph.indices, g.graph.indptr[u], g.graph.indptr[u + 1], g.graph.indptr[v],
                    g.graph.indptr[v + 1],
                    [&](int64_t i, int64_t j) { c += alive[g.eid[i]] && alive[g.eid[j]]; });
          sup[e] = c;
        }
      }
    });
  }
}

// out[e] = edge e lies in a triangle: the 3-truss (edges of support 0 close no triangle,
// so removing them changes no other support).
void TriangleEdges(const int32_t* indptr, const int32_t* indices, const int32_t* esrc,
                   const int32_t* edst, int64_t m, int threads, bool* out) {
  ParallelFor(m, threads, [&](int64_t lo, int64_t hi) {
    for (int64_t e = lo; e < hi; ++e) {
      const int32_t u = esrc[e], v = edst[e];
      out[e] = Meet(indices, indptr[u], indptr[u + 1], indptr[v], indptr[v + 1]);
    }
  });
}

int Threads(int32_t num_threads) {
  const int t =
      num_threads > 0 ? num_threads : static_cast<int>(std::thread::hardware_concurrency());
  return std::max(t, 1);
}

// Peels from level `level` on: at each level every live edge with support <= level
// is removed (trussness level + 2), decrementing the two other edges of each live
// triangle it closes. `single`: stop after the first level.
void Peel(const TrussView& g, std::vector<uint8_t>& alive, int32_t* sup, int32_t level, bool single,
          int32_t* truss) {
  int64_t remaining = std::count(alive.begin(), alive.end(), uint8_t{1});
  std::vector<int32_t> stack;
  std::vector<uint8_t> queued(g.m(), 0);
  while (remaining > 0) {
    int32_t next_level = INT32_MAX;
    for (int64_t e = 0; e < g.m(); ++e) {
      if (!alive[e]) continue;
      if (sup[e] <= level) {
        stack.push_back(static_cast<int32_t>(e));
        queued[e] = 1;
      } else {
        next_level = std::min(next_level, sup[e]);
      }
    }
    if (stack.empty()) {  // nothing at this level: supports are unchanged, jump
      if (single) break;
      level = next_level;
      continue;
    }
    while (!stack.empty()) {
      const int32_t e = stack.back();
      stack.pop_back();
      alive[e] = 0;
      --remaining;
      if (truss != nullptr) truss[e] = level + 2;
      const int32_t u = g.esrc[e], v = g.edst[e];
      Intersect(g.graph.indices, g.graph.indptr[u], g.graph.indptr[u + 1], g.graph.indptr[v],
                g.graph.indptr[v + 1], [&](int64_t i, int64_t j) {
                  const int32_t e1 = g.eid[i], e2 = g.eid[j];
                  if (!alive[e1] || !alive[e2]) return;
                  for (int32_t x : {e1, e2}) {
                    if (sup[x] > level && --sup[x] == level && !queued[x]) {
                      queued[x] = 1;
                      stack.push_back(x);
                    }
                  }
                });
    }
    if (single) break;
    ++level;
  }
}

// Sum over edges {u, v} of min(deg u, deg v) - 1: no edge lies in more triangles than
// its ends have other common neighbours (store_entries in truss.h).
int64_t DegreeBound(const int32_t* indptr, const int32_t* esrc, const int32_t* edst, int64_t m) {
  int64_t bound = 0;
  for (int64_t e = 0; e < m; ++e) {
    const int32_t du = indptr[esrc[e] + 1] - indptr[esrc[e]];
    const int32_t dv = indptr[edst[e] + 1] - indptr[edst[e]];
    bound += std::min(du, dv) - 1;
  }
  return bound;
}

// The trussness of every edge by the local h-index update (kHIndex in truss.h).
// Returns false, writing nothing, when the triangle store would pass
// TrussPolicy::kHIndexMaxEntries.
bool HIndexTruss(const TrussView& g, int threads, int32_t* truss) {
  std::vector<int32_t> t(g.m());
  CountSupport(g, SupportMethod::kDag, std::vector<uint8_t>(g.m(), 1), threads, t.data());
  std::vector<int64_t> off(g.m() + 1, 0);
  for (int64_t e = 0; e < g.m(); ++e) off[e + 1] = off[e] + t[e];
  if (off[g.m()] > TrussPolicy::kHIndexMaxEntries) return false;
  // store[off[e] .. off[e + 1]): the other two edges of each triangle of e.
  std::vector<std::pair<int32_t, int32_t>> store(off[g.m()]);
  std::vector<int64_t> cursor(off.begin(), off.end() - 1);
  for (int64_t d = 0; d < g.m(); ++d) {
    const int32_t e = g.dag_eid[d];
    const int32_t a = g.dag.src[d], b = g.dag.indices[d];
    Intersect(g.dag.indices, g.dag.indptr[a], g.dag.indptr[a + 1], g.dag.indptr[b],
              g.dag.indptr[b + 1], [&](int64_t i, int64_t j) {
                const int32_t e1 = g.dag_eid[i], e2 = g.dag_eid[j];
                store[cursor[e]++] = {e1, e2};
                store[cursor[e1]++] = {e, e2};
                store[cursor[e2]++] = {e, e1};
              });
  }
  std::deque<int32_t> queue;
  std::vector<uint8_t> queued(g.m(), 0);
  for (int64_t e = 0; e < g.m(); ++e) {
    if (t[e] > 0) {
      queue.push_back(static_cast<int32_t>(e));
      queued[e] = 1;
    }
  }
  std::vector<int32_t> hist;
  while (!queue.empty()) {
    const int32_t e = queue.front();
    queue.pop_front();
    queued[e] = 0;
    const int32_t c = t[e];
    hist.assign(c + 1, 0);
    for (int64_t p = off[e]; p < off[e + 1]; ++p) {
      ++hist[std::min({t[store[p].first], t[store[p].second], c})];
    }
    int32_t h = c, at_least = 0;
    for (; h > 0; --h) {
      if ((at_least += hist[h]) >= h) break;
    }
    if (h == c) continue;
    t[e] = h;
    // A triangle's value for a is min(t[e], t[b]): it fell below t[a] only if h < t[a]
    // and t[b] >= h (else it is t[b], unchanged).
    for (int64_t p = off[e]; p < off[e + 1]; ++p) {
      const auto [a, b] = store[p];
      for (const auto& [x, y] : {std::pair{a, b}, std::pair{b, a}}) {
        if (h < t[x] && t[y] >= h && !queued[x]) {
          queued[x] = 1;
          queue.push_back(x);
        }
      }
    }
  }
  for (int64_t e = 0; e < g.m(); ++e) truss[e] = t[e] + 2;
  return true;
}

ffi::Error TrussCpu(ffi::Buffer<ffi::S32> indptr, ffi::Buffer<ffi::S32> indices,
                    ffi::Buffer<ffi::S32> eid, ffi::Buffer<ffi::S32> esrc,
                    ffi::Buffer<ffi::S32> edst, ffi::Buffer<ffi::S32> dag_indptr,
                    ffi::Buffer<ffi::S32> dag_indices, ffi::Buffer<ffi::S32> dag_src,
                    ffi::Buffer<ffi::S32> dag_eid, ffi::Buffer<ffi::S32> core,
                    ffi::Buffer<ffi::S32> kbuf, int32_t mode, int32_t method, int32_t num_threads,
                    int64_t store_entries, ffi::Result<ffi::AnyBuffer> out) {
  const Reporter report("kcjax_truss", "CPU");
  const std::string bad = CheckTrussCall(
      indptr.element_count(), indices.element_count(), eid.element_count(), esrc.element_count(),
      edst.element_count(), dag_indptr.element_count(), dag_indices.element_count(),
      dag_src.element_count(), dag_eid.element_count(), core.element_count(), kbuf.element_count(),
      out->element_count(), out->element_type() == ffi::PRED, mode, method, store_entries);
  if (!bad.empty()) return report.Invalid(bad);
  const int64_t n = indptr.element_count() - 1, m = indices.element_count() / 2;
  const TrussView g{
      {indptr.typed_data(), indices.typed_data(), nullptr, 2 * m, n},
      {{dag_indptr.typed_data(), dag_indices.typed_data(), dag_src.typed_data(), m, n}},
      eid.typed_data(),
      esrc.typed_data(),
      edst.typed_data(),
      dag_eid.typed_data()};
  const int threads = Threads(num_threads);
  const int32_t k = std::max(kbuf.typed_data()[0], 2);
  const auto tmode = static_cast<TrussMode>(mode);
  if (tmode == TrussMode::kHIndex && store_entries >= 0 &&
      store_entries < DegreeBound(g.graph.indptr, g.esrc, g.edst, g.m())) {
    return report.Invalid("store_entries is below the degree bound of the triangle store");
  }
  if (tmode == TrussMode::kKTruss && k <= 3) {  // no prefilter needed: see TriangleEdges
    bool* flags = out->typed_data<bool>();
    if (k == 2) {
      std::fill(flags, flags + g.m(), true);
    } else {
      TriangleEdges(g.graph.indptr, g.graph.indices, g.esrc, g.edst, g.m(), threads, flags);
    }
    return ffi::Error::Success();
  }
  std::vector<uint8_t> alive(g.m(), 1);
  if (tmode == TrussMode::kKTruss && core.element_count() > 0) {
    const int32_t* c = core.typed_data();
    for (int64_t e = 0; e < g.m(); ++e) {
      alive[e] = c[g.esrc[e]] >= k - 1 && c[g.edst[e]] >= k - 1;
    }
  }
  if (tmode == TrussMode::kSupport) {
    CountSupport(g, static_cast<SupportMethod>(method), alive, threads, out->typed_data<int32_t>());
    return ffi::Error::Success();
  }
  if (tmode == TrussMode::kHIndex && HIndexTruss(g, threads, out->typed_data<int32_t>())) {
    return ffi::Error::Success();
  }
  std::vector<int32_t> sup(g.m());
  CountSupport(g, static_cast<SupportMethod>(method), alive, threads, sup.data());
  if (tmode == TrussMode::kDecompose || tmode == TrussMode::kHIndex) {
    Peel(g, alive, sup.data(), 0, false, out->typed_data<int32_t>());
  } else {
    Peel(g, alive, sup.data(), k - 3, true, nullptr);
    bool* flags = out->typed_data<bool>();
    for (int64_t e = 0; e < g.m(); ++e) flags[e] = alive[e] != 0;
  }
  return ffi::Error::Success();
}

ffi::Error TriangleEdgesCpu(ffi::Buffer<ffi::S32> indptr, ffi::Buffer<ffi::S32> indices,
                            ffi::Buffer<ffi::S32> esrc, ffi::Buffer<ffi::S32> edst,
                            int32_t num_threads, ffi::ResultBuffer<ffi::PRED> out) {
  const std::string bad =
      CheckTriangleEdgesCall(indptr.element_count(), indices.element_count(), esrc.element_count(),
                             edst.element_count(), out->element_count());
  if (!bad.empty()) return Reporter("kcjax_truss_triangle_edges", "CPU").Invalid(bad);
  TriangleEdges(indptr.typed_data(), indices.typed_data(), esrc.typed_data(), edst.typed_data(),
                esrc.element_count(), Threads(num_threads), out->typed_data());
  return ffi::Error::Success();
}

}  // namespace
}  // namespace kcjax::truss

XLA_FFI_DEFINE_HANDLER_SYMBOL(kcjax_truss_cpu, kcjax::truss::TrussCpu,
                              kcjax::truss::BindTruss(kcjax::CpuBinding()));
XLA_FFI_DEFINE_HANDLER_SYMBOL(kcjax_truss_triangle_edges_cpu, kcjax::truss::TriangleEdgesCpu,
                              kcjax::truss::BindTriangleEdges(kcjax::CpuBinding()));
