"""Shared fixtures: the real graphs of ../shared/data (skipped when absent)."""

from __future__ import annotations

import functools
import gc
import importlib.util
import os

# The suite compiles about 4,000 small XLA programs; on the CPU they compile in
# about three quarters of the time without LLVM's optimizations (they are glue
# around the native kernels, which are built optimized), and the whole suite runs
# about a fifth faster. Set before JAX starts its backends (child processes
# inherit it); kept off where a CUDA plugin is installed, so GPU programs compile
# as users get them.
if not any(importlib.util.find_spec(f"jax_cuda{v}_plugin") for v in (12, 13)):
    os.environ["XLA_FLAGS"] = (
        os.environ.get("XLA_FLAGS", "") + " --xla_backend_optimization_level=0"
    ).strip()

import jax  # noqa: E402
import pytest  # noqa: E402
from reference import DATA_DIR, PLATFORMS  # noqa: E402

import kcjax  # noqa: E402


@pytest.fixture(autouse=True, scope="module")
def _release_compiled_programs():
    """Frees each test module's compiled XLA programs when the module ends.

    Every executable holds a few memory mappings, and the whole suite compiles
    enough programs to reach the kernel's per-process limit (vm.max_map_count,
    65,530 by default), where XLA's CPU compiler then segfaults.
    """
    yield
    jax.clear_caches()
    kcjax.clear_memo()
    gc.collect()


@functools.cache
def _load_shared(name: str) -> kcjax.Graph:
    return kcjax.load(DATA_DIR / f"{name}.el.gz")


@pytest.fixture
def shared_graph():
    """Returns a loader: shared_graph(name) -> Graph, cached across tests."""

    def load(name: str) -> kcjax.Graph:
        if not (DATA_DIR / f"{name}.el.gz").exists():
            pytest.skip(f"{name} is not in {DATA_DIR}")
        return _load_shared(name)

    return load


@pytest.fixture(params=PLATFORMS)
def platform(request):
    """Each platform present ("cpu", and "cuda" with a GPU): the test's arrays
    are placed there (``jax.default_device``), so an op test taking this
    fixture runs its op on every platform."""
    with jax.default_device(jax.devices(request.param)[0]):
        yield request.param
