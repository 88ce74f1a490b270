"""The check of the mitigation pool: how much of it a fitted model calls toxic.

Dixon et al. (2018, section "Bias Mitigation") assumed their mined Wikipedia-article sentences
non-toxic and checked it by hand: of 1,000 labelled sentences "99.5% of them were confirmed
non-toxic" (``pool_check`` in ``data/reported/dixon2018.yaml``). The model-side analogue scores
the pool with a fitted model and counts the sentences at or above the decision threshold the
chapter uses, the equal-error-rate threshold of the general test set (:func:`nlpbias.studies.
pinned_auc.study.evaluate` computes it per model, ``overall["threshold"]``; a row is flagged
when ``score >= threshold``, as in :mod:`nlpbias.studies.pinned_auc.metrics`).

- :func:`pool_check` -- one model (or its scores) on one pool: counts, shares and a 95 % Wilson
  interval of the flagged share;
- :func:`pool_check_by_model` -- the same for every (family, seed) of a run, from
  :func:`~nlpbias.studies.pinned_auc.study.train_and_score`'s scores (with the pool among the
  scored sets) and :func:`~nlpbias.studies.pinned_auc.study.evaluate`'s thresholds;
- :func:`pool_check_text` -- one Markdown sentence from those numbers, beside the paper's.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd
from scipy.stats import binomtest

from nlpbias.core.checks import check_number, check_texts
from nlpbias.core.text import fmt_count, fmt_num
from nlpbias.studies.pinned_auc.roc import check_scores

__all__ = ["POOL_CHECK_FIELDS", "pool_check", "pool_check_by_model", "pool_check_text"]

#: The numbers :func:`pool_check` returns, in order.
POOL_CHECK_FIELDS = (
    "n",
    "n_flagged",
    "share_flagged",
    "share_nontoxic",
    "ci_low",
    "ci_high",
    "threshold",
)


def _pool_texts(pool: Any) -> list[str]:
    if isinstance(pool, pd.DataFrame):
        if "text" not in pool.columns:
            raise ValueError(
                f"pool has no 'text' column (has {list(pool.columns)}); pass e.g. "
                "load_dixon_pool('debias')"
            )
        pool = pool["text"]
    texts = check_texts(list(pool) if isinstance(pool, pd.Series) else pool, "pool")
    if not texts:
        raise ValueError("pool is empty; pass at least one text")
    return texts


def _counts(scores: np.ndarray, threshold: float) -> pd.Series:
    n = len(scores)
    k = int((scores >= threshold).sum())
    ci = binomtest(k, n).proportion_ci(confidence_level=0.95, method="wilson")
    return pd.Series(
        {
            "n": n,
            "n_flagged": k,
            "share_flagged": k / n,
            "share_nontoxic": 1 - k / n,
            "ci_low": float(ci.low),
            "ci_high": float(ci.high),
            "threshold": threshold,
        },
        name="pool_check",
        dtype=float,
    )[list(POOL_CHECK_FIELDS)]


def pool_check(
    pool: pd.DataFrame | Sequence[str] | None = None,
    *,
    threshold: float,
    model: Any = None,
    scores: Any = None,
) -> pd.Series:
    """Share of a pool that a model scores at or above ``threshold`` (calls toxic).

    Parameters
    ----------
    pool : DataFrame with a ``text`` column, or sequence of str
        The texts (e.g. :func:`nlpbias.data.dixon.load_dixon_pool`); needed with ``model``.
    threshold : float in [0, 1]
        Decision threshold; a text is flagged when its score is ``>= threshold``. The chapter's
        is the EER threshold of the general test set (``evaluate(...)["overall"]["threshold"]``).
    model : fitted classifier, optional
        Anything with ``predict_proba(texts)`` returning an ``(n, 2)`` array (the project's
        CNNs and linear baseline); column 1 is the toxic score.
    scores : array-like of float in [0, 1], optional
        The pool's toxic scores, instead of ``model`` (one per text).

    Returns
    -------
    pandas.Series
        :data:`POOL_CHECK_FIELDS`: ``n``, ``n_flagged``, ``share_flagged``, ``share_nontoxic``
        (``1 - share_flagged``), ``ci_low`` / ``ci_high`` (95 % Wilson interval of
        ``share_flagged``) and ``threshold``.

    Examples
    --------
    >>> r = pool_check(scores=[0.1, 0.2, 0.7, 0.05], threshold=0.5)
    >>> r[["n", "n_flagged", "share_nontoxic"]]
    n                 4.00
    n_flagged         1.00
    share_nontoxic    0.75
    Name: pool_check, dtype: float64
    """
    thr = check_number(threshold, "threshold", low=0.0, high=1.0)
    if (model is None) == (scores is None):
        raise ValueError("pass exactly one of model= (with pool) or scores=")
    if model is not None:
        if pool is None:
            raise ValueError("model= needs the pool's texts; pass pool=")
        if not callable(getattr(model, "predict_proba", None)):
            raise TypeError(
                f"model must be a fitted classifier with predict_proba, got {type(model).__name__}"
            )
        texts = _pool_texts(pool)
        proba = np.asarray(model.predict_proba(texts))
        if proba.ndim != 2 or proba.shape != (len(texts), 2):
            raise ValueError(
                f"model.predict_proba returned shape {proba.shape} for {len(texts)} texts; "
                "expected (n_texts, 2)"
            )
        s = proba[:, 1]
    else:
        s = np.asarray(scores)
        if s.ndim != 1 or len(s) == 0:
            raise ValueError(f"scores must be a non-empty 1-D array, got shape {s.shape}")
        if pool is not None and len(s) != len(_pool_texts(pool)):
            raise ValueError(
                f"pool has {len(_pool_texts(pool))} texts but scores has {len(s)}; pass one "
                "score per text"
            )
    return _counts(check_scores(s, len(s)), thr)


def pool_check_by_model(
    scores: pd.DataFrame, thresholds: pd.DataFrame, *, eval_set: str
) -> pd.DataFrame:
    """:func:`pool_check` for every model of a run.

    Parameters
    ----------
    scores : pandas.DataFrame
        :func:`~nlpbias.studies.pinned_auc.study.train_and_score`'s long frame (``family, seed,
        eval_set, row, toxic, score``) in which the pool was scored as set ``eval_set``.
    thresholds : pandas.DataFrame
        ``family``, ``seed`` and ``threshold`` of each model, e.g.
        ``evaluate(...)["overall"]`` (the EER threshold of the general set; one threshold per
        model, whichever evaluation set a row is for).
    eval_set : str
        The name the pool was scored under.

    Returns
    -------
    pandas.DataFrame
        One row per (family, seed), in the order of ``scores``: ``family``, ``seed`` and
        :data:`POOL_CHECK_FIELDS`.
    """
    for frame, what, cols in (
        (scores, "scores", ["family", "seed", "eval_set", "score"]),
        (thresholds, "thresholds", ["family", "seed", "threshold"]),
    ):
        if not isinstance(frame, pd.DataFrame):
            raise TypeError(f"{what} must be a DataFrame, got {type(frame).__name__}")
        missing = [c for c in cols if c not in frame.columns]
        if missing:
            raise ValueError(f"{what} lacks columns {missing} (has {list(frame.columns)})")
    pool = scores[scores["eval_set"] == eval_set]
    if pool.empty:
        names = sorted(scores["eval_set"].unique().tolist())
        raise ValueError(
            f"scores has no eval_set {eval_set!r} (has {names}); score the pool with the other "
            "evaluation sets in train_and_score"
        )
    thr = thresholds.groupby(["family", "seed"], sort=False)["threshold"].agg(["min", "max"])
    if (thr["min"] != thr["max"]).any():
        raise ValueError("thresholds gives a model two different thresholds; pass one per model")
    rows = []
    for (family, seed), part in pool.groupby(["family", "seed"], sort=False):
        if (family, seed) not in thr.index:
            raise ValueError(f"thresholds has no row for family {family!r}, seed {seed}")
        res = pool_check(scores=part["score"].to_numpy(), threshold=thr.loc[(family, seed), "min"])
        rows.append({"family": family, "seed": seed, **res.to_dict()})
    return pd.DataFrame(rows).astype({"n": int, "n_flagged": int})


def _pct(x: float) -> str:
    return f"{fmt_num(100 * x, 3)} %"


def pool_check_text(
    result: pd.Series | pd.DataFrame, *, model: str = "the baseline model", reported: Any = None
) -> str:
    """One Markdown sentence on a pool check, beside the paper's hand check.

    Parameters
    ----------
    result : pandas.Series or pandas.DataFrame
        :func:`pool_check` (one model) or :func:`pool_check_by_model` (several: the sentence
        gives the mean share over them and its range).
    model : str, default 'the baseline model'
        What scored the pool, as the sentence names it.
    reported : mapping, optional
        ``n_labelled`` and ``nontoxic_share`` of the paper's check; default ``pool_check`` of
        ``data/reported/dixon2018.yaml``.

    Examples
    --------
    >>> r = pool_check(scores=[0.1] * 97 + [0.9] * 3, threshold=0.42)
    >>> print(pool_check_text(r))  # doctest: +NORMALIZE_WHITESPACE
    At the EER threshold 0.42, the baseline model scores 97 % of the 100 pool sentences as
    non-toxic (3 flagged, 95 % interval of the flagged share 1.03–8.45 %); the paper's raters
    confirmed 99.5 % of 1,000 labelled sentences non-toxic.
    """
    if reported is None:
        from nlpbias.data.reported import load_reported

        reported = load_reported("dixon2018")["pool_check"]
    paper = (
        f"the paper's raters confirmed {_pct(float(reported['nontoxic_share']))} of "
        f"{fmt_count(reported['n_labelled'])} labelled sentences non-toxic"
    )
    if isinstance(result, pd.Series):
        missing = [f for f in POOL_CHECK_FIELDS if f not in result.index]
        if missing:
            raise ValueError(f"result lacks {missing}; pass the output of pool_check")
        return (
            f"At the EER threshold {fmt_num(result['threshold'])}, {model} scores "
            f"{_pct(result['share_nontoxic'])} of the {fmt_count(result['n'])} pool sentences as "
            f"non-toxic ({fmt_count(result['n_flagged'])} flagged, 95 % interval of the flagged "
            f"share {fmt_num(100 * result['ci_low'])}–{fmt_num(100 * result['ci_high'])} %); "
            f"{paper}."
        )
    if not isinstance(result, pd.DataFrame):
        raise TypeError(f"result must be a Series or DataFrame, got {type(result).__name__}")
    missing = [f for f in POOL_CHECK_FIELDS if f not in result.columns]
    if missing or result.empty:
        raise ValueError("result must be a non-empty output of pool_check_by_model")
    share = result["share_nontoxic"]
    n = result["n"].unique()
    of = f"the {fmt_count(n[0])}" if len(n) == 1 else "the"
    return (
        f"At each model's EER threshold ({fmt_num(result['threshold'].min())}–"
        f"{fmt_num(result['threshold'].max())}), {model} ({len(result)} "
        f"model{'s' if len(result) != 1 else ''}) scores on average "
        f"{_pct(share.mean())} of {of} pool sentences as non-toxic (range "
        f"{_pct(share.min())}–{_pct(share.max())}); {paper}."
    )
