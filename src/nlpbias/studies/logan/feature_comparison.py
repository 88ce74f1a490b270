"""Pretrained vs fine-tuned features: biased clusters and largest gaps of each, beside the paper's.

The paper clusters the pretrained encoder's features in its main text (Tables 1-9) and the
fine-tuned classifier's in its Appendix A.4 (Tables 10-11), with the same predictions
(:mod:`nlpbias.studies.logan.features`). :func:`feature_comparison` sets this run's K-Means and
LOGAN fits on each feature set side by side (their ``table4``:
:func:`~nlpbias.studies.logan.summaries.compare_with_kmeans`), with the paper's numbers where it
has the same attribute and feature set: :func:`paper_feature_summary` derives them from the
per-cluster Tables 8-11 transcribed in ``data/reported/zhao2020logan.yaml`` (``cluster_tables``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

__all__ = [
    "COMPARED",
    "feature_comparison",
    "feature_sentences",
    "paper_feature_summary",
    "runs_by_features",
]

#: Columns of a run's ``table4`` that :func:`feature_comparison` keeps, in its order.
COMPARED = (
    "lam",
    "n_eligible",
    "n_biased",
    "bcr_pct",
    "bir_pct",
    "max_abs_gap_pts",
    "inertia_ratio",
)
#: Of those, the ones a degenerate fit does not report (left NaN; ``degenerate`` says why).
_BIAS = ("n_biased", "bcr_pct", "bir_pct", "max_abs_gap_pts", "inertia_ratio")
#: The ones the paper's per-cluster tables give (``n_eligible``: the clusters it prints).
_PAPER = ("n_eligible", "n_biased", "bcr_pct", "bir_pct", "max_abs_gap_pts", "inertia_ratio")
_INDEX = ["attribute", "features", "method"]


def paper_feature_summary(paper: Mapping[str, Any]) -> pd.DataFrame:
    """The paper's biased clusters and largest gap per attribute, feature set and method.

    Derived from the per-cluster tables (``paper["cluster_tables"]``: Tables 8-9 on pretrained
    features, 10-11 on fine-tuned ones) with the paper's threshold (``paper["bias_threshold"]``,
    5 points): a cluster is biased when its printed bias is at least the threshold; BIR counts
    the rows (both groups) of the biased clusters among those of all printed clusters. The
    inertia ratio is the paper's Table 4 (pretrained features, race only; K-Means = 1), NaN
    elsewhere.

    Returns
    -------
    pandas.DataFrame
        Index (``attribute``, ``features``, ``method``); columns ``n_eligible`` (clusters
        printed), ``n_biased, bcr_pct, bir_pct, max_abs_gap_pts, inertia_ratio``.

    Examples
    --------
    >>> from nlpbias.data.reported import load_reported
    >>> t = paper_feature_summary(load_reported("zhao2020logan"))
    >>> float(t.loc[("race", "pretrained", "LOGAN"), "bcr_pct"])  # the paper's Table 4
    75.0
    """
    if "cluster_tables" not in paper or "bias_threshold" not in paper:
        raise ValueError(
            "paper has no 'cluster_tables' (or no 'bias_threshold'); pass "
            "load_reported('zhao2020logan') from a checkout whose data/reported/"
            "zhao2020logan.yaml has them"
        )
    tables = paper["cluster_tables"]
    columns = list(tables["columns"])
    threshold = float(paper["bias_threshold"])
    t4 = paper.get("table4_race", {})
    rows = {}
    for features, by_method in tables.items():
        if features == "columns":
            continue
        for method, by_attr in by_method.items():
            for attr, clusters in by_attr.items():
                frame = pd.DataFrame(clusters, columns=columns)
                size = (frame["n_1"] + frame["n_2"]).to_numpy(float)
                biased = frame["bias"].to_numpy(float) >= threshold - 1e-9
                ratio = np.nan
                if attr == "race" and features == "pretrained" and method in t4:
                    ratio = float(t4[method]["inertia_ratio"])
                rows[attr, features, method] = {
                    "n_eligible": len(frame),
                    "n_biased": int(biased.sum()),
                    "bcr_pct": 100 * float(biased.mean()),
                    "bir_pct": 100 * float(size[biased].sum() / size.sum()),
                    "max_abs_gap_pts": float(frame["bias"].max()),
                    "inertia_ratio": ratio,
                }
    out = pd.DataFrame.from_dict(rows, orient="index")
    out.index.names = _INDEX
    return out


def feature_comparison(
    runs_by_features: Mapping[str, Mapping[str, Mapping[str, Any]]],
    paper: Mapping[str, Any] | None = None,
) -> pd.DataFrame:
    """K-Means and LOGAN on each feature set: biased clusters, largest gap, inertia ratio.

    Parameters
    ----------
    runs_by_features : mapping
        Feature set → attribute → the output of
        :func:`~nlpbias.studies.logan.study.run_attribute` on
        ``data.with_features(feature_set)`` (only its ``table4`` is read).
    paper : mapping, optional
        ``load_reported("zhao2020logan")``: adds the paper's numbers
        (:func:`paper_feature_summary`) as ``paper_<column>`` columns, on the rows whose
        attribute and feature set the paper has (race and gender; pretrained and fine-tuned).
        No paper columns when no row has a counterpart.

    Returns
    -------
    pandas.DataFrame
        Index (``attribute``, ``features``, ``method``) with ``method`` K-Means and LOGAN,
        sorted by attribute (in the order first met), then feature set (in the order given);
        columns :data:`COMPARED` and ``degenerate`` (its reasons, ``""`` if none: a degenerate
        fit's bias columns are NaN, as every summary of the chapter leaves such fits out), then
        the paper's. ``attrs["note"]`` says which rows have no
        counterpart in the paper and which fits are degenerate.

    Examples
    --------
    >>> t4 = pd.DataFrame({"lam": [0.0, 5.0], "n_eligible": [8, 8], "n_biased": [2, 4],
    ...                    "bcr_pct": [25.0, 50.0], "bir_pct": [20.0, 45.0],
    ...                    "max_abs_gap_pts": [9.0, 21.0], "inertia_ratio": [1.0, 1.01],
    ...                    "degenerate": ["", ""]}, index=["K-Means", "LOGAN"])
    >>> t = feature_comparison({"pretrained": {"race": {"table4": t4}}})
    >>> float(t.loc[("race", "pretrained", "LOGAN"), "n_biased"])
    4.0
    """
    if not runs_by_features:
        raise ValueError("runs_by_features is empty; pass {feature set: {attribute: run}}")
    parts = {}
    degenerate = []
    for features, runs in runs_by_features.items():
        if not runs:
            raise ValueError(f"no runs for feature set {features!r}; pass {{attribute: run}}")
        for attr, run in runs.items():
            t4 = run.get("table4") if isinstance(run, Mapping) else None
            if t4 is None:
                raise ValueError(
                    f"{features}, {attr}: the run has no 'table4'; pass the output of "
                    "run_attribute(data.with_features(...), attribute, ...)"
                )
            missing = [c for c in COMPARED if c not in t4.columns]
            if missing:
                raise ValueError(f"{features}, {attr}: table4 lacks the columns {missing}")
            frame = t4.loc[["K-Means", "LOGAN"], list(COMPARED)].astype(float)
            reasons = (
                t4.loc[["K-Means", "LOGAN"], "degenerate"].fillna("").astype(str)
                if "degenerate" in t4.columns
                else pd.Series("", index=frame.index)
            )
            frame["degenerate"] = reasons
            for method, why in reasons.items():
                if why:
                    frame.loc[method, list(_BIAS)] = np.nan
                    degenerate.append(f"{attr}, {features}, {method} ({why})")
            parts[attr, features] = frame
    attrs = list(dict.fromkeys(a for a, _ in parts))  # attribute, then feature set, as given
    sets = list(runs_by_features)
    order = sorted(parts, key=lambda k: (attrs.index(k[0]), sets.index(k[1])))
    out = pd.concat({k: parts[k] for k in order}, names=_INDEX)
    note = []
    if paper is not None:
        theirs = paper_feature_summary(paper)
        joined = out.join(theirs.add_prefix("paper_"), how="left")
        has = joined[[f"paper_{c}" for c in _PAPER]].notna().any(axis=1)
        alone = sorted({f"{a} ({f})" for a, f, _ in joined.index[~has]})
        if has.any():
            out = joined.dropna(axis=1, how="all")
            if alone:
                note.append(
                    f"The paper has no counterpart for {', '.join(alone)}: its paper columns "
                    "are empty."
                )
        else:
            note.append(
                "No row has a counterpart in the paper (its attributes are race and gender, "
                "its feature sets pretrained and fine-tuned): only this run's numbers are shown."
            )
        note.append(
            "The paper's numbers are derived from its per-cluster Tables 8-11 (printed biases, "
            "threshold 5 points); its inertia ratio is reported for race on pretrained features "
            "only (Table 4)."
        )
    if degenerate:
        note.append(f"Degenerate fits (their numbers not shown): {'; '.join(degenerate)}.")
    out.attrs["note"] = " ".join(note)
    return out


def _fit_words(row: pd.Series, prefix: str = "") -> str:
    n_biased, n, gap = (
        row.get(f"{prefix}{c}") for c in ("n_biased", "n_eligible", "max_abs_gap_pts")
    )
    if n_biased is None or not np.isfinite(float(n_biased)):
        return "degenerate fit" if not prefix else "not reported"
    return f"{int(n_biased)} biased of {int(n)} clusters, largest gap {float(gap):.1f} points"


def feature_sentences(table: pd.DataFrame) -> str:
    """One Markdown bullet per attribute and method: the biased clusters and largest gap on each
    feature set, and the paper's where the table has them.

    Parameters
    ----------
    table : DataFrame
        :func:`feature_comparison` (with or without the paper's columns).

    Examples
    --------
    >>> idx = pd.MultiIndex.from_tuples(
    ...     [("race", "fine-tuned", "LOGAN"), ("race", "pretrained", "LOGAN")],
    ...     names=["attribute", "features", "method"])
    >>> t = pd.DataFrame({"n_biased": [8.0, 6.0], "n_eligible": [9.0, 8.0],
    ...                   "max_abs_gap_pts": [36.5, 21.5]}, index=idx)
    >>> print(feature_sentences(t))
    - **race**, LOGAN: fine-tuned features 8 biased of 9 clusters, largest gap 36.5 points; pretrained features 6 biased of 8 clusters, largest gap 21.5 points.
    """  # noqa: E501
    missing = [c for c in ("n_biased", "n_eligible", "max_abs_gap_pts") if c not in table]
    if missing or list(table.index.names) != _INDEX:
        raise ValueError(
            f"table must be feature_comparison's (index {_INDEX}; columns n_biased, n_eligible, "
            f"max_abs_gap_pts); missing {missing or 'its index'}"
        )
    has_paper = "paper_n_biased" in table.columns
    lines = []
    frame = table.reset_index()
    for (attr, method), rows in frame.groupby(["attribute", "method"], sort=False):
        ours = "; ".join(f"{r['features']} features {_fit_words(r)}" for _, r in rows.iterrows())
        line = f"- **{attr}**, {method}: {ours}."
        if has_paper and rows["paper_n_biased"].notna().any():
            theirs = "; ".join(
                f"{r['features']} {_fit_words(r, 'paper_')}" for _, r in rows.iterrows()
            )
            line += f" The paper: {theirs}."
        lines.append(line)
    return "\n".join(lines)


def runs_by_features(
    data: Any, runs: Mapping[str, Any], **run_kwargs: Any
) -> dict[str, dict[str, Any]]:
    """The chapter's runs on every feature set of ``data``, for :func:`feature_comparison`.

    ``runs`` (the chapter's :func:`~nlpbias.studies.logan.study.run_attribute` results on
    ``data.X``) serve ``data.feature_set`` and every set that is the same array (the frozen
    classifier's); every other set is refitted, attribute by attribute, with ``run_kwargs``
    (the chapter's ``n_clusters``, ``lam_grid``, ``min_group_size``, ``n_permutations``,
    ``random_state``).
    """
    from nlpbias.studies.logan.study import run_attribute

    out: dict[str, dict[str, Any]] = {}
    for name, features in data.features.items():
        if features is data.X:
            out[name] = dict(runs)
            continue
        other = data.with_features(name)
        out[name] = {attr: run_attribute(other, attr, **run_kwargs) for attr in data.groups}
    return out
