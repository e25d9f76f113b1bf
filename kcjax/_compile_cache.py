"""JAX's persistent compilation cache, on by default in a per-user folder.

kcjax's eager calls are each one compiled program per (shapes, static options);
the first call of a program compiles it (0.1-3 s, matching queries the most).
With the persistent cache a later process loads it from disk instead. kcjax
turns the cache on when it first touches jax, unless the process already
chose: a ``jax_compilation_cache_dir`` set by the user (``jax.config`` or the
``JAX_COMPILATION_CACHE_DIR`` variable) is kept as it is.

The folder is ``$KCJAX_COMPILATION_CACHE`` if set (``0``, ``off`` or ``none``
turn kcjax's default off), else ``$XDG_CACHE_HOME/kcjax/jax`` (``~/.cache``
when XDG_CACHE_HOME is unset). Every program is written, however fast it
compiled (:data:`MIN_COMPILE_SECONDS`): reading a small one back costs a few
milliseconds where compiling it costs tens; with the ``filelock`` package
installed the folder is capped at :data:`MAX_BYTES`, least recently used
entries evicted first.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import threading
from pathlib import Path

#: Programs compiling faster than this are not written to the cache: none are
#: kept out, as a small program loads in 1.5-9 ms where it compiles in 33-85 ms.
MIN_COMPILE_SECONDS = 0.0
#: The cache folder's cap when kcjax chose it and ``filelock`` is installed.
MAX_BYTES = 2 << 30

_ENV = "KCJAX_COMPILATION_CACHE"
_OFF = ("0", "off", "none", "false", "")
_lock = threading.Lock()
_done = False


def default_cache_dir() -> Path | None:
    """The folder kcjax uses when the process has not chosen one (None: turned off)."""
    value = os.environ.get(_ENV)
    if value is not None:
        return None if value.strip().lower() in _OFF else Path(value).expanduser()
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "kcjax" / "jax"


def enable_default() -> None:
    """Turns the persistent cache on in :func:`default_cache_dir` once per process,
    unless a cache folder is already configured or the variable turns it off."""
    global _done
    if _done:
        return
    with _lock:
        if _done:
            return
        _done = True
        import jax

        if jax.config.jax_compilation_cache_dir:
            return
        path = default_cache_dir()
        if path is None:
            return
        try:
            _use(path)
        except OSError:  # an unwritable home: run without the cache
            return


def configure_compilation_cache(path: str | os.PathLike | None) -> Path | None:
    """Points JAX's persistent compilation cache at ``path`` (None: turns it off).

    Applies to programs compiled from now on. JAX reads its cache settings
    when the process first compiles; call this before the first jax
    computation (or set ``KCJAX_COMPILATION_CACHE`` before starting Python)
    for it to apply to every program.

    Args:
      path: a folder (created if missing), or None to stop caching.

    Returns:
      The folder in use, or None.
    """
    global _done
    with _lock:
        _done = True
        if path is None:
            import jax

            jax.config.update("jax_compilation_cache_dir", None)
            return None
        return _use(Path(path).expanduser())


def compilation_cache_dir() -> Path | None:
    """The folder JAX's persistent compilation cache writes to now (None: off)."""
    import jax

    value = jax.config.jax_compilation_cache_dir
    return Path(value) if value else None


def clear_compilation_cache() -> None:
    """Deletes every entry of the cache folder in use (the folder stays)."""
    path = compilation_cache_dir()
    if path is None or not path.is_dir():
        return
    for entry in path.iterdir():
        if entry.is_dir():
            shutil.rmtree(entry, ignore_errors=True)
        else:
            entry.unlink(missing_ok=True)


def _use(path: Path) -> Path:
    import jax

    path.mkdir(parents=True, exist_ok=True)
    jax.config.update("jax_compilation_cache_dir", str(path))
    jax.config.update("jax_persistent_cache_min_compile_time_secs", MIN_COMPILE_SECONDS)
    if (
        jax.config.jax_compilation_cache_max_size == -1
        and importlib.util.find_spec("filelock") is not None
    ):
        jax.config.update("jax_compilation_cache_max_size", MAX_BYTES)
    return path
