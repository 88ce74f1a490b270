"""The intrinsic chapter's generated sentences (nlpbias.studies.intrinsic.report)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from nlpbias.studies import intrinsic as study


def _results(ci_low: list[float], ci_high: list[float], p: list[float]) -> pd.DataFrame:
    queries = [f"caliskan_weat{i}" for i in range(1, len(p) + 1)]
    mid = [(lo + hi) / 2 for lo, hi in zip(ci_low, ci_high, strict=True)]
    return pd.DataFrame(
        {"query": queries, "effect_size": mid, "ci_low": ci_low, "ci_high": ci_high, "p_value": p}
    )


def test_uncertainty_sentence_names_the_tests_where_p_and_interval_disagree() -> None:
    r = _results([0.5, -0.27, -0.25, 0.1], [1.4, 1.5, 1.5, 0.9], [1e-4, 1e-4, 0.0011, 0.2])
    text = study.uncertainty_sentence(r, n_bootstrap=1000, n_resamples=10_000)
    assert "10,000 permutations" in text and "1,000 draws" in text
    assert "Of the 4 tests with both, 1 is significant at p ≤ 0.05" in text
    assert "They disagree on 2 tests (WEAT 2: p = 0.0001" in text
    assert "WEAT 3: p = 0.0011, interval [-0.25, 1.5] includes 0)" in text
    assert "On WEAT 4 the interval excludes 0 but p > 0.05" in text
    assert "verdicts use the bootstrap interval:" in text  # not "stricter": both ways occur
    agree = study.uncertainty_sentence(
        _results([0.5], [1.4], [1e-4]), n_bootstrap=10, n_resamples=10
    )
    assert "The two agree on every test." in agree and "disagree" not in agree
    stricter = study.uncertainty_sentence(
        _results([-0.3], [1.4], [1e-4]), n_bootstrap=10, n_resamples=10
    )
    assert "the stricter of the two here" in stricter


def test_uncertainty_sentence_without_intervals_and_bad_input() -> None:
    none = _results([np.nan], [np.nan], [1e-4])
    assert "no bootstrap intervals" in study.uncertainty_sentence(
        none, n_bootstrap=0, n_resamples=10
    )
    with pytest.raises(KeyError, match="p_value"):
        study.uncertainty_sentence(none.drop(columns="p_value"), n_bootstrap=0, n_resamples=10)
    with pytest.raises(ValueError, match="alpha"):
        study.uncertainty_sentence(none, alpha=1.5, n_bootstrap=0, n_resamples=10)


def test_round_noise_and_the_rnsb_spread() -> None:
    std = pd.Series([8.5e-17, 1.5e-16, 0.02, np.nan])
    assert study.round_noise(std).tolist()[:3] == [0.0, 0.0, 0.02]
    scores = pd.DataFrame(
        {"name": ["a", "a", "b"], "variant": ["signed", "kl", "kl"], "std": [8.5e-17, 1.5e-16, 0]}
    )
    text = study.rnsb_spread_sentence(scores, n_runs=10)
    assert "is 0 up to floating-point rounding (below 1e-12)" in text
    assert "e-17" not in text and "e-16" not in text
    scores.loc[2, "std"] = 0.0213
    assert "is 0.021 (b, kl)" in study.rnsb_spread_sentence(scores, n_runs=10)
    assert "no spread" in study.rnsb_spread_sentence(scores, n_runs=1)


def test_short_name() -> None:
    assert study.short_name("caliskan_weat3") == "WEAT 3"
    assert study.short_name("no_such_test") == "no_such_test"
