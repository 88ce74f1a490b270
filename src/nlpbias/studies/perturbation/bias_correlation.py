"""How the tests relate across documents: the correlation of ``ΔB`` between WEAT tests.

Seed 004 concludes that "gender and racial bias are not strongly correlated": over the documents,
the differential bias of tests in the same area of bias (its example: anti-Blackness, gender)
correlates "some (greater than 10 %)", that of tests in different areas "slight[ly] (roughly
5 %)". The poster gives neither its correlation coefficient nor which documents enter it. Here:

- a pair of tests is compared over the documents that **touch both** (``ΔB ≠ 0`` for both: a
  document without a word of a test has ``ΔB = 0`` exactly, and a mass of shared zeros would
  manufacture a correlation);
- both Pearson's r (the size of the changes) and Spearman's ρ (their order) are given, with
  percentile bootstrap intervals over documents;
- the area means (the mean r over the pairs within an area, and over the pairs across areas) are
  bootstrapped **jointly**: each replicate resamples the corpus's documents once and recomputes
  every pair on it, because the pairs share documents;
- each pair also reports how many words the two tests share after the vocabulary cut. Two tests
  that share target or attribute words move the same word vectors when a document is removed,
  so part of their correlation is built in by the word lists, not found in the corpus.

A resample is a vector of counts (how often each document was drawn), so every statistic is a
weighted one: Pearson's r with the counts as weights, and Spearman's ρ with the mid-ranks of the
resample (a document drawn ``c`` times occupies ``c`` consecutive ranks). That is exactly the
statistic of the resampled documents, computed for all replicates at once.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from itertools import combinations
from typing import Any

import numpy as np
import pandas as pd

from nlpbias.core.checks import check_int
from nlpbias.core.repro import rng as _rng

__all__ = [
    "MIN_SHARED",
    "area_correlations",
    "delta_b_frame",
    "pair_correlations",
    "percentile_interval",
]

#: Fewest documents touching both tests for a pair to get a correlation at all.
MIN_SHARED = 10
_CHUNK = 100  # bootstrap replicates per batch (memory: CHUNK x documents counts)


def delta_b_frame(tables: Mapping[str, pd.DataFrame]) -> pd.DataFrame:
    """The ``ΔB`` of every document (rows) for every test (columns), one table per test.

    Raises
    ------
    ValueError
        Fewer than two tests, or tables that do not score the same documents.

    Examples
    --------
    >>> t = {"a": pd.DataFrame({"delta_b": [0.1, 0.0]}), "b": pd.DataFrame({"delta_b": [0.2, 0.3]})}
    >>> delta_b_frame(t).to_numpy().tolist()
    [[0.1, 0.2], [0.0, 0.3]]
    """
    if len(tables) < 2:
        raise ValueError(
            f"correlating tests needs at least 2 tests with ΔB tables, got {len(tables)}; "
            "score more word sets (the chapter's `wordsets`)"
        )
    first = next(iter(tables.values())).index
    for name, table in tables.items():
        if "delta_b" not in table.columns:
            raise ValueError(
                f"the table of {name!r} has no 'delta_b' column; pass score_documents' tables"
            )
        if not table.index.equals(first):
            raise ValueError(
                f"the table of {name!r} scores other documents than the first table; score every "
                "test on the same corpus"
            )
    return pd.DataFrame(
        {name: t["delta_b"].to_numpy(np.float64) for name, t in tables.items()}, index=first
    )


def _weighted_pearson(x: np.ndarray, y: np.ndarray, w: np.ndarray) -> np.ndarray:
    """Pearson's r of ``x`` and ``y`` with weights ``w`` of shape (B, n): B values."""
    total = w.sum(axis=1)
    mx, my = (w @ x) / total, (w @ y) / total
    dx, dy = x[None, :] - mx[:, None], y[None, :] - my[:, None]
    cov = (w * dx * dy).sum(axis=1)
    var = (w * dx * dx).sum(axis=1) * (w * dy * dy).sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(var > 0, cov / np.sqrt(var), np.nan)


def _midranks(values: np.ndarray, w: np.ndarray) -> np.ndarray:
    """Mid-ranks of ``values`` in each resample given by the counts ``w`` (B, n).

    A document drawn ``c`` times occupies ranks ``s + 1 … s + c`` (``s``: draws of smaller
    values), so its mid-rank is ``s + (c + 1) / 2``; tied values share their group's mid-rank.
    """
    order = np.argsort(values, kind="stable")
    sorted_vals = values[order]
    wc = w[:, order]
    before = np.cumsum(wc, axis=1) - wc  # draws of documents earlier in the order
    # documents with equal values form one tie group: every member gets the group's mid-rank
    starts = np.r_[True, sorted_vals[1:] != sorted_vals[:-1]]
    group = np.cumsum(starts) - 1
    first = np.flatnonzero(starts)
    g_before = before[:, first]  # draws below the group
    g_count = np.add.reduceat(wc, first, axis=1)
    ranks_sorted = (g_before + (g_count + 1) / 2)[:, group]
    out = np.empty_like(ranks_sorted)
    out[:, order] = ranks_sorted
    return out


def _pair_stats(x: np.ndarray, y: np.ndarray, w: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(Pearson, Spearman) of each resample ``w`` (B, n) of the pairs ``(x, y)``."""
    return _weighted_pearson(x, y, w), _weighted_pearson_rows(_midranks(x, w), _midranks(y, w), w)


def _weighted_pearson_rows(rx: np.ndarray, ry: np.ndarray, w: np.ndarray) -> np.ndarray:
    """Like :func:`_weighted_pearson`, with per-replicate values ``rx``, ``ry`` (B, n)."""
    total = w.sum(axis=1, keepdims=True)
    dx = rx - (w * rx).sum(axis=1, keepdims=True) / total
    dy = ry - (w * ry).sum(axis=1, keepdims=True) / total
    cov = (w * dx * dy).sum(axis=1)
    var = (w * dx * dx).sum(axis=1) * (w * dy * dy).sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(var > 0, cov / np.sqrt(var), np.nan)


def _words(tables: Mapping[str, pd.DataFrame], name: str) -> set[str]:
    words = tables[name].attrs.get("words") or {}
    return {w.lower() for ws in words.values() for w in ws}


def _bootstrap(
    frame: pd.DataFrame,
    pairs: Sequence[tuple[str, str]],
    *,
    n_resamples: int,
    random_state: Any,
) -> tuple[np.ndarray, np.ndarray]:
    """Replicates (B, pairs) of Pearson and Spearman, documents resampled jointly."""
    gen = _rng(random_state)
    n = len(frame)
    values = frame.to_numpy()
    masks = {
        p: np.flatnonzero((frame[p[0]] != 0).to_numpy() & (frame[p[1]] != 0).to_numpy())
        for p in pairs
    }
    pear = np.full((n_resamples, len(pairs)), np.nan)
    spear = np.full((n_resamples, len(pairs)), np.nan)
    cols = {c: i for i, c in enumerate(frame.columns)}
    for start in range(0, n_resamples, _CHUNK):
        size = min(_CHUNK, n_resamples - start)
        draws = gen.integers(0, n, size=(size, n))
        flat = (draws + n * np.arange(size)[:, None]).ravel()
        counts = np.bincount(flat, minlength=size * n).reshape(size, n).astype(np.float64)
        for j, pair in enumerate(pairs):
            rows = masks[pair]
            if rows.size < MIN_SHARED:
                continue
            w = counts[:, rows]
            x, y = values[rows, cols[pair[0]]], values[rows, cols[pair[1]]]
            ok = (w > 0).sum(axis=1) >= 3  # fewer distinct documents: no correlation
            p, s = _pair_stats(x, y, w)
            pear[start : start + size, j] = np.where(ok, p, np.nan)
            spear[start : start + size, j] = np.where(ok, s, np.nan)
    return pear, spear


def percentile_interval(draws: np.ndarray, level: float = 0.95) -> tuple[float, float]:
    """Percentile interval of the finite bootstrap ``draws`` (NaN, NaN with fewer than 2).

    Examples
    --------
    >>> percentile_interval(np.array([0.0, 1.0, np.nan]), level=0.5)
    (0.25, 0.75)
    """
    finite = draws[np.isfinite(draws)]
    if finite.size < 2:
        return float("nan"), float("nan")
    low, high = np.quantile(finite, [(1 - level) / 2, (1 + level) / 2])
    return float(low), float(high)


def _interval(replicates: np.ndarray, level: float = 0.95) -> tuple[np.ndarray, np.ndarray]:
    """:func:`percentile_interval` of each column of ``replicates``."""
    bounds = [percentile_interval(replicates[:, j], level) for j in range(replicates.shape[1])]
    low, high = (np.array(b, dtype=float).reshape(-1) for b in zip(*bounds, strict=True))
    return low, high


def pair_correlations(
    tables: Mapping[str, pd.DataFrame],
    *,
    areas: Mapping[str, str],
    n_resamples: int,
    random_state: int,
) -> pd.DataFrame:
    """Pearson's r and Spearman's ρ of ``ΔB`` between every pair of tests, with intervals.

    Parameters
    ----------
    tables : mapping
        Test → per-document table with ``delta_b`` (``score_documents``; its ``attrs["words"]``
        give the words used, for the ``shared_words`` column).
    areas : mapping
        Test → area of bias (e.g. ``"gender"``, ``"race"``, ``"intersectional"``); every test
        of ``tables`` needs one.
    n_resamples : int
        Bootstrap replicates (documents resampled jointly for all pairs).
    random_state : int

    Returns
    -------
    pandas.DataFrame
        One row per pair, index ``(test_a, test_b)``: ``area_a``, ``area_b``, ``same_area``,
        ``n_documents`` (touching both), ``shared_words``, ``pearson``, ``pearson_low``,
        ``pearson_high``, ``spearman``, ``spearman_low``, ``spearman_high``, ``note`` (why a
        pair has no correlation). ``attrs["replicates"]`` holds the bootstrap replicates
        (``pearson``, ``spearman``: arrays of shape (n_resamples, pairs)) for
        :func:`area_correlations`.

    Raises
    ------
    ValueError
        A test without an area, fewer than two tests, or tables of different documents.
    """
    frame = delta_b_frame(tables)
    missing = [t for t in frame.columns if t not in areas]
    if missing:
        raise ValueError(
            f"no area of bias for test(s) {missing}; give each test an area in `areas`"
        )
    check_int(n_resamples, "n_resamples", minimum=1)
    pairs = list(combinations(frame.columns, 2))
    pear_b, spear_b = _bootstrap(frame, pairs, n_resamples=n_resamples, random_state=random_state)
    p_low, p_high = _interval(pear_b)
    s_low, s_high = _interval(spear_b)
    rows = []
    for j, (a, b) in enumerate(pairs):
        both = (frame[a] != 0) & (frame[b] != 0)
        n_both = int(both.sum())
        rec = {
            "test_a": a,
            "test_b": b,
            "area_a": areas[a],
            "area_b": areas[b],
            "same_area": areas[a] == areas[b],
            "n_documents": n_both,
            "shared_words": len(_words(tables, a) & _words(tables, b)),
            "pearson": np.nan,
            "pearson_low": np.nan,
            "pearson_high": np.nan,
            "spearman": np.nan,
            "spearman_low": np.nan,
            "spearman_high": np.nan,
            "note": "",
        }
        if n_both < MIN_SHARED:
            rec["note"] = (
                f"{n_both} documents touch both tests, fewer than {MIN_SHARED}: no correlation"
            )
        else:
            x, y = frame.loc[both, a].to_numpy(), frame.loc[both, b].to_numpy()
            ones = np.ones((1, n_both))
            rec["pearson"] = float(_weighted_pearson(x, y, ones)[0])
            rec["spearman"] = float(
                _weighted_pearson_rows(_midranks(x, ones), _midranks(y, ones), ones)[0]
            )
            rec.update(
                pearson_low=float(p_low[j]), pearson_high=float(p_high[j]),
                spearman_low=float(s_low[j]), spearman_high=float(s_high[j]),
            )  # fmt: skip
        rows.append(rec)
    out = pd.DataFrame(rows).set_index(["test_a", "test_b"])
    out.attrs["replicates"] = {"pearson": pear_b, "spearman": spear_b}
    out.attrs["n_resamples"] = n_resamples
    return out


def area_correlations(pairs: pd.DataFrame, *, level: float = 0.95) -> pd.DataFrame:
    """Mean correlation of the pairs within an area and across areas, with joint intervals.

    Parameters
    ----------
    pairs : pandas.DataFrame
        :func:`pair_correlations` (with its ``attrs["replicates"]``).
    level : float, default 0.95

    Returns
    -------
    pandas.DataFrame
        Index ``within area``, ``across areas``, ``within − across``; columns per statistic
        (``pearson``, ``spearman``): the mean over the pairs that have a correlation, its
        percentile interval over the joint bootstrap (``*_low``, ``*_high``), ``pairs`` (how
        many pairs enter the mean) and ``pairs_sharing_words`` (how many of them share a word,
        whose correlation the lists partly build in). A kind without any such pair (and the
        difference, then) is NaN with ``pairs`` 0.

    Raises
    ------
    ValueError
        No pair has a correlation at all (too few shared documents everywhere).
    """
    reps = pairs.attrs.get("replicates")
    if reps is None:
        raise ValueError("pairs lacks its bootstrap replicates; pass pair_correlations' result")
    usable = pairs["pearson"].notna().to_numpy()
    if not usable.any():
        raise ValueError(
            f"no pair of tests has {MIN_SHARED} or more documents touching both; use a larger "
            "corpus or tests whose words it contains"
        )
    kinds = {
        "within area": usable & pairs["same_area"].to_numpy(),
        "across areas": usable & ~pairs["same_area"].to_numpy(),
    }
    rows: dict[str, dict[str, float]] = {k: {} for k in (*kinds, "within − across")}
    nan = np.full(len(next(iter(reps.values()))), np.nan)
    for stat in ("pearson", "spearman"):
        point, rep = pairs[stat].to_numpy(), reps[stat]
        means = {
            k: (point[m].mean(), np.nanmean(rep[:, m], axis=1)) if m.any() else (np.nan, nan)
            for k, m in kinds.items()
        }
        means["within − across"] = (
            means["within area"][0] - means["across areas"][0],
            means["within area"][1] - means["across areas"][1],
        )
        for name, (value, draws) in means.items():
            low, high = _interval(draws[:, None], level)
            rows[name].update(
                {stat: float(value), f"{stat}_low": float(low[0]), f"{stat}_high": float(high[0])}
            )
    out = pd.DataFrame(rows).T
    counts = {k: int(m.sum()) for k, m in kinds.items()}
    counts["within − across"] = min(counts.values())
    out["pairs"] = pd.Series(counts)
    sharing = (pairs["shared_words"] > 0).to_numpy()
    shared = {k: int((m & sharing).sum()) for k, m in kinds.items()}
    shared["within − across"] = 0
    out["pairs_sharing_words"] = pd.Series(shared)
    return out
