"""Counting embeddings over the devices of a mesh: roots dealt by cost, exact psum.

The plan (pruned graph, candidate bitmaps, level masks) is built once and
replicated; the first matched query vertex's candidates (the roots) are dealt
to the devices of one mesh axis by estimated cost (longest first, each to the
least loaded device; cost = level-1 chunks of the root, i.e. its degree in
the pruned graph), every device runs the native counter on its roots, and
the 128-bit counts are summed exactly (:func:`kcjax.psum_limbs`).
"""

from __future__ import annotations

import functools
import heapq
from typing import Any

import jax
import numpy as np
from jax.sharding import Mesh, NamedSharding
from jax.sharding import PartitionSpec as P

from kcjax._wide import psum
from kcjax.graph.labeled import LabeledGraph
from kcjax.match import kernels
from kcjax.match.inputs import prepare_match
from kcjax.match.plan import Order, Prepared, QuerySpec
from kcjax.parallel import mesh_axis, shard_map, to_global


def deal_roots(p: Prepared, shards: int) -> tuple[np.ndarray, np.ndarray]:
    """Roots per device by estimated cost.

    Returns:
      (int32[D, r] roots, -1 padded; int32[D, r + 1] their task_ptr rows).
    """
    roots = np.asarray(p.roots)
    chunks = np.diff(np.asarray(p.task_ptr)).astype(np.int64)
    valid = np.nonzero(roots >= 0)[0]
    per = [[] for _ in range(shards)]
    heap = [(0, d) for d in range(shards)]
    for i in valid[np.argsort(-chunks[valid], kind="stable")]:
        load, d = heapq.heappop(heap)
        per[d].append(i)
        heapq.heappush(heap, (load + int(chunks[i]) + 1, d))
    width = max(1, max(len(x) for x in per))
    out = np.full((shards, width), -1, np.int32)
    ptr = np.zeros((shards, width + 1), np.int32)
    for d, idx in enumerate(per):
        out[d, : len(idx)] = roots[idx]
        ptr[d, 1 : len(idx) + 1] = np.cumsum(chunks[idx])
        ptr[d, len(idx) + 1 :] = ptr[d, len(idx)]
    return out, ptr


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
    num_threads: int = 0,
) -> jax.Array:
    """Counts embeddings over ``mesh``'s devices (eager; see the module docstring).

    Args:
      data, query, induced, blacklist, refine, dominance, order: as in
        :func:`kcjax.count_embeddings`.
      mesh: the devices; roots are split over one axis, replicated over others.
      axis_name: the axis to split over (``None``: the mesh's only axis).
      num_threads: CPU worker threads per device (0: all cores).

    Returns:
      uint32[4] limbs of the exact count, replicated over ``mesh``.
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
    )
    roots, ptr = deal_roots(p, mesh.shape[axis_name])
    replicated, split = NamedSharding(mesh, P()), NamedSharding(mesh, P(axis_name))
    p = jax.tree.map(lambda x: to_global(np.asarray(x), replicated), p)
    return _sharded(
        p,
        to_global(roots, split),
        to_global(ptr, split),
        mesh=mesh,
        axis_name=axis_name,
        num_threads=num_threads,
    )


@functools.partial(jax.jit, static_argnames=("mesh", "axis_name", "num_threads"))
def _sharded(p, roots, ptr, *, mesh, axis_name, num_threads):
    def local(p, roots, ptr):
        limbs = kernels.match_count(p, roots.reshape(-1), ptr.reshape(-1), num_threads=num_threads)
        return psum(limbs[0], axis_name)

    return shard_map(local, mesh, in_specs=(P(), P(axis_name), P(axis_name)), out_specs=P())(
        p, roots, ptr
    )
