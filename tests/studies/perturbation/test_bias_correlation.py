"""Tests for nlpbias.studies.perturbation.bias_correlation: ΔB correlations between tests."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from nlpbias.studies.perturbation import bias_correlation as bc


def _tables(frame: pd.DataFrame, words: dict[str, list[str]] | None = None) -> dict:
    out = {}
    for name in frame.columns:
        t = pd.DataFrame({"delta_b": frame[name].to_numpy()}, index=frame.index)
        t.attrs["words"] = {"all": tuple((words or {}).get(name, []))}
        out[name] = t
    return out


def _planted(n: int = 4000, seed: int = 0) -> pd.DataFrame:
    """Two gender tests sharing a factor (r ≈ 0.6), one race test independent of them, and
    one race test correlated with the first race test; a third of the documents touch each."""
    rng = np.random.default_rng(seed)
    g = rng.normal(size=n)
    r = rng.normal(size=n)
    frame = pd.DataFrame(
        {
            "g1": g + 0.8 * rng.normal(size=n),
            "g2": g + 0.8 * rng.normal(size=n),
            "r1": r + 0.8 * rng.normal(size=n),
            "r2": r + 0.8 * rng.normal(size=n),
        }
    )
    for col in frame:  # documents without a word of the test: ΔB exactly 0
        frame.loc[rng.random(n) < 0.3, col] = 0.0
    return frame


AREAS = {"g1": "gender", "g2": "gender", "r1": "race", "r2": "race"}


def test_weighted_statistics_equal_the_resampled_documents():
    rng = np.random.default_rng(1)
    x, y = rng.normal(size=30), rng.normal(size=30)
    x[5] = x[6]  # a tie
    draws = rng.integers(0, 30, size=30)
    w = np.bincount(draws, minlength=30).astype(float)[None, :]
    p, s = bc._pair_stats(x, y, w)
    assert p[0] == pytest.approx(stats.pearsonr(x[draws], y[draws])[0], abs=1e-12)
    assert s[0] == pytest.approx(stats.spearmanr(x[draws], y[draws])[0], abs=1e-12)


def test_planted_correlations_and_areas():
    frame = _planted()
    pairs = bc.pair_correlations(_tables(frame), areas=AREAS, n_resamples=200, random_state=0)
    assert len(pairs) == 6
    within = pairs[pairs["same_area"]]
    across = pairs[~pairs["same_area"]]
    # the planted r within an area is 1 / (1 + 0.64) = 0.61; across, 0
    np.testing.assert_allclose(within["pearson"], 1 / 1.64, atol=0.05)
    np.testing.assert_allclose(across["pearson"], 0.0, atol=0.06)
    assert (pairs["pearson_low"] < pairs["pearson"]).all()
    assert (pairs["pearson"] < pairs["pearson_high"]).all()
    # only documents touching both: about 0.7 ** 2 of them
    both = ((frame["g1"] != 0) & (frame["r1"] != 0)).sum()
    assert pairs.loc[("g1", "r1"), "n_documents"] == both
    x = frame.loc[(frame["g1"] != 0) & (frame["g2"] != 0), ["g1", "g2"]]
    assert pairs.loc[("g1", "g2"), "spearman"] == pytest.approx(
        stats.spearmanr(x["g1"], x["g2"])[0], abs=1e-12
    )
    means = bc.area_correlations(pairs)
    assert means.loc["within area", "pairs"] == 2
    assert means.loc["across areas", "pairs"] == 4
    assert means.loc["within area", "pearson"] == pytest.approx(within["pearson"].mean())
    low = means.loc["within − across", "pearson_low"]
    assert low > 0.4  # the planted gap of 0.61 is found, beyond its interval


def test_shared_zeros_do_not_make_a_correlation():
    # two unrelated tests whose documents are mostly zero for both: over all documents the
    # zeros would correlate them; over the documents touching both they do not
    rng = np.random.default_rng(2)
    n = 20000
    touch = rng.random(n) < 0.1
    frame = pd.DataFrame(
        {
            "a": np.where(touch, 5 + rng.normal(size=n), 0.0),
            "b": np.where(touch, 5 + rng.normal(size=n), 0.0),
        }
    )
    assert np.corrcoef(frame["a"], frame["b"])[0, 1] > 0.9
    pairs = bc.pair_correlations(
        _tables(frame), areas={"a": "x", "b": "y"}, n_resamples=100, random_state=0
    )
    assert abs(pairs["pearson"].iloc[0]) < 0.1


def test_shared_words_and_too_few_documents():
    frame = pd.DataFrame({"a": [1.0, 2.0, 3.0] + [0.0] * 20, "b": [1.0, 2.0, 4.0] + [1.0] * 20})
    words = {"a": ["he", "she", "art"], "b": ["he", "she", "math"]}
    pairs = bc.pair_correlations(
        _tables(frame, words), areas={"a": "g", "b": "g"}, n_resamples=20, random_state=0
    )
    row = pairs.iloc[0]
    assert row["shared_words"] == 2
    assert np.isnan(row["pearson"])
    assert "fewer than 10" in row["note"]


def test_deterministic():
    tables = _tables(_planted(500))
    one = bc.pair_correlations(tables, areas=AREAS, n_resamples=50, random_state=3)
    two = bc.pair_correlations(tables, areas=AREAS, n_resamples=50, random_state=3)
    pd.testing.assert_frame_equal(one, two)


def test_errors(one_line):
    frame = _planted(200)
    with pytest.raises(ValueError) as err:
        bc.pair_correlations(_tables(frame), areas={"g1": "g"}, n_resamples=10, random_state=0)
    assert "no area of bias" in one_line(err)
    with pytest.raises(ValueError) as err:
        bc.delta_b_frame(_tables(frame[["g1"]]))
    assert "at least 2 tests" in one_line(err)
    only_within = bc.pair_correlations(
        _tables(frame[["g1", "g2"]]), areas=AREAS, n_resamples=10, random_state=0
    )
    means = bc.area_correlations(only_within)
    assert means.loc["within area", "pairs"] == 1 and np.isfinite(
        means.loc["within area", "pearson"]
    )
    assert means.loc["across areas", "pairs"] == 0
    assert np.isnan(means.loc["across areas", "pearson"])
    assert np.isnan(means.loc["within − across", "pearson_low"])
    lonely = pd.DataFrame({"a": [1.0, 2.0] + [0.0] * 30, "b": [0.0] * 30 + [1.0, 2.0]})
    none = bc.pair_correlations(
        _tables(lonely), areas={"a": "x", "b": "y"}, n_resamples=10, random_state=0
    )
    with pytest.raises(ValueError) as err:
        bc.area_correlations(none)
    assert "no pair of tests" in one_line(err)


def test_doctests():
    import doctest

    from nlpbias.studies.perturbation import bias_correlation as module

    failed, attempted = doctest.testmod(module, optionflags=doctest.NORMALIZE_WHITESPACE)[:2]
    assert attempted > 0 and failed == 0
