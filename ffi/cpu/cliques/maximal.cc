// CPU handler of "kcjax_clique_maximal" (contract in kcjax/cliques/cliques.h):
// the maximal cliques of an undirected graph by Bron-Kerbosch with Tomita's
// pivot, one search per root vertex (Eppstein, Loffler & Strash), root tasks
// spread over std::threads.
//
// Root v (rank r = rank[v]) starts with R = {v}, candidates P = the
// neighbours of rank > r and excluded X = the neighbours of rank < r that
// have a neighbour in P (the others cannot extend any clique of more than v
// alone), both in the root's row order (rows ascending: binary-searchable). Every maximal clique is
// found exactly once, at the root of its lowest rank. The search runs over one bitmap space per
// root: P members are bits 0..p-1 (words 0..wp-1), X members bits 64 wp + j (words wp..wp+wx-1), so
// a P row (wp + wx words) holds a P member's neighbours in P and X, and an X row (wp words) an X
// member's neighbours in P.
//
// A node (R, P, X), in this order (a CUDA twin must apply the same rules to
// return the same cliques in the same order):
//   P and X empty -> R is maximal: written as v, then the members R added, in
//                    the order they were added;
//   P empty       -> nothing (R extends by a member of X);
//   otherwise the pivot u = the first member of P, then of X, with the most
//   neighbours in P; children, for each w of P not adjacent to u ascending:
//   (R + w, P & N(w), X & N(w)), after which w moves from P to X.
#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <thread>
#include <vector>

#include "kcjax/cliques/args.h"
#include "kcjax/cliques/cliques.h"
#include "kcjax/cliques/policy.h"

namespace ffi = xla::ffi;

namespace kcjax::cliques {
namespace {

inline int Popcount(uint64_t x) { return __builtin_popcountll(x); }

// Raises best[v] to at least s (relaxed: only the final maxima are read).
inline void RaiseTo(std::atomic<int32_t>* best, int32_t v, int32_t s) {
  int32_t cur = best[v].load(std::memory_order_relaxed);
  while (cur < s && !best[v].compare_exchange_weak(cur, s, std::memory_order_relaxed)) {
  }
}

// One worker thread's state: the bitmap space and per-level sets of the
// current root (reused across roots), and the cliques it found, by task.
class MaximalWorker {
 public:
  struct Span {
    int64_t task;
    int64_t clique_begin, clique_end;  // into sizes()
    int64_t entry_begin, entry_end;    // into verts()
  };

  // Storage: the cliques are kept while all workers' kept cliques and entries
  // (counted in *stored, shared) fit (cap_sizes, cap_verts); past that the call
  // writes nothing, so nothing more is kept (memory stays bounded by the capacity).
  struct Storage {
    int64_t cap_sizes, cap_verts;
    std::atomic<int64_t>* stored;  // [cliques, entries]
  };

  MaximalWorker(const int32_t* indptr, const int32_t* indices, const int32_t* rank,
                int64_t num_nodes, Storage storage, std::atomic<int32_t>* best)
      : indptr_(indptr),
        indices_(indices),
        rank_(rank),
        num_nodes_(num_nodes),
        storage_(storage),
        best_(best) {}

  // Finds the maximal cliques whose lowest-ranked vertex is v (task t).
  void RunTask(int64_t t, int32_t v) {
    const int64_t c0 = static_cast<int64_t>(sizes_.size());
    const int64_t e0 = static_cast<int64_t>(verts_.size());
    root_ = v;
    Search(v);
    spans_.push_back(
        {t, c0, static_cast<int64_t>(sizes_.size()), e0, static_cast<int64_t>(verts_.size())});
  }

  const std::vector<Span>& spans() const { return spans_; }
  const std::vector<int32_t>& sizes() const { return sizes_; }
  const std::vector<int32_t>& verts() const { return verts_; }
  int64_t cliques() const { return cliques_; }
  int64_t entries() const { return entries_; }

 private:
  static constexpr int32_t kUnseen = -1;
  static constexpr int32_t kEarlier = -2;  // an earlier neighbour of the root
  static constexpr int32_t kLinked = -3;   // ... adjacent to a member of P: in X

  void Search(int32_t v) {
    if (local_.empty()) local_.assign(static_cast<size_t>(num_nodes_), kUnseen);
    const int32_t rv = rank_[v];
    ids_.clear();
    bool earlier = false;
    for (int32_t e = indptr_[v]; e < indptr_[v + 1]; ++e) {
      const int32_t u = indices_[e];
      if (u == v || local_[u] != kUnseen) continue;  // self loops, repeated entries
      if (rank_[u] > rv) {
        local_[u] = static_cast<int32_t>(ids_.size());
        ids_.push_back(u);
      } else {
        local_[u] = kEarlier;
        earlier = true;
      }
    }
    const int p = static_cast<int>(ids_.size());
    if (p == 0) {
      if (!earlier) Emit(0);  // an isolated vertex is a maximal clique
      Reset(v);
      return;
    }
    wp_ = (p + 63) / 64;
    // X: the earlier neighbours adjacent to a member of P (marked from P's rows), in
    // the root's row order.
    for (int i = 0; i < p; ++i) {
      const int32_t w = ids_[i];
      for (int32_t e = indptr_[w]; e < indptr_[w + 1]; ++e) {
        const int32_t u = indices_[e];
        if (local_[u] == kEarlier) local_[u] = kLinked;
      }
    }
    xids_.clear();
    for (int32_t e = indptr_[v]; e < indptr_[v + 1]; ++e) {
      const int32_t u = indices_[e];
      if (local_[u] == kLinked) {
        local_[u] = 64 * wp_ + static_cast<int32_t>(xids_.size());
        xids_.push_back(u);
      }
    }
    const int x = static_cast<int>(xids_.size());
    wx_ = (x + 63) / 64;
    w_ = wp_ + wx_;
    prow_.assign(static_cast<size_t>(p) * w_, 0);
    xrow_.assign(static_cast<size_t>(x) * wp_, 0);
    for (int i = 0; i < p; ++i) {
      const int32_t w = ids_[i];
      uint64_t* row = prow_.data() + static_cast<size_t>(i) * w_;
      for (int32_t e = indptr_[w]; e < indptr_[w + 1]; ++e) {
        const int32_t u = indices_[e];
        const int32_t j = local_[u];
        if (j < 0 || u == w) continue;
        row[j >> 6] |= uint64_t{1} << (j & 63);
        if (j >= 64 * wp_) {
          xrow_[static_cast<size_t>(j - 64 * wp_) * wp_ + (i >> 6)] |= uint64_t{1} << (i & 63);
        }
      }
    }
    // Per-level sets: P (wp words), X (w words), the branch list (wp words).
    const size_t levels = static_cast<size_t>(p) + 1;
    if (pset_.size() < levels * wp_) pset_.resize(levels * wp_);
    if (bset_.size() < levels * wp_) bset_.resize(levels * wp_);
    if (xset_.size() < levels * w_) xset_.resize(levels * w_);
    if (held_.size() < levels) held_.resize(levels);
    uint64_t* P = pset_.data();
    uint64_t* X = xset_.data();
    for (int k = 0; k < wp_; ++k) {
      const int rem = p - 64 * k;
      P[k] = rem >= 64 ? ~uint64_t{0} : (uint64_t{1} << rem) - 1;
    }
    std::fill(X, X + w_, 0);
    for (int j = 0; j < x; ++j) X[wp_ + (j >> 6)] |= uint64_t{1} << (j & 63);
    Expand(0);
    Reset(v);
  }

  // Clears local_ for the root's neighbours.
  void Reset(int32_t v) {
    for (int32_t e = indptr_[v]; e < indptr_[v + 1]; ++e) local_[indices_[e]] = kUnseen;
  }

  // The first wp words of member b's row: its neighbours in P.
  const uint64_t* PCols(int b) const {
    return b < 64 * wp_ ? prow_.data() + static_cast<size_t>(b) * w_
                        : xrow_.data() + static_cast<size_t>(b - 64 * wp_) * wp_;
  }

  void Expand(int level) {
    uint64_t* P = pset_.data() + static_cast<size_t>(level) * wp_;
    uint64_t* X = xset_.data() + static_cast<size_t>(level) * w_;
    bool p_empty = true, x_empty = true;
    for (int k = 0; k < wp_; ++k) p_empty &= P[k] == 0;
    if (p_empty) {
      for (int k = 0; k < w_; ++k) x_empty &= X[k] == 0;
      if (x_empty) Emit(level);
      return;
    }
    int best = -1, pivot = -1;
    auto consider = [&](const uint64_t* S, int words) {
      for (int k = 0; k < words; ++k) {
        for (uint64_t bits = S[k]; bits != 0; bits &= bits - 1) {
          const int b = 64 * k + __builtin_ctzll(bits);
          const uint64_t* row = PCols(b);
          int c = 0;
          for (int q = 0; q < wp_; ++q) c += Popcount(P[q] & row[q]);
          if (c > best) {
            best = c;
            pivot = b;
          }
        }
      }
    };
    consider(P, wp_);
    consider(X, w_);
    uint64_t* B = bset_.data() + static_cast<size_t>(level) * wp_;
    const uint64_t* prow = PCols(pivot);
    for (int k = 0; k < wp_; ++k) B[k] = P[k] & ~prow[k];
    uint64_t* NP = P + wp_;
    uint64_t* NX = X + w_;
    for (int k = 0; k < wp_; ++k) {
      for (uint64_t bits = B[k]; bits != 0; bits &= bits - 1) {
        const int i = 64 * k + __builtin_ctzll(bits);
        const uint64_t* row = prow_.data() + static_cast<size_t>(i) * w_;
        for (int q = 0; q < wp_; ++q) NP[q] = P[q] & row[q];
        for (int q = 0; q < w_; ++q) NX[q] = X[q] & row[q];
        held_[level] = i;
        Expand(level + 1);
        P[k] &= ~(uint64_t{1} << (i & 63));
        X[k] |= uint64_t{1} << (i & 63);
      }
    }
  }

  // R = the root and held_[0..level) is maximal.
  void Emit(int level) {
    const int32_t size = level + 1;
    ++cliques_;
    entries_ += size;
    RaiseTo(best_, root_, size);
    for (int l = 0; l < level; ++l) RaiseTo(best_, ids_[held_[l]], size);
    if (storage_.cap_sizes == 0) return;
    const int64_t c = storage_.stored[0].fetch_add(1, std::memory_order_relaxed) + 1;
    const int64_t e = storage_.stored[1].fetch_add(size, std::memory_order_relaxed) + size;
    if (c > storage_.cap_sizes || e > storage_.cap_verts) return;  // nothing will be written
    sizes_.push_back(size);
    verts_.push_back(root_);
    for (int l = 0; l < level; ++l) verts_.push_back(ids_[held_[l]]);
  }

  const int32_t* indptr_;
  const int32_t* indices_;
  const int32_t* rank_;
  const int64_t num_nodes_;
  const Storage storage_;
  std::atomic<int32_t>* best_;
  int32_t root_ = 0;
  int wp_ = 0, wx_ = 0, w_ = 0;
  int64_t cliques_ = 0, entries_ = 0;
  std::vector<int32_t> local_;  // vertex -> bit in the root's space, or kUnseen / kEarlier
  std::vector<int32_t> ids_;    // P member -> vertex id
  std::vector<int32_t> xids_;   // X member -> vertex id
  std::vector<uint64_t> prow_, xrow_;
  std::vector<uint64_t> pset_, xset_, bset_;
  std::vector<int> held_;  // the P member each level added
  std::vector<Span> spans_;
  std::vector<int32_t> sizes_, verts_;
};

ffi::Error MaximalCpu(ffi::Buffer<ffi::S32> indptr, ffi::Buffer<ffi::S32> indices,
                      ffi::Buffer<ffi::S32> rank, ffi::Buffer<ffi::S32> tasks, int32_t num_threads,
                      ffi::ResultBuffer<ffi::S32> verts, ffi::ResultBuffer<ffi::S32> sizes,
                      ffi::ResultBuffer<ffi::S32> totals, ffi::ResultBuffer<ffi::S32> best) {
  const Reporter rep("kcjax_clique_maximal", "CPU");
  if (ffi::Error err = CheckMaximalShapes(rep, indptr, indices, rank, tasks, num_threads, *verts,
                                          *sizes, *totals, *best);
      err.failure()) {
    return err;
  }
  if (ffi::Error err = CheckMaximalData(
          rep, indptr.typed_data(), static_cast<int64_t>(indptr.element_count()) - 1,
          indices.typed_data(), static_cast<int64_t>(indices.element_count()), rank.typed_data(),
          tasks.typed_data(), static_cast<int64_t>(tasks.element_count()));
      err.failure()) {
    return err;
  }
  const int64_t n = static_cast<int64_t>(indptr.element_count()) - 1;
  const int64_t cap_verts = static_cast<int64_t>(verts->element_count());
  const int64_t cap_sizes = static_cast<int64_t>(sizes->element_count());
  const bool keep = cap_sizes > 0;

  std::vector<std::atomic<int32_t>> best_acc(static_cast<size_t>(n));
  for (auto& b : best_acc) b.store(0, std::memory_order_relaxed);
  const int32_t* task = tasks.typed_data();
  const int64_t num_tasks = static_cast<int64_t>(tasks.element_count());
  const int64_t chunk = CliquePolicy::kPivotCpuChunk;
  int64_t threads = num_threads > 0 ? num_threads : std::thread::hardware_concurrency();
  threads = std::max<int64_t>(1, std::min<int64_t>(threads, (num_tasks + chunk - 1) / chunk));
  std::atomic<int64_t> stored[2] = {0, 0};
  std::vector<MaximalWorker> workers;
  workers.reserve(threads);
  for (int64_t i = 0; i < threads; ++i) {
    workers.emplace_back(indptr.typed_data(), indices.typed_data(), rank.typed_data(), n,
                         MaximalWorker::Storage{keep ? cap_sizes : 0, cap_verts, stored},
                         best_acc.data());
  }
  std::atomic<int64_t> next{0};
  auto work = [&](MaximalWorker* wk) {
    while (true) {
      const int64_t begin = next.fetch_add(chunk);
      if (begin >= num_tasks) break;
      const int64_t end = std::min<int64_t>(num_tasks, begin + chunk);
      for (int64_t t = begin; t < end; ++t) {
        if (task[t] >= 0) wk->RunTask(t, task[t]);
      }
    }
  };
  std::vector<std::thread> pool;
  pool.reserve(threads - 1);
  for (int64_t i = 1; i < threads; ++i) pool.emplace_back(work, &workers[i]);
  work(&workers[0]);
  for (std::thread& t : pool) t.join();

  int64_t cliques = 0, entries = 0;
  for (const MaximalWorker& wk : workers) {
    cliques += wk.cliques();
    entries += wk.entries();
  }
  constexpr int64_t kMaxI32 = std::numeric_limits<int32_t>::max();
  int32_t* tot = totals->typed_data();
  tot[0] = static_cast<int32_t>(std::min(cliques, kMaxI32));
  tot[1] = static_cast<int32_t>(std::min(entries, kMaxI32));
  if (keep && cliques <= cap_sizes && entries <= cap_verts) {
    // Each task's cliques, in task order.
    std::vector<std::pair<const MaximalWorker*, const MaximalWorker::Span*>> by_task(
        num_tasks, {nullptr, nullptr});
    for (const MaximalWorker& wk : workers) {
      for (const MaximalWorker::Span& s : wk.spans()) by_task[s.task] = {&wk, &s};
    }
    int32_t* out_v = verts->typed_data();
    int32_t* out_s = sizes->typed_data();
    for (const auto& [wk, s] : by_task) {
      if (wk == nullptr) continue;
      out_s = std::copy(wk->sizes().begin() + s->clique_begin, wk->sizes().begin() + s->clique_end,
                        out_s);
      out_v = std::copy(wk->verts().begin() + s->entry_begin, wk->verts().begin() + s->entry_end,
                        out_v);
    }
  }
  int32_t* out_best = best->typed_data();
  for (int64_t v = 0; v < n; ++v) out_best[v] = best_acc[v].load(std::memory_order_relaxed);
  return ffi::Error::Success();
}

}  // namespace
}  // namespace kcjax::cliques

XLA_FFI_DEFINE_HANDLER_SYMBOL(kcjax_clique_maximal_cpu, kcjax::cliques::MaximalCpu,
                              kcjax::cliques::BindMaximal(kcjax::CpuBinding()));
