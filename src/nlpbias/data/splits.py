"""Splitting a labelled frame at random, stratified by its label: train / test, or train /
validation / test.

Both splits draw the same way: for each held-out part in turn (the test part first) and, within
it, for each label value in sorted order, ``round(n_class * fraction)`` rows uniformly without
replacement from the rows not drawn yet (``n_class`` = rows of that label in the whole frame).
So the test part of :func:`train_validation_test_split` is the one :func:`stratified_split`
draws with the same generator, and the validation part comes from the rest.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from nlpbias.core.checks import check_fraction
from nlpbias.core.repro import rng as _rng
from nlpbias.data.frames import as_labels, check_frame

__all__ = ["stratified_split", "train_validation_test_split"]


def _draw(
    df: pd.DataFrame, fractions: Sequence[float], gen: np.random.Generator, label: str
) -> list[list]:
    """Index labels of each held-out part, drawn per part and label value (module docstring)."""
    groups = [(key, g.index.to_numpy()) for key, g in df.groupby(label)]
    left = {key: idx for key, idx in groups}
    parts: list[list] = []
    for fraction in fractions:
        drawn: list = []
        for key, idx in groups:
            k = int(round(len(idx) * fraction))
            pick = gen.choice(left[key], size=k, replace=False)
            left[key] = left[key][~np.isin(left[key], pick)]
            drawn.extend(pick.tolist())
        parts.append(drawn)
    return parts


def stratified_split(df: pd.DataFrame, test_fraction: float, gen: np.random.Generator):
    """Split ``df`` at random into (train, test), stratified by the ``toxic`` label."""
    (test_idx,) = _draw(df, [test_fraction], gen, "toxic")
    test = df.loc[sorted(test_idx)]
    return df.drop(index=test.index), test


def train_validation_test_split(
    df: pd.DataFrame,
    *,
    validation_fraction: float,
    test_fraction: float,
    random_state: None | int | np.random.Generator,
    label: str = "toxic",
) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """Split ``df`` at random into train, validation and test parts, stratified by ``label``.

    Each label value is split in the same proportions: its validation part has
    ``round(n * validation_fraction)`` of its ``n`` rows, its test part ``round(n *
    test_fraction)``, its train part the rest (draws: module docstring). Deterministic for a
    given ``random_state``; the parts keep ``df``'s index and row order.

    Parameters
    ----------
    df : DataFrame
        Rows to split, with a unique index and a bool (or 0/1) ``label`` column.
    validation_fraction, test_fraction : float
        Shares of every label value's rows held out for validation and for the test, each in
        (0, 1), together below 1.
    random_state : None, int or numpy.random.Generator
        Seeds the draws (see :func:`nlpbias.core.repro.rng`).
    label : str, default 'toxic'
        The column to stratify on.

    Returns
    -------
    tuple of DataFrame
        ``(train, validation, test)``, disjoint, together ``df``.

    Raises
    ------
    ValueError
        If the fractions sum to 1 or more, or leave a part without rows of some label value
        (too small a fraction or too few rows), or the labels are not bool / 0/1.

    Examples
    --------
    >>> df = pd.DataFrame({"text": list("abcdefghij"), "toxic": [True, False] * 5})
    >>> train, val, test = train_validation_test_split(
    ...     df, validation_fraction=0.2, test_fraction=0.2, random_state=0)
    >>> len(train), len(val), len(test), int(val["toxic"].sum()), int(test["toxic"].sum())
    (6, 2, 2, 1, 1)
    """
    what = "train_validation_test_split"
    df = check_frame(df, [label], what)
    fractions = {
        "validation_fraction": check_fraction(validation_fraction, "validation_fraction"),
        "test_fraction": check_fraction(test_fraction, "test_fraction"),
    }
    if sum(fractions.values()) >= 1:
        raise ValueError(
            f"{what}: validation_fraction + test_fraction = {sum(fractions.values()):g} leaves no "
            "training rows; pass fractions that sum to less than 1"
        )
    if not df.index.is_unique:
        raise ValueError(f"{what}: the frame's index has duplicates; call reset_index() first")
    y = as_labels(df[label])
    counts = y.value_counts().sort_index()
    for name, f in fractions.items():
        part = name.removesuffix("_fraction")
        for value, n in counts.items():
            k = int(round(n * f))
            if k == 0:
                raise ValueError(
                    f"{what}: {name}={f:g} leaves the {part} part without {label}={value} rows "
                    f"(round({n} x {f:g}) = 0); pass a larger {name} or more rows"
                )
    for value, n in counts.items():
        n_train = n - sum(int(round(n * f)) for f in fractions.values())
        if n_train <= 0:
            raise ValueError(
                f"{what}: validation_fraction + test_fraction leave the train part without "
                f"{label}={value} rows (only {n}); pass smaller fractions or more rows"
            )
    gen = _rng(random_state)
    frame = df.assign(**{label: y})  # stratify on the bool labels, return the input's columns
    test_idx, val_idx = _draw(
        frame, [fractions["test_fraction"], fractions["validation_fraction"]], gen, label
    )
    in_test, in_val = df.index.isin(test_idx), df.index.isin(val_idx)
    return df[~in_test & ~in_val], df[in_val], df[in_test]
