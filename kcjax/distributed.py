"""Multi-device and multi-host k-clique counting: task splits, shard_map, exact psum.

The DAG's CSR is replicated on every device; its edge tasks are dealt out to
the devices of one mesh axis (by estimated cost, or round-robin as in the
KCMiner paper); every device counts its tasks with the native kernel and the
128-bit counts are summed exactly across devices (:func:`psum_limbs`).

The same code runs on one host and on several: start every process with
:func:`initialize_from_env_or_args` (a wrapper of ``jax.distributed.initialize``;
NCCL between GPUs, gloo between CPUs), build the same graph on every process,
and pass a mesh of all processes' devices::

    kcjax.distributed.initialize_from_env_or_args()  # JAX_COORDINATOR_ADDRESS, ...
    dag = kcjax.orient(kcjax.load(path))  # identical on every process
    mesh = jax.make_mesh((jax.device_count(),), ("d",))
    limbs = kcjax.distributed.count_cliques_sharded(dag, 6, mesh)  # uint32[7, 4]
    kcjax.limbs_to_int(limbs[6])

``jax.pmap`` users deal the task rows of :func:`split_tasks` to the local
devices themselves and broadcast the DAG (``in_axes=None``)::

    tasks = split_tasks(dag, jax.local_device_count(), kmax=6)  # int32[D, t]
    count = jax.pmap(
        lambda dag, t: psum_limbs(count_cliques_limbs(dag, 6, tasks=t), "d"),
        axis_name="d",
        in_axes=(None, 0),
    )
    limbs = count(dag, tasks)[0]  # every device holds the same uint32[7, 4]
"""

from __future__ import annotations

import functools
import logging
import os
import re
import threading
from collections.abc import Callable
from typing import Any, Literal

import jax
import jax.numpy as jnp
import numpy as np
from jax.sharding import Mesh, NamedSharding
from jax.sharding import PartitionSpec as P

from kcjax.cliques import ENUMERATION_METHODS, _max_out_degree, count_cliques_limbs
from kcjax.orient import DAG

Strategy = Literal["balanced", "round_robin"]
#: Accepted ``strategy`` values of :func:`split_tasks`.
STRATEGIES: tuple[str, ...] = ("balanced", "round_robin")

_LOG = logging.getLogger(__name__)
# Seconds between the logged arrival timeout and JAX's own (a native abort).
_ABORT_GRACE_S = 3
# Edges per block of the candidate-size computation. Under a degree or
# degeneracy order every out-degree is below 2^16 (m < 2^31), so a block's
# wedge offsets stay below 2^30 and fit int32.
_EDGE_BLOCK = 1 << 14
# Wedges examined per step of the candidate-size computation.
_WEDGE_CHUNK = 1 << 16
#: The balanced split ranks tasks by their exact candidate-set sizes (one
#: binary search per wedge u -> v -> w, pure JAX) when the DAG has at most
#: this many wedges (com-dblp: 5.6e6, about 0.07 s on an H200); above it, by
#: the bound ``min(outdeg(u) - 1, outdeg(v)) >= |C|``, so splitting stays cheap
#: where the exact sizes would take minutes (R-MAT scale 18 has 6.6e8
#: wedges, scale 22 billions).
SPLIT_MAX_WEDGES = 1 << 26


@jax.jit
def candidate_sizes(dag: DAG) -> jax.Array:
    """Candidate-set size of every edge task, exactly; jit-able.

    The task of edge (u, v) searches the common out-neighbours
    ``N+(u) ∩ N+(v)``; its size is the number of triangles the edge opens.
    Work is one binary search per wedge u -> v -> w, in fixed-size chunks
    (memory O(m) whatever the wedge count).

    Args:
      dag: an oriented graph from :func:`kcjax.orient`.

    Returns:
      int32[num_edges]: ``|N+(src[e]) ∩ N+(indices[e])|`` for every edge e.
    """
    m = dag.num_edges
    if m == 0:
        return jnp.zeros(0, jnp.int32)
    indptr, indices = dag.indptr, dag.indices
    outdeg = dag.out_degrees()
    blocks = -(-m // _EDGE_BLOCK)
    pad = blocks * _EDGE_BLOCK - m
    # Padding edges have no wedges; they read vertex 0 harmlessly.
    u_all = jnp.pad(dag.src, (0, pad))
    v_all = jnp.pad(indices, (0, pad))
    wedges_all = jnp.pad(outdeg[indices], (0, pad))
    steps = _bit_length(dag.max_out_degree())

    def block(b, sizes):
        start = b * _EDGE_BLOCK
        u = jax.lax.dynamic_slice_in_dim(u_all, start, _EDGE_BLOCK)
        v = jax.lax.dynamic_slice_in_dim(v_all, start, _EDGE_BLOCK)
        wedges = jax.lax.dynamic_slice_in_dim(wedges_all, start, _EDGE_BLOCK)
        ends = jnp.cumsum(wedges)  # exclusive end of each edge's wedge range
        total = ends[-1]

        def chunk(state):
            base, found = state
            q = base + jnp.arange(_WEDGE_CHUNK, dtype=jnp.int32)
            live = q < total
            first = jnp.zeros_like(q)
            e = _lower_bound(ends, first, first + _EDGE_BLOCK, q + 1, _EDGE_BLOCK.bit_length())
            e = jnp.minimum(e, _EDGE_BLOCK - 1)  # the first edge whose range ends past q
            j = q - (ends[e] - wedges[e])
            w = indices[jnp.where(live, indptr[v[e]] + j, 0)]
            start, end = indptr[u[e]], indptr[u[e] + 1]
            at = _lower_bound(indices, start, end, w, steps)
            hit = live & (at < end) & (indices[jnp.minimum(at, m - 1)] == w)
            return base + _WEDGE_CHUNK, found.at[e].add(hit.astype(jnp.int32))

        _, found = jax.lax.while_loop(
            lambda s: s[0] < total, chunk, (jnp.int32(0), jnp.zeros(_EDGE_BLOCK, jnp.int32))
        )
        return jax.lax.dynamic_update_slice_in_dim(sizes, found, start, 0)

    sizes = jax.lax.fori_loop(0, blocks, block, jnp.zeros(blocks * _EDGE_BLOCK, jnp.int32))
    return sizes[:m]


@functools.partial(jax.jit, static_argnames="max_wedges")
def split_sizes(dag: DAG, max_wedges: int = SPLIT_MAX_WEDGES) -> jax.Array:
    """The task sizes the balanced split ranks by; jit-able.

    :func:`candidate_sizes` when the DAG has at most ``max_wedges`` wedges,
    else the upper bound ``min(outdeg(u) - 1, outdeg(v))`` of every edge task
    (u, v) (decided on the device, so it works under jit).

    Args:
      dag: an oriented graph from :func:`kcjax.orient`.
      max_wedges: the largest wedge count sized exactly.

    Returns:
      int32[num_edges]: exact or bounded candidate-set sizes.
    """
    if dag.num_edges == 0:
        return jnp.zeros(0, jnp.int32)
    outdeg = dag.out_degrees()
    wedges = jnp.sum(outdeg[dag.indices].astype(jnp.float32))
    bound = jnp.minimum(outdeg[dag.src] - 1, outdeg[dag.indices]).astype(jnp.int32)
    return jax.lax.cond(wedges <= max_wedges, candidate_sizes, lambda _: bound, dag)


def task_costs(dag: DAG, kmax: int | None = None) -> jax.Array:
    """Estimated relative cost of every edge task; jit-able.

    A task with candidate set C (see :func:`candidate_sizes`) walks the
    cliques inside C, so its work grows as a power of ``|C|`` that rises with
    the clique size: the model is ``1 + |C|^p`` with
    ``p = clip(0.75 * kmax - 1.75, 1, 6)``, fitted to the CPU time per task
    on com-dblp (p = 1.25, 2, 2.75, 3.5 for kmax = 4..7; one unit is about
    0.05 µs there).

    Args:
      dag: an oriented graph from :func:`kcjax.orient`.
      kmax: the largest clique size that will be counted (``None``: 6).

    Returns:
      float32[num_edges]: the estimated cost of every edge task.
    """
    return _cost(candidate_sizes(dag), kmax)


def split_tasks(
    dag: DAG,
    num_shards: int,
    *,
    strategy: Strategy = "balanced",
    kmax: int | None = None,
    return_costs: bool = False,
) -> jax.Array | tuple[jax.Array, jax.Array]:
    """Deals the edge tasks of ``dag`` out to ``num_shards`` shards; jit-able.

    ``"balanced"`` sorts the tasks by candidate-set size, largest first, and
    deals them in snake order (shards 0..D-1, then D-1..0, ...): every shard
    gets the same number of tasks, the heavy ones spread evenly, and each
    shard's row runs heaviest first. The order depends only on integer sizes
    (:func:`split_sizes`: exact, or a bound on graphs with more than
    :data:`SPLIT_MAX_WEDGES` wedges), so every process of a multi-host run
    computes the same split.
    ``"round_robin"`` gives edge i to shard ``i mod D`` (the KCMiner paper's
    split), kept for comparison.

    Args:
      dag: an oriented graph from :func:`kcjax.orient`.
      num_shards: number of shards D (>= 1), e.g. the devices of a mesh axis.
      strategy: ``"balanced"`` or ``"round_robin"``.
      kmax: largest clique size to be counted; tunes the cost model of
        :func:`task_costs` (``None``: its default).
      return_costs: also return the estimated cost of every shard.

    Returns:
      int32[D, t] edge ids, ``t = max(1, ceil(num_edges / D))``, -1 padding;
      with ``return_costs`` also float32[D]: the estimated cost (sum of
      :func:`task_costs`) of every shard's tasks.

    Raises:
      ValueError: for ``num_shards < 1`` or an unknown strategy.
    """
    if num_shards < 1:
        raise ValueError(f"num_shards must be >= 1, got {num_shards}")
    if strategy not in STRATEGIES:
        raise ValueError(f"strategy must be one of {STRATEGIES}, got {strategy!r}")
    sizes = split_sizes(dag) if strategy == "balanced" or return_costs else None
    tasks = _deal(sizes, num_shards=num_shards, num_edges=dag.num_edges, strategy=strategy)
    if not return_costs:
        return tasks
    return tasks, _shard_costs(sizes, tasks, kmax=kmax)


@functools.partial(jax.jit, static_argnames=("num_shards", "num_edges", "strategy"))
def _deal(sizes: jax.Array | None, *, num_shards: int, num_edges: int, strategy: str) -> jax.Array:
    """int32[D, t]: the edge ids of every shard (see :func:`split_tasks`)."""
    m = num_edges
    width = max(1, -(-m // num_shards))
    ids = jnp.arange(m, dtype=jnp.int32)
    if strategy == "balanced":
        _, order = jax.lax.sort((-sizes, ids), num_keys=2)  # largest first, ties by id
    else:
        order = ids
    dealt = jnp.pad(order, (0, width * num_shards - m), constant_values=-1)
    dealt = dealt.reshape(width, num_shards)
    if strategy == "balanced":  # snake: odd rounds deal from the last shard back
        odd = (jnp.arange(width) % 2 == 1)[:, None]
        dealt = jnp.where(odd, dealt[:, ::-1], dealt)
    return dealt.T


@functools.partial(jax.jit, static_argnames="kmax")
def _shard_costs(sizes: jax.Array, tasks: jax.Array, *, kmax: int | None) -> jax.Array:
    """float32[D]: the summed :func:`task_costs` of every shard's tasks."""
    cost = _cost(sizes, kmax)
    return jnp.sum(jnp.where(tasks >= 0, cost[jnp.maximum(tasks, 0)], 0.0), axis=1)


def psum_limbs(limbs: jax.Array, axis_name: Any) -> jax.Array:
    """Sums 128-bit little-endian limb counts over a mapped axis, exactly.

    Each uint32 limb is split into 16-bit halves, the halves are ``psum``-ed
    (no uint32 overflow for fewer than 65536 devices) and the carries are
    propagated into normalized 32-bit limbs; the sum is taken modulo 2^128
    like the native counters. Call inside ``shard_map``, ``pmap`` or any
    context that binds ``axis_name``.

    Args:
      limbs: uint32[..., L] little-endian limbs (L = 4 for the clique counts).
      axis_name: the mapped axis (or tuple of axes) to sum over.

    Returns:
      uint32[..., L]: the exact sum over the axis, identical on every device.
    """
    limbs = jnp.asarray(limbs, jnp.uint32)
    halves = jnp.stack([limbs & 0xFFFF, limbs >> 16], axis=-1)
    halves = halves.reshape(*limbs.shape[:-1], 2 * limbs.shape[-1])
    return _carry_halves(jax.lax.psum(halves, axis_name))


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
    if axis_name is None:
        if len(mesh.axis_names) != 1:
            raise ValueError(f"axis_name is required for a mesh of axes {mesh.axis_names}")
        axis_name = mesh.axis_names[0]
    if axis_name not in mesh.shape:
        raise ValueError(f"axis {axis_name!r} is not an axis of the mesh {mesh.axis_names}")
    num_shards = mesh.shape[axis_name]
    tasks = split_tasks(dag, num_shards, strategy=strategy)
    static = dict(
        kmax=kmax, mesh=mesh, axis_name=axis_name, method=method, lam=lam, num_threads=num_threads
    )
    replicated, split = NamedSharding(mesh, P()), NamedSharding(mesh, P(axis_name))
    if isinstance(dag.indices, jax.core.Tracer):
        dag = jax.tree.map(lambda x: _constrain(x, replicated), dag)
        return _count_sharded(dag, _constrain(tasks, split), **static)
    # Eagerly the DAG is still this process's own: its largest out-degree is
    # the CUDA handler's max_degree hint (narrower task sort on every device).
    static["max_degree"] = _max_out_degree(dag)
    dag = jax.tree.map(lambda x: _to_global(x, replicated), dag)
    return _count_sharded_jit(dag, _to_global(tasks, split), **static)


def initialize_from_env_or_args(
    coordinator: str | None = None,
    num_processes: int | None = None,
    process_id: int | None = None,
    *,
    timeout_s: int = 60,
) -> bool:
    """Joins this process to a multi-process JAX runtime, if one is asked for.

    Arguments win over the environment variables ``JAX_COORDINATOR_ADDRESS``
    (``host:port`` of process 0, which serves it), ``JAX_NUM_PROCESSES`` and
    ``JAX_PROCESS_ID``. With none of them set this does nothing (one process).
    CPU devices talk through gloo, GPUs through NCCL. Call it before anything
    else touches JAX devices; ``jax.distributed.shutdown()`` ends the run
    (it also runs at exit).

    If the processes have not all arrived after ``timeout_s`` seconds, the
    error is logged (logger ``kcjax.distributed``, level CRITICAL: it names
    the coordinator and the process ids expected) and JAX's runtime aborts
    the process a few seconds later (a native abort, not a Python exception).

    Args:
      coordinator: ``host:port`` of process 0's coordination service.
      num_processes: number of processes (>= 1).
      process_id: this process's id, 0 <= process_id < num_processes.
      timeout_s: seconds to wait for every process to arrive (>= 1).

    Returns:
      True if the distributed runtime was initialized, False for a
      single-process run (nothing given).

    Raises:
      ValueError: for a missing, malformed or inconsistent setting.
      RuntimeError: from ``jax.distributed.initialize`` when it was already
        called or JAX's backends are already initialized.
    """
    coordinator = coordinator or os.environ.get("JAX_COORDINATOR_ADDRESS") or None
    num_processes = _setting(num_processes, "JAX_NUM_PROCESSES")
    process_id = _setting(process_id, "JAX_PROCESS_ID")
    given = {
        "coordinator (JAX_COORDINATOR_ADDRESS)": coordinator,
        "num_processes (JAX_NUM_PROCESSES)": num_processes,
        "process_id (JAX_PROCESS_ID)": process_id,
    }
    if all(value is None for value in given.values()):
        return False
    missing = [name for name, value in given.items() if value is None]
    if missing:
        raise ValueError(f"a multi-process run needs {' and '.join(missing)} as well")
    if num_processes < 1 or not 0 <= process_id < num_processes:
        raise ValueError(
            "need num_processes >= 1 and 0 <= process_id < num_processes, "
            f"got process_id={process_id}, num_processes={num_processes}"
        )
    if not re.fullmatch(r".+:\d+", coordinator):
        raise ValueError(f"coordinator must be host:port, got {coordinator!r}")
    if timeout_s < 1:
        raise ValueError(f"timeout_s must be >= 1, got {timeout_s}")
    jax.config.update("jax_cpu_collectives_implementation", "gloo")
    arrived = threading.Event()
    message = (
        f"process {process_id} of {num_processes} gave up waiting for the other processes "
        f"at coordinator {coordinator} after {timeout_s} s: start all {num_processes} "
        f"processes with the same coordinator address and process ids "
        f"0..{num_processes - 1}, and check that process 0's host and port are reachable"
    )
    threading.Thread(target=_watch_arrival, args=(arrived, timeout_s, message), daemon=True).start()
    try:
        # JAX's own deadline comes a little later, so the reason is logged first.
        jax.distributed.initialize(
            coordinator_address=coordinator,
            num_processes=num_processes,
            process_id=process_id,
            initialization_timeout=timeout_s + _ABORT_GRACE_S,
        )
    finally:
        arrived.set()
    return True


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
        return psum_limbs(limbs, axis_name)

    return _shard_map(local, mesh, in_specs=(P(), P(axis_name)), out_specs=P())(dag, tasks)


_count_sharded_jit = jax.jit(
    _count_sharded,
    static_argnames=("kmax", "mesh", "axis_name", "method", "lam", "num_threads", "max_degree"),
)


def _shard_map(f: Callable, mesh: Mesh, *, in_specs: Any, out_specs: Any) -> Callable:
    """``jax.shard_map`` where it exists, else ``jax.experimental.shard_map``."""
    if hasattr(jax, "shard_map"):
        return jax.shard_map(f, mesh=mesh, in_specs=in_specs, out_specs=out_specs, check_vma=False)
    from jax.experimental.shard_map import shard_map

    return shard_map(f, mesh=mesh, in_specs=in_specs, out_specs=out_specs, check_rep=False)


def _constrain(x: jax.Array, sharding: NamedSharding) -> jax.Array:
    """Lays a traced array out as ``sharding`` (reshard for explicit mesh axes)."""
    axis_type = getattr(jax.sharding, "AxisType", None)  # explicit sharding: jax >= 0.6
    if axis_type is not None and axis_type.Explicit in sharding.mesh.axis_types:
        return jax.sharding.reshard(x, sharding)
    return jax.lax.with_sharding_constraint(x, sharding)


def _to_global(x: jax.Array, sharding: NamedSharding) -> jax.Array:
    """Places an array that every process holds whole as a global array."""
    if sharding.is_fully_addressable:
        return jax.device_put(x, sharding)
    host = np.asarray(x)
    return jax.make_array_from_callback(host.shape, sharding, lambda index: host[index])


def _carry_halves(halves: jax.Array) -> jax.Array:
    """uint32[..., 2L] 16-bit digits (each < 2^32 - 2^16) -> uint32[..., L] limbs."""
    digits = []
    carry = jnp.zeros(halves.shape[:-1], jnp.uint32)
    for i in range(halves.shape[-1]):
        total = halves[..., i] + carry
        digits.append(total & 0xFFFF)
        carry = total >> 16
    digits = jnp.stack(digits, axis=-1)
    return digits[..., 0::2] | (digits[..., 1::2] << 16)


def _lower_bound(
    values: jax.Array, lo: jax.Array, hi: jax.Array, keys: jax.Array, steps: Any
) -> jax.Array:
    """int32[q]: first i in [lo, hi) with ``values[i] >= keys`` (else hi), per query.

    ``values[lo:hi]`` must be sorted; ``steps`` (>= bit length of hi - lo)
    halvings settle every query.
    """

    def halve(_, bounds):
        lo, hi = bounds
        mid = lo + (hi - lo) // 2
        right = (lo < hi) & (values[jnp.minimum(mid, values.shape[0] - 1)] < keys)
        return jnp.where(right, mid + 1, lo), jnp.where(right | (lo >= hi), hi, mid)

    return jax.lax.fori_loop(0, steps, halve, (lo, hi))[0]


def _bit_length(x: jax.Array) -> jax.Array:
    """int32: binary-search steps that settle a row of x entries (bits of x, +1)."""
    return 33 - jax.lax.clz(x.astype(jnp.int32))


def _cost(sizes: jax.Array, kmax: int | None) -> jax.Array:
    k = 6 if kmax is None else kmax
    power = min(max(0.75 * k - 1.75, 1.0), 6.0)
    return 1.0 + sizes.astype(jnp.float32) ** power


def _watch_arrival(arrived: threading.Event, timeout_s: int, message: str) -> None:
    if not arrived.wait(timeout_s):
        _LOG.critical(message)


def _setting(value: int | None, env: str) -> int | None:
    if value is not None:
        return int(value)
    text = os.environ.get(env, "").strip()
    if not text:
        return None
    try:
        return int(text)
    except ValueError:
        raise ValueError(f"{env} must be an integer, got {text!r}") from None
