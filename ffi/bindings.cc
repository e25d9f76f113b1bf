// The one Python extension module of kcjax: FFI handler capsules for
// jax.ffi.register_ffi_target, and the native edge-list reader.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <cstring>
#include <optional>
#include <string_view>

#include "kcjax/bfs/mesh.h"
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

template <typename T>
py::array_t<T> ToArrayOf(std::vector<T>&& v) {
  auto* heap = new std::vector<T>(std::move(v));
  py::capsule owner(heap, [](void* p) { delete static_cast<std::vector<T>*>(p); });
  return py::array_t<T>({static_cast<py::ssize_t>(heap->size())}, heap->data(), owner);
}

// Whether the keys of dict adj are the ints 0..n-1 in order (exact ints).
bool IsRange(py::dict adj) {
  PyObject *key, *value;
  Py_ssize_t pos = 0;
  long long i = 0;
  while (PyDict_Next(adj.ptr(), &pos, &key, &value)) {
    if (!PyLong_CheckExact(key)) return false;
    int overflow = 0;
    if (PyLong_AsLongLongAndOverflow(key, &overflow) != i || overflow != 0) return false;
    ++i;
  }
  return true;
}

// The id of neighbour key: itself when identity (an exact int in [0, n)), else index[key].
int32_t NeighbourId(PyObject* key, PyObject* index, long long n) {
  PyObject* id = key;
  if (index != nullptr) {
    id = PyDict_GetItemWithError(index, key);
    if (id == nullptr) {
      if (!PyErr_Occurred()) PyErr_SetString(PyExc_KeyError, "a neighbour is not a node");
      throw py::error_already_set();
    }
  } else if (!PyLong_CheckExact(id)) {
    throw py::type_error("a neighbour of an int-labelled graph is not an int");
  }
  int overflow = 0;
  const long long v = PyLong_AsLongLongAndOverflow(id, &overflow);
  if (overflow != 0 || v < 0 || v >= n) {
    if (PyErr_Occurred()) throw py::error_already_set();
    throw py::value_error("a neighbour id is out of range");
  }
  return static_cast<int32_t>(v);
}

// networkx's G._adj (dict of dicts) as a CSR in one pass over the dicts: (indptr int64[n + 1],
// cols int32[entries], loop_free bool[entries with loops] or None). Self loops are dropped;
// loop_free marks the kept entries of the full adjacency when there were any.
py::tuple AdjacencyCsr(py::dict adj, py::object index_obj) {
  PyObject* index = index_obj.is_none() ? nullptr : index_obj.ptr();
  py::object built;  // the dict a callable index returns, when the labels need one
  const long long n = static_cast<long long>(PyDict_Size(adj.ptr()));
  std::vector<int64_t> indptr(static_cast<size_t>(n) + 1, 0);
  PyObject *key, *row;
  Py_ssize_t pos = 0;
  int64_t total = 0;
  // Labels that are exact non-negative ints of at most kSpread * n + 1024: a neighbour
  // (a node, so equal to one of them) has the hash of its int value, stored in its
  // dict entry, and dense[hash] is its id (the position of its label in adj).
  constexpr long long kSpread = 4;
  bool ints = index != nullptr;
  long long top = -1;
  while (PyDict_Next(adj.ptr(), &pos, &key, &row)) {
    if (!PyDict_Check(row)) throw py::type_error("an adjacency is not a dict");
    total += PyDict_Size(row);
    if (ints) {
      int overflow = 0;
      const long long v =
          PyLong_CheckExact(key) ? PyLong_AsLongLongAndOverflow(key, &overflow) : -1;
      ints = overflow == 0 && v >= 0 && v <= kSpread * n + 1024;
      top = std::max(top, v);
    }
  }
  std::vector<int32_t> dense;
  if (ints) {
    dense.assign(static_cast<size_t>(top) + 1, -1);
    pos = 0;
    for (int32_t id = 0; PyDict_Next(adj.ptr(), &pos, &key, &row); ++id)
      dense[static_cast<size_t>(PyLong_AsLongLong(key))] = id;
    index = nullptr;
  } else if (index != nullptr && !PyDict_Check(index)) {
    built = index_obj();
    if (!PyDict_Check(built.ptr())) throw py::type_error("index() must return a dict");
    index = built.ptr();
  }
  std::vector<int32_t> cols(static_cast<size_t>(total));
  std::vector<bool> loops;
  int64_t k = 0, kept = 0, num_loops = 0;
  long long i = 0;
  pos = 0;
  while (PyDict_Next(adj.ptr(), &pos, &key, &row)) {
    PyObject *nbr, *data;
    Py_ssize_t rpos = 0;
    Py_hash_t hash;
    while (_PyDict_Next(row, &rpos, &nbr, &data, &hash)) {
      // With labels 0..n-1 a neighbour (a node, so equal to an int i in [0, n)) has
      // hash i, stored in its dict entry: read there, without touching the key object.
      int32_t j;
      if (!dense.empty()) {
        j = hash >= 0 && hash <= top ? dense[static_cast<size_t>(hash)] : -1;
        if (j < 0) throw py::key_error("a neighbour is not a node");
      } else {
        j = index == nullptr && hash >= 0 && hash < n ? static_cast<int32_t>(hash)
                                                      : NeighbourId(nbr, index, n);
      }
      if (j == i) {
        if (loops.empty()) loops.assign(static_cast<size_t>(total), true);
        loops[static_cast<size_t>(k)] = false;
        ++num_loops;
      } else {
        cols[static_cast<size_t>(kept++)] = j;
      }
      ++k;
    }
    indptr[static_cast<size_t>(++i)] = kept;
  }
  cols.resize(static_cast<size_t>(kept));
  py::object loop_free = py::none();
  if (num_loops > 0) {
    py::array_t<bool> mask(static_cast<py::ssize_t>(total));
    bool* out = mask.mutable_data();
    for (int64_t e = 0; e < total; ++e) out[e] = loops[static_cast<size_t>(e)];
    loop_free = mask;
  }
  return py::make_tuple(ToArrayOf(std::move(indptr)), ToArrayOf(std::move(cols)), loop_free,
                        num_loops);
}

// networkx's BFS order: layer d + 1 is the vertices not seen yet met scanning
// layer d in order, each row (u's neighbours in networkx's adjacency order) in
// order, each vertex at its first meeting; its parent is the u it was met from.
// With dist (distances from layer 0) only neighbours at dist[u] + 1 are taken,
// which are the same vertices when dist holds the true distances. Returns (order
// int32[k], parent int32[k]: -1 in layer 0, sizes int64[layers]); layers past
// depth_limit are not built.
py::tuple BfsOrder(
    py::array_t<int64_t, py::array::c_style | py::array::forcecast> indptr,
    py::array_t<int32_t, py::array::c_style | py::array::forcecast> cols,
    std::optional<py::array_t<int32_t, py::array::c_style | py::array::forcecast>> dist,
    py::array_t<int64_t, py::array::c_style | py::array::forcecast> first, int64_t depth_limit) {
  const int64_t n = static_cast<int64_t>(indptr.size()) - 1;
  if (n < 0 || (dist && dist->size() != n)) throw py::value_error("dist must have n entries");
  const int64_t* ip = indptr.data();
  const int32_t* cl = cols.data();
  const int32_t* ds = dist ? dist->data() : nullptr;
  const int64_t* fs = first.data();
  if (ip[0] != 0 || ip[n] != cols.size()) throw py::value_error("indptr does not match cols");
  for (py::ssize_t i = 0; i < first.size(); ++i) {
    if (fs[i] < 0 || fs[i] >= n) throw py::value_error("a first vertex is out of range");
  }
  std::vector<int32_t> order, parent;
  std::vector<int64_t> sizes;
  {
    py::gil_scoped_release release;
    std::vector<char> seen(static_cast<size_t>(n), 0);
    for (py::ssize_t i = 0; i < first.size(); ++i) {  // repeated sources stay, as networkx's
      seen[fs[i]] = 1;
      order.push_back(static_cast<int32_t>(fs[i]));
      parent.push_back(-1);
    }
    sizes.push_back(static_cast<int64_t>(order.size()));
    size_t begin = 0;
    for (int64_t depth = 0; depth < depth_limit; ++depth) {
      const size_t end = order.size();
      for (size_t k = begin; k < end; ++k) {
        const int32_t u = order[k];
        const int32_t next = ds != nullptr ? ds[u] + 1 : 0;
        for (int64_t e = ip[u]; e < ip[u + 1]; ++e) {
          const int32_t v = cl[e];
          if (!seen[v] && (ds == nullptr || ds[v] == next)) {
            seen[v] = 1;
            order.push_back(v);
            parent.push_back(u);
          }
        }
      }
      if (order.size() == end) break;
      sizes.push_back(static_cast<int64_t>(order.size() - end));
      begin = end;
    }
  }
  return py::make_tuple(ToArrayOf(std::move(order)), ToArrayOf(std::move(parent)),
                        ToArrayOf(std::move(sizes)));
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
        d["cluster_alpha"] = kcjax::bfs::BfsPolicy::kClusterAlpha;
        d["back_to_top_down"] = kcjax::bfs::BfsPolicy::kBackToTopDown;
        d["mesh_levels_per_read"] = kcjax::bfs::BfsPolicy::kMeshLevelsPerRead;
        return d;
      },
      "The BfsPolicy constants the multi-device BFS's level loop reads in Python.");
  m.def("bfs_mesh_queue_length", &kcjax::bfs::MeshQueueLength, py::arg("words"), py::arg("entries"),
        "int32 entries of kcjax_bfs_mesh_push's work space for a shard of `words` bitmap "
        "words and `entries` column entries.");
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
  m.def("is_range", &IsRange, py::arg("adj"),
        "Whether the keys of dict `adj` are the ints 0..n-1 in order.");
  m.def("bfs_order", &BfsOrder, py::arg("indptr"), py::arg("cols"), py::arg("dist"),
        py::arg("first"), py::arg("depth_limit"),
        "networkx's BFS discovery order (dist: None, or the distances to follow): (order "
        "int32[k], parent "
        "int32[k] (-1 in layer 0), sizes int64[layers]).");
  m.def("adjacency_csr", &AdjacencyCsr, py::arg("adj"), py::arg("index"),
        "networkx's G._adj as (indptr int64[n + 1], cols int32[e], loop_free bool[...] or "
        "None, self loops): one pass over the dicts, ids = index[label] (index None: the "
        "labels are 0..n-1). Raises TypeError for an adjacency that is not a dict.");
}
