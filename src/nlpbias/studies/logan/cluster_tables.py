"""The clusters of a fit as the paper tabulates them, and scored under another metric.

- :func:`largest_gap_table`: the global metric of each group beside the cluster with the largest
  gap for K-Means and LOGAN (the paper's Table 1 in accuracy, :func:`table2` in subgroup AUC);
- :func:`cluster_table`: one row per cluster (the paper's Tables 8 and 9; :func:`cluster_tables`
  puts a run's K-Means and LOGAN together);
- :func:`rescore`: the clusters of a fitted K-Means or LOGAN scored under another metric, the
  paper's reading of Table 2 ("the clusters detected by LOGAN also exhibit local bias when
  evaluating using other metrics", :func:`table2_of_clusters`) and of its false-positive-rate
  remark;
- :func:`fpr_gap_table`: the per-cluster false-positive-rate gap of both fits of a run.

Gaps are ``A1 - A2`` as in :attr:`~nlpbias.studies.logan.estimator.LOGAN.cluster_report_`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from nlpbias.core.checks import check_choice
from nlpbias.studies.logan.estimator import LOGAN, cluster_report
from nlpbias.studies.logan.group_metrics import check_group_data, check_vector

__all__ = [
    "RESCORE_METRICS",
    "cluster_table",
    "cluster_tables",
    "fpr_gap_table",
    "largest_gap_table",
    "rescore",
    "table2",
    "table2_of_clusters",
]

#: What :func:`rescore` can score a clustering with: LOGAN's two metrics and the false-positive
#: rate (share of the true negatives predicted positive).
RESCORE_METRICS = ("accuracy", "auc", "fpr")


def _report_of(fit: LOGAN | pd.DataFrame, name: str) -> pd.DataFrame:
    if isinstance(fit, pd.DataFrame):
        return fit
    if not hasattr(fit, "cluster_report_"):
        raise ValueError(f"{name} is not a fitted LOGAN; fit it first or pass its cluster_report_")
    return fit.cluster_report_


def largest_gap_table(
    kmeans: LOGAN | pd.DataFrame, logan: LOGAN | pd.DataFrame, *, scale: float, prefix: str
) -> pd.DataFrame:
    """Global metric of each group, and of the eligible cluster with the largest ``|gap|`` of
    K-Means and of LOGAN (fitted estimators or their cluster reports).

    Returns
    -------
    pandas.DataFrame
        Index ``Global, K-Means, LOGAN``; columns ``<prefix>_1, <prefix>_2`` (metric times
        ``scale``) and ``bias`` (their absolute difference).

    Examples
    --------
    >>> rep = pd.DataFrame({"metric_a1": [0.9, 0.8], "metric_a2": [0.85, 0.5],
    ...                     "abs_gap": [0.05, 0.3], "eligible": [True, True]})
    >>> rep.attrs.update(global_metric_a1=0.87, global_metric_a2=0.80)
    >>> largest_gap_table(rep, rep, scale=100, prefix="acc").loc["LOGAN"].round(1).tolist()
    [80.0, 50.0, 30.0]
    """
    attrs = _report_of(logan, "logan").attrs
    rows = {"Global": {f"{prefix}_1": attrs["global_metric_a1"],
                       f"{prefix}_2": attrs["global_metric_a2"]}}  # fmt: skip
    for name, fit in (("K-Means", kmeans), ("LOGAN", logan)):
        rep = _report_of(fit, name)
        rep = rep[rep["eligible"].astype(bool)]
        if rep.empty:
            raise ValueError(f"{name}: no eligible cluster; lower min_group_size or use more data")
        top = rep.loc[rep["abs_gap"].idxmax()]
        rows[name] = {f"{prefix}_1": top["metric_a1"], f"{prefix}_2": top["metric_a2"]}
    out = scale * pd.DataFrame.from_dict(rows, orient="index").astype(float)
    out["bias"] = (out[f"{prefix}_1"] - out[f"{prefix}_2"]).abs()
    return out


def table2(kmeans: LOGAN | pd.DataFrame, logan: LOGAN | pd.DataFrame) -> pd.DataFrame:
    """The paper's Table 2: subgroup AUC of each group, globally and in the cluster with the
    largest AUC gap (AUC as a fraction, as the paper prints it; bias = |gap|).

    Pass fits made with ``metric="auc"`` (:func:`~nlpbias.studies.logan.study.run_attribute`)
    or the AUC reports of accuracy fits (:func:`rescore`): the paper's Table 2 scores the
    clusters of its accuracy fits.
    """
    for name, fit in (("kmeans", kmeans), ("logan", logan)):
        metric = _report_of(fit, name).attrs.get("metric")
        if metric != "auc":
            raise ValueError(
                f"{name} is scored by {metric!r}, not AUC; fit with metric='auc' or pass "
                "rescore(fit, ..., metric='auc')"
            )
    return largest_gap_table(kmeans, logan, scale=1.0, prefix="auc")


def cluster_table(fit: LOGAN | pd.DataFrame, *, scale: float = 100.0) -> pd.DataFrame:
    """One row per cluster, the layout of the paper's Tables 8-11 (``ID, #A1, #A2, A1-metric,
    A2-metric, Bias``).

    Returns
    -------
    pandas.DataFrame
        Index ``cluster``; columns ``n_a1, n_a2, metric_a1, metric_a2, bias`` (metrics and
        ``|gap|`` times ``scale``: percent and points by default) and ``eligible``.

    Examples
    --------
    >>> rep = pd.DataFrame({"cluster": [0, 1], "n_a1": [30, 25], "n_a2": [22, 40],
    ...                     "metric_a1": [0.9, 0.8], "metric_a2": [0.8, 0.8],
    ...                     "abs_gap": [0.1, 0.0], "eligible": [True, True]})
    >>> cluster_table(rep)["bias"].round(6).tolist()
    [10.0, 0.0]
    """
    rep = _report_of(fit, "fit")
    out = rep.set_index("cluster")[["n_a1", "n_a2", "metric_a1", "metric_a2", "abs_gap"]]
    out = out.rename(columns={"abs_gap": "bias"})
    for col in ("metric_a1", "metric_a2", "bias"):
        out[col] = scale * out[col].astype(float)
    out["eligible"] = rep["eligible"].to_numpy(bool)
    return out


def cluster_tables(run: Mapping[str, Any], *, scale: float = 100.0) -> pd.DataFrame:
    """:func:`cluster_table` of a run's K-Means and LOGAN fits, one above the other (the
    paper's Table 8 beside its Table 9): index (``method``, ``cluster``)."""
    return pd.concat(
        {
            m: cluster_table(run[k], scale=scale)
            for m, k in (("K-Means", "kmeans"), ("LOGAN", "logan"))
        },
        names=["method", "cluster"],
    )


def rescore(
    fit: LOGAN, *, y_true: Any, y_pred_or_score: Any, group: Any, metric: str
) -> pd.DataFrame:
    """The clusters of a fitted K-Means or LOGAN, scored under ``metric``.

    ``y_true, y_pred_or_score, group`` are the rows the fit clustered, in its order (the
    ``subset`` of a run); ``y_pred_or_score`` holds scores for ``"auc"`` and predicted labels
    for ``"accuracy"`` and ``"fpr"``. A cluster counts (``eligible``) when it did in the fit and
    its gap under ``metric`` is defined. For ``"fpr"`` the sizes ``n_a1, n_a2`` count each
    group's true negatives (``y_true == 0``), the rows a false-positive rate
    is taken over.

    Returns
    -------
    pandas.DataFrame
        The columns of ``cluster_report_`` (``metric_a1, metric_a2, gap`` under ``metric``);
        ``attrs`` hold the global metrics and gap, ``metric`` and ``groups``.

    Examples
    --------
    >>> X = np.r_[np.zeros((40, 1)), np.full((40, 1), 9.0)]
    >>> y = np.zeros(80, int)
    >>> group = np.tile(["a", "b"], 40)
    >>> pred = np.where((X[:, 0] > 0) & (group == "b"), 1, 0)  # b's negatives flagged in one
    >>> est = LOGAN(n_clusters=2, min_clusters=1, min_group_size=5, lam=0.0, random_state=0)
    >>> est = est.fit(X, y_true=y, y_pred_or_score=pred, group=group)
    >>> rep = rescore(est, y_true=y, y_pred_or_score=pred, group=group, metric="fpr")
    >>> sorted(rep["gap"].round(6).tolist())
    [-1.0, 0.0]
    """
    metric = str(check_choice(metric, "metric", RESCORE_METRICS))
    if not hasattr(fit, "labels_"):
        raise ValueError("fit is not a fitted LOGAN; fit it first")
    labels = fit.labels_
    n, k = len(labels), fit.n_clusters_
    if metric != "fpr":
        data = check_group_data(
            y_true, y_pred_or_score, group, metric=metric, groups=fit.groups_, n=n
        )
        rep = cluster_report(labels, data, k, fit.min_group_size)
    else:
        yt = check_vector(y_true, "y_true", n, "the fit's rows")
        other = ~np.isin(yt, [0, 1])
        if other.any():
            raise ValueError(
                f"metric='fpr' needs 0/1 y_true (1 = positive), got {yt[other][0]!r}; "
                "binarise y_true"
            )
        data = check_group_data(
            yt, y_pred_or_score, group, metric="accuracy", groups=fit.groups_, n=n
        )
        neg = yt == 0
        wrong = data._replace(gcode=data.gcode[neg], correct=1.0 - data.correct[neg])
        rep = cluster_report(labels[neg], wrong, k, fit.min_group_size)  # "accuracy" of errors: FPR
        rep.attrs["metric"] = "fpr"
    fitted = fit.cluster_report_["eligible"].to_numpy(bool)
    rep["eligible"] = fitted & ~rep["gap"].isna().to_numpy()
    return rep


def table2_of_clusters(run: Mapping[str, Any]) -> pd.DataFrame:
    """The paper's reading of Table 2 for an accuracy run: its K-Means and LOGAN clusters
    scored by subgroup AUC (:func:`rescore` with the run's scores ``subset["y_score"]``), in
    the layout of :func:`table2`."""
    sub = run["subset"]
    if "y_score" not in sub:
        raise ValueError("the run's subset has no y_score; run it with run_attribute")
    reports = [
        rescore(run[k], y_true=sub["y_true"], y_pred_or_score=sub["y_score"],
                group=sub["group"], metric="auc")
        for k in ("kmeans", "logan")
    ]  # fmt: skip
    return table2(*reports)


def fpr_gap_table(run: Mapping[str, Any]) -> pd.DataFrame:
    """Per-cluster false-positive-rate gap of a run's K-Means and LOGAN clusters, beside the
    accuracy gap the clusters were found with (the paper: "the first three clusters [...] have a
    significantly larger gap of False Positive Rate [...] than when evaluating on the entire
    dataset").

    ``run`` is the output of :func:`~nlpbias.studies.logan.study.run_attribute` (its
    ``subset`` holds the predicted labels in ``y_pred``, or in ``y_pred_or_score`` for an
    accuracy run).

    Returns
    -------
    pandas.DataFrame
        Index (``method``, ``cluster``), clusters by decreasing ``|fit gap|`` within a method;
        columns ``fit_gap_pts`` (the gap of the fit's metric, points), ``n_neg_a1, n_neg_a2``
        (true negatives), ``fpr_a1, fpr_a2`` (%), ``fpr_gap_pts`` and ``eligible``;
        ``attrs["global_fpr_gap_pts"]`` is the gap over all rows.
    """
    sub = run["subset"]
    pred = sub.get("y_pred", sub["y_pred_or_score"])
    frames = {}
    glob = np.nan
    for method, key in (("K-Means", "kmeans"), ("LOGAN", "logan")):
        est = run[key]
        rep = rescore(
            est, y_true=sub["y_true"], y_pred_or_score=pred, group=sub["group"], metric="fpr"
        )
        glob = 100 * rep.attrs["global_gap"]
        fit_gap = 100 * est.cluster_report_["gap"].to_numpy(float)
        frame = pd.DataFrame(
            {
                "fit_gap_pts": fit_gap,
                "n_neg_a1": rep["n_a1"].to_numpy(),
                "n_neg_a2": rep["n_a2"].to_numpy(),
                "fpr_a1": 100 * rep["metric_a1"].to_numpy(float),
                "fpr_a2": 100 * rep["metric_a2"].to_numpy(float),
                "fpr_gap_pts": 100 * rep["gap"].to_numpy(float),
                "eligible": rep["eligible"].to_numpy(bool),
            },
            index=pd.Index(rep["cluster"].to_numpy(), name="cluster"),
        )
        order = np.argsort(-np.nan_to_num(np.abs(fit_gap), nan=-1.0), kind="stable")
        frames[method] = frame.iloc[order]
    out = pd.concat(frames, names=["method", "cluster"])
    out.attrs["global_fpr_gap_pts"] = float(glob)
    return out
