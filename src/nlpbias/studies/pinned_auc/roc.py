"""The basic metrics of a scored binary classifier: AUC, the EER threshold, the generalised mean.

Also the checks of labels and scores that every metric of the chapter applies
(:func:`check_labels`, :func:`check_scores`, :func:`check_both_classes`). The conventions (a row
is predicted positive when ``score >= threshold``; the EER grid; Jigsaw's ``p = -5``) are those
of :mod:`nlpbias.studies.pinned_auc.metrics`.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any

import numpy as np
from sklearn.metrics import roc_auc_score

from nlpbias.core.checks import check_int

__all__ = [
    "auc",
    "check_both_classes",
    "check_labels",
    "check_scores",
    "eer_threshold",
    "generalized_mean",
]


# ------------------------------------------------------------------------------ input checks
def check_labels(y_true: Any) -> np.ndarray:
    """``y_true`` as a 1-D bool array (from bool or 0/1 labels); a one-line ValueError otherwise."""
    y = np.asarray(y_true)
    if y.ndim != 1 or y.size == 0:
        raise ValueError(f"y_true must be a non-empty 1-D array of labels, got shape {y.shape}")
    if y.dtype == bool:
        return y
    if not np.issubdtype(y.dtype, np.number):
        raise ValueError(f"y_true must hold 0/1 or bool labels, got dtype {y.dtype}")
    bad = ~np.isin(y, (0, 1))
    if bad.any():
        raise ValueError(
            f"y_true must hold only 0/1 or bool labels; {int(bad.sum())} values are not "
            f"(first: {y[bad][0]!r}); binarise the labels first"
        )
    return y.astype(bool)


def check_scores(y_score: Any, n: int) -> np.ndarray:
    """``y_score`` as ``n`` finite float64 scores in [0, 1]; a one-line ValueError otherwise."""
    s = np.asarray(y_score)
    if s.ndim != 1:
        raise ValueError(f"y_score must be a 1-D array of scores, got shape {s.shape}")
    if s.dtype == bool or not np.issubdtype(s.dtype, np.number):
        raise ValueError(f"y_score must be numeric scores in [0, 1], got dtype {s.dtype}")
    if len(s) != n:
        raise ValueError(f"y_true has {n} rows but y_score has {len(s)}; pass one score per row")
    s = s.astype(np.float64)
    if not np.all(np.isfinite(s)):
        raise ValueError(
            f"y_score has {int((~np.isfinite(s)).sum())} NaN or infinite values; "
            "drop or fix those rows"
        )
    if s.min() < 0 or s.max() > 1:
        raise ValueError(
            f"y_score must lie in [0, 1], got values in [{s.min():g}, {s.max():g}]; "
            "pass probabilities (e.g. apply a sigmoid) rather than logits"
        )
    return s


def check_both_classes(
    y: np.ndarray, what: str = "y_true", *, metric: str = "AUC", fix: str = ""
) -> None:
    """Raise a one-line ValueError when the bool labels ``y`` hold only one class.

    The message names the metric that is undefined, the class present (with its row count) and
    what to pass instead; ``fix`` adds an alternative to "pass data with both classes".
    """
    if y.all() or not y.any():
        c = int(y[0])
        raise ValueError(
            f"{metric} is undefined: {what} has only class {c} (all {len(y)} rows); "
            f"pass data with both positive (1) and negative (0) examples{fix}"
        )


# --------------------------------------------------------------------------- basic metrics
def auc(y_true: Any, y_score: Any) -> float:
    """Area under the ROC curve (ties between a positive and a negative count 1/2).

    Parameters
    ----------
    y_true : array-like of {0, 1} or bool
    y_score : array-like of float in [0, 1]

    Returns
    -------
    float

    Raises
    ------
    ValueError
        If ``y_true`` has only one class, or the input is malformed.

    Examples
    --------
    >>> auc([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8])
    0.75
    """
    y = check_labels(y_true)
    s = check_scores(y_score, len(y))
    check_both_classes(y)
    return float(roc_auc_score(y, s))


def eer_threshold(y_true: Any, y_score: Any, *, n_grid: int = 101) -> float:
    """Equal-error-rate threshold: the grid point that minimises ``|FP - FN|``.

    The grid is ``k / (n_grid - 1)`` for ``k = 0 … n_grid - 1`` (so ``0.35`` is exactly the
    float ``0.35``), a row is predicted positive when ``score >= threshold``, and FP and FN
    are counts. ``FP - FN`` never increases with the threshold, so the minimisers form one run
    of grid points; the largest is returned (as Dixon's ``compute_equal_error_rate``).

    Parameters
    ----------
    y_true : array-like of {0, 1} or bool
    y_score : array-like of float in [0, 1]
    n_grid : int, default 101
        Number of grid points on [0, 1], at least 2.

    Returns
    -------
    float

    Raises
    ------
    ValueError
        ``y_true`` holds only one class: FP and FN cannot both occur, so every threshold
        below the scores (or above them) "balances" them and the EER is undefined.

    Examples
    --------
    >>> eer_threshold([0, 0, 1, 1], [0.1, 0.35, 0.3, 0.9])
    0.35
    """
    check_int(n_grid, "n_grid", minimum=2)
    y = check_labels(y_true)
    s = check_scores(y_score, len(y))
    check_both_classes(
        y, metric="the EER threshold", fix=", or pass a fixed threshold= to bias_report"
    )
    grid = np.arange(int(n_grid)) / (int(n_grid) - 1)
    neg = np.sort(s[~y])
    pos = np.sort(s[y])
    fp = len(neg) - np.searchsorted(neg, grid, side="left")  # negatives with score >= t
    fn = np.searchsorted(pos, grid, side="left")  # positives with score < t
    gap = np.abs(fp - fn)
    best = np.flatnonzero(gap == gap.min())
    return float(grid[best[-1]])


def generalized_mean(values: Iterable[float], *, p: float = -5.0) -> float:
    r"""Generalised (power) mean :math:`(\frac1N \sum_i v_i^p)^{1/p}` of non-negative values.

    With ``p < 0`` a zero value makes the mean 0 (the limit). ``p = -5`` is the Jigsaw
    competition's choice: it pulls the mean towards the worst subgroup.

    Parameters
    ----------
    values : iterable of float
        Non-negative, finite, at least one.
    p : float, default -5
        Non-zero exponent.

    Returns
    -------
    float

    Examples
    --------
    >>> round(generalized_mean([0.9, 0.8], p=-5), 6)
    0.841306
    """
    v = np.asarray(list(values), dtype=np.float64)
    if v.ndim != 1 or v.size == 0:
        raise ValueError("generalized_mean needs at least one value; pass a non-empty list")
    if not np.all(np.isfinite(v)) or (v < 0).any():
        raise ValueError("generalized_mean needs finite non-negative values; drop NaNs first")
    if isinstance(p, bool) or not isinstance(p, int | float) or p == 0 or not math.isfinite(p):
        raise ValueError(f"p must be a finite non-zero number, got {p!r}; Jigsaw uses p = -5")
    if p < 0 and (v == 0).any():
        return 0.0
    return float(np.mean(v**p) ** (1.0 / p))
