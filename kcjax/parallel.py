"""Devices and processes: meshes, shard_map across jax versions, jax.distributed.

No algorithm knowledge lives here; the families build their sharded ops
(e.g. :func:`kcjax.count_cliques_sharded`) from these pieces. The same code
runs on one host and on several: start every process with
:func:`initialize_from_env_or_args` (a wrapper of
``jax.distributed.initialize``; NCCL between GPUs, gloo between CPUs), build
the same graph on every process and pass a mesh of all processes' devices.
"""

from __future__ import annotations

import logging
import os
import re
import threading
from collections.abc import Callable
from typing import Any

import jax
import numpy as np
from jax.sharding import Mesh, NamedSharding

_LOG = logging.getLogger(__name__)
# Seconds between the logged arrival timeout and JAX's own (a native abort).
_ABORT_GRACE_S = 3


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
    error is logged (logger ``kcjax.parallel``, level CRITICAL: it names
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


def parse_devices(text: str) -> int | str:
    """A device count as given on a command line: ``N`` (>= 1) or ``all``.

    Raises:
      ValueError: for anything else (the message names the value).
    """
    value = text.strip().lower()
    if value == "all":
        return "all"
    if not value.isdigit() or int(value) < 1:
        raise ValueError(f"invalid device count {text!r} (expected N >= 1 or 'all')")
    return int(value)


def device_mesh(devices: int | str, axis_name: str = "d") -> Mesh | None:
    """A 1-D mesh of the first ``devices`` devices (``"all"``: every device of
    every process), or None for one device of a single-process run.

    A run of several processes (``jax.distributed``) always spans every
    device: each process takes part in every call.

    Raises:
      ValueError: for a count below 1, more devices than are visible, or a
        count other than all of them in a multi-process run.
    """
    total = jax.device_count()
    count = total if devices == "all" else int(devices)
    if count < 1:
        raise ValueError(f"the device count must be >= 1 or 'all', got {devices!r}")
    if count > total:
        raise ValueError(f"asked for {count} devices, but only {total} are visible")
    if jax.process_count() > 1 and count != total:
        raise ValueError(
            f"a run of {jax.process_count()} processes uses every device ({total}): pass 'all'"
        )
    if count == 1 and jax.process_count() == 1:
        return None
    return Mesh(np.array(jax.devices()[:count]), (axis_name,))


def mesh_axis(mesh: Mesh, axis_name: Any) -> Any:
    """The mesh axis to split over: ``axis_name``, or the mesh's only axis for ``None``.

    Raises:
      ValueError: for ``None`` on a mesh of several axes, or a name not in the mesh.
    """
    if axis_name is None:
        if len(mesh.axis_names) != 1:
            raise ValueError(f"axis_name is required for a mesh of axes {mesh.axis_names}")
        axis_name = mesh.axis_names[0]
    if axis_name not in mesh.shape:
        raise ValueError(f"axis {axis_name!r} is not an axis of the mesh {mesh.axis_names}")
    return axis_name


def shard_map(f: Callable, mesh: Mesh, *, in_specs: Any, out_specs: Any) -> Callable:
    """``jax.shard_map`` where it exists, else ``jax.experimental.shard_map``."""
    if hasattr(jax, "shard_map"):
        return jax.shard_map(f, mesh=mesh, in_specs=in_specs, out_specs=out_specs, check_vma=False)
    from jax.experimental.shard_map import shard_map

    return shard_map(f, mesh=mesh, in_specs=in_specs, out_specs=out_specs, check_rep=False)


def constrain(x: jax.Array, sharding: NamedSharding) -> jax.Array:
    """Lays a traced array out as ``sharding`` (reshard for explicit mesh axes)."""
    axis_type = getattr(jax.sharding, "AxisType", None)  # explicit sharding: jax >= 0.6
    if axis_type is not None and axis_type.Explicit in sharding.mesh.axis_types:
        return jax.sharding.reshard(x, sharding)
    return jax.lax.with_sharding_constraint(x, sharding)


def to_global(x: jax.Array | np.ndarray, sharding: NamedSharding) -> jax.Array:
    """Places an array that every process holds whole as a global array.

    A device array is copied device to device (each process fills its own
    devices from its own copy; nothing goes through the host); a host array
    is uploaded. An array that already has ``sharding`` is returned as is.
    """
    if isinstance(x, jax.Array) and x.sharding == sharding:
        return x
    if sharding.is_fully_addressable:
        return jax.device_put(x, sharding)
    if isinstance(x, jax.Array) and x.is_fully_addressable:
        shards = [
            jax.device_put(x[index], device)
            for device, index in sharding.addressable_devices_indices_map(x.shape).items()
        ]
        return jax.make_array_from_single_device_arrays(x.shape, sharding, shards)
    host = np.asarray(x)
    return jax.make_array_from_callback(host.shape, sharding, lambda index: host[index])


def multi_process(mesh: Mesh) -> bool:
    """Whether ``mesh`` holds devices of other processes than this one."""
    return any(d.process_index != jax.process_index() for d in mesh.devices.flat)


def sub_mesh(mesh: Mesh, axis_name: Any, size: int) -> Mesh:
    """The mesh of the first ``size`` devices along ``axis_name`` (other axes whole).

    Returns ``mesh`` itself when ``size`` covers the axis.

    Raises:
      ValueError: for a size outside 1..(the axis's length).
    """
    length = mesh.shape[axis_name]
    if not 1 <= size <= length:
        raise ValueError(f"size must be in 1..{length}, got {size}")
    if size == length:
        return mesh
    position = list(mesh.axis_names).index(axis_name)
    devices = np.take(mesh.devices, np.arange(size), axis=position)
    axis_types = getattr(mesh, "axis_types", None)
    if axis_types is None:
        return Mesh(devices, mesh.axis_names)
    return Mesh(devices, mesh.axis_names, axis_types=axis_types)


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
