"""Per-vertex k-clique counts (local clique counts)."""

from __future__ import annotations

import math

import jax
import jax.numpy as jnp
import numpy as np

from kcjax import _wide
from kcjax._args import as_int, check_choice
from kcjax.cliques import kernels, sharded
from kcjax.cliques.auto import auto_local_method
from kcjax.cliques.count import pivot_counts
from kcjax.cliques.kernels import ENUMERATION_METHODS
from kcjax.graph.orient import DAG, GraphLike, Order, as_dag, max_out_degree


def clique_counts_per_vertex(
    graph: GraphLike,
    k: int,
    *,
    method: str = "auto",
    order: Order = "degree",
    num_threads: int = 0,
    exact: bool = False,
    mesh: jax.sharding.Mesh | None = None,
    axis_name: str | None = None,
) -> np.ndarray:
    """How many k-cliques contain each vertex (local clique counts).

    ``method="pivot"`` walks the succinct clique tree of the pivoting counter
    and shares out each node's k-cliques among its vertices (binomial
    coefficients of its held and pivot vertices), so no clique is visited one
    by one; the enumeration methods visit every k-clique. ``"auto"`` pivots
    where :func:`kcjax.clique_cost_estimate` finds enough enumeration work
    (see :func:`kcjax.cliques.auto.auto_local_method`), and enumerates with
    KCMiner otherwise; sizes above the largest out-degree + 1 are zeros
    without a search. Every method returns the same counts (128-bit on the device,
    CPU and CUDA alike).

    Args:
      graph: a :class:`Graph` or an oriented :class:`DAG`.
      k: clique size, >= 1.
      method: ``"auto"``, ``"pivot"``, or one of ``ENUMERATION_METHODS``.
      order: orientation of a Graph.
      num_threads: CPU worker threads (0: all cores).
      exact: return Python ints (object dtype), exact past 2^64.
      mesh: count on the devices of this mesh (one axis): root vertices
        (pivot) or edge tasks (enumeration) dealt across the devices, the
        per-vertex totals summed exactly; the first
        :func:`kcjax.cliques.sharded.mesh_devices` devices of the axis run.
      axis_name: the mesh axis (default: the mesh's only axis).

    Returns:
      uint64[n] (object[n] of Python ints with ``exact=True``) indexed by
      original vertex id; sums to k times the number of k-cliques.

    Raises:
      OverflowError: if a vertex lies in 2^64 or more k-cliques and ``exact``
        is False, or if k times the number of k-cliques reaches 2^128 (the
        per-vertex totals are 128-bit; checked before any is computed).
    """
    dag = as_dag(graph, order)
    k = as_int(k, "clique size k", minimum=1)
    check_choice(method, "method", ("auto", "pivot", *ENUMERATION_METHODS))
    n = dag.num_nodes
    if k <= 2:
        if k == 1:
            small = np.ones(n, np.uint64)
        else:
            src, dst = np.asarray(dag.src), np.asarray(dag.indices)
            small = np.bincount(np.concatenate([src, dst]), minlength=n).astype(np.uint64)
        limbs = np.zeros((n, _wide.LIMBS), np.uint64)
        limbs[:, 0] = small & np.uint64(0xFFFFFFFF)
        limbs[:, 1] = small >> np.uint64(32)
    elif k > max_out_degree(dag) + 1:  # no k-clique: its first vertex needs k - 1 out-neighbours
        limbs = np.zeros((n, _wide.LIMBS), np.uint64)
    else:
        if method == "auto":
            method = auto_local_method(dag, k)
        if method == "pivot":
            _check_local_magnitude(dag, k, num_threads)
        if mesh is not None:
            active = sharded.active_mesh(
                dag, k, mesh, method=method, axis_name=axis_name, per_vertex=True
            )
            limbs = sharded.host_limbs(
                sharded.per_vertex_sharded(
                    dag, k, active, method=method, axis_name=axis_name, num_threads=num_threads
                )
            )
        elif method == "pivot":
            limbs = kernels.clique_pivot_local(
                dag.indptr,
                dag.indices,
                jnp.arange(n, dtype=jnp.int32),
                k=k,
                num_threads=num_threads,
            )
        else:
            limbs = kernels.clique_per_vertex(
                dag.indptr,
                dag.indices,
                dag.src,
                jnp.arange(dag.num_edges, dtype=jnp.int32),
                k=k,
                method=ENUMERATION_METHODS[method],
                lam=-1.0,
                num_threads=num_threads,
            )
    per_rank = _wide.rows_to_ints(
        np.asarray(limbs), exact=exact, what=f"some vertex's {k}-clique count"
    )
    out = np.zeros(n, per_rank.dtype)
    out[np.asarray(dag.order)] = per_rank
    return out


def _check_local_magnitude(dag: DAG, k: int, num_threads: int) -> None:
    """Raises OverflowError unless k * count_k < 2^128 (the per-vertex totals
    of the pivot counter are 128-bit). Every k-clique has one lowest-ranked
    vertex v and the rest among its d+(v) out-neighbours, so sum_v C(d+(v),
    k - 1) bounds count_k; only when that bound is too large is count_k
    itself computed (by the histogram counter)."""
    degrees, freq = np.unique(np.asarray(dag.out_degrees()), return_counts=True)
    bound = sum(int(f) * math.comb(int(d), k - 1) for d, f in zip(degrees, freq, strict=True))
    if k * bound < 1 << 128:
        return
    if k * pivot_counts(dag, [k], num_threads)[k] >= 1 << 128:
        raise OverflowError(
            f"k times the number of {k}-cliques reaches 2^128: per-vertex counts are 128-bit"
        )
