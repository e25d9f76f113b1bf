// CUDA twin of the maximal-clique search (rules in ffi/cpu/cliques/maximal.cc; the
// handler in maximal_cuda.cc). One thread per root, the CPU handler's search
// unrolled into a loop over per-level sets in the thread's global scratch, so
// both handlers visit the same nodes in the same order and write the same cliques.
// The root's neighbours are split by rank into P and X (rows ascending, so members
// are found by binary search instead of the CPU handler's vertex map).
#include <algorithm>
#include <cstdint>

#include "kcjax/cliques/maximal_cuda.h"

namespace kcjax::cliques {
namespace {

// Position of x in the ascending a[0..n), or -1.
__device__ int Find(const int32_t* a, int n, int32_t x) {
  int lo = 0, hi = n;
  while (lo < hi) {
    const int mid = (lo + hi) >> 1;
    if (a[mid] < x) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  return lo < n && a[lo] == x ? lo : -1;
}

__device__ bool Empty(const unsigned long long* s, int words) {
  for (int k = 0; k < words; ++k) {
    if (s[k] != 0) return false;
  }
  return true;
}

struct Root {
  const MaximalParams& prm;
  int32_t v;
  int64_t t;
  int64_t cliques = 0, entries = 0;
  int64_t coff = 0, eoff = 0;
  const int32_t* ids = nullptr;
  int32_t* held = nullptr;

  __device__ Root(const MaximalParams& p, int32_t root, int64_t task) : prm(p), v(root), t(task) {}

  __device__ void Emit(int level) {
    const int32_t size = level + 1;
    if (!prm.write) {
      ++cliques;
      entries += size;
      atomicMax(prm.best + v, size);
      for (int l = 0; l < level; ++l) atomicMax(prm.best + ids[held[l]], size);
      return;
    }
    prm.sizes[coff++] = size;
    prm.verts[eoff++] = v;
    for (int l = 0; l < level; ++l) prm.verts[eoff++] = ids[held[l]];
  }
};

__device__ void SearchRoot(Root& r, unsigned long long* W, int32_t* I, int64_t dcap) {
  const MaximalParams& prm = r.prm;
  const int32_t v = r.v;
  const int32_t rv = prm.rank[v];
  const int32_t* row = prm.indices + prm.indptr[v];
  const int d = prm.indptr[v + 1] - prm.indptr[v];
  int32_t* ids = I;             // P members' vertex ids (ascending)
  int32_t* xids = I + dcap;     // X candidates, then X members (ascending)
  int32_t* aux = I + 2 * dcap;  // X candidates' flags, then the held members
  int p = 0, xc = 0;
  for (int e = 0; e < d; ++e) {
    const int32_t u = row[e];
    if (u == v) continue;
    if (prm.rank[u] > rv) {
      ids[p++] = u;
    } else {
      xids[xc++] = u;
    }
  }
  r.ids = ids;
  r.held = aux;
  if (p == 0) {
    if (xc == 0) r.Emit(0);
    return;
  }
  for (int j = 0; j < xc; ++j) aux[j] = 0;
  for (int i = 0; i < p; ++i) {
    const int32_t w = ids[i];
    for (int32_t e = prm.indptr[w]; e < prm.indptr[w + 1]; ++e) {
      const int j = Find(xids, xc, prm.indices[e]);
      if (j >= 0) aux[j] = 1;
    }
  }
  int x = 0;
  for (int j = 0; j < xc; ++j) {
    if (aux[j]) xids[x++] = xids[j];
  }
  const int wp = (p + 63) / 64, wx = (x + 63) / 64, w = wp + wx;
  unsigned long long* prow = W;
  unsigned long long* xrow = prow + static_cast<int64_t>(p) * w;
  unsigned long long* pset = xrow + static_cast<int64_t>(x) * wp;
  unsigned long long* xset = pset + static_cast<int64_t>(p + 1) * wp;
  unsigned long long* bset = xset + static_cast<int64_t>(p + 1) * w;
  for (int64_t k = 0; k < static_cast<int64_t>(p) * w + static_cast<int64_t>(x) * wp; ++k) {
    prow[k] = 0;
  }
  for (int i = 0; i < p; ++i) {
    const int32_t wv = ids[i];
    unsigned long long* pr = prow + static_cast<int64_t>(i) * w;
    for (int32_t e = prm.indptr[wv]; e < prm.indptr[wv + 1]; ++e) {
      const int32_t u = prm.indices[e];
      if (u == wv) continue;
      int j = Find(ids, p, u);
      if (j >= 0) {
        pr[j >> 6] |= 1ull << (j & 63);
        continue;
      }
      j = Find(xids, x, u);
      if (j >= 0) {
        pr[wp + (j >> 6)] |= 1ull << (j & 63);
        xrow[static_cast<int64_t>(j) * wp + (i >> 6)] |= 1ull << (i & 63);
      }
    }
  }
  // P's rows are w words; X's rows wp words (P columns only).
  auto pcols = [&](int b) -> const unsigned long long* {
    return b < 64 * wp ? prow + static_cast<int64_t>(b) * w
                       : xrow + static_cast<int64_t>(b - 64 * wp) * wp;
  };
  for (int k = 0; k < wp; ++k) {
    const int rem = p - 64 * k;
    pset[k] = rem >= 64 ? ~0ull : (1ull << rem) - 1;
  }
  for (int k = 0; k < w; ++k) xset[k] = 0;
  for (int j = 0; j < x; ++j) xset[wp + (j >> 6)] |= 1ull << (j & 63);

  int level = 0;
  bool enter = true;
  while (true) {
    unsigned long long* P = pset + static_cast<int64_t>(level) * wp;
    unsigned long long* X = xset + static_cast<int64_t>(level) * w;
    unsigned long long* B = bset + static_cast<int64_t>(level) * wp;
    if (enter) {
      enter = false;
      if (Empty(P, wp)) {
        if (Empty(X, w)) r.Emit(level);
        B = nullptr;  // nothing to branch on: return to the parent
      } else {
        // Pivot: the first member of P, then of X, with the most neighbours in P.
        int best = -1, pivot = -1;
        for (int pass = 0; pass < 2; ++pass) {
          const unsigned long long* S = pass == 0 ? P : X;
          const int words = pass == 0 ? wp : w;
          for (int k = 0; k < words; ++k) {
            for (unsigned long long bits = S[k]; bits != 0; bits &= bits - 1) {
              const int b = 64 * k + __ffsll(static_cast<long long>(bits)) - 1;
              const unsigned long long* rowb = pcols(b);
              int c = 0;
              for (int q = 0; q < wp; ++q) c += __popcll(P[q] & rowb[q]);
              if (c > best) {
                best = c;
                pivot = b;
              }
            }
          }
        }
        const unsigned long long* pr = pcols(pivot);
        for (int k = 0; k < wp; ++k) B[k] = P[k] & ~pr[k];
      }
    }
    // The next member of B (ascending), or back to the parent.
    int i = -1;
    if (B != nullptr) {
      for (int k = 0; k < wp && i < 0; ++k) {
        if (B[k] != 0) {
          i = 64 * k + __ffsll(static_cast<long long>(B[k])) - 1;
          B[k] &= B[k] - 1;
        }
      }
    }
    if (i >= 0) {
      const unsigned long long* ri = prow + static_cast<int64_t>(i) * w;
      unsigned long long* NP = P + wp;
      unsigned long long* NX = X + w;
      for (int q = 0; q < wp; ++q) NP[q] = P[q] & ri[q];
      for (int q = 0; q < w; ++q) NX[q] = X[q] & ri[q];
      r.held[level] = i;
      ++level;
      enter = true;
      continue;
    }
    if (level == 0) break;
    --level;
    const int j = r.held[level];
    pset[static_cast<int64_t>(level) * wp + (j >> 6)] &= ~(1ull << (j & 63));
    xset[static_cast<int64_t>(level) * w + (j >> 6)] |= 1ull << (j & 63);
  }
}

__global__ void MaximalKernel(MaximalParams prm, int64_t threads, int64_t dcap) {
  const int64_t tid = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (tid >= threads) return;
  unsigned long long* W = prm.words + tid * prm.thread_words;
  int32_t* I = prm.ints + tid * prm.thread_ints;
  while (true) {
    const int32_t t = atomicAdd(prm.next_task, 1);
    if (t >= prm.num_tasks) return;
    const int32_t v = prm.tasks[t];
    Root r(prm, v, t);
    if (prm.write) {
      r.coff = prm.clique_offsets[t];
      r.eoff = prm.entry_offsets[t];
    }
    if (v >= 0) SearchRoot(r, W, I, dcap);
    if (!prm.write) {
      prm.task_cliques[t] = r.cliques;
      prm.task_entries[t] = r.entries;
    }
  }
}

}  // namespace

int64_t MaximalRootWords(int64_t p, int64_t x) {
  const int64_t wp = (p + 63) / 64, w = wp + (x + 63) / 64;
  return std::max<int64_t>(1, p * w + x * wp + (p + 1) * (2 * wp + w));
}

int64_t MaximalThreadInts(int64_t dmax) { return 3 * dmax + 1; }

cudaError_t LaunchMaximal(cudaStream_t stream, const MaximalParams& params, int64_t threads,
                          int64_t dmax) {
  constexpr int kThreads = 128;
  const int blocks = static_cast<int>((threads + kThreads - 1) / kThreads);
  MaximalKernel<<<blocks, kThreads, 0, stream>>>(params, threads, dmax);
  return cudaGetLastError();
}

}  // namespace kcjax::cliques
