// CPU handler of "kcjax_clique_pivot" (contract in kcjax/cliques.h): the
// succinct clique tree of Pivoter (Jain & Seshadhri) walked over one bitmap
// space per root vertex, root tasks spread over std::threads.
//
// Per root v with candidates P = N+(v) (d = |P|, sorted), the bitmap space has
// one row of W = ceil(d / 64) words per member: bit j of row i is set iff P[i]
// and P[j] are adjacent (undirected inside P). A tree node is (P, h, p). Its
// cliques are: all h held vertices, any subset of the p pivots, and any clique
// inside P. Entering a node, in this order (the CUDA kernel applies the same
// rules, so both return the same histogram):
//   |P| = 0            -> leaf (h, p);
//   |P| = 1            -> leaf (h, p + 1) (its pivot child is empty);
//   h >= hmax - kPivotResolveDepth -> resolved in closed form (Resolve);
//   P is a clique      -> leaf (h, p + |P|) (the end of its pivot chain);
//   otherwise, pivot u = the first member with the most neighbours inside P;
//     children: (P & row(u), h, p + 1), then for each non-neighbour x != u of
//     u in P, ascending, (P' & row(x), h + 1, p) with P' = P minus u and minus
//     the non-neighbours already branched on.
// Children holding more than hmax vertices, or with h + p + |P| < kmin, are
// pruned: they add nothing to count_k for kmin <= k <= hmax.
#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "kcjax/cliques.h"
#include "kcjax/dag_check.h"
#include "kcjax/policy.h"
#include "kcjax/wide_count.h"

namespace ffi = xla::ffi;

namespace kcjax {
namespace {

static_assert(CliquePolicy::kPivotResolveDepth >= 0 && CliquePolicy::kPivotResolveDepth <= 3,
              "Resolve counts cliques of at most 3 candidates; expanded nodes need h < hmax");

inline int Popcount(uint64_t x) { return __builtin_popcountll(x); }

// One worker thread's state: the bitmap space and DFS frames of the current
// root (reused across roots), and its 128-bit histogram.
class PivotWorker {
 public:
  // hist_h / hist_p: histogram extents. Every cell written has h <= hmax and
  // h + p <= d + 1 (the held and pivot vertices other than the root are
  // distinct members of P): hist_h > min(hmax, dmax + 1), hist_p > dmax.
  PivotWorker(const int32_t* indptr, const int32_t* indices, int64_t num_nodes, int hmax,
              int kmin, int hist_h, int hist_p)
      : indptr_(indptr),
        indices_(indices),
        hmax_(hmax),
        kmin_(kmin),
        hist_p_(hist_p),
        local_(static_cast<size_t>(num_nodes), -1),
        hist_(static_cast<size_t>(hist_h) * hist_p) {}

  // Adds the leaves of root task v's subtree to the histogram.
  void RunTask(int32_t v) {
    const int32_t* cand = indices_ + indptr_[v];
    const int d = indptr_[v + 1] - indptr_[v];
    if (1 + d < kmin_) return;  // h + p + |P| < kmin already at the root
    if (d == 0) {
      Leaf(1, 0);
      return;
    }
    const int w = (d + 63) / 64;
    BuildSpace(cand, d, w);
    switch (w) {
      case 1:
        Search<1>(d, w);
        break;
      case 2:
        Search<2>(d, w);
        break;
      case 3:
        Search<3>(d, w);
        break;
      case 4:
        Search<4>(d, w);
        break;
      default:
        Search<0>(d, w);
        break;
    }
  }

  const std::vector<U128>& hist() const { return hist_; }

 private:
  void Leaf(int h, int p, uint64_t times = 1) {
    hist_[static_cast<size_t>(h) * hist_p_ + p].Add(times);
  }

  // Fills adj_ (d rows of w words) with the undirected adjacency inside
  // cand[0..d), and sizes the frame arrays for d + 2 levels.
  void BuildSpace(const int32_t* cand, int d, int w) {
    const size_t words = static_cast<size_t>(d) * w;
    if (adj_.size() < words) adj_.resize(words);
    std::memset(adj_.data(), 0, words * sizeof(uint64_t));
    const size_t levels = static_cast<size_t>(d) + 2;
    if (frame_h_.size() < levels) {
      frame_h_.resize(levels);
      frame_p_.resize(levels);
      frame_n_.resize(levels);
    }
    if (cand_.size() < levels * w) {
      cand_.resize(levels * w);
      branch_.resize(levels * w);
    }
    for (int i = 0; i < d; ++i) local_[cand[i]] = i;
    uint64_t* adj = adj_.data();
    for (int i = 0; i < d; ++i) {
      const int32_t u = cand[i];
      for (int32_t e = indptr_[u]; e < indptr_[u + 1]; ++e) {
        const int j = local_[indices_[e]];
        if (j < 0) continue;
        adj[static_cast<size_t>(i) * w + (j >> 6)] |= uint64_t{1} << (j & 63);
        adj[static_cast<size_t>(j) * w + (i >> 6)] |= uint64_t{1} << (i & 63);
      }
    }
    for (int i = 0; i < d; ++i) local_[cand[i]] = -1;
  }

  // Records a node (P, h, p) with hmax - h <= kPivotResolveDepth in closed
  // form instead of expanding it. Each of its cliques of size <= hmax is
  // held + a subset of the pivots + a clique Q of j <= hmax - h members of P,
  // so cell (h + j, p) gets c_j(P) = number of j-cliques in P (c_0 = 1,
  // c_1 = n, c_2 = edges, c_3 = triangles): the binomial transform of the
  // histogram is unchanged for every k <= hmax. Cells with c_j = 0 are not
  // touched (c_j > 0 implies j <= n, keeping h + j + p <= d + 1). T: w words
  // of scratch.
  template <int kW>
  void Resolve(const uint64_t* P, uint64_t* T, int rt_w, int h, int p, int n) {
    const int w = kW > 0 ? kW : rt_w;
    const int jmax = hmax_ - h;
    Leaf(h, p);
    if (jmax >= 1) Leaf(h + 1, p, n);
    if (jmax < 2) return;
    const uint64_t* adj = adj_.data();
    uint64_t edges = 0, triangles = 0;
    for (int k = 0; k < w; ++k) T[k] = P[k];
    for (int k = 0; k < w; ++k) {
      for (uint64_t bits = P[k]; bits != 0; bits &= bits - 1) {
        const int i = 64 * k + __builtin_ctzll(bits);
        T[k] &= ~(uint64_t{1} << (i & 63));  // T = members of P after i
        const uint64_t* ri = adj + static_cast<size_t>(i) * w;
        for (int q = 0; q < w; ++q) edges += Popcount(T[q] & ri[q]);
        if (jmax < 3) continue;
        // Triangle {i < j < l}: found at j and at l (both in T & ri).
        for (int k2 = 0; k2 < w; ++k2) {
          for (uint64_t b2 = T[k2] & ri[k2]; b2 != 0; b2 &= b2 - 1) {
            const uint64_t* rj = adj + static_cast<size_t>(64 * k2 + __builtin_ctzll(b2)) * w;
            for (int q = 0; q < w; ++q) triangles += Popcount(T[q] & ri[q] & rj[q]);
          }
        }
      }
    }
    if (edges != 0) Leaf(h + 2, p, edges);
    if (triangles != 0) Leaf(h + 3, p, triangles / 2);
  }

  // Walks the subtree of the root (P = all d members, h = 1, p = 0).
  // kW > 0 fixes the row width at compile time; kW == 0 uses rt_w.
  //
  // Frames 0..top are the open nodes on the DFS path. Frame L holds
  //   cand  = the node's P minus its pivot and minus the non-neighbours
  //           already branched on (the P' of the next non-neighbour child),
  //   branch = the non-neighbours of the pivot still to branch on (an
  //           expanded node has h < hmax - kPivotResolveDepth, so its
  //           non-neighbour children hold h + 1 <= hmax vertices),
  //   n = |cand|, and the node's h and p.
  // A pending child (its P stored in cand row top + 1, with ch, cp, cn) is
  // entered before the next sibling of frame top is produced, so children are
  // visited in order: pivot child first, then non-neighbours ascending.
  // Every child entered satisfies ch <= hmax and ch + cp + cn >= kmin.
  template <int kW>
  void Search(int d, int rt_w) {
    const int w = kW > 0 ? kW : rt_w;
    const uint64_t* adj = adj_.data();
    uint64_t* cand = cand_.data();
    uint64_t* branch = branch_.data();
    int* frame_h = frame_h_.data();
    int* frame_p = frame_p_.data();
    int* frame_n = frame_n_.data();

    for (int k = 0; k < w; ++k) {
      const int rem = d - 64 * k;
      cand[k] = rem >= 64 ? ~uint64_t{0} : (uint64_t{1} << rem) - 1;
    }
    int top = -1;
    bool pending = true;
    int ch = 1, cp = 0, cn = d;
    while (true) {
      if (pending) {
        pending = false;
        const int level = top + 1;
        uint64_t* P = cand + static_cast<size_t>(level) * w;
        if (cn <= 1) {  // empty: leaf; one vertex: it is the pivot, child empty
          Leaf(ch, cp + cn);
          continue;
        }
        if (hmax_ - ch <= CliquePolicy::kPivotResolveDepth) {
          Resolve<kW>(P, cand + static_cast<size_t>(level + 1) * w, w, ch, cp, cn);
          continue;
        }
        // Pivot: first member with the most neighbours inside P; least: the
        // fewest (P is a clique iff least == cn - 1).
        int best = -1, least = cn, pivot = -1;
        for (int k = 0; k < w; ++k) {
          for (uint64_t bits = P[k]; bits != 0; bits &= bits - 1) {
            const int i = 64 * k + __builtin_ctzll(bits);
            const uint64_t* row = adj + static_cast<size_t>(i) * w;
            int c = 0;
            for (int q = 0; q < w; ++q) c += Popcount(P[q] & row[q]);
            least = std::min(least, c);
            if (c > best) {
              best = c;
              pivot = i;
            }
          }
        }
        if (least == cn - 1) {  // a clique: its pivot chain ends in one leaf
          Leaf(ch, cp + cn);
          continue;
        }
        const uint64_t* row = adj + static_cast<size_t>(pivot) * w;
        uint64_t* B = branch + static_cast<size_t>(level) * w;
        uint64_t* C = cand + static_cast<size_t>(level + 1) * w;
        for (int k = 0; k < w; ++k) {
          B[k] = P[k] & ~row[k];
          C[k] = P[k] & row[k];
        }
        const uint64_t pbit = uint64_t{1} << (pivot & 63);
        B[pivot >> 6] &= ~pbit;
        P[pivot >> 6] &= ~pbit;
        top = level;
        frame_h[level] = ch;
        frame_p[level] = cp;
        frame_n[level] = cn - 1;
        if (ch + cp + 1 + best >= kmin_) {  // pivot child (P & row(u), h, p + 1)
          cp += 1;
          cn = best;
          pending = true;
        }
        continue;
      }
      if (top < 0) break;
      // Next non-neighbour child of frame top. Each remaining one lies inside
      // cand minus its own vertex, so all are pruned once h+1+p+n-1 < kmin.
      const int level = top;
      const int h = frame_h[level], p = frame_p[level];
      uint64_t* B = branch + static_cast<size_t>(level) * w;
      int k = 0;
      while (k < w && B[k] == 0) ++k;
      if (k == w || h + p + frame_n[level] < kmin_) {
        --top;
        continue;
      }
      const int x = 64 * k + __builtin_ctzll(B[k]);
      uint64_t* P = cand + static_cast<size_t>(level) * w;
      B[k] &= B[k] - 1;
      P[k] &= ~(uint64_t{1} << (x & 63));
      frame_n[level] -= 1;
      const uint64_t* row = adj + static_cast<size_t>(x) * w;
      uint64_t* C = cand + static_cast<size_t>(level + 1) * w;
      int c = 0;
      for (int q = 0; q < w; ++q) {
        C[q] = P[q] & row[q];
        c += Popcount(C[q]);
      }
      if (h + 1 + p + c >= kmin_) {
        ch = h + 1;
        cp = p;
        cn = c;
        pending = true;
      }
    }
  }

  const int32_t* indptr_;
  const int32_t* indices_;
  const int hmax_;
  const int kmin_;
  const int hist_p_;
  std::vector<int32_t> local_;  // vertex -> index in the current root's P, else -1
  std::vector<U128> hist_;      // [hist_h][hist_p]
  std::vector<uint64_t> adj_;   // bitmap space, d rows of w words
  std::vector<uint64_t> cand_;  // frame cand masks, (d + 2) rows of w words
  std::vector<uint64_t> branch_;
  std::vector<int> frame_h_, frame_p_, frame_n_;
};

ffi::Error PivotCpu(ffi::Buffer<ffi::S32> indptr, ffi::Buffer<ffi::S32> indices,
                    ffi::Buffer<ffi::S32> tasks, int32_t hmax, int32_t kmin, int32_t num_threads,
                    ffi::ResultBuffer<ffi::U32> hist) {
  if (indptr.dimensions().size() != 1 || indptr.element_count() < 1) {
    return ffi::Error::InvalidArgument("indptr must be int32[n + 1] with n >= 0");
  }
  if (indices.dimensions().size() != 1) {
    return ffi::Error::InvalidArgument("indices must be a 1-D int32 array");
  }
  if (tasks.dimensions().size() != 1) {
    return ffi::Error::InvalidArgument("tasks must be a 1-D int32 array of root vertex ids");
  }
  if (hmax < 1) {
    return ffi::Error::InvalidArgument("hmax must be >= 1, got " + std::to_string(hmax));
  }
  if (num_threads < 0) {
    return ffi::Error::InvalidArgument("num_threads must be >= 0 (0: all cores), got " +
                                       std::to_string(num_threads));
  }
  const auto hdims = hist->dimensions();
  if (hdims.size() != 3 || hdims[0] != static_cast<int64_t>(hmax) + 1 || hdims[1] < 1 ||
      hdims[2] != 4) {
    return ffi::Error::InvalidArgument(
        "hist must be uint32[hmax + 1, pmax + 1, 4] with hmax=" + std::to_string(hmax));
  }
  const int64_t n = static_cast<int64_t>(indptr.element_count()) - 1;
  const int64_t m = static_cast<int64_t>(indices.element_count());
  const int64_t pmax = hdims[1] - 1;
  const int32_t* ip = indptr.typed_data();
  const int32_t* ix = indices.typed_data();
  if (ffi::Error err = ValidateDag(ip, n, ix, m); err.failure()) return err;

  const int32_t* task = tasks.typed_data();
  const int64_t num_tasks = static_cast<int64_t>(tasks.element_count());
  int64_t dmax = 0;
  for (int64_t t = 0; t < num_tasks; ++t) {
    const int32_t v = task[t];
    if (v == -1) continue;
    if (v < 0 || v >= n) {
      return ffi::Error::InvalidArgument("tasks[" + std::to_string(t) + "]=" + std::to_string(v) +
                                         " is not a vertex id in [0, " + std::to_string(n) +
                                         ") nor -1 (padding)");
    }
    dmax = std::max<int64_t>(dmax, ip[v + 1] - ip[v]);
  }
  if (dmax > pmax) {
    return ffi::Error::InvalidArgument("candidate set of size " + std::to_string(dmax) +
                                       " exceeds pmax=" + std::to_string(pmax) +
                                       "; orient the graph first / pass a larger pmax");
  }

  // Cells written have h <= min(hmax, dmax + 1) and p <= dmax: workers keep
  // only that corner of the histogram.
  const int hist_h = static_cast<int>(std::min<int64_t>(hmax, dmax + 1)) + 1;
  const int hist_p = static_cast<int>(dmax) + 1;
  const int64_t chunk = CliquePolicy::kPivotCpuChunk;
  int64_t threads = num_threads > 0 ? num_threads : std::thread::hardware_concurrency();
  threads = std::max<int64_t>(1, std::min<int64_t>(threads, (num_tasks + chunk - 1) / chunk));

  std::vector<PivotWorker> workers;
  workers.reserve(threads);
  for (int64_t i = 0; i < threads; ++i) {
    workers.emplace_back(ip, ix, n, hmax, kmin, hist_h, hist_p);
  }
  // Tasks are taken in the given order, in chunks (callers put heavy roots
  // first so the tail is short).
  std::atomic<int64_t> next{0};
  auto work = [&](PivotWorker* wk) {
    while (true) {
      const int64_t begin = next.fetch_add(chunk);
      if (begin >= num_tasks) break;
      const int64_t end = std::min<int64_t>(num_tasks, begin + chunk);
      for (int64_t t = begin; t < end; ++t) {
        if (task[t] >= 0) wk->RunTask(task[t]);
      }
    }
  };
  std::vector<std::thread> pool;
  pool.reserve(threads - 1);
  for (int64_t i = 1; i < threads; ++i) pool.emplace_back(work, &workers[i]);
  work(&workers[0]);
  for (std::thread& t : pool) t.join();

  uint32_t* out = hist->typed_data();
  std::memset(out, 0, hist->size_bytes());
  for (int h = 0; h < hist_h; ++h) {
    for (int p = 0; p < hist_p; ++p) {
      U128 sum;
      for (const PivotWorker& wk : workers) {
        sum.Add(wk.hist()[static_cast<size_t>(h) * hist_p + p]);
      }
      sum.Store(out + (static_cast<size_t>(h) * hdims[1] + p) * 4);
    }
  }
  return ffi::Error::Success();
}

}  // namespace
}  // namespace kcjax

XLA_FFI_DEFINE_HANDLER_SYMBOL(kcjax_clique_pivot_cpu, kcjax::PivotCpu,
                              ffi::Ffi::Bind()
                                  .Arg<ffi::Buffer<ffi::S32>>()  // indptr
                                  .Arg<ffi::Buffer<ffi::S32>>()  // indices
                                  .Arg<ffi::Buffer<ffi::S32>>()  // tasks
                                  .Attr<int32_t>("hmax")
                                  .Attr<int32_t>("kmin")
                                  .Attr<int32_t>("num_threads")
                                  .Ret<ffi::Buffer<ffi::U32>>()  // hist
);
