"""Every family's multidevice tests (cliques/test_sharded.py, bfs/test_mesh.py,
match/test_sharded.py: the tests named ``test_multidevice_*``) in one child
pytest on FORCED_DEVICES forced host CPU devices: XLA's device count is fixed
when JAX starts, so this process cannot host them. On a machine with that
many devices they run directly in their own files instead."""

from __future__ import annotations

from pathlib import Path

import jax
import pytest
from reference import FORCED_DEVICES, run_multidevice_tests

TESTS = Path(__file__).resolve().parent
FILES = [TESTS / "cliques" / "test_sharded.py", TESTS / "bfs" / "test_mesh.py"]
FILES.append(TESTS / "match" / "test_sharded.py")


@pytest.mark.skipif(
    jax.device_count() >= FORCED_DEVICES, reason="the multidevice tests run directly"
)
def test_forced_host_devices_subprocess():
    proc = run_multidevice_tests(FILES, FORCED_DEVICES)
    assert proc.returncode == 0, proc.stdout[-6000:] + proc.stderr[-3000:]
    assert " passed" in proc.stdout and "failed" not in proc.stdout
