"""The measurement interface: what benchmarks and tests use beyond the public API.

**Not stable API.** These names may change or go in any release, without
notice in the CHANGELOG's "changed" list. They exist so that ``experiments/``
(benchmarks, simulators, device suites) and ``tests/`` can time a stage,
call a kernel with options the public functions choose for you, or check
a policy's choice, without importing kcjax's private modules: a refactor
of a family then changes the table below, not every script that measures it.

Everything else ``experiments/`` and ``tests/`` use comes from the public
API: the names of :mod:`kcjax` (``kcjax.__all__``), :mod:`kcjax.generators`,
:mod:`kcjax.parallel`, :mod:`kcjax.nx` (the networkx backend's entry points)
and :mod:`kcjax.cli` (the command line, ``main(argv)``).
``tests/test_imports.py`` fails on any other import of kcjax's code from
those folders. A name that a new benchmark needs goes in ``_EXPORTS`` below,
under a name that says its family when that is not plain from the name.

A white-box test that replaces a private name for the length of a test
names it as a string, ``monkeypatch.setattr("kcjax.cliques.chunked.CHUNK_S",
0.0)``: that pins one name of one module, where a grep finds it.

Groups:

- k-cliques: the ``method="auto"`` rule (``auto_*``, ``AUTO_*``,
  ``AutoFeatures``, ``work_bounds``; ``auto_count_pick`` and
  ``auto_local_pick`` decide from recorded facts), one chunk of an eager
  count (``enumeration_chunk``, ``pivot_chunk``, ``chunk_start``), the long-count estimate
  (``count_seconds``, ``LONG_COUNT_S``), the raw FFI calls (``clique_*``),
  the mesh deals and policy (``mesh_devices``, ``edge_rows``, ``root_rows``,
  ``heavy_split``, ``pivot_root_costs``, ``pivot_histogram_sharded``,
  ``split_roots``, :func:`every_mesh_device`).
- the graph core: ``read_edge_list`` (the native reader, no canonicalization),
  ``max_out_degree``, ``out_degree_moments``, ``dag_core_numbers``.
- 128-bit counts: ``limbs_add``, ``limbs_add_small``, ``limbs_mul``, ``limbs_rows_to_ints``.
- BFS: ``bfs_native`` (the FFI call with every option), ``BFS_NATIVE_METHODS``,
  ``BFS_DIRECTIONS`` and ``BFS_BATCHES`` (name -> the handler's code),
  ``BFS_GRID_BITMAP_MIN_VERTICES``; over a mesh: ``bfs_mesh`` (the traversal, with
  ``one_device="steps"`` to force the level steps on one device), the level steps'
  FFI calls (``bfs_mesh_push``, ``bfs_mesh_pull``), the partition's shard size
  (``mesh_chunk_size``) and the mesh generator's hash stream (``kronecker_edges``,
  ``kronecker_permute_ids``: the numpy twin is the host reference).
- k-truss: the edge index (``truss_edge_index``, ``truss_build_edge_index``,
  ``truss_edge_list``), the store's size (``truss_store_entries``,
  ``truss_degree_bound_parts``), the raw target (``truss_call`` with
  ``truss_no_core``, ``truss_k_argument``, ``TRUSS_MODE_HINDEX``,
  ``TRUSS_SUPPORT_METHODS``).
- matching: the plan (``prepare_match``, ``match_query_spec``,
  ``MATCH_POLICY``, ``MatchSwitches``), the query's automorphisms
  (``match_symmetry``), the stages of one count
  (``match_query``, ``match_graph_prep``, ``match_packed_query``,
  ``match_flags``, ``match_components``, ``match_first_pass``,
  ``match_count_program``, ``match_count_compacted``, ``match_pow2``), the
  filter (``match_filter_rounds``, ``match_reference_rounds``,
  ``match_filter_round``, ``match_slots``, ``match_unpack``,
  ``match_to_mask``, ``match_from_mask``), the raw count
  (``match_count_kernel``) and the mesh deal (``match_deal_roots``).
- maximal cliques: ``clique_maximal`` (the raw target).
- networkx backend: ``KcjaxGraph`` (the backend's graph class), the
  conversion's two paths (``nx_adjacency_csr``, ``nx_adjacency_csr_native``,
  ``nx_identity_labels``).
- files and the command line: ``partial_file`` (a whole output or none),
  ``parse_k_values`` (how ``-k`` reads ``3`` or ``3-6``).

The names resolve on first use, like :mod:`kcjax`'s.
"""

from __future__ import annotations

import contextlib
import importlib
from collections.abc import Iterator
from typing import Any

# Name -> (module, attribute in it).
_EXPORTS: dict[str, tuple[str, str]] = {
    # k-cliques: the auto rule
    "AUTO_MAX_SIZE": ("kcjax.cliques.auto", "AUTO_MAX_SIZE"),
    "AUTO_PIVOT_MAX_BRANCHING": ("kcjax.cliques.auto", "AUTO_PIVOT_MAX_BRANCHING"),
    "AUTO_SAFE_WORK": ("kcjax.cliques.auto", "AUTO_SAFE_WORK"),
    "auto_features": ("kcjax.cliques.auto", "auto_features"),
    "auto_gpu_method": ("kcjax.cliques.auto", "auto_gpu_method"),
    "auto_local_method": ("kcjax.cliques.auto", "auto_local_method"),
    "auto_method": ("kcjax.cliques.auto", "auto_method"),
    "AutoFeatures": ("kcjax.cliques.auto", "AutoFeatures"),
    "auto_count_pick": ("kcjax.cliques.auto", "count_pick"),
    "auto_local_pick": ("kcjax.cliques.auto", "local_pick"),
    "work_bounds": ("kcjax.cliques.auto", "work_bounds"),
    # k-cliques: eager counts in chunks
    "enumeration_chunk": ("kcjax.cliques.count", "enumeration_chunk"),
    "pivot_chunk": ("kcjax.cliques.count", "pivot_chunk"),
    "chunk_start": ("kcjax._chunks", "chunk_start"),
    "count_seconds": ("kcjax.cliques.chunked", "count_seconds"),
    "LONG_COUNT_S": ("kcjax.cliques.chunked", "LONG_COUNT_S"),
    # k-cliques: the FFI calls
    "clique_count": ("kcjax.cliques.kernels", "clique_count"),
    "clique_per_vertex": ("kcjax.cliques.kernels", "clique_per_vertex"),
    "clique_pivot": ("kcjax.cliques.kernels", "clique_pivot"),
    "clique_pivot_local": ("kcjax.cliques.kernels", "clique_pivot_local"),
    "clique_maximal": ("kcjax.cliques.kernels", "clique_maximal"),
    # k-cliques: meshes
    "MESH_MIN_PIVOT_COST_PER_DEVICE": ("kcjax.cliques.sharded", "MESH_MIN_PIVOT_COST_PER_DEVICE"),
    "MESH_MIN_WORK_PER_DEVICE": ("kcjax.cliques.sharded", "MESH_MIN_WORK_PER_DEVICE"),
    "MESH_PIVOT_ROOT_SHARE_MARGIN": ("kcjax.cliques.sharded", "MESH_PIVOT_ROOT_SHARE_MARGIN"),
    "edge_rows": ("kcjax.cliques.sharded", "edge_rows"),
    "heavy_split": ("kcjax.cliques.sharded", "heavy_split"),
    "mesh_devices": ("kcjax.cliques.sharded", "mesh_devices"),
    "pivot_histogram_sharded": ("kcjax.cliques.sharded", "pivot_histogram_sharded"),
    "pivot_root_costs": ("kcjax.cliques.sharded", "pivot_root_costs"),
    "root_rows": ("kcjax.cliques.sharded", "root_rows"),
    "split_roots": ("kcjax.graph.tasks", "split_roots"),
    # the graph core
    "read_edge_list": ("kcjax.graph.io", "read_edge_list"),
    "dag_core_numbers": ("kcjax.graph.orient", "dag_core_numbers"),
    "max_out_degree": ("kcjax.graph.orient", "max_out_degree"),
    "out_degree_moments": ("kcjax.graph.orient", "out_degree_moments"),
    # 128-bit counts
    "limbs_add": ("kcjax._wide", "add"),
    "limbs_add_small": ("kcjax._wide", "add_small"),
    "limbs_mul": ("kcjax._wide", "mul"),
    "limbs_rows_to_ints": ("kcjax._wide", "rows_to_ints"),
    # BFS
    "bfs_native": ("kcjax.traversal.kernels", "bfs_native"),
    "BFS_BATCHES": ("kcjax.traversal.kernels", "BATCHES"),
    "BFS_DIRECTIONS": ("kcjax.traversal.kernels", "DIRECTIONS"),
    "BFS_GRID_BITMAP_MIN_VERTICES": ("kcjax.traversal.kernels", "GRID_BITMAP_MIN_VERTICES"),
    "BFS_NATIVE_METHODS": ("kcjax.traversal.kernels", "NATIVE_METHODS"),
    "bfs_mesh": ("kcjax.traversal.mesh", "bfs_mesh"),
    "bfs_mesh_push": ("kcjax.traversal.kernels", "mesh_push"),
    "bfs_mesh_pull": ("kcjax.traversal.kernels", "mesh_pull"),
    "mesh_chunk_size": ("kcjax.graph.sharded", "chunk_size"),
    "kronecker_edges": ("kcjax.graph.sharded", "kronecker_edges"),
    "kronecker_permute_ids": ("kcjax.graph.sharded", "permute_ids"),
    # k-truss
    "TRUSS_MODE_HINDEX": ("kcjax.truss.kernels", "MODE_HINDEX"),
    "TRUSS_SUPPORT_METHODS": ("kcjax.truss.kernels", "SUPPORT_METHODS"),
    "truss_build_edge_index": ("kcjax.truss.kernels", "build_edge_index"),
    "truss_call": ("kcjax.truss.kernels", "truss_call"),
    "truss_degree_bound_parts": ("kcjax.truss.kernels", "degree_bound_parts"),
    "truss_edge_index": ("kcjax.truss.kernels", "edge_index"),
    "truss_edge_list": ("kcjax.truss.kernels", "edge_list"),
    "truss_k_argument": ("kcjax.truss.kernels", "k_argument"),
    "truss_no_core": ("kcjax.truss.kernels", "no_core"),
    "truss_store_entries": ("kcjax.truss.kernels", "store_entries"),
    # matching: the plan and the stages of one count
    "MATCH_POLICY": ("kcjax.match.plan", "POLICY"),
    "MatchSwitches": ("kcjax.match.plan", "Switches"),
    "prepare_match": ("kcjax.match.inputs", "prepare_match"),
    "match_query_spec": ("kcjax.match.query", "query_spec"),
    "match_symmetry": ("kcjax.match.symmetry", "symmetry"),
    "match_query": ("kcjax.match.inputs", "query_of"),
    "match_graph_prep": ("kcjax.match.inputs", "graph_prep"),
    "match_packed_query": ("kcjax.match.inputs", "packed"),
    "match_flags": ("kcjax.match.inputs", "flags"),
    "match_components": ("kcjax.match.inputs", "components"),
    "match_first_pass": ("kcjax.match.plan", "first_pass"),
    "match_count_program": ("kcjax.match.inputs", "count_program"),
    "match_count_compacted": ("kcjax.match.count", "_count_compacted"),
    "match_pow2": ("kcjax.match.count", "_pow2"),
    # matching: the filter, the raw count, the mesh deal
    "match_filter_rounds": ("kcjax.match.filter", "filter_rounds"),
    "match_reference_rounds": ("kcjax.match.filter", "reference_rounds"),
    "match_filter_round": ("kcjax.match.plan", "_filter_round"),
    "match_slots": ("kcjax.match.plan", "_slots"),
    "match_unpack": ("kcjax.match.query", "unpack"),
    "match_to_mask": ("kcjax.match.filter", "to_mask"),
    "match_from_mask": ("kcjax.match.filter", "from_mask"),
    "match_count_kernel": ("kcjax.match.kernels", "match_count"),
    "match_deal_roots": ("kcjax.match.sharded", "deal_roots"),
    # the networkx backend
    "KcjaxGraph": ("kcjax.nx.convert", "KcjaxGraph"),
    "nx_adjacency_csr": ("kcjax.nx.convert", "_adjacency_csr"),
    "nx_adjacency_csr_native": ("kcjax._native", "adjacency_csr"),
    "nx_identity_labels": ("kcjax.nx.convert", "_identity_labels"),
    # files and the command line
    "partial_file": ("kcjax._interrupts", "partial_file"),
    "parse_k_values": ("kcjax.cliques.command", "_k_values"),
}

__all__ = sorted([*_EXPORTS, "every_mesh_device"])


def __getattr__(name: str) -> Any:
    if name not in _EXPORTS:
        raise AttributeError(f"module 'kcjax.experimental' has no attribute {name!r}")
    from kcjax._compile_cache import enable_default

    enable_default()
    module, attribute = _EXPORTS[name]
    # Not cached here: a test that patches the private name sees its patch.
    return getattr(importlib.import_module(module), attribute)


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))


@contextlib.contextmanager
def every_mesh_device() -> Iterator[None]:
    """Within it, an eager k-clique call over a mesh runs on every device of
    the mesh, whatever its estimated work (the per-device minimums
    ``MESH_MIN_WORK_PER_DEVICE`` and ``MESH_MIN_PIVOT_COST_PER_DEVICE`` and
    the heaviest root's margin ``MESH_PIVOT_ROOT_SHARE_MARGIN`` are 0): for
    scaling curves. Not thread-safe; the policy comes back on exit."""
    from kcjax.cliques import sharded

    names = (
        "MESH_MIN_WORK_PER_DEVICE",
        "MESH_MIN_PIVOT_COST_PER_DEVICE",
        "MESH_PIVOT_ROOT_SHARE_MARGIN",
    )
    saved = {name: getattr(sharded, name) for name in names}
    for name in names:
        setattr(sharded, name, 0.0)
    try:
        yield
    finally:
        for name, value in saved.items():
            setattr(sharded, name, value)
