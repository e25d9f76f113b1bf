// Search-tree census of a matching plan (experiments/match/tree_diag.py loads
// it with ctypes): the tree nodes per level, the source-list entries scanned
// per level (the engine's per-lane work), the sum of the shortest backward
// list per level (what an intersection from the shortest list reads), and the
// nodes under each root. Same semantics as ffi/cpu/match/match.cc
// (non-induced, multiplicities counted as weights); stops after node_cap nodes.
#include <algorithm>
#include <cstdint>

namespace {

struct Census {
  int32_t n, q;
  const int32_t* ip;
  const int32_t* ix;
  const int32_t* mult;
  const uint32_t* cand;
  int64_t words;
  const uint32_t* back;
  int64_t* nodes;
  int64_t* scanned;
  int64_t* shortest;
  int64_t cap, total = 0;
  unsigned __int128 count = 0;
  int32_t img[32];

  bool In(int l, int32_t v) const { return (cand[l * words + (v >> 5)] >> (v & 31)) & 1u; }
  bool Adj(int32_t a, int32_t b) const {
    if (ip[b + 1] - ip[b] < ip[a + 1] - ip[a]) std::swap(a, b);
    return std::binary_search(ix + ip[a], ix + ip[a + 1], b);
  }
  // Weighted embeddings below the images of levels < l.
  unsigned __int128 Go(int l) {
    int pivot = -1, best = -1;
    for (uint32_t b = back[l]; b; b &= b - 1) {
      const int j = __builtin_ctz(b);
      const int d = ip[img[j] + 1] - ip[img[j]];
      if (best < 0 || d < best) best = d, pivot = j;
    }
    scanned[l] += best;
    unsigned __int128 sum = 0;
    for (int k = 0; k < best && total < cap; ++k) {
      const int32_t v = ix[ip[img[pivot]] + k];
      if (!In(l, v)) continue;
      ++shortest[l];
      int used = 0;
      for (int j = 0; j < l; ++j) used += img[j] == v;
      if (used >= mult[v]) continue;
      bool ok = true;
      for (uint32_t b = back[l] & ~(1u << pivot); ok && b; b &= b - 1)
        ok = Adj(img[__builtin_ctz(b)], v);
      if (!ok) continue;
      ++nodes[l];
      ++total;
      const unsigned w = mult[v] - used;
      if (l == q - 1) {
        sum += w;
      } else {
        img[l] = v;
        sum += w * Go(l + 1);
      }
    }
    return sum;
  }
};

}  // namespace

extern "C" int64_t tree_census(int32_t n, int32_t q, const int32_t* ip, const int32_t* ix,
                               const int32_t* mult, const uint32_t* cand, int64_t words,
                               const uint32_t* back, const int32_t* roots, int64_t r,
                               int64_t node_cap, int64_t* nodes, int64_t* scanned,
                               int64_t* shortest, int64_t* root_nodes, uint64_t* count) {
  Census c{n, q, ip, ix, mult, cand, words, back, nodes, scanned, shortest, node_cap};
  for (int64_t i = 0; i < r && c.total < node_cap; ++i) {
    const int32_t v = roots[i];
    if (v < 0 || !c.In(0, v) || mult[v] <= 0) continue;
    const int64_t before = c.total;
    ++nodes[0];
    ++c.total;
    c.img[0] = v;
    c.count += q == 1 ? static_cast<unsigned __int128>(mult[v]) : mult[v] * c.Go(1);
    root_nodes[i] = c.total - before;
  }
  count[0] = static_cast<uint64_t>(c.count);
  count[1] = static_cast<uint64_t>(c.count >> 64);
  return c.total;
}
