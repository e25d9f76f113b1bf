"""Counting embeddings over the devices of a mesh: roots dealt by cost, exact psum.

The plan (pruned graph, candidate bitmaps, level masks) is built once, on
one device; the first matched query vertex's candidates (the roots) are
dealt to the devices of one mesh axis by estimated cost there (heaviest
first, in a snake over the devices; cost = level-1 chunks of the root, i.e.
its degree in the pruned graph); the arrays the count reads and the deal are
packed into one array, replicated device to device: nothing is read back to
the host, and the host places one array, not one per plan array. Every
device runs the native counter on its roots, and the 128-bit counts are
summed exactly (:func:`kcjax.psum_limbs`).
"""

from __future__ import annotations

import functools
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from jax.sharding import Mesh, NamedSharding
from jax.sharding import PartitionSpec as P

from kcjax import _wide
from kcjax.graph.labeled import LabeledGraph
from kcjax.match import kernels
from kcjax.match.inputs import prepare_match
from kcjax.match.plan import Order, Prepared
from kcjax.match.query import QuerySpec
from kcjax.parallel import mesh_axis, multi_process, shard_map, sub_mesh, to_global


@functools.partial(jax.jit, static_argnames=("shards",))
def deal_roots(p: Prepared, shards: int) -> tuple[jax.Array, jax.Array]:
    """Roots per device by estimated cost, on the plan's device.

    The roots, heaviest first (a root's cost: its task chunks), are dealt in a
    snake over the devices (0, 1, .., D-1, D-1, .., 0, 0, ..), so each device
    gets every D-th root by rank, its heavy ones first; unused slots sort last.

    Returns:
      (int32[D, r] roots, -1 padded; int32[D, r + 1] their task_ptr rows), r =
      ceil(roots / D).
    """
    roots = p.roots
    chunks = jnp.diff(p.task_ptr).astype(jnp.int32)
    width = max(1, -(-roots.shape[0] // shards))
    pad = width * shards - roots.shape[0]
    valid = roots >= 0
    key = jnp.pad(jnp.where(valid, chunks, -1), (0, pad), constant_values=-1)
    order = jnp.argsort(-key, stable=True)
    roots = jnp.pad(jnp.where(valid, roots, -1), (0, pad), constant_values=-1)[order]
    chunks = jnp.maximum(key[order], 0)
    # Rank j goes to row j // D, device j % D on even rows and D - 1 - j % D on odd ones.
    rows = jnp.arange(width)[:, None]
    snake = jnp.where(rows % 2 == 0, jnp.arange(shards), shards - 1 - jnp.arange(shards))
    rank = rows * shards + snake  # [r, D]: the rank each (row, device) slot takes
    dealt, cost = roots[rank].T, chunks[rank].T
    zero = jnp.zeros((shards, 1), jnp.int32)
    return dealt, jnp.concatenate([zero, jnp.cumsum(cost, axis=1, dtype=jnp.int32)], axis=1)


def count_embeddings_sharded(
    data: LabeledGraph,
    query: LabeledGraph | QuerySpec,
    mesh: Mesh,
    *,
    axis_name: Any = None,
    induced: bool = False,
    blacklist: bool = True,
    refine: bool = True,
    dominance: bool = True,
    order: Order = "estimate",
    symmetry: bool = True,
    num_threads: int = 0,
) -> jax.Array:
    """Counts embeddings over ``mesh``'s devices (eager; see the module docstring).

    Args:
      data, query, induced, blacklist, refine, dominance, order, symmetry: as in
        :func:`kcjax.count_embeddings`.
      mesh: the devices; roots are split over one axis, replicated over others.
      axis_name: the axis to split over (``None``: the mesh's only axis).
      num_threads: CPU worker threads per device (0: all cores).

    Returns:
      uint32[4] limbs of the exact count, replicated over the devices that
      counted: at most one per root of the plan (a plan with one root counts on
      the plan's device alone), every device of a mesh of several processes.
    """

    axis_name = mesh_axis(mesh, axis_name)
    p = prepare_match(
        data,
        query,
        induced=induced,
        blacklist=blacklist,
        refine=refine,
        dominance=dominance,
        order=order,
        symmetry=symmetry,
    )
    shards = mesh.shape[axis_name]
    if not multi_process(mesh):  # a mesh of several processes runs whole
        # A device without a root only adds its placement and launch: use at most one
        # device per root (one read-back of the plan's root count).
        shards = min(shards, int(_root_count(p)))
        if shards <= 1:
            return _count_here(p, num_threads=num_threads)
        mesh = sub_mesh(mesh, axis_name, shards)
    packed = _deal_and_pack(p, shards)
    layout = tuple((x.shape, x.dtype) for x in _counted(p))
    # One array copied device to device: a put per plan array costs the host about
    # 0.1 ms each (a short query's mesh call was mostly that).
    packed = to_global(packed, NamedSharding(mesh, P()))
    return _sharded(
        packed,
        layout=layout,
        shards=shards,
        mesh=mesh,
        axis_name=axis_name,
        num_threads=num_threads,
    )


@jax.jit
def _root_count(p: Prepared) -> jax.Array:
    return jnp.sum(p.roots >= 0, dtype=jnp.int32)


@functools.partial(jax.jit, static_argnames=("num_threads",))
def _count_here(p: Prepared, *, num_threads: int) -> jax.Array:
    """The count on the plan's device alone: uint32[4] limbs."""
    return kernels.count(p, num_threads=num_threads)


def _counted(p: Prepared) -> tuple[jax.Array, ...]:
    """The plan arrays the count reads (:func:`kcjax.match.kernels.count`)."""
    return (p.indptr, p.indices, p.mult, p.cand, p.plan, p.lists, p.leaf_sum, p.scale)


@functools.partial(jax.jit, static_argnames=("shards",))
def _deal_and_pack(p: Prepared, shards: int) -> jax.Array:
    """int32[total]: the counted plan arrays, then the deal's roots and task rows
    (:func:`deal_roots`), flattened end to end (uint32 bit for bit)."""
    roots, ptr = deal_roots(p, shards)
    parts = [*_counted(p), roots, ptr]
    return jnp.concatenate([jax.lax.bitcast_convert_type(x, jnp.int32).reshape(-1) for x in parts])


def _unpack(packed: jax.Array, layout: tuple) -> tuple[list[jax.Array], int]:
    """The arrays of :func:`_deal_and_pack` back (``layout``: the counted plan arrays'
    shapes and dtypes), and the offset of the deal's roots."""
    out, at = [], 0
    for shape, dtype in layout:
        size = int(np.prod(shape, dtype=np.int64))
        out.append(jax.lax.bitcast_convert_type(packed[at : at + size].reshape(shape), dtype))
        at += size
    return out, at


@functools.partial(
    jax.jit, static_argnames=("layout", "shards", "mesh", "axis_name", "num_threads")
)
def _sharded(packed, *, layout, shards, mesh, axis_name, num_threads):
    def local(packed):
        (indptr, indices, mult, cand, plan, lists, leaf_sum, scale), at = _unpack(packed, layout)
        width = ((packed.shape[0] - at) // shards - 1) // 2  # roots a device
        dev = jax.lax.axis_index(axis_name)
        roots = packed[at : at + shards * width].reshape(shards, width)[dev]
        ptr = packed[at + shards * width :].reshape(shards, width + 1)[dev]
        p = Prepared(  # the count reads neither the order nor the statistics
            indptr=indptr,
            indices=indices,
            mult=mult,
            cand=cand,
            plan=plan,
            lists=lists,
            roots=roots,
            task_ptr=ptr,
            order=jnp.zeros(0, jnp.int32),
            leaf_sum=leaf_sum,
            rounds=jnp.int32(0),
            stats=jnp.zeros(0, jnp.int32),
            scale=scale,
        )
        limbs = kernels.match_count(p, roots, ptr, num_threads=num_threads)
        return _wide.mul(_wide.psum(limbs[0], axis_name), scale)

    return shard_map(local, mesh, in_specs=(P(),), out_specs=P())(packed)
