"""Argument checks at the public boundary, written once.

Each check returns the value it accepted (converted to a plain Python type) or raises a one-line
``TypeError``/``ValueError`` that names the argument, says what was expected and shows what was
received, so that a notebook user sees at once which keyword to fix.

Examples
--------
>>> check_int(3, "n_clusters", minimum=2)
3
>>> check_int(1, "n_clusters", minimum=2)
Traceback (most recent call last):
...
ValueError: n_clusters must be an integer >= 2, got 1
>>> check_fraction(0.2, "test_fraction")
0.2
>>> check_choice("cnn", "model", ["cnn", "linear"])
'cnn'
"""

from __future__ import annotations

import numbers
from collections.abc import Iterable
from typing import Any

import numpy as np
import pandas as pd

__all__ = [
    "check_binary_labels",
    "check_bool",
    "check_choice",
    "check_fraction",
    "check_int",
    "check_number",
    "check_texts",
]


def check_int(
    value: object, name: str, *, minimum: int | None = None, maximum: int | None = None
) -> int:
    """``value`` as an ``int`` if it is an integer (not a bool) within [minimum, maximum].

    NumPy integers are accepted; floats, even whole ones, are not (a float where a count is
    expected is usually a mistake, e.g. ``1e4`` for ``10_000``).
    """
    ok = isinstance(value, numbers.Integral) and not isinstance(value, bool)
    if ok and (minimum is None or value >= minimum) and (maximum is None or value <= maximum):
        return int(value)  # type: ignore[arg-type]
    if minimum is not None and maximum is not None:
        want = f"an integer in [{minimum}, {maximum}]"
    elif minimum is not None:
        want = f"an integer >= {minimum}"
    elif maximum is not None:
        want = f"an integer <= {maximum}"
    else:
        want = "an integer"
    raise ValueError(f"{name} must be {want}, got {value!r}")


def check_number(
    value: object,
    name: str,
    *,
    low: float | None = None,
    high: float | None = None,
    low_open: bool = False,
    high_open: bool = False,
) -> float:
    """``value`` as a ``float`` if it is a real number (not a bool, not NaN) in the interval.

    ``low``/``high`` bound the interval (``None``: unbounded); ``low_open``/``high_open`` exclude
    the bound itself.
    """
    ok = isinstance(value, numbers.Real) and not isinstance(value, bool) and value == value
    if ok:
        v = float(value)  # type: ignore[arg-type]
        above = low is None or (v > low if low_open else v >= low)
        below = high is None or (v < high if high_open else v <= high)
        if above and below:
            return v
    left = "-inf" if low is None else f"{low:g}"
    right = "inf" if high is None else f"{high:g}"
    opening = "(" if low_open or low is None else "["
    closing = ")" if high_open or high is None else "]"
    interval = f"{opening}{left}, {right}{closing}"
    raise ValueError(f"{name} must be a number in {interval}, got {value!r}")


def check_fraction(value: object, name: str, *, allow_zero: bool = False) -> float:
    """``value`` as a ``float`` in (0, 1), or [0, 1) with ``allow_zero``."""
    return check_number(value, name, low=0.0, high=1.0, low_open=not allow_zero, high_open=True)


def check_bool(value: object, name: str) -> bool:
    """``value`` if it is a ``bool`` (NumPy's included), else a one-line TypeError."""
    if isinstance(value, bool | np.bool_):
        return bool(value)
    raise TypeError(f"{name} must be True or False, got {value!r}")


def check_choice(value: Any, name: str, allowed: Iterable[Any]) -> Any:
    """``value`` if it is one of ``allowed`` (a bool never matches 0 or 1), else a ValueError."""
    options = list(allowed)
    if isinstance(value, bool) and not any(isinstance(a, bool) for a in options):
        raise ValueError(f"{name} must be one of {options}, got {value!r}")
    try:
        if value in options:
            return value
    except TypeError:  # an unhashable or incomparable value
        pass
    raise ValueError(f"{name} must be one of {options}, got {value!r}")


def check_texts(X: object, name: str = "X") -> list[str]:
    """``X`` as a list of strings: a sequence of ``str`` (not one string, not a DataFrame)."""
    if isinstance(X, str | bytes):
        raise TypeError(f"{name} must be a sequence of strings, not one string; wrap it in a list")
    if isinstance(X, pd.DataFrame):
        raise TypeError(f"{name} must be a sequence of strings, got a DataFrame; pass one column")
    try:
        texts = list(X)  # type: ignore[call-overload]
    except TypeError as err:
        raise TypeError(f"{name} must be a sequence of strings, got {type(X).__name__}") from err
    for i, text in enumerate(texts):
        if not isinstance(text, str):
            raise TypeError(
                f"{name} must hold strings only, item {i} is {type(text).__name__}; "
                "drop or fill missing texts first"
            )
    return texts


def check_binary_labels(y: object, n: int) -> tuple[np.ndarray, np.ndarray]:
    """The two classes of ``y`` (sorted) and a boolean array that is True for ``classes[1]``.

    ``y`` must be 1-D with one label per text (``n`` of them), without missing labels, and hold
    exactly two classes.

    Examples
    --------
    >>> classes, positive = check_binary_labels(["ok", "toxic", "ok"], 3)
    >>> classes.tolist(), positive.tolist()
    (['ok', 'toxic'], [False, True, False])
    """
    labels = np.asarray(y)
    if labels.ndim != 1 or len(labels) != n:
        raise ValueError(
            f"y must be 1-D with one label per text: X has {n} texts, y has shape {labels.shape}"
        )
    if pd.isna(labels).any():
        raise ValueError("y contains missing labels; drop those texts first")
    classes = np.unique(labels)
    if len(classes) != 2:
        raise ValueError(
            f"y must hold exactly two classes, got {len(classes)}: {classes[:5].tolist()}"
        )
    return classes, labels == classes[1]
