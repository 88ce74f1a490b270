"""How concentrated the bias is: the share of the summed ``|ΔB|`` held by the top documents.

Brunet et al. (2019) and seed 004 report that a few documents carry most of the differential
bias; :func:`concentration_table` puts our shares beside seed 004's 48.8 % (top 1 %) and 92.2 %
(top 10 %), and :func:`concentration_interval` gives a bootstrap interval over the documents for
the shares averaged over word sets.

A share of the top documents is high even without any concentration when few documents can carry
ΔB at all (a document without a word of the test has ΔB = 0 exactly). :func:`even_share` is the
share the top documents would hold if ``|ΔB|`` were spread evenly over the documents with
ΔB ≠ 0 — the value "no concentration" takes — and :func:`concentration_sentence` compares the
observed share with it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from nlpbias.core.checks import check_int, check_number
from nlpbias.core.repro import rng as _rng

__all__ = [
    "concentration",
    "concentration_interval",
    "concentration_sentence",
    "concentration_table",
    "cumulative_share",
    "even_share",
]


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
        out[f"top {100 * t:g}%"] = float(cum["share"].iloc[_top_count(t, n) - 1])
    return pd.Series(out, name="share")


def _top_count(top: float, n: int) -> int:
    """Documents in the top fraction ``top`` of ``n``: ``floor(top * n)``, at least one."""
    check_number(top, "each of tops", low=0.0, high=1.0, low_open=True)
    return max(1, int(np.floor(top * n)))


def even_share(delta_b: Any, *, tops: Sequence[float] = (0.01, 0.1)) -> pd.Series:
    """The share of the summed ``|ΔB|`` the top documents would hold without concentration.

    Of ``N`` documents, ``M`` have ΔB ≠ 0 (those that contain a word of the test; the others have
    ΔB = 0 exactly and can carry none of it). If every one of the ``M`` carried the same
    ``|ΔB|``, the top ``k = max(1, floor(top · N))`` documents — the same ``k`` as in
    :func:`concentration` — would hold ``min(k, M) / M`` of the sum. This is the share expected
    without concentration: any share at or below it is explained by how few documents contain a
    test word, not by a few documents carrying most of the differential bias. With ``M ≤ k`` it
    is 1: the top documents hold everything whatever the distribution.

    Raises
    ------
    ValueError
        As :func:`cumulative_share` (empty input, non-finite values, ΔB = 0 everywhere).

    Examples
    --------
    >>> d = np.r_[np.ones(20), np.zeros(80)]  # 20 of 100 documents carry ΔB
    >>> even_share(d, tops=[0.01, 0.1, 0.5]).tolist()  # 1, 10 and 50 of them in the top
    [0.05, 0.5, 1.0]
    """
    cumulative_share(delta_b)  # the same checks of the input
    d = np.asarray(delta_b, dtype=np.float64).reshape(-1)
    n, m = d.size, int(np.count_nonzero(d))
    out = {f"top {100 * t:g}%": min(_top_count(t, n), m) / m for t in tops}
    return pd.Series(out, name="even share")


def concentration_table(tables: Mapping[str, pd.DataFrame]) -> pd.DataFrame:
    """Share of the summed |ΔB| held by the top 1 % and 10 % of documents, beside seed 004's.

    Each observed share stands beside the share expected without concentration
    (:func:`even_share`), and the last column is the share of documents that can carry ΔB.

    Returns
    -------
    pandas.DataFrame
        Index: the word sets, then ``mean`` and ``seed 004 (reported)``; columns ``top 1%``,
        ``top 1% if spread evenly``, ``top 10%``, ``top 10% if spread evenly`` (fractions),
        ``documents with ΔB ≠ 0`` (fraction of all documents). Seed 004 gives neither of the
        last three (so its even-spread shares are unknown).
    """
    from nlpbias.data.reported import load_reported

    rows = {}
    for name, t in tables.items():
        c = concentration(t["delta_b"], tops=(0.01, 0.1))
        e = even_share(t["delta_b"], tops=(0.01, 0.1))
        rows[name] = {
            "top 1%": c["top 1%"],
            "top 1% if spread evenly": e["top 1%"],
            "top 10%": c["top 10%"],
            "top 10% if spread evenly": e["top 10%"],
            "documents with ΔB ≠ 0": float((t["delta_b"] != 0).mean()),
        }
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
    n_resamples: int,
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
        documents), ``ci_low``, ``ci_high``, ``even`` (:func:`even_share` averaged over the word
        sets: the share expected without concentration), ``nonzero`` (the mean share of
        documents with ΔB ≠ 0), ``n_documents``, ``n_wordsets``.

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
    ks = [_top_count(t, n) for t in tops]
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
    even = np.mean([even_share(d, tops=tops).to_numpy() for d in deltas], axis=0)
    return pd.DataFrame(
        {
            "share": point,
            "ci_low": low,
            "ci_high": high,
            "even": even,
            "nonzero": float(np.mean(deltas != 0)),
            "n_documents": n,
            "n_wordsets": len(deltas),
        },
        index=pd.Index([f"top {100 * t:g}%" for t in tops], name="top"),
    )


def concentration_sentence(interval: pd.DataFrame) -> str:
    """One sentence per top fraction: the observed share beside the share without concentration.

    The word ("exceeds" / "does not exceed") comes from :func:`nlpbias.core.criteria.exceeds`
    with the observed share's distance to its interval's lower end as the margin, i.e. it holds
    iff the whole interval lies above the even-spread share; the sentence states the criterion.

    Parameters
    ----------
    interval : pandas.DataFrame
        :func:`concentration_interval` (columns ``share``, ``ci_low``, ``ci_high``, ``even``,
        ``nonzero``, ``n_documents``, ``n_wordsets``).

    Examples
    --------
    >>> d = np.r_[np.full(10, 50.0), np.ones(190), np.zeros(800)]  # 200 of 1,000 carry ΔB
    >>> ci = concentration_interval({"a": pd.DataFrame({"delta_b": d})}, tops=[0.01],
    ...                             n_resamples=200, random_state=0)
    >>> "**exceeds** the share expected" in concentration_sentence(ci)
    True
    """
    from nlpbias.core.criteria import Interval, exceeds
    from nlpbias.core.text import fmt_count, fmt_num

    need = {"share", "ci_low", "ci_high", "even", "nonzero", "n_documents", "n_wordsets"}
    missing = sorted(need - set(interval.columns))
    if missing:
        raise KeyError(f"concentration_sentence needs concentration_interval(); missing {missing}")
    first = interval.iloc[0]
    n_sets = int(first["n_wordsets"])
    over = "the word set" if n_sets == 1 else f"the mean over {fmt_count(n_sets)} word sets"
    parts = [
        f"Of the {fmt_count(int(first['n_documents']))} documents, "
        f"{100 * float(first['nonzero']):.1f} % have ΔB ≠ 0 ({over}): only they contain a word "
        "of the test and can carry differential bias."
    ]
    for top, row in interval.iterrows():
        share = Interval(100 * row["share"], 100 * row["ci_low"], 100 * row["ci_high"])
        even = 100 * float(row["even"])
        outcome = exceeds(
            share.estimate, even, margin=share.estimate - share.low,
            margin_name="the distance from the share to its interval's lower end",
            yes="exceeds", no="does not exceed",
        )  # fmt: skip
        parts.append(
            f"The {top} of documents hold {share.text(3)} % of the summed |ΔB|; spread evenly "
            f"over the documents with ΔB ≠ 0 they would hold {fmt_num(even, 3)} %, so the "
            f"observed share **{outcome.word}** the share expected without concentration "
            f"(criterion: {outcome.criterion}, i.e. the whole 95 % interval lies above it; "
            f"here {outcome.detail})."
        )
    return " ".join(parts)
