// Host interface between the CUDA clique-count handler (count_cuda.cc) and
// its kernels (count.cu). Plain C++ and CUDA runtime types only, so
// that the handler compiles with the host compiler.
//
// Direct shallow path (UseShallowPath: the kBinarySearch baseline at
// kmax == 4, and KCMiner at kmax == 4 when max_degree says every candidate
// set is below kSmallTaskMax): LaunchShallow zeroes the output and runs one persistent
// list-based kernel (counts[3] and counts[4]); no sort, no host
// synchronization, ShallowScratchBytes() of scratch (a work counter).
//
// Small route (UseSmallRoute: KCMiner at kmax >= 5 when max_degree says
// every candidate set is below kSmallTaskMax): LaunchSmallRoute zeroes the
// output and runs one persistent kernel over every task, counts[3] included;
// SmallRouteScratchBytes() of scratch. The handler reads the int at
// SmallRouteOverflow(scratch) back: nonzero means the hint was below the true
// maximum, some tasks were skipped, and the general pipeline recounts.
//
// General pipeline (all on the caller's stream):
//   1. LaunchPrepass: zero the output, exact task sizes |N+(u) ∩ N+(v)|,
//      counts[3], radix sort of the tasks by work size (descending) and the
//      boundaries of the size classes, written to device memory. KCMiner at
//      kmax == 4 also counts most small tasks' 4-cliques here (their keys
//      are 0: they leave the small class).
//   2. The handler copies the 32-byte TaskClasses back to the host (one
//      stream synchronization) so that scratch memory and grids are sized to
//      the actual largest task instead of to worst-case bounds.
//   3. PlanSolve + LaunchSolve: persistent kernels per size class, heavy
//      tasks first, accumulating into counts.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "kcjax/core/csr.h"

namespace kcjax::cliques {

// One clique-count call: the DAG, its edge tasks, the count's attributes and
// its output (a distinct concept from ListProblem: other attributes, other
// outputs; the CPU handlers' DagTasks is the inputs both share).
struct CountProblem {
  DagView dag;           // device pointers, src required
  const int32_t* tasks;  // device, [num_tasks]; < 0 or >= num_edges: skipped;
                         // nullptr: task i is edge i (num_tasks == num_edges)
  int64_t num_tasks;
  int32_t kmax;        // >= 3
  int32_t method;      // kcjax::cliques::CountMethod, validated by the caller
  float lam;           // < 0: CliquePolicy::Lambda
  int32_t max_degree;  // the DAG's largest out-degree if the caller knows it, else < 0
  uint32_t* counts;    // device, [kmax + 1][4] 128-bit little-endian limbs
};

// Boundaries in the descending-sorted task array (task i has work key k_i;
// keys are 0 for tasks with nothing to do beyond counts[3]):
//   [0, huge_end)           key > kMaxBitmapDim
//   [huge_end, large_end)   kWarpTaskMax < key <= kMaxBitmapDim
//   [large_end, medium_end) kSmallTaskMax <= key <= kWarpTaskMax
//   [medium_end, small_end) 0 < key < kSmallTaskMax
// and heavy_end, inside the medium class: [large_end, heavy_end) holds the
// keys >= CliquePolicy::HeavySplitMinDim(kmax) (candidates for the heavy-task
// split).
// The key is |C| (C = N+(u) ∩ N+(v)) except for kStaticBitmapL1, where it is
// the bitmap dimension |N+(u)|.
struct TaskClasses {
  int32_t huge_end;
  int32_t large_end;
  int32_t medium_end;
  int32_t small_end;
  int32_t heavy_end;
  int32_t max_key;
  // Set by the pre-pass when a key exceeds the max_degree hint (the sort may
  // lack bits, a device-bounds plan's arenas are too small): sort again with
  // all bits and plan from the classes.
  int32_t key_overflow;
  int32_t pad;
};

bool UseSmallRoute(const CountProblem& problem);
size_t SmallRouteScratchBytes();
cudaError_t LaunchSmallRoute(const CountProblem& problem, void* scratch, int num_sms,
                             cudaStream_t stream);
const int* SmallRouteOverflow(const void* scratch);
bool UseShallowPath(const CountProblem& problem);
size_t ShallowScratchBytes();
cudaError_t LaunchShallow(const CountProblem& problem, void* scratch, int num_sms,
                          cudaStream_t stream);

// The pre-pass's scratch is the shared task stage's (kcjax/cuda/tasks.h:
// TaskScratchBytes(num_tasks), TaskLayout), its header the TaskClasses.
inline const TaskClasses* CountClasses(const void* task_scratch) {
  return static_cast<const TaskClasses*>(task_scratch);
}

// Zeroes problem.counts, computes counts[3] and sorts the tasks. Writes the
// TaskClasses to *CountClasses(scratch) on the device; nothing more to do
// when problem.kmax == 3 (the classes are then all empty).
cudaError_t LaunchPrepass(const CountProblem& problem, void* scratch, int num_sms,
                          cudaStream_t stream);

// Grid shapes and scratch of the solve phase, derived from the host copy of
// the task classes, or (device_bounds) from the max_degree hint alone.
struct SolvePlan {
  int num_sms = 0;
  // One entry per kernel: 0 huge/sorted-list, 1 large/block, 2 medium/warp, 3 small.
  int64_t begin[4] = {0, 0, 0, 0};
  int64_t end[4] = {0, 0, 0, 0};
  // device_bounds: the kernels read their ranges from the pre-pass's
  // TaskClasses on the device (begin_field / end_field index its fields, -1:
  // zero), and run no task when its key_overflow is set. Grids and arenas are
  // sized for every task key up to the hint; nothing waits for the pre-pass.
  bool device_bounds = false;
  int begin_field[4] = {-1, -1, -1, -1};
  int end_field[4] = {-1, -1, -1, -1};
  int dim[4] = {0, 0, 0, 0};             // largest key in the range
  int blocks[4] = {0, 0, 0, 0};          // persistent grid (0: not launched)
  size_t smem[4] = {0, 0, 0, 0};         // dynamic shared memory per block
  size_t arena_bytes[4] = {0, 0, 0, 0};  // global scratch for the kernel
  bool arena_in_smem = false;            // medium kernel keeps its arenas on chip
  // KCMiner with λ(kmax, 2) >= 1/2: medium tasks are split into level-3 units
  // (task, candidate) pulled from one counter (prefix sum of task sizes).
  bool split3 = false;
  size_t split_scan_bytes = 0;
  // KCMiner heavy-task split (CliquePolicy::HeavySplit): tasks
  // [heavy_begin, heavy_end) get their level-2 spaces built into global
  // slots (one warp per task) and are counted by level-3 or level-4 units; the medium
  // kernel's range then starts at heavy_end.
  int64_t heavy_begin = 0, heavy_end = 0;
  int heavy_dim = 0;
  int heavy_build_blocks = 0, heavy_blocks = 0;
  size_t heavy_smem = 0, heavy_arena_bytes = 0, heavy_slot_bytes = 0, heavy_scan_bytes = 0;
  size_t scratch_bytes = 0;  // total (work counters + arenas)
};

// Sorts the pre-pass keys (descending) and writes the classes; LaunchPrepass
// runs it with as many key bits as the max_degree hint allows. The handler
// runs it again with full_keys when the read-back classes say key_overflow.
cudaError_t LaunchSortClasses(const CountProblem& problem, void* scratch, bool full_keys,
                              cudaStream_t stream);
// classes: the read-back classes, or nullptr to plan from problem.max_degree
// (only where UseDeviceBounds holds).
cudaError_t PlanSolve(const CountProblem& problem, const TaskClasses* classes, int num_sms,
                      SolvePlan* plan);
// device_classes: the pre-pass's classes on the device (read by the kernels
// of a device_bounds plan; unused otherwise).
cudaError_t LaunchSolve(const CountProblem& problem, const SolvePlan& plan,
                        const int32_t* sorted_tasks, const uint32_t* sorted_keys,
                        const TaskClasses* device_classes, void* scratch, cudaStream_t stream);

// Whether the solve phase can be planned from the max_degree hint alone
// (PlanSolve with no classes): a hint is given, nothing in the plan depends
// on how many tasks each class holds (kmax <= kDeviceBoundsMaxK, no heavy
// split, no level-3 units), and arenas sized from the hint fit in shared
// memory (hint <= kWarpTaskMax). The handler then enqueues the solve kernels right behind
// the pre-pass instead of waiting for its classes, and checks key_overflow
// afterwards.
bool UseDeviceBounds(const CountProblem& problem);

// Copies the pre-pass's classes into pinned host memory on a side stream
// (after the work queued on `stream` so far) and records `done` there, so
// that kernels queued on `stream` next do not wait for the copy.
cudaError_t CopyClassesAsync(const void* prepass_scratch, TaskClasses* host, cudaEvent_t done,
                             cudaStream_t stream);

}  // namespace kcjax::cliques
