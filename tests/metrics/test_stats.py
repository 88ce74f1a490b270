"""Tests for nlpbias.metrics.stats: permutation p-values, Spearman permutation test, bootstrap."""

from __future__ import annotations

import itertools
import logging
import math

import numpy as np
import pytest

from nlpbias.metrics.stats import (
    bootstrap_ci,
    check_alternative,
    permutation_pvalue,
    spearman_permutation,
)

# --------------------------------------------------------------------------- permutation_pvalue

NULL = [1.0, 2.0, 3.0, -3.0, 4.0]  # observed 3.0


@pytest.mark.parametrize(
    ("alternative", "exact", "expected"),
    [
        # ">= 3": 3, 4 -> k=2; Monte Carlo (2+1)/(5+1); exact 2/5
        ("greater", False, 3 / 6),
        ("greater", True, 2 / 5),
        # "<= 3": 1, 2, 3, -3 -> k=4
        ("less", False, 5 / 6),
        ("less", True, 4 / 5),
        # "|x| >= 3": 3, -3, 4 -> k=3
        ("two-sided", False, 4 / 6),
        ("two-sided", True, 3 / 5),
    ],
)
def test_permutation_pvalue_counts_by_hand(alternative, exact, expected):
    p = permutation_pvalue(3.0, NULL, alternative=alternative, exact=exact)
    assert p == pytest.approx(expected)


def test_permutation_pvalue_counts_rounding_ties():
    # 0.1 + 0.2 != 0.3 in floating point; a tie up to rounding is still "as extreme"
    assert permutation_pvalue(0.3, [0.1 + 0.2, 0.0], alternative="greater", exact=True) == 0.5


def test_permutation_pvalue_never_zero():
    assert permutation_pvalue(10.0, np.zeros(99), alternative="greater") == pytest.approx(0.01)


def test_permutation_pvalue_exact_without_observed_raises(one_line):
    with pytest.raises(ValueError) as err:
        permutation_pvalue(10.0, [0.0, 1.0], alternative="greater", exact=True)
    assert "exact=False" in one_line(err)


@pytest.mark.parametrize(
    ("observed", "null"),
    [(1.0, []), (1.0, [[1.0, 2.0]]), (np.nan, [1.0]), (1.0, [1.0, np.inf])],
)
def test_permutation_pvalue_bad_input(observed, null, one_line):
    with pytest.raises(ValueError) as err:
        permutation_pvalue(observed, null)
    one_line(err)


@pytest.mark.parametrize("alternative", ["grater", "two_sided", "right-sided", None])
def test_alternative_misspelled(alternative, one_line):
    with pytest.raises(ValueError) as err:
        check_alternative(alternative)
    assert "two-sided" in one_line(err)
    with pytest.raises(ValueError):
        permutation_pvalue(1.0, [1.0], alternative=alternative)


# ------------------------------------------------------------------------------------ Spearman


def _exact_spearman_p(x, y):
    """Brute force: |rho| over all n! re-pairings of y, p = k / n!."""
    from scipy.stats import spearmanr

    rho = spearmanr(x, y).statistic
    perms = [
        spearmanr(x, np.asarray(y)[list(p)]).statistic
        for p in itertools.permutations(range(len(y)))
    ]
    k = sum(abs(r) >= abs(rho) - 1e-12 for r in perms)
    return rho, k / len(perms)


def test_spearman_rho_matches_scipy_with_ties():
    from scipy.stats import spearmanr

    x = [3.0, 1.0, 2.0, 2.0, 5.0, 4.0, 0.5]
    y = [1.0, 0.0, 2.0, 3.0, 3.0, 2.5, 0.2]
    rho, _ = spearman_permutation(x, y, n_resamples=10, random_state=0)
    assert rho == pytest.approx(spearmanr(x, y).statistic)


def test_spearman_p_within_three_standard_errors_of_exact():
    x = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0]
    y = [2.0, 1.0, 4.0, 3.0, 6.0, 5.0]
    rho_exact, p_exact = _exact_spearman_p(x, y)  # 720 re-pairings
    n = 20_000
    rho, p = spearman_permutation(x, y, n_resamples=n, random_state=1)
    assert rho == pytest.approx(rho_exact)
    assert 0.01 < p_exact < 0.5  # a non-trivial case
    assert abs(p - p_exact) <= 3 * math.sqrt(p_exact * (1 - p_exact) / n) + 1 / n


def test_spearman_perfect_monotone_floor():
    # n! = 720 pairings, 2 of which have |rho| = 1, so the p-value is near 2/720, and never 0
    n = 9999
    rho, p = spearman_permutation(range(6), [10, 20, 30, 40, 50, 60], n_resamples=n, random_state=0)
    assert rho == pytest.approx(1.0)
    assert p >= 1 / (n + 1)
    assert abs(p - 2 / 720) <= 3 * math.sqrt(2 / 720 / n) + 1 / n


def test_spearman_negative_and_reproducible():
    x = np.arange(10.0)
    y = -x + np.array([0, 1, 0, 1, 0, 1, 0, 1, 0, 1]) * 0.5
    r1 = spearman_permutation(x, y, n_resamples=500, random_state=3)
    r2 = spearman_permutation(x, y, n_resamples=500, random_state=3)
    assert r1 == r2
    assert r1.rho < -0.9
    assert r1.p_value == pytest.approx(1 / 501)


@pytest.mark.parametrize(
    ("x", "y", "needle"),
    [
        ([1.0, 2.0], [1.0, 2.0], "at least 3"),
        ([1.0, 2.0, 3.0], [1.0, 2.0], "same length"),
        ([1.0, 1.0, 1.0], [1.0, 2.0, 3.0], "constant"),
        ([1.0, 2.0, 3.0], [5.0, 5.0, 5.0], "constant"),
        ([1.0, np.nan, 3.0], [1.0, 2.0, 3.0], "NaN"),
        ([[1.0, 2.0, 3.0]], [1.0, 2.0, 3.0], "1-D"),
    ],
)
def test_spearman_bad_input(x, y, needle, one_line):
    with pytest.raises(ValueError) as err:
        spearman_permutation(x, y, random_state=None)
    assert needle in one_line(err)


def test_spearman_bad_n_resamples(one_line):
    with pytest.raises(ValueError) as err:
        spearman_permutation([1, 2, 3], [1, 3, 2], n_resamples=0, random_state=None)
    one_line(err)


# ----------------------------------------------------------------------------------- bootstrap


@pytest.mark.parametrize("vectorized", [False, True])
def test_bootstrap_two_point_sample_by_hand(vectorized):
    # Resampled means of [0, 1] (n=2): 0 w.p. 1/4, 0.5 w.p. 1/2, 1 w.p. 1/4.
    stat = (lambda s: s.mean(axis=1)) if vectorized else np.mean
    low, high = bootstrap_ci(
        np.array([0.0, 1.0]), stat, n_resamples=4000, random_state=0, vectorized=vectorized
    )
    assert (low, high) == (0.0, 1.0)  # 2.5 % and 97.5 % quantiles
    low, high = bootstrap_ci(
        np.array([0.0, 1.0]),
        stat,
        n_resamples=4000,
        confidence_level=0.4,
        random_state=0,
        vectorized=vectorized,
    )
    assert (low, high) == (0.5, 0.5)  # 30 % and 70 % quantiles both fall on 0.5


def test_bootstrap_two_samples_kept_apart_and_reproducible():
    a = np.array([10.0, 11.0, 12.0, 13.0])
    b = np.array([0.0, 1.0, 2.0])

    def diff(x, y):
        return x.mean(axis=-1) - y.mean(axis=-1)

    loop = bootstrap_ci((a, b), diff, n_resamples=2000, random_state=5)
    vec = bootstrap_ci((a, b), diff, n_resamples=2000, random_state=5, vectorized=True)
    # stratified: resampled means stay within each sample's range, so 8 <= diff <= 13
    for low, high in (loop, vec):
        assert 8.0 <= low < 11.5 < high <= 13.0
    assert abs(loop.low - vec.low) < 0.5 and abs(loop.high - vec.high) < 0.5
    assert vec == bootstrap_ci((a, b), diff, n_resamples=2000, random_state=5, vectorized=True)


def test_bootstrap_drops_nan_replicates_with_warning(caplog):
    def stat(s):
        return np.nan if s[0] == 0.0 else s.mean()

    with caplog.at_level(logging.WARNING, logger="nlpbias.metrics.stats"):
        low, high = bootstrap_ci(np.array([0.0, 1.0, 2.0]), stat, n_resamples=300, random_state=0)
    assert "dropped" in caplog.text
    assert 0.0 <= low <= high <= 2.0


def test_bootstrap_all_nan_raises(one_line):
    with pytest.raises(ValueError) as err:
        bootstrap_ci(np.array([1.0, 2.0]), lambda s: np.nan, n_resamples=10, random_state=0)
    assert "finite" in one_line(err)


@pytest.mark.parametrize(
    ("kwargs", "exc"),
    [
        ({"n_resamples": 0}, ValueError),
        ({"confidence_level": 1.0}, ValueError),
        ({"confidence_level": "95%"}, ValueError),
        ({"vectorized": True}, ValueError),  # np.mean over all of a batch returns a scalar
    ],
)
def test_bootstrap_bad_options(kwargs, exc, one_line):
    with pytest.raises(exc) as err:
        bootstrap_ci(np.array([1.0, 2.0, 3.0]), np.mean, **kwargs)
    one_line(err)


def test_bootstrap_empty_sample(one_line):
    with pytest.raises(ValueError) as err:
        bootstrap_ci((np.array([1.0]), np.array([])), np.mean)
    one_line(err)


def test_agreement_counts_signs_differences_and_skips_missing_pairs() -> None:
    from nlpbias.metrics.stats import agreement

    ours = [1.5, 1.2, 0.3, -0.2, 0.9]
    paper = [1.5, 1.5, 1.4, 1.2, float("nan")]  # the last test has no reported value
    a = agreement(ours, paper, random_state=0)
    assert a["n"] == 4 and a["same_sign"] == 3
    assert a["mean_abs_diff"] == pytest.approx((0 + 0.3 + 1.1 + 1.4) / 4)
    # ranks: ours 4,3,2,1 vs paper 4,4,3,1 (ties averaged: 3.5, 3.5, 2, 1) -> rho > 0.9
    assert a["rho"] > 0.9 and 0 < a["p_value"] <= 1
    two = agreement([1.0, 2.0], [2.0, 1.0], random_state=None)
    assert two["n"] == 2 and math.isnan(two["rho"])
    with pytest.raises(ValueError, match="pair them up"):
        agreement([1, 2], [1, 2, 3], random_state=None)
