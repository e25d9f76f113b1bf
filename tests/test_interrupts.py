"""The command line stops cleanly on SIGINT and SIGTERM at every stage: exit
130 / 143, one line on stderr, no traceback, no partial output file. And a
Python started in the checkout imports the same, complete package."""

from __future__ import annotations

import gzip
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

import kcjax

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def big_graph(tmp_path_factory) -> Path:
    """A gzipped R-MAT edge list whose load, orientation and 7-clique count each
    take a noticeable time on the CPU."""
    graph = kcjax.generators.rmat(17, 16, seed=3)
    src, dst = (np.asarray(a) for a in graph.edges())
    path = tmp_path_factory.mktemp("interrupt") / "rmat17.el.gz"
    text = "\n".join(f"{u} {v}" for u, v in zip(src.tolist(), dst.tolist(), strict=True))
    path.write_bytes(gzip.compress(text.encode(), compresslevel=1))
    return path


def _stop(args: list[str], delay_s: float, sig: int, cwd: Path) -> subprocess.CompletedProcess:
    env = dict(os.environ, JAX_PLATFORMS="cpu")
    proc = subprocess.Popen(
        [sys.executable, "-P", "-m", "kcjax", *args],
        cwd=cwd,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    time.sleep(delay_s)
    proc.send_signal(sig)
    out, err = proc.communicate(timeout=60)
    return subprocess.CompletedProcess(proc.args, proc.returncode, out, err)


# Both signals take one path (a wakeup pipe read by one watcher thread, see
# kcjax/_interrupts.py), so SIGINT stops each stage and SIGTERM the earliest one,
# where a handler installed late would show (Python has a default for SIGINT only).
@pytest.mark.parametrize(
    ("command", "delay_s", "sig"),
    [
        (["info"], 1.5, signal.SIGINT),  # importing jax / reading
        (["info"], 1.5, signal.SIGTERM),
        (["info"], 4.0, signal.SIGINT),  # canonicalizing, orienting, counting triangles
        (["count", "-k", "7", "--method", "kcminer"], 7.0, signal.SIGINT),  # counting
        (["list", "-k", "4"], 9.0, signal.SIGINT),  # listing into the output file
    ],
)
def test_signal_stops_cleanly(big_graph, tmp_path, command, delay_s, sig):
    out_file = tmp_path / "out.npy"
    args = [command[0], str(big_graph), *command[1:]]
    if command[0] == "list":
        args += ["-o", str(out_file)]
    done = _stop(args, delay_s, sig, tmp_path)
    if done.returncode == 0:
        pytest.skip(f"{command[0]} finished before the signal on this machine")
    assert done.returncode == 128 + sig, done.stderr
    assert done.stderr.strip().splitlines()[-1:] == ["kcjax: interrupted"], done.stderr
    assert "Traceback" not in done.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == []  # no partial file


@pytest.mark.parametrize(
    "code", ["import kcjax; kcjax.count_cliques(kcjax.generators.complete(5), 3)"]
)
def test_python_started_in_the_checkout_imports_the_package(code):
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    version = subprocess.run(
        [sys.executable, "-m", "kcjax", "--version"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert version.returncode == 0, version.stderr
    assert version.stdout.strip() == f"kcjax {kcjax.__version__}"


@pytest.mark.parametrize(
    ("command", "delay_s"),
    [
        (["truss", "--decompose", "-o", "OUT.txt"], 6.0),  # decomposing
        (["bfs", "--sources", "512", "-o", "OUT.txt"], 6.0),  # writing the text file
    ],
)
def test_family_commands_stop_cleanly(big_graph, tmp_path, command, delay_s):
    args = [
        command[0],
        str(big_graph),
        *(a.replace("OUT", str(tmp_path / "out")) for a in command[1:]),
    ]
    done = _stop(args, delay_s, signal.SIGINT, tmp_path)
    if done.returncode == 0:
        pytest.skip(f"{command[0]} finished before the signal on this machine")
    assert done.returncode == 130, done.stderr
    assert done.stderr.strip().splitlines()[-1:] == ["kcjax: interrupted"], done.stderr
    assert "Traceback" not in done.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == []


_LONG_COUNT = """
import sys, time
import numpy as np
import kcjax
rng = np.random.default_rng(0)
src, dst = np.nonzero(np.triu(rng.random((200, 200)) < 0.7, 1))
dag = kcjax.orient(kcjax.Graph.from_edges(src, dst, 200))
kcjax.count_cliques(dag, 3, method="kcminer")  # compiled, estimates memoized
print("ready", flush=True)
start = time.perf_counter()
try:
    kcjax.count_cliques(dag, 8, method="kcminer")  # about 10 s on 2 CPU cores
except KeyboardInterrupt:
    print("interrupted", flush=True)
else:
    print(f"finished in {time.perf_counter() - start:.1f} s", flush=True)
sys.stdout.flush()
import os
os._exit(0)
"""


def test_ctrl_c_stops_a_long_eager_count_within_a_second():
    """A long count called from Python (no CLI signal handling) splits itself by
    estimated work, so KeyboardInterrupt arrives between chunks, not when the
    whole count ends (it took 36.5 s on com-dblp k = 7 before)."""
    proc = subprocess.Popen(
        [sys.executable, "-P", "-c", _LONG_COUNT],
        env=dict(os.environ, JAX_PLATFORMS="cpu"),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdout.readline().strip() == "ready", proc.stderr.read()
        time.sleep(1.0)
        proc.send_signal(signal.SIGINT)
        sent = time.perf_counter()
        line = proc.stdout.readline().strip()
        waited = time.perf_counter() - sent
    finally:
        proc.kill()
        proc.wait()
    if line.startswith("finished"):
        pytest.skip(f"the count {line} before the signal on this machine")
    assert line == "interrupted"
    assert waited < 3.0, f"KeyboardInterrupt {waited:.1f} s after Ctrl-C"


_LATE_SIGNAL = """
import signal, time
# Python's own handler, whatever the parent left: a shell's background job starts with
# SIGINT ignored, and Python then installs none.
signal.signal(signal.SIGINT, signal.default_int_handler)
from kcjax._interrupts import stop_cleanly
with stop_cleanly("kcjax", ignore_after={ignore_after}):
    print("done", flush=True)
signal.raise_signal(signal.SIGINT)
time.sleep(0.2)
"""


@pytest.mark.parametrize("ignore_after", [True, False])
def test_a_signal_after_the_command_returned(ignore_after):
    """The entry point ignores a signal that lands after the command returned (its
    output complete) while the process shuts down; a plain block restores the
    previous handler: Python's, which ends the process by the signal (the failure
    the entry point avoids)."""
    done = subprocess.run(
        [sys.executable, "-P", "-c", _LATE_SIGNAL.format(ignore_after=ignore_after)],
        env=dict(os.environ, JAX_PLATFORMS="cpu"),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.stdout == "done\n"
    if ignore_after:
        assert done.returncode == 0, done.stderr
    else:
        assert done.returncode == -signal.SIGINT, done.stderr
