"""Typed wrappers of the clique FFI targets (contracts in ffi/include/kcjax/cliques/).

Each wrapper is jitted with its attributes static: under an outer jit it
inlines; eager calls take JAX's compiled fast path (a bare eager ffi_call
re-traces on every call, which costs more than a small count).
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from kcjax._args import as_int, check_choice
from kcjax._native import call
from kcjax.graph.orient import DAG

#: Enumeration strategies of target ``kcjax_clique_count`` (kcjax::CountMethod).
ENUMERATION_METHODS: Mapping[str, int] = {
    "kcminer": 0,  # dynamic bitmap construction + warp scheduler
    "binary_search": 1,  # sorted-list intersection only (G2Miner-like)
    "static_l1": 2,  # bitmap space over N+(v0), per root vertex
    "static_l2": 3,  # bitmap space over each edge task's candidate set
    "warp": 4,  # warp-parallel bitmap walk (GraphFold-like)
    "thread": 5,  # thread-parallel bitmap, no scheduler (KCGPU-like)
}


def check_enumeration_method(method: str) -> None:
    """Raises ValueError unless ``method`` is one of :data:`ENUMERATION_METHODS`."""
    check_choice(method, "method", ENUMERATION_METHODS)


def count_cliques_limbs(
    dag: DAG,
    kmax: int,
    *,
    method: str = "kcminer",
    lam: float | None = None,
    num_threads: int = 0,
    tasks: jax.Array | None = None,
    max_degree: int | None = None,
) -> jax.Array:
    """Counts s-cliques for s = 3..kmax by enumeration; jit-able.

    Args:
      dag: an oriented graph from :func:`kcjax.orient`.
      kmax: largest clique size (>= 3).
      method: one of :data:`ENUMERATION_METHODS`.
      lam: λ override (``None``: policy table).
      num_threads: CPU worker threads (0: all cores).
      tasks: int32[t] edge ids to start from (-1 entries are skipped);
        ``None``: every edge (no task-id array is built).
      max_degree: the DAG's largest out-degree, if known as a Python int
        (``int(dag.max_out_degree())``; eager counts pass it). A hint for
        the CUDA handler: it sorts the tasks on the key bits the hint needs,
        and counts KCMiner's k = 4 in one kernel on graphs whose candidate
        sets all fit one bitmap word (max_degree <= 32). Any value gives the
        exact count; a value below the true maximum only costs a re-sort.

    Returns:
      uint32[kmax + 1, 4]: row s holds the 128-bit count of s-cliques whose
      two lowest-ranked vertices form a task edge (rows 0..2 are zero).
    """
    kmax = as_int(kmax, "kmax", minimum=3)
    check_enumeration_method(method)
    if max_degree is not None and not 0 <= int(max_degree) < 2**31:
        raise ValueError(f"max_degree must be in [0, 2^31), got {max_degree}")
    return clique_count(
        dag.indptr,
        dag.indices,
        dag.src,
        jnp.zeros((0,), jnp.int32) if tasks is None else jnp.asarray(tasks, jnp.int32),
        kmax=kmax,
        method=ENUMERATION_METHODS[method],
        lam=-1.0 if lam is None else float(lam),
        num_threads=num_threads,
        all_edges=tasks is None,
        max_degree=-1 if max_degree is None else int(max_degree),
    )


def _clique_attrs(kmax: int, method: int, lam: float, num_threads: int) -> dict[str, Any]:
    """The attributes every clique target takes, with the dtypes the handlers bind."""
    return {
        "kmax": np.int32(kmax),
        "method": np.int32(method),
        "lam": np.float32(lam),
        "num_threads": np.int32(num_threads),
    }


@functools.partial(
    jax.jit,
    static_argnames=("kmax", "method", "lam", "num_threads", "all_edges", "max_degree"),
)
def clique_count(
    indptr: jax.Array,
    indices: jax.Array,
    src: jax.Array,
    tasks: jax.Array,
    *,
    kmax: int,
    method: int,
    lam: float,
    num_threads: int,
    all_edges: bool = False,
    max_degree: int = -1,
) -> jax.Array:
    """Calls target ``kcjax_clique_count`` (contract in ffi/include/kcjax/cliques/cliques.h).

    ``all_edges``: every edge is a task and ``tasks`` is int32[0];
    ``max_degree``: the DAG's largest out-degree if known (a routing hint), else -1.

    Returns:
      uint32[kmax + 1, 4]: 128-bit little-endian count of s-cliques per size s.
    """
    return call(
        "kcjax_clique_count",
        jax.ShapeDtypeStruct((kmax + 1, 4), jnp.uint32),
        indptr,
        indices,
        src,
        tasks,
        **_clique_attrs(kmax, method, lam, num_threads),
        all_edges=bool(all_edges),
        max_degree=np.int32(max_degree),
    )


@functools.partial(
    jax.jit,
    static_argnames=("k", "capacity", "method", "lam", "num_threads", "stop_when_full"),
)
def clique_list(
    indptr: jax.Array,
    indices: jax.Array,
    src: jax.Array,
    tasks: jax.Array,
    *,
    k: int,
    capacity: int,
    method: int,
    lam: float,
    num_threads: int,
    stop_when_full: bool,
) -> tuple[jax.Array, jax.Array]:
    """Calls target ``kcjax_clique_list`` (contract in ffi/include/kcjax/cliques/cliques.h).

    Returns:
      (cliques int32[capacity, k] rank ids, rows ascending, -1 past the count;
      count uint32[4] 128-bit number of k-cliques found).
    """
    return call(
        "kcjax_clique_list",
        (
            jax.ShapeDtypeStruct((capacity, k), jnp.int32),
            jax.ShapeDtypeStruct((4,), jnp.uint32),
        ),
        indptr,
        indices,
        src,
        tasks,
        **_clique_attrs(k, method, lam, num_threads),
        stop_when_full=bool(stop_when_full),
    )


@functools.partial(jax.jit, static_argnames=("k", "method", "lam", "num_threads"))
def clique_per_vertex(
    indptr: jax.Array,
    indices: jax.Array,
    src: jax.Array,
    tasks: jax.Array,
    *,
    k: int,
    method: int,
    lam: float,
    num_threads: int,
) -> jax.Array:
    """Calls target ``kcjax_clique_per_vertex``: uint32[n, 4] 128-bit counts per rank."""
    return call(
        "kcjax_clique_per_vertex",
        jax.ShapeDtypeStruct((indptr.shape[0] - 1, 4), jnp.uint32),
        indptr,
        indices,
        src,
        tasks,
        **_clique_attrs(k, method, lam, num_threads),
    )


@functools.partial(jax.jit, static_argnames=("hmax", "pmax", "kmin", "num_threads"))
def clique_pivot(
    indptr: jax.Array,
    indices: jax.Array,
    tasks: jax.Array,
    *,
    hmax: int,
    pmax: int,
    kmin: int,
    num_threads: int,
) -> jax.Array:
    """Calls target ``kcjax_clique_pivot`` (contract in ffi/include/kcjax/cliques/cliques.h).

    Returns:
      uint32[hmax + 1, pmax + 1, 4]: 128-bit little-endian histogram of
      succinct-clique-tree leaves by (held, pivot) vertex counts.
    """
    return call(
        "kcjax_clique_pivot",
        jax.ShapeDtypeStruct((hmax + 1, pmax + 1, 4), jnp.uint32),
        indptr,
        indices,
        tasks,
        hmax=np.int32(hmax),
        kmin=np.int32(kmin),
        num_threads=np.int32(num_threads),
    )


@functools.partial(jax.jit, static_argnames=("k", "num_threads"))
def clique_pivot_local(
    indptr: jax.Array,
    indices: jax.Array,
    tasks: jax.Array,
    *,
    k: int,
    num_threads: int,
) -> jax.Array:
    """Calls target ``kcjax_clique_pivot_local`` (contract in ffi/include/kcjax/cliques/cliques.h).

    Returns:
      uint32[n, 4]: per rank, the 128-bit little-endian number of k-cliques
      containing it among those rooted at a task vertex.
    """
    return call(
        "kcjax_clique_pivot_local",
        jax.ShapeDtypeStruct((indptr.shape[0] - 1, 4), jnp.uint32),
        indptr,
        indices,
        tasks,
        k=np.int32(k),
        num_threads=np.int32(num_threads),
    )


@functools.partial(jax.jit, static_argnames=("capacity", "num_threads"))
def clique_maximal(
    indptr: jax.Array,
    indices: jax.Array,
    rank: jax.Array,
    tasks: jax.Array,
    *,
    capacity: int,
    num_threads: int,
) -> tuple[jax.Array, jax.Array, jax.Array, jax.Array]:
    """Calls target ``kcjax_clique_maximal`` (contract in ffi/include/kcjax/cliques/cliques.h;
    CPU only: its arguments must live on a CPU device).

    Returns:
      (int32[capacity] vertex ids of the cliques one after another,
      int32[capacity] clique sizes, int32[2] (cliques, entries) found,
      int32[n] largest such clique per vertex); ``capacity`` 0 only counts.
    """
    return call(
        "kcjax_clique_maximal",
        (
            jax.ShapeDtypeStruct((capacity,), jnp.int32),
            jax.ShapeDtypeStruct((capacity,), jnp.int32),
            jax.ShapeDtypeStruct((2,), jnp.int32),
            jax.ShapeDtypeStruct((indptr.shape[0] - 1,), jnp.int32),
        ),
        indptr,
        indices,
        rank,
        tasks,
        num_threads=np.int32(num_threads),
    )
