"""Hate-speech detection (HSD) on frozen word embeddings: the extrinsic task of Katô & Miyao.

A Kim-CNN (:class:`nlpbias.models.classifiers.KimCNNClassifier`: widths 3/4/5 × 100 filters,
dropout 0.5, embedding frozen) is trained on the Davidson et al. (2017) tweets, label
``toxic`` = hate or offensive (:func:`nlpbias.data.toxicity.load_davidson`), and scored on a
held-out test split per group:

- **gender**: :func:`nlpbias.data.groups.gender_groups` — a tweet is *male-targeting* (group
  ``male``) when it contains male words only and *female-targeting* (``female``) when it contains
  female words only (the project's word list, ``data/groups/gender_words.yaml``, which leaves out
  gendered slurs). Tweets with both (``both``) or neither (``none``) kind of word are kept in the
  test set and in the overall metrics but are left out of the gender gap.
- **dialect**: the TwitterAAE demographic model (:func:`nlpbias.data.twitteraae.
  load_dialect_model`); a tweet is ``white-aligned`` or ``AA-aligned`` (African-American
  English) by the argmax of its four dialect proportions
  (:func:`~nlpbias.data.twitteraae.dialect_group`). Tweets whose argmax is Hispanic or Asian
  (``other``) or without proportions (``unknown``) are left out of the dialect gap.

The extrinsic bias scores (:func:`hsd_gaps`), for precision, recall and F1 of the toxic class::

    gender gap  = metric(male)          - metric(female)
    dialect gap = metric(white-aligned) - metric(AA-aligned)

so a positive gap means the classifier does better on the male-targeting / white-aligned
tweets (:data:`HSD_PAIRS` holds the order). Dialect inference on the ~5,000 test tweets takes
well under a second, so nothing here is cached on disk.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np
import pandas as pd
from sklearn.metrics import roc_auc_score
from sklearn.model_selection import train_test_split

from nlpbias.core.checks import check_fraction, check_int

__all__ = [
    "GAP_METRICS",
    "HSD_PAIRS",
    "HSDSplit",
    "evaluate_hsd",
    "group_metrics",
    "hsd_data",
    "hsd_gaps",
]

logger = logging.getLogger(__name__)

#: For each attribute, the two groups whose metrics are compared: gap = first − second.
HSD_PAIRS: dict[str, tuple[str, str]] = {
    "gender": ("male", "female"),
    "dialect": ("white-aligned", "AA-aligned"),
}

#: The metrics whose group differences are the extrinsic scores.
GAP_METRICS: tuple[str, ...] = ("precision", "recall", "f1")

_METRIC_COLUMNS = ["precision", "recall", "f1", "n", "positives", "predicted_positives"]


class HSDSplit(NamedTuple):
    """The HSD train and test tweets (a tuple: ``train, test = hsd_data()``).

    Attributes
    ----------
    train : pandas.DataFrame
        Columns ``text``, ``toxic``, ``label``; indexed by ``tweet_id``.
    test : pandas.DataFrame
        The same columns plus ``gender`` (``male``, ``female``, ``both``, ``none``) and
        ``dialect`` (``AA-aligned``, ``white-aligned``, ``other``, ``unknown``).
    """

    train: pd.DataFrame
    test: pd.DataFrame


# --------------------------------------------------------------------------- data
def hsd_data(
    *,
    random_state: int = 0,
    test_size: float = 0.2,
    max_rows: int | None = None,
    davidson_path: str | Path | None = None,
    dialect_path: str | Path | None = None,
) -> HSDSplit:
    """Davidson's tweets split into train and test, with the test tweets' gender and dialect.

    Parameters
    ----------
    random_state : int, default 0
        Seeds the subsample (``max_rows``) and the split. Keep it fixed to compare embeddings
        on the same test tweets.
    test_size : float, default 0.2
        Share of the tweets in the test split, stratified by the three-way label (hate /
        offensive / neither), so the hate share is the same in both splits.
    max_rows : int, optional
        Use a stratified random subsample of this many tweets (for quick runs); all 24,783
        by default.
    davidson_path, dialect_path : str or Path, optional
        Read Davidson's ``labeled_data.csv`` and the TwitterAAE model folder from here
        instead of the data home (files in the original formats, e.g. small fixtures).

    Returns
    -------
    HSDSplit
        ``(train, test)`` DataFrames; see :class:`HSDSplit`.

    Examples
    --------
    >>> train, test = hsd_data(max_rows=2000)  # doctest: +SKIP
    >>> test["gender"].value_counts()["female"]  # doctest: +SKIP
    """
    from nlpbias.data.groups import gender_groups
    from nlpbias.data.toxicity import load_davidson
    from nlpbias.data.twitteraae import dialect_group, load_dialect_model

    check_int(random_state, "random_state")
    check_fraction(test_size, "test_size")
    df = load_davidson(path=davidson_path)[["text", "toxic", "label"]]
    if max_rows is not None:
        check_int(max_rows, "max_rows", minimum=20)  # 20: enough rows to split by label
        if max_rows < len(df):
            df, _ = train_test_split(
                df, train_size=int(max_rows), stratify=df["label"], random_state=random_state
            )
    try:
        train, test = train_test_split(
            df, test_size=test_size, stratify=df["label"], random_state=random_state
        )
    except ValueError as err:
        msg = " ".join(str(err).split())
        raise ValueError(
            f"cannot split {len(df)} tweets stratified by label with test_size={test_size} "
            f"({msg}); use more rows or another test_size"
        ) from err
    train, test = train.sort_index(), test.sort_index().copy()
    test["gender"] = gender_groups(test["text"])
    posterior = load_dialect_model(path=dialect_path).posterior(test["text"])
    test["dialect"] = dialect_group(posterior)
    logger.info(
        "hsd: %d train / %d test tweets; test gender %s; dialect %s",
        len(train),
        len(test),
        test["gender"].value_counts().to_dict(),
        test["dialect"].value_counts().to_dict(),
    )
    return HSDSplit(train, test)


# --------------------------------------------------------------------------- metrics
def _binary(y: Any, name: str) -> np.ndarray:
    arr = np.asarray(y)
    if arr.ndim != 1:
        raise ValueError(f"{name} must be 1-D, got shape {arr.shape}")
    if arr.dtype == bool:
        return arr
    if arr.dtype == object or not np.issubdtype(arr.dtype, np.number):
        raise ValueError(f"{name} must hold 0/1 or bool labels, got dtype {arr.dtype}")
    bad = ~np.isin(arr, (0, 1))
    if bad.any():
        raise ValueError(
            f"{name} must hold only 0/1 or bool labels; {int(bad.sum())} values are not "
            f"(first: {arr[bad][0]!r}); binarise them first"
        )
    return arr.astype(bool)


def _counts(t: np.ndarray, p: np.ndarray, group: object, zero_division: Any) -> dict[str, float]:
    n, positives, predicted = len(t), int(t.sum()), int(p.sum())
    if n == 0:
        raise ValueError(f"group {group!r} has no members; drop it from labels or use more data")
    if positives == 0:
        raise ValueError(
            f"group {group!r} has no positive examples ({n} rows), so recall is undefined; "
            "drop it from labels or use more data"
        )
    tp = int((t & p).sum())
    if predicted:
        precision = tp / predicted
    elif zero_division == "raise":
        raise ValueError(
            f"group {group!r} has no predicted positives ({n} rows), so precision is "
            "undefined; pass zero_division=0.0 (or another value) to report one"
        )
    else:
        precision = float(zero_division)
    return {
        "precision": precision,
        "recall": tp / positives,
        "f1": 2 * tp / (positives + predicted),  # 2TP / (2TP + FP + FN); positives > 0
        "n": n,
        "positives": positives,
        "predicted_positives": predicted,
    }


def group_metrics(
    y_true: Any,
    y_pred: Any,
    groups: Any,
    *,
    labels: Sequence[Any] | None = None,
    zero_division: str | float = "raise",
) -> pd.DataFrame:
    """Precision, recall and F1 of the positive class within each group (Fairlearn's
    ``MetricFrame.by_group`` shape).

    Parameters
    ----------
    y_true, y_pred : array-like of 0/1 or bool, shape (n,)
        True and predicted labels; 1 / True is the positive (toxic) class.
    groups : array-like, shape (n,)
        Group label of each row (no missing values).
    labels : sequence, optional
        The groups to report, in this order; rows of other groups are ignored. Default: every
        group present, sorted.
    zero_division : "raise" or float, default "raise"
        Precision of a group with no predicted positives: an error, or this value.

    Returns
    -------
    pandas.DataFrame
        Index ``group``; columns ``precision``, ``recall``, ``f1`` (floats), ``n`` (rows),
        ``positives`` (true positives in ``y_true``) and ``predicted_positives``.

    Raises
    ------
    ValueError
        When a reported group has no rows or no positive rows (recall undefined), or, with
        ``zero_division="raise"``, no predicted positives (precision undefined).

    Examples
    --------
    >>> table = group_metrics([1, 1, 0, 1, 0], [1, 0, 1, 1, 0], ["a", "a", "a", "b", "b"])
    >>> table[["precision", "recall", "n", "positives"]].to_dict("index")["a"]
    {'precision': 0.5, 'recall': 0.5, 'n': 3, 'positives': 2}
    """
    t, p = _binary(y_true, "y_true"), _binary(y_pred, "y_pred")
    g = np.asarray(groups, dtype=object)
    if g.ndim != 1 or not (len(t) == len(p) == len(g)):
        raise ValueError(
            f"y_true, y_pred and groups must be 1-D of one length, got shapes {t.shape}, "
            f"{p.shape} and {g.shape}"
        )
    n_missing = int(pd.isna(g).sum())
    if n_missing:
        raise ValueError(f"groups has {n_missing} missing values; label those rows (e.g. 'none')")
    if zero_division != "raise" and (
        isinstance(zero_division, bool | str) or not isinstance(zero_division, int | float)
    ):
        raise ValueError(f"zero_division must be 'raise' or a number, got {zero_division!r}")
    if labels is None:
        labels = sorted(pd.unique(g), key=str)
    elif isinstance(labels, str):
        raise TypeError(f"labels must be a list of groups, not the single string {labels!r}")
    labels = list(labels)
    if not labels:
        raise ValueError("no groups to report: groups is empty or labels=[]; pass some rows")
    rows = {}
    for label in labels:
        mask = g == label
        rows[label] = _counts(t[mask], p[mask], label, zero_division)
    out = pd.DataFrame.from_dict(rows, orient="index", columns=_METRIC_COLUMNS)
    out.index.name = "group"
    return out.astype({c: int for c in _METRIC_COLUMNS[3:]})


def hsd_gaps(table: pd.DataFrame, *, metrics: Sequence[str] = GAP_METRICS) -> pd.Series:
    """The extrinsic bias scores: per attribute and metric, first group − second group.

    Parameters
    ----------
    table : pandas.DataFrame
        Indexed by (``attribute``, ``group``) with a column per metric — the ``groups`` table
        of :func:`evaluate_hsd`; must have the rows of :data:`HSD_PAIRS`.
    metrics : sequence of str, default ("precision", "recall", "f1")

    Returns
    -------
    pandas.Series
        Named ``gap``, index ``f"{attribute}_{metric}"``: ``gender_precision``, … ,
        ``dialect_f1``. Gender: male − female; dialect: white-aligned − AA-aligned.

    Examples
    --------
    >>> idx = pd.MultiIndex.from_tuples([("gender", "male"), ("gender", "female"),
    ...     ("dialect", "white-aligned"), ("dialect", "AA-aligned")], names=["attribute", "group"])
    >>> table = pd.DataFrame({"f1": [0.9, 0.8, 0.7, 0.95]}, index=idx)
    >>> hsd_gaps(table, metrics=["f1"]).round(2).to_dict()
    {'gender_f1': 0.1, 'dialect_f1': -0.25}
    """
    if not isinstance(table, pd.DataFrame) or table.index.nlevels != 2:
        raise TypeError(
            "table must be a DataFrame indexed by (attribute, group); pass evaluate_hsd's "
            "'groups' table"
        )
    if isinstance(metrics, str):
        raise TypeError(f"metrics must be a list of names, not the single string {metrics!r}")
    missing = [m for m in metrics if m not in table.columns]
    if missing:
        raise ValueError(f"table lacks metric columns {missing}; it has {list(table.columns)}")
    gaps = {}
    for attribute, (first, second) in HSD_PAIRS.items():
        for group in (first, second):
            if (attribute, group) not in table.index:
                raise ValueError(
                    f"table has no row ({attribute!r}, {group!r}); it needs the groups of HSD_PAIRS"
                )
        for m in metrics:
            a, b = table.loc[(attribute, first), m], table.loc[(attribute, second), m]
            if pd.isna(a) or pd.isna(b):
                raise ValueError(f"table has a missing {m} for {attribute}; recompute it")
            gaps[f"{attribute}_{m}"] = float(a) - float(b)
    return pd.Series(gaps, name="gap", dtype=float)


# --------------------------------------------------------------------------- the task
def evaluate_hsd(
    embedding: Any,
    *,
    data: HSDSplit | tuple[pd.DataFrame, pd.DataFrame] | None = None,
    random_state: int | np.random.Generator | None = 0,
    split_state: int = 0,
    max_rows: int | None = None,
    max_epochs: int = 10,
    threshold: float = 0.5,
    **params: Any,
) -> dict[str, Any]:
    """Train a Kim-CNN on frozen ``embedding`` for HSD; return overall, per-group and gap scores.

    Parameters
    ----------
    embedding : gensim KeyedVectors or str
        The word vectors (frozen), or ``"glove-6b-50d"``.
    data : HSDSplit or (train, test), optional
        Pre-computed :func:`hsd_data` (pass it in a sweep to load once). ``train`` needs
        columns ``text`` and ``toxic``; ``test`` also ``gender`` and ``dialect``.
    random_state : int, Generator or None, default 0
        Seeds the classifier (validation split, initial weights, batch order, dropout).
    split_state : int, default 0
        Seeds the train/test split when ``data`` is None (fixed by default, so that all
        embeddings and seeds are scored on the same test tweets).
    max_rows : int, optional
        Subsample of Davidson when ``data`` is None (see :func:`hsd_data`).
    max_epochs : int, default 10
        Epoch cap; early stopping (patience 2 on a 10 % validation split) usually stops first.
    threshold : float, default 0.5
        A test tweet is predicted toxic when its probability is at least this.
    **params
        Other :class:`~nlpbias.models.classifiers.KimCNNClassifier` parameters
        (``show_progress`` defaults to False here).

    Returns
    -------
    dict
        ``overall`` (Series: precision, recall, f1, accuracy, auc, n, positives,
        predicted_positives), ``groups`` (DataFrame indexed by (``attribute``, ``group``),
        the columns of :func:`group_metrics`, for the groups of :data:`HSD_PAIRS`), ``gaps``
        (:func:`hsd_gaps`), ``fit_time`` (seconds) and ``best_epoch``.

    Examples
    --------
    >>> out = evaluate_hsd("glove-6b-50d", max_rows=2000)  # doctest: +SKIP
    >>> out["gaps"]["gender_f1"]  # doctest: +SKIP
    """
    from nlpbias.models.classifiers import KimCNNClassifier

    if data is None:
        data = hsd_data(random_state=split_state, max_rows=max_rows)
    if not isinstance(data, tuple) or len(data) != 2:
        raise TypeError("data must be hsd_data()'s (train, test) pair or None")
    train, test = data
    for name, frame, cols in (
        ("train", train, ["text", "toxic"]),
        ("test", test, ["text", "toxic", *HSD_PAIRS]),
    ):
        if not isinstance(frame, pd.DataFrame):
            raise TypeError(f"data's {name} must be a DataFrame, got {type(frame).__name__}")
        lacking = [c for c in cols if c not in frame.columns]
        if lacking:
            raise ValueError(f"data's {name} lacks columns {lacking}; build it with hsd_data")
    check_fraction(threshold, "threshold")

    clf = KimCNNClassifier(
        embedding=embedding,
        random_state=random_state,
        max_epochs=max_epochs,
        **({"show_progress": False} | params),
    )
    start = time.perf_counter()
    clf.fit(train["text"].tolist(), train["toxic"].to_numpy(dtype=bool))
    fit_time = time.perf_counter() - start
    score = clf.predict_proba(test["text"].tolist())[:, 1]
    y_true = test["toxic"].to_numpy(dtype=bool)
    y_pred = score >= threshold

    overall = pd.Series(_counts(y_true, y_pred, "all", "raise"), name="overall", dtype=float)
    overall["accuracy"] = float((y_true == y_pred).mean())
    overall["auc"] = float(roc_auc_score(y_true, score))
    groups = pd.concat(
        {
            attr: group_metrics(y_true, y_pred, test[attr], labels=list(pair))
            for attr, pair in HSD_PAIRS.items()
        },
        names=["attribute", "group"],
    )
    return {
        "overall": overall,
        "groups": groups,
        "gaps": hsd_gaps(groups),
        "fit_time": fit_time,
        "best_epoch": int(clf.best_epoch_),
    }
