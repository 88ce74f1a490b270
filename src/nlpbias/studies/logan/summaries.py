"""LOGAN's summaries: BCR, BIR and the largest local gap; K-Means vs LOGAN (Table 4); ``lam``.

All in *points* (``100 * gap``), as the paper reports them; a cluster counts only when it is
eligible (enough members of both groups, see :class:`~nlpbias.studies.logan.estimator.LOGAN`).
BCR / BIR: share of eligible clusters with ``|gap| >= threshold`` points, and share of the
instances in eligible clusters that sit in those clusters (both in percent).
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from typing import Any

import numpy as np
import pandas as pd
from sklearn.base import clone

from nlpbias.studies.logan.estimator import LOGAN, logan_or_default

__all__ = [
    "DEGENERATE_RULES",
    "compare_with_kmeans",
    "degenerate_reason",
    "fit_summary",
    "local_bias_summary",
    "null_table",
    "select_lambda",
]

log = logging.getLogger(__name__)


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


#: The rules that make a fit *degenerate*, in the words :func:`degenerate_reason` prints. A
#: degenerate fit is flagged in every table (column ``degenerate``: its reasons, ``""`` if none)
#: and left out of λ selection and of every summary (seed ranges, medians, headline rows).
DEGENERATE_RULES = (
    "did not converge: the batch assignment stopped at max_iter",
    "no eligible cluster, or only one: the largest gap is then the only gap",
    "fewer eligible clusters (with min_group_size members of both groups) than min_clusters",
    "a largest gap of 100 points: a cluster whose one group is all right and the other all "
    "wrong, which sorts rows by group and correctness rather than finding a region",
)


def degenerate_reason(
    *,
    converged: bool,
    n_eligible: int,
    min_clusters: int,
    max_abs_gap_pts: float | None,
    max_iter: int | None = None,
) -> str:
    """Why a fit is degenerate (:data:`DEGENERATE_RULES`), ``""`` when it is not.

    ``min_clusters`` is the number of eligible clusters the fit needs (the estimator's
    ``min_clusters``, at most the clusters it kept). Several reasons are joined by ``"; "``.

    Examples
    --------
    >>> degenerate_reason(converged=True, n_eligible=10, min_clusters=5, max_abs_gap_pts=31.9)
    ''
    >>> degenerate_reason(converged=True, n_eligible=10, min_clusters=5, max_abs_gap_pts=100.0)
    'largest gap 100 points'
    >>> degenerate_reason(converged=False, n_eligible=1, min_clusters=5, max_abs_gap_pts=62.4,
    ...                   max_iter=300)
    'no convergence in max_iter = 300 iterations; one eligible cluster'
    """
    reasons = []
    if not converged:
        within = f" in max_iter = {max_iter} iterations" if max_iter is not None else ""
        reasons.append(f"no convergence{within}")
    n_eligible = int(n_eligible)
    if n_eligible <= 1:
        reasons.append("no eligible cluster" if n_eligible == 0 else "one eligible cluster")
    elif n_eligible < min_clusters:
        reasons.append(f"{n_eligible} eligible clusters < min_clusters = {min_clusters}")
    gap = np.nan if max_abs_gap_pts is None else float(max_abs_gap_pts)
    if np.isfinite(gap) and gap >= 100 - 1e-9:
        reasons.append("largest gap 100 points")
    return "; ".join(reasons)


def fit_summary(est: LOGAN, *, threshold: float = 5.0) -> dict[str, Any]:
    """:func:`local_bias_summary` of a fitted LOGAN, with ``n_iter``, ``converged``,
    ``degenerate`` (:func:`degenerate_reason`) and ``usable`` (not degenerate).

    A fit with no eligible cluster has no bias keys (and ``n_eligible = n_biased = 0``).
    """
    row: dict[str, Any] = {"n_iter": est.n_iter_, "converged": bool(est.converged_)}
    try:
        row.update(local_bias_summary(est.cluster_report_, threshold=threshold))
    except ValueError:
        # said where it is read: the fit is degenerate ("no eligible cluster"), and the
        # chapter's tables and sentences name its reason (a log line, not a warning on stderr)
        log.info("lam=%g: no eligible cluster; its bias columns are NaN", est.lam)
        row.update(n_clusters=est.n_clusters_, n_eligible=0, n_biased=0)
    row["degenerate"] = degenerate_reason(
        converged=row["converged"],
        n_eligible=row["n_eligible"],
        min_clusters=min(est.min_clusters, est.n_clusters_),
        max_abs_gap_pts=row.get("max_abs_gap_pts"),
        max_iter=est.max_iter,
    )
    row["usable"] = not row["degenerate"]
    return row


def _row(est: LOGAN, threshold: float, kmeans_inertia: float) -> dict[str, Any]:
    row: dict[str, Any] = {"inertia": est.inertia_}
    row["inertia_ratio"] = est.inertia_ / kmeans_inertia if kmeans_inertia else float("nan")
    summary = fit_summary(est, threshold=threshold)
    order = ["n_iter", "converged", "inertia", "inertia_ratio"]
    return {k: {**row, **summary}[k] for k in [*order, *(k for k in summary if k not in order)]}


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
    est = logan_or_default(estimator)
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
    grid: Iterable[float],
    threshold: float = 5.0,
) -> tuple[float, pd.DataFrame]:
    """Fit LOGAN for each ``lam`` in ``grid``; pick the one with the most biased clusters.

    Only a *usable* fit is picked: one that is not degenerate (:data:`DEGENERATE_RULES`: it
    converged before ``max_iter``, keeps at least ``min_clusters`` eligible clusters, more than
    one, and no cluster gap of 100 points; a large ``lam`` can make the batch rule oscillate,
    collapse the clustering into a few clusters, or sort rows by group and correctness). Ties go
    to the smaller ``lam`` (closest to K-Means). When no ``lam`` is usable the best of all is
    returned, ``table.attrs["note"]`` says so and the table's ``degenerate`` column says why.
    ``inertia_ratio`` is relative to K-Means (``lam=0``) with the same settings, fitted once.

    Returns
    -------
    best_lam : float
    table : pandas.DataFrame
        Index ``lam``; columns ``n_biased, bcr_pct, bir_pct, max_abs_gap_pts, inertia_ratio,
        converged, degenerate`` (its reasons, ``""`` if none) ``, usable, ...`` (bias columns
        NaN for a ``lam`` with no eligible cluster, whose ``degenerate`` says so).

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> X, y, g = rng.normal(size=(200, 3)), rng.integers(0, 2, 200), np.tile([0, 1], 100)
    >>> est = LOGAN(n_clusters=2, min_clusters=1, random_state=0)
    >>> lam, table = select_lambda(
    ...     X, y_true=y, y_pred_or_score=y, group=g, estimator=est, grid=(1, 5, 10, 100)
    ... )
    >>> lam in (1, 5, 10, 100), list(table.index)
    (True, [1.0, 5.0, 10.0, 100.0])
    """
    est = logan_or_default(estimator)
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
    usable = [v for v in grid if table.loc[v, "usable"]]
    if not usable:
        table.attrs["note"] = (
            "no lam in the grid gave a usable fit (every fit is degenerate: see the column "
            "degenerate); the best of all is returned"
        )
        log.info("select_lambda: %s", table.attrs["note"])  # the tables say it; not stderr
    best = max(usable or grid, key=lambda v: (table.loc[v, "n_biased"], -v))
    return best, table


def null_table(runs: dict[str, dict[str, Any]]) -> pd.DataFrame:
    """Per attribute: LOGAN's largest gap, the permutation null's median and p-value, and the gap
    of random halves (mean over the splits). The p-value is text with three significant digits
    (``0.00498``), so that a small one is not printed in scientific notation.

    Examples
    --------
    >>> from nlpbias.studies.logan.calibration import NullResult
    >>> run = {"null": NullResult(25.46, np.array([5.0, 6.0]), 0.004975),
    ...        "split_gaps": pd.DataFrame({"abs_gap_pts": [0.2, 0.6]})}
    >>> table = null_table({"race": run})
    >>> table.loc["race", "p-value"], float(table.loc["race", "null median (pts)"])
    ('0.00498', 5.5)
    >>> list(table.columns)[-1]
    'random-half gap (pts, mean of 2)'
    """
    from nlpbias.core.text import fmt_num

    rows = {}
    for attr, r in runs.items():
        splits = r["split_gaps"]["abs_gap_pts"]
        rows[attr] = {
            "observed max gap (pts)": float(r["null"].observed),
            "null median (pts)": float(np.median(r["null"].null)),
            "p-value": fmt_num(float(r["null"].p_value), 3),
            f"random-half gap (pts, mean of {len(splits)})": float(splits.mean()),
        }
    return pd.DataFrame.from_dict(rows, orient="index")
