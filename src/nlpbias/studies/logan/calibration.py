"""Is a local gap more than chance? LOGAN's permutation null and the gap of random splits.

:func:`max_gap_null` refits LOGAN with shuffled group labels to give the largest cluster gap a
p-value; :func:`random_split_gap` is the paper's calibration of the bias threshold (the gap
between two random groups). Both report points (``100 * gap``).
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np
import pandas as pd
from sklearn.base import clone

from nlpbias.core.checks import check_int
from nlpbias.core.progress import progress
from nlpbias.core.repro import rng as _rng
from nlpbias.metrics.stats import permutation_pvalue
from nlpbias.studies.logan.estimator import LOGAN, logan_or_default
from nlpbias.studies.logan.group_metrics import check_group_data, check_vector, group_metrics
from nlpbias.studies.logan.summaries import local_bias_summary

__all__ = ["NullResult", "max_gap_null", "random_split_gap"]


class NullResult(NamedTuple):
    """Observed largest cluster |gap| (points), its permutation null and the p-value."""

    observed: float
    null: np.ndarray
    p_value: float


def _max_gap(est: LOGAN) -> float:
    """Largest eligible-cluster |gap| of a fitted LOGAN, in points."""
    return local_bias_summary(est.cluster_report_)["max_abs_gap_pts"]


def max_gap_null(
    X: Any,
    *,
    y_true: Any,
    y_pred_or_score: Any,
    group: Any,
    estimator: LOGAN | None = None,
    n_permutations: int,
    random_state: int | np.random.Generator | None,
    show_progress: bool = True,
) -> NullResult:
    """Permutation null of the largest eligible-cluster |gap|: shuffle the group labels, refit.

    Every refit uses the estimator's settings and k-means++ seed (a seed is drawn once if it has
    none), so only the group labels differ. ``p = (k + 1) / (n + 1)`` where ``k`` of the ``n``
    permutations give a largest gap at least the observed one.

    Returns
    -------
    NullResult
        ``observed`` (points), ``null`` (array of ``n_permutations`` points), ``p_value``.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> X, y, g = rng.normal(size=(200, 3)), rng.integers(0, 2, 200), np.tile([0, 1], 100)
    >>> est = LOGAN(n_clusters=2, min_clusters=1, lam=0.0, random_state=0)
    >>> res = max_gap_null(X, y_true=y, y_pred_or_score=y, group=g, estimator=est,
    ...                    n_permutations=9, random_state=0, show_progress=False)
    >>> len(res.null), res.p_value >= 0.1
    (9, True)
    """
    n_permutations = check_int(n_permutations, "n_permutations", minimum=1)
    gen = _rng(random_state)
    est = clone(logan_or_default(estimator))
    if est.random_state is None or isinstance(est.random_state, np.random.RandomState):
        est.set_params(random_state=int(gen.integers(2**31 - 1)))
    group = np.asarray(group)
    observed = _max_gap(
        clone(est).fit(X, y_true=y_true, y_pred_or_score=y_pred_or_score, group=group)
    )
    null = np.empty(n_permutations)
    bar = progress(range(n_permutations), enabled=show_progress, desc="permutations")
    for b in bar:
        perm = group[gen.permutation(len(group))]
        fitted = clone(est).fit(X, y_true=y_true, y_pred_or_score=y_pred_or_score, group=perm)
        null[b] = _max_gap(fitted)
    return NullResult(observed, null, permutation_pvalue(observed, null, alternative="greater"))


def random_split_gap(
    y_true: Any,
    y_pred_or_score: Any,
    *,
    group: Any = None,
    metric: str = "accuracy",
    n_splits: int = 5,
    random_state: int | np.random.Generator | None,
) -> pd.DataFrame:
    """Gap between two random groups: the paper's calibration (2.4 %; threshold = mean + sd).

    With ``group`` the random groups keep the real group sizes (the labels are shuffled);
    without it they are random halves.

    Returns
    -------
    pandas.DataFrame
        One row per split: ``split, n_a1, n_a2, metric_a1, metric_a2, gap_pts, abs_gap_pts``.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> y, yhat = rng.integers(0, 2, 1000), rng.integers(0, 2, 1000)
    >>> t = random_split_gap(y, yhat, n_splits=5, random_state=0)
    >>> t.shape, bool((t["n_a1"] == 500).all())
    ((5, 7), True)
    """
    n_splits = check_int(n_splits, "n_splits", minimum=1)
    n = len(check_vector(y_true, "y_true", None))
    base = np.arange(n) % 2 if group is None else np.asarray(group)
    data = check_group_data(y_true, y_pred_or_score, base, metric=metric)
    gen = _rng(random_state)
    rows = []
    for s in range(n_splits):
        shuffled = data._replace(gcode=data.gcode[gen.permutation(n)])
        metric_, size = group_metrics(np.zeros(n, dtype=np.int64), shuffled, 1)
        gap = 100 * (metric_[0, 0] - metric_[0, 1])
        rows.append((s, int(size[0, 0]), int(size[0, 1]), *metric_[0], gap, abs(gap)))
    cols = ["split", "n_a1", "n_a2", "metric_a1", "metric_a2", "gap_pts", "abs_gap_pts"]
    return pd.DataFrame(rows, columns=cols)
