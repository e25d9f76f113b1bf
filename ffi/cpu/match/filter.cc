// CPU handler of "kcjax_match_filter" (contract in kcjax/match/filter.h): the
// reference twin of the CUDA handler, one thread, a vertex at a time.
#include "kcjax/match/filter.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cstdint>
#include <utility>

#include "kcjax/core/ffi.h"

namespace ffi = xla::ffi;

namespace kcjax::match {
namespace {

struct Query {
  int32_t q;
  const int32_t* need;  // [u][k]
  const uint32_t* adj;
};

// C'[v] of one round (contract), from the round's input masks c.
uint32_t Survivors(const Query& qy, const int32_t* indptr, const int32_t* indices,
                   const int32_t* slot, const uint32_t* c, int64_t v, bool refine) {
  const uint32_t cv = c[v];
  if (cv == 0) return 0;
  std::array<int32_t, kMaxQuery> prof{};
  std::array<std::array<int32_t, kMaxQuery>, kMaxQuery> grp{};  // [k][u]
  uint32_t has = 0;
  for (int64_t i = indptr[v]; i < indptr[v + 1]; ++i) {
    const int32_t w = indices[i];
    const uint32_t cw = c[w];
    const int32_t k = slot[w];
    has |= cw;
    if (k < 0) continue;
    if (cw != 0) ++prof[k];
    if (!refine) continue;
    uint32_t un = 0;
    for (uint32_t b = cw; b != 0; b &= b - 1) un |= qy.adj[std::countr_zero(b)];
    for (uint32_t b = un; b != 0; b &= b - 1) ++grp[k][std::countr_zero(b)];
  }
  uint32_t keep = 0;
  for (uint32_t b = cv; b != 0; b &= b - 1) {
    const int u = std::countr_zero(b);
    bool ok = !refine || (qy.adj[u] & ~has) == 0;
    for (int k = 0; ok && k < qy.q; ++k) {
      const int32_t nd = qy.need[u * qy.q + k];
      ok = prof[k] >= nd && (!refine || grp[k][u] >= nd);
    }
    if (ok) keep |= 1u << u;
  }
  return keep;
}

ffi::Error MatchFilterCpu(ffi::Buffer<ffi::S32> indptr, ffi::Buffer<ffi::S32> indices,
                          ffi::Buffer<ffi::S32> slot, ffi::Buffer<ffi::U32> cand,
                          ffi::Buffer<ffi::S32> need, ffi::Buffer<ffi::U32> adj,
                          ffi::Buffer<ffi::S32> refine, int32_t rounds,
                          ffi::ResultBuffer<ffi::U32> out, ffi::ResultBuffer<ffi::S32> info,
                          ffi::ResultBuffer<ffi::U32> work) {
  const Reporter rep("kcjax_match_filter", "CPU");
  const FilterIo io{indptr, indices, slot, cand, need, adj, refine, out, info, work};
  if (auto err = CheckFilter(rep, io, rounds); err.failure()) return err;
  const int64_t n = static_cast<int64_t>(indptr.element_count()) - 1;
  const int32_t q = static_cast<int32_t>(adj.element_count());
  const int32_t* ip = indptr.typed_data();
  const int32_t* ix = indices.typed_data();
  const int32_t* sl = slot.typed_data();
  if (ip[0] != 0 || ip[n] > static_cast<int64_t>(indices.element_count()))
    return rep.Invalid("indptr does not fit indices");
  for (int64_t i = 0; i < ip[n]; ++i)
    if (ix[i] < 0 || ix[i] >= n) return rep.Invalid("indices must be vertex ids");
  const uint32_t* c = cand.typed_data();
  const uint32_t bits = q == kMaxQuery ? ~0u : (1u << q) - 1u;
  for (int64_t v = 0; v < n; ++v) {
    if (sl[v] < -1 || sl[v] >= q) return rep.Invalid("slot must be -1 or a label slot < q");
    if ((c[v] & ~bits) != 0 || (sl[v] < 0 && c[v] != 0))
      return rep.Invalid("cand may only set bits < q of vertices with a label slot");
  }
  const Query qy{q, need.typed_data(), adj.typed_data()};
  const bool refining = refine.typed_data()[0] != 0;
  uint32_t* a = out->typed_data();
  uint32_t* b = work->typed_data();
  std::copy(c, c + n, a);
  int32_t* inf = info->typed_data();
  std::fill(inf, inf + 4 + rounds, 0);
  int32_t run = 0;
  for (int32_t r = 0; r <= rounds; ++r) {
    bool changed = false;
    int32_t total = 0;
    for (int64_t v = 0; v < n; ++v) {
      b[v] = Survivors(qy, ip, ix, sl, a, v, r > 0 && refining);
      changed = changed || b[v] != a[v];
      total += std::popcount(b[v]);
    }
    std::swap(a, b);
    inf[3 + r] = total;
    if (r == 0) continue;
    run = r;
    if (!changed) {
      inf[2] = 1;
      break;
    }
    ++inf[1];
  }
  inf[0] = run;
  std::fill(inf + 4 + run, inf + 4 + rounds, inf[3 + run]);
  if (a != out->typed_data()) std::copy(a, a + n, out->typed_data());
  return ffi::Error::Success();
}

}  // namespace
}  // namespace kcjax::match

XLA_FFI_DEFINE_HANDLER_SYMBOL(kcjax_match_filter_cpu, kcjax::match::MatchFilterCpu,
                              kcjax::match::BindMatchFilter(kcjax::CpuBinding()));
