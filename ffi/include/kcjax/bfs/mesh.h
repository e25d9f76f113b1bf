// The level steps of the multi-device BFS (kcjax/traversal/mesh.py): two FFI
// targets a shard calls inside shard_map, between the collectives that
// exchange frontier bitmaps. Identical on CPU and CUDA.
//
// A shard owns the c = 32 * words vertices [base, base + c) of a 1-D vertex
// partition (base is not needed: the operands are the shard's own): its rows'
// adjacency as local int32 offsets `indptr` int32[c + 1] and global int32
// column ids `cols` int32[e] (entries past indptr[c] are padding, never
// read). Bitmaps are uint32 words, bit (v & 31) of word (v >> 5).
//
// "kcjax_bfs_mesh_push" (top-down expansion of the shard's frontier):
//   args  indptr  int32[c + 1], cols int32[e]
//         front   uint32[words]   the shard's frontier (its owned vertices)
//         visited uint32[W]       every vertex reached so far, the whole graph
//         mode    int32[]         the level's direction: 0 top-down, 1 bottom-up,
//                                 2 none (the frontier is empty: a level run
//                                 past the traversal's end does nothing)
//   ret   push    uint32[W]       top-down: bit x set iff x is an unvisited
//                                 neighbour of a frontier vertex of the shard;
//                                 all zero otherwise
//         queue   int32[MeshQueueLength(words, e)]  work space, contents unspecified
// "kcjax_bfs_mesh_pull" (settles the shard's candidates against the frontier):
//   args  indptr, cols as above
//         front   uint32[W]       the whole frontier (all shards' words)
//         got     uint32[p * words]  the pushes every device (row d) sent to the
//                                 shard's vertices; read on top-down levels only
//         seen    uint32[words]   the shard's vertices reached so far; aliased to
//                                 ret seen
//         mode    int32[]         as for the push
//         level   int32[]         the frontier's distance
//         dist    int32[c]        aliased to ret dist (updated in place)
//         parent  int32[c]        aliased to ret parent (updated in place)
//   ret   dist, parent            a candidate with a frontier neighbour gets
//                                 dist = level + 1 and that neighbour as parent;
//                                 the candidates are the unseen vertices that some
//                                 row of got has (mode 0), all unseen ones (mode 1)
//                                 or none (mode 2)
//         seen                    seen | next
//         msg     uint32[words + 2]  the candidates so reached (the next
//                                 frontier's words), then their number and the
//                                 sum of their degrees (int32 bits, < 2^31: a
//                                 shard's entries)
//         queue   int32[MeshQueueLength(words, e)]  work space, contents unspecified
// Which frontier neighbour becomes the parent may differ between CPU (the
// first in row order) and CUDA (the first a warp's batch meets); distances and
// bitmaps are identical. The CUDA handlers only enqueue kernels (no scratch, no
// memset, no read-back): XLA may record them in a command buffer.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <utility>

#include "kcjax/bfs/policy.h"
#include "kcjax/core/ffi.h"
#include "xla/ffi/api/ffi.h"

XLA_FFI_DECLARE_HANDLER_SYMBOL(kcjax_bfs_mesh_push_cpu);
XLA_FFI_DECLARE_HANDLER_SYMBOL(kcjax_bfs_mesh_pull_cpu);
#ifdef KCJAX_WITH_CUDA
XLA_FFI_DECLARE_HANDLER_SYMBOL(kcjax_bfs_mesh_push_cuda);
XLA_FFI_DECLARE_HANDLER_SYMBOL(kcjax_bfs_mesh_pull_cuda);
#endif

namespace kcjax::bfs {

// The sizes of one shard's call: words owned, W words of the whole graph's
// bitmaps, e column entries.
struct MeshShape {
  int64_t words = 0;
  int64_t global_words = 0;
  int64_t e = 0;
  int64_t parts = 0;  // rows of the pull's got
};

// int32 entries of the push's work space for a shard of `words` words and `e` column
// entries (the push's and the pull's): a count and a pad (the pairs 8-byte aligned), then
// (vertex, chunk) pairs, at most e / kMeshChunkEdges whole chunks plus one partial chunk
// per vertex of degree >= kSmallMax.
inline int64_t MeshQueueLength(int64_t words, int64_t e) {
  const int64_t chunks =
      e / BfsPolicy::kMeshChunkEdges + std::min<int64_t>(32 * words, e / BfsPolicy::kSmallMax) + 1;
  return 2 + 2 * chunks;
}

inline xla::ffi::Error CheckShard(const Reporter& rep,
                                  const xla::ffi::Buffer<xla::ffi::S32>& indptr,
                                  const xla::ffi::Buffer<xla::ffi::S32>& cols, int64_t words,
                                  int64_t global_words, MeshShape* shape) {
  const int64_t c = static_cast<int64_t>(indptr.element_count()) - 1;
  if (c < 0 || c != 32 * words)
    return rep.Invalid("indptr must be int32[32 * words + 1] (one row per owned vertex), got " +
                       std::to_string(c + 1) + " entries for " + std::to_string(words) + " words");
  if (global_words < words)
    return rep.Invalid("the whole graph's bitmap is shorter than a shard's");
  if (static_cast<int64_t>(cols.element_count()) >= (int64_t{1} << 31))
    return rep.Invalid("more than 2^31 - 1 column entries in one shard");
  shape->words = words;
  shape->global_words = global_words;
  shape->e = static_cast<int64_t>(cols.element_count());
  return xla::ffi::Error::Success();
}

template <typename Binding>
auto BindMeshPush(Binding&& binding) {
  using xla::ffi::Buffer, xla::ffi::S32, xla::ffi::U32;
  return std::move(binding)
      .template Arg<Buffer<S32>>()   // indptr
      .template Arg<Buffer<S32>>()   // cols
      .template Arg<Buffer<U32>>()   // front (owned words)
      .template Arg<Buffer<U32>>()   // visited (whole graph)
      .template Arg<Buffer<S32>>()   // mode
      .template Ret<Buffer<U32>>()   // push (whole graph)
      .template Ret<Buffer<S32>>();  // queue (work space)
}

template <typename Binding>
auto BindMeshPull(Binding&& binding) {
  using xla::ffi::Buffer, xla::ffi::S32, xla::ffi::U32;
  return std::move(binding)
      .template Arg<Buffer<S32>>()   // indptr
      .template Arg<Buffer<S32>>()   // cols
      .template Arg<Buffer<U32>>()   // front (whole graph)
      .template Arg<Buffer<U32>>()   // got (a row per device)
      .template Arg<Buffer<U32>>()   // seen (aliased)
      .template Arg<Buffer<S32>>()   // mode
      .template Arg<Buffer<S32>>()   // level
      .template Arg<Buffer<S32>>()   // dist (aliased)
      .template Arg<Buffer<S32>>()   // parent (aliased)
      .template Ret<Buffer<S32>>()   // dist
      .template Ret<Buffer<S32>>()   // parent
      .template Ret<Buffer<U32>>()   // seen
      .template Ret<Buffer<U32>>()   // msg
      .template Ret<Buffer<S32>>();  // queue (work space)
}

inline xla::ffi::Error CheckPush(const Reporter& rep, const xla::ffi::Buffer<xla::ffi::S32>& indptr,
                                 const xla::ffi::Buffer<xla::ffi::S32>& cols,
                                 const xla::ffi::Buffer<xla::ffi::U32>& front,
                                 const xla::ffi::Buffer<xla::ffi::U32>& visited,
                                 const xla::ffi::Buffer<xla::ffi::S32>& mode,
                                 xla::ffi::ResultBuffer<xla::ffi::U32>& push,
                                 xla::ffi::ResultBuffer<xla::ffi::S32>& queue, MeshShape* shape) {
  const int64_t words = static_cast<int64_t>(front.element_count());
  const int64_t global_words = static_cast<int64_t>(visited.element_count());
  if (auto err = CheckShard(rep, indptr, cols, words, global_words, shape); err.failure())
    return err;
  if (mode.element_count() != 1) return rep.Invalid("mode must be an int32 scalar");
  if (static_cast<int64_t>(push->element_count()) != global_words)
    return rep.Invalid("push must have as many words as visited");
  if (static_cast<int64_t>(queue->element_count()) != MeshQueueLength(words, shape->e))
    return rep.Invalid("queue must be int32[" + std::to_string(MeshQueueLength(words, shape->e)) +
                       "] (bfs_mesh_queue_length)");
  return xla::ffi::Error::Success();
}

inline xla::ffi::Error CheckPull(
    const Reporter& rep, const xla::ffi::Buffer<xla::ffi::S32>& indptr,
    const xla::ffi::Buffer<xla::ffi::S32>& cols, const xla::ffi::Buffer<xla::ffi::U32>& front,
    const xla::ffi::Buffer<xla::ffi::U32>& got, const xla::ffi::Buffer<xla::ffi::U32>& seen_in,
    const xla::ffi::Buffer<xla::ffi::S32>& mode, const xla::ffi::Buffer<xla::ffi::S32>& level,
    const xla::ffi::Buffer<xla::ffi::S32>& dist_in,
    const xla::ffi::Buffer<xla::ffi::S32>& parent_in, xla::ffi::ResultBuffer<xla::ffi::S32>& dist,
    xla::ffi::ResultBuffer<xla::ffi::S32>& parent, xla::ffi::ResultBuffer<xla::ffi::U32>& seen,
    xla::ffi::ResultBuffer<xla::ffi::U32>& msg, xla::ffi::ResultBuffer<xla::ffi::S32>& queue,
    MeshShape* shape) {
  const int64_t words = static_cast<int64_t>(seen_in.element_count());
  if (auto err =
          CheckShard(rep, indptr, cols, words, static_cast<int64_t>(front.element_count()), shape);
      err.failure())
    return err;
  const int64_t c = 32 * words;
  const int64_t rows = static_cast<int64_t>(got.element_count());
  if (words == 0 ? rows != 0 : rows % words != 0)
    return rep.Invalid("got must be uint32[devices * words]");
  shape->parts = words == 0 ? 0 : rows / words;
  if (mode.element_count() != 1 || level.element_count() != 1)
    return rep.Invalid("mode and level must be int32 scalars");
  if (static_cast<int64_t>(dist_in.element_count()) != c ||
      static_cast<int64_t>(parent_in.element_count()) != c ||
      static_cast<int64_t>(dist->element_count()) != c ||
      static_cast<int64_t>(parent->element_count()) != c)
    return rep.Invalid("dist and parent must be int32[32 * words]");
  if (static_cast<int64_t>(seen->element_count()) != words)
    return rep.Invalid("seen must be uint32[words]");
  if (static_cast<int64_t>(msg->element_count()) != words + 2)
    return rep.Invalid("msg must be uint32[words + 2]");
  if (static_cast<int64_t>(queue->element_count()) != MeshQueueLength(words, shape->e))
    return rep.Invalid("queue must be int32[" + std::to_string(MeshQueueLength(words, shape->e)) +
                       "] (bfs_mesh_queue_length)");
  return xla::ffi::Error::Success();
}

}  // namespace kcjax::bfs
