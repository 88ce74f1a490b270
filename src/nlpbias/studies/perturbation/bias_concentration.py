"""How concentrated the bias is: the share of the summed ``|ΔB|`` held by the top documents.

Brunet et al. (2019) and seed 004 report that a few documents carry most of the differential
bias; :func:`concentration_table` puts our shares beside seed 004's 48.8 % (top 1 %) and 92.2 %
(top 10 %), and :func:`concentration_interval` gives a bootstrap interval over the documents for
the shares averaged over word sets.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from nlpbias.core.checks import check_int, check_number
from nlpbias.core.repro import rng as _rng

__all__ = ["concentration", "concentration_interval", "concentration_table", "cumulative_share"]


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


def _top_shares(abs_delta: np.ndarray, ks: Sequence[int]) -> np.ndarray:
    """Share of each row's sum held by its ``k`` largest values, for every ``k`` (rows x ks)."""
    ordered = -np.sort(-abs_delta, axis=-1)
    total = ordered.sum(axis=-1)
    cum = np.cumsum(ordered, axis=-1)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.stack([cum[..., k - 1] / total for k in ks], axis=-1)


def concentration_interval(
    tables: Mapping[str, pd.DataFrame],
    *,
    tops: Sequence[float] = (0.01, 0.1),
    n_resamples: int = 1000,
    confidence_level: float = 0.95,
    random_state: int,
) -> pd.DataFrame:
    """Percentile bootstrap interval over the documents of the mean concentration.

    The statistic is :func:`concentration` averaged over the word sets (the ``mean`` row of
    :func:`concentration_table`). Each draw resamples the documents with replacement — the
    same documents for every word set, since one document carries a ΔB for each — and
    recomputes every word set's share; a draw in which a word set has no ΔB at all is dropped.

    Returns
    -------
    pandas.DataFrame
        Index ``top 1%``, ``top 10%`` ...; columns ``share`` (the mean over word sets on all
        documents), ``ci_low``, ``ci_high``, ``n_documents``.

    Examples
    --------
    >>> t = {"a": pd.DataFrame({"delta_b": np.r_[50.0, np.ones(99)]})}
    >>> ci = concentration_interval(t, tops=[0.01], n_resamples=200, random_state=0)
    >>> bool(ci.loc["top 1%", "ci_low"] <= ci.loc["top 1%", "share"] <= ci.loc["top 1%", "ci_high"])
    True
    """
    if not tables:
        raise ValueError("tables is empty: pass score_documents(...)")
    deltas = np.stack([np.abs(t["delta_b"].to_numpy(float)) for t in tables.values()])
    n = deltas.shape[1]
    n_resamples = check_int(n_resamples, "n_resamples", minimum=2)
    ks = [max(1, int(np.floor(check_number(t, "each of tops", low=0.0, high=1.0, low_open=True)
                              * n))) for t in tops]  # fmt: skip
    point = np.mean(_top_shares(deltas, ks), axis=0)
    gen = _rng(random_state)
    draws = np.empty((n_resamples, len(ks)))
    chunk = max(1, 2_000_000 // max(1, deltas.size))
    for start in range(0, n_resamples, chunk):
        size = min(chunk, n_resamples - start)
        idx = gen.integers(0, n, size=(size, n))
        shares = _top_shares(deltas[:, idx], ks)  # word sets x draws x ks
        draws[start : start + size] = shares.mean(axis=0)
    draws = draws[np.isfinite(draws).all(axis=1)]
    if len(draws) < 2:
        raise ValueError("fewer than 2 bootstrap draws have a ΔB for every word set")
    alpha = (1 - confidence_level) / 2
    low, high = np.quantile(draws, [alpha, 1 - alpha], axis=0)
    return pd.DataFrame(
        {"share": point, "ci_low": low, "ci_high": high, "n_documents": n},
        index=pd.Index([f"top {100 * t:g}%" for t in tops], name="top"),
    )
