"""Counting embeddings over the devices of a mesh: the plan and the deal on the devices, exact psum.

Every device of one mesh axis builds the plan itself (the data graph's
query-independent side, :class:`~kcjax.match.plan.GraphPrep`, is replicated
once per graph and mesh and memoized; the query's arrays are a few hundred
bytes), so no plan array passes through the host. The roots (the first
matched query vertex's candidates) are then dealt on the devices
(:func:`deal_roots`): roots holding a large share of the level-1 units
(more than 1 / (MATCH_SPLIT_SHARE x devices) of them, at most MATCH_SPLIT_MAX
roots) are searched by every device, each keeping only the level-1 images
that hash to it (:func:`level1_share`: the embeddings split by their level-1
image, so their sum is exact), and the others are dealt whole, heaviest first
in snake order. The 128-bit counts are summed exactly (:func:`kcjax.psum_limbs`).

An eager count runs on the first :func:`mesh_devices` devices of the axis:
fewer than all when the plan's level-1 units are too few to share
(MATCH_MIN_UNITS_PER_DEVICE), read back once per (data, query, switches,
mesh) and memoized.
"""

from __future__ import annotations

import functools
import weakref
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from jax.sharding import Mesh, NamedSharding
from jax.sharding import PartitionSpec as P

from kcjax import _wide
from kcjax._wide import psum
from kcjax.graph.labeled import LabeledGraph
from kcjax.graph.orient import memo
from kcjax.graph.tasks import deal
from kcjax.match import kernels
from kcjax.match import plan as _plan
from kcjax.match.plan import Order, Prepared, QuerySpec
from kcjax.parallel import mesh_axis, shard_map, sub_mesh, to_global

#: A root is split across the devices (every device searches it, keeping the
#: level-1 images that hash to it) when it holds more than 1 / (MATCH_SPLIT_SHARE
#: x devices) of the plan's level-1 units: dealt whole, it alone would be more
#: than a quarter of its device's share (the shared queries of 50 ms and more
#: have 37-151 roots, the largest with up to 10% of the units).
MATCH_SPLIT_SHARE = 4
#: At most this many roots are split (a static shape; the heaviest by units).
MATCH_SPLIT_MAX = 32
#: An eager count runs on floor(units / MATCH_MIN_UNITS_PER_DEVICE) devices
#: (at least 1, at most the axis): a device's share must hold at least this
#: many level-1 units (one warp each on a GPU), else it idles while the
#: exchange costs. Neither the units nor the order's tree estimate predicts a
#: query's time (docs/api.md), so wide but cheap queries still use every
#: device; the coordinator's GPU runs measure that overhead.
MATCH_MIN_UNITS_PER_DEVICE = 64


def deal_roots(
    p: Prepared, index: jax.Array | int, shards: int
) -> tuple[jax.Array, jax.Array, jax.Array, jax.Array]:
    """The roots device ``index`` of ``shards`` searches; jit-able.

    Roots are weighed by their level-1 units (``diff(p.task_ptr)``). Those
    among the MATCH_SPLIT_MAX heaviest with more than 1 / (MATCH_SPLIT_SHARE
    x shards) of all units are split (every device gets them, with
    :func:`level1_share`); the others are sorted by units, largest first, and
    dealt in snake order. No split with one shard or a query of fewer than 3
    vertices.

    Args:
      p: the plan.
      index: this device's position 0..shards-1 (e.g. ``lax.axis_index``).
      shards: the number of devices (static).

    Returns:
      (int32[w] whole roots, -1 padded; int32[w + 1] their task_ptr;
      int32[h] split roots, -1 padded; int32[h + 1] their task_ptr), with
      w = ceil(r / shards) and h = min(MATCH_SPLIT_MAX, r) for r = len(p.roots).
    """
    roots = p.roots
    r = roots.shape[0]
    valid = roots >= 0
    units = jnp.where(valid, jnp.diff(p.task_ptr), 0)
    h = min(MATCH_SPLIT_MAX, r)
    _, by_units = jax.lax.sort((-units, jnp.arange(r, dtype=jnp.int32)), num_keys=2)
    top = by_units[:h]
    if shards > 1 and p.plan.shape[0] >= 3:
        total = jnp.sum(units).astype(jnp.float32)
        split = valid[top] & (units[top].astype(jnp.float32) * (MATCH_SPLIT_SHARE * shards) > total)
    else:
        split = jnp.zeros(h, bool)
    whole = valid & ~jnp.zeros(r, bool).at[top].set(split)
    mine = jax.lax.dynamic_index_in_dim(
        deal(jnp.where(whole, units, -1), num_shards=shards, num_tasks=r), index, keepdims=False
    )
    at = jnp.maximum(mine, 0)
    keep = (mine >= 0) & whole[at]
    whole_roots = jnp.where(keep, roots[at], -1)
    whole_ptr = _ptr(jnp.where(keep, units[at], 0))
    split_roots = jnp.where(split, roots[top], -1)
    split_ptr = _ptr(jnp.where(split, units[top], 0))
    return whole_roots, whole_ptr, split_roots, split_ptr


def _ptr(units: jax.Array) -> jax.Array:
    return jnp.concatenate([jnp.zeros(1, jnp.int32), jnp.cumsum(units, dtype=jnp.int32)])


def level1_share(p: Prepared, index: jax.Array | int, shards: int) -> Prepared:
    """The plan with level 1's candidates cut to those that hash to device ``index``.

    Every embedding has one level-1 image, so the counts of the ``shards``
    plans sum to the count of ``p`` (multiplicities included). A vertex v
    belongs to device ``(h(v) >> 16) mod shards`` for a multiplicative hash h,
    which spreads neighbouring ids (a root's level-1 list) over the devices.
    Needs a query of at least 3 vertices (the kernels' last-level shortcut
    reads level q - 1's full candidates).
    """
    words = p.cand.shape[1]
    v = jnp.arange(words * 32, dtype=jnp.uint32)
    mine = ((v * jnp.uint32(0x9E3779B1)) >> 16) % jnp.uint32(shards) == jnp.asarray(
        index, jnp.uint32
    )
    bits = jnp.sum(
        mine.reshape(words, 32).astype(jnp.uint32) << jnp.arange(32, dtype=jnp.uint32),
        axis=1,
        dtype=jnp.uint32,
    )
    return p._replace(cand=p.cand.at[1].set(p.cand[1] & bits))


def _search(p: Prepared, axis_name: Any, shards: int, num_threads: int) -> jax.Array:
    """This device's count (whole roots, then its share of the split ones), psum-ed."""
    index = jax.lax.axis_index(axis_name)
    whole, whole_ptr, split, split_ptr = deal_roots(p, index, shards)
    total = kernels.match_count(p, whole, whole_ptr, num_threads=num_threads)
    if shards > 1 and p.plan.shape[0] >= 3:
        mine = level1_share(p, index, shards)
        total = _wide.add(
            total, kernels.match_count(mine, split, split_ptr, num_threads=num_threads)
        )
    return psum(total[0], axis_name)


_STATIC = ("q", "comps", "blacklist", "rounds", "num_threads", "mesh", "axis_name")


@functools.partial(jax.jit, static_argnames=_STATIC)
def _sharded(gp, packed, fl, *, q, comps, blacklist, rounds, num_threads, mesh, axis_name):
    """Plan and search on every device of the axis: uint32[4] replicated."""

    def local(gp, packed, fl):
        sw = _plan.traced_switches(blacklist, fl)
        p = _plan.plan(gp, _plan.unpack(packed, q), sw, comps=comps, rounds=rounds)
        return _search(p, axis_name, mesh.shape[axis_name], num_threads)

    return shard_map(local, mesh, in_specs=(P(), P(), P()), out_specs=P())(gp, packed, fl)


@functools.partial(jax.jit, static_argnames=("n", "e", *_STATIC))
def _sharded_compacted(
    c, packed, fl, *, n, e, q, comps, blacklist, rounds, num_threads, mesh, axis_name
):
    """The rest of the plan on the first pass's subgraph, and the search, on every device."""

    def local(c, packed, fl):
        gp, cand0 = _plan.shrink(c, n, e)
        sw = _plan.traced_switches(blacklist, fl)
        p = _plan.plan(gp, _plan.unpack(packed, q), sw, comps=comps, rounds=rounds, cand0=cand0)
        return _search(p, axis_name, mesh.shape[axis_name], num_threads)

    return shard_map(local, mesh, in_specs=(P(), P(), P()), out_specs=P())(c, packed, fl)


@functools.partial(jax.jit, static_argnames=("q", "comps", "blacklist", "rounds"))
def _units(gp, packed, fl, *, q, comps, blacklist, rounds) -> jax.Array:
    """int32: the plan's level-1 units (the policy's measure of breadth)."""
    sw = _plan.traced_switches(blacklist, fl)
    return _plan.plan(gp, _plan.unpack(packed, q), sw, comps=comps, rounds=rounds).task_ptr[-1]


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
    all_devices: bool = False,
    compact: bool | None = None,
) -> jax.Array:
    """Counts embeddings over ``mesh``'s devices (eager; see the module docstring).

    Args:
      data, query, induced, blacklist, refine, dominance, order: as in
        :func:`kcjax.count_embeddings`.
      mesh: the devices; roots are dealt over one axis, replicated over others.
      axis_name: the axis to split over (``None``: the mesh's only axis).
      num_threads: CPU worker threads per device (0: all cores).
      all_devices: run on every device of the axis (else the first
        :func:`mesh_devices` of them).
      compact: shrink the graph to the first filter pass's survivors before
        the rest of the plan (one 8-byte read-back), as
        :func:`kcjax.count_embeddings_limbs` does (``None``: on graphs of
        more than ``PlanPolicy.compact_min_entries`` CSR entries).

    Returns:
      uint32[4] limbs of the exact count, replicated over the devices that ran.
    """
    from kcjax.match.count import _check, _components, _graph_prep, _query, _switches

    _check(data, "dfs", order)
    axis_name = mesh_axis(mesh, axis_name)
    spec = _query(query)
    sw = _switches(induced, blacklist, refine, dominance, order)
    static = dict(
        q=spec.size,
        comps=_components(spec),
        blacklist=sw.blacklist,
        rounds=_plan.POLICY.rounds,
    )
    if not all_devices:
        size = _mesh_devices(data, spec, sw, mesh, axis_name)
        mesh = sub_mesh(mesh, axis_name, size)
    replicated = NamedSharding(mesh, P())
    gp = _replicated_prep(data, _graph_prep(data), mesh)
    packed = _on_mesh(_plan.pack(spec).tobytes(), replicated)
    fl = _on_mesh(_plan.flags(sw).astype(np.int32).tobytes(), replicated)
    static.update(num_threads=int(num_threads), mesh=mesh, axis_name=axis_name)
    if compact is None:
        compact = int(data.graph.indices.shape[0]) > _plan.POLICY.compact_min_entries
    if not (sw.blacklist and compact):
        return _sharded(gp, packed, fl, **static)
    c = _plan.first_pass(gp, packed, q=spec.size)
    n_alive, e_alive = (int(x) for x in np.asarray(c.sizes.addressable_data(0)))
    n_full, e_full = gp.real.shape[0], gp.indices.shape[0]
    return _sharded_compacted(
        c,
        packed,
        fl,
        n=min(_pow2(n_alive, _plan.POLICY.min_vertices), n_full),
        e=min(_pow2(e_alive, _plan.POLICY.min_entries), e_full),
        **static,
    )


def _pow2(x: int, floor: int) -> int:
    return max(floor, 1 << max(0, x - 1).bit_length())


def mesh_devices(
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
) -> int:
    """How many devices of the axis an eager ``count_embeddings(..., mesh=)`` runs on.

    floor(units / MATCH_MIN_UNITS_PER_DEVICE), at least 1, at most the
    axis's length (every device for a mesh of several processes), where the
    units are the plan's level-1 units (``task_ptr[-1]``): one plan on the
    data graph's own device, read back once per (data, query, switches) and
    memoized (:func:`kcjax.clear_memo` forgets it). The first that many
    devices along the axis run.
    """
    from kcjax.match.count import _query, _switches

    sw = _switches(induced, blacklist, refine, dominance, order)
    return _mesh_devices(data, _query(query), sw, mesh, mesh_axis(mesh, axis_name))


def _mesh_devices(
    data: LabeledGraph, spec: QuerySpec, sw: _plan.Switches, mesh: Mesh, axis_name: Any
) -> int:
    from kcjax.match.count import _components, _flags, _graph_prep, _packed

    length = mesh.shape[axis_name]
    if length == 1 or any(d.process_index != jax.process_index() for d in mesh.devices.flat):
        return length
    table = memo(data.graph, "match_units", dict)
    key = (id(data.labels), spec, tuple(_plan.flags(sw).tolist()), sw.blacklist)
    hit = table.get(key)
    if hit is None or hit[0]() is not data.labels:
        units = _units(
            _graph_prep(data),
            _packed(spec, data),
            _flags(sw, data),
            q=spec.size,
            comps=_components(spec),
            blacklist=sw.blacklist,
            rounds=_plan.POLICY.rounds,
        )
        hit = (weakref.ref(data.labels), int(units))
        table[key] = hit
    if MATCH_MIN_UNITS_PER_DEVICE <= 0:
        return length
    return max(1, min(length, hit[1] // MATCH_MIN_UNITS_PER_DEVICE))


def _replicated_prep(data: LabeledGraph, gp: _plan.GraphPrep, mesh: Mesh) -> _plan.GraphPrep:
    """``gp`` replicated on ``mesh`` (device-to-device), memoized per graph and mesh."""
    table = memo(data.graph, "match_mesh_prep", dict)
    key = (id(data.labels), mesh)
    hit = table.get(key)
    if hit is not None and hit[0]() is data.labels:
        return hit[1]
    replicated = NamedSharding(mesh, P())
    out = jax.tree.map(lambda x: to_global(x, replicated), gp)
    table[key] = (weakref.ref(data.labels), out)
    return out


@functools.lru_cache(maxsize=256)
def _on_mesh(raw: bytes, sharding: NamedSharding) -> jax.Array:
    """A small int32 host array (given as bytes: hashable) replicated on ``sharding``."""
    return to_global(np.frombuffer(raw, np.int32).copy(), sharding)
