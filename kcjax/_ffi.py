"""Registers the native FFI targets and wraps them in thin ffi_call functions.

The only module that touches the compiled extension's handlers. Every target
is registered for the CPU and, when the extension was built with CUDA and
jax has a CUDA backend, for CUDA under the same name.
"""

from __future__ import annotations

import functools
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

try:
    from kcjax import _kcjax
except ImportError as err:  # pragma: no cover - depends on the install
    raise ImportError(
        "kcjax's native extension is missing. Build it with `make build` or "
        "`pip install --no-build-isolation .` (and do not import kcjax from the "
        "source tree without installing it)."
    ) from err


@functools.cache
def _register() -> None:
    for name, capsule in _kcjax.cpu_registrations().items():
        jax.ffi.register_ffi_target(name, capsule, platform="cpu")
    cuda_targets = _kcjax.cuda_registrations()
    if cuda_targets and _has_cuda_backend():
        for name, capsule in cuda_targets.items():
            jax.ffi.register_ffi_target(name, capsule, platform="CUDA")


def _has_cuda_backend() -> bool:
    try:
        return bool(jax.devices("cuda"))
    except RuntimeError:
        return False


def built_with_cuda() -> bool:
    """Whether the extension holds the CUDA handlers."""
    return bool(_kcjax.built_with_cuda())


def _call(target: str, results: Any, *args: jax.Array, **attrs: Any) -> Any:
    """ffi_call of a registered target; every call here maps over vmap sequentially."""
    _register()
    return jax.ffi.ffi_call(target, results, vmap_method="sequential")(*args, **attrs)


def _clique_attrs(kmax: int, method: int, lam: float, num_threads: int) -> dict[str, Any]:
    """The attributes every clique target takes, with the dtypes the handlers bind."""
    return {
        "kmax": np.int32(kmax),
        "method": np.int32(method),
        "lam": np.float32(lam),
        "num_threads": np.int32(num_threads),
    }


# The target wrappers are jitted with their attributes static: under an outer
# jit they inline; eager calls take JAX's compiled fast path (a bare eager
# ffi_call re-traces on every call, which costs more than a small count).
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
    """Calls target ``kcjax_clique_count`` (contract in ffi/include/kcjax/cliques.h).

    ``all_edges``: every edge is a task and ``tasks`` is int32[0];
    ``max_degree``: the DAG's largest out-degree if known (a routing hint), else -1.

    Returns:
      uint32[kmax + 1, 4]: 128-bit little-endian count of s-cliques per size s.
    """
    return _call(
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
    """Calls target ``kcjax_clique_list`` (contract in ffi/include/kcjax/cliques.h).

    Returns:
      (cliques int32[capacity, k] rank ids, rows ascending, -1 past the count;
      count uint32[4] 128-bit number of k-cliques found).
    """
    return _call(
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
    return _call(
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
    """Calls target ``kcjax_clique_pivot`` (contract in ffi/include/kcjax/cliques.h).

    Returns:
      uint32[hmax + 1, pmax + 1, 4]: 128-bit little-endian histogram of
      succinct-clique-tree leaves by (held, pivot) vertex counts.
    """
    return _call(
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
    """Calls target ``kcjax_clique_pivot_local`` (contract in ffi/include/kcjax/cliques.h).

    Returns:
      uint32[n, 4]: per rank, the 128-bit little-endian number of k-cliques
      containing it among those rooted at a task vertex.
    """
    return _call(
        "kcjax_clique_pivot_local",
        jax.ShapeDtypeStruct((indptr.shape[0] - 1, 4), jnp.uint32),
        indptr,
        indices,
        tasks,
        k=np.int32(k),
        num_threads=np.int32(num_threads),
    )


def parse_edge_list(data: bytes) -> tuple[np.ndarray, np.ndarray, int]:
    """Native edge-list parser: (src int64[e], dst int64[e], lines read)."""
    return _kcjax.parse_edge_list(data)
