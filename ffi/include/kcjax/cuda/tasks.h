// The task stage shared by every CUDA family: a family's pre-pass writes one
// 32-bit key per task (its work size: a candidate-set size, a degree, a
// support count), then ONE implementation sorts the task ids by key,
// largest first, and finds the boundaries of the size classes. Families:
// cliques count (key |N+(u) ∩ N+(v)|, five classes), cliques list and
// per-vertex (same key, sort only), cliques pivot (key |N+(v)| + 1, sort
// only); k-truss support counting, BFS degree-class frontier queues and
// matching candidate sizes call the same functions.
//
// Scratch (one allocation of TaskScratchBytes(n) bytes, base aligned to
// kScratchAlign = 256, as DeviceScratch returns it), offsets in TaskLayout:
//   [header]    kTaskHeaderBytes bytes at offset 0 for the family's own
//               small device state (stats read back to the host, work
//               counters, TaskClasses); the stage never touches it.
//   [keys_in]   uint32[n]  the pre-pass's keys
//   [keys_out]  uint32[n]  keys sorted descending
//   [vals_in]   int32[n]   the task ids in caller order (absent with
//               TaskLayout::Make(n, false): the family passes the caller's
//               own task array to SortTasksDescending instead)
//   [vals_out]  int32[n]   the task ids in key order (stable: equal keys
//               keep their input order)
//   [temp]      CUB's radix-sort temporary storage (sized for 32-bit keys,
//               so any end_bit <= 32 fits)
// n is the number of tasks (0 <= n < 2^31: CUB sorts int-sized ranges);
// every array is padded to a multiple of 256 bytes.
//
// Streams: every function enqueues its work on the given stream and returns
// without synchronizing; results are valid for work queued after it on the
// same stream. A failed enqueue returns the CUDA error (never a sticky one
// from an earlier call). Host-only API (compiles with the host compiler);
// the definitions live in ffi/cuda/core/tasks.cu.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "kcjax/core/config.h"
#include "kcjax/cuda/limits.h"

namespace kcjax::cuda {

// Bytes at the start of the task scratch reserved for the family's header.
inline constexpr size_t kTaskHeaderBytes = kScratchAlign;
// Most class boundaries one LaunchTaskClasses call finds (one warp each).
inline constexpr int kMaxClassBounds = 8;

// Byte offsets inside the task scratch (see the file comment).
struct TaskLayout {
  size_t header = 0;
  size_t keys_in = 0, keys_out = 0, vals_in = 0, vals_out = 0;
  size_t temp = 0, temp_bytes = 0;  // CUB's storage: offset and size
  size_t total = 0;                 // bytes of the whole scratch
  // The layout for num_tasks tasks; with_vals_in = false leaves out the
  // vals_in array (vals_in then equals vals_out and must not be written).
  static TaskLayout Make(int64_t num_tasks, bool with_vals_in = true);

  template <typename T>
  static T* At(void* scratch, size_t offset) {
    return reinterpret_cast<T*>(static_cast<char*>(scratch) + offset);
  }
  template <typename T>
  static const T* At(const void* scratch, size_t offset) {
    return reinterpret_cast<const T*>(static_cast<const char*>(scratch) + offset);
  }
};

// Bytes of the whole task scratch for num_tasks tasks.
size_t TaskScratchBytes(int64_t num_tasks, bool with_vals_in = true);

// Bits a radix sort must look at for keys <= max_key: the bit width of
// max_key, at least 1, at most 32. Fewer bits, fewer passes (8 bits each).
inline int TaskKeyBits(uint64_t max_key) {
  int bits = 1;
  while (bits < 32 && (max_key >> bits) != 0) ++bits;
  return bits;
}

// Sorts (keys_in, vals) by key, descending, into (keys_out, vals_out),
// looking at key bits [0, end_bit) only (keys must be below 2^end_bit).
// vals_in: nullptr for the layout's vals_in array, or the caller's own
// task array (with TaskLayout::Make(n, false)).
cudaError_t SortTasksDescending(void* scratch, const TaskLayout& layout, const int32_t* vals_in,
                                int64_t num_tasks, int end_bit, cudaStream_t stream);

// Class boundaries of n keys sorted descending (keys_out): for each j <
// bounds.num, ends[j] = the first index i with keys[i] <= bounds.at_most[j]
// (n if none), so with descending bounds the class [ends[j - 1], ends[j])
// holds the keys in (at_most[j], at_most[j - 1]]. *max_key = keys[0] (0 if
// n == 0) unless max_key is nullptr. ends and max_key are device pointers
// (typically into the family's header). One block of bounds.num warps, each
// a 32-ary search (~log32(n) dependent loads).
struct ClassBounds {
  uint32_t at_most[kMaxClassBounds] = {};
  int num = 0;  // 1 <= num <= kMaxClassBounds
};
cudaError_t LaunchTaskClasses(const uint32_t* sorted_keys, int64_t num_tasks,
                              const ClassBounds& bounds, int32_t* ends, int32_t* max_key,
                              cudaStream_t stream);

#if defined(__CUDACC__)
// Device side. The id of the task at position i of a task array: tasks[i],
// or i itself when tasks is nullptr (every edge / vertex is a task).
__device__ __forceinline__ int32_t TaskAt(const int32_t* tasks, int64_t i) {
  return tasks != nullptr ? tasks[i] : static_cast<int32_t>(i);
}
#endif

}  // namespace kcjax::cuda
