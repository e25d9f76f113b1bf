// CPU handlers of the multi-device BFS's level steps "kcjax_bfs_mesh_push" and
// "kcjax_bfs_mesh_pull" (contract in kcjax/bfs/mesh.h): the reference twins of
// ffi/cuda/bfs/mesh.cu, one shard per call, serial.
#include "kcjax/bfs/mesh.h"

#include <algorithm>
#include <cstdint>
#include <cstring>

#include "kcjax/core/ffi.h"

namespace ffi = xla::ffi;

namespace kcjax::bfs {
namespace {

inline bool Bit(const uint32_t* bits, int32_t v) { return (bits[v >> 5] >> (v & 31)) & 1u; }

ffi::Error MeshPushCpu(ffi::Buffer<ffi::S32> indptr, ffi::Buffer<ffi::S32> cols,
                       ffi::Buffer<ffi::U32> front, ffi::Buffer<ffi::U32> visited,
                       ffi::Buffer<ffi::S32> mode, ffi::ResultBuffer<ffi::U32> push,
                       ffi::ResultBuffer<ffi::S32> queue) {
  const Reporter rep("kcjax_bfs_mesh_push", "CPU");
  bfs::MeshShape shape;
  if (auto err = bfs::CheckPush(rep, indptr, cols, front, visited, mode, push, queue, &shape);
      err.failure())
    return err;
  uint32_t* out = push->typed_data();
  std::fill(out, out + shape.global_words, 0u);
  queue->typed_data()[0] = 0;  // the CUDA twin's work space; nothing queued here
  if (mode.typed_data()[0] != 0) return ffi::Error::Success();
  const int32_t* ip = indptr.typed_data();
  const int32_t* col = cols.typed_data();
  const uint32_t* fr = front.typed_data();
  const uint32_t* seen = visited.typed_data();
  for (int64_t w = 0; w < shape.words; ++w) {
    for (uint32_t bits = fr[w]; bits != 0; bits &= bits - 1) {
      const int64_t u = w * 32 + __builtin_ctz(bits);
      for (int32_t e = ip[u]; e < ip[u + 1]; ++e) {
        const int32_t x = col[e];
        if (!Bit(seen, x)) out[x >> 5] |= 1u << (x & 31);
      }
    }
  }
  return ffi::Error::Success();
}

ffi::Error MeshPullCpu(ffi::Buffer<ffi::S32> indptr, ffi::Buffer<ffi::S32> cols,
                       ffi::Buffer<ffi::U32> front, ffi::Buffer<ffi::U32> got,
                       ffi::Buffer<ffi::U32> seen_in, ffi::Buffer<ffi::S32> mode,
                       ffi::Buffer<ffi::S32> level, ffi::Buffer<ffi::S32> dist_in,
                       ffi::Buffer<ffi::S32> parent_in, ffi::ResultBuffer<ffi::S32> dist,
                       ffi::ResultBuffer<ffi::S32> parent, ffi::ResultBuffer<ffi::U32> seen,
                       ffi::ResultBuffer<ffi::U32> msg, ffi::ResultBuffer<ffi::S32> queue) {
  const Reporter rep("kcjax_bfs_mesh_pull", "CPU");
  bfs::MeshShape shape;
  if (auto err = bfs::CheckPull(rep, indptr, cols, front, got, seen_in, mode, level, dist_in,
                                parent_in, dist, parent, seen, msg, queue, &shape);
      err.failure())
    return err;
  const int64_t words = shape.words, c = 32 * words;
  int32_t* d = dist->typed_data();
  int32_t* p = parent->typed_data();
  uint32_t* sn = seen->typed_data();
  // Aliased operands share the results' memory; copy where XLA gave other buffers.
  if (d != dist_in.typed_data()) std::memcpy(d, dist_in.typed_data(), c * sizeof(int32_t));
  if (p != parent_in.typed_data()) std::memcpy(p, parent_in.typed_data(), c * sizeof(int32_t));
  if (sn != seen_in.typed_data()) std::memcpy(sn, seen_in.typed_data(), words * sizeof(uint32_t));
  const int32_t* ip = indptr.typed_data();
  const int32_t* col = cols.typed_data();
  const uint32_t* fr = front.typed_data();
  const uint32_t* pushed = got.typed_data();
  const int32_t how = mode.typed_data()[0];
  queue->typed_data()[0] = 0;  // the CUDA twin's work space; nothing queued here
  uint32_t* out = msg->typed_data();
  const int32_t reached = level.typed_data()[0] + 1;
  int64_t next_count = 0, next_edges = 0;
  for (int64_t w = 0; w < words; ++w) {
    uint32_t cand = how == 1 ? ~0u : 0u;
    for (int64_t r = 0; how == 0 && r < shape.parts; ++r) cand |= pushed[r * words + w];
    uint32_t hit = 0;
    for (uint32_t bits = cand & ~sn[w]; bits != 0; bits &= bits - 1) {
      const int b = __builtin_ctz(bits);
      const int64_t v = w * 32 + b;
      for (int32_t e = ip[v]; e < ip[v + 1]; ++e) {
        if (Bit(fr, col[e])) {
          d[v] = reached;
          p[v] = col[e];
          hit |= 1u << b;
          next_edges += ip[v + 1] - ip[v];
          ++next_count;
          break;
        }
      }
    }
    out[w] = hit;
    sn[w] |= hit;
  }
  out[words] = static_cast<uint32_t>(next_count);
  out[words + 1] = static_cast<uint32_t>(next_edges);
  return ffi::Error::Success();
}

}  // namespace
}  // namespace kcjax::bfs

XLA_FFI_DEFINE_HANDLER_SYMBOL(kcjax_bfs_mesh_push_cpu, kcjax::bfs::MeshPushCpu,
                              kcjax::bfs::BindMeshPush(kcjax::CpuBinding()));
XLA_FFI_DEFINE_HANDLER_SYMBOL(kcjax_bfs_mesh_pull_cpu, kcjax::bfs::MeshPullCpu,
                              kcjax::bfs::BindMeshPull(kcjax::CpuBinding()));
