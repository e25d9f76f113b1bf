"""kcjax: exact graph mining on JAX devices through XLA FFI kernels.

Every public name lives here; the subpackages are the rooms they come from:
:mod:`kcjax.graph` (the shared core: files, the canonical graph, orientation,
core numbers, the tasks stage, generators), :mod:`kcjax.cliques` (k-cliques)
and :mod:`kcjax.match` (labeled subgraph matching) and :mod:`kcjax.parallel`
(meshes and processes).
"""

from kcjax._native import built_with_cuda
from kcjax._wide import psum as psum_limbs
from kcjax.cliques.auto import transitivity
from kcjax.cliques.count import METHODS, count_all_cliques, count_cliques, limbs_to_int
from kcjax.cliques.dense import count_cliques_dense
from kcjax.cliques.kernels import ENUMERATION_METHODS, count_cliques_limbs
from kcjax.cliques.listing import ListingOverflowError, clique_number, iter_cliques, list_cliques
from kcjax.cliques.local import clique_counts_per_vertex
from kcjax.cliques.sharded import count_cliques_sharded
from kcjax.graph import generators
from kcjax.graph.graph import CanonReport, Graph
from kcjax.graph.io import GraphFormatError, load, save
from kcjax.graph.labeled import LabeledGraph, load_labeled, save_labeled
from kcjax.graph.orient import DAG, ORDERS, core_numbers, degeneracy, orient
from kcjax.graph.tasks import STRATEGIES, candidate_sizes, split_sizes, split_tasks, task_costs
from kcjax.match.count import (
    count_embeddings,
    count_embeddings_limbs,
    find_embeddings,
    iter_embeddings,
    match_stats,
)
from kcjax.parallel import initialize_from_env_or_args

__version__ = "0.1.0"

__all__ = [
    "save_labeled",
    "match_stats",
    "load_labeled",
    "iter_embeddings",
    "find_embeddings",
    "count_embeddings_limbs",
    "count_embeddings",
    "LabeledGraph",
    "DAG",
    "ENUMERATION_METHODS",
    "METHODS",
    "ORDERS",
    "STRATEGIES",
    "CanonReport",
    "Graph",
    "GraphFormatError",
    "ListingOverflowError",
    "built_with_cuda",
    "candidate_sizes",
    "clique_counts_per_vertex",
    "clique_number",
    "core_numbers",
    "count_all_cliques",
    "count_cliques",
    "count_cliques_dense",
    "count_cliques_limbs",
    "count_cliques_sharded",
    "degeneracy",
    "generators",
    "initialize_from_env_or_args",
    "iter_cliques",
    "limbs_to_int",
    "list_cliques",
    "load",
    "orient",
    "psum_limbs",
    "save",
    "split_sizes",
    "split_tasks",
    "task_costs",
    "transitivity",
]
