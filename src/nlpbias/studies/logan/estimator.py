"""LOGAN: local group bias detection by clustering (Zhao & Chang, 2020), the estimator.

LOGAN clusters the evaluation set so that clusters are compact *and* show a large performance gap
between two groups ``A1`` and ``A2``::

    min  sum_i ||x_i - mu_{c(i)}||^2  -  lam * sum_k gap_k^2,   gap_k = P_k(A1) - P_k(A2)

with ``P`` the accuracy (or AUC) of the model on the group's members of cluster ``k``. It is solved
like Lloyd's algorithm: the assignment step puts ``x_i`` in the cluster minimising
``||x_i - mu_k||^2 - lam * gap_k(x_i joins k)^2``; the update step recomputes the means.

Conventions (read these before comparing numbers with the paper)
-----------------------------------------------------------------
- Gaps are fractions in ``[-1, 1]`` (``A1`` minus ``A2``) in :attr:`LOGAN.cluster_report_`; the
  summaries (:func:`~nlpbias.studies.logan.summaries.local_bias_summary`,
  :func:`~nlpbias.studies.logan.summaries.select_lambda`,
  :func:`~nlpbias.studies.logan.calibration.max_gap_null`,
  :func:`~nlpbias.studies.logan.calibration.random_split_gap`) report *points*, i.e.
  ``100 * gap``, as the paper does (for AUC too: an AUC gap of 0.05 is 5 points). ``A1``/``A2``
  are the two group values in sorted order unless ``groups=(a1, a2)`` fixes them.
- Assignment is a *batch* step: the per-cluster counts (correct / total per group) come from the
  previous assignment, and the candidate gap of ``x_i`` for cluster ``k`` is the gap with ``x_i``
  added to those counts (unchanged when ``x_i`` already is in ``k``). It depends only on
  (group, correct, k), so it is a table of ``4 x k`` values gathered per point: O(1) per
  (point, cluster), no per-point loop. The first assignment (no previous counts) is plain K-Means.
  The original code updates labels in place while it scans the points (half online); ours does not.
- The assignment rule is the paper's: joining cluster ``k`` is rewarded by the whole
  ``lam * gap_k^2``, not by the change a move makes to ``sum_k gap_k^2``, so it is not an exact
  descent on the objective above. A large ``lam`` (relative to squared distances) pulls points into
  the most biased cluster, which grows: the uneven clusters the paper lists as a limitation.
  With such a ``lam`` the batch rule can also oscillate and stop only at ``max_iter``
  (``converged_`` is then False). ``objective_`` reports the paper's objective for the chosen run.
  ``rule="exact"`` replaces the reward by the change a move makes to ``sum_k gap_k^2`` (leaving
  the own cluster and joining ``k``, from the same previous counts): for one point moved against
  fixed centres, the exact change of the objective. ``lam=0`` is K-Means under both rules.
- A cluster whose group is empty has an undefined gap; the objective counts it as 0 (no reward for
  one-group clusters; the original code set the empty group's accuracy to 0, which rewards them).
  The report shows NaN there and marks the cluster not ``eligible``.
- ``metric="auc"``: a per-cluster AUC cannot be updated in O(1) per point, so the objective uses
  the *current* AUC gap of each cluster without the candidate adjustment. For clusters of more than
  a few dozen members the adjustment is O(1/n_k) anyway, so this is what the original per-point
  recomputation amounts to. An AUC with one class in a group's members is undefined (gap 0 / NaN).
- Empty clusters during the iterations are re-seeded with the points farthest from their centres
  (as scikit-learn does); those points move to the re-seeded cluster.
- ``tol`` is relative, as in scikit-learn: convergence when no label changes or the summed squared
  centre shift is at most ``tol * mean(var(X, axis=0))``. ``X`` is centred first, as scikit-learn
  does. ``lam=0`` is then scikit-learn's Lloyd K-Means: in float64 the same initial centres (or the
  same ``random_state``) give the same labels, centres and inertia; in float32 a few near-ties can
  break the other way (different summation order), so runs may differ slightly.
- Merging after the fit: while some cluster has fewer than ``min_group_size`` members of either
  group and more than ``min_clusters`` clusters remain, the cluster with the fewest members of its
  rarer group (ties: fewer members, then lower id) is merged into the **nearest** other centre
  (Euclidean; the original code picks the least similar one, a bug) and the mean is recomputed.
- BCR / BIR: share of eligible clusters with ``|gap| >= threshold`` points, and share of the
  instances in eligible clusters that sit in those clusters (both in percent).

This module holds the estimator; its parts live beside it:
:mod:`~nlpbias.studies.logan.group_metrics` (the checked inputs and per-cluster metrics),
:mod:`~nlpbias.studies.logan.lloyd` (the iteration), :mod:`~nlpbias.studies.logan.merging`,
:mod:`~nlpbias.studies.logan.summaries` (BCR, BIR, Table 4, the choice of ``lam``),
:mod:`~nlpbias.studies.logan.calibration` (permutation null, random splits) and
:mod:`~nlpbias.studies.logan.topics` (topic words).
"""

from __future__ import annotations

import logging
import warnings
from typing import Any

import numpy as np
import pandas as pd
from sklearn.base import BaseEstimator
from sklearn.cluster import kmeans_plusplus
from sklearn.utils import check_array, check_random_state

from nlpbias.core.checks import check_choice, check_int
from nlpbias.studies.logan.group_metrics import (
    METRICS,
    GroupData,
    check_group_data,
    check_metric,
    current_gaps,
    group_metrics,
)
from nlpbias.studies.logan.lloyd import RULES, lloyd, sq_dist_to
from nlpbias.studies.logan.merging import merge_clusters

__all__ = ["LOGAN", "METRICS", "cluster_report", "kmeanspp_starts", "logan_or_default"]

log = logging.getLogger(__name__)


def _check_X(X: Any) -> np.ndarray:
    try:
        return check_array(X, dtype=[np.float64, np.float32], order="C")
    except ValueError as err:
        raise ValueError(
            f"X must be a finite 2-D numeric array: {str(err).splitlines()[0]}"
        ) from None


class LOGAN(BaseEstimator):
    """K-Means with a local-group-bias reward (Zhao & Chang, 2020); ``lam=0`` is K-Means.

    Parameters
    ----------
    n_clusters : int, default=10
        Clusters before merging.
    lam : float, default=5.0
        Weight of the bias term; its effect depends on the scale of ``X`` (squared distances).
    metric : {"accuracy", "auc"}, default="accuracy"
        Per-group performance inside a cluster (see the module notes for the AUC approximation).
    min_group_size : int, default=20
        Members of each group a cluster needs to be kept and to count for bias detection.
    min_clusters : int, default=5
        Merging stops when this many clusters remain.
    max_iter, tol : int, float
        Lloyd iterations and relative centre-shift tolerance (as in scikit-learn).
    rule : {"paper", "exact"}, default="paper"
        Assignment rule: the paper's (reward the level of the joined cluster's gap) or an exact
        descent step on the objective (reward the change of ``sum_k gap_k^2`` from the move;
        accuracy only). See :mod:`nlpbias.studies.logan.lloyd`.
    n_init : int, default=1
        k-means++ restarts; the run with the lowest objective (inertia - lam * sum gap^2) wins.
    init : "k-means++" or array of shape (n_clusters, n_features), default="k-means++"
        Initial centres; an array means one run.
    groups : tuple of two group values, optional
        ``(A1, A2)``: fixes the sign of the gap (default: the two values in sorted order).
    random_state : int, RandomState or None
        Seeds k-means++ (draws as :class:`sklearn.cluster.KMeans` does).

    Attributes
    ----------
    labels_ : ndarray of shape (n_samples,)
        Cluster of each row after merging (0 .. n_clusters_ - 1).
    cluster_centers_ : ndarray of shape (n_clusters_, n_features)
    inertia_ : float
        The clustering term only, sum of squared distances to the centres after merging.
    objective_ : float
        ``inertia - lam * sum_k gap_k^2`` of the chosen run before merging.
    cluster_report_ : pandas.DataFrame
        One row per cluster: ``size, n_a1, n_a2, metric_a1, metric_a2, gap, abs_gap, eligible``
        (gap a fraction, NaN where undefined); ``attrs`` hold ``metric``, ``groups``,
        ``global_metric_a1/a2``, ``global_gap`` and ``min_group_size``.
    merges_ : pandas.DataFrame
        One row per merge (cluster ids before merging).
    converged_ : bool
        False when the chosen run stopped at ``max_iter`` (a large ``lam`` can make the batch
        rule oscillate); such a fit is not a local optimum of the objective.
    n_clusters_, n_iter_, groups_, n_features_in_

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> X = np.r_[rng.normal(0, 1, (60, 2)), rng.normal(8, 1, (60, 2))]
    >>> group = np.tile(["a", "b"], 60)
    >>> y = rng.integers(0, 2, 120)
    >>> est = LOGAN(n_clusters=2, min_clusters=1, lam=1.0, random_state=0)
    >>> est = est.fit(X, y_true=y, y_pred_or_score=y, group=group)
    >>> est.cluster_report_["eligible"].tolist()
    [True, True]
    """

    def __init__(
        self,
        n_clusters: int = 10,
        *,
        lam: float = 5.0,
        metric: str = "accuracy",
        min_group_size: int = 20,
        min_clusters: int = 5,
        max_iter: int = 300,
        tol: float = 1e-4,
        n_init: int = 1,
        init: str | np.ndarray = "k-means++",
        groups: tuple[Any, Any] | None = None,
        rule: str = "paper",
        random_state: int | np.random.RandomState | None = None,
    ) -> None:
        self.n_clusters = n_clusters
        self.lam = lam
        self.metric = metric
        self.min_group_size = min_group_size
        self.min_clusters = min_clusters
        self.max_iter = max_iter
        self.tol = tol
        self.n_init = n_init
        self.init = init
        self.groups = groups
        self.rule = rule
        self.random_state = random_state

    def _check_params(self, n: int, d: int) -> None:
        for name, minimum in [("n_clusters", 1), ("min_group_size", 0), ("min_clusters", 1)]:
            check_int(getattr(self, name), name, minimum=minimum)
        for name in ("max_iter", "n_init"):
            check_int(getattr(self, name), name, minimum=1)
        check_metric(self.metric)
        check_choice(self.rule, "rule", RULES)
        if self.rule == "exact" and self.metric != "accuracy":
            raise ValueError(
                "rule='exact' needs metric='accuracy' (an AUC gap has no O(1) update per point); "
                "use rule='paper' for AUC"
            )
        if not np.isfinite(self.lam) or self.lam < 0:
            raise ValueError(f"lam must be a finite number >= 0, got {self.lam!r}")
        if not np.isfinite(self.tol) or self.tol < 0:
            raise ValueError(f"tol must be a finite number >= 0, got {self.tol!r}")
        if self.n_clusters > n:
            raise ValueError(f"n_clusters={self.n_clusters} exceeds the {n} rows of X; lower it")
        if self.min_clusters > self.n_clusters:
            raise ValueError(
                f"min_clusters={self.min_clusters} exceeds n_clusters={self.n_clusters}; lower it"
            )
        if not (isinstance(self.init, str) and self.init == "k-means++"):
            shape = np.shape(self.init)
            if shape != (self.n_clusters, d):
                raise ValueError(
                    f"init must be 'k-means++' or an array of shape ({self.n_clusters}, {d}), "
                    f"got {'shape ' + str(shape) if shape else repr(self.init)}"
                )

    def fit(self, X: Any, *, y_true: Any, y_pred_or_score: Any, group: Any) -> LOGAN:
        """Cluster ``X`` (n x d) given labels, predictions (or scores) and a two-valued group.

        Returns
        -------
        LOGAN
            ``self``, fitted.
        """
        X = _check_X(X)
        n, d = X.shape
        self._check_params(n, d)
        data = check_group_data(
            y_true, y_pred_or_score, group, metric=self.metric, groups=self.groups, n=n
        )
        tol = float(np.mean(np.var(X, axis=0))) * self.tol
        X_mean = X.mean(axis=0)
        X = X - X_mean  # centred, as scikit-learn does: fewer float32 rounding errors
        if isinstance(self.init, str):
            inits = kmeanspp_starts(X, self.n_clusters, self.n_init, self.random_state)
        else:
            if self.n_init != 1:
                warnings.warn("init is an array: running once (n_init=1)", RuntimeWarning, 2)
            inits = [np.asarray(self.init, dtype=X.dtype) - X_mean]
        best = None
        for init in inits:
            labels, centers, n_iter, converged = lloyd(
                X, init, data, self.lam, self.max_iter, tol, self.rule
            )
            inertia = float(sq_dist_to(X, centers, labels).sum())
            gaps = current_gaps(labels, data, self.n_clusters)
            objective = inertia - self.lam * float((gaps**2).sum())
            log.debug("LOGAN run: %d iterations, objective %.6g", n_iter, objective)
            if best is None or objective < best[0]:
                best = (objective, labels, centers, n_iter, inertia, converged)
        self.objective_, labels, centers, self.n_iter_, inertia, self.converged_ = best
        labels, centers, self.merges_ = merge_clusters(
            X, labels, centers, data.gcode, self.min_group_size, self.min_clusters
        )
        self.labels_, self.cluster_centers_ = labels, centers + X_mean
        self.n_clusters_ = len(centers)
        self.inertia_ = (
            float(sq_dist_to(X, centers, labels).sum()) if len(self.merges_) else inertia
        )
        self.groups_ = data.groups
        self.n_features_in_ = d
        self.cluster_report_ = cluster_report(labels, data, self.n_clusters_, self.min_group_size)
        return self


#: Recent k-means++ starts: (centred X, (n_clusters, n_init, seed), starts), newest first.
_STARTS: list[tuple[np.ndarray, tuple[int, int, int], list[np.ndarray]]] = []
_STARTS_KEPT = 4


def kmeanspp_starts(
    X: np.ndarray, n_clusters: int, n_init: int, random_state: Any
) -> list[np.ndarray]:
    """The ``n_init`` k-means++ starts of a fit on the centred ``X``, in the order drawn.

    With an int ``random_state`` the starts depend only on ``X``, ``n_clusters``, ``n_init`` and
    the seed, not on the groups, the predictions, ``lam`` or the rule. The permutation null
    (400 refits on shuffled groups), the λ grid and the seed spread refit the same rows from
    the same seed again and again, and k-means++ (scikit-learn's, with its float64 distance
    chunks) was a third of the time of such a refit. So the starts of the last few such calls
    are kept and returned again when ``X`` is *equal* (compared element by element, not by
    identity) and the other three match: the same arrays the draw would give, so every fit
    is bit-identical to one that draws afresh. A ``RandomState`` or None draws every time.
    """
    seeded = isinstance(random_state, int | np.integer) and not isinstance(random_state, bool)
    key = (int(n_clusters), int(n_init), int(random_state)) if seeded else None
    if seeded:
        for i, (stored, stored_key, starts) in enumerate(_STARTS):
            if stored_key == key and stored.shape == X.shape and stored.dtype == X.dtype:
                if np.array_equal(stored, X):
                    _STARTS.insert(0, _STARTS.pop(i))
                    return starts
    rs = check_random_state(random_state)
    x_sq = np.einsum("ij,ij->i", X, X)
    starts = [
        kmeans_plusplus(X, n_clusters, x_squared_norms=x_sq, random_state=rs)[0]
        for _ in range(n_init)
    ]
    if seeded and _STARTS_KEPT > 0:
        for start in starts:
            start.setflags(write=False)
        _STARTS.insert(0, (X.copy(), key, starts))
        del _STARTS[_STARTS_KEPT:]
    return starts


def cluster_report(
    labels: np.ndarray, data: GroupData, k: int, min_group_size: int
) -> pd.DataFrame:
    """The :attr:`LOGAN.cluster_report_` of ``labels`` (``k`` clusters) for checked ``data``
    (:func:`~nlpbias.studies.logan.group_metrics.check_group_data`): also what
    :func:`~nlpbias.studies.logan.cluster_tables.rescore` scores a fit's clusters with."""
    metric, size = group_metrics(labels, data, k)
    gap = metric[:, 0] - metric[:, 1]
    rep = pd.DataFrame(
        {
            "cluster": np.arange(k),
            "size": size.sum(axis=1).astype(int),
            "n_a1": size[:, 0].astype(int),
            "n_a2": size[:, 1].astype(int),
            "metric_a1": metric[:, 0],
            "metric_a2": metric[:, 1],
            "gap": gap,
            "abs_gap": np.abs(gap),
            "eligible": (size.min(axis=1) >= min_group_size) & ~np.isnan(gap),
        }
    )
    glob, _ = group_metrics(np.zeros(len(labels), dtype=np.int64), data, 1)
    rep.attrs.update(
        metric=data.metric,
        groups=data.groups,
        global_metric_a1=float(glob[0, 0]),
        global_metric_a2=float(glob[0, 1]),
        global_gap=float(glob[0, 0] - glob[0, 1]),
        min_group_size=min_group_size,
    )
    return rep


def logan_or_default(estimator: LOGAN | None) -> LOGAN:
    """``estimator`` if it is a :class:`LOGAN`, a default ``LOGAN()`` for None, else a TypeError."""
    if estimator is None:
        return LOGAN()
    if not isinstance(estimator, LOGAN):
        raise TypeError(f"estimator must be a LOGAN, got {type(estimator).__name__}")
    return estimator
