// A single-threaded emulation of the CUDA count kernel's unit loop
// (ffi/cuda/match/match_kernels.cu, MatchKernel<false>): the 32 lanes of a
// warp are a loop, and MaybeDonate splits work at every check (every `every`
// chunk steps) into a queue that is drained afterwards in LIFO order, so
// each donated unit is itself split again. The count must equal the plain
// search's: tests/match/test_donation_sim.py checks it against networkx.
// Same plan layout and semantics as kcjax/match/match.h (weights by mult,
// the leaf_sum shortcut, induced masks, order masks); it mirrors the kernel
// line by line.
#include <algorithm>
#include <cstdint>
#include <vector>

namespace {

using u128 = unsigned __int128;
constexpr int kMaxQuery = 32;
constexpr int kLeafGap = 2;
// The plan row's columns (kcjax/match/match.h, PlanCol).
enum PlanCol : int { kBack = 0, kNonAdj, kListRow, kListLen, kAbove, kUnder, kPlanCols };

struct View {
  int32_t n, q;
  const int32_t *ip, *ix, *mult, *plan, *leaf_sum;
  const uint32_t* cand;
  int64_t words;
};

struct Stack {
  const int32_t* src[kMaxQuery];
  u128 weight[kMaxQuery];
  int32_t img[kMaxQuery], row[kMaxQuery], deg[kMaxQuery], pos[kMaxQuery], end[kMaxQuery],
      base[kMaxQuery], pivot[kMaxQuery];
  uint32_t mask[kMaxQuery];
};

struct Unit {
  int level, ri, base, pos, end;
  uint32_t mask;
  int32_t img[kMaxQuery];
};

bool InCand(const View& m, int l, int32_t v) {
  return (m.cand[l * m.words + (v >> 5)] >> (v & 31)) & 1u;
}

bool Adjacent(const View& m, int32_t a, int32_t ra, int32_t da, int32_t b, int32_t rb, int32_t db) {
  if (db < da) ra = rb, da = db, b = a;
  return std::binary_search(m.ix + ra, m.ix + ra + da, b);
}

void SetImage(const View& m, Stack& s, int l, int32_t v, uint32_t w) {
  s.img[l] = v;
  s.row[l] = m.ip[v];
  s.deg[l] = m.ip[v + 1] - m.ip[v];
  s.weight[l] = (l == 0 ? u128{1} : s.weight[l - 1]) * w;
}

void InitLevel(const View& m, Stack& s, int l, int32_t first, int32_t last) {
  const uint32_t back = static_cast<uint32_t>(m.plan[kPlanCols * l + kBack]);
  int32_t pivot = -1, best = -1;
  for (uint32_t b = back; b; b &= b - 1) {
    const int j = __builtin_ctz(b);
    if (best < 0 || s.deg[j] < best) best = s.deg[j], pivot = j;
  }
  s.src[l] = m.ix + s.row[pivot];
  s.pivot[l] = pivot;
  s.pos[l] = first;
  s.end[l] = last < 0 || last > best ? best : last;
  s.mask[l] = 0;
}

uint32_t Check(const View& m, const Stack& s, int l, int32_t v) {
  if (v < 0 || v >= m.n || !InCand(m, l, v)) return 0;
  const int32_t* row = m.plan + kPlanCols * l;
  for (uint32_t b = static_cast<uint32_t>(row[kAbove]); b; b &= b - 1)
    if (v <= s.img[__builtin_ctz(b)]) return 0;
  for (uint32_t b = static_cast<uint32_t>(row[kUnder]); b; b &= b - 1)
    if (v >= s.img[__builtin_ctz(b)]) return 0;
  int used = 0;
  for (int j = 0; j < l; ++j) used += s.img[j] == v;
  if (used >= m.mult[v]) return 0;
  const uint32_t back = static_cast<uint32_t>(row[kBack]);
  const uint32_t nonadj = static_cast<uint32_t>(row[kNonAdj]);
  const uint32_t others = back & ~(1u << s.pivot[l]);
  const int32_t rv = m.ip[v], dv = m.ip[v + 1] - rv;
  for (uint32_t b = others; b; b &= b - 1) {
    const int j = __builtin_ctz(b);
    if (!Adjacent(m, s.img[j], s.row[j], s.deg[j], v, rv, dv)) return 0;
  }
  for (uint32_t b = nonadj; b; b &= b - 1) {
    const int j = __builtin_ctz(b);
    if (Adjacent(m, s.img[j], s.row[j], s.deg[j], v, rv, dv)) return 0;
  }
  return static_cast<uint32_t>(m.mult[v] - used);
}

// MaybeDonate with a demand that is always there.
void Donate(const View& m, Stack& s, int l0, int level, int ri, std::vector<Unit>& queue) {
  const int top = std::min(level, m.q - 1 - kLeafGap);
  for (int l = l0; l <= top; ++l) {
    const uint32_t mk = s.mask[l];
    const int32_t p = s.pos[l], e = s.end[l];
    if (mk == 0 && p >= e) continue;
    const int bits = __builtin_popcount(mk);
    const int32_t r = e > p ? e - p : 0;
    // Below level l the donor works in a subtree, so it may give all of l; at
    // l == level it keeps an entry (else one unit could pass warp to warp).
    const bool busy = l < level;
    int give_bits = !busy ? 0 : (r == 0 && bits == 1 ? 1 : bits / 2);
    const int32_t mid = std::min(e, p + (busy || r >= 2 ? r / 2 : r));
    if (give_bits == 0 && mid >= e) continue;
    uint32_t give = 0;
    for (uint32_t b = mk; give_bits > 0; --give_bits) {  // the highest bits
      const uint32_t top_bit = 1u << (31 - __builtin_clz(b));
      give |= top_bit;
      b &= ~top_bit;
    }
    s.mask[l] = mk & ~give;
    s.end[l] = mid;
    Unit u{l, ri, s.base[l], mid, e, give, {}};
    for (int j = 0; j < l; ++j) u.img[j] = s.img[j];
    queue.push_back(u);
    return;
  }
}

// The DFS loop of one unit starting at l0 (levels < l0 and level l0 set up).
u128 Run(const View& m, Stack& s, int l0, int ri, int every, int& clock, std::vector<Unit>& queue,
         int64_t* donations) {
  const int q = m.q;
  u128 acc = 0;
  int level = l0;
  while (level >= l0) {
    if (s.mask[level] == 0) {
      if (every > 0 && ++clock >= every) {
        clock = 0;
        const size_t before = queue.size();
        Donate(m, s, l0, level, ri, queue);
        *donations += queue.size() - before;
      }
      const int32_t p = s.pos[level];
      if (p >= s.end[level]) {
        --level;
        continue;
      }
      uint32_t bal = 0, w[32];
      for (int lane = 0; lane < 32; ++lane) {
        const int32_t idx = p + lane;
        const int32_t v = idx < s.end[level] ? s.src[level][idx] : -1;
        w[lane] = Check(m, s, level, v);
        if (w[lane]) bal |= 1u << lane;
      }
      s.pos[level] = p + 32;
      if (level == q - 1) {
        uint64_t sum = 0;
        for (int lane = 0; lane < 32; ++lane) sum += w[lane];
        acc += s.weight[level - 1] * static_cast<u128>(sum);
        continue;
      }
      s.mask[level] = bal;
      s.base[level] = p;
    } else {
      const uint32_t mk = s.mask[level];
      const int bit = __builtin_ctz(mk);
      const int32_t v = s.src[level][s.base[level] + bit];
      int used = 0;
      for (int j = 0; j < level; ++j) used += s.img[j] == v;
      s.mask[level] = mk & (mk - 1);
      SetImage(m, s, level, v, static_cast<uint32_t>(m.mult[v] - used));
      ++level;
      InitLevel(m, s, level, 0, -1);
      const int32_t* row = m.plan + kPlanCols * level;
      const uint32_t back = static_cast<uint32_t>(row[kBack]);
      if (level == q - 1 && level >= 2 && (row[kNonAdj] | row[kAbove] | row[kUnder]) == 0 &&
          __builtin_popcount(back) == 1) {
        const int pj = s.pivot[level];
        int used2 = 0;
        for (int lane = 0; lane < level; ++lane)
          used2 += InCand(m, level, s.img[lane]) && Adjacent(m, s.img[pj], s.row[pj], s.deg[pj],
                                                             s.img[lane], s.row[lane], s.deg[lane]);
        acc += s.weight[level - 1] * static_cast<u128>(m.leaf_sum[s.img[pj]] - used2);
        --level;
      }
    }
  }
  return acc;
}

}  // namespace

// Count of a connected query (q >= 2, every level > 0 has a backward
// neighbour) over roots with task_width 1, donating every `every` chunk steps
// (0: never). count[0..1]: the 128-bit count; returns the donations made.
extern "C" int64_t donation_sim(int32_t n, int32_t q, const int32_t* ip, const int32_t* ix,
                                const int32_t* mult, const uint32_t* cand, int64_t words,
                                const int32_t* plan, const int32_t* leaf_sum, const int32_t* roots,
                                int64_t r, int32_t every, uint64_t* count) {
  const View m{n, q, ip, ix, mult, plan, leaf_sum, cand, words};
  Stack s{};
  std::vector<Unit> queue;
  u128 total = 0;
  int64_t donations = 0;
  int clock = 0;
  for (int64_t i = 0; i < r; ++i) {
    const int32_t root = roots[i];
    if (root < 0 || !InCand(m, 0, root) || mult[root] <= 0) continue;
    SetImage(m, s, 0, root, static_cast<uint32_t>(mult[root]));
    const int32_t len = std::min(s.deg[0], ip[root + 1] - ip[root]);
    for (int32_t chunk = 0; chunk < len; ++chunk) {  // static units of width 1
      SetImage(m, s, 0, root, static_cast<uint32_t>(mult[root]));
      InitLevel(m, s, 1, chunk, chunk + 1);
      total += Run(m, s, 1, static_cast<int>(i), every, clock, queue, &donations);
      while (!queue.empty()) {
        const Unit u = queue.back();
        queue.pop_back();
        for (int j = 0; j < u.level; ++j) {
          int used = 0;
          for (int k = 0; k < j; ++k) used += s.img[k] == u.img[j];
          SetImage(m, s, j, u.img[j], static_cast<uint32_t>(mult[u.img[j]] - used));
        }
        InitLevel(m, s, u.level, u.pos, u.end);
        s.mask[u.level] = u.mask;
        s.base[u.level] = u.base;
        total += Run(m, s, u.level, u.ri, every, clock, queue, &donations);
      }
    }
  }
  count[0] = static_cast<uint64_t>(total);
  count[1] = static_cast<uint64_t>(total >> 64);
  return donations;
}
