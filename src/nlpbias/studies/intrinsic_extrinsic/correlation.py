"""From the evaluations to the correlations: the scores frame and Spearman ρ per cell.

:func:`scores_frame` turns the results of
:func:`nlpbias.studies.intrinsic_extrinsic.study.run_study` into one row per (embedding,
family); :func:`correlations` gives Spearman ρ between each intrinsic and each extrinsic metric
over the embeddings of one (family, algorithm, modification set), with a two-sided permutation
p-value (the paper's Tables 3-10); :func:`mean_rho_interval` is a bootstrap interval over the
embeddings for the mean ρ of a set of those cells; :func:`skipped_table` lists the word sets that
could not be measured and :func:`skipped_text` says it in words.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from nlpbias.core.repro import rng as _rng
from nlpbias.studies.intrinsic_extrinsic.families import (
    FAMILIES,
    MODSETS,
    Family,
    evaluation_sets,
)

__all__ = [
    "check_one_design",
    "correlations",
    "design_scores",
    "dropped_text",
    "mean_rho_interval",
    "scores_frame",
    "seed_spread",
    "skipped_cells",
    "skipped_table",
    "skipped_text",
]

logger = logging.getLogger(__name__)

_METRICS = ("precision", "recall", "f1")
#: Gap prefix in :func:`nlpbias.studies.intrinsic_extrinsic.hsd.hsd_gaps` for each bias of the HSD
#: families.
_HSD_GAP = {"gender": "gender", "race": "dialect"}


def scores_frame(results: Sequence[Mapping[str, Any]]) -> pd.DataFrame:
    """One row per (embedding, family) with intrinsic columns and mean extrinsic columns.

    Columns: the spec's keys, ``family``, ``intrinsic:<wordset>:<metric>`` for every evaluation
    set, ``extrinsic:<metric>`` (mean over seeds) and ``extrinsic_sd:<metric>`` (sample std over
    seeds; NaN for one seed), ``n_seeds``.
    """
    rows = []
    for res in results:
        spec = res["spec"]
        intr = pd.DataFrame(res["intrinsic"])
        ext = pd.DataFrame(res["extrinsic"])
        agg = ext.groupby("metric")["value"].agg(["mean", "std"]) if len(ext) else None
        # a family whose word sets were all skipped still gets its row (extrinsic only)
        fams = spec["families"] if "families" in spec else [spec["family"]]
        blocks = dict(list(intr.groupby("family", sort=False))) if len(intr) else {}
        for fam in fams:
            block = blocks.get(fam, pd.DataFrame(columns=["wordset", "metric", "value"]))
            row = {k: v for k, v in spec.items() if k != "family"}
            row["family"] = fam
            for rec in block.itertuples():
                row[f"intrinsic:{rec.wordset}:{rec.metric}"] = rec.value
            if agg is not None:
                for metric, r in agg.iterrows():
                    row[f"extrinsic:{metric}"] = r["mean"]
                    row[f"extrinsic_sd:{metric}"] = r["std"]
                row["n_seeds"] = int(ext["seed"].nunique())
            rows.append(row)
    return pd.DataFrame(rows)


def design_scores(scores: pd.DataFrame, design: str) -> pd.DataFrame:
    """The original embeddings and those modified in one design (``"expanded"`` or
    ``"unexpanded"``, :data:`~nlpbias.studies.intrinsic_extrinsic.grid.DESIGNS`): the frame
    :func:`correlations` and the figures take, one design at a time.

    Raises
    ------
    ValueError
        No embedding of the frame was modified in ``design`` (the message lists those that were).

    Examples
    --------
    >>> s = pd.DataFrame({"method": ["original", "balance", "balance"],
    ...                   "design": [None, "expanded", "unexpanded"]})
    >>> design_scores(s, "expanded")["method"].tolist()
    ['original', 'balance']
    """
    have = sorted(scores["design"].dropna().unique()) if "design" in scores else []
    if design not in have:
        raise ValueError(
            f"no embedding of these scores was modified in the design {design!r}; the scores "
            f"hold {have or 'no modified embedding'} (the parameter `designs`)"
        )
    keep = (scores["method"] == "original") | (scores["design"] == design)
    return scores[keep].reset_index(drop=True)


def check_one_design(scores: pd.DataFrame, where: str) -> None:
    """Refuse a frame that mixes designs (their embeddings must not share a correlation)."""
    have = sorted(scores["design"].dropna().unique()) if "design" in scores else []
    if len(have) > 1:
        raise ValueError(
            f"{where}: the scores hold embeddings of the designs {have}; pass one design at a "
            "time with design_scores(scores, design)"
        )


def extrinsic_columns(family: Family, frame: pd.DataFrame) -> dict[tuple[str, str], str]:
    """(view, metric) -> extrinsic column of the frame, for the family's task."""
    out = {}
    for view in family.views:
        for metric in _METRICS:
            if family.task == "coref":  # coref.winobias_gaps: type1_f1, ...
                col = f"extrinsic:{view.removeprefix('winobias_')}_{metric}"
            else:  # hsd names the race gap after the dialect groups
                col = f"extrinsic:{_HSD_GAP[family.bias]}_{metric}"
            if col in frame.columns:
                out[(view, metric)] = col
    return out


def _blocks(scores: pd.DataFrame):
    """``(family, algorithm, modset, points)``: the embeddings one correlation cell rests on,
    the original embedding plus those modified with ``modset`` (at least 3)."""
    for (fam_name, alg), block in scores.groupby(["family", "algorithm"], sort=False):
        fam = FAMILIES[fam_name]
        original = block[block["method"] == "original"]
        for modset in MODSETS:
            points = pd.concat([original, block[block.get("modset") == modset]])
            if len(points) >= 3:
                yield fam, alg, modset, points


def correlations(
    scores: pd.DataFrame,
    *,
    n_resamples: int,
    random_state: int,
    min_points: int = 5,
) -> pd.DataFrame:
    """Spearman ρ and permutation p between intrinsic and extrinsic metrics (Tables 3-10).

    For each family, algorithm and modification set the points are the original embedding plus
    the embeddings modified with that set, in one design (:func:`design_scores`); for each
    evaluation word set of the modification set, each intrinsic metric (WEAT, RNSB) is
    correlated with each extrinsic difference.
    An embedding on which a word set could not be measured (too many words out of its
    vocabulary, e.g. after balancing removed every sentence holding them) is left out of that
    cell — never imputed — and ``n`` says how many points remain; a cell with fewer than
    ``min_points`` points is not reported.

    Returns
    -------
    pandas.DataFrame
        Columns ``family``, ``bias``, ``algorithm``, ``modset``, ``view``, ``metric``,
        ``wordset``, ``intrinsic``, ``n``, ``rho``, ``pvalue``; the cells left out, with their
        reasons, are in ``.attrs["skipped"]`` (:func:`skipped_cells`).
    """
    from nlpbias.metrics.stats import spearman_permutation

    check_one_design(scores, "correlations")
    rows, skipped = [], []
    for fam, alg, modset, points in _blocks(scores):
        fam_name = fam.name
        for column in evaluation_sets(fam, modset):
            for intrinsic in ("weat", "rnsb"):
                col = f"intrinsic:{column}:{intrinsic}"
                where = {"family": fam_name, "algorithm": alg, "modset": modset,
                         "wordset": column, "intrinsic": intrinsic}  # fmt: skip
                if col not in points or points[col].isna().all():
                    skipped.append(
                        {**where, "view": "all", "metric": "all", "n": 0,
                         "reason": "the word set was measured on none of these embeddings "
                         "(too many of its words out of their vocabularies)"}
                    )  # fmt: skip
                    continue
                for (view, metric), ycol in extrinsic_columns(fam, points).items():
                    both = points[[col, ycol]].dropna()
                    cell = {**where, "view": view, "metric": metric, "n": len(both)}
                    x, y = both[col].to_numpy(float), both[ycol].to_numpy(float)
                    if len(both) < min_points:
                        reason = (
                            f"{len(both)} embeddings with both numbers, fewer than "
                            f"{min_points}: too few points for a correlation"
                        )
                    elif np.ptp(y) == 0:
                        reason = (
                            f"the downstream gap is the same ({y[0]:.3g}) on every embedding: "
                            "a constant has no rank correlation"
                        )
                    elif np.ptp(x) == 0:
                        reason = "the intrinsic score is the same on every embedding"
                    else:
                        reason = ""
                    if reason:
                        logger.info("%s/%s: %s vs %s: %s; cell left out",
                                    fam_name, alg, col, ycol, reason)  # fmt: skip
                        skipped.append({**cell, "reason": reason})
                        continue
                    res = spearman_permutation(
                        x, y, n_resamples=n_resamples, random_state=random_state
                    )
                    rows.append(
                        {
                            "family": fam_name,
                            "bias": fam.bias,
                            "algorithm": alg,
                            "modset": modset,
                            "view": view,
                            "metric": metric,
                            "wordset": column,
                            "intrinsic": intrinsic,
                            "n": len(both),
                            "rho": float(res.rho),
                            "pvalue": float(res.p_value),
                        }
                    )
    out = pd.DataFrame(rows, columns=_CORR_COLUMNS)
    out["n"] = out["n"].astype(int)
    out.attrs["skipped"] = skipped
    return out


_CORR_COLUMNS = ["family", "bias", "algorithm", "modset", "view", "metric", "wordset",
                 "intrinsic", "n", "rho", "pvalue"]  # fmt: skip


def skipped_cells(corr: pd.DataFrame) -> pd.DataFrame:
    """The cells :func:`correlations` left out, each with its reason (a word set measured on no
    embedding, fewer than ``min_points`` embeddings, a constant gap or score).

    Columns ``family``, ``algorithm``, ``modset``, ``wordset``, ``intrinsic``, ``view``,
    ``metric``, ``n`` (embeddings with both numbers), ``reason``.
    """
    cols = ["family", "algorithm", "modset", "wordset", "intrinsic", "view", "metric", "n",
            "reason"]  # fmt: skip
    return pd.DataFrame(corr.attrs.get("skipped", []), columns=cols)


def spearman_rows(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Spearman's ρ of every row of ``x`` against the same row of ``y`` (NaN: left out)."""
    from scipy.stats import rankdata

    both = ~(np.isnan(x) | np.isnan(y))
    count = np.maximum(both.sum(axis=1, keepdims=True), 1)  # a row with no pair gives NaN below
    rx = np.where(both, rankdata(np.where(both, x, np.nan), axis=1, nan_policy="omit"), 0.0)
    ry = np.where(both, rankdata(np.where(both, y, np.nan), axis=1, nan_policy="omit"), 0.0)
    rx = np.where(both, rx - rx.sum(axis=1, keepdims=True) / count, 0.0)
    ry = np.where(both, ry - ry.sum(axis=1, keepdims=True) / count, 0.0)
    den = np.sqrt((rx**2).sum(axis=1) * (ry**2).sum(axis=1))
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(den > 0, (rx * ry).sum(axis=1) / den, np.nan)


def mean_rho_interval(
    scores: pd.DataFrame,
    cells: pd.DataFrame,
    *,
    n_resamples: int = 2000,
    confidence_level: float = 0.95,
    random_state: int,
    seed_spread: bool = False,
) -> tuple[float, float, int]:
    """Percentile bootstrap interval, over the embeddings, of the mean ρ of some cells.

    Each embedding block of a cell (a family and algorithm: the original embedding plus those
    modified with the cell's modification set) is resampled with replacement, the same draw for
    every cell of the block and independent draws for different blocks; every cell's Spearman
    ρ is recomputed on the drawn embeddings (an embedding on which a word set was not measured
    stays out, as in :func:`correlations`) and the cells' ρ are averaged. Draws on which a
    cell is constant (ρ undefined) are left out of that draw's mean.

    With ``seed_spread=True`` each draw also adds to every drawn embedding's extrinsic gap a
    normal deviate with the standard deviation of that gap over the original embedding's
    downstream seeds (``extrinsic_sd:…``): the change another seed of the downstream model — or
    another CPU, which changes the training as a seed does — could bring; the change in each
    cell's ρ is added to the draw's ρ less its mean over the draws (noise pulls every ρ towards
    0; that average shift is not an uncertainty and is taken out, so the noise widens the
    interval without moving it). The interval then holds both uncertainties the chapter can
    afford to measure; it is conservative, since the observed gaps already carry one seed's
    noise. A block whose original has one seed (no
    spread) gets no noise; :func:`seed_spread` says which.

    Parameters
    ----------
    scores : pandas.DataFrame
        :func:`scores_frame`.
    cells : pandas.DataFrame
        Rows of :func:`correlations` (``family``, ``algorithm``, ``modset``, ``view``,
        ``metric``, ``wordset``, ``intrinsic``).

    Returns
    -------
    (low, high, n_embeddings)
        The interval and the number of embeddings the cells rest on (all blocks together).

    Examples
    --------
    >>> s = pd.DataFrame({"family": "coref", "algorithm": "a", "method": ["original"] + ["ar"] * 5,
    ...     "modset": [None] + ["extracted"] * 5, "intrinsic:extracted:weat": [0., 1, 2, 3, 4, 5],
    ...     "extrinsic:type1_f1": [0., 1, 2, 3, 5, 4]})
    >>> corr = correlations(s, n_resamples=9, random_state=0)
    >>> cells = corr.query("metric == 'f1' and intrinsic == 'weat'")
    >>> low, high, n = mean_rho_interval(s, cells, n_resamples=200, random_state=0)
    >>> bool(low <= cells["rho"].mean() <= high <= 1.0), n
    (True, 6)
    """
    keys = ["family", "algorithm", "modset"]
    if cells.empty:
        raise ValueError("cells is empty: select rows of correlations(scores)")
    gen = _rng(random_state)
    wanted = cells.groupby(keys, sort=False)
    per_block, n_total = [], 0
    for fam, alg, modset, points in _blocks(scores):
        key = (fam.name, alg, modset)
        if key not in wanted.groups:
            continue
        ycols = extrinsic_columns(fam, points)
        sel = wanted.get_group(key)
        x = np.column_stack([points[f"intrinsic:{c.wordset}:{c.intrinsic}"].to_numpy(float)
                             for c in sel.itertuples()])  # fmt: skip
        y = np.column_stack([points[ycols[(c.view, c.metric)]].to_numpy(float)
                             for c in sel.itertuples()])  # fmt: skip
        n = len(points)
        n_total += n
        idx = gen.integers(0, n, size=(n_resamples, n))
        sd = np.zeros(y.shape[1])
        if seed_spread:
            original = points[points["method"] == "original"]
            for j, c in enumerate(sel.itertuples()):
                col = ycols[(c.view, c.metric)].replace("extrinsic:", "extrinsic_sd:", 1)
                if col in original and len(original):
                    sd[j] = np.nan_to_num(float(original[col].iloc[0]))
        cols = []
        for j in range(x.shape[1]):
            rho = spearman_rows(x[idx, j], y[idx, j])
            if sd[j] > 0:  # the change the noise brings, less its mean (the attenuation)
                noisy = spearman_rows(
                    x[idx, j], y[idx, j] + gen.normal(0.0, sd[j], size=(n_resamples, n))
                )
                change = noisy - rho
                # a correlation stays in [-1, 1]: the re-centred draw is clipped there
                rho = np.clip(rho + change - np.nanmean(change), -1.0, 1.0)
            cols.append(rho)
        per_block.append(np.column_stack(cols))
    if not per_block:
        raise ValueError("none of the cells is in scores; pass rows of correlations(scores)")
    rhos = np.concatenate(per_block, axis=1)
    ok = np.isfinite(rhos)
    n_ok = ok.sum(axis=1)
    means = np.where(ok, rhos, 0.0).sum(axis=1)[n_ok > 0] / n_ok[n_ok > 0]
    if means.size < 2:
        raise ValueError("fewer than 2 bootstrap draws give a correlation; too few embeddings")
    alpha = (1 - confidence_level) / 2
    low, high = np.quantile(means, [alpha, 1 - alpha])
    return float(low), float(high), n_total


def seed_spread(scores: pd.DataFrame, cells: pd.DataFrame) -> pd.DataFrame:
    """The downstream seed-to-seed spread behind ``cells``: per family, algorithm and extrinsic
    gap, the original embedding's number of seeds and the standard deviation of the gap over
    them, beside the range of the gap over all embeddings of the family and algorithm.

    Columns ``family``, ``algorithm``, ``gap``, ``seeds``, ``seed_sd``, ``range``.
    """
    rows = []
    for (fam_name, alg), sub in cells.groupby(["family", "algorithm"], sort=False):
        fam = FAMILIES[fam_name]
        block = scores[(scores["family"] == fam_name) & (scores["algorithm"] == alg)]
        original = block[block["method"] == "original"]
        ycols = extrinsic_columns(fam, block)
        for view, metric in dict.fromkeys(zip(sub["view"], sub["metric"], strict=True)):
            col = ycols[(view, metric)]
            sd_col = col.replace("extrinsic:", "extrinsic_sd:", 1)
            seeds = (
                int(original["n_seeds"].iloc[0])
                if len(original) and "n_seeds" in original and pd.notna(original["n_seeds"].iloc[0])
                else 0
            )
            sd = float(original[sd_col].iloc[0]) if len(original) and sd_col in original else np.nan
            rows.append(
                {
                    "family": fam_name,
                    "algorithm": alg,
                    "gap": col.removeprefix("extrinsic:"),
                    "seeds": seeds,
                    "seed_sd": sd,
                    "range": float(block[col].max() - block[col].min()),
                }
            )
    return pd.DataFrame(rows, columns=["family", "algorithm", "gap", "seeds", "seed_sd", "range"])


def skipped_table(results: Sequence[Mapping[str, Any]]) -> pd.DataFrame:
    """Word sets that could not be measured on an embedding (too many words out of vocabulary).

    Columns ``family``, ``wordset``, ``embeddings`` (how many), ``reason`` (the first message).
    """
    rows = [dict(r, id=res["spec"]["id"]) for res in results for r in res.get("skipped", [])]
    if not rows:
        return pd.DataFrame(columns=["family", "wordset", "embeddings", "reason"])
    df = pd.DataFrame(rows)
    return (
        df.groupby(["family", "wordset"], sort=False)
        .agg(embeddings=("id", "nunique"), reason=("reason", "first"))
        .reset_index()
    )


def _wordset_words(wordset: str) -> str:
    if wordset == "extracted":
        return "the aligned (extracted) set"
    match = re.fullmatch(r"weat(\d+)", wordset)
    return f"WEAT {match.group(1)}" if match else f"`{wordset}`"


def skipped_text(results: Sequence[Mapping[str, Any]], *, name_up_to: int = 3) -> str:
    """What :func:`skipped_table` lists, as the chapter's sentence about this run.

    One item per word set and family: on how many of the embeddings it was to be measured on
    (those where it was measured or skipped) it could not be, and on which corpora (the first part
    of an embedding's id). Up to ``name_up_to`` embeddings are named by id, when not all are.

    Examples
    --------
    >>> res = [{"spec": {"id": "books/sgns/original"}, "skipped": [],
    ...         "intrinsic": [{"family": "coref", "wordset": "extracted"}]},
    ...        {"spec": {"id": "books/sgns/coref:extracted/balance-debias-p0.0"}, "intrinsic": [],
    ...         "skipped": [{"family": "coref", "wordset": "extracted", "reason": "oov"}]}]
    >>> print(skipped_text(res))
    In this run:
    <BLANKLINE>
    - the aligned (extracted) set could not be measured for coreference, gender on 1 of the 2 embeddings it was to be measured on (`books/sgns/coref:extracted/balance-debias-p0.0`).
    """  # noqa: E501
    from nlpbias.studies.intrinsic_extrinsic.figures import FAMILY_LABELS

    attempted: dict[tuple[str, str], set[str]] = {}
    missing: dict[tuple[str, str], list[str]] = {}
    for res in results:
        emb = str(res["spec"]["id"])
        for row in [*res.get("intrinsic", []), *res.get("skipped", [])]:
            attempted.setdefault((row["wordset"], row["family"]), set()).add(emb)
        for row in res.get("skipped", []):
            ids = missing.setdefault((row["wordset"], row["family"]), [])
            if emb not in ids:
                ids.append(emb)
    if not missing:
        return "In this run every word set was measured on every embedding."
    items = []
    for (wordset, family), ids in missing.items():
        of = len(attempted[(wordset, family)])
        corpora = " and ".join(f"`{c}`" for c in sorted({i.split("/")[0] for i in ids}))
        if len(ids) == of:
            where = f"on all {of} embeddings it was to be measured on (trained on {corpora})"
        else:
            where = f"on {len(ids)} of the {of} embeddings it was to be measured on"
            if len(ids) <= name_up_to:
                where += " (" + ", ".join(f"`{i}`" for i in ids) + ")"
            else:
                where += f" (trained on {corpora})"
        items.append(
            f"- {_wordset_words(wordset)} could not be measured for "
            f"{FAMILY_LABELS.get(family, family)} {where}."
        )
    return "In this run:\n\n" + "\n".join(items)


def dropped_text(results: Sequence[Mapping[str, Any]], *, show_up_to: int = 8) -> str:
    """Which terms of the modification sets Attract-Repel could not change, in words.

    Attract-Repel changes the terms an embedding has; a term it lacks (``modification_oov`` of a
    sweep task's result) is left out of the constraints. One item per family, modification set
    and design: the terms missing from at least one of its Attract-Repel embeddings (the first
    ``show_up_to`` named) and how many of those embeddings lack some.

    Examples
    --------
    >>> spec = {"method": "attract_repel", "family": "coref", "modset": "weat",
    ...         "design": "expanded"}
    >>> res = [{"spec": spec, "modification_oov": ["NASA", "calculus"]},
    ...        {"spec": spec, "modification_oov": []}]
    >>> print(dropped_text(res))
    Attract-Repel changed only the terms an embedding has; it left out:
    <BLANKLINE>
    - for coreference, gender, the generic WEAT set (expanded): 2 terms (NASA, calculus), missing from 1 of its 2 embeddings.
    """  # noqa: E501
    from nlpbias.studies.intrinsic_extrinsic.figures import FAMILY_LABELS

    groups: dict[tuple[str, str, str], list[list[str]]] = {}
    for res in results:
        spec = res["spec"]
        if spec.get("method") == "attract_repel":
            key = (spec["family"], spec["modset"], spec.get("design", "expanded"))
            groups.setdefault(key, []).append(list(res.get("modification_oov", [])))
    items = []
    for (family, modset, design), lists in groups.items():
        terms = list(dict.fromkeys(t for oov in lists for t in oov))
        if not terms:
            continue
        shown = ", ".join(terms[:show_up_to]) + (", ..." if len(terms) > show_up_to else "")
        which = "the aligned (extracted) set" if modset == "extracted" else "the generic WEAT set"
        lacking = sum(1 for oov in lists if oov)
        items.append(
            f"- for {FAMILY_LABELS.get(family, family)}, {which} ({design}): {len(terms)} terms "
            f"({shown}), missing from {lacking} of its {len(lists)} embeddings."
        )
    if not items:
        return "Attract-Repel found every term of every modification set in its embedding."
    head = "Attract-Repel changed only the terms an embedding has; it left out:"
    return head + "\n\n" + "\n".join(items)
