"""Coreference scores: GAP's scorer, the GAP and WinoBias scorecards, WinoBias' pro − anti gaps.

**Scores.** A model decides, for each (pronoun, candidate) pair, whether the candidate is the
pronoun's antecedent (:meth:`nlpbias.studies.intrinsic_extrinsic.coref.MentionPairScorer.predict`).
Each candidate is then a binary decision scored as GAP's official scorer does: precision, recall
and F1 of the positive class over all pairs (0 when a denominator is 0, as in the scorer), by
pronoun gender; bias = F1(feminine) / F1(masculine). On WinoBias every pronoun has one gold
candidate: a wrong pick costs precision and recall, an abstention (ε wins) costs recall only.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from nlpbias.studies.intrinsic_extrinsic.coref_pairs import PAIR_COLUMNS, gap_pairs, require_columns

__all__ = ["score_gap", "score_pairs", "score_winobias", "winobias_gaps"]

METRIC_COLUMNS = ["precision", "recall", "f1", "tp", "fp", "fn", "tn", "n"]


def score_pairs(labels: Sequence[bool], decisions: Sequence[bool]) -> dict[str, float]:
    """Precision, recall and F1 of the positive class (GAP's scorer; 0 for a zero denominator).

    Examples
    --------
    >>> score_pairs([True, False, True, False], [True, True, False, False])["f1"]
    0.5
    """
    gold, pred = np.asarray(labels, dtype=bool), np.asarray(decisions, dtype=bool)
    if gold.shape != pred.shape:
        raise ValueError(f"labels {gold.shape} and decisions {pred.shape} must have one shape")
    tp, fp = int((gold & pred).sum()), int((~gold & pred).sum())
    fn, tn = int((gold & ~pred).sum()), int((~gold & ~pred).sum())
    p = tp / (tp + fp) if tp + fp else 0.0
    r = tp / (tp + fn) if tp + fn else 0.0
    f1 = 2 * p * r / (p + r) if p + r else 0.0
    return {"precision": p, "recall": r, "f1": f1, "tp": tp, "fp": fp, "fn": fn, "tn": tn,
            "n": len(gold)}  # fmt: skip


def _decide(model: Any, pairs: pd.DataFrame) -> np.ndarray:
    if pairs.empty:
        raise ValueError("pairs is empty; nothing to score")
    if not hasattr(model, "predict"):
        raise TypeError(f"model must have predict(pairs), got {type(model).__name__}")
    return np.asarray(model.predict(pairs), dtype=bool)


def score_gap(model: Any, df: pd.DataFrame) -> pd.DataFrame:
    """GAP scorecard: precision, recall, F1 overall and by pronoun gender, and the F/M bias.

    Parameters
    ----------
    model : fitted estimator
        Anything with ``predict(pairs) -> bool per pair`` (:class:`MentionPairScorer`,
        the baselines).
    df : pandas.DataFrame
        GAP rows (:func:`nlpbias.data.coref.load_gap`) or their pairs (:func:`gap_pairs`).

    Returns
    -------
    pandas.DataFrame
        Index ``overall``, ``masculine``, ``feminine``; columns ``precision``, ``recall``,
        ``f1`` (fractions), ``tp``, ``fp``, ``fn``, ``tn``, ``n`` (pairs) and ``bias_f_m`` =
        F1(feminine) / F1(masculine), the same in every row (NaN when F1(masculine) is 0).

    Examples
    --------
    >>> table = score_gap(model, load_gap("test"))  # doctest: +SKIP
    >>> table.loc["overall", "f1"], table.loc["overall", "bias_f_m"]  # doctest: +SKIP
    """
    pairs = df if "candidate_start" in df.columns else gap_pairs(df)
    pred = _decide(model, pairs)
    label = pairs["label"].to_numpy(bool)
    rows = {"overall": score_pairs(label, pred)}
    for name, gender in (("masculine", "male"), ("feminine", "female")):
        m = (pairs["gender"] == gender).to_numpy()
        rows[name] = score_pairs(label[m], pred[m])
    table = pd.DataFrame.from_dict(rows, orient="index")[METRIC_COLUMNS]
    f1_m = table.loc["masculine", "f1"]
    table["bias_f_m"] = table.loc["feminine", "f1"] / f1_m if f1_m > 0 else np.nan
    table.index.name = "group"
    return table


def score_winobias(model: Any, pairs: pd.DataFrame) -> pd.DataFrame:
    """Precision, recall, F1 per WinoBias type (1, 2) and condition (pro, anti).

    Parameters
    ----------
    model : fitted estimator with ``predict(pairs)``
    pairs : pandas.DataFrame
        :func:`winobias_pairs` output.

    Returns
    -------
    pandas.DataFrame
        Index (``type``, ``condition``) in the order (1, pro), (1, anti), (2, pro), (2, anti)
        (those present); columns as :func:`score_gap` without ``bias_f_m``.

    Examples
    --------
    >>> score_winobias(model, load_winobias_pairs("test"))  # doctest: +SKIP
    """
    require_columns(pairs, [*PAIR_COLUMNS, "type", "condition"], "WinoBias pairs")
    pred = _decide(model, pairs)
    label = pairs["label"].to_numpy(bool)
    rows = {}
    for key in [(t, c) for t in (1, 2) for c in ("pro", "anti")]:
        m = ((pairs["type"] == key[0]) & (pairs["condition"] == key[1])).to_numpy()
        if m.any():
            rows[key] = score_pairs(label[m], pred[m])
    table = pd.DataFrame.from_dict(rows, orient="index")[METRIC_COLUMNS]
    table.index = pd.MultiIndex.from_tuples(table.index, names=["type", "condition"])
    return table


def winobias_gaps(table: pd.DataFrame) -> pd.Series:
    """Pro − anti differences of precision, recall and F1 per type and their mean over types.

    Parameters
    ----------
    table : pandas.DataFrame
        :func:`score_winobias` output with both conditions of types 1 and 2.

    Returns
    -------
    pandas.Series
        Named ``pro_minus_anti``, index ``type1_precision``, ``type1_recall``, ``type1_f1``,
        ``type2_…`` and ``mean_…`` (the mean of the two types).

    Examples
    --------
    >>> t = pd.DataFrame({"precision": [.9, .6, .8, .7], "recall": [.9, .6, .8, .7],
    ...     "f1": [.9, .6, .8, .7]}, index=pd.MultiIndex.from_product([[1, 2], ["pro", "anti"]]))
    >>> winobias_gaps(t).round(3).tolist()
    [0.3, 0.3, 0.3, 0.1, 0.1, 0.1, 0.2, 0.2, 0.2]
    """
    need = [(t, c) for t in (1, 2) for c in ("pro", "anti")]
    missing = [k for k in need if k not in table.index]
    if missing:
        raise ValueError(f"table lacks rows {missing}; score all four WinoBias files")
    out = {}
    metrics = ("precision", "recall", "f1")
    for t in (1, 2):
        for m in metrics:
            out[f"type{t}_{m}"] = float(table.loc[(t, "pro"), m] - table.loc[(t, "anti"), m])
    for m in metrics:
        out[f"mean_{m}"] = (out[f"type1_{m}"] + out[f"type2_{m}"]) / 2
    return pd.Series(out, name="pro_minus_anti")
