"""The two groups' data, checked, and their per-cluster metrics (accuracy or AUC) for LOGAN.

:func:`check_group_data` turns ``y_true, y_pred_or_score, group`` into a :class:`GroupData`
(group coded 0/1 for ``A1``/``A2``; correctness for accuracy, labels and scores for AUC);
:func:`group_metrics` gives each group's metric and size per cluster and :func:`current_gaps`
the gap ``A1 - A2`` per cluster, 0 where undefined (the objective's convention, see
:mod:`nlpbias.studies.logan.estimator`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, NamedTuple

import numpy as np
import pandas as pd
from scipy.stats import rankdata

from nlpbias.core.checks import check_choice

__all__ = [
    "METRICS",
    "GroupData",
    "check_group_data",
    "check_metric",
    "check_vector",
    "current_gaps",
    "gap_from_counts",
    "group_counts",
    "group_metrics",
]

METRICS = ("accuracy", "auc")


class GroupData(NamedTuple):
    """The checked inputs of LOGAN: group codes and what the metric needs, per row."""

    gcode: np.ndarray  # int64 0/1: A1/A2
    correct: np.ndarray | None  # float64 0/1 (accuracy)
    y: np.ndarray | None  # bool (auc)
    score: np.ndarray | None  # float64 (auc)
    groups: tuple[Any, Any]
    metric: str


def check_metric(metric: object) -> str:
    """``metric`` if it is one of :data:`METRICS`, else a one-line ValueError."""
    return str(check_choice(metric, "metric", METRICS))


def check_vector(a: Any, name: str, n: int | None, ref: str = "X") -> np.ndarray:
    """``a`` as a non-empty 1-D array without missing values (of ``n`` rows, like ``ref``)."""
    v = np.asarray(a)
    if v.ndim != 1 or v.size == 0:
        raise ValueError(f"{name} must be a non-empty 1-D array, got shape {v.shape}")
    if n is not None and len(v) != n:
        raise ValueError(f"{name} has {len(v)} rows but {ref} has {n}; pass one value per row")
    if pd.isna(v).any():
        raise ValueError(f"{name} has {int(pd.isna(v).sum())} missing values; drop those rows")
    return v


def check_group_data(
    y_true: Any,
    y_pred_or_score: Any,
    group: Any,
    *,
    metric: str,
    groups: Sequence[Any] | None = None,
    n: int | None = None,
) -> GroupData:
    """Check the labels, predictions (or scores) and the two-valued group of LOGAN."""
    metric = check_metric(metric)
    yt = check_vector(y_true, "y_true", n)
    n = len(yt)
    yp = check_vector(y_pred_or_score, "y_pred_or_score", n, "y_true")
    g = check_vector(group, "group", n, "y_true")
    values = np.unique(g)
    if groups is None:
        if len(values) != 2:
            raise ValueError(
                f"group must hold exactly two values, got {len(values)} ({values[:5].tolist()}); "
                "keep only the rows of the two groups to compare"
            )
        groups = (values[0], values[1])
    else:
        groups = tuple(groups)
        if len(groups) != 2 or groups[0] == groups[1]:
            raise ValueError(f"groups must be two distinct values, got {groups!r}")
        other = ~np.isin(g, groups)
        if other.any():
            raise ValueError(
                f"group has {int(other.sum())} rows outside groups={groups!r} "
                f"(first: {g[other][0]!r}); drop them or fix groups"
            )
        missing = [v for v in groups if not np.any(g == v)]
        if missing:
            raise ValueError(f"group has no row of {missing[0]!r}; both groups need members")
    gcode = (g == groups[1]).astype(np.int64)
    groups = tuple(v.item() if isinstance(v, np.generic) else v for v in groups)
    if metric == "accuracy":
        if np.issubdtype(yp.dtype, np.floating) and np.any(yp != np.round(yp)):
            raise ValueError(
                "y_pred_or_score holds non-integer values, which look like scores; with "
                "metric='accuracy' pass predicted labels (threshold the scores) or use metric='auc'"
            )
        return GroupData(gcode, (yt == yp).astype(np.float64), None, None, groups, metric)
    classes = np.unique(yt)
    if len(classes) != 2:
        raise ValueError(
            f"metric='auc' needs binary y_true, got {len(classes)} classes; binarise y_true"
        )
    if yp.dtype == bool or not np.issubdtype(yp.dtype, np.number):
        raise ValueError(f"metric='auc' needs numeric scores, got dtype {yp.dtype}")
    score = yp.astype(np.float64)
    if not np.all(np.isfinite(score)):
        raise ValueError("y_pred_or_score has infinite values; drop or fix those rows")
    return GroupData(gcode, None, yt == classes[1], score, groups, metric)


def gap_from_counts(correct: np.ndarray, total: np.ndarray, undefined: float) -> np.ndarray:
    """Accuracy gap A1 - A2 per row of (k, 2) count arrays; ``undefined`` where a group is empty."""
    ok = (total > 0).all(axis=1)
    acc = np.divide(correct, total, out=np.zeros_like(correct, dtype=float), where=total > 0)
    return np.where(ok, acc[:, 0] - acc[:, 1], undefined)


def group_counts(labels: np.ndarray, data: GroupData, k: int) -> tuple[np.ndarray, np.ndarray]:
    """(correct, total) arrays of shape (k, 2): counts per cluster and group."""
    cell = 2 * labels + data.gcode
    total = np.bincount(cell, minlength=2 * k).reshape(k, 2).astype(float)
    weights = data.correct if data.correct is not None else None
    correct = np.bincount(cell, weights=weights, minlength=2 * k).reshape(k, 2)
    return correct, total


def _auc(y: np.ndarray, s: np.ndarray) -> float:
    """Rank-based ROC AUC (ties count 1/2); NaN with one class."""
    n_pos = int(y.sum())
    n_neg = len(y) - n_pos
    if n_pos == 0 or n_neg == 0:
        return float("nan")
    ranks = rankdata(s)
    return float((ranks[y].sum() - n_pos * (n_pos + 1) / 2) / (n_pos * n_neg))


def group_metrics(labels: np.ndarray, data: GroupData, k: int) -> tuple[np.ndarray, np.ndarray]:
    """(metric, size) arrays of shape (k, 2); metric NaN where undefined."""
    correct, total = group_counts(labels, data, k)
    if data.metric == "accuracy":
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(total > 0, correct / total, np.nan), total
    metric = np.full((k, 2), np.nan)
    cell = 2 * labels + data.gcode
    order = np.argsort(cell, kind="stable")
    bounds = np.searchsorted(cell[order], np.arange(2 * k + 1))
    for c in range(2 * k):
        idx = order[bounds[c] : bounds[c + 1]]
        if idx.size:
            metric[c // 2, c % 2] = _auc(data.y[idx], data.score[idx])
    return metric, total


def current_gaps(labels: np.ndarray, data: GroupData, k: int) -> np.ndarray:
    """Gap per cluster, 0 where undefined (the objective's convention)."""
    metric, _ = group_metrics(labels, data, k)
    gap = metric[:, 0] - metric[:, 1]
    return np.where(np.isnan(gap), 0.0, gap)
