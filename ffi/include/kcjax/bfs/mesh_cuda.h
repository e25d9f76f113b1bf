// Host interface of the multi-device BFS's CUDA level steps (ffi/cuda/bfs/mesh.cu);
// the contract is in kcjax/bfs/mesh.h.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

namespace kcjax::bfs {

struct MeshShard {
  const int32_t* indptr;  // device, int32[32 * words + 1], local offsets
  const int32_t* cols;    // device, global column ids
  int64_t words;          // bitmap words the shard owns
  int64_t global_words;   // bitmap words of the whole graph
};

// Top-down: push[W] = the unvisited neighbours of the shard's frontier `front[words]`
// (all zero unless *mode == 0, a top-down level); `queue`: int32[MeshQueueLength] of work space.
cudaError_t MeshPush(const MeshShard& s, const uint32_t* front, const uint32_t* visited,
                     const int32_t* mode, uint32_t* push, int32_t* queue, int num_sms,
                     cudaStream_t stream);

// Settles the candidates (*mode 0, top-down: the vertices not in `seen[words]` that some
// row of `got[parts * words]` has; 1, bottom-up: every vertex not in seen; 2: none)
// against the whole frontier `front[W]`: dist, parent and seen updated in place,
// msg[words + 2] = the next frontier's words, its size and degree sum; `queue`:
// int32[MeshQueueLength] of work space.
cudaError_t MeshPull(const MeshShard& s, const uint32_t* front, const uint32_t* got, int64_t parts,
                     const int32_t* mode, const int32_t* level, int32_t* dist, int32_t* parent,
                     uint32_t* seen, uint32_t* msg, int32_t* queue, int num_sms,
                     cudaStream_t stream);

}  // namespace kcjax::bfs
