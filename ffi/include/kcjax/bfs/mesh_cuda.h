// Host interface of the multi-device BFS's CUDA level steps (ffi/cuda/bfs/mesh.cu);
// the contract is in kcjax/bfs/mesh.h.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

namespace kcjax::cuda {

struct MeshShard {
  const int32_t* indptr;  // device, int32[32 * words + 1], local offsets
  const int32_t* cols;    // device, global column ids
  int64_t words;          // bitmap words the shard owns
  int64_t global_words;   // bitmap words of the whole graph
};

// Bytes of MeshPush's scratch for a shard of `entries` column entries (its chunk queue).
size_t MeshPushQueueBytes(const MeshShard& s, int64_t entries);

// Top-down: push[W] = the unvisited neighbours of the shard's frontier `front[words]`;
// `queue`: MeshPushQueueBytes of scratch.
cudaError_t MeshPush(const MeshShard& s, const uint32_t* front, const uint32_t* visited,
                     uint32_t* push, void* queue, int num_sms, cudaStream_t stream);

// Settles the candidates `cand[words]` against the whole frontier `front[W]`: dist,
// parent (updated in place), the next frontier's words and `stats[2]`: its size and degree sum.
cudaError_t MeshPull(const MeshShard& s, const uint32_t* front, const uint32_t* cand,
                     const int32_t* level, int32_t* dist, int32_t* parent, uint32_t* next,
                     int32_t* stats, int num_sms, cudaStream_t stream);

}  // namespace kcjax::cuda
