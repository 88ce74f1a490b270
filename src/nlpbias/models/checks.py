"""Input checks shared by the text classifiers (:mod:`nlpbias.models.classifiers`,
:mod:`nlpbias.models.kim`, :mod:`nlpbias.models.linear`, :mod:`nlpbias.studies.logan.finetune`).

Each raises a one-line ``TypeError``/``ValueError`` naming the argument and what it expected.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

__all__: list[str] = []


def _check_texts(X: object, name: str = "X") -> list[str]:
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


def _check_int(value: object, name: str, low: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int | np.integer) or value < low:
        raise ValueError(f"{name} must be an int >= {low}, got {value!r}")
    return int(value)


def _check_fraction(value: object, name: str, *, allow_zero: bool) -> float:
    ok = isinstance(value, int | float) and not isinstance(value, bool)
    low_ok = ok and (value >= 0 if allow_zero else value > 0)
    if not (low_ok and value < 1):
        interval = "[0, 1)" if allow_zero else "(0, 1)"
        raise ValueError(f"{name} must be a number in {interval}, got {value!r}")
    return float(value)
