"""Frame-level statistics of labelled text: label balance, identity-term frequencies, lengths.

The functions take a DataFrame with a ``text`` and a ``toxic`` column (the common schema of
:mod:`nlpbias.data.toxicity`; :func:`length_summary` takes the output of :func:`text_lengths`) and
an optional ``by`` column (e.g. ``dataset``): with ``by`` every statistic is computed separately
per group and the group is the first output column.

:func:`identity_term_frequencies` is the analogue of Dixon et al. (2018), Table 1 and
:func:`toxicity_by_length` of their Figure 1. Loading and describing whole datasets lives in
:mod:`nlpbias.data.cards`; the sentences the book writes from these tables in
:mod:`nlpbias.studies.data.report`. The input checks of all three are in :mod:`nlpbias.data.frames`.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from nlpbias.core.checks import check_choice, check_int
from nlpbias.data.frames import as_labels, as_terms, as_texts, check_frame, grouped

__all__ = [
    "identity_term_frequencies",
    "label_balance",
    "length_buckets",
    "length_summary",
    "table1_comparison",
    "text_lengths",
    "toxicity_by_length",
]


def _with_by(rows: list[pd.DataFrame], by: str | None, keys: list, columns: list[str]):
    if by is not None:
        for key, r in zip(keys, rows, strict=True):
            r.insert(0, by, key)
        columns = [by, *columns]
    if not rows:
        return pd.DataFrame(columns=columns)
    return pd.concat(rows, ignore_index=True)[columns]


# --------------------------------------------------------------------------- frame statistics


def label_balance(df: pd.DataFrame, *, label: str = "toxic", by: str | None = None) -> pd.DataFrame:
    """Count each label value.

    Parameters
    ----------
    df : DataFrame
        Must contain the ``label`` column (any values, no missing ones).
    label : str
        Column to count.
    by : str, optional
        Column to group by; shares are then within each group.

    Returns
    -------
    DataFrame
        Columns ``[by,] label, n, share`` (share of the group's rows), sorted by label value.

    Examples
    --------
    >>> df = pd.DataFrame({"text": list("abcd"), "toxic": [True, False, False, False]})
    >>> label_balance(df)["share"].tolist()
    [0.75, 0.25]
    """
    df = check_frame(df, [label, by], "label_balance")
    if df[label].isna().any():
        raise ValueError(f"label column {label!r} has missing values; drop or fill them first")
    rows, keys = [], []
    for key, sub in grouped(df, by):
        counts = sub[label].value_counts().sort_index()
        rows.append(
            pd.DataFrame(
                {
                    "label": counts.index,
                    "n": counts.to_numpy(),
                    "share": counts.to_numpy() / len(sub),
                }
            )
        )
        keys.append(key)
    return _with_by(rows, by, keys, ["label", "n", "share"])


def identity_term_frequencies(
    df: pd.DataFrame,
    terms: Sequence[str],
    *,
    text: str = "text",
    label: str = "toxic",
    by: str | None = None,
    min_count: int = 0,
) -> pd.DataFrame:
    """How often each identity term occurs in toxic texts and overall (Dixon et al. 2018, Table 1).

    A text contains a term when :func:`nlpbias.data.identity.term_mask` finds it (whole word,
    case-insensitive).

    Parameters
    ----------
    df : DataFrame
        Texts with a bool (or 0/1) label column.
    terms : sequence of str
        Identity terms (duplicates are dropped, order kept).
    text, label : str
        Column names.
    by : str, optional
        Compute per group of this column.
    min_count : int, default 0
        Leave out terms contained in fewer than ``min_count`` texts (of the group). With the
        default 0 every term is kept, and ``toxic_rate`` is NaN for a term no text contains.
        Not a knob: the data chapter passes its ``min_term_count`` where a table leaves rare
        terms out, and keeps 0 where every term must be shown (the comparison with Dixon et
        al.'s Table 1, the check of the planted rates).

    Returns
    -------
    DataFrame
        Columns ``[by,] term, n_overall, share_overall, n_toxic, share_toxic, toxic_rate, ratio``:
        ``share_overall`` = texts containing the term / all texts; ``share_toxic`` = toxic texts
        containing it / toxic texts; ``toxic_rate`` = toxic texts containing it / texts containing
        it; ``ratio`` = share_toxic / share_overall (> 1: over-represented in toxic texts; NaN when
        no text contains the term).

    Raises
    ------
    ValueError
        If the frame (or a group) has no toxic rows: share_toxic would be undefined.

    Examples
    --------
    >>> df = pd.DataFrame({"text": ["gay pride", "you idiot", "gay idiot", "hello"],
    ...                    "toxic": [False, True, True, False]})
    >>> identity_term_frequencies(df, ["gay"])[["share_overall", "share_toxic", "toxic_rate"]]
       share_overall  share_toxic  toxic_rate
    0            0.5          0.5         0.5
    """
    from nlpbias.data.identity import term_mask

    df = check_frame(df, [text, label, by], "identity_term_frequencies")
    terms = as_terms(terms)
    columns = [
        "term",
        "n_overall",
        "share_overall",
        "n_toxic",
        "share_toxic",
        "toxic_rate",
        "ratio",
    ]
    rows, keys = [], []
    for key, sub in grouped(df, by):
        y = as_labels(sub[label]).to_numpy()
        if not y.any():
            where = f" in group {by}={key!r}" if by is not None else ""
            raise ValueError(
                f"identity_term_frequencies: no toxic rows{where} in column {label!r}, so "
                f"share_toxic is undefined; pass data with at least one toxic row"
            )
        mask = term_mask(as_texts(sub[text]), terms)[terms].to_numpy(dtype=bool)
        n_overall = mask.sum(axis=0)
        n_toxic = mask[y].sum(axis=0)
        share_overall = n_overall / len(y)
        share_toxic = n_toxic / y.sum()
        with np.errstate(divide="ignore", invalid="ignore"):
            toxic_rate = np.where(n_overall > 0, n_toxic / n_overall, np.nan)
            ratio = np.where(n_overall > 0, share_toxic / share_overall, np.nan)
        r = pd.DataFrame(
            dict(
                zip(
                    columns,
                    [terms, n_overall, share_overall, n_toxic, share_toxic, toxic_rate, ratio],
                    strict=True,
                )
            )
        )
        rows.append(r[r["n_overall"] >= min_count].reset_index(drop=True))
        keys.append(key)
    return _with_by(rows, by, keys, columns)


def table1_comparison(freq: pd.DataFrame, paper_pct: dict[str, dict[str, float]]) -> pd.DataFrame:
    """Dixon et al.'s Table 1 beside this run: share of toxic texts and of all texts per term.

    Parameters
    ----------
    freq : DataFrame
        :func:`nlpbias.data.describe.identity_term_frequencies` of the paper's terms (with or
        without a ``dataset`` column).
    paper_pct : mapping
        Term → ``{"toxic": %, "overall": %}`` (``load_reported("dixon2018")["table1_pct"]``).

    Returns
    -------
    pandas.DataFrame
        Indexed by (``dataset``,) ``term``: ``toxic_pct``, ``overall_pct`` (in percent),
        ``n_overall`` (texts containing the term), ``n_toxic`` (toxic ones among them),
        ``paper_toxic_pct``, ``paper_overall_pct`` (in percent; NaN for a term the paper's table
        does not print).

    Examples
    --------
    >>> df = pd.DataFrame({"text": ["gay pride", "you idiot", "gay idiot", "hello"],
    ...                    "toxic": [False, True, True, False]})
    >>> freq = identity_term_frequencies(df, ["gay", "queer"])
    >>> table1_comparison(freq, {"gay": {"toxic": 3.0, "overall": 0.5}}).loc["gay"].tolist()
    [50.0, 50.0, 2.0, 1.0, 3.0, 0.5]
    """
    check_frame(
        freq,
        ["term", "share_toxic", "share_overall", "n_overall", "n_toxic"],
        "table1_comparison",
    )
    missing = sorted(set(paper_pct) - set(freq["term"].astype(str)))
    if missing:
        raise ValueError(
            f"table1_comparison: terms {missing} of the paper's table are not in freq; compute the "
            "frequencies of every term of paper_pct"
        )
    keys = [c for c in ("dataset", "term") if c in freq.columns]
    out = freq.assign(
        toxic_pct=100 * freq["share_toxic"],
        overall_pct=100 * freq["share_overall"],
        paper_toxic_pct=freq["term"].map(lambda t: paper_pct.get(t, {}).get("toxic")).astype(float),
        paper_overall_pct=freq["term"]
        .map(lambda t: paper_pct.get(t, {}).get("overall"))
        .astype(float),
    )
    cols = ["toxic_pct", "overall_pct", "n_overall", "n_toxic"]
    cols += ["paper_toxic_pct", "paper_overall_pct"]
    return out.set_index(keys)[cols]


def text_lengths(
    data: pd.DataFrame | pd.Series,
    *,
    text: str = "text",
    label: str | None = "toxic",
    unit: str = "chars",
    by: str | None = None,
) -> pd.DataFrame:
    """Length of every text, in characters or whitespace tokens, with its label.

    Parameters
    ----------
    data : DataFrame or Series
        A frame with a ``text`` column, or a Series of texts (then unlabelled).
    text, label : str
        Column names; ``label=None`` for unlabelled data.
    unit : {'chars', 'tokens'}
        Characters, or whitespace-separated tokens (``len(text.split())``).
    by : str, optional
        Group column to carry along.

    Returns
    -------
    DataFrame
        Columns ``[by,] length[, label]`` (``label`` holds the label column's values), one row
        per text, in the input order.

    Examples
    --------
    >>> text_lengths(pd.Series(["a b", "abc d e"]), unit="tokens")["length"].tolist()
    [2, 3]
    """
    check_choice(unit, "unit", ["chars", "tokens"])
    if isinstance(data, pd.Series):
        data, label, by = data.rename(text).to_frame(), None, None
    df = check_frame(data, [text, label, by], "text_lengths")
    texts = as_texts(df[text])
    lengths = texts.str.len() if unit == "chars" else texts.str.split().str.len()
    out = pd.DataFrame({"length": lengths.to_numpy(dtype=int)})
    if label is not None:
        out["label"] = df[label].to_numpy()
    if by is not None:
        out.insert(0, by, df[by].to_numpy())
    return out


def length_summary(lengths: pd.DataFrame, *, by: str | None = None) -> pd.DataFrame:
    """Quartiles and mean of the output of :func:`text_lengths`, per label (and group).

    Returns
    -------
    DataFrame
        Columns ``[by,] [label,] n, mean, q25, median, q75, max``.

    Examples
    --------
    >>> lengths = pd.DataFrame({"length": [1, 3, 10], "label": [True, True, False]})
    >>> length_summary(lengths)["median"].tolist()
    [10.0, 2.0]
    """
    lengths = check_frame(lengths, ["length", by], "length_summary")
    keys = [k for k in (by, "label" if "label" in lengths.columns else None) if k is not None]
    by_keys = lengths.groupby(keys, sort=True, observed=True)["length"] if keys else None
    stats = {
        "n": "size",
        "mean": "mean",
        "q25": lambda s: s.quantile(0.25),
        "median": "median",
        "q75": lambda s: s.quantile(0.75),
        "max": "max",
    }
    if by_keys is None:
        s = lengths["length"]
        return pd.DataFrame(
            {k: [s.agg(f) if isinstance(f, str) else f(s)] for k, f in stats.items()}
        )
    out = by_keys.agg(list(stats.values()))
    out.columns = list(stats)
    return out.reset_index()


def length_buckets(
    lengths: Sequence[float] | np.ndarray | pd.Series,
    *,
    n_buckets: int = 5,
    edges: Sequence[float] | np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Assign lengths to quantile buckets, numbered from 1 (shortest).

    The buckets of :func:`toxicity_by_length` (Dixon et al.'s Figure 1) and of the length-bucket
    balancing of the pinned-AUC chapter
    (:func:`nlpbias.studies.pinned_auc.mitigation.balance_by_length`).

    Parameters
    ----------
    lengths : array-like of numbers
        Text lengths (e.g. characters).
    n_buckets : int, default 5
        Number of quantile buckets when ``edges`` is not given. Tied quantiles are merged (as in
        ``pandas.qcut(..., duplicates='drop')``), so fewer buckets may result.
    edges : array-like, optional
        Bucket edges from an earlier call (e.g. on the training set), increasing. Bucket ``i``
        holds lengths in ``(edges[i-1], edges[i]]``, the first also its lower edge; lengths below
        ``edges[0]`` go to bucket 1, above ``edges[-1]`` to the last bucket.

    Returns
    -------
    buckets : numpy.ndarray of int
        Bucket of each length, from 1 to ``len(edges) - 1``.
    edges : numpy.ndarray of float
        The edges used (the lengths' quantiles when computed here).

    Examples
    --------
    >>> b, e = length_buckets([1, 2, 3, 4], n_buckets=2)
    >>> b.tolist(), e.tolist()
    ([1, 1, 2, 2], [1.0, 2.5, 4.0])
    >>> length_buckets([0, 3, 99], edges=e)[0].tolist()
    [1, 2, 2]
    """
    x = np.asarray(lengths, dtype=float)
    if x.ndim != 1 or x.size == 0 or not np.isfinite(x).all():
        raise ValueError("lengths must be a non-empty 1-D sequence of finite numbers")
    if edges is None:
        n_buckets = check_int(n_buckets, "n_buckets", minimum=1)
        edges = np.unique(np.quantile(x, np.linspace(0.0, 1.0, n_buckets + 1)))
        if edges.size == 1:  # all lengths equal: one bucket
            edges = np.repeat(edges, 2)
    else:
        edges = np.asarray(edges, dtype=float)
        ok = edges.ndim == 1 and edges.size >= 2 and np.isfinite(edges).all()
        if not ok or (edges.size > 2 and not (np.diff(edges) > 0).all()):
            raise ValueError(
                f"edges must be at least two finite, increasing numbers, got {edges.tolist()!r}"
            )
    buckets = np.searchsorted(edges[1:-1], x, side="left") + 1
    return buckets.astype(int), edges


def toxicity_by_length(
    df: pd.DataFrame,
    terms: Sequence[str] | None = None,
    *,
    n_buckets: int,
    text: str = "text",
    label: str = "toxic",
    unit: str = "chars",
    by: str | None = None,
    min_count: int = 1,
) -> pd.DataFrame:
    """Share of toxic texts per length bucket, overall and per identity term (Dixon Figure 1).

    Buckets are length quantiles of all texts (of the group), so they hold about equally many
    texts; ties can merge buckets, so fewer than ``n_buckets`` may come back. The same buckets are
    used for every term. They are :func:`length_buckets`' buckets, the ones by which
    :func:`nlpbias.studies.pinned_auc.mitigation.balance_by_length` balances a training set.

    Parameters
    ----------
    df : DataFrame
        Texts with a bool (or 0/1) label.
    terms : sequence of str, optional
        Identity terms; each adds a subset of the texts containing it (whole word).
    n_buckets : int
        Number of quantile buckets (>= 1).
    text, label, unit, by
        As in :func:`text_lengths`.
    min_count : int
        Leave out (subset, bucket) cells with fewer texts (their share is undefined or noise).

    Returns
    -------
    DataFrame
        Columns ``[by,] subset, bucket, length_min, length_max, bucket_label, n, n_toxic,
        toxic_share``; ``subset`` is ``'all texts'`` or a term, ``bucket`` counts from 1 (shortest),
        ``length_min``/``length_max`` are the shortest and longest length in the bucket over all
        texts.

    Examples
    --------
    >>> df = pd.DataFrame({"text": ["a", "bb", "ccc", "dddd"], "toxic": [True, True, False, False]})
    >>> toxicity_by_length(df, n_buckets=2)["toxic_share"].tolist()
    [1.0, 0.0]
    """
    df = check_frame(df, [text, label, by], "toxicity_by_length")
    check_int(n_buckets, "n_buckets", minimum=1)
    terms = as_terms(terms) if terms is not None else []
    columns = ["subset", "bucket", "length_min", "length_max", "bucket_label", "n", "n_toxic"]
    columns += ["toxic_share"]
    rows, keys = [], []
    for key, sub in grouped(df, by):
        y = as_labels(sub[label]).to_numpy()
        length = text_lengths(sub, text=text, label=None, unit=unit)["length"]
        bucket, _ = length_buckets(length, n_buckets=n_buckets)
        bounds = length.groupby(bucket).agg(["min", "max"])
        subsets = {"all texts": np.ones(len(y), dtype=bool)}
        if terms:
            from nlpbias.data.identity import term_mask

            mask = term_mask(as_texts(sub[text]), terms)[terms]
            subsets.update({t: mask[t].to_numpy(dtype=bool) for t in terms})
        parts = []
        for name, m in subsets.items():
            cells = pd.DataFrame({"bucket": bucket[m], "toxic": y[m]}).groupby("bucket")["toxic"]
            cells = cells.agg(n="size", n_toxic="sum").reset_index()
            cells.insert(0, "subset", name)
            parts.append(cells)
        r = pd.concat(parts, ignore_index=True)
        r["length_min"] = r["bucket"].map(bounds["min"]).astype(int)
        r["length_max"] = r["bucket"].map(bounds["max"]).astype(int)
        r["bucket_label"] = r["length_min"].astype(str) + "–" + r["length_max"].astype(str)
        r["n_toxic"] = r["n_toxic"].astype(int)
        r["toxic_share"] = r["n_toxic"] / r["n"]
        rows.append(r[r["n"] >= max(min_count, 1)].reset_index(drop=True))
        keys.append(key)
    return _with_by(rows, by, keys, columns)
