"""Shared fixtures: the real graphs of ../shared/data (skipped when absent)."""

from __future__ import annotations

import functools

import jax
import pytest
from reference import DATA_DIR

import kcjax


def has_gpu() -> bool:
    try:
        return bool(jax.devices("cuda"))
    except RuntimeError:
        return False


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
