"""Training-data mitigation: length-bucket balancing with non-toxic identity texts (Dixon et al.).

Dixon et al. (2018, "Bias Mitigation") add assumed-non-toxic Wikipedia-article sentences that
mention an identity term until, in each length bucket, the toxic share of the training texts that
mention the term is no higher than the bucket's overall toxic share. The control adds as many
random sentences per bucket. This module implements that rule precisely:

1. **Buckets.** ``n_buckets`` quantile buckets of the *character* length of the training texts
   (:func:`nlpbias.data.describe.length_buckets`, re-exported here; the buckets of
   :func:`nlpbias.data.describe.toxicity_by_length`, so its table and figure show these cells;
   buckets numbered from 1 = shortest; tied quantiles merge buckets, so fewer may come back). A
   pool text gets the bucket its length falls into under the *training* edges; lengths outside
   the training range go to the first or last bucket.
2. **Cells.** For term ``t`` and bucket ``b``: ``n`` = training texts in ``b`` that contain ``t``
   (whole word, case-insensitive: :func:`nlpbias.data.identity.term_mask`), ``n_toxic`` = the
   toxic ones among them, ``bucket_share`` ``p_b`` = toxic share of *all* training texts in ``b``.
3. **Need.** The cell is *disproportionate* when ``n_toxic / n > p_b``; then
   ``needed = ceil(n_toxic / p_b - n)`` non-toxic texts containing ``t`` are to be added — the
   smallest number that brings ``n_toxic / (n + needed)`` down to ``p_b`` or below (computed in
   integers, so no rounding error). Otherwise ``needed = 0``. All needs are computed on the
   original training set (``p_b`` is the share *before* augmentation, the paper's "prior").
4. **Draw.** Terms are processed in the given order, buckets from shortest to longest. For each
   cell, ``available`` = pool texts that contain ``t``, fall into ``b`` and have not been drawn
   yet; ``added = min(needed, available)`` of them are drawn uniformly without replacement
   (seeded), and ``shortfall = needed - added``. A pool text is drawn at most once overall.
   **A text that contains two terms** is credited only to the term it was drawn for (its ``term``
   column); it is not subtracted from the other term's need, so that term may end slightly below
   ``p_b``, and it is no longer available to that term (hence ``available`` depends on the
   order of ``terms``).
5. **Control.** :func:`random_control` draws, for each bucket, as many texts from the random pool
   (same training edges) as the mitigation added in that bucket over all terms.

Examples
--------
>>> train = pd.DataFrame({"text": ["gay idiot", "gay fool", "you idiot", "a fine day"],
...                       "toxic": [True, True, True, False]})
>>> pool = pd.DataFrame({"text": ["gay rights", "gay bar", "gay pride", "the sea"]})
>>> res = balance_by_length(train, pool, terms=["gay"], n_buckets=1, random_state=0)
>>> res.report[["n", "n_toxic", "bucket_share", "needed", "added"]].to_dict("records")
[{'n': 2, 'n_toxic': 2, 'bucket_share': 0.75, 'needed': 1, 'added': 1}]
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from nlpbias.data.describe import identity_term_frequencies, length_buckets
from nlpbias.data.frames import as_labels, as_terms, as_texts, check_frame
from nlpbias.data.identity import term_mask

__all__ = [
    "BalanceResult",
    "augment",
    "balance_by_length",
    "frequency_change",
    "length_buckets",
    "random_control",
]

logger = logging.getLogger(__name__)

RandomState = None | int | np.random.Generator

REPORT_COLUMNS = [
    "term",
    "bucket",
    "n",
    "n_toxic",
    "toxic_share",
    "bucket_share",
    "disproportionate",
    "needed",
    "available",
    "added",
    "shortfall",
]


@dataclass(frozen=True, eq=False)
class BalanceResult:
    """What :func:`balance_by_length` added, and why.

    Attributes
    ----------
    added : DataFrame
        The pool texts to add, indexed by their pool index: columns ``text``, ``toxic`` (False),
        ``term`` (the term it was drawn for), ``bucket`` and ``source`` (``'mitigation'``).
    report : DataFrame
        One row per term and bucket: ``term, bucket, n, n_toxic, toxic_share, bucket_share,
        disproportionate, needed, available, added, shortfall`` (``toxic_share`` is NaN where
        ``n == 0``: no training text in that bucket contains the term).
    edges : numpy.ndarray
        The training length quantiles that define the buckets (``len(edges) - 1`` buckets).
    n_buckets : int
        The number of buckets asked for.
    """

    added: pd.DataFrame
    report: pd.DataFrame
    edges: np.ndarray
    n_buckets: int

    @property
    def added_per_bucket(self) -> pd.Series:
        """Number of added texts per bucket (every bucket, zeros included), indexed by bucket."""
        buckets = pd.RangeIndex(1, len(self.edges), name="bucket")
        return self.added["bucket"].value_counts().reindex(buckets, fill_value=0).rename("n")


# --------------------------------------------------------------------------- checks


def _pool_texts(pool: object, text: str, label: str, what: str) -> pd.Series:
    if isinstance(pool, pd.DataFrame) and pool.empty:
        raise ValueError(f"{what}: the pool is empty; pass a frame of candidate texts to add")
    pool = check_frame(pool, [text], f"{what}: pool")
    if label in pool.columns and as_labels(pool[label]).any():
        n = int(as_labels(pool[label]).sum())
        raise ValueError(
            f"{what}: {n} pool rows are labelled toxic in {label!r}; the pool must hold "
            "non-toxic texts only, drop those rows first"
        )
    return as_texts(pool[text])


def _train(train: object, text: str, label: str, what: str) -> tuple[pd.Series, np.ndarray]:
    train = check_frame(train, [text, label], f"{what}: train")
    y = as_labels(train[label]).to_numpy(dtype=bool)
    if not y.any():
        raise ValueError(
            f"{what}: train has no toxic rows in {label!r}, so no term can be over-represented; "
            "pass training data with toxic rows"
        )
    return as_texts(train[text]), y


# --------------------------------------------------------------------------- balancing


def balance_by_length(
    train: pd.DataFrame,
    pool: pd.DataFrame,
    *,
    terms: Sequence[str],
    n_buckets: int,
    text: str = "text",
    label: str = "toxic",
    random_state: RandomState,
) -> BalanceResult:
    """Choose non-toxic pool texts with identity terms that balance the training data by length.

    The rule (buckets, need, draw, texts with two terms) is spelled out in the module docstring
    (:mod:`nlpbias.studies.pinned_auc.mitigation`).

    Parameters
    ----------
    train : DataFrame
        Training texts with a bool (or 0/1) label, e.g. :func:`nlpbias.data.toxicity.load_davidson`.
    pool : DataFrame
        Candidate texts assumed non-toxic, e.g. the ``train`` split of
        :func:`nlpbias.data.dixon.load_dixon_pool`. If it has the label column, no row may be
        toxic.
    terms : sequence of str
        Identity terms, in the order they draw from the pool.
    n_buckets : int
        Number of length quantile buckets (characters) of the training texts.
    text, label : str
        Column names (in both frames for ``text``).
    random_state : None, int or numpy.random.Generator
        Seeds the draws.

    Returns
    -------
    BalanceResult
        ``.added`` (the texts to add), ``.report`` (per term and bucket), ``.edges``.

    Examples
    --------
    >>> train = pd.DataFrame({"text": ["gay idiot", "you idiot", "hi"],
    ...                       "toxic": [True, True, False]})
    >>> pool = pd.DataFrame({"text": ["gay pride", "gay bar"]})
    >>> res = balance_by_length(train, pool, terms=["gay"], n_buckets=1, random_state=0)
    >>> res.added["text"].size
    1
    """
    what = "balance_by_length"
    train_text, y = _train(train, text, label, what)
    pool_text = _pool_texts(pool, text, label, what)
    terms = as_terms(terms)
    b_train, edges = length_buckets(train_text.str.len(), n_buckets=n_buckets)
    b_pool, _ = length_buckets(pool_text.str.len(), edges=edges)
    k = len(edges) - 1
    n_all = np.bincount(b_train, minlength=k + 1)[1:]
    k_all = np.bincount(b_train[y], minlength=k + 1)[1:]
    t_mask = term_mask(train_text, terms).to_numpy(dtype=bool)
    if not t_mask.any():
        shown = ", ".join(terms[:5]) + (", …" if len(terms) > 5 else "")
        raise ValueError(
            f"{what}: none of the {len(terms)} terms ({shown}) occurs in the training texts, so "
            "there is nothing to balance; pass terms that occur in them (e.g. "
            "nlpbias.data.identity.load_identity_terms('dixon2018') for English comments)"
        )
    p_mask = term_mask(pool_text, terms).to_numpy(dtype=bool)

    rng = np.random.default_rng(random_state)
    used = np.zeros(len(pool_text), dtype=bool)
    rows, drawn = [], []
    for j, term in enumerate(terms):
        for b in range(1, k + 1):
            cell = t_mask[:, j] & (b_train == b)
            n, n_tox = int(cell.sum()), int((cell & y).sum())
            nb, kb = int(n_all[b - 1]), int(k_all[b - 1])
            # n_tox / n > kb / nb, and ceil(n_tox / (kb / nb) - n), both in integers
            dispro = n > 0 and n_tox * nb > kb * n
            needed = -(-(n_tox * nb - n * kb) // kb) if dispro else 0
            cand = np.flatnonzero(p_mask[:, j] & (b_pool == b) & ~used)
            n_add = min(needed, cand.size)
            if n_add:
                pick = np.sort(rng.choice(cand, size=n_add, replace=False))
                used[pick] = True
                drawn.append(pd.DataFrame({"pos": pick, "term": term, "bucket": b}))
            rows.append(
                [term, b, n, n_tox, n_tox / n if n else np.nan, kb / nb, dispro, needed]
                + [cand.size, n_add, needed - n_add]
            )
    report = pd.DataFrame(rows, columns=REPORT_COLUMNS)
    picks = (
        pd.concat(drawn, ignore_index=True)
        if drawn
        else pd.DataFrame({"pos": np.array([], int), "term": [], "bucket": np.array([], int)})
    )
    added = pd.DataFrame(
        {
            text: pool_text.to_numpy()[picks["pos"].to_numpy()],
            label: np.zeros(len(picks), dtype=bool),
            "term": picks["term"].astype(object).to_numpy(),
            "bucket": picks["bucket"].to_numpy(dtype=int),
            "source": "mitigation",
        },
        index=pool_text.index[picks["pos"].to_numpy()],
    )
    short = int(report["shortfall"].sum())
    logger.info(
        "balance_by_length: %d texts added for %d disproportionate term-bucket cells; shortfall %d",
        len(added),
        int(report["disproportionate"].sum()),
        short,
    )
    return BalanceResult(added=added, report=report, edges=edges, n_buckets=int(n_buckets))


def random_control(
    train: pd.DataFrame,
    pool: pd.DataFrame,
    added_per_bucket: BalanceResult | Mapping[int, int] | pd.Series,
    *,
    n_buckets: int,
    text: str = "text",
    label: str = "toxic",
    random_state: RandomState,
    strict: bool = False,
) -> pd.DataFrame:
    """Draw random pool texts, as many per length bucket as the mitigation added (the control).

    Parameters
    ----------
    train : DataFrame
        The training texts whose length quantiles define the buckets.
    pool : DataFrame
        Random texts assumed non-toxic, e.g. ``load_dixon_pool('random')`` (its train split).
    added_per_bucket : BalanceResult or mapping bucket -> count
        A :func:`balance_by_length` result (its per-bucket counts and edges are used; the
        edges must equal those of ``train``), or the counts themselves (buckets from 1).
    n_buckets : int
        Number of buckets, when counts are given directly (a result carries its own).
    text, label : str
        Column names.
    random_state : None, int or numpy.random.Generator
        Seeds the draws.
    strict : bool, default False
        Raise when a bucket of the pool has fewer texts than asked; otherwise add all it has and
        log a warning.

    Returns
    -------
    DataFrame
        Indexed by pool index; columns ``text``, ``toxic`` (False), ``bucket`` and ``source``
        (``'random'``), buckets in increasing order.

    Examples
    --------
    >>> train = pd.DataFrame({"text": ["ab", "abcd"], "toxic": [True, False]})
    >>> pool = pd.DataFrame({"text": ["x", "y", "zzzz"]})
    >>> random_control(train, pool, {1: 2, 2: 0}, n_buckets=2, random_state=0)["text"].tolist()
    ['x', 'y']
    """
    what = "random_control"
    if isinstance(added_per_bucket, BalanceResult):
        res = added_per_bucket
        n_buckets, counts, edges = res.n_buckets, res.added_per_bucket, res.edges
    else:
        counts, edges = added_per_bucket, None
    train_text = as_texts(check_frame(train, [text], f"{what}: train")[text])
    _, train_edges = length_buckets(train_text.str.len(), n_buckets=n_buckets)
    if edges is not None and not np.array_equal(edges, train_edges):
        raise ValueError(
            f"{what}: the BalanceResult's bucket edges {edges.tolist()} differ from train's "
            f"{train_edges.tolist()}; pass the train frame the result was computed on"
        )
    k = len(train_edges) - 1
    if not isinstance(counts, Mapping | pd.Series):
        raise TypeError(
            f"{what}: added_per_bucket must be a BalanceResult or a mapping bucket -> count, "
            f"got {type(counts).__name__}"
        )
    counts = dict(counts.items())
    bad = {b: c for b, c in counts.items() if b not in range(1, k + 1)}
    bad |= {b: c for b, c in counts.items() if not (isinstance(c, int | np.integer) and c >= 0)}
    if bad:
        raise ValueError(
            f"{what}: added_per_bucket needs buckets 1..{k} with non-negative integer counts, "
            f"got {bad}"
        )
    pool_text = _pool_texts(pool, text, label, what)
    b_pool, _ = length_buckets(pool_text.str.len(), edges=train_edges)
    rng = np.random.default_rng(random_state)
    picks, buckets = [], []
    for b in range(1, k + 1):
        want = int(counts.get(b, 0))
        cand = np.flatnonzero(b_pool == b)
        if want > cand.size:
            msg = f"{what}: bucket {b} asks for {want} texts but the pool has {cand.size}"
            if strict:
                raise ValueError(f"{msg}; pass a larger pool or strict=False")
            logger.warning("%s; adding all of them", msg)
        n = min(want, cand.size)
        picks.append(np.sort(rng.choice(cand, size=n, replace=False)) if n else cand[:0])
        buckets.append(np.full(n, b))
    pos = np.concatenate(picks)
    return pd.DataFrame(
        {
            text: pool_text.to_numpy()[pos],
            label: np.zeros(pos.size, dtype=bool),
            "bucket": np.concatenate(buckets).astype(int),
            "source": "random",
        },
        index=pool_text.index[pos],
    )


def augment(
    train: pd.DataFrame,
    added: pd.DataFrame | BalanceResult,
    *,
    text: str = "text",
    label: str = "toxic",
) -> pd.DataFrame:
    """Append added texts to the training texts.

    Parameters
    ----------
    train : DataFrame
        Training texts with a bool (or 0/1) label.
    added : DataFrame or BalanceResult
        Output of :func:`balance_by_length` (or its ``.added``) or :func:`random_control`.
    text, label : str
        Column names (the same in both).

    Returns
    -------
    DataFrame
        Columns ``text``, ``toxic`` (bool) and ``source`` (``'train'``, then the added rows'
        source), with a fresh RangeIndex; other columns of ``train`` are dropped.

    Examples
    --------
    >>> train = pd.DataFrame({"text": ["gay idiot"], "toxic": [True]})
    >>> added = pd.DataFrame({"text": ["gay pride"], "toxic": [False], "source": ["random"]})
    >>> augment(train, added)["source"].tolist()
    ['train', 'random']
    """
    if isinstance(added, BalanceResult):
        added = added.added
    train = check_frame(train, [text, label], "augment: train")
    if not isinstance(added, pd.DataFrame):
        raise TypeError(f"augment: added must be a DataFrame, got {type(added).__name__}")
    missing = [c for c in (text, label, "source") if c not in added.columns]
    if missing:
        raise KeyError(f"augment: added lacks column(s) {missing} (has {list(added.columns)})")
    parts = [
        pd.DataFrame(
            {text: as_texts(train[text]).to_numpy(), label: as_labels(train[label]).to_numpy()}
        ).assign(source="train")
    ]
    if len(added):
        parts.append(
            pd.DataFrame(
                {
                    text: as_texts(added[text]).to_numpy(),
                    label: as_labels(added[label]).to_numpy(),
                    "source": added["source"].to_numpy(),
                }
            )
        )
    return pd.concat(parts, ignore_index=True)


def frequency_change(
    before: pd.DataFrame,
    after: pd.DataFrame,
    terms: Sequence[str],
    *,
    text: str = "text",
    label: str = "toxic",
) -> pd.DataFrame:
    """Identity-term frequencies (Dixon Table 1) before and after augmentation, side by side.

    A thin wrapper around :func:`nlpbias.data.describe.identity_term_frequencies`.

    Returns
    -------
    DataFrame
        Columns ``term``, then ``share_overall``, ``share_toxic``, ``toxic_rate`` and ``ratio``
        each with suffix ``_before`` and ``_after``.

    Examples
    --------
    >>> before = pd.DataFrame({"text": ["gay idiot", "hi"], "toxic": [True, False]})
    >>> after = augment(before, pd.DataFrame({"text": ["gay bar"], "toxic": [False],
    ...                                      "source": ["mitigation"]}))
    >>> frequency_change(before, after, ["gay"])[["toxic_rate_before", "toxic_rate_after"]]
       toxic_rate_before  toxic_rate_after
    0                1.0               0.5
    """
    cols = ["term", "share_overall", "share_toxic", "toxic_rate", "ratio"]
    b, a = (
        identity_term_frequencies(df, terms, text=text, label=label)[cols] for df in (before, after)
    )
    out = b.merge(a, on="term", suffixes=("_before", "_after"), sort=False)
    order = ["term"] + [f"{c}_{s}" for c in cols[1:] for s in ("before", "after")]
    return out[order]
