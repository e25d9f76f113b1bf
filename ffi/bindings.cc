// The one Python extension module of kcjax: FFI handler capsules for
// jax.ffi.register_ffi_target, and the native edge-list reader.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <cstring>
#include <string_view>

#include "kcjax/bfs/targets.h"
#include "kcjax/cliques/targets.h"
#include "kcjax/core/edge_list.h"
#include "kcjax/core/targets.h"
#include "kcjax/match/targets.h"
#include "kcjax/truss/targets.h"

namespace py = pybind11;

namespace {

template <typename T>
py::capsule Capsule(T* fn) {
  static_assert(std::is_invocable_r_v<XLA_FFI_Error*, T, XLA_FFI_CallFrame*>,
                "an XLA FFI handler must have type XLA_FFI_Handler");
  return py::capsule(reinterpret_cast<void*>(fn));
}

py::dict Registrations(const kcjax::Targets& targets) {
  py::dict d;
  for (const auto& [name, handler] : targets) d[name] = Capsule(handler);
  return d;
}

py::array_t<int64_t> ToArray(std::vector<int64_t>&& v) {
  auto* heap = new std::vector<int64_t>(std::move(v));
  py::capsule owner(heap, [](void* p) { delete static_cast<std::vector<int64_t>*>(p); });
  return py::array_t<int64_t>({static_cast<py::ssize_t>(heap->size())}, heap->data(), owner);
}

}  // namespace

PYBIND11_MODULE(_kcjax, m) {
  m.doc() = "kcjax native extension (XLA FFI handlers and readers)";

  // One line per op family.
  m.def("cpu_registrations", []() {
    kcjax::Targets all;
    for (const auto& t : kcjax::core::CpuTargets()) all.push_back(t);
    for (const auto& t : kcjax::cliques::CpuTargets()) all.push_back(t);
    for (const auto& t : kcjax::bfs::CpuTargets()) all.push_back(t);
    for (const auto& t : kcjax::truss::CpuTargets()) all.push_back(t);
    for (const auto& t : kcjax::match::CpuTargets()) all.push_back(t);
    return Registrations(all);
  });
  m.def("cuda_registrations", []() {
    kcjax::Targets all;
#ifdef KCJAX_WITH_CUDA
    for (const auto& t : kcjax::core::CudaTargets()) all.push_back(t);
    for (const auto& t : kcjax::cliques::CudaTargets()) all.push_back(t);
    for (const auto& t : kcjax::bfs::CudaTargets()) all.push_back(t);
    for (const auto& t : kcjax::truss::CudaTargets()) all.push_back(t);
    for (const auto& t : kcjax::match::CudaTargets()) all.push_back(t);
#endif
    return Registrations(all);
  });
  m.def("built_with_cuda", []() {
#ifdef KCJAX_WITH_CUDA
    return true;
#else
    return false;
#endif
  });
  m.def(
      "bfs_policy",
      []() {
        py::dict d;
        d["cluster_alpha"] = kcjax::BfsPolicy::kClusterAlpha;
        d["back_to_top_down"] = kcjax::BfsPolicy::kBackToTopDown;
        return d;
      },
      "The BfsPolicy constants the multi-device BFS's direction rule reads in Python.");
  m.def(
      "parse_edge_list",
      [](py::bytes data) {
        char* buf = nullptr;
        py::ssize_t len = 0;
        PYBIND11_BYTES_AS_STRING_AND_SIZE(data.ptr(), &buf, &len);
        kcjax::EdgeList el;
        {
          py::gil_scoped_release release;
          el = kcjax::ParseEdgeList(std::string_view(buf, static_cast<size_t>(len)));
        }
        if (!el.error.empty()) throw py::value_error(el.error);
        return py::make_tuple(ToArray(std::move(el.src)), ToArray(std::move(el.dst)), el.num_lines);
      },
      py::arg("data"),
      "Parses an edge list held in `data` (bytes). Returns (src int64[e], dst int64[e], "
      "lines). Raises ValueError naming the first malformed line.");
}
