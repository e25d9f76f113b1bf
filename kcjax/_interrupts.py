"""Clean stops for the command line: SIGINT and SIGTERM at any stage, no partial files.

A Python signal handler runs only when the main thread returns to the
interpreter, which it does not while a native reader, an XLA computation or
a kernel holds it; and letting a KeyboardInterrupt unwind through JAX's
threads and atexit hooks can crash the process. So the CLI routes both
signals to a pipe (``signal.set_wakeup_fd``) that a watcher thread reads: on
the first signal it removes the output files still being written, prints one
line and ends the process at once with 128 + the signal number (130 for
SIGINT, 143 for SIGTERM). The process's entry point keeps both signals
ignored once the command has returned, so a signal that lands while the
interpreter shuts down cannot turn a finished run (its output complete) into
a killed one.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path

_SIGNALS = (signal.SIGINT, signal.SIGTERM)
_PARTIAL: set[Path] = set()
_LOCK = threading.Lock()
_ACTIVE = False


@contextlib.contextmanager
def stop_cleanly(prog: str, *, ignore_after: bool = False) -> Iterator[None]:
    """Within this block, SIGINT / SIGTERM end the process cleanly (see module doc).

    Must be entered from the main thread. A nested block changes nothing.

    Args:
      prog: the name the one stderr line starts with.
      ignore_after: when the block ends without an exception, ignore both
        signals from then on (for the process's entry point: the command's
        result is complete, the process only shuts down). Otherwise, and
        always after an exception, the previous handlers are restored.
    """
    global _ACTIVE
    if _ACTIVE:
        yield
        return
    _ACTIVE = True
    read_fd, write_fd = os.pipe()
    os.set_blocking(write_fd, False)
    previous = {sig: signal.signal(sig, _ignore) for sig in _SIGNALS}
    old_fd = signal.set_wakeup_fd(write_fd, warn_on_full_buffer=False)
    watcher = threading.Thread(
        target=_watch, args=(read_fd, prog), name="kcjax-signals", daemon=True
    )
    watcher.start()
    finished = False
    try:
        yield
        finished = True
    finally:
        # Handlers first, then the wakeup fd: a signal in between still
        # reaches the watcher, never a restored default.
        for sig, handler in previous.items():
            signal.signal(sig, signal.SIG_IGN if finished and ignore_after else handler)
        signal.set_wakeup_fd(old_fd)
        os.close(write_fd)  # the watcher reads EOF and returns
        watcher.join()
        os.close(read_fd)
        _ACTIVE = False


@contextlib.contextmanager
def partial_file(path: Path) -> Iterator[Path]:
    """A temporary file beside ``path`` to write; renamed over ``path`` on success.

    The temporary name is unique (``tempfile.mkstemp`` in the target
    directory), so writers of the same ``path`` never share a file, and the
    rename is atomic: ``path`` holds one writer's complete output or its
    previous content, never a mixture. The temporary file is removed if the
    block fails or the process is stopped by a signal under
    :func:`stop_cleanly`. It gets the permissions a new file would (0666
    less the umask), not mkstemp's 0600.
    """
    fd, name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".partial", dir=path.parent)
    tmp = Path(name)
    with _LOCK:
        _PARTIAL.add(tmp)
    try:
        os.fchmod(fd, 0o666 & ~_umask())
        os.close(fd)
        yield tmp
        os.replace(tmp, path)
    finally:
        with _LOCK:
            _PARTIAL.discard(tmp)
        tmp.unlink(missing_ok=True)


def _umask() -> int:
    """The process's umask: from /proc where it is listed, else by setting and
    restoring it (which other threads could observe for a moment)."""
    with contextlib.suppress(OSError, ValueError), open("/proc/self/status") as f:
        for line in f:
            if line.startswith("Umask:"):
                return int(line.split()[1], 8)
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def _ignore(signum: int, frame: object) -> None:
    """The Python-level handler: nothing (the watcher thread acts)."""


def _flush_stdout() -> None:
    with contextlib.suppress(Exception):
        sys.stdout.flush()


def _watch(read_fd: int, prog: str) -> None:
    data = os.read(read_fd, 1)
    if not data:
        return
    with _LOCK:
        for tmp in _PARTIAL:
            with contextlib.suppress(OSError):
                tmp.unlink()
    # Flush what was printed, unless stdout is blocked (a full pipe).
    flush = threading.Thread(target=_flush_stdout, daemon=True)
    flush.start()
    flush.join(0.5)
    os.write(2, f"{prog}: interrupted\n".encode())
    os._exit(128 + data[0])
