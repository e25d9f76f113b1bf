"""What ``method="auto"`` stands for, and the graph facts it reads.

The rules were fitted to one H200 and the shared graphs (docs/tuning.md gives
the measurements); every fact they read is memoized per DAG, so repeated
calls on one DAG pay for it once.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from kcjax import _wide
from kcjax.cliques.kernels import count_cliques_limbs
from kcjax.graph.orient import DAG, GraphLike, Order, as_dag, dag_core_numbers, is_traced, memo

#: ``count_cliques(method="auto")`` on a GPU pivots from AUTO_PIVOT_MIN_K on
#: for graphs whose transitivity is at least AUTO_PIVOT_MIN_TRANSITIVITY and
#: whose densest core is one clique (the cliques then multiply with k), and
#: for every graph from AUTO_PIVOT_ALWAYS_K on.
AUTO_PIVOT_MIN_K = 6
AUTO_PIVOT_MIN_TRANSITIVITY = 0.3
AUTO_PIVOT_ALWAYS_K = 10
#: ``clique_counts_per_vertex(method="auto")`` pivots from
#: AUTO_LOCAL_PIVOT_ALWAYS_K on, and at k = 5 and 6 on graphs whose
#: transitivity is at least the value here (per-vertex enumeration pays one
#: atomic per clique member, so pivoting wins earlier than for counts).
AUTO_LOCAL_PIVOT_MIN_TRANSITIVITY = {5: 0.3, 6: 0.1}
AUTO_LOCAL_PIVOT_ALWAYS_K = 7


def transitivity(graph: GraphLike, *, order: Order = "degree") -> float:
    """Global clustering coefficient: 3 x triangles / wedges (paths of length 2).

    Eager only. The value is cached per DAG (by its ``indices`` array), so
    repeated ``method="auto"`` counts on one DAG pay for the triangle count once.

    Args:
      graph: a :class:`Graph` or an oriented :class:`DAG`.
      order: orientation of a Graph.

    Returns:
      A float in [0, 1] (0 for a graph without wedges).
    """
    dag = as_dag(graph, order)
    if is_traced(dag):
        raise ValueError("transitivity runs eagerly only")
    return memo(dag, "transitivity", lambda: _transitivity(dag))


def _transitivity(dag: DAG) -> float:
    triangles = _wide.to_int(np.asarray(count_cliques_limbs(dag, 3))[3]) if dag.num_edges else 0
    out_deg = np.asarray(dag.out_degrees(), dtype=np.int64)
    in_deg = np.bincount(np.asarray(dag.indices), minlength=dag.num_nodes)[: dag.num_nodes]
    deg = out_deg + in_deg
    wedges = int((deg * (deg - 1) // 2).sum())
    return 3 * triangles / wedges if wedges else 0.0


def densest_core(dag: DAG) -> tuple[int, int, int]:
    """(degeneracy, vertices of the largest core number, edges among them).

    Eager; memoized per DAG. The core numbers come from peeling the DAG's
    undirected graph on its device.
    """

    def compute() -> tuple[int, int, int]:
        return tuple(int(x) for x in _densest_core(dag, dag_core_numbers(dag)))

    return memo(dag, "densest_core", compute)


@jax.jit
def _densest_core(dag: DAG, cores: jax.Array) -> tuple[jax.Array, jax.Array, jax.Array]:
    top = jnp.max(cores, initial=0)
    inside = cores == top
    edges = jnp.sum(inside[dag.src] & inside[dag.indices], dtype=jnp.int32)
    return top, jnp.sum(inside, dtype=jnp.int32), edges


def max_core_is_clique(dag: DAG) -> bool:
    """Whether the vertices of the largest core number form one clique (eager)."""
    _, size, edges = densest_core(dag)
    return edges == size * (size - 1) // 2


def auto_method(dag: DAG, kmax: int, *, enumeration_only: bool = False) -> str:
    """The method ``count_cliques(method="auto")`` stands for.

    Args:
      dag: the oriented graph to count on.
      kmax: the largest clique size asked for.
      enumeration_only: the caller cannot pivot (under jit, over a mesh).

    Returns:
      ``"kcminer"`` or ``"pivot"``: KCMiner wherever only enumeration runs;
      else pivoting on the CPU (it won at every k measured there) and, on a
      GPU, by :func:`auto_gpu_method`.
    """
    if enumeration_only:
        return "kcminer"
    if next(iter(dag.indices.devices())).platform == "cpu":
        return "pivot"
    return auto_gpu_method(dag, kmax)


def auto_gpu_method(dag: DAG, kmax: int) -> str:
    """The method eager ``"auto"`` picks on a GPU (see AUTO_PIVOT_MIN_K)."""
    if kmax >= AUTO_PIVOT_ALWAYS_K:
        return "pivot"
    if kmax < AUTO_PIVOT_MIN_K or transitivity(dag) < AUTO_PIVOT_MIN_TRANSITIVITY:
        return "kcminer"
    return "pivot" if max_core_is_clique(dag) else "kcminer"


def auto_local_method(dag: DAG, k: int) -> str:
    """The method ``clique_counts_per_vertex(method="auto")`` stands for."""
    if k >= AUTO_LOCAL_PIVOT_ALWAYS_K:
        return "pivot"
    threshold = AUTO_LOCAL_PIVOT_MIN_TRANSITIVITY.get(k)
    if threshold is None or transitivity(dag) < threshold:
        return "kcminer"
    return "pivot"
