// CPU handler of "kcjax_clique_count": the reference twin of the CUDA kernels.
//
// Edge tasks on the rank-labelled DAG. A search node holds s fixed vertices
// and their common out-neighbours C (sorted). Every member of C extends the
// clique by one, so counts[s + 1] += |C|. Deeper levels intersect either
// sorted lists or rows of a bitmap space built over C; KCMiner's rule builds
// the bitmap space when its density γ = edges(C) / |C|² exceeds λ(k, level).
#include <algorithm>
#include <atomic>
#include <bit>
#include <cstdint>
#include <string>
#include <thread>
#include <vector>

#include "kcjax/cliques/args.h"
#include "kcjax/cliques/cliques.h"
#include "kcjax/cliques/policy.h"
#include "kcjax/core/dag_check.h"
#include "kcjax/core/wide_count.h"

namespace ffi = xla::ffi;

namespace kcjax::cliques {
namespace {

using Word = uint64_t;
constexpr int kWordBits = 64;

inline int WordsFor(int d) { return (d + kWordBits - 1) / kWordBits; }

// Writes a ∩ b (both sorted) to out; returns its size.
int Intersect(const int32_t* a, int na, const int32_t* b, int nb, int32_t* out) {
  if (na > nb) {
    std::swap(a, b);
    std::swap(na, nb);
  }
  int n = 0;
  if (na * CliquePolicy::kCpuGallopRatio <
      nb) {  // galloping: binary search of each element of the small side
    const int32_t* lo = b;
    const int32_t* end = b + nb;
    for (int i = 0; i < na && lo < end; ++i) {
      lo = std::lower_bound(lo, end, a[i]);
      if (lo < end && *lo == a[i]) out[n++] = a[i];
    }
    return n;
  }
  int i = 0, j = 0;
  while (i < na && j < nb) {
    if (a[i] < b[j]) {
      ++i;
    } else if (a[i] > b[j]) {
      ++j;
    } else {
      out[n++] = a[i];
      ++i;
      ++j;
    }
  }
  return n;
}

// Sets bit j of `row` for every cand[j] in N+(w) (cand sorted); returns the
// number of bits set.
int BuildRow(const int32_t* cand, int d, const int32_t* nbr, int nn, Word* row) {
  int bits = 0, i = 0, j = 0;
  if (nn == 0) return 0;
  while (i < d && j < nn) {
    if (cand[i] < nbr[j]) {
      ++i;
    } else if (cand[i] > nbr[j]) {
      ++j;
    } else {
      row[i / kWordBits] |= Word{1} << (i % kWordBits);
      ++bits;
      ++i;
      ++j;
    }
  }
  return bits;
}

// What a traversal produces. kCount: totals per clique size. kList: the
// kmax-cliques themselves. kPerVertex: per-vertex totals of kmax-cliques.
enum class Mode { kCount, kList, kPerVertex };

// Shared listing output: rows [capacity, kmax] of rank ids, slots handed out
// by one atomic counter that keeps counting past the capacity.
struct ListOutput {
  int32_t* rows;
  int64_t capacity;
  std::atomic<int64_t> next{0};
  std::atomic<bool> stop{false};
  bool stop_when_full;
};

// Per-thread search state. All buffers grow on demand and are reused.
template <Mode M>
class Enumerator {
 public:
  Enumerator(const DagView& g, int kmax, CountMethod method, float lam, ListOutput* list)
      : g_(g), kmax_(kmax), method_(method), lam_(lam), list_(list), path_(kmax + 1) {
    if constexpr (M == Mode::kCount) counts_.resize(kmax + 1);
    if constexpr (M == Mode::kPerVertex) per_vertex_.resize(g.num_nodes);
  }

  const std::vector<U128>& counts() const { return counts_; }
  const std::vector<U128>& per_vertex() const { return per_vertex_; }

  void RunEdge(int32_t e) {
    const int32_t u = g_.src[e];
    const int32_t v = g_.indices[e];
    path_[0] = u;
    path_[1] = v;
    if (method_ == CountMethod::kStaticBitmapL1) {
      RunEdgeStaticL1(u, e - g_.indptr[u]);
      return;
    }
    const auto [nu, du] = Row(u);
    const auto [nv, dv] = Row(v);
    std::vector<int32_t>& cand = ListBuffer(0, std::min(du, dv));
    const int d = Intersect(nu, du, nv, dv, cand.data());
    ListNode(cand.data(), d, /*s=*/2, /*depth=*/0);
  }

 private:
  std::pair<const int32_t*, int> Row(int32_t u) const {
    const int32_t b = g_.indptr[u];
    return {g_.indices + b, g_.indptr[u + 1] - b};
  }

  std::vector<int32_t>& ListBuffer(int depth, int size) {
    if (static_cast<int>(lists_.size()) <= depth) lists_.resize(depth + 1);
    if (static_cast<int>(lists_[depth].size()) < size) lists_[depth].resize(size);
    return lists_[depth];
  }

  float Lambda(int level) const { return lam_ >= 0.0f ? lam_ : CliquePolicy::Lambda(kmax_, level); }

  // Listing and per-vertex counts only want kmax-cliques: a node whose
  // fixed and candidate vertices cannot reach kmax is skipped.
  bool Prune(int s, uint64_t candidates) const {
    if constexpr (M == Mode::kCount) {
      return false;
    } else if constexpr (M == Mode::kList) {
      return s + candidates < static_cast<uint64_t>(kmax_) ||
             list_->stop.load(std::memory_order_relaxed);
    } else {
      return s + candidates < static_cast<uint64_t>(kmax_);
    }
  }

  // The n cliques path_[0..s) + c, for each candidate c that for_each visits.
  template <class ForEach>
  void Complete(int s, uint64_t n, ForEach&& for_each) {
    if constexpr (M == Mode::kCount) {
      counts_[s + 1].Add(n);
    } else if constexpr (M == Mode::kList) {
      int64_t slot = list_->next.fetch_add(static_cast<int64_t>(n));
      for_each([&](int32_t c) {
        if (slot < list_->capacity) {
          int32_t* row = list_->rows + slot * kmax_;
          std::copy(path_.begin(), path_.begin() + s, row);
          row[s] = c;
        }
        ++slot;
      });
      if (list_->stop_when_full && slot >= list_->capacity) list_->stop.store(true);
    } else {
      for (int t = 0; t < s; ++t) per_vertex_[path_[t]].Add(n);
      for_each([&](int32_t c) { per_vertex_[c].Add(1); });
    }
  }

  // Node with s fixed vertices path_[0..s) and sorted candidates cand[0..d).
  void ListNode(const int32_t* cand, int d, int s, int depth) {
    if (d == 0 || Prune(s, d)) return;
    if (s + 1 >= kmax_) {
      Complete(s, d, [&](auto&& f) {
        for (int i = 0; i < d; ++i) f(cand[i]);
      });
      return;
    }
    if constexpr (M == Mode::kCount) counts_[s + 1].Add(static_cast<uint64_t>(d));
    const bool may_build =
        d <= CliquePolicy::kMaxBitmapDim && method_ != CountMethod::kBinarySearch;
    if (!may_build) {
      for (int i = 0; i + 1 < d; ++i) {
        const auto [nw, dw] = Row(cand[i]);
        std::vector<int32_t>& next = ListBuffer(depth + 1, std::min(d, dw));
        const int dn = Intersect(cand + i + 1, d - i - 1, nw, dw, next.data());
        path_[s] = cand[i];
        ListNode(next.data(), dn, s + 1, depth + 1);
      }
      return;
    }
    // Build the bitmap space over cand, counting its edges on the way.
    const int words = WordsFor(d);
    Word* rows = BitmapBuffer(depth, static_cast<size_t>(d) * words);
    std::fill(rows, rows + static_cast<size_t>(d) * words, Word{0});
    uint64_t edges = 0;
    for (int i = 0; i + 1 < d; ++i) {
      const auto [nw, dw] = Row(cand[i]);
      edges += BuildRow(cand, d, nw, dw, rows + static_cast<size_t>(i) * words);
    }
    const bool dynamic = method_ == CountMethod::kKCMiner;
    const double gamma = static_cast<double>(edges) / (static_cast<double>(d) * d);
    if (!dynamic || gamma > Lambda(s)) {
      std::vector<Word>& stack = StackBuffer(depth, static_cast<size_t>(words) * (kmax_ + 1));
      for (int i = 0; i + 1 < d; ++i) {
        path_[s] = cand[i];
        BitmapNode(rows, words, rows + static_cast<size_t>(i) * words, s + 1, stack.data(), cand);
      }
      return;
    }
    // Too sparse: one more level of lists, read off the rows just built.
    for (int i = 0; i + 1 < d; ++i) {
      const Word* row = rows + static_cast<size_t>(i) * words;
      std::vector<int32_t>& next = ListBuffer(depth + 1, d);
      int dn = 0;
      for (int w = 0; w < words; ++w) {
        for (Word bits = row[w]; bits; bits &= bits - 1) {
          next[dn++] = cand[w * kWordBits + std::countr_zero(bits)];
        }
      }
      path_[s] = cand[i];
      ListNode(next.data(), dn, s + 1, depth + 1);
    }
  }

  // Node with s fixed vertices and candidates `cur`, a subset of the rows of
  // the bitmap space `rows` built over the vertices base[]. `stack` holds
  // words * (levels left) scratch words.
  void BitmapNode(const Word* rows, int words, const Word* cur, int s, Word* stack,
                  const int32_t* base) {
    uint64_t here = 0;
    for (int w = 0; w < words; ++w) here += std::popcount(cur[w]);
    if (here == 0 || Prune(s, here)) return;
    if (s + 1 >= kmax_) {
      Complete(s, here, [&](auto&& f) {
        for (int w = 0; w < words; ++w) {
          for (Word bits = cur[w]; bits; bits &= bits - 1) {
            f(base[w * kWordBits + std::countr_zero(bits)]);
          }
        }
      });
      return;
    }
    if constexpr (M == Mode::kCount) counts_[s + 1].Add(here);
    Word* next = stack;
    for (int w = 0; w < words; ++w) {
      for (Word bits = cur[w]; bits; bits &= bits - 1) {
        const int i = w * kWordBits + std::countr_zero(bits);
        const Word* row = rows + static_cast<size_t>(i) * words;
        if (M == Mode::kCount && s + 2 >= kmax_) {  // last level: popcount only
          uint64_t c = 0;
          for (int x = w; x < words; ++x) c += std::popcount(cur[x] & row[x]);
          if constexpr (M == Mode::kCount) counts_[s + 2].Add(c);
          continue;
        }
        bool any = false;
        for (int x = 0; x < w; ++x) next[x] = 0;
        for (int x = w; x < words; ++x) {
          next[x] = cur[x] & row[x];
          any |= next[x] != 0;
        }
        if (!any) continue;
        path_[s] = base[i];
        BitmapNode(rows, words, next, s + 1, stack + words, base);
      }
    }
  }

  // Static level-1 bitmaps: one bitmap space over N+(u), reused by all of
  // u's edge tasks; the task (u, j-th out-neighbour) starts from row j.
  void RunEdgeStaticL1(int32_t u, int j) {
    const auto [nu, du] = Row(u);
    if (du > CliquePolicy::kMaxBitmapDim) {  // too large for a bitmap space
      const auto [nv, dv] = Row(nu[j]);
      std::vector<int32_t>& cand = ListBuffer(0, std::min(du, dv));
      const int d = Intersect(nu, du, nv, dv, cand.data());
      ListNode(cand.data(), d, 2, 0);
      return;
    }
    const int words = WordsFor(du);
    if (l1_root_ != u) {
      l1_rows_.assign(static_cast<size_t>(du) * words, Word{0});
      for (int i = 0; i + 1 < du; ++i) {
        const auto [nw, dw] = Row(nu[i]);
        BuildRow(nu, du, nw, dw, l1_rows_.data() + static_cast<size_t>(i) * words);
      }
      l1_root_ = u;
    }
    std::vector<Word>& stack = StackBuffer(0, static_cast<size_t>(words) * (kmax_ + 1));
    BitmapNode(l1_rows_.data(), words, l1_rows_.data() + static_cast<size_t>(j) * words, 2,
               stack.data(), nu);
  }

  Word* BitmapBuffer(int depth, size_t size) {
    if (static_cast<int>(bitmaps_.size()) <= depth) bitmaps_.resize(depth + 1);
    if (bitmaps_[depth].size() < size) bitmaps_[depth].resize(size);
    return bitmaps_[depth].data();
  }

  std::vector<Word>& StackBuffer(int depth, size_t size) {
    if (static_cast<int>(stacks_.size()) <= depth) stacks_.resize(depth + 1);
    if (stacks_[depth].size() < size) stacks_[depth].resize(size);
    return stacks_[depth];
  }

  const DagView g_;
  const int kmax_;
  const CountMethod method_;
  const float lam_;
  ListOutput* const list_;
  std::vector<int32_t> path_;                // the fixed vertices of the node
  std::vector<U128> counts_;                 // kCount: per clique size
  std::vector<U128> per_vertex_;             // kPerVertex: per vertex
  std::vector<std::vector<int32_t>> lists_;  // candidate lists per depth
  std::vector<std::vector<Word>> bitmaps_;   // bitmap spaces per depth
  std::vector<std::vector<Word>> stacks_;    // descent scratch per depth
  std::vector<Word> l1_rows_;
  int32_t l1_root_ = -1;
};

// The DAG and the edge tasks of one call, checked: the inputs the three CPU
// targets share (the CUDA handlers' CountProblem and ListProblem add each
// family's attributes and outputs).
struct DagTasks {
  DagView g;
  const int32_t* tasks;  // nullptr: every edge is a task (task i is edge i)
  int64_t num_tasks;
  int32_t Task(int64_t i) const { return tasks ? tasks[i] : static_cast<int32_t>(i); }
};

ffi::Error CheckInputs(const Reporter& rep, ffi::Buffer<ffi::S32> indptr,
                       ffi::Buffer<ffi::S32> indices, ffi::Buffer<ffi::S32> src,
                       ffi::Buffer<ffi::S32> tasks, int32_t kmax, int32_t method, bool all_edges,
                       DagTasks* p) {
  if (kmax < 3) return rep.Invalid("kmax must be >= 3");
  if (method < 0 || method >= kNumCountMethods) {
    return rep.Invalid("unknown method code " + std::to_string(method));
  }
  if (indptr.element_count() < 1 || indices.element_count() != src.element_count()) {
    return rep.Invalid("indptr must be non-empty and src match indices");
  }
  p->g = DagView{{.indptr = indptr.typed_data(),
                  .indices = indices.typed_data(),
                  .src = src.typed_data(),
                  .num_edges = static_cast<int64_t>(indices.element_count()),
                  .num_nodes = static_cast<int64_t>(indptr.element_count()) - 1}};
  if (ffi::Error err =
          ValidateDag(rep, p->g.indptr, p->g.num_nodes, p->g.indices, p->g.num_edges, p->g.src);
      !err.success()) {
    return err;
  }
  if (all_edges) {
    if (tasks.element_count() != 0) {
      return rep.Invalid("all_edges needs an empty tasks array (got " +
                         std::to_string(tasks.element_count()) + " task ids)");
    }
    p->tasks = nullptr;
    p->num_tasks = p->g.num_edges;
    return ffi::Error::Success();
  }
  p->tasks = tasks.typed_data();
  p->num_tasks = static_cast<int64_t>(tasks.element_count());
  for (int64_t i = 0; i < p->num_tasks; ++i) {
    if (p->tasks[i] < -1 || p->tasks[i] >= p->g.num_edges) {
      return rep.Invalid("task " + std::to_string(p->tasks[i]) +
                         " is not an edge id (or -1 padding)");
    }
  }
  return ffi::Error::Success();
}

// Runs every task on a pool of threads pulling chunks from an atomic counter;
// finish(thread, enumerator) collects each thread's result.
template <Mode M, class Finish>
void RunTasks(const DagTasks& p, int kmax, int32_t method, float lam, int32_t num_threads,
              ListOutput* list, Finish&& finish) {
  constexpr int64_t kChunk = CliquePolicy::kCpuTaskChunk;
  int threads =
      num_threads > 0 ? num_threads : static_cast<int>(std::thread::hardware_concurrency());
  threads =
      static_cast<int>(std::clamp<int64_t>(threads, 1, std::max<int64_t>(1, p.num_tasks / kChunk)));
  std::atomic<int64_t> next{0};
  auto work = [&](int t) {
    Enumerator<M> en(p.g, kmax, static_cast<CountMethod>(method), lam, list);
    for (int64_t b = next.fetch_add(kChunk); b < p.num_tasks; b = next.fetch_add(kChunk)) {
      for (int64_t i = b; i < std::min(b + kChunk, p.num_tasks); ++i) {
        if (const int32_t e = p.Task(i); e >= 0) en.RunEdge(e);
      }
    }
    finish(t, en);
  };
  std::vector<std::thread> pool;
  for (int t = 1; t < threads; ++t) pool.emplace_back(work, t);
  work(0);
  for (auto& th : pool) th.join();
}

// Sums per-thread 128-bit vectors into limbs [size, 4].
void StoreSum(const std::vector<std::vector<U128>>& partial, size_t size, uint32_t* out) {
  for (size_t i = 0; i < size; ++i) {
    U128 total;
    for (const auto& p : partial) {
      if (!p.empty()) total.Add(p[i]);
    }
    total.Store(out + 4 * i);
  }
}

int MaxThreads(int32_t num_threads) {
  return std::max(
      1, num_threads > 0 ? num_threads : static_cast<int>(std::thread::hardware_concurrency()));
}

ffi::Error CliqueCountCpu(ffi::Buffer<ffi::S32> indptr, ffi::Buffer<ffi::S32> indices,
                          ffi::Buffer<ffi::S32> src, ffi::Buffer<ffi::S32> tasks, int32_t kmax,
                          int32_t method, float lam, int32_t num_threads, bool all_edges,
                          int32_t /*max_degree: a CUDA routing hint*/,
                          ffi::ResultBuffer<ffi::U32> counts) {
  const Reporter rep("kcjax_clique_count", "CPU");
  DagTasks p;
  if (ffi::Error err = CheckInputs(rep, indptr, indices, src, tasks, kmax, method, all_edges, &p);
      !err.success()) {
    return err;
  }
  const auto dims = counts->dimensions();
  if (dims.size() != 2 || dims[0] != kmax + 1 || dims[1] != 4) {
    return rep.Invalid("counts must have shape [kmax + 1, 4]");
  }
  std::vector<std::vector<U128>> partial(MaxThreads(num_threads));
  RunTasks<Mode::kCount>(p, kmax, method, lam, num_threads, nullptr,
                         [&](int t, const auto& en) { partial[t] = en.counts(); });
  StoreSum(partial, kmax + 1, counts->typed_data());
  return ffi::Error::Success();
}

ffi::Error CliqueListCpu(ffi::Buffer<ffi::S32> indptr, ffi::Buffer<ffi::S32> indices,
                         ffi::Buffer<ffi::S32> src, ffi::Buffer<ffi::S32> tasks, int32_t k,
                         int32_t method, float lam, int32_t num_threads, bool stop_when_full,
                         ffi::ResultBuffer<ffi::S32> cliques, ffi::ResultBuffer<ffi::U32> count) {
  const Reporter rep("kcjax_clique_list", "CPU");
  DagTasks p;
  if (ffi::Error err = CheckInputs(rep, indptr, indices, src, tasks, k, method, false, &p);
      !err.success()) {
    return err;
  }
  const auto dims = cliques->dimensions();
  if (dims.size() != 2 || dims[1] != k || count->element_count() != 4) {
    return rep.Invalid("cliques must have shape [capacity, k] and count [4]");
  }
  ListOutput list{cliques->typed_data(), dims[0], {}, {}, stop_when_full};
  std::fill(list.rows, list.rows + dims[0] * k, -1);
  RunTasks<Mode::kList>(p, k, method, lam, num_threads, &list, [](int, const auto&) {});
  U128 total;
  total.Add(static_cast<uint64_t>(list.next.load()));
  total.Store(count->typed_data());
  return ffi::Error::Success();
}

ffi::Error CliquePerVertexCpu(ffi::Buffer<ffi::S32> indptr, ffi::Buffer<ffi::S32> indices,
                              ffi::Buffer<ffi::S32> src, ffi::Buffer<ffi::S32> tasks, int32_t k,
                              int32_t method, float lam, int32_t num_threads,
                              ffi::ResultBuffer<ffi::U32> counts) {
  const Reporter rep("kcjax_clique_per_vertex", "CPU");
  DagTasks p;
  if (ffi::Error err = CheckInputs(rep, indptr, indices, src, tasks, k, method, false, &p);
      !err.success()) {
    return err;
  }
  const auto dims = counts->dimensions();
  if (dims.size() != 2 || dims[0] != p.g.num_nodes || dims[1] != 4) {
    return rep.Invalid("counts must have shape [num_nodes, 4]");
  }
  std::vector<std::vector<U128>> partial(MaxThreads(num_threads));
  RunTasks<Mode::kPerVertex>(p, k, method, lam, num_threads, nullptr,
                             [&](int t, const auto& en) { partial[t] = en.per_vertex(); });
  StoreSum(partial, static_cast<size_t>(p.g.num_nodes), counts->typed_data());
  return ffi::Error::Success();
}

}  // namespace
}  // namespace kcjax::cliques

XLA_FFI_DEFINE_HANDLER_SYMBOL(kcjax_clique_count_cpu, kcjax::cliques::CliqueCountCpu,
                              kcjax::cliques::BindCliqueCount(kcjax::CpuBinding()));
XLA_FFI_DEFINE_HANDLER_SYMBOL(kcjax_clique_list_cpu, kcjax::cliques::CliqueListCpu,
                              kcjax::cliques::BindCliqueList(kcjax::CpuBinding()));
XLA_FFI_DEFINE_HANDLER_SYMBOL(kcjax_clique_per_vertex_cpu, kcjax::cliques::CliquePerVertexCpu,
                              kcjax::cliques::BindCliquePerVertex(kcjax::CpuBinding()));
