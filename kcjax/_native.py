"""Loads the compiled extension and registers its XLA FFI targets.

The only module that touches the extension. Every target of every family is
registered for the CPU and, when the extension was built with CUDA and jax
has a CUDA backend, for CUDA under the same name. The families' typed
wrappers (``kcjax/<family>/kernels.py``) call them through :func:`call`.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import jax
import numpy as np

from kcjax._compile_cache import enable_default

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
    enable_default()
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


def call(
    target: str,
    results: Any,
    *args: jax.Array,
    vmap_method: str = "sequential",
    input_output_aliases: dict[int, int] | None = None,
    **attrs: Any,
) -> Any:
    """``jax.ffi.ffi_call`` of a registered target (registering them on first use);
    ``input_output_aliases`` maps operand positions to the results they are updated into."""
    _register()
    return jax.ffi.ffi_call(
        target, results, vmap_method=vmap_method, input_output_aliases=input_output_aliases
    )(*args, **attrs)


def bfs_policy() -> dict[str, int]:
    """The ``BfsPolicy`` constants that Python code reads (the multi-device BFS's
    level loop): ``cluster_alpha``, ``back_to_top_down`` and ``mesh_levels_per_read``."""
    return dict(_kcjax.bfs_policy())


def bfs_mesh_queue_length(words: int, entries: int) -> int:
    """int32 entries of ``kcjax_bfs_mesh_push``'s work space (its ``queue`` result) for a
    shard of ``words`` bitmap words and ``entries`` column entries."""
    return int(_kcjax.bfs_mesh_queue_length(words, entries))


def parse_edge_list(data: bytes) -> tuple[np.ndarray, np.ndarray, int]:
    """Native edge-list parser: (src int64[e], dst int64[e], lines read)."""
    return _kcjax.parse_edge_list(data)


def is_range(adj: dict) -> bool:
    """Whether the keys of ``adj`` are the ints 0..n-1 in order (native)."""
    return bool(_kcjax.is_range(adj))


def adjacency_csr(
    adj: dict, index: dict | Callable[[], dict] | None
) -> tuple[np.ndarray, np.ndarray, Any, int]:
    """networkx's ``G._adj`` as a CSR in one native pass over the dicts.

    Args:
      adj: dict label -> dict neighbour label -> edge data.
      index: dict label -> id, a function returning it (called only where the
        labels are not non-negative ints of at most 4n + 1024, which are
        mapped through a table), or None when the labels are the ints 0..n-1.

    Returns:
      (indptr int64[n + 1], cols int32[e] in each adjacency's order, self loops
      dropped, bool mask of the kept entries of the full adjacency or None when
      there were no self loops, number of self loops).

    Raises:
      TypeError: when an adjacency is not a dict (or an int label is expected).
    """
    return _kcjax.adjacency_csr(adj, index)


def bfs_order(
    indptr: np.ndarray,
    cols: np.ndarray,
    dist: np.ndarray | None,
    first: np.ndarray,
    depth_limit: int,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """networkx's BFS discovery order (native, one pass over the scanned rows).

    Args:
      indptr: int64[n + 1] row pointers of ``cols``.
      cols: int32 neighbour ids, each row in networkx's adjacency order.
      dist: None (a plain BFS), or int32[n] distances from layer 0 to follow
        (-1 unreached).
      first: int64 ids of layer 0 (kept as given, repeats included).
      depth_limit: the last layer built.

    Returns:
      (order int32[k], parent int32[k] with -1 in layer 0, sizes int64[layers]).
    """
    return _kcjax.bfs_order(indptr, cols, dist, first, depth_limit)
