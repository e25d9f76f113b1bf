"""The public namespace: every name in ``kcjax.__all__`` resolves, lazily."""

from __future__ import annotations

import subprocess
import sys

import pytest

import kcjax


@pytest.mark.parametrize("name", kcjax.__all__)
def test_public_name_resolves(name):
    assert getattr(kcjax, name) is not None
    assert name in dir(kcjax)


def test_experimental_names_resolve():
    """kcjax.experimental (the measurement interface) names only what exists."""
    from kcjax import experimental

    missing = [name for name in experimental.__all__ if not hasattr(experimental, name)]
    assert not missing, f"kcjax/experimental.py's _EXPORTS names what is gone: {missing}"
    with pytest.raises(AttributeError, match="no attribute 'nope'"):
        getattr(experimental, "nope")  # noqa: B009


def test_unknown_name_raises_attribute_error():
    with pytest.raises(AttributeError, match="no attribute 'nope'"):
        getattr(kcjax, "nope")  # noqa: B009


def test_import_does_not_load_jax():
    code = "import sys, kcjax; print('jax' in sys.modules)"
    done = subprocess.run([sys.executable, "-P", "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "False"
