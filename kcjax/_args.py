"""Argument checks shared by the public entry points: one clear message per mistake."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np


def is_int(x: Any) -> bool:
    """A Python or numpy integer, not a bool."""
    return isinstance(x, (int, np.integer)) and not isinstance(x, (bool, np.bool_))


def as_int(value: Any, name: str, *, minimum: int | None = None) -> int:
    """``value`` as an int, if it is one (and at least ``minimum``).

    Raises:
      TypeError: for anything but a Python or numpy integer (bools, floats and
        strings included).
      ValueError: below ``minimum``.
    """
    if not is_int(value):
        raise TypeError(f"{name} must be an integer, got {value!r} ({type(value).__name__})")
    value = int(value)
    if minimum is not None and value < minimum:
        raise ValueError(f"{name} must be >= {minimum}, got {value}")
    return value


def as_ints(value: Any, name: str, *, minimum: int | None = None) -> tuple[list[int], bool]:
    """An integer or an iterable of integers, as (sorted distinct ints, given as one).

    Raises:
      TypeError: for a string, a float, a bool, or an iterable holding one.
      ValueError: for an empty iterable or a value below ``minimum``.
    """
    if is_int(value):
        return [as_int(value, name, minimum=minimum)], True
    if isinstance(value, (str, bytes)) or not isinstance(value, Iterable):
        raise TypeError(
            f"{name} must be an integer or an iterable of integers, got {value!r} "
            f"({type(value).__name__})"
        )
    items = [as_int(x, name, minimum=minimum) for x in value]
    if not items:
        raise ValueError(f"no {name} given")
    return sorted(set(items)), False


def check_choice(value: Any, name: str, choices: Iterable[str]) -> None:
    """Raises ValueError unless ``value`` is one of ``choices``."""
    choices = tuple(choices)
    if value not in choices:
        raise ValueError(f"{name} must be one of {choices}, got {value!r}")
