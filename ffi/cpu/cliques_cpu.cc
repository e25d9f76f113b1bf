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

#include "kcjax/cliques.h"
#include "kcjax/policy.h"
#include "kcjax/wide_count.h"

namespace ffi = xla::ffi;

namespace kcjax {
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
  if (na * 16 < nb) {  // galloping: binary search of each element of the small side
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

// Per-thread search state. All buffers grow on demand and are reused.
class Enumerator {
 public:
  Enumerator(const DagView& g, int kmax, CountMethod method, float lam)
      : g_(g), kmax_(kmax), method_(method), lam_(lam), counts_(kmax + 1) {}

  const std::vector<U128>& counts() const { return counts_; }

  void RunEdge(int32_t e) {
    const int32_t u = g_.src[e];
    const int32_t v = g_.indices[e];
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

  float Lambda(int level) const {
    return lam_ >= 0.0f ? lam_ : CliquePolicy::Lambda(kmax_, level);
  }

  // Node with s fixed vertices and sorted candidates cand[0..d).
  void ListNode(const int32_t* cand, int d, int s, int depth) {
    if (d == 0) return;
    counts_[s + 1].Add(static_cast<uint64_t>(d));
    if (s + 1 >= kmax_) return;
    const bool may_build = d <= CliquePolicy::kMaxBitmapDim && method_ != CountMethod::kBinarySearch;
    if (!may_build) {
      for (int i = 0; i + 1 < d; ++i) {
        const auto [nw, dw] = Row(cand[i]);
        std::vector<int32_t>& next = ListBuffer(depth + 1, std::min(d, dw));
        const int dn = Intersect(cand + i + 1, d - i - 1, nw, dw, next.data());
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
      // counts[s + 1] was added above; descend from every member.
      std::vector<Word>& cur = StackBuffer(depth, static_cast<size_t>(words) * (kmax_ + 1));
      for (int i = 0; i + 1 < d; ++i) {
        BitmapNode(rows, words, rows + static_cast<size_t>(i) * words, s + 1, cur.data());
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
      ListNode(next.data(), dn, s + 1, depth + 1);
    }
  }

  // Node with s fixed vertices and candidates `cur` (a row subset of the
  // bitmap space `rows`). `stack` holds words * (levels left) scratch words.
  void BitmapNode(const Word* rows, int words, const Word* cur, int s, Word* stack) {
    uint64_t here = 0;
    for (int w = 0; w < words; ++w) here += std::popcount(cur[w]);
    if (here == 0) return;
    counts_[s + 1].Add(here);
    if (s + 1 >= kmax_) return;
    Word* next = stack;
    for (int w = 0; w < words; ++w) {
      for (Word bits = cur[w]; bits; bits &= bits - 1) {
        const int i = w * kWordBits + std::countr_zero(bits);
        const Word* row = rows + static_cast<size_t>(i) * words;
        if (s + 2 >= kmax_) {  // last level: popcount only
          uint64_t c = 0;
          for (int x = w; x < words; ++x) c += std::popcount(cur[x] & row[x]);
          counts_[s + 2].Add(c);
          continue;
        }
        bool any = false;
        for (int x = 0; x < w; ++x) next[x] = 0;
        for (int x = w; x < words; ++x) {
          next[x] = cur[x] & row[x];
          any |= next[x] != 0;
        }
        if (any) BitmapNode(rows, words, next, s + 1, stack + words);
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
               stack.data());
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
  std::vector<U128> counts_;
  std::vector<std::vector<int32_t>> lists_;  // candidate lists per depth
  std::vector<std::vector<Word>> bitmaps_;   // bitmap spaces per depth
  std::vector<std::vector<Word>> stacks_;    // descent scratch per depth
  std::vector<Word> l1_rows_;
  int32_t l1_root_ = -1;
};

ffi::Error ValidateDag(const DagView& g) {
  if (g.indptr[0] != 0 || g.indptr[g.num_nodes] != g.num_edges) {
    return ffi::Error::InvalidArgument("indptr must start at 0 and end at the number of edges");
  }
  for (int64_t u = 0; u < g.num_nodes; ++u) {
    const int32_t b = g.indptr[u], e = g.indptr[u + 1];
    if (e < b) return ffi::Error::InvalidArgument("indptr must be non-decreasing");
    for (int32_t x = b; x < e; ++x) {
      const int32_t v = g.indices[x];
      if (v <= u || v >= g.num_nodes || (x > b && v <= g.indices[x - 1]) || g.src[x] != u) {
        return ffi::Error::InvalidArgument(
            "the graph is not an oriented DAG (rows sorted, every entry above its row, src "
            "matching indptr); build it with kcjax.orient");
      }
    }
  }
  return ffi::Error::Success();
}

ffi::Error CliqueCountCpu(ffi::Buffer<ffi::S32> indptr, ffi::Buffer<ffi::S32> indices,
                          ffi::Buffer<ffi::S32> src, ffi::Buffer<ffi::S32> tasks, int32_t kmax,
                          int32_t method, float lam, int32_t num_threads,
                          ffi::ResultBuffer<ffi::U32> counts) {
  if (kmax < 3) return ffi::Error::InvalidArgument("kmax must be >= 3");
  if (method < 0 || method >= kNumCountMethods) {
    return ffi::Error::InvalidArgument("unknown method code " + std::to_string(method));
  }
  const auto cdims = counts->dimensions();
  if (cdims.size() != 2 || cdims[0] != kmax + 1 || cdims[1] != 4) {
    return ffi::Error::InvalidArgument("counts must have shape [kmax + 1, 4]");
  }
  if (indptr.element_count() < 1 || indices.element_count() != src.element_count()) {
    return ffi::Error::InvalidArgument("indptr must be non-empty and src match indices");
  }
  const DagView g{indptr.typed_data(), indices.typed_data(), src.typed_data(),
                  static_cast<int64_t>(indptr.element_count()) - 1,
                  static_cast<int64_t>(indices.element_count())};
  if (ffi::Error err = ValidateDag(g); !err.success()) return err;
  const int32_t* task = tasks.typed_data();
  const int64_t num_tasks = static_cast<int64_t>(tasks.element_count());
  for (int64_t i = 0; i < num_tasks; ++i) {
    if (task[i] < -1 || task[i] >= g.num_edges) {
      return ffi::Error::InvalidArgument("task " + std::to_string(task[i]) +
                                         " is not an edge id (or -1 padding)");
    }
  }

  int threads = num_threads > 0 ? num_threads : static_cast<int>(std::thread::hardware_concurrency());
  threads = static_cast<int>(std::clamp<int64_t>(threads, 1, std::max<int64_t>(1, num_tasks / 64)));
  constexpr int64_t kChunk = 64;
  std::atomic<int64_t> next{0};
  std::vector<std::vector<U128>> partial(threads);
  auto work = [&](int t) {
    Enumerator en(g, kmax, static_cast<CountMethod>(method), lam);
    for (int64_t b = next.fetch_add(kChunk); b < num_tasks; b = next.fetch_add(kChunk)) {
      for (int64_t i = b; i < std::min(b + kChunk, num_tasks); ++i) {
        if (task[i] >= 0) en.RunEdge(task[i]);
      }
    }
    partial[t] = en.counts();
  };
  std::vector<std::thread> pool;
  for (int t = 1; t < threads; ++t) pool.emplace_back(work, t);
  work(0);
  for (auto& th : pool) th.join();

  uint32_t* out = counts->typed_data();
  for (int s = 0; s <= kmax; ++s) {
    U128 total;
    for (const auto& p : partial) total.Add(p[s]);
    total.Store(out + 4 * s);
  }
  return ffi::Error::Success();
}

}  // namespace
}  // namespace kcjax

XLA_FFI_DEFINE_HANDLER_SYMBOL(kcjax_clique_count_cpu, kcjax::CliqueCountCpu,
                              ffi::Ffi::Bind()
                                  .Arg<ffi::Buffer<ffi::S32>>()  // indptr
                                  .Arg<ffi::Buffer<ffi::S32>>()  // indices
                                  .Arg<ffi::Buffer<ffi::S32>>()  // src
                                  .Arg<ffi::Buffer<ffi::S32>>()  // tasks
                                  .Attr<int32_t>("kmax")
                                  .Attr<int32_t>("method")
                                  .Attr<float>("lam")
                                  .Attr<int32_t>("num_threads")
                                  .Ret<ffi::Buffer<ffi::U32>>());  // counts
