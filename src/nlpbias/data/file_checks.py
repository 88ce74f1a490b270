"""Checks of a loaded file against its source's schema, shared by the toxicity loaders.

Each check names the dataset (``what``) and the file (``src``) in a one-line ``ValueError``, so
a wrong or truncated download is reported where it is read.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

import pandas as pd

__all__ = ["as_bool_column", "check_columns", "check_text_present"]


def check_columns(df: pd.DataFrame, required: Iterable[str], what: str, src: Path) -> None:
    """Raise when ``df`` (read from ``src``) lacks any of the ``required`` columns."""
    missing = [c for c in required if c not in df.columns]
    if missing:
        raise ValueError(
            f"{what}: {src.name} lacks columns {missing} (has {list(df.columns)}); "
            f"expected the original {what} schema"
        )


def as_bool_column(s: pd.Series, what: str, src: Path) -> pd.Series:
    """Return a bool Series from a bool or 'True'/'False' column; raise on anything else."""
    if s.dtype == bool:
        return s
    mapped = s.astype("string").str.strip().str.lower().map({"true": True, "false": False})
    if mapped.isna().any():
        bad = s[mapped.isna()].unique()[:5].tolist()
        raise ValueError(f"{what}: {src.name} column {s.name!r} has non-boolean values {bad}")
    return mapped.astype(bool)


def check_text_present(df: pd.DataFrame, what: str, src: Path) -> None:
    """Raise when the ``text`` column of ``df`` (read from ``src``) has missing values."""
    n = int(df["text"].isna().sum())
    if n:
        raise ValueError(f"{what}: {src.name} has {n} rows with missing text; check the file")
