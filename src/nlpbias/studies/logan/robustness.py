"""Does LOGAN's bias term help? The λ path of both assignment rules and the spread over seeds.

Two experiments behind the chapter's verdict on the paper's headline (BCR 62.5 % → 75 %, one
cluster of eight):

- :func:`lambda_path`: K-Means and LOGAN under the paper's rule and the exact-descent rule
  (:mod:`nlpbias.studies.logan.lloyd`) over a grid of ``lam``, with the inertia ratio, the number
  of biased clusters, the largest gap, and why a fit is degenerate (``degenerate``:
  :data:`~nlpbias.studies.logan.summaries.DEGENERATE_RULES`; ``usable`` when it is not);
- :func:`seed_spread`: the same three methods refitted from many k-means++ seeds, so a difference
  of one biased cluster can be set against K-Means' own variation (:func:`spread_summary`).

A degenerate fit is never picked (:func:`best_lams`) and never summarised (:func:`spread_summary`
leaves it out and counts it in ``n_degenerate``).

Both take the rows of one attribute (``LoganData.subset``) and a LOGAN estimator whose settings
(clusters, group sizes, groups) they copy; every fit is seeded.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

import numpy as np
import pandas as pd
from sklearn.base import clone

from nlpbias.core.checks import check_int
from nlpbias.core.criteria import exceeds
from nlpbias.core.progress import progress
from nlpbias.core.text import fmt_count as _count
from nlpbias.studies.logan.estimator import LOGAN, logan_or_default
from nlpbias.studies.logan.lloyd import RULES
from nlpbias.studies.logan.summaries import fit_summary, select_lambda

__all__ = [
    "METHODS",
    "best_lams",
    "lambda_path",
    "robustness_tables",
    "robustness_verdict",
    "seed_spread",
    "spread_summary",
    "usable_fits",
]

#: Method name → LOGAN ``rule`` (None: K-Means, ``lam=0``).
METHODS: dict[str, str | None] = {
    "K-Means": None,
    "LOGAN, paper's rule": "paper",
    "LOGAN, exact rule": "exact",
}
_COLUMNS = ["inertia_ratio", "n_eligible", "n_biased", "bcr_pct", "max_abs_gap_pts", "n_iter",
            "converged", "degenerate", "usable"]  # fmt: skip


def _fit_args(rows: Mapping[str, Any]) -> dict[str, Any]:
    return {k: rows[k] for k in ("y_true", "y_pred_or_score", "group")}


def lambda_path(
    rows: Mapping[str, Any],
    *,
    estimator: LOGAN | None = None,
    grid: Iterable[float],
    rules: Iterable[str] = RULES,
    threshold: float = 5.0,
) -> pd.DataFrame:
    """K-Means and LOGAN under each rule for every ``lam`` of ``grid`` (same init and settings).

    Parameters
    ----------
    rows : mapping
        ``X, y_true, y_pred_or_score, group`` of one attribute (``LoganData.subset``).
    estimator : LOGAN, optional
        Settings to copy (``n_clusters``, ``min_group_size``, ``groups``, ``random_state``...).
    grid : iterable of float
        Values of ``lam`` (> 0; K-Means is added as ``lam = 0``).
    rules : iterable of str
        Assignment rules, from ``("paper", "exact")``.

    Returns
    -------
    pandas.DataFrame
        One row per (``method``, ``lam``): ``inertia_ratio`` (K-Means = 1), ``n_eligible``,
        ``n_biased``, ``bcr_pct``, ``max_abs_gap_pts``, ``n_iter``, ``converged``,
        ``degenerate`` (its reasons, :func:`~nlpbias.studies.logan.summaries.degenerate_reason`;
        ``""`` when it is not) and ``usable`` (not degenerate).
    """
    est = logan_or_default(estimator)
    rules = list(rules)
    unknown = [r for r in rules if r not in RULES]
    if unknown or not rules:
        raise ValueError(f"rules must be some of {list(RULES)}, got {rules!r}")
    grid = [float(v) for v in grid]
    if not grid or any(not np.isfinite(v) or v <= 0 for v in grid):
        raise ValueError(f"grid must list numbers > 0 (K-Means is added), got {grid!r}")
    frames = []
    for rule in rules:  # K-Means (lam = 0) is the same fit under every rule: once, first
        _, table = select_lambda(
            rows["X"], **_fit_args(rows), estimator=clone(est).set_params(rule=rule),
            grid=grid if frames else [0.0, *grid], threshold=threshold,
        )  # fmt: skip
        table = table.reset_index()
        name = next(m for m, r in METHODS.items() if r == rule)
        table["method"] = np.where(table["lam"] == 0, "K-Means", name)
        frames.append(table)
    out = pd.concat(frames, ignore_index=True)
    return out[["method", "lam", *_COLUMNS]]


def seed_spread(
    rows: Mapping[str, Any],
    *,
    lams: Mapping[str, float],
    estimator: LOGAN | None = None,
    n_seeds: int,
    threshold: float = 5.0,
    show_progress: bool = False,
) -> pd.DataFrame:
    """BCR and the largest gap of K-Means and LOGAN refitted from ``n_seeds`` k-means++ seeds.

    Parameters
    ----------
    rows : mapping
        ``X, y_true, y_pred_or_score, group`` of one attribute.
    lams : mapping
        ``lam`` per LOGAN rule (``{"paper": 1.0, "exact": 30.0}``); a rule left out is not fitted.
    n_seeds : int
        Seeds 0 .. n_seeds - 1; seed ``s`` gives all methods the same k-means++ initialisation.

    Returns
    -------
    pandas.DataFrame
        One row per (``seed``, ``method``): ``lam``, ``n_eligible``, ``n_biased``, ``bcr_pct``,
        ``max_abs_gap_pts``, ``converged`` and ``degenerate`` (its reasons, ``""`` when it is
        not: :func:`~nlpbias.studies.logan.summaries.degenerate_reason`).
    """
    est = logan_or_default(estimator)
    n_seeds = check_int(n_seeds, "n_seeds", minimum=2)
    unknown = [r for r in lams if r not in RULES]
    if unknown:
        raise ValueError(f"lams must be keyed by rules {list(RULES)}, got {list(lams)}")
    methods = [(m, r) for m, r in METHODS.items() if r is None or r in lams]
    out = []
    for seed in progress(range(n_seeds), enabled=show_progress, desc="seeds"):
        for method, rule in methods:
            lam = 0.0 if rule is None else float(lams[rule])
            params = {"lam": lam, "random_state": seed, "rule": rule or "paper"}
            fit = clone(est).set_params(**params).fit(rows["X"], **_fit_args(rows))
            s = fit_summary(fit, threshold=threshold)  # no eligible cluster: NaN to count
            out.append({"seed": seed, "method": method, "lam": lam,
                        **{k: s.get(k, np.nan) for k in ("n_eligible", "n_biased", "bcr_pct",
                                                         "max_abs_gap_pts")},
                        "converged": s["converged"], "degenerate": s["degenerate"]})  # fmt: skip
    return pd.DataFrame(out)


def spread_summary(spread: pd.DataFrame, *, paper_gain_clusters: int = 1) -> pd.DataFrame:
    """Per method: median and range over seeds of BCR, biased clusters and the largest gap.

    Degenerate fits (a non-empty ``degenerate`` column, see :func:`seed_spread`) are left out
    of every median and range: ``n_seeds`` counts the seeds fitted, ``n_degenerate`` those left
    out, and the statistics use the others.

    ``kmeans_range_clusters`` (on the K-Means row) is how many biased clusters K-Means itself
    moves between seeds (max − min); the paper's gain was ``paper_gain_clusters`` cluster.

    Examples
    --------
    >>> s = pd.DataFrame({"method": ["K-Means"] * 3, "n_biased": [4, 5, 6],
    ...                   "bcr_pct": [50.0, 62.5, 75.0], "max_abs_gap_pts": [10.0, 12.0, 20.0]})
    >>> spread_summary(s).loc["K-Means", ["bcr_median", "bcr_min", "bcr_max"]].tolist()
    [62.5, 50.0, 75.0]
    """
    need = {"method", "n_biased", "bcr_pct", "max_abs_gap_pts"} - set(spread.columns)
    if need:
        raise ValueError(f"spread lacks columns {sorted(need)}; pass seed_spread(...)")
    flagged = _flagged(spread)
    n_seeds = spread.groupby("method", sort=False).size()
    n_degenerate = flagged.groupby(spread["method"], sort=False).sum().astype(int)
    g = spread[~flagged].groupby("method", sort=False)
    out = pd.DataFrame(
        {
            "n_seeds": n_seeds,
            "n_degenerate": n_degenerate,
            "bcr_median": g["bcr_pct"].median(),
            "bcr_min": g["bcr_pct"].min(),
            "bcr_max": g["bcr_pct"].max(),
            "biased_median": g["n_biased"].median(),
            "biased_min": g["n_biased"].min(),
            "biased_max": g["n_biased"].max(),
            "gap_median": g["max_abs_gap_pts"].median(),
            "gap_min": g["max_abs_gap_pts"].min(),
            "gap_max": g["max_abs_gap_pts"].max(),
        }
    )
    out.index.name = "method"
    for col in ("biased_min", "biased_max"):  # counts stay whole where a method has no row (NA)
        out[col] = out[col].round().astype("Int64")
    # a method whose every fit is degenerate keeps its row: its counts, and no statistics (NaN)
    if (
        "K-Means" in out.index
        and out.loc["K-Means", "n_seeds"] > out.loc["K-Means", "n_degenerate"]
    ):
        km = out.loc["K-Means"]
        out.attrs["kmeans_range_clusters"] = int(km["biased_max"] - km["biased_min"])
        out.attrs["paper_gain_clusters"] = paper_gain_clusters
    return out


def _flagged(frame: pd.DataFrame) -> pd.Series:
    """True for the rows of a degenerate fit (``degenerate`` non-empty; False without it)."""
    if "degenerate" not in frame.columns:
        return pd.Series(False, index=frame.index)
    reason = frame["degenerate"]
    if reason.dtype == bool:
        return reason
    return reason.fillna("").astype(str).str.strip() != ""


def usable_fits(spread: pd.DataFrame) -> pd.DataFrame:
    """The rows of ``spread`` (:func:`seed_spread`) whose fit is not degenerate."""
    return spread[~_flagged(spread)]


def best_lams(path: pd.DataFrame) -> dict[str, float]:
    """Per LOGAN rule, the usable ``lam`` of the path with the most biased clusters.

    Ties go to the smaller ``lam``; a rule with no usable fit is left out (say so in the
    chapter rather than pick an unusable fit).

    Examples
    --------
    >>> p = pd.DataFrame({"method": ["LOGAN, exact rule"] * 2, "lam": [1.0, 30.0],
    ...                   "n_biased": [2, 3], "usable": [True, True]})
    >>> best_lams(p)
    {'exact': 30.0}
    """
    need = {"method", "lam", "n_biased", "usable"} - set(path.columns)
    if need:
        raise ValueError(f"path lacks columns {sorted(need)}; pass lambda_path(...)")
    out = {}
    for method, rule in METHODS.items():
        rows = path[(path["method"] == method) & path["usable"].astype(bool)]
        if rule is None or rows.empty:
            continue
        best = rows.sort_values(["n_biased", "lam"], ascending=[False, True]).iloc[0]
        out[rule] = float(best["lam"])
    return out


def _span(row: pd.Series, what: str) -> str:
    lo, med, hi = row[f"{what}_min"], row[f"{what}_median"], row[f"{what}_max"]
    fmt = ".1f" if what == "gap" else "g"  # gaps in points to a tenth; counts as they are
    return f"median {med:{fmt}} ({lo:{fmt}}–{hi:{fmt}})"


def _seeds(row: pd.Series) -> str:
    """``"20 k-means++ seeds"``, or ``"18 of 20 ... (2 degenerate fits left out)"``."""
    n, bad = int(row["n_seeds"]), int(row.get("n_degenerate", 0))
    if not bad:
        return f"{n} k-means++ seeds"
    fits = "fit" if bad == 1 else "fits"
    return f"{n - bad} of {n} k-means++ seeds ({bad} degenerate {fits} left out)"


def robustness_verdict(results: Mapping[str, Mapping[str, Any]]) -> str:
    """The chapter's verdict per attribute, from the seed spread, under the rule stated first.

    A rule *adds biased clusters* only when its median number of biased clusters over seeds
    exceeds K-Means' median by more than K-Means' own range over the same seeds (max − min):
    a difference smaller than that is what re-seeding K-Means alone produces. Degenerate fits
    are left out of every median and range (:func:`spread_summary`), and the sentence says how
    many.

    Parameters
    ----------
    results : mapping
        Attribute → the dict of :func:`nlpbias.studies.logan.study.run_robustness`.
    """
    lines = []
    for attr, res in results.items():
        summary = res["summary"]
        if "K-Means" not in summary.index:
            raise ValueError(f"{attr}: the seed spread has no K-Means rows; use run_robustness")
        km = summary.loc["K-Means"]
        if int(km["n_degenerate"]) >= int(km["n_seeds"]):
            lines.append(
                f"- **{attr}** — every K-Means fit of the {_count(km['n_seeds'])} k-means++ seeds "
                "is degenerate (see the λ table for the reason), so there is no seed range to "
                "judge the rules against: no verdict for this attribute."
            )
            continue
        span = float(km["biased_max"] - km["biased_min"])
        parts = [
            f"**{attr}** — over {_seeds(km)} K-Means finds "
            f"{_span(km, 'biased')} biased clusters, a range of {span:g}: a one-cluster "
            + ("difference is within" if span >= 1 else "difference exceeds")
            + " K-Means' own seed-to-seed variation."
        ]
        for method, rule in METHODS.items():
            if rule is None:
                continue
            if rule not in res["lams"]:
                parts.append(f"{method}: no usable λ on the path, not fitted.")
                continue
            if (
                method not in summary.index
                or summary.loc[method, "n_degenerate"] >= (summary.loc[method, "n_seeds"])
            ):
                parts.append(
                    f"{method} (λ = {res['lams'][rule]:g}): every seed's fit is degenerate, "
                    "nothing to summarise."
                )
                continue
            row = summary.loc[method]
            adds = exceeds(
                float(row["biased_median"]),
                float(km["biased_median"]),
                margin=span,
                margin_name="K-Means' range over the seeds",
                yes="adds",
                no="does not add",
            )
            over = f", over {_seeds(row)}" if row.get("n_degenerate", 0) else ""
            parts.append(
                f"{method} (λ = {res['lams'][rule]:g}{over}): {_span(row, 'biased')} biased "
                f"clusters, largest gap {_span(row, 'gap')} points against K-Means' "
                f"{_span(km, 'gap')}; it {adds.word} biased clusters beyond K-Means' seed "
                f"range (rule: {adds.criterion}; medians {adds.detail})."
            )
        lines.append("- " + " ".join(parts))
    return "\n".join(lines)


def robustness_tables(results: Mapping[str, Mapping[str, Any]]) -> dict[str, pd.DataFrame]:
    """The ``path``, ``spread`` and ``summary`` of every attribute, stacked with an
    ``attribute`` column (the figures draw one row of panels per attribute)."""
    out = {}
    for key in ("path", "spread", "summary"):
        frames = {attr: res[key].reset_index() if key == "summary" else res[key]
                  for attr, res in results.items()}  # fmt: skip
        stacked = pd.concat(frames, names=["attribute", "row"]).reset_index(level="row", drop=True)
        out[key] = stacked.reset_index()
    return out
