"""Checks and coercions of the labelled-text frames that the describing functions take.

A frame has a ``text`` and a label column (the common schema of :mod:`nlpbias.data.toxicity`) and
optionally a ``by`` column. :func:`check_frame` checks a frame, :func:`as_labels`,
:func:`as_texts` and :func:`as_terms` coerce its columns and a term list, and :func:`grouped`
iterates over its ``by`` groups. Used by :mod:`nlpbias.data.describe`, :mod:`nlpbias.data.cards`
and the studies that describe or rebalance such frames.
"""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd

__all__ = ["as_labels", "as_terms", "as_texts", "check_frame", "grouped"]


def check_frame(df: object, columns: Sequence[str | None], what: str) -> pd.DataFrame:
    """``df`` if it is a non-empty DataFrame with ``columns`` (``None`` entries are skipped)."""
    if not isinstance(df, pd.DataFrame):
        raise TypeError(f"{what} needs a pandas DataFrame, got {type(df).__name__}")
    if df.empty:
        raise ValueError(f"{what} got an empty DataFrame; pass a frame with at least one row")
    missing = [c for c in columns if c is not None and c not in df.columns]
    if missing:
        raise KeyError(f"{what}: column(s) {missing} not in the frame (has {list(df.columns)})")
    return df


def as_labels(s: pd.Series) -> pd.Series:
    """Return ``s`` as bool; accepts bool or 0/1 numbers, raises on anything else."""
    if s.isna().any():
        raise ValueError(f"label column {s.name!r} has {int(s.isna().sum())} missing values")
    if s.dtype == bool:
        return s
    if pd.api.types.is_numeric_dtype(s) and s.isin([0, 1]).all():
        return s.astype(bool)
    bad = s[~s.isin([0, 1, True, False])].unique()[:5].tolist()
    raise ValueError(f"label column {s.name!r} must be bool or 0/1, found values such as {bad}")


def as_texts(s: pd.Series) -> pd.Series:
    """Return ``s`` as str; raises on missing values."""
    if s.isna().any():
        raise ValueError(f"text column {s.name!r} has {int(s.isna().sum())} missing values")
    return s.astype(str)


def as_terms(terms: Sequence[str]) -> list[str]:
    """The distinct terms as strings, in order; raises on one string or an empty list."""
    if isinstance(terms, str):
        raise TypeError(f"terms must be a list of strings, not the single string {terms!r}")
    out = list(dict.fromkeys(str(t) for t in terms))
    if not out:
        raise ValueError("terms is empty; pass at least one identity term")
    return out


def grouped(df: pd.DataFrame, by: str | None):
    """Yield (key, sub-frame) pairs in order of appearance; one pair ``(None, df)`` without by."""
    if by is None:
        yield None, df
        return
    yield from df.groupby(by, sort=False, observed=True)
