"""Refusing work whose memory cannot fit, before allocating it.

A JAX allocation past the device's memory fails only after the work before
it has run (and on the CPU it can take the machine's memory first). Entry
points that size an allocation from the data (a vertex count, a listing
capacity) ask here first and raise a ValueError that names the bytes and the
fix instead.
"""

from __future__ import annotations

import os

import jax


def free_bytes(device: jax.Device | None = None) -> int | None:
    """Bytes free for new arrays on ``device`` (default: JAX's default device).

    On a GPU: the allocator's limit less what it holds; on the CPU: the
    host's available memory. ``None`` where it cannot be told.
    """
    device = device or jax.config.jax_default_device or jax.devices()[0]
    if isinstance(device, str):
        device = jax.devices(device)[0]
    if device.platform == "cpu":
        return host_free_bytes()
    stats = device.memory_stats() or {}
    if "bytes_limit" not in stats:
        return None
    return int(stats["bytes_limit"]) - int(stats.get("bytes_in_use", 0))


def host_free_bytes() -> int | None:
    """The host's available memory (MemAvailable), or ``None`` where unknown."""
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    try:
        return os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (ValueError, OSError, AttributeError):
        return None


def require(needed: int, what: str, fix: str, *, host: bool = False) -> None:
    """Raises ValueError if ``needed`` bytes do not fit the default device (or the host).

    Args:
      needed: the bytes the work would allocate.
      what: the work, for the message ("listing 3 x 10^8 5-cliques").
      fix: what the caller can do instead.
      host: check the host's memory rather than the default device's.
    """
    free = host_free_bytes() if host else free_bytes()
    if free is None or needed <= free:
        return
    where = "the host" if host else str(jax.devices()[0])
    raise ValueError(
        f"{what} needs about {_size(needed)} but {_size(free)} are free on {where}; {fix}"
    )


def _size(nbytes: int) -> str:
    for unit, scale in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if nbytes >= scale // 10:
            return f"{nbytes / scale:.1f} {unit}"
    return f"{nbytes} bytes"
