"""The LOGAN chapter's headline rows for the reproduction scorecard.

Zhao & Chang's headlines, each set beside this book's number with an interval from the chapter's
seed spread (:func:`nlpbias.studies.logan.robustness.seed_spread`: K-Means and LOGAN refitted
from the same k-means++ starts):

- ``bcr_gain_race``: LOGAN finds more biased clusters than K-Means — BCR 62.5 % → 75 % (their
  Table 4, race), a gain of 12.5 points. Ours: the gain per seed (LOGAN under the paper's rule
  minus K-Means, same start), its median and the 2.5–97.5 percentiles over the seeds.
- ``local_gap_race`` and ``local_gap_gender``: the most biased LOGAN cluster has a far larger
  accuracy gap than the whole test set — race 4.8 → 21.5 points, gender 1.8 → 23.1 (their
  Table 1). Ours: LOGAN's largest cluster gap per seed minus the global gap, same summary; the
  row's second uncertainty is the permutation p of the largest gap (is it larger than chance?),
  and the reason says when the two disagree.
- ``local_auc_gap_race`` and ``local_auc_gap_gender``: the same under the subgroup AUC (their
  Table 2: race 0.024 → 0.153, gender 0.028 → 0.092), from the runs fitted with
  ``metric="auc"``; the numbers are in AUC points (AUC × 100) so that they read like Table 1's.

Degenerate fits (:data:`~nlpbias.studies.logan.summaries.DEGENERATE_RULES`: a largest gap of 100
points, one eligible cluster, too few eligible clusters, no convergence) are left out before any
number is taken: a seed whose K-Means or LOGAN fit is degenerate drops out of the row, and the
interval says how many seeds are left.

On the synthetic stand-in (``smoke``, ``demo``) its single planted attribute answers the race rows
(``bcr_gain_race`` and ``local_gap_race``); the stand-in has no second attribute, so the gender
row has no number and says so (one attribute's number is not shown twice). Every row is *not
testable offline* there by the scorecard's rules.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from nlpbias.core.scorecard import headline
from nlpbias.core.text import fmt_count as _count
from nlpbias.studies.logan.robustness import usable_fits

__all__ = ["SECTION", "headlines"]

#: Label (anchor) of the chapter section that shows the seed spread behind every row.
SECTION = "logan-robustness"
_LOGAN = "LOGAN, paper's rule"


def _attribute(name: str, available: list[str], synthetic: bool) -> str | None:
    """The attribute that answers the paper's ``name``: itself, or (for race only) the
    stand-in's only one; the stand-in has no second attribute to answer gender."""
    if name in available:
        return name
    if synthetic and name == "race" and len(available) == 1:
        return available[0]
    return None


def _paired(spread: pd.DataFrame, column: str) -> pd.DataFrame:
    """``column`` of K-Means and of LOGAN (paper's rule) side by side, one row per seed whose
    two fits are both usable (a degenerate fit drops its seed)."""
    seeds = spread["seed"].nunique() if "seed" in spread.columns else 0
    wide = usable_fits(spread).pivot_table(index="seed", columns="method", values=column)
    if "K-Means" not in wide or _LOGAN not in wide:
        out = pd.DataFrame(columns=["K-Means", _LOGAN])
    else:
        out = wide[["K-Means", _LOGAN]].dropna()
    out.attrs["n_seeds"] = seeds
    return out


def _logan(spread: pd.DataFrame, column: str) -> pd.Series:
    """``column`` of LOGAN (paper's rule) per seed whose fit is usable."""
    seeds = spread["seed"].nunique() if "seed" in spread.columns else 0
    fits = usable_fits(spread)
    out = fits.loc[fits["method"] == _LOGAN, column].dropna().astype(float)
    out.attrs["n_seeds"] = seeds
    return out


def _summary(values: pd.Series) -> dict[str, float | None]:
    """Median and the 2.5–97.5 percentiles (None where there are no values; no interval from
    one seed, whose percentiles would be a zero-width interval)."""
    v = np.asarray(values, dtype=float)
    if v.size == 0:
        return {"book": None, "ci_low": None, "ci_high": None}
    if v.size == 1:
        return {"book": float(v[0]), "ci_low": None, "ci_high": None}
    lo, med, hi = np.percentile(v, [2.5, 50, 97.5])
    return {"book": float(med), "ci_low": float(lo), "ci_high": float(hi)}


def _seeds(n: int, total: int, fits: str) -> str:
    left = total - n
    if left <= 0:
        return f"{n} k-means++ seeds"
    return f"{n} of {total} k-means++ seeds ({left} left out: a degenerate {fits} fit)"


def _interval(n: int, total: int, lam: float | None, *, what: str) -> str:
    """What the row's interval is: ``what`` (``"gain"`` or ``"gap"``) over the usable seeds."""
    fits = "K-Means or LOGAN" if what == "gain" else "LOGAN"
    if n == 0:
        return f"none: no seed with a usable {fits} fit in the seed spread"
    at = f", λ = {lam:g}" if lam is not None else ""
    if what == "gain":
        return (
            f"median and 2.5–97.5 percentiles over {_seeds(n, total, fits)} of the per-seed "
            f"difference LOGAN (the paper's rule{at}) − K-Means from the same start (seed "
            "variation only: one classifier, one test set)"
        )
    return (
        f"median and 2.5–97.5 percentiles over {_seeds(n, total, fits)} of LOGAN's largest "
        f"cluster gap (the paper's rule{at}) minus the global gap, a fixed number (seed "
        "variation only: one classifier, one test set)"
    )


def headlines(
    runs: Mapping[str, Mapping[str, Any]],
    robust: Mapping[str, Mapping[str, Any]],
    *,
    paper: Mapping[str, Any],
    source: str,
    runs_auc: Mapping[str, Mapping[str, Any]] | None = None,
    robust_auc: Mapping[str, Mapping[str, Any]] | None = None,
    chapter: str = "logan",
) -> list[dict[str, Any]]:
    """Headline rows of the LOGAN chapter (see the module docstring).

    Parameters
    ----------
    runs : mapping
        Attribute → :func:`~nlpbias.studies.logan.study.run_attribute` output (its ``table1``
        gives the global gap, its ``null`` the permutation p).
    robust : mapping
        Attribute → :func:`~nlpbias.studies.logan.study.run_robustness` output (``spread`` and
        ``lams``).
    paper : mapping
        ``load_reported("zhao2020logan")``.
    source : {"real", "synthetic"}
        ``LoganData.source``.
    runs_auc, robust_auc : mapping, optional
        The same with ``metric="auc"``: adds the Table 2 rows ``local_auc_gap_race`` and
        ``local_auc_gap_gender`` (the gap in AUC points).

    Returns
    -------
    list of dict
        Rows of :func:`nlpbias.core.scorecard.headline`.
    """
    if source not in ("real", "synthetic"):
        raise ValueError(f"source must be 'real' or 'synthetic', got {source!r}")
    synthetic = source == "synthetic"
    available = [a for a in robust if a in runs]
    base = {"study": "logan", "data": source, "chapter": chapter, "section": SECTION}
    rows = []

    t4 = paper["table4_race"]
    attr = _attribute("race", available, synthetic)
    gain = pd.Series(dtype=float)
    lam, total = None, 0
    if attr is not None:
        bcr = _paired(robust[attr]["spread"], "bcr_pct")
        gain, total = bcr[_LOGAN] - bcr["K-Means"], bcr.attrs["n_seeds"]
        lam = robust[attr].get("lams", {}).get("paper")
    rows.append(
        headline(
            **base,
            key="bcr_gain_race",
            claim=(
                "LOGAN finds more biased clusters than K-Means: BCR "
                f"{t4['K-Means']['BCR']:g} % → {t4['LOGAN']['BCR']:g} % (race, Table 4)."
            ),
            paper=float(t4["LOGAN"]["BCR"] - t4["K-Means"]["BCR"]),
            **_summary(gain),
            interval=_interval(len(gain), total, lam, what="gain"),
            unit="points of BCR, LOGAN − K-Means",
            note=f"attribute: {attr}, the stand-in's one attribute" if synthetic and attr else "",
        )
    )

    for name in ("race", "gender"):
        rows.append(_local_gap_row(name, runs, robust, paper, "table1", base, synthetic))
    if runs_auc is not None and robust_auc is not None:
        for name in ("race", "gender"):
            rows.append(_local_gap_row(name, runs_auc, robust_auc, paper, "table2", base,
                                       synthetic))  # fmt: skip
    return rows


#: Per paper table: the metric's words, the row key's stem, the scale of its numbers to points.
_TABLES = {
    "table1": ("accuracy", "local_gap", 1.0, "Table 1"),
    "table2": ("subgroup-AUC", "local_auc_gap", 100.0, "Table 2"),
}


def _local_gap_row(
    name: str,
    runs: Mapping[str, Mapping[str, Any]],
    robust: Mapping[str, Mapping[str, Any]],
    paper: Mapping[str, Any],
    table: str,
    base: Mapping[str, Any],
    synthetic: bool,
) -> dict[str, Any]:
    """The row "the most biased LOGAN cluster has a far larger gap than the whole test set" of
    attribute ``name``, for the accuracy runs (``table1``) or the AUC runs (``table2``)."""
    metric, stem, scale, title = _TABLES[table]
    t = paper[table][name]
    available = [a for a in robust if a in runs]
    attr = _attribute(name, available, synthetic)
    excess = pd.Series(dtype=float)
    note, lam, total = "", None, 0
    p_value, test = None, ""
    if attr is None and synthetic and name != "race" and available:
        note = (
            f"the synthetic stand-in has one attribute ({available[0]}), whose number is on "
            "the race row; it has no second attribute to stand for this one"
        )
    if attr is not None:
        global_gap = scale * float(runs[attr][table].loc["Global", "bias"])
        gaps = _logan(robust[attr]["spread"], "max_abs_gap_pts")
        excess, total = gaps - global_gap, gaps.attrs["n_seeds"]
        lam = robust[attr].get("lams", {}).get("paper")
        null = runs[attr].get("null")
        note = f"attribute: {attr}, the stand-in's one attribute" if synthetic else ""
        if name == "race" and not synthetic:
            note = "race by TwitterAAE dialect here"
        t4 = runs[attr].get("table4")
        bad = "" if t4 is None or "degenerate" not in t4 else str(t4.loc["LOGAN", "degenerate"])
        if bad:  # the permutation null was fitted at a λ whose fit is degenerate: not used
            note += ("; " if note else "") + (
                f"no permutation p: no λ of the grid gave a usable LOGAN fit ({bad})"
            )
        elif null is not None:
            at = runs[attr].get("lam")
            test = (
                f"permutation test of the largest gap ({_count(len(null.null))} refits on "
                "shuffled groups" + (f", λ = {at:g})" if at is not None else ")")
            )
            p_value = float(null.p_value)
    unit = "points" if scale == 1 else "AUC points (AUC × 100)"
    return headline(
        **base,
        key=f"{stem}_{name}",
        claim=(
            f"The most biased LOGAN cluster has a far larger {name} {metric} gap than "
            f"the whole test set: {t['Global']['bias']:g} → {t['LOGAN']['bias']:g}"
            f"{' points' if scale == 1 else ''} ({title})."
        ),
        paper=scale * float(t["LOGAN"]["bias"] - t["Global"]["bias"]),
        **_summary(excess),
        interval=(
            "none: no such attribute in this run"
            if attr is None
            else _interval(len(excess), total, lam, what="gap")
        ),
        unit=f"{unit}, largest LOGAN cluster gap − global gap",
        note=note,
        p_value=p_value,
        test=test,
    )
