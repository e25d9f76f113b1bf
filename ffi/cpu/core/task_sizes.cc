// CPU handler of "kcjax_task_sizes" (contract in kcjax/core/task_sizes.h):
// one merge of the two sorted out-neighbour lists per edge task.
#include "kcjax/core/task_sizes.h"

#include <cstdint>

#include "kcjax/core/dag_check.h"
#include "kcjax/core/ffi.h"

namespace ffi = xla::ffi;

namespace kcjax {
namespace {

// |a ∩ b| of two ascending lists.
int32_t MergeCount(const int32_t* a, const int32_t* a_end, const int32_t* b, const int32_t* b_end) {
  int32_t count = 0;
  while (a < a_end && b < b_end) {
    if (*a < *b) {
      ++a;
    } else if (*b < *a) {
      ++b;
    } else {
      ++count, ++a, ++b;
    }
  }
  return count;
}

ffi::Error TaskSizesCpu(ffi::Buffer<ffi::S32> indptr, ffi::Buffer<ffi::S32> indices,
                        ffi::Buffer<ffi::S32> src, ffi::ResultBuffer<ffi::S32> sizes) {
  const Reporter rep("kcjax_task_sizes", "CPU");
  const int64_t n = static_cast<int64_t>(indptr.element_count()) - 1;
  const int64_t m = static_cast<int64_t>(indices.element_count());
  if (auto err = CheckTaskSizesShapes(rep, n + 1, m, src.element_count(), sizes->element_count());
      err.failure()) {
    return err;
  }
  const int32_t* ptr = indptr.typed_data();
  const int32_t* col = indices.typed_data();
  const int32_t* row = src.typed_data();
  if (auto err = ValidateDag(rep, ptr, n, col, m, row); err.failure()) return err;
  int32_t* out = sizes->typed_data();
  for (int64_t e = 0; e < m; ++e) {
    const int32_t u = row[e], v = col[e];
    out[e] = MergeCount(col + ptr[u], col + ptr[u + 1], col + ptr[v], col + ptr[v + 1]);
  }
  return ffi::Error::Success();
}

}  // namespace
}  // namespace kcjax

XLA_FFI_DEFINE_HANDLER_SYMBOL(kcjax_task_sizes_cpu, kcjax::TaskSizesCpu,
                              kcjax::BindTaskSizes(kcjax::CpuBinding()));
