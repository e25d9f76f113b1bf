// The shared task stage (kcjax/cuda/tasks.h): scratch layout, the CUB radix
// sort of task ids by key (descending) and the class-boundary kernel. The
// one translation unit that instantiates the sort for every family.
#include <algorithm>
#include <cub/device/device_radix_sort.cuh>

#include "kcjax/cuda/tasks.h"
#include "kcjax/cuda/warp.cuh"

namespace kcjax::cuda {
namespace {

// One warp per bound: a 32-ary search over the descending keys for the
// first index whose key <= the bound. Invariant: it lies in [lo, hi].
__global__ void TaskClassesKernel(const uint32_t* keys, int64_t n, ClassBounds bounds,
                                  int32_t* ends, int32_t* max_key) {
  const int lane = LaneId();
  const int warp = WarpInBlock();
  const uint32_t bound = bounds.at_most[warp];
  int64_t lo = 0, hi = n;
  while (lo < hi) {
    const int64_t step = (hi - lo + kWarp - 1) / kWarp;
    const int64_t idx = lo + lane * step;
    const unsigned le = __ballot_sync(kFull, idx < hi && keys[idx] <= bound);
    if (le == 0) {
      const int64_t probes = (hi - 1 - lo) / step;  // index of the last probe below hi
      lo += (probes < kWarp - 1 ? probes : kWarp - 1) * step + 1;
    } else {
      const int first = __ffs(le) - 1;
      hi = lo + first * step;
      if (first > 0) lo += (first - 1) * step + 1;
    }
  }
  if (lane == 0) {
    ends[warp] = static_cast<int32_t>(lo);
    if (warp == 0 && max_key != nullptr) *max_key = n > 0 ? static_cast<int32_t>(keys[0]) : 0;
  }
}

}  // namespace

TaskLayout TaskLayout::Make(int64_t num_tasks, bool with_vals_in) {
  TaskLayout l;
  const int64_t items = std::max<int64_t>(num_tasks, 1);
  const size_t a = RoundUp(items * 4, kScratchAlign);
  l.header = 0;
  l.keys_in = kTaskHeaderBytes;
  l.keys_out = l.keys_in + a;
  l.vals_in = l.keys_out + a;
  l.vals_out = with_vals_in ? l.vals_in + a : l.vals_in;
  l.temp = l.vals_out + a;
  l.temp_bytes = 0;
  cub::DeviceRadixSort::SortPairsDescending(
      nullptr, l.temp_bytes, static_cast<const uint32_t*>(nullptr), static_cast<uint32_t*>(nullptr),
      static_cast<const int32_t*>(nullptr), static_cast<int32_t*>(nullptr), static_cast<int>(items),
      0, 32);
  l.total = l.temp + RoundUp(static_cast<int64_t>(l.temp_bytes), kScratchAlign);
  return l;
}

size_t TaskScratchBytes(int64_t num_tasks, bool with_vals_in) {
  return TaskLayout::Make(num_tasks, with_vals_in).total;
}

cudaError_t SortTasksDescending(void* scratch, const TaskLayout& l, const int32_t* vals_in,
                                int64_t num_tasks, int end_bit, cudaStream_t stream) {
  size_t temp_bytes = l.temp_bytes;
  return cub::DeviceRadixSort::SortPairsDescending(
      TaskLayout::At<void>(scratch, l.temp), temp_bytes,
      TaskLayout::At<const uint32_t>(scratch, l.keys_in),
      TaskLayout::At<uint32_t>(scratch, l.keys_out),
      vals_in != nullptr ? vals_in : TaskLayout::At<const int32_t>(scratch, l.vals_in),
      TaskLayout::At<int32_t>(scratch, l.vals_out), static_cast<int>(num_tasks), 0, end_bit,
      stream);
}

cudaError_t LaunchTaskClasses(const uint32_t* sorted_keys, int64_t num_tasks,
                              const ClassBounds& bounds, int32_t* ends, int32_t* max_key,
                              cudaStream_t stream) {
  if (bounds.num < 1 || bounds.num > kMaxClassBounds) return cudaErrorInvalidValue;
  TaskClassesKernel<<<1, bounds.num * kWarp, 0, stream>>>(sorted_keys, num_tasks, bounds, ends,
                                                          max_key);
  return cudaGetLastError();
}

}  // namespace kcjax::cuda
