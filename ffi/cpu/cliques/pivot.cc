// CPU handler of "kcjax_clique_pivot" (contract in kcjax/cliques/cliques.h): the
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
//
// Per-vertex mode (target "kcjax_clique_pivot_local", hmax = kmin = k): the
// same tree, resolved within kPivotPerVertexResolveDepth held vertices of k, and
// every terminal node adds to each vertex its number of k-cliques there. A
// terminal node holds H (the root and the non-neighbour children on its
// path, h = |H|), the pivots S on its path (p = |S|) and candidates P; r = k - h.
//   leaf (P empty, one vertex, or a clique; P joins the pivots, p' = p + |P|):
//     each held vertex += C(p', r), each pivot += C(p' - 1, r - 1);
//   resolved (r <= 2; c_0 = 1, c_1 = |P|, c_2 = edges inside P):
//     each held vertex += sum_j c_j C(p, r - j),
//     each pivot       += sum_j c_j C(p - 1, r - 1 - j),
//     each x in P      += C(p, r - 1) + deg_P(x) C(p, r - 2).
// The held and pivot shares are the same for every held (pivot) vertex of a
// node, so they are summed per frame instead of added along the path: frame
// L keeps the held and pivot sums of its current child's subtree, and when
// that child is done they go to the vertex the child added (held or pivot
// sum) and into frame L - 1's sums. The root gets the held sum of its tree.
// Each terminal node costs O(1 + |P|) additions, not O(depth).
#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstring>
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

static_assert(CliquePolicy::kPivotResolveDepth >= 0 && CliquePolicy::kPivotResolveDepth <= 3,
              "Resolve counts cliques of at most 3 candidates; expanded nodes need h < hmax");
static_assert(CliquePolicy::kPivotPerVertexResolveDepth >= 0 &&
                  CliquePolicy::kPivotPerVertexResolveDepth <= 2,
              "PerVertexResolve shares out cliques of at most 2 candidates");

inline int Popcount(uint64_t x) { return __builtin_popcountll(x); }

// Per-vertex target shared by all workers: 128-bit totals as (lo, hi) word
// pairs, updated with relaxed atomics (a carry out of lo is added to hi, so
// concurrent adds sum exactly while the total stays below 2^128).
struct PerVertexSink {
  int k;
  const u128* binom;  // C(a, b), [dmax + 1][k + 1] (BinomialTable)
  std::atomic<uint64_t>* acc;

  // C(a, b); 0 outside 0 <= b <= a. Callers keep a <= dmax and b <= k.
  u128 C(int a, int b) const {
    return (b < 0 || b > a) ? 0 : binom[static_cast<size_t>(a) * (k + 1) + b];
  }
  void Add(int32_t v, u128 x) const {
    if (x == 0) return;
    const uint64_t lo = static_cast<uint64_t>(x);
    uint64_t hi = static_cast<uint64_t>(x >> 64);
    const uint64_t old = acc[2 * static_cast<size_t>(v)].fetch_add(lo, std::memory_order_relaxed);
    if (old + lo < old) ++hi;
    if (hi != 0) acc[2 * static_cast<size_t>(v) + 1].fetch_add(hi, std::memory_order_relaxed);
  }
};

// One worker thread's state: the bitmap space and DFS frames of the current
// root (reused across roots), and its 128-bit histogram.
class PivotWorker {
 public:
  // hist_h / hist_p: histogram extents. Every cell written has h <= hmax and
  // h + p <= d + 1 (the held and pivot vertices other than the root are
  // distinct members of P): hist_h > min(hmax, dmax + 1), hist_p > dmax.
  // per_vertex: the per-vertex target (hmax = kmin = per_vertex->k, no histogram), or
  // nullptr for the histogram.
  PivotWorker(const int32_t* indptr, const int32_t* indices, int64_t num_nodes, int hmax, int kmin,
              int hist_h, int hist_p, const PerVertexSink* per_vertex = nullptr)
      : indptr_(indptr),
        indices_(indices),
        hmax_(hmax),
        kmin_(kmin),
        hist_p_(hist_p),
        resolve_depth_(per_vertex != nullptr ? CliquePolicy::kPivotPerVertexResolveDepth
                                             : CliquePolicy::kPivotResolveDepth),
        sink_(per_vertex),
        num_nodes_(num_nodes),
        hist_(per_vertex != nullptr ? 0 : static_cast<size_t>(hist_h) * hist_p) {}

  // Adds the leaves of root task v's subtree to the histogram (or its
  // per-vertex shares to the sink).
  void RunTask(int32_t v) {
    const int32_t* cand = indices_ + indptr_[v];
    const int d = indptr_[v + 1] - indptr_[v];
    if (1 + d < kmin_) return;  // h + p + |P| < kmin already at the root
    ids_ = cand;
    root_held_ = 0;
    if (d == 0) {
      if (sink_ != nullptr) {
        sink_->Add(v, sink_->C(0, hmax_ - 1));
      } else {
        Leaf(1, 0);
      }
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
    if (sink_ != nullptr) sink_->Add(v, root_held_);
  }

  const std::vector<U128>& hist() const { return hist_; }

 private:
  void Leaf(int h, int p, uint64_t times = 1) {
    hist_[static_cast<size_t>(h) * hist_p_ + p].Add(times);
  }

  // Calls f(i) for each member i of P (w words), ascending.
  template <typename F>
  static void ForEachMember(const uint64_t* P, int w, F&& f) {
    for (int q = 0; q < w; ++q) {
      for (uint64_t bits = P[q]; bits != 0; bits &= bits - 1) f(64 * q + __builtin_ctzll(bits));
    }
  }

  // |P & row(i)|.
  int DegreeIn(const uint64_t* P, int w, int i) const {
    const uint64_t* row = adj_.data() + static_cast<size_t>(i) * w;
    int c = 0;
    for (int q = 0; q < w; ++q) c += Popcount(P[q] & row[q]);
    return c;
  }

  // Per-vertex: a terminal node below frame top with these held and pivot
  // shares (top < 0: the root itself, which has no pivots).
  void AddShares(int top, u128 held, u128 pivot) {
    if (top < 0) {
      root_held_ += held;
      return;
    }
    sum_held_[top] += held;
    sum_pivot_[top] += pivot;
  }

  // Per-vertex: frame top's current child is done; its sums go to the vertex
  // it added and up to frame top - 1 (or the root).
  void CloseChild(int top) {
    const u128 held = sum_held_[top], pivot = sum_pivot_[top];
    if (held == 0) return;  // no k-clique below (pivot <= held)
    const int a = added_[top];
    sink_->Add(ids_[a & ~kPivotTag], (a & kPivotTag) ? pivot : held);
    if (top > 0) {
      sum_held_[top - 1] += held;
      sum_pivot_[top - 1] += pivot;
    } else {
      root_held_ += held;
    }
    sum_held_[top] = sum_pivot_[top] = 0;
  }

  // A leaf below frame top: (h, p + n), the n members of P being its last
  // pivots (n <= 1, or P is a clique).
  void Finish(const uint64_t* P, int w, int top, int h, int p, int n) {
    if (sink_ == nullptr) {
      Leaf(h, p + n);
      return;
    }
    const int r = hmax_ - h, pp = p + n;
    const u128 held = sink_->C(pp, r);
    if (held == 0) return;
    const u128 pivot = sink_->C(pp - 1, r - 1);
    AddShares(top, held, pivot);
    ForEachMember(P, w, [&](int i) { sink_->Add(ids_[i], pivot); });
  }

  // Per-vertex Resolve of a node below frame top with r = k - h <= 2 (the
  // rules in the header comment).
  void PerVertexResolve(const uint64_t* P, int w, int top, int h, int p, int n) {
    const int r = hmax_ - h;
    const PerVertexSink& s = *sink_;
    u128 edges = 0;
    if (r >= 2) {
      ForEachMember(P, w, [&](int i) { edges += DegreeIn(P, w, i); });
      edges /= 2;
    }
    const u128 held = s.C(p, r) + n * s.C(p, r - 1) + edges * s.C(p, r - 2);
    const u128 pivot = s.C(p - 1, r - 1) + n * s.C(p - 1, r - 2) + edges * s.C(p - 1, r - 3);
    if (held == 0) return;
    AddShares(top, held, pivot);
    const u128 one = s.C(p, r - 1), per_edge = s.C(p, r - 2);
    ForEachMember(P, w, [&](int i) {
      s.Add(ids_[i], one + (per_edge == 0 ? 0 : per_edge * DegreeIn(P, w, i)));
    });
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
      added_.resize(levels);
      sum_held_.resize(levels);
      sum_pivot_.resize(levels);
    }
    if (cand_.size() < levels * w) {
      cand_.resize(levels * w);
      branch_.resize(levels * w);
    }
    // Sized on the first root with candidates: a worker that meets only
    // roots without out-neighbours (isolated vertices of a graph whose ids
    // are sparse) allocates nothing per vertex.
    if (local_.empty()) local_.assign(static_cast<size_t>(num_nodes_), -1);
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
          Finish(P, w, top, ch, cp, cn);
          continue;
        }
        if (hmax_ - ch <= resolve_depth_) {
          if (sink_ != nullptr) {
            PerVertexResolve(P, w, top, ch, cp, cn);
          } else {
            Resolve<kW>(P, cand + static_cast<size_t>(level + 1) * w, w, ch, cp, cn);
          }
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
          Finish(P, w, top, ch, cp, cn);
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
        if (sink_ != nullptr) {
          added_[level] = pivot | kPivotTag;
          sum_held_[level] = sum_pivot_[level] = 0;
        }
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
      if (sink_ != nullptr) CloseChild(level);
      if (k == w || h + p + frame_n[level] < kmin_) {
        --top;
        continue;
      }
      const int x = 64 * k + __builtin_ctzll(B[k]);
      uint64_t* P = cand + static_cast<size_t>(level) * w;
      B[k] &= B[k] - 1;
      P[k] &= ~(uint64_t{1} << (x & 63));
      frame_n[level] -= 1;
      if (sink_ != nullptr) added_[level] = x;
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
  const int resolve_depth_;
  const PerVertexSink* sink_;     // per-vertex mode, else nullptr
  const int64_t num_nodes_;       // the size of local_ once a root has candidates
  const int32_t* ids_ = nullptr;  // the root's candidates' vertex ids, by local index
  u128 root_held_ = 0;            // per-vertex: the root's held sum
  std::vector<int32_t> local_;    // vertex -> index in the current root's P, else -1
  std::vector<U128> hist_;        // [hist_h][hist_p]
  std::vector<uint64_t> adj_;     // bitmap space, d rows of w words
  std::vector<uint64_t> cand_;    // frame cand masks, (d + 2) rows of w words
  std::vector<uint64_t> branch_;
  std::vector<int> frame_h_, frame_p_, frame_n_;
  // Per-vertex mode, per frame: the vertex its current child added (pivots
  // tagged), and the held and pivot sums of that child's subtree.
  std::vector<int> added_;
  std::vector<u128> sum_held_, sum_pivot_;
};

// Checks the CSR and the root tasks shared by both targets; sets *dmax to the
// largest candidate set of a valid task.
ffi::Error CheckPivotInputs(const Reporter& rep, ffi::Buffer<ffi::S32> indptr,
                            ffi::Buffer<ffi::S32> indices, ffi::Buffer<ffi::S32> tasks,
                            int32_t num_threads, int64_t* dmax) {
  if (ffi::Error err = CheckPivotShapes(rep, indptr, indices, tasks); err.failure()) {
    return err;
  }
  if (num_threads < 0) {
    return rep.Invalid("num_threads must be >= 0 (0: all cores), got " +
                       std::to_string(num_threads));
  }
  const int64_t n = static_cast<int64_t>(indptr.element_count()) - 1;
  const int32_t* ip = indptr.typed_data();
  if (ffi::Error err = ValidateDag(rep, ip, n, indices.typed_data(),
                                   static_cast<int64_t>(indices.element_count()));
      err.failure()) {
    return err;
  }
  const int32_t* task = tasks.typed_data();
  *dmax = 0;
  for (int64_t t = 0; t < static_cast<int64_t>(tasks.element_count()); ++t) {
    const int32_t v = task[t];
    if (v == -1) continue;
    if (v < 0 || v >= n) {
      return rep.Invalid("tasks[" + std::to_string(t) + "]=" + std::to_string(v) +
                         " is not a vertex id in [0, " + std::to_string(n) + ") nor -1 (padding)");
    }
    *dmax = std::max<int64_t>(*dmax, ip[v + 1] - ip[v]);
  }
  return ffi::Error::Success();
}

// Runs the root tasks (in the given order, in chunks: callers put heavy roots
// first so the tail is short) over up to num_threads workers made by
// make(); returns the workers.
template <typename Make>
std::vector<PivotWorker> RunRoots(ffi::Buffer<ffi::S32> tasks, int32_t num_threads, Make&& make) {
  const int32_t* task = tasks.typed_data();
  const int64_t num_tasks = static_cast<int64_t>(tasks.element_count());
  const int64_t chunk = CliquePolicy::kPivotCpuChunk;
  int64_t threads = num_threads > 0 ? num_threads : std::thread::hardware_concurrency();
  threads = std::max<int64_t>(1, std::min<int64_t>(threads, (num_tasks + chunk - 1) / chunk));
  std::vector<PivotWorker> workers;
  workers.reserve(threads);
  for (int64_t i = 0; i < threads; ++i) workers.push_back(make());
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
  return workers;
}

ffi::Error PivotCpu(ffi::Buffer<ffi::S32> indptr, ffi::Buffer<ffi::S32> indices,
                    ffi::Buffer<ffi::S32> tasks, int32_t hmax, int32_t kmin, int32_t num_threads,
                    ffi::ResultBuffer<ffi::U32> hist) {
  const Reporter rep("kcjax_clique_pivot", "CPU");
  const auto hdims = hist->dimensions();
  if (ffi::Error err = CheckPivotHist(rep, hmax, hdims); err.failure()) return err;
  int64_t dmax = 0;
  if (ffi::Error err = CheckPivotInputs(rep, indptr, indices, tasks, num_threads, &dmax);
      err.failure()) {
    return err;
  }
  const int64_t pmax = hdims[1] - 1;
  if (dmax > pmax) {
    return rep.Invalid("candidate set of size " + std::to_string(dmax) + " exceeds pmax=" +
                       std::to_string(pmax) + "; orient the graph first / pass a larger pmax");
  }
  // Cells written have h <= min(hmax, dmax + 1) and p <= dmax: workers keep
  // only that corner of the histogram.
  const int hist_h = static_cast<int>(std::min<int64_t>(hmax, dmax + 1)) + 1;
  const int hist_p = static_cast<int>(dmax) + 1;
  const int64_t n = static_cast<int64_t>(indptr.element_count()) - 1;
  const std::vector<PivotWorker> workers = RunRoots(tasks, num_threads, [&] {
    return PivotWorker(indptr.typed_data(), indices.typed_data(), n, hmax, kmin, hist_h, hist_p);
  });

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

ffi::Error PivotPerVertexCpu(ffi::Buffer<ffi::S32> indptr, ffi::Buffer<ffi::S32> indices,
                             ffi::Buffer<ffi::S32> tasks, int32_t k, int32_t num_threads,
                             ffi::ResultBuffer<ffi::U32> counts) {
  const Reporter rep("kcjax_clique_pivot_local", "CPU");
  const int64_t n = static_cast<int64_t>(indptr.element_count()) - 1;
  if (ffi::Error err = CheckPivotPerVertex(rep, k, n, counts->dimensions()); err.failure())
    return err;
  int64_t dmax = 0;
  if (ffi::Error err = CheckPivotInputs(rep, indptr, indices, tasks, num_threads, &dmax);
      err.failure()) {
    return err;
  }
  std::vector<std::atomic<uint64_t>> acc(2 * static_cast<size_t>(n));
  if (k <= dmax + 1) {  // else no root reaches k vertices: every count is 0
    const std::vector<u128> binom = BinomialTable(static_cast<int>(dmax), k);
    const PerVertexSink sink{k, binom.data(), acc.data()};
    RunRoots(tasks, num_threads, [&] {
      return PivotWorker(indptr.typed_data(), indices.typed_data(), n, k, k, 0, 0, &sink);
    });
  }
  uint32_t* out = counts->typed_data();
  for (int64_t v = 0; v < n; ++v) {
    const U128 x{acc[2 * v].load(std::memory_order_relaxed),
                 acc[2 * v + 1].load(std::memory_order_relaxed)};
    x.Store(out + 4 * v);
  }
  return ffi::Error::Success();
}

}  // namespace
}  // namespace kcjax::cliques

XLA_FFI_DEFINE_HANDLER_SYMBOL(kcjax_clique_pivot_cpu, kcjax::cliques::PivotCpu,
                              kcjax::cliques::BindPivot(kcjax::CpuBinding()));

XLA_FFI_DEFINE_HANDLER_SYMBOL(kcjax_clique_pivot_local_cpu, kcjax::cliques::PivotPerVertexCpu,
                              kcjax::cliques::BindPivotPerVertex(kcjax::CpuBinding()));
