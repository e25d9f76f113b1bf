// The one Python extension module of kcjax: FFI handler capsules for
// jax.ffi.register_ffi_target, and the native edge-list reader.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <cstring>
#include <string_view>

#include "kcjax/cliques.h"
#include "kcjax/edge_list.h"
#include "kcjax/match/match.h"

namespace py = pybind11;

namespace {

template <typename T>
py::capsule Capsule(T* fn) {
  static_assert(std::is_invocable_r_v<XLA_FFI_Error*, T, XLA_FFI_CallFrame*>,
                "an XLA FFI handler must have type XLA_FFI_Handler");
  return py::capsule(reinterpret_cast<void*>(fn));
}

py::array_t<int64_t> ToArray(std::vector<int64_t>&& v) {
  auto* heap = new std::vector<int64_t>(std::move(v));
  py::capsule owner(heap, [](void* p) { delete static_cast<std::vector<int64_t>*>(p); });
  return py::array_t<int64_t>({static_cast<py::ssize_t>(heap->size())}, heap->data(), owner);
}

}  // namespace

PYBIND11_MODULE(_kcjax, m) {
  m.doc() = "kcjax native extension (XLA FFI handlers and readers)";

  m.def("cpu_registrations", []() {
    py::dict d;
    d["kcjax_clique_count"] = Capsule(kcjax_clique_count_cpu);
    d["kcjax_clique_list"] = Capsule(kcjax_clique_list_cpu);
    d["kcjax_clique_per_vertex"] = Capsule(kcjax_clique_per_vertex_cpu);
    d["kcjax_clique_pivot"] = Capsule(kcjax_clique_pivot_cpu);
    d["kcjax_clique_pivot_local"] = Capsule(kcjax_clique_pivot_local_cpu);
    d["kcjax_match_count"] = Capsule(kcjax_match_count_cpu);
    d["kcjax_match_list"] = Capsule(kcjax_match_list_cpu);
    return d;
  });
  m.def("cuda_registrations", []() {
    py::dict d;
#ifdef KCJAX_WITH_CUDA
    d["kcjax_clique_count"] = Capsule(kcjax_clique_count_cuda);
    d["kcjax_clique_list"] = Capsule(kcjax_clique_list_cuda);
    d["kcjax_clique_per_vertex"] = Capsule(kcjax_clique_per_vertex_cuda);
    d["kcjax_clique_pivot"] = Capsule(kcjax_clique_pivot_cuda);
    d["kcjax_clique_pivot_local"] = Capsule(kcjax_clique_pivot_local_cuda);
    d["kcjax_match_count"] = Capsule(kcjax_match_count_cuda);
    d["kcjax_match_list"] = Capsule(kcjax_match_list_cuda);
#endif
    return d;
  });
  m.def("built_with_cuda", []() {
#ifdef KCJAX_WITH_CUDA
    return true;
#else
    return false;
#endif
  });
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
        return py::make_tuple(ToArray(std::move(el.src)), ToArray(std::move(el.dst)),
                              el.num_lines);
      },
      py::arg("data"),
      "Parses an edge list held in `data` (bytes). Returns (src int64[e], dst int64[e], "
      "lines). Raises ValueError naming the first malformed line.");
}
