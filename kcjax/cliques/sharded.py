"""Multi-device and multi-host k-clique counting: task splits, shard_map, exact psum.

The DAG's CSR is replicated on every device; its edge tasks are dealt out to
the devices of one mesh axis (by estimated cost, or round-robin as in the
KCMiner paper; :func:`kcjax.split_tasks`); every device counts its tasks with
the native kernel and the 128-bit counts are summed exactly across devices
(:func:`kcjax.psum_limbs`).

The same code runs on one host and on several (see :mod:`kcjax.parallel`)::

    kcjax.initialize_from_env_or_args()  # JAX_COORDINATOR_ADDRESS, ...
    dag = kcjax.orient(kcjax.load(path))  # identical on every process
    mesh = jax.make_mesh((jax.device_count(),), ("d",))
    limbs = kcjax.count_cliques_sharded(dag, 6, mesh)  # uint32[7, 4]
    kcjax.limbs_to_int(limbs[6])

``jax.pmap`` users deal the task rows of :func:`kcjax.split_tasks` to the
local devices themselves and broadcast the DAG (``in_axes=None``)::

    tasks = kcjax.split_tasks(dag, jax.local_device_count(), kmax=6)  # int32[D, t]
    count = jax.pmap(
        lambda dag, t: kcjax.psum_limbs(kcjax.count_cliques_limbs(dag, 6, tasks=t), "d"),
        axis_name="d",
        in_axes=(None, 0),
    )
    limbs = count(dag, tasks)[0]  # every device holds the same uint32[7, 4]
"""

from __future__ import annotations

from typing import Any

import jax
from jax.sharding import Mesh, NamedSharding
from jax.sharding import PartitionSpec as P

from kcjax._wide import psum
from kcjax.cliques.kernels import ENUMERATION_METHODS, count_cliques_limbs
from kcjax.graph.orient import DAG, max_out_degree
from kcjax.graph.tasks import STRATEGIES, Strategy, split_tasks
from kcjax.parallel import constrain, mesh_axis, shard_map, to_global


def count_cliques_sharded(
    dag: DAG,
    kmax: int,
    mesh: Mesh,
    *,
    axis_name: Any = None,
    method: str = "kcminer",
    strategy: Strategy = "balanced",
    lam: float | None = None,
    num_threads: int = 0,
    tasks: jax.Array | None = None,
) -> jax.Array:
    """Counts s-cliques for s = 3..kmax over the devices of a mesh axis; jit-able.

    The DAG is replicated (``P()``) and the rows of :func:`split_tasks` are
    sharded over ``axis_name`` (``P(axis_name)``); every device runs
    :func:`kcjax.count_cliques_limbs` on its tasks and the counts are combined
    with :func:`psum_limbs`. Eagerly the DAG and the task rows are first made
    global arrays on ``mesh`` (so the mesh may span several processes: build
    the same DAG on each); under ``jax.jit`` that placement is left to jit.

    On CPU every device's call starts ``num_threads`` workers: with several
    CPU devices in one process pass about ``cores // devices``.

    Args:
      dag: an oriented graph from :func:`kcjax.orient`.
      kmax: largest clique size (>= 3).
      mesh: the devices; tasks are split over one axis, replicated over others.
      axis_name: the mesh axis to split over (``None``: the mesh's only axis).
      method: one of :data:`kcjax.ENUMERATION_METHODS`.
      strategy: task split, see :func:`split_tasks`.
      lam: λ override (``None``: policy table).
      num_threads: CPU worker threads per device (0: all cores).
      tasks: int32[D, t] task rows from :func:`kcjax.split_tasks` for this
        mesh axis (D devices), to split once and count many times
        (``None``: split here with ``strategy``).

    Returns:
      uint32[kmax + 1, 4], replicated over ``mesh``: row s holds the 128-bit
      little-endian count of s-cliques (rows 0..2 are zero).

    Raises:
      ValueError: for kmax < 3, an unknown method, strategy or mesh axis.
    """
    if kmax < 3:
        raise ValueError(f"kmax must be >= 3, got {kmax}")
    if method not in ENUMERATION_METHODS:
        raise ValueError(f"method must be one of {tuple(ENUMERATION_METHODS)}, got {method!r}")
    if strategy not in STRATEGIES:
        raise ValueError(f"strategy must be one of {STRATEGIES}, got {strategy!r}")
    axis_name = mesh_axis(mesh, axis_name)
    num_shards = mesh.shape[axis_name]
    if tasks is None:
        tasks = split_tasks(dag, num_shards, strategy=strategy)
    elif tasks.ndim != 2 or tasks.shape[0] != num_shards:
        raise ValueError(
            f"tasks must be int32[{num_shards}, t] (one row per device), got {tasks.shape}"
        )
    static = dict(
        kmax=kmax, mesh=mesh, axis_name=axis_name, method=method, lam=lam, num_threads=num_threads
    )
    replicated, split = NamedSharding(mesh, P()), NamedSharding(mesh, P(axis_name))
    if isinstance(dag.indices, jax.core.Tracer):
        dag = jax.tree.map(lambda x: constrain(x, replicated), dag)
        return _count_sharded(dag, constrain(tasks, split), **static)
    # Eagerly the DAG is still this process's own: its largest out-degree is
    # the CUDA handler's max_degree hint (narrower task sort on every device).
    static["max_degree"] = max_out_degree(dag)
    dag = jax.tree.map(lambda x: to_global(x, replicated), dag)
    return _count_sharded_jit(dag, to_global(tasks, split), **static)


def _count_sharded(
    dag: DAG,
    tasks: jax.Array,
    *,
    kmax: int,
    mesh: Mesh,
    axis_name: Any,
    method: str,
    lam: float | None,
    num_threads: int,
    max_degree: int | None = None,
) -> jax.Array:
    def local(dag: DAG, rows: jax.Array) -> jax.Array:
        limbs = count_cliques_limbs(
            dag,
            kmax,
            method=method,
            lam=lam,
            num_threads=num_threads,
            tasks=rows.reshape(-1),
            max_degree=max_degree,
        )
        return psum(limbs, axis_name)

    return shard_map(local, mesh, in_specs=(P(), P(axis_name)), out_specs=P())(dag, tasks)


_count_sharded_jit = jax.jit(
    _count_sharded,
    static_argnames=("kmax", "mesh", "axis_name", "method", "lam", "num_threads", "max_degree"),
)
