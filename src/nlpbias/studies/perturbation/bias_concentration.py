"""How concentrated the bias is: the share of the summed ``|ΔB|`` held by the top documents.

Brunet et al. (2019) and seed 004 report that a few documents carry most of the differential
bias; :func:`concentration_table` puts our shares beside seed 004's 48.8 % (top 1 %) and 92.2 %
(top 10 %).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from nlpbias.core.checks import check_number

__all__ = ["concentration", "concentration_table", "cumulative_share"]


def cumulative_share(delta_b: Any) -> pd.DataFrame:
    """Cumulative share of the total ``|ΔB|`` held by the top documents.

    Documents are sorted by ``|ΔB|`` (largest first); row ``n`` gives the share of
    ``Σ|ΔB|`` held by the top ``n + 1`` documents and their percentile rank.

    Returns
    -------
    pandas.DataFrame
        Columns ``top_fraction`` (documents in the top, as a fraction of all), ``share``.

    Raises
    ------
    ValueError
        Empty input, a non-finite value, or ``ΔB = 0`` everywhere (no WEAT word occurs).

    Examples
    --------
    >>> cumulative_share([4.0, -3.0, 1.0, 0.0])["share"].tolist()
    [0.5, 0.875, 1.0, 1.0]
    """
    d = np.abs(np.asarray(delta_b, dtype=np.float64).reshape(-1))
    if d.size == 0 or not np.isfinite(d).all():
        raise ValueError("delta_b must be a non-empty array of finite values")
    total = d.sum()
    if total == 0:
        raise ValueError("every ΔB is zero: no document contains a WEAT word; check the word set")
    d = np.sort(d)[::-1]
    n = np.arange(1, d.size + 1)
    return pd.DataFrame({"top_fraction": n / d.size, "share": np.cumsum(d) / total})


def concentration(delta_b: Any, *, tops: Sequence[float] = (0.01, 0.1)) -> pd.Series:
    """Share of the total ``|ΔB|`` held by the top ``tops`` fractions of documents.

    Seed 004 reports 48.8 % for the top 1 % and 92.2 % for the top 10 %.

    Examples
    --------
    >>> concentration(np.r_[10.0, np.ones(99)], tops=[0.01]).round(3).tolist()
    [0.092]
    """
    cum = cumulative_share(delta_b)
    n = len(cum)
    out = {}
    for t in tops:
        check_number(t, "each of tops", low=0.0, high=1.0, low_open=True)
        k = max(1, int(np.floor(t * n)))
        out[f"top {100 * t:g}%"] = float(cum["share"].iloc[k - 1])
    return pd.Series(out, name="share")


def concentration_table(tables: Mapping[str, pd.DataFrame]) -> pd.DataFrame:
    """Share of the summed |ΔB| held by the top 1 % and 10 % of documents, beside seed 004's.

    Returns
    -------
    pandas.DataFrame
        Index: the word sets, then ``mean`` and ``seed 004 (reported)``; columns ``top 1%``,
        ``top 10%`` (fractions), plus ``documents with ΔB ≠ 0``.
    """
    from nlpbias.data.reported import load_reported

    rows = {}
    for name, t in tables.items():
        c = concentration(t["delta_b"], tops=(0.01, 0.1))
        rows[name] = {**c.to_dict(), "documents with ΔB ≠ 0": float((t["delta_b"] != 0).mean())}
    out = pd.DataFrame.from_dict(rows, orient="index")
    out.loc["mean"] = out.mean()
    rep = load_reported("wajdalevie2021")["concentration"]
    out.loc["seed 004 (reported)"] = {"top 1%": rep["top 1%"], "top 10%": rep["top 10%"]}
    out.index.name = "wordset"
    return out
