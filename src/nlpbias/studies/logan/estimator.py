"""LOGAN: local group bias detection by clustering (Zhao & Chang, 2020), plus its calibration.

LOGAN clusters the evaluation set so that clusters are compact *and* show a large performance gap
between two groups ``A1`` and ``A2``::

    min  sum_i ||x_i - mu_{c(i)}||^2  -  lam * sum_k gap_k^2,   gap_k = P_k(A1) - P_k(A2)

with ``P`` the accuracy (or AUC) of the model on the group's members of cluster ``k``. It is solved
like Lloyd's algorithm: the assignment step puts ``x_i`` in the cluster minimising
``||x_i - mu_k||^2 - lam * gap_k(x_i joins k)^2``; the update step recomputes the means.

Conventions (read these before comparing numbers with the paper)
-----------------------------------------------------------------
- Gaps are fractions in ``[-1, 1]`` (``A1`` minus ``A2``) in :attr:`LOGAN.cluster_report_`; the
  summaries (:func:`local_bias_summary`, :func:`select_lambda`, :func:`max_gap_null`,
  :func:`random_split_gap`) report *points*, i.e. ``100 * gap``, as the paper does (for AUC too:
  an AUC gap of 0.05 is 5 points). ``A1``/``A2`` are the two group values in sorted order unless
  ``groups=(a1, a2)`` fixes them.
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
  With such a ``lam`` the batch rule can also oscillate and stop only at ``max_iter``.
  ``objective_`` reports the paper's objective for the chosen run.
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
"""

from __future__ import annotations

import logging
import warnings
from collections.abc import Iterable, Sequence
from typing import Any, NamedTuple

import numpy as np
import pandas as pd
from scipy.stats import rankdata
from sklearn.base import BaseEstimator, clone
from sklearn.cluster import kmeans_plusplus
from sklearn.utils import check_array, check_random_state

from nlpbias.core.progress import progress
from nlpbias.core.repro import rng as _rng
from nlpbias.metrics.stats import permutation_pvalue

__all__ = [
    "LOGAN",
    "METRICS",
    "NullResult",
    "compare_with_kmeans",
    "local_bias_summary",
    "max_gap_null",
    "random_split_gap",
    "select_lambda",
    "topic_words",
]

log = logging.getLogger(__name__)

METRICS = ("accuracy", "auc")
_CHUNK_ELEMENTS = 2**22  # entries of one (rows x clusters) cost block


# ------------------------------------------------------------------------------ validation
class _Data(NamedTuple):
    gcode: np.ndarray  # int64 0/1: A1/A2
    correct: np.ndarray | None  # float64 0/1 (accuracy)
    y: np.ndarray | None  # bool (auc)
    score: np.ndarray | None  # float64 (auc)
    groups: tuple[Any, Any]
    metric: str


def _check_metric(metric: object) -> str:
    if metric not in METRICS:
        raise ValueError(f"metric must be 'accuracy' or 'auc', got {metric!r}; pass one of those")
    return str(metric)


def _vector(a: Any, name: str, n: int | None, ref: str = "X") -> np.ndarray:
    v = np.asarray(a)
    if v.ndim != 1 or v.size == 0:
        raise ValueError(f"{name} must be a non-empty 1-D array, got shape {v.shape}")
    if n is not None and len(v) != n:
        raise ValueError(f"{name} has {len(v)} rows but {ref} has {n}; pass one value per row")
    if pd.isna(v).any():
        raise ValueError(f"{name} has {int(pd.isna(v).sum())} missing values; drop those rows")
    return v


def _check_data(
    y_true: Any,
    y_pred_or_score: Any,
    group: Any,
    *,
    metric: str,
    groups: Sequence[Any] | None = None,
    n: int | None = None,
) -> _Data:
    metric = _check_metric(metric)
    yt = _vector(y_true, "y_true", n)
    n = len(yt)
    yp = _vector(y_pred_or_score, "y_pred_or_score", n, "y_true")
    g = _vector(group, "group", n, "y_true")
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
        return _Data(gcode, (yt == yp).astype(np.float64), None, None, groups, metric)
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
    return _Data(gcode, None, yt == classes[1], score, groups, metric)


def _check_X(X: Any) -> np.ndarray:
    try:
        return check_array(X, dtype=[np.float64, np.float32], order="C")
    except ValueError as err:
        raise ValueError(
            f"X must be a finite 2-D numeric array: {str(err).splitlines()[0]}"
        ) from None


# ------------------------------------------------------------------------- group metrics
def _gap_from_counts(correct: np.ndarray, total: np.ndarray, undefined: float) -> np.ndarray:
    """Accuracy gap A1 - A2 per row of (k, 2) count arrays; ``undefined`` where a group is empty."""
    ok = (total > 0).all(axis=1)
    acc = np.divide(correct, total, out=np.zeros_like(correct, dtype=float), where=total > 0)
    return np.where(ok, acc[:, 0] - acc[:, 1], undefined)


def _counts(labels: np.ndarray, data: _Data, k: int) -> tuple[np.ndarray, np.ndarray]:
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


def _group_metrics(labels: np.ndarray, data: _Data, k: int) -> tuple[np.ndarray, np.ndarray]:
    """(metric, size) arrays of shape (k, 2); metric NaN where undefined."""
    correct, total = _counts(labels, data, k)
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


def _current_gaps(labels: np.ndarray, data: _Data, k: int) -> np.ndarray:
    """Gap per cluster, 0 where undefined (the objective's convention)."""
    metric, _ = _group_metrics(labels, data, k)
    gap = metric[:, 0] - metric[:, 1]
    return np.where(np.isnan(gap), 0.0, gap)


def _gap_table(labels: np.ndarray, data: _Data, k: int) -> tuple[np.ndarray, np.ndarray]:
    """Candidate accuracy gaps, table (4, k) by code 2 * group + correct, and current gaps (k,).

    ``table[2 * g + c, j]`` is the gap of cluster ``j`` if a point of group ``g`` and correctness
    ``c`` from another cluster joined it; a point already in ``j`` leaves it at ``current[j]``.
    """
    correct, total = _counts(labels, data, k)
    table = np.empty((4, k))
    for g in (0, 1):
        for c in (0, 1):
            t, r = total.copy(), correct.copy()
            t[:, g] += 1
            r[:, g] += c
            table[2 * g + c] = _gap_from_counts(r, t, 0.0)
    return table, _gap_from_counts(correct, total, 0.0)


def _candidate_gaps(labels: np.ndarray, data: _Data, k: int) -> np.ndarray:
    """(n, k) accuracy gap of cluster j if point i joined it, counts from ``labels``."""
    table, current = _gap_table(labels, data, k)
    cand = table[2 * data.gcode + data.correct.astype(np.int64)]
    cand[np.arange(len(labels)), labels] = current[labels]
    return cand


class _Penalty(NamedTuple):
    """lam * gap^2 by code (4, k) or per cluster (1, k); own-cluster correction for accuracy."""

    table: np.ndarray
    own: np.ndarray | None  # (4, k): lam * (current^2 - table^2), added where j = label
    code: np.ndarray
    labels: np.ndarray


def _penalty(labels: np.ndarray | None, data: _Data, k: int, lam: float) -> _Penalty | None:
    """The bias term of the assignment cost from the previous labels; None when it vanishes."""
    if labels is None or lam == 0:
        return None
    if data.metric == "auc":
        table = lam * _current_gaps(labels, data, k)[None, :] ** 2
        return _Penalty(table, None, np.zeros(len(labels), dtype=np.int64), labels)
    table, current = _gap_table(labels, data, k)
    table = lam * table**2
    own = lam * current[None, :] ** 2 - table
    return _Penalty(table, own, 2 * data.gcode + data.correct.astype(np.int64), labels)


# --------------------------------------------------------------------------- Lloyd steps
def _assign(X: np.ndarray, centers: np.ndarray, pen: _Penalty | None) -> np.ndarray:
    """argmin_k ||x - mu_k||^2 - lam * gap_k(x joins k)^2 (||x||^2 dropped: same for all k)."""
    k = len(centers)
    labels = np.empty(len(X), dtype=np.int64)
    c_sq = np.einsum("ij,ij->i", centers, centers)
    chunk = max(1, _CHUNK_ELEMENTS // k)
    if pen is not None:
        table = pen.table.astype(X.dtype)
    for s in range(0, len(X), chunk):
        cost = X[s : s + chunk] @ centers.T
        cost *= -2
        cost += c_sq
        if pen is not None:
            code = pen.code[s : s + chunk]
            cost -= table[code]
            if pen.own is not None:
                prev = pen.labels[s : s + chunk]
                cost[np.arange(len(code)), prev] -= pen.own[code, prev]
        labels[s : s + chunk] = np.argmin(cost, axis=1)
    return labels


def _sq_dist_to(X: np.ndarray, centers: np.ndarray, labels: np.ndarray) -> np.ndarray:
    out = np.empty(len(X))
    chunk = max(1, _CHUNK_ELEMENTS // X.shape[1])
    for s in range(0, len(X), chunk):
        diff = X[s : s + chunk] - centers[labels[s : s + chunk]]
        out[s : s + chunk] = np.einsum("ij,ij->i", diff, diff)
    return out


def _means(X: np.ndarray, labels: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    onehot = np.zeros((len(X), k), dtype=X.dtype)
    onehot[np.arange(len(X)), labels] = 1
    sums = (X.T @ onehot).T  # BLAS gemm; onehot.T @ X takes a slow non-BLAS path
    counts = np.bincount(labels, minlength=k)
    return sums / np.maximum(counts, 1)[:, None].astype(X.dtype), counts


def _update(
    X: np.ndarray, labels: np.ndarray, old: np.ndarray, k: int
) -> tuple[np.ndarray, np.ndarray]:
    """New centres; empty clusters take the points farthest from their centres (labels edited)."""
    centers, counts = _means(X, labels, k)
    empty = np.flatnonzero(counts == 0)
    if empty.size:
        log.debug("re-seeding %d empty cluster(s)", empty.size)
        far = np.argsort(_sq_dist_to(X, old, labels))[::-1][: empty.size]
        labels[far] = empty
        centers, _ = _means(X, labels, k)
    return centers, labels


def _lloyd(
    X: np.ndarray, init: np.ndarray, data: _Data, lam: float, max_iter: int, tol: float
) -> tuple[np.ndarray, np.ndarray, int]:
    centers = np.array(init, dtype=X.dtype, copy=True)
    k = len(centers)
    labels: np.ndarray | None = None
    strict = False
    for it in range(max_iter):  # noqa: B007 -- n_iter is it + 1, read after the loop
        new = _assign(X, centers, _penalty(labels, data, k, lam))
        new_centers, new = _update(X, new, centers, k)
        shift = float(((new_centers - centers) ** 2).sum())
        centers = new_centers
        if labels is not None and np.array_equal(new, labels):
            strict = True
            break
        labels = new
        if shift <= tol:
            break
    if not strict:  # labels that match the final centres, as scikit-learn does
        labels = _assign(X, centers, _penalty(labels, data, k, lam))
    return labels, centers, it + 1


# --------------------------------------------------------------------------------- merging
def _merge(
    X: np.ndarray,
    labels: np.ndarray,
    centers: np.ndarray,
    gcode: np.ndarray,
    min_group_size: int,
    min_clusters: int,
) -> tuple[np.ndarray, np.ndarray, pd.DataFrame]:
    k = len(centers)
    labels, centers = labels.copy(), centers.astype(np.float64, copy=True)
    sizes = np.bincount(2 * labels + gcode, minlength=2 * k).reshape(k, 2)
    # a cluster left empty by the assignment (possible when lam dwarfs the distances) is dropped:
    # it has no mean to merge, and merging two empty clusters would average no rows (NaN)
    active = [c for c in range(k) if sizes[c].sum() > 0]
    rows = []
    while len(active) > min_clusters:
        small = [c for c in active if sizes[c].min() < min_group_size]
        if not small:
            break
        src = min(small, key=lambda c: (sizes[c].min(), sizes[c].sum(), c))
        others = np.array([c for c in active if c != src])
        dist = np.sqrt(((centers[others] - centers[src]) ** 2).sum(axis=1))
        dst = int(others[np.argmin(dist)])
        rows.append((len(rows), src, dst, *sizes[src], float(dist.min())))
        labels[labels == src] = dst
        sizes[dst] += sizes[src]
        centers[dst] = X[labels == dst].mean(axis=0)
        active.remove(src)
    remap = np.full(k, -1)
    remap[active] = np.arange(len(active))
    merges = pd.DataFrame(
        rows, columns=["step", "source", "target", "source_n_a1", "source_n_a2", "distance"]
    )
    return remap[labels], centers[active].astype(X.dtype), merges


# ------------------------------------------------------------------------------ estimator
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
        self.random_state = random_state

    def _check_params(self, n: int, d: int) -> None:
        def count(name: str, minimum: int) -> None:
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, int | np.integer) or v < minimum:
                raise ValueError(f"{name} must be an int >= {minimum}, got {v!r}")

        for name, minimum in [("n_clusters", 1), ("min_group_size", 0), ("min_clusters", 1)]:
            count(name, minimum)
        for name in ("max_iter", "n_init"):
            count(name, 1)
        _check_metric(self.metric)
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
        data = _check_data(
            y_true, y_pred_or_score, group, metric=self.metric, groups=self.groups, n=n
        )
        tol = float(np.mean(np.var(X, axis=0))) * self.tol
        X_mean = X.mean(axis=0)
        X = X - X_mean  # centred, as scikit-learn does: fewer float32 rounding errors
        if isinstance(self.init, str):
            rs = check_random_state(self.random_state)
            x_sq = np.einsum("ij,ij->i", X, X)
            inits = [
                kmeans_plusplus(X, self.n_clusters, x_squared_norms=x_sq, random_state=rs)[0]
                for _ in range(self.n_init)
            ]
        else:
            if self.n_init != 1:
                warnings.warn("init is an array: running once (n_init=1)", RuntimeWarning, 2)
            inits = [np.asarray(self.init, dtype=X.dtype) - X_mean]
        best = None
        for init in inits:
            labels, centers, n_iter = _lloyd(X, init, data, self.lam, self.max_iter, tol)
            inertia = float(_sq_dist_to(X, centers, labels).sum())
            gaps = _current_gaps(labels, data, self.n_clusters)
            objective = inertia - self.lam * float((gaps**2).sum())
            log.debug("LOGAN run: %d iterations, objective %.6g", n_iter, objective)
            if best is None or objective < best[0]:
                best = (objective, labels, centers, n_iter, inertia)
        self.objective_, labels, centers, self.n_iter_, inertia = best
        labels, centers, self.merges_ = _merge(
            X, labels, centers, data.gcode, self.min_group_size, self.min_clusters
        )
        self.labels_, self.cluster_centers_ = labels, centers + X_mean
        self.n_clusters_ = len(centers)
        self.inertia_ = (
            float(_sq_dist_to(X, centers, labels).sum()) if len(self.merges_) else inertia
        )
        self.groups_ = data.groups
        self.n_features_in_ = d
        self.cluster_report_ = _report(labels, data, self.n_clusters_, self.min_group_size)
        return self


def _report(labels: np.ndarray, data: _Data, k: int, min_group_size: int) -> pd.DataFrame:
    metric, size = _group_metrics(labels, data, k)
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
    glob, _ = _group_metrics(np.zeros(len(labels), dtype=np.int64), data, 1)
    rep.attrs.update(
        metric=data.metric,
        groups=data.groups,
        global_metric_a1=float(glob[0, 0]),
        global_metric_a2=float(glob[0, 1]),
        global_gap=float(glob[0, 0] - glob[0, 1]),
        min_group_size=min_group_size,
    )
    return rep


# ------------------------------------------------------------------------------ summaries
def local_bias_summary(report: pd.DataFrame, *, threshold: float = 5.0) -> dict[str, Any]:
    """Global gap, largest local gap, BCR, BIR and mean |gap| of biased clusters (in points).

    Parameters
    ----------
    report : pandas.DataFrame
        :attr:`LOGAN.cluster_report_`.
    threshold : float, default=5.0
        A cluster is biased when ``|gap| >= threshold`` points (the paper's 5 %).

    Returns
    -------
    dict
        ``global_gap_pts, max_gap_pts`` (signed, of the cluster with the largest ``|gap|``),
        ``max_abs_gap_pts, max_gap_cluster, n_clusters, n_eligible, n_biased, bcr_pct, bir_pct,
        mean_abs_gap_biased_pts`` (None when no cluster is biased). Only eligible clusters count.

    Examples
    --------
    >>> rep = pd.DataFrame({"size": [50, 50], "gap": [0.10, -0.02], "eligible": [True, True]})
    >>> rep.attrs["global_gap"] = 0.01
    >>> s = local_bias_summary(rep)
    >>> s["bcr_pct"], s["max_gap_cluster"], round(s["mean_abs_gap_biased_pts"], 6)
    (50.0, 0, 10.0)
    """
    missing = {"size", "gap", "eligible"} - set(report.columns)
    if missing or "global_gap" not in report.attrs:
        raise ValueError(
            "report must be a LOGAN cluster_report_ (columns size, gap, eligible and "
            "attrs['global_gap']); pass est.cluster_report_"
        )
    if not np.isfinite(threshold) or threshold < 0:
        raise ValueError(f"threshold must be a finite number of points >= 0, got {threshold!r}")
    elig = report[report["eligible"].astype(bool)]
    if elig.empty:
        raise ValueError(
            "no cluster is eligible (enough members of both groups); lower min_group_size "
            "or n_clusters"
        )
    pts = elig["gap"].to_numpy(float) * 100
    biased = np.abs(pts) >= threshold - 1e-9
    top = int(np.argmax(np.abs(pts)))
    size = elig["size"].to_numpy(float)
    return {
        "global_gap_pts": 100 * float(report.attrs["global_gap"]),
        "max_gap_pts": float(pts[top]),
        "max_abs_gap_pts": float(abs(pts[top])),
        "max_gap_cluster": int(elig["cluster"].iloc[top] if "cluster" in elig else elig.index[top]),
        "n_clusters": len(report),
        "n_eligible": len(elig),
        "n_biased": int(biased.sum()),
        "bcr_pct": 100 * float(biased.mean()),
        "bir_pct": 100 * float(size[biased].sum() / size.sum()),
        "mean_abs_gap_biased_pts": float(np.abs(pts[biased]).mean()) if biased.any() else None,
    }


def _template(estimator: LOGAN | None) -> LOGAN:
    if estimator is None:
        return LOGAN()
    if not isinstance(estimator, LOGAN):
        raise TypeError(f"estimator must be a LOGAN, got {type(estimator).__name__}")
    return estimator


def _row(est: LOGAN, threshold: float, kmeans_inertia: float) -> dict[str, Any]:
    row = {"n_iter": est.n_iter_, "inertia": est.inertia_}
    row["inertia_ratio"] = est.inertia_ / kmeans_inertia if kmeans_inertia else float("nan")
    try:
        row.update(local_bias_summary(est.cluster_report_, threshold=threshold))
    except ValueError:
        log.warning("lam=%g: no eligible cluster; its bias columns are NaN", est.lam)
        row.update(n_clusters=est.n_clusters_, n_eligible=0, n_biased=0)
    return row


def compare_with_kmeans(
    X: Any,
    *,
    y_true: Any,
    y_pred_or_score: Any,
    group: Any,
    estimator: LOGAN | None = None,
    threshold: float = 5.0,
) -> pd.DataFrame:
    """The paper's Table 4: K-Means (``lam=0``, same settings and init) vs LOGAN.

    Returns
    -------
    pandas.DataFrame
        Index ``["K-Means", "LOGAN"]``; columns ``lam, inertia, inertia_ratio`` (K-Means = 1)
        and the keys of :func:`local_bias_summary`.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> X, y, g = rng.normal(size=(200, 3)), rng.integers(0, 2, 200), np.tile([0, 1], 100)
    >>> est = LOGAN(n_clusters=2, min_clusters=1, lam=1.0, random_state=0)
    >>> t = compare_with_kmeans(X, y_true=y, y_pred_or_score=y, group=g, estimator=est)
    >>> float(t.loc["K-Means", "inertia_ratio"])
    1.0
    """
    est = _template(estimator)
    fit = {"y_true": y_true, "y_pred_or_score": y_pred_or_score, "group": group}
    km = clone(est).set_params(lam=0.0).fit(X, **fit)
    lo = clone(est).fit(X, **fit)
    rows = {
        name: {"lam": e.lam, **_row(e, threshold, km.inertia_)}
        for name, e in (("K-Means", km), ("LOGAN", lo))
    }
    return pd.DataFrame.from_dict(rows, orient="index")


def select_lambda(
    X: Any,
    *,
    y_true: Any,
    y_pred_or_score: Any,
    group: Any,
    estimator: LOGAN | None = None,
    grid: Iterable[float] = (1, 5, 10, 100),
    threshold: float = 5.0,
) -> tuple[float, pd.DataFrame]:
    """Fit LOGAN for each ``lam`` in ``grid``; pick the one with the most biased clusters.

    Ties go to the smaller ``lam`` (closest to K-Means). ``inertia_ratio`` is relative to
    K-Means (``lam=0``) with the same settings, fitted once.

    Returns
    -------
    best_lam : float
    table : pandas.DataFrame
        Index ``lam``; columns ``n_biased, bcr_pct, bir_pct, max_abs_gap_pts, inertia_ratio, ...``
        (bias columns NaN for a ``lam`` with no eligible cluster; a warning is logged).

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> X, y, g = rng.normal(size=(200, 3)), rng.integers(0, 2, 200), np.tile([0, 1], 100)
    >>> est = LOGAN(n_clusters=2, min_clusters=1, random_state=0)
    >>> lam, table = select_lambda(X, y_true=y, y_pred_or_score=y, group=g, estimator=est)
    >>> lam in (1, 5, 10, 100), list(table.index)
    (True, [1.0, 5.0, 10.0, 100.0])
    """
    est = _template(estimator)
    grid = [float(v) for v in grid]
    if not grid or any(not np.isfinite(v) or v < 0 for v in grid):
        raise ValueError(f"grid must be a non-empty list of numbers >= 0, got {grid!r}")
    fit = {"y_true": y_true, "y_pred_or_score": y_pred_or_score, "group": group}
    km = clone(est).set_params(lam=0.0).fit(X, **fit)
    rows = {}
    for lam in grid:
        rows[lam] = _row(clone(est).set_params(lam=lam).fit(X, **fit), threshold, km.inertia_)
    table = pd.DataFrame.from_dict(rows, orient="index")
    table.index.name = "lam"
    best = max(grid, key=lambda v: (table.loc[v, "n_biased"], -v))
    return best, table


class NullResult(NamedTuple):
    """Observed largest cluster |gap| (points), its permutation null and the p-value."""

    observed: float
    null: np.ndarray
    p_value: float


def _max_gap(est: LOGAN) -> float:
    return local_bias_summary(est.cluster_report_)["max_abs_gap_pts"]


def max_gap_null(
    X: Any,
    *,
    y_true: Any,
    y_pred_or_score: Any,
    group: Any,
    estimator: LOGAN | None = None,
    n_permutations: int = 200,
    random_state: int | np.random.Generator | None = None,
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
    if isinstance(n_permutations, bool) or not isinstance(n_permutations, int | np.integer):
        raise ValueError(f"n_permutations must be an int >= 1, got {n_permutations!r}")
    if n_permutations < 1:
        raise ValueError(f"n_permutations must be an int >= 1, got {n_permutations!r}")
    gen = _rng(random_state)
    est = clone(_template(estimator))
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
    random_state: int | np.random.Generator | None = None,
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
    if isinstance(n_splits, bool) or not isinstance(n_splits, int | np.integer) or n_splits < 1:
        raise ValueError(f"n_splits must be an int >= 1, got {n_splits!r}")
    n = len(_vector(y_true, "y_true", None))
    base = np.arange(n) % 2 if group is None else np.asarray(group)
    data = _check_data(y_true, y_pred_or_score, base, metric=metric)
    gen = _rng(random_state)
    rows = []
    for s in range(n_splits):
        shuffled = data._replace(gcode=data.gcode[gen.permutation(n)])
        metric_, size = _group_metrics(np.zeros(n, dtype=np.int64), shuffled, 1)
        gap = 100 * (metric_[0, 0] - metric_[0, 1])
        rows.append((s, int(size[0, 0]), int(size[0, 1]), *metric_[0], gap, abs(gap)))
    cols = ["split", "n_a1", "n_a2", "metric_a1", "metric_a2", "gap_pts", "abs_gap_pts"]
    return pd.DataFrame(rows, columns=cols)


# ---------------------------------------------------------------------------- topic words
#: Tokens for topic words: two or more characters, starting with a letter.
_WORD_PATTERN = r"(?u)\b[^\W\d_]\w+\b"


def topic_words(
    texts: Sequence[str],
    labels: Any,
    *,
    clusters: Iterable[int] | None = None,
    n_words: int = 10,
    n_topics: int = 1,
    stop_words: str | Iterable[str] | None = "english",
    exclude: Iterable[str] = (),
    random_state: int | None = None,
) -> pd.DataFrame:
    """Top words of each cluster's main LDA topic, with ``exclude`` (group words) removed.

    One :class:`~sklearn.decomposition.LatentDirichletAllocation` is fitted per cluster on that
    cluster's texts; with ``n_topics > 1`` the topic with the largest total weight over the
    cluster's documents is the cluster's main topic. ``exclude`` terms are tokenised like the
    texts and added to the stop words, so they never reach the model.

    Returns
    -------
    pandas.DataFrame
        Columns ``cluster, rank, word, weight`` (weight: the word's probability in the topic).

    Examples
    --------
    >>> texts = ["black cats purr", "white cats purr", "dogs bark loudly", "dogs bark"]
    >>> t = topic_words(texts, [0, 0, 1, 1], n_words=2, exclude=["black", "white"],
    ...                 random_state=0)
    >>> sorted(t.loc[t.cluster == 0, "word"])
    ['cats', 'purr']
    """
    from sklearn.decomposition import LatentDirichletAllocation
    from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS, CountVectorizer

    texts = list(texts)
    labels = _vector(labels, "labels", None)
    if len(labels) != len(texts):
        raise ValueError(
            f"labels has {len(labels)} rows but texts has {len(texts)}; pass one label per text"
        )
    for name, v in (("n_words", n_words), ("n_topics", n_topics)):
        if isinstance(v, bool) or not isinstance(v, int | np.integer) or v < 1:
            raise ValueError(f"{name} must be an int >= 1, got {v!r}")
    if isinstance(exclude, str):
        raise TypeError("exclude must be a list of words, got a str; wrap it in a list")
    analyzer = CountVectorizer(token_pattern=_WORD_PATTERN).build_analyzer()
    stops = set(ENGLISH_STOP_WORDS) if stop_words == "english" else set(stop_words or ())
    stops |= {tok for term in exclude for tok in analyzer(term)}
    clusters = np.unique(labels) if clusters is None else list(clusters)
    rows = []
    for c in clusters:
        docs = [t for t, lab in zip(texts, labels, strict=True) if lab == c]
        if not docs:
            raise ValueError(f"cluster {c!r} has no texts; pass clusters present in labels")
        # words start with a letter: drops numbers such as the codes of HTML entities ('&#128514;')
        vec = CountVectorizer(stop_words=sorted(stops) or None, token_pattern=_WORD_PATTERN)
        try:
            counts = vec.fit_transform(docs)
        except ValueError:
            raise ValueError(
                f"cluster {c!r} has no words left after stop words; check texts or exclude"
            ) from None
        lda = LatentDirichletAllocation(n_components=n_topics, random_state=random_state)
        doc_topic = lda.fit_transform(counts)
        topic = lda.components_[int(np.argmax(doc_topic.sum(axis=0)))]
        prob = topic / topic.sum()
        vocab = vec.get_feature_names_out()
        for rank, j in enumerate(np.argsort(-prob, kind="stable")[:n_words]):
            rows.append((c, rank, str(vocab[j]), float(prob[j])))
    return pd.DataFrame(rows, columns=["cluster", "rank", "word", "weight"])
