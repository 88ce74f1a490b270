"""Tests for nlpbias.studies.intrinsic_extrinsic.zero_weat (the gap left at WEAT = 0)."""

from __future__ import annotations

import doctest

import numpy as np
import pandas as pd
import pytest

from nlpbias.data.reported import load_reported
from nlpbias.studies.intrinsic_extrinsic import zero_weat
from nlpbias.studies.intrinsic_extrinsic.zero_weat import gap_at_zero, gap_at_zero_text

X, Y = "intrinsic:extracted:weat", "extrinsic:type1_f1"
PANEL = {"family": "coref", "algorithm": "word2vec", "modset": "extracted", "x": X, "y": Y}


def _planted(intercept: float, slope: float, noise: float, n: int = 25) -> pd.DataFrame:
    """The original at WEAT 0.7 and n - 1 embeddings modified with the extracted sets, on the
    line ``intercept + slope * WEAT`` plus noise; decoys of another modset far off the line."""
    rng = np.random.default_rng(3)
    x = np.linspace(-1.5, 1.5, n)
    x[0] = 0.7
    y = intercept + slope * x + noise * rng.normal(size=n)
    frame = pd.DataFrame({X: x, Y: y})
    frame["method"] = (
        ["original"] + ["balance", "attract_repel"] * ((n - 1) // 2) + ["balance"] * ((n - 1) % 2)
    )
    frame["modset"] = [np.nan] + ["extracted"] * (n - 1)
    decoys = pd.DataFrame({X: [0.0, 0.01], Y: [5.0, 5.0], "method": "balance", "modset": "weat"})
    return pd.concat([frame, decoys], ignore_index=True).assign(
        family="coref", algorithm="word2vec"
    )


def test_the_fitted_gap_at_zero_recovers_a_planted_intercept_with_an_interval_around_it() -> None:
    scores = _planted(0.12, 0.05, noise=0.01)
    (row,) = gap_at_zero(scores, [PANEL], n_resamples=500, random_state=0).itertuples()
    assert row.n == 25  # the decoys of the 'weat' modset are not this panel's
    assert row.gap_at_zero == pytest.approx(0.12, abs=0.006)
    assert row.slope == pytest.approx(0.05, abs=0.006)
    assert row.low < 0.12 < row.high and row.high - row.low < 0.02
    assert row.skipped == ""
    # the observed embedding closest to WEAT = 0: the middle of the linspace
    assert row.nearest_x == pytest.approx(0.0, abs=1e-12)
    assert (
        row.nearest_gap == scores.loc[12, Y] and row.nearest_method == "Attract-Repel"
    )  # as index 12 was made


def test_exact_line_gives_the_intercept_and_a_degenerate_interval() -> None:
    scores = _planted(-0.3, 2.0, noise=0.0)
    row = gap_at_zero(scores, [PANEL], n_resamples=200, random_state=1).iloc[0]
    assert row["gap_at_zero"] == pytest.approx(-0.3)
    assert row["low"] == pytest.approx(-0.3) and row["high"] == pytest.approx(-0.3)


def test_the_bootstrap_is_seeded() -> None:
    scores = _planted(0.1, 0.05, noise=0.05)
    a = gap_at_zero(scores, [PANEL], n_resamples=300, random_state=7)
    b = gap_at_zero(scores, [PANEL], n_resamples=300, random_state=7)
    c = gap_at_zero(scores, [PANEL], n_resamples=300, random_state=8)
    pd.testing.assert_frame_equal(a, b)
    assert a.loc[0, "low"] != c.loc[0, "low"]


def test_short_or_unmeasured_panels_are_kept_with_their_reason() -> None:
    scores = _planted(0.1, 0.05, noise=0.0, n=3)
    scores.loc[1, X] = np.nan  # 2 embeddings left with both numbers
    short, absent = gap_at_zero(
        scores, [PANEL, dict(PANEL, y="extrinsic:nope")], n_resamples=50, random_state=0
    ).itertuples()
    assert short.n == 2 and "fewer than 3" in short.skipped and np.isnan(short.gap_at_zero)
    assert absent.skipped == "extrinsic:nope measured on no embedding of this panel"
    flat = _planted(0.1, 0.05, noise=0.0, n=5).assign(**{X: 0.4})
    (row,) = gap_at_zero(flat, [PANEL], n_resamples=50, random_state=0).itertuples()
    assert "the same on every embedding" in row.skipped


def test_bad_input_says_what_is_wrong() -> None:
    scores = _planted(0.1, 0.05, noise=0.0)
    with pytest.raises(KeyError, match="lacks the keys \\['y'\\]"):
        gap_at_zero(scores, [{k: v for k, v in PANEL.items() if k != "y"}],
                    n_resamples=10, random_state=0)  # fmt: skip
    with pytest.raises(KeyError, match="modset"):
        gap_at_zero(scores.drop(columns="modset"), [PANEL], n_resamples=10, random_state=0)
    with pytest.raises((TypeError, ValueError), match="n_resamples"):
        gap_at_zero(scores, [PANEL], n_resamples=0, random_state=0)


def test_text_states_the_interval_against_zero_and_quotes_the_paper_on_its_family() -> None:
    paper = load_reported("kato2024")["gap_at_zero"]
    scores = pd.concat(
        [
            _planted(0.12, 0.05, noise=0.01),
            _planted(0.0, 0.05, noise=0.05).assign(family="hsd_gender"),
        ],
        ignore_index=True,
    )
    panels = [PANEL, dict(PANEL, family="hsd_gender")]
    table = gap_at_zero(scores, panels, n_resamples=400, random_state=0)
    coref, hsd = gap_at_zero_text(table).split("\n")
    assert coref.startswith("- **coreference, gender, word2vec**: fitted F1 gap at WEAT = 0: 0.12")
    assert "above 0: a WEAT of 0 still leaves a downstream gap" in coref
    assert f"Katô & Miyao: around {paper['value']:g}" in coref
    assert "includes 0" in hsd and "Katô & Miyao" not in hsd  # the paper has no HSD number
    short = gap_at_zero(scores.iloc[:2], [PANEL], n_resamples=10, random_state=0)
    assert "no gap at WEAT = 0: 2 embeddings" in gap_at_zero_text(short)


def test_doctests() -> None:
    failed, attempted = doctest.testmod(zero_weat, optionflags=doctest.NORMALIZE_WHITESPACE)[:2]
    assert attempted and not failed


def test_resamples_without_a_line_are_counted_not_warned(caplog) -> None:
    """Four embeddings: some resamples hold one WEAT value only (no line); they are dropped,
    counted in the table and named in the text, and nothing reaches the log."""
    scores = _planted(0.1, 0.05, noise=0.01, n=5).query("modset != 'weat'")
    with caplog.at_level("WARNING"):
        row = gap_at_zero(scores, [PANEL], n_resamples=2000, random_state=0).iloc[0]
    assert row["dropped"] > 0 and not caplog.records
    assert f"{int(row['dropped'])} resamples whose embeddings share one WEAT value" in (
        gap_at_zero_text(pd.DataFrame([row]))
    )
    assert gap_at_zero(_planted(0.1, 0.05, noise=0.01), [PANEL], n_resamples=200,
                       random_state=0).iloc[0]["dropped"] == 0  # fmt: skip
