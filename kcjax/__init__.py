"""kcjax: exact graph mining on JAX devices through XLA FFI kernels.

Every public name lives here; the subpackages are the rooms they come from:
:mod:`kcjax.graph` (the shared core: files, the canonical graph, orientation,
core numbers, the tasks stage, generators), :mod:`kcjax.cliques` (k-cliques),
:mod:`kcjax.traversal` (breadth-first search), :mod:`kcjax.truss` (k-truss),
:mod:`kcjax.match` (labeled subgraph matching) and :mod:`kcjax.parallel`
(meshes and processes).

The names are imported on first use, so ``import kcjax`` (and the ``kcjax``
command's start, which must already stop cleanly on Ctrl-C) does not wait
for jax to load.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

__version__ = "0.4.0"

# Public name -> (module, attribute in it); attribute None: the module itself.
_EXPORTS: dict[str, tuple[str, str | None]] = {
    "BFS_METHODS": ("kcjax.traversal.bfs", "METHODS"),
    "BFSGraph": ("kcjax.traversal.bfs", "BFSGraph"),
    "BFSResult": ("kcjax.traversal.bfs", "BFSResult"),
    "BFSValidationError": ("kcjax.traversal.validate", "BFSValidationError"),
    "DAG": ("kcjax.graph.orient", "DAG"),
    "ENUMERATION_METHODS": ("kcjax.cliques.kernels", "ENUMERATION_METHODS"),
    "CLIQUE_METHODS": ("kcjax.cliques.count", "METHODS"),
    "ORDERS": ("kcjax.graph.orient", "ORDERS"),
    "STRATEGIES": ("kcjax.graph.tasks", "STRATEGIES"),
    "TRUSS_METHODS": ("kcjax.truss.truss", "METHODS"),
    "MATCH_METHODS": ("kcjax.match.inputs", "METHODS"),
    "MATCH_ORDERS": ("kcjax.match.inputs", "ORDERS"),
    "CanonReport": ("kcjax.graph.graph", "CanonReport"),
    "CliqueCostEstimate": ("kcjax.cliques.auto", "CliqueCostEstimate"),
    "Graph": ("kcjax.graph.graph", "Graph"),
    "ShardedGraph": ("kcjax.graph.sharded", "ShardedGraph"),
    "shard_graph": ("kcjax.graph.sharded", "shard_graph"),
    "GraphFormatError": ("kcjax.graph.io", "GraphFormatError"),
    "ListingOverflowError": ("kcjax.errors", "ListingOverflowError"),
    "bfs": ("kcjax.traversal.bfs", "bfs"),
    "bfs_sharded": ("kcjax.traversal.sharded", "bfs_sharded"),
    "built_with_cuda": ("kcjax._native", "built_with_cuda"),
    "LabeledGraph": ("kcjax.graph.labeled", "LabeledGraph"),
    "count_embeddings": ("kcjax.match.count", "count_embeddings"),
    "count_embeddings_limbs": ("kcjax.match.count", "count_embeddings_limbs"),
    "find_embeddings": ("kcjax.match.count", "find_embeddings"),
    "iter_embeddings": ("kcjax.match.count", "iter_embeddings"),
    "load_labeled": ("kcjax.graph.labeled", "load_labeled"),
    "match_stats": ("kcjax.match.count", "match_stats"),
    "save_labeled": ("kcjax.graph.labeled", "save_labeled"),
    "candidate_sizes": ("kcjax.graph.tasks", "candidate_sizes"),
    "clear_memo": ("kcjax.graph.orient", "clear_memo"),
    "clique_cost_estimate": ("kcjax.cliques.auto", "clique_cost_estimate"),
    "clear_compilation_cache": ("kcjax._compile_cache", "clear_compilation_cache"),
    "clique_counts_per_vertex": ("kcjax.cliques.local", "clique_counts_per_vertex"),
    "compilation_cache_dir": ("kcjax._compile_cache", "compilation_cache_dir"),
    "configure_compilation_cache": ("kcjax._compile_cache", "configure_compilation_cache"),
    "clique_number": ("kcjax.cliques.listing", "clique_number"),
    "core_numbers": ("kcjax.graph.orient", "core_numbers"),
    "count_all_cliques": ("kcjax.cliques.count", "count_all_cliques"),
    "count_cliques": ("kcjax.cliques.count", "count_cliques"),
    "count_cliques_dense": ("kcjax.cliques.dense", "count_cliques_dense"),
    "count_cliques_limbs": ("kcjax.cliques.kernels", "count_cliques_limbs"),
    "count_cliques_sharded": ("kcjax.cliques.sharded", "count_cliques_sharded"),
    "degeneracy": ("kcjax.graph.orient", "degeneracy"),
    "edge_support": ("kcjax.truss.truss", "edge_support"),
    "generators": ("kcjax.graph.generators", None),
    "initialize_from_env_or_args": ("kcjax.parallel", "initialize_from_env_or_args"),
    "iter_cliques": ("kcjax.cliques.listing", "iter_cliques"),
    "iter_maximal_cliques": ("kcjax.cliques.maximal", "iter_maximal_cliques"),
    "k_truss": ("kcjax.truss.truss", "k_truss"),
    "k_truss_mask": ("kcjax.truss.truss", "k_truss_mask"),
    "limbs_to_int": ("kcjax.cliques.count", "limbs_to_int"),
    "list_cliques": ("kcjax.cliques.listing", "list_cliques"),
    "load": ("kcjax.graph.io", "load"),
    "node_clique_numbers": ("kcjax.cliques.maximal", "node_clique_numbers"),
    "max_truss": ("kcjax.truss.truss", "max_truss"),
    "orient": ("kcjax.graph.orient", "orient"),
    "prepare_bfs": ("kcjax.traversal.bfs", "prepare_bfs"),
    "psum_limbs": ("kcjax._wide", "psum"),
    "save": ("kcjax.graph.io", "save"),
    "split_sizes": ("kcjax.graph.tasks", "split_sizes"),
    "split_tasks": ("kcjax.graph.tasks", "split_tasks"),
    "task_costs": ("kcjax.graph.tasks", "task_costs"),
    "transitivity": ("kcjax.cliques.auto", "transitivity"),
    "traversed_edges": ("kcjax.traversal.bfs", "traversed_edges"),
    "truss_numbers": ("kcjax.truss.truss", "truss_numbers"),
    "truss_store_size": ("kcjax.truss.truss", "truss_store_size"),
    "TrussGraph": ("kcjax.truss.truss", "TrussGraph"),
    "prepare_truss": ("kcjax.truss.truss", "prepare_truss"),
    "validate_bfs_tree": ("kcjax.traversal.validate", "validate_bfs_tree"),
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    if name in _EXPORTS:
        from kcjax._compile_cache import enable_default

        enable_default()
        module, attribute = _EXPORTS[name]
        value = importlib.import_module(module)
        if attribute is not None:
            value = getattr(value, attribute)
    elif name in _SUBPACKAGES:
        value = importlib.import_module(f"{__name__}.{name}")
    else:
        raise AttributeError(f"module 'kcjax' has no attribute {name!r}")
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__) | _SUBPACKAGES)


_SUBPACKAGES = {
    "cli",
    "cliques",
    "experimental",
    "graph",
    "match",
    "parallel",
    "traversal",
    "truss",
}

if TYPE_CHECKING:  # the same names, for type checkers and editors
    from kcjax._compile_cache import (
        clear_compilation_cache,
        compilation_cache_dir,
        configure_compilation_cache,
    )
    from kcjax._native import built_with_cuda
    from kcjax._wide import psum as psum_limbs
    from kcjax.cliques.auto import CliqueCostEstimate, clique_cost_estimate, transitivity
    from kcjax.cliques.count import METHODS as CLIQUE_METHODS
    from kcjax.cliques.count import count_all_cliques, count_cliques, limbs_to_int
    from kcjax.cliques.dense import count_cliques_dense
    from kcjax.cliques.kernels import ENUMERATION_METHODS, count_cliques_limbs
    from kcjax.cliques.listing import clique_number, iter_cliques, list_cliques
    from kcjax.cliques.local import clique_counts_per_vertex
    from kcjax.cliques.maximal import iter_maximal_cliques, node_clique_numbers
    from kcjax.cliques.sharded import count_cliques_sharded
    from kcjax.errors import ListingOverflowError
    from kcjax.graph import generators
    from kcjax.graph.graph import CanonReport, Graph
    from kcjax.graph.io import GraphFormatError, load, save
    from kcjax.graph.labeled import LabeledGraph, load_labeled, save_labeled
    from kcjax.graph.orient import DAG, ORDERS, clear_memo, core_numbers, degeneracy, orient
    from kcjax.graph.sharded import ShardedGraph, shard_graph
    from kcjax.graph.tasks import STRATEGIES, candidate_sizes, split_sizes, split_tasks, task_costs
    from kcjax.match.count import (
        count_embeddings,
        count_embeddings_limbs,
        find_embeddings,
        iter_embeddings,
        match_stats,
    )
    from kcjax.match.inputs import METHODS as MATCH_METHODS
    from kcjax.match.inputs import ORDERS as MATCH_ORDERS
    from kcjax.parallel import initialize_from_env_or_args
    from kcjax.traversal.bfs import METHODS as BFS_METHODS
    from kcjax.traversal.bfs import BFSGraph, BFSResult, bfs, prepare_bfs, traversed_edges
    from kcjax.traversal.sharded import bfs_sharded
    from kcjax.traversal.validate import BFSValidationError, validate_bfs_tree
    from kcjax.truss.truss import METHODS as TRUSS_METHODS
    from kcjax.truss.truss import (
        TrussGraph,
        edge_support,
        k_truss,
        k_truss_mask,
        max_truss,
        prepare_truss,
        truss_numbers,
        truss_store_size,
    )
