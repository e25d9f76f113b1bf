"""kcjax: exact k-clique counting on JAX devices through XLA FFI kernels."""

from kcjax.cliques import (
    ENUMERATION_METHODS,
    METHODS,
    count_all_cliques,
    count_cliques,
    count_cliques_limbs,
    limbs_to_int,
    transitivity,
)
from kcjax.graph import CanonReport, Graph
from kcjax.io import GraphFormatError, load, save
from kcjax.listing import (
    ListingOverflowError,
    clique_counts_per_vertex,
    clique_number,
    iter_cliques,
    list_cliques,
)
from kcjax.orient import DAG, ORDERS, core_numbers, degeneracy, orient

__version__ = "0.1.0"

__all__ = [
    "CanonReport",
    "DAG",
    "ENUMERATION_METHODS",
    "Graph",
    "GraphFormatError",
    "METHODS",
    "ORDERS",
    "core_numbers",
    "count_all_cliques",
    "count_cliques",
    "count_cliques_limbs",
    "degeneracy",
    "ListingOverflowError",
    "clique_counts_per_vertex",
    "clique_number",
    "iter_cliques",
    "limbs_to_int",
    "list_cliques",
    "load",
    "orient",
    "save",
    "transitivity",
]
