"""Resampling statistics: permutation p-values, Spearman's rho with a permutation p, bootstrap CIs.

Everything here is vectorised: permutations and bootstrap resamples are drawn as index matrices
and evaluated in chunks as array operations, never one at a time in a Python loop (except for a
user-supplied, non-vectorised bootstrap statistic).

Conventions
-----------
- Monte-Carlo permutation p-values are ``(k + 1) / (n + 1)``, where ``k`` of ``n`` random
  permutations give a statistic at least as extreme as the observed one. The ``+ 1`` counts the
  observed arrangement itself, so the p-value is never 0 and the test is exact (valid) at every
  level (Phipson & Smyth, 2010). With ``n = 9999`` the smallest possible p is ``1e-4``.
- Exact (enumerated) p-values are ``k / N`` over all ``N`` arrangements, the observed included.
- "At least as extreme" uses a tiny relative tolerance, so arrangements that equal the observed
  statistic up to floating-point rounding are counted.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any, NamedTuple

import numpy as np
import pandas as pd

from nlpbias.core.checks import check_choice, check_fraction, check_int
from nlpbias.core.repro import rng as _rng

__all__ = [
    "ALTERNATIVES",
    "ConfidenceInterval",
    "SpearmanResult",
    "agreement",
    "bootstrap_ci",
    "check_alternative",
    "permutation_pvalue",
    "spearman_permutation",
]

log = logging.getLogger(__name__)

ALTERNATIVES = ("greater", "less", "two-sided")
_REL_TOL = 1e-10
_CHUNK_ELEMENTS = 2**21  # entries of one index matrix evaluated at once (~16 MiB of int64)


class SpearmanResult(NamedTuple):
    """Spearman's rank correlation and its two-sided permutation p-value."""

    rho: float
    p_value: float


class ConfidenceInterval(NamedTuple):
    """Lower and upper end of a confidence interval."""

    low: float
    high: float


def check_alternative(alternative: object) -> str:
    """Return ``alternative`` if it is one of :data:`ALTERNATIVES`, else raise ``ValueError``."""
    return str(check_choice(alternative, "alternative", ALTERNATIVES))


def permutation_pvalue(
    observed: float,
    null: Any,
    *,
    alternative: str = "two-sided",
    exact: bool = False,
) -> float:
    """P-value of an observed statistic against its permutation distribution.

    Parameters
    ----------
    observed : float
        The statistic on the data as observed.
    null : array-like of float, 1-D
        The statistic under permutations of the data.
    alternative : {"two-sided", "greater", "less"}, default "two-sided"
        ``"greater"`` counts permuted statistics ``>= observed``, ``"less"`` those
        ``<= observed``, ``"two-sided"`` those with ``|null| >= |observed|``.
    exact : bool, default False
        ``False``: ``null`` is a Monte-Carlo sample of random permutations and the p-value is
        ``(k + 1) / (n + 1)``. ``True``: ``null`` enumerates *every* arrangement, the observed
        one included, and the p-value is ``k / n``.

    Returns
    -------
    float
        The p-value, in ``(0, 1]``.

    Raises
    ------
    ValueError
        If ``null`` is empty or not finite, ``observed`` is not finite, ``alternative`` is
        unknown, or ``exact=True`` but no permuted statistic is as extreme as the observed one
        (so ``null`` cannot contain the observed arrangement).

    Examples
    --------
    >>> permutation_pvalue(3.0, [1.0, 2.0, 3.0, 4.0], alternative="greater")
    0.6
    >>> permutation_pvalue(3.0, [1.0, 2.0, 3.0, 4.0], alternative="greater", exact=True)
    0.5
    """
    alternative = check_alternative(alternative)
    null = np.asarray(null, dtype=np.float64)
    if null.ndim != 1 or null.size == 0:
        raise ValueError(
            f"null must be a non-empty 1-D array of permuted statistics, got shape {null.shape}"
        )
    if not np.isfinite(observed) or not np.all(np.isfinite(null)):
        raise ValueError("observed and null statistics must be finite; check the input data")
    observed = float(observed)
    tol = _REL_TOL * max(1.0, abs(observed), float(np.max(np.abs(null))))
    if alternative == "greater":
        k = int(np.count_nonzero(null >= observed - tol))
    elif alternative == "less":
        k = int(np.count_nonzero(null <= observed + tol))
    else:
        k = int(np.count_nonzero(np.abs(null) >= abs(observed) - tol))
    if exact:
        if k == 0:
            raise ValueError(
                "exact=True but no permuted statistic is as extreme as the observed one, so "
                "null cannot enumerate all arrangements; pass exact=False for a random sample"
            )
        return k / null.size
    return (k + 1) / (null.size + 1)


def _ranks(values: np.ndarray) -> np.ndarray:
    from scipy.stats import rankdata

    return rankdata(values).astype(np.float64)


def _as_1d(values: Any, name: str) -> np.ndarray:
    try:
        arr = np.asarray(values, dtype=np.float64)
    except (TypeError, ValueError) as err:
        kind = type(values).__name__
        raise TypeError(f"{name} must be a 1-D array of numbers, got {kind}") from err
    if arr.ndim != 1:
        raise ValueError(f"{name} must be 1-D, got shape {arr.shape}; pass a flat sequence")
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} contains NaN or infinite values; drop those points first")
    return arr


def spearman_permutation(
    x: Any,
    y: Any,
    *,
    n_resamples: int = 9999,
    random_state: None | int | np.random.Generator,
) -> SpearmanResult:
    """Spearman's rank correlation with a two-sided permutation p-value over pairings.

    The null distribution is built by randomly re-pairing the ``y`` values with the ``x``
    values (permuting ``y``), ``n_resamples`` times; ``p = (k + 1) / (n_resamples + 1)`` where
    ``k`` permutations give ``|rho| >= |observed rho|``. Ties get average ranks, as in
    :func:`scipy.stats.spearmanr`.

    Parameters
    ----------
    x, y : array-like of float, 1-D, same length (at least 3)
        Paired observations, e.g. an intrinsic and an extrinsic bias score per embedding.
    n_resamples : int, default 9999
        Number of random permutations (so the smallest possible p is ``1 / (n_resamples + 1)``);
        a chapter whose parameters set it passes its own (``intrinsic_extrinsic``).
    random_state : None, int or numpy.random.Generator
        Seed or generator for the permutations: required, the caller passes its chapter's seed.

    Returns
    -------
    SpearmanResult
        Named tuple ``(rho, p_value)``.

    Raises
    ------
    ValueError
        Fewer than 3 points, different lengths, NaN/inf values or a constant input (for which
        rho is undefined).

    Examples
    --------
    >>> rho, p = spearman_permutation([1, 2, 3, 4, 5, 6], [2, 1, 4, 3, 6, 5], random_state=0)
    >>> round(rho, 3)
    0.829
    """
    x = _as_1d(x, "x")
    y = _as_1d(y, "y")
    if x.size != y.size:
        raise ValueError(f"x and y must have the same length, got {x.size} and {y.size}")
    if x.size < 3:
        raise ValueError(f"Spearman's rho needs at least 3 paired points, got {x.size}")
    n_resamples = check_int(n_resamples, "n_resamples", minimum=1)
    for name, arr in (("x", x), ("y", y)):
        if np.all(arr == arr[0]):
            raise ValueError(f"{name} is constant, so Spearman's rho is undefined; drop it")
    rx = _ranks(x)
    ry = _ranks(y)
    rx -= rx.mean()
    ry -= ry.mean()
    rx /= np.linalg.norm(rx)
    ry /= np.linalg.norm(ry)
    rho = float(np.clip(rx @ ry, -1.0, 1.0))
    gen = _rng(random_state)
    n = x.size
    chunk = max(1, _CHUNK_ELEMENTS // n)
    null = np.empty(n_resamples)
    for start in range(0, n_resamples, chunk):
        size = min(chunk, n_resamples - start)
        order = np.argsort(gen.random((size, n)), axis=1)
        null[start : start + size] = ry[order] @ rx
    return SpearmanResult(rho, permutation_pvalue(rho, null, alternative="two-sided"))


def _as_samples(data: Any) -> tuple[np.ndarray, ...]:
    samples = data if isinstance(data, tuple) else (data,)
    if not samples:
        raise ValueError("data is an empty tuple; pass an array or a tuple of arrays")
    out = []
    for i, sample in enumerate(samples):
        arr = np.asarray(sample)
        if arr.ndim == 0 or arr.shape[0] == 0:
            raise ValueError(
                f"sample {i} of data is empty or a scalar; pass arrays with at least one row"
            )
        out.append(arr)
    return tuple(out)


def bootstrap_ci(
    data: Any,
    statistic: Callable[..., Any],
    *,
    n_resamples: int = 9999,
    confidence_level: float = 0.95,
    random_state: None | int | np.random.Generator = None,
    vectorized: bool = False,
) -> ConfidenceInterval:
    """Percentile bootstrap confidence interval of a statistic.

    Each sample is resampled with replacement along its first axis, independently of the others
    (stratified bootstrap: sample sizes are kept); the interval is given by the
    ``(1 - confidence_level) / 2`` and ``(1 + confidence_level) / 2`` quantiles of the
    bootstrap replicates. Replicates that are NaN or infinite are dropped with a logged warning.

    Parameters
    ----------
    data : array-like, or tuple of array-likes
        One sample, or a tuple of samples (e.g. two groups) resampled independently. A list is
        one sample; use a tuple for several.
    statistic : callable
        ``statistic(*samples) -> float``. With ``vectorized=True`` each sample gets a leading
        resample axis (shape ``(B, n_i, ...)``) and the callable must return ``B`` values.
    n_resamples : int, default 9999
        Number of bootstrap resamples.
    confidence_level : float, default 0.95
        Coverage of the interval, in (0, 1).
    random_state : None, int or numpy.random.Generator
        Seed or generator for the resampling.
    vectorized : bool, default False
        Whether ``statistic`` accepts batches of resamples (much faster).

    Returns
    -------
    ConfidenceInterval
        Named tuple ``(low, high)``.

    Raises
    ------
    ValueError
        Empty samples, bad ``n_resamples`` / ``confidence_level``, a vectorised statistic with
        the wrong output shape, or fewer than 2 finite replicates.

    Examples
    --------
    >>> low, high = bootstrap_ci(([1.0, 2.0, 3.0, 4.0],), np.mean, random_state=0)
    >>> 1.0 <= low < high <= 4.0
    True
    """
    samples = _as_samples(data)
    n_resamples = check_int(n_resamples, "n_resamples", minimum=1)
    level = check_fraction(confidence_level, "confidence_level")
    if not callable(statistic):
        raise TypeError(f"statistic must be callable, got {type(statistic).__name__}")
    gen = _rng(random_state)
    sizes = [len(s) for s in samples]
    replicates = np.empty(n_resamples)
    if vectorized:
        chunk = max(1, _CHUNK_ELEMENTS // sum(s.size for s in samples))
        for start in range(0, n_resamples, chunk):
            size = min(chunk, n_resamples - start)
            batch = [
                s[gen.integers(0, n, size=(size, n))] for s, n in zip(samples, sizes, strict=True)
            ]
            values = np.asarray(statistic(*batch), dtype=np.float64)
            if values.shape != (size,):
                raise ValueError(
                    f"vectorized statistic returned shape {values.shape} for {size} resamples; "
                    "return one value per resample or pass vectorized=False"
                )
            replicates[start : start + size] = values
    else:
        for b in range(n_resamples):
            batch = [s[gen.integers(0, n, size=n)] for s, n in zip(samples, sizes, strict=True)]
            replicates[b] = float(statistic(*batch))
    finite = np.isfinite(replicates)
    if not finite.all():
        log.warning(
            "bootstrap: dropped %d of %d replicates that were NaN or infinite",
            int((~finite).sum()),
            n_resamples,
        )
        replicates = replicates[finite]
    if replicates.size < 2:
        raise ValueError(
            "fewer than 2 bootstrap replicates are finite; the statistic is undefined on most "
            "resamples (e.g. zero spread), so use larger samples"
        )
    alpha = (1.0 - level) / 2.0
    low, high = np.quantile(replicates, [alpha, 1.0 - alpha])
    return ConfidenceInterval(float(low), float(high))


def agreement(
    ours: Any,
    reference: Any,
    *,
    n_resamples: int = 9999,
    random_state: None | int | np.random.Generator,
) -> dict[str, float]:
    """How well our numbers agree with reference ones (e.g. a paper's), pairs with NaN left out.

    Returns
    -------
    dict
        ``n`` (pairs compared), ``same_sign`` (pairs whose signs agree), ``mean_abs_diff``,
        ``rho`` and ``p_value`` (:func:`spearman_permutation` with ``n_resamples`` and
        ``random_state``, the latter required: the caller's chapter seed; NaN when n < 3).

    Examples
    --------
    >>> a = agreement([1.5, 1.2, 0.3, -0.2], [1.5, 1.5, 1.4, 1.2], random_state=0)
    >>> a["n"], a["same_sign"], round(a["mean_abs_diff"], 3)
    (4, 3, 0.7)
    """
    x = np.asarray(pd.to_numeric(pd.Series(ours, dtype=object)), dtype=np.float64)
    y = np.asarray(pd.to_numeric(pd.Series(reference, dtype=object)), dtype=np.float64)
    if x.shape != y.shape:
        raise ValueError(f"ours has {x.size} values but reference has {y.size}; pair them up")
    keep = ~(np.isnan(x) | np.isnan(y))
    x, y = x[keep], y[keep]
    if x.size == 0:
        raise ValueError("no pair has both values; nothing to compare")
    rho = p = float("nan")
    if x.size >= 3 and np.ptp(x) > 0 and np.ptp(y) > 0:
        rho, p = spearman_permutation(x, y, n_resamples=n_resamples, random_state=random_state)
    return {
        "n": int(x.size),
        "same_sign": int(np.sum(np.sign(x) == np.sign(y))),
        "mean_abs_diff": float(np.mean(np.abs(x - y))),
        "rho": float(rho),
        "p_value": float(p),
    }
