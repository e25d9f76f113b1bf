// CPU handlers of "kcjax_match_count" and "kcjax_match_list" (contracts in
// kcjax/match/match.h): the reference twin of the CUDA handlers.
//
// Depth-first backtracking over the levels. A level with backward neighbours
// draws its candidates from the adjacency row of the backward neighbour's
// image with the smallest degree (the pivot) and keeps those in the level's
// candidate bitmap, ordered against earlier images as the level's order
// masks say (symmetry breaking), adjacent to every other backward image
// (binary search), non-adjacent to the images of its non-adjacency mask
// (induced), and used fewer than mult[v] times so far. The last level is
// counted, not descended.
// Worker threads take roots from an atomic counter.
#include "kcjax/match/match.h"

#include <algorithm>
#include <atomic>
#include <bit>
#include <cstdint>
#include <thread>
#include <vector>

#include "kcjax/core/ffi.h"
#include "kcjax/match/args.h"

namespace ffi = xla::ffi;

namespace kcjax::match {
namespace {

using u128 = unsigned __int128;

class Searcher {
 public:
  explicit Searcher(const MatchView& m) : m_(m) {}

  // Embeddings (weighted) extending the images of levels < level.
  u128 Count(int level) {
    if (level == m_.q - 1 && level >= 2) {
      const int32_t* p = m_.plan + kPlanCols * level;
      const uint32_t back = static_cast<uint32_t>(p[kBack]);
      if ((p[kNonAdj] | p[kAbove] | p[kUnder]) == 0 && back != 0 && (back & (back - 1)) == 0) {
        const int32_t pivot = img_[std::countr_zero(back)];
        int64_t total = m_.leaf_sum[pivot];
        for (int j = 0; j < level; ++j) total -= InCand(level, img_[j]) && Adjacent(pivot, img_[j]);
        return static_cast<u128>(total);
      }
    }
    u128 total = 0;
    ForEachCandidate(level, [&](int32_t v, uint32_t w) {
      if (level == m_.q - 1) {
        total += w;
      } else {
        img_[level] = v;
        total += static_cast<u128>(w) * Count(level + 1);
      }
      return true;
    });
    return total;
  }

  // Writes completions of levels < level to rows; false once `found` passes cap.
  bool List(int level, int32_t* rows, int64_t cap, std::atomic<int64_t>& found) {
    return ForEachCandidate(level, [&](int32_t v, uint32_t) {
      img_[level] = v;
      if (level < m_.q - 1) return List(level + 1, rows, cap, found);
      const int64_t slot = found.fetch_add(1, std::memory_order_relaxed);
      if (slot >= cap) return false;
      std::copy(img_, img_ + m_.q, rows + slot * m_.q);
      return true;
    });
  }

  void SetRoot(int32_t v) { img_[0] = v; }

  // Weight of root v (0 if it is not a level-0 candidate).
  uint32_t RootWeight(int32_t v) const {
    return InCand(0, v) ? static_cast<uint32_t>(std::max(m_.mult[v], 0)) : 0u;
  }

 private:
  bool InCand(int level, int32_t v) const {
    return (m_.cand[level * m_.words + (v >> 5)] >> (v & 31)) & 1u;
  }
  bool Adjacent(int32_t a, int32_t b) const {
    int64_t da = m_.indptr[a + 1] - m_.indptr[a];
    int64_t db = m_.indptr[b + 1] - m_.indptr[b];
    if (db < da) std::swap(a, b);
    const int32_t* lo = m_.indices + m_.indptr[a];
    const int32_t* hi = m_.indices + m_.indptr[a + 1];
    return std::binary_search(lo, hi, b);
  }

  // Calls fn(v, weight) for every valid image of `level`; stops when fn
  // returns false (and returns false).
  template <typename Fn>
  bool ForEachCandidate(int level, Fn&& fn) {
    const int32_t* p = m_.plan + kPlanCols * level;
    const uint32_t back = static_cast<uint32_t>(p[kBack]);
    const uint32_t nonadj = static_cast<uint32_t>(p[kNonAdj]);
    const uint32_t above = static_cast<uint32_t>(p[kAbove]);
    const uint32_t under = static_cast<uint32_t>(p[kUnder]);
    const int32_t* src;
    int64_t len;
    int pivot = -1;
    if (back != 0) {
      int64_t best = -1;
      for (uint32_t b = back; b; b &= b - 1) {
        const int j = std::countr_zero(b);
        const int64_t d = m_.indptr[img_[j] + 1] - m_.indptr[img_[j]];
        if (best < 0 || d < best) {
          best = d;
          pivot = j;
        }
      }
      src = m_.indices + m_.indptr[img_[pivot]];
      len = best;
    } else {
      src = m_.lists + static_cast<int64_t>(p[kListRow]) * m_.list_stride;
      len = p[kListLen];
    }
    const uint32_t others = back & ~(pivot >= 0 ? (1u << pivot) : 0u);
    for (int64_t k = 0; k < len; ++k) {
      const int32_t v = src[k];
      if (v < 0 || !InCand(level, v)) continue;
      int used = 0;
      for (int j = 0; j < level; ++j) used += img_[j] == v;
      if (used >= m_.mult[v]) continue;
      bool ok = true;
      for (uint32_t b = above; ok && b; b &= b - 1) ok = v > img_[std::countr_zero(b)];
      for (uint32_t b = under; ok && b; b &= b - 1) ok = v < img_[std::countr_zero(b)];
      for (uint32_t b = others; ok && b; b &= b - 1) ok = Adjacent(img_[std::countr_zero(b)], v);
      for (uint32_t b = nonadj; ok && b; b &= b - 1) ok = !Adjacent(img_[std::countr_zero(b)], v);
      if (!ok) continue;
      if (!fn(v, static_cast<uint32_t>(m_.mult[v] - used))) return false;
    }
    return true;
  }

  const MatchView& m_;
  int32_t img_[kMaxQuery] = {};
};

int Threads(int32_t requested) {
  if (requested > 0) return requested;
  return std::max(1u, std::thread::hardware_concurrency());
}

void StoreLimbs(u128 v, uint32_t* out) {
  for (int i = 0; i < 4; ++i) out[i] = static_cast<uint32_t>(v >> (32 * i));
}

ffi::Error MatchCountCpu(ffi::Buffer<ffi::S32> indptr, ffi::Buffer<ffi::S32> indices,
                         ffi::Buffer<ffi::S32> mult, ffi::Buffer<ffi::U32> cand,
                         ffi::Buffer<ffi::S32> plan, ffi::Buffer<ffi::S32> lists,
                         ffi::Buffer<ffi::S32> roots, ffi::Buffer<ffi::S32> task_ptr,
                         ffi::Buffer<ffi::S32> leaf_sum, bool per_root, int32_t num_threads,
                         int32_t task_width, ffi::ResultBuffer<ffi::U32> out) {
  const Reporter rep("kcjax_match_count", "CPU");
  const Inputs in{indptr, indices, mult, cand, plan, lists, roots, task_ptr, leaf_sum};
  MatchView view;
  if (auto err = CheckInputs(rep, in, task_width, &view); err.failure()) return err;
  if (auto err = CheckCounts(rep, in, per_root, out); err.failure()) return err;
  if (auto err = CheckHostData(rep, in, view, /*listing=*/false); err.failure()) return err;
  const int64_t r = roots.element_count();
  std::vector<u128> per(r, 0);
  std::atomic<int64_t> next{0};
  const int32_t* rt = roots.typed_data();
  auto work = [&]() {
    Searcher s(view);
    for (int64_t i; (i = next.fetch_add(1)) < r;) {
      const int32_t v = rt[i];
      if (v < 0) continue;
      const uint32_t w = s.RootWeight(v);
      if (w == 0) continue;
      s.SetRoot(v);
      per[i] = view.q == 1 ? u128{w} : static_cast<u128>(w) * s.Count(1);
    }
  };
  const int t = static_cast<int>(std::min<int64_t>(Threads(num_threads), std::max<int64_t>(r, 1)));
  std::vector<std::thread> pool;
  for (int i = 1; i < t; ++i) pool.emplace_back(work);
  work();
  for (auto& th : pool) th.join();
  uint32_t* o = out->typed_data();
  if (per_root) {
    for (int64_t i = 0; i < r; ++i) StoreLimbs(per[i], o + 4 * i);
  } else {
    u128 total = 0;
    for (u128 x : per) total += x;
    StoreLimbs(total, o);
  }
  return ffi::Error::Success();
}

ffi::Error MatchListCpu(ffi::Buffer<ffi::S32> indptr, ffi::Buffer<ffi::S32> indices,
                        ffi::Buffer<ffi::S32> mult, ffi::Buffer<ffi::U32> cand,
                        ffi::Buffer<ffi::S32> plan, ffi::Buffer<ffi::S32> lists,
                        ffi::Buffer<ffi::S32> roots, ffi::Buffer<ffi::S32> task_ptr,
                        ffi::Buffer<ffi::S32> leaf_sum, int32_t num_threads, int32_t task_width,
                        ffi::ResultBuffer<ffi::S32> rows, ffi::ResultBuffer<ffi::U32> found_out) {
  const Reporter rep("kcjax_match_list", "CPU");
  const Inputs in{indptr, indices, mult, cand, plan, lists, roots, task_ptr, leaf_sum};
  MatchView view;
  if (auto err = CheckInputs(rep, in, task_width, &view); err.failure()) return err;
  if (auto err = CheckListing(rep, view, rows, found_out); err.failure()) return err;
  if (auto err = CheckHostData(rep, in, view, /*listing=*/true); err.failure()) return err;
  const int64_t cap = rows->dimensions()[0];
  int32_t* out = rows->typed_data();
  std::fill(out, out + cap * view.q, -1);
  const int64_t r = roots.element_count();
  std::atomic<int64_t> next{0}, found{0};
  const int32_t* rt = roots.typed_data();
  auto work = [&]() {
    Searcher s(view);
    for (int64_t i; (i = next.fetch_add(1)) < r && found.load() <= cap;) {
      const int32_t v = rt[i];
      if (v < 0 || s.RootWeight(v) == 0) continue;
      s.SetRoot(v);
      if (view.q == 1) {
        const int64_t slot = found.fetch_add(1);
        if (slot < cap) out[slot] = v;
      } else if (!s.List(1, out, cap, found)) {
        break;
      }
    }
  };
  const int t = static_cast<int>(std::min<int64_t>(Threads(num_threads), std::max<int64_t>(r, 1)));
  std::vector<std::thread> pool;
  for (int i = 1; i < t; ++i) pool.emplace_back(work);
  work();
  for (auto& th : pool) th.join();
  StoreLimbs(static_cast<u128>(std::min<int64_t>(found.load(), cap + 1)), found_out->typed_data());
  return ffi::Error::Success();
}

}  // namespace
}  // namespace kcjax::match

XLA_FFI_DEFINE_HANDLER_SYMBOL(kcjax_match_count_cpu, kcjax::match::MatchCountCpu,
                              kcjax::match::BindMatchCount(kcjax::CpuBinding()));
XLA_FFI_DEFINE_HANDLER_SYMBOL(kcjax_match_list_cpu, kcjax::match::MatchListCpu,
                              kcjax::match::BindMatchList(kcjax::CpuBinding()));
