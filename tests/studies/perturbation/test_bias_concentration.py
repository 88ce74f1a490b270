"""Tests for nlpbias.studies.perturbation.bias_concentration: how much of the summed |ΔB| the top
documents hold."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from nlpbias.studies.perturbation.bias_concentration import (
    concentration,
    concentration_interval,
    concentration_sentence,
    cumulative_share,
    even_share,
)


def test_cumulative_share_hand_computed():
    out = cumulative_share([1.0, -4.0, 0.0, 3.0])
    assert list(out.columns) == ["top_fraction", "share"]
    np.testing.assert_allclose(out["top_fraction"], [0.25, 0.5, 0.75, 1.0])
    np.testing.assert_allclose(out["share"], [4 / 8, 7 / 8, 1.0, 1.0])
    np.testing.assert_allclose(cumulative_share(pd.Series([2.0]))["share"], [1.0])


def test_concentration_hand_computed():
    d = np.r_[10.0, -5.0, np.ones(98)]  # total |ΔB| = 113
    out = concentration(d, tops=[0.01, 0.02, 0.1, 1.0])
    assert out.name == "share"
    assert out.index.tolist() == ["top 1%", "top 2%", "top 10%", "top 100%"]
    np.testing.assert_allclose(out.to_numpy(), [10 / 113, 15 / 113, 23 / 113, 1.0])
    # fewer documents than 1/top: the top document still counts
    assert concentration([1.0, 3.0], tops=[0.01]).iloc[0] == pytest.approx(0.75)


@pytest.mark.parametrize("bad", [[], [0.0, 0.0], [1.0, np.nan], [np.inf, 1.0]])
def test_cumulative_share_errors(bad, one_line):
    with pytest.raises(ValueError) as err:
        cumulative_share(bad)
    one_line(err)
    with pytest.raises(ValueError):
        concentration(bad)


@pytest.mark.parametrize("top", [0.0, -0.1, 1.5])
def test_concentration_bad_tops(top, one_line):
    with pytest.raises(ValueError, match="tops") as err:
        concentration([1.0, 2.0], tops=[top])
    one_line(err)


# -- the share expected without concentration


def test_even_share_hand_computed():
    # 200 documents, 40 carry ΔB: the top 1 % (2 docs) would hold 2/40, the top 10 % 20/40,
    # the top 50 % (100 docs) everything: only 40 documents can carry any of it
    d = np.r_[np.linspace(-3, 3, 40), np.zeros(160)]  # 40 values, none of them 0
    assert np.count_nonzero(d) == 40
    out = even_share(d, tops=[0.01, 0.1, 0.5])
    assert out.name == "even share" and out.index.tolist() == ["top 1%", "top 10%", "top 50%"]
    np.testing.assert_allclose(out.to_numpy(), [2 / 40, 20 / 40, 1.0])
    # it depends on how many documents carry ΔB, not on their values
    np.testing.assert_allclose(even_share(np.where(d != 0, 7.0, 0.0), tops=[0.1]), [0.5])
    # every document carries ΔB: the top fraction itself (the old "all documents equal" line)
    np.testing.assert_allclose(even_share(np.ones(1000), tops=[0.01, 0.1]), [0.01, 0.1])


def test_even_share_is_concentration_of_an_even_spread():
    d = np.r_[np.full(37, 2.5), np.zeros(263)]
    np.testing.assert_allclose(
        even_share(d, tops=[0.01, 0.1]).to_numpy(), concentration(d, tops=[0.01, 0.1]).to_numpy()
    )


@pytest.mark.parametrize("bad", [[], [0.0, 0.0], [1.0, np.nan]])
def test_even_share_errors(bad, one_line):
    with pytest.raises(ValueError) as err:
        even_share(bad)
    one_line(err)


def _tables():
    # a: 100 of 1,000 documents carry ΔB, ten of them most of it; b: 500 carry equal ΔB
    a = pd.DataFrame({"delta_b": np.r_[np.full(10, 50.0), -np.ones(90), np.zeros(900)]})
    b = pd.DataFrame({"delta_b": np.r_[np.ones(500), np.zeros(500)]})
    return {"a": a, "b": b}


def test_concentration_interval_carries_the_even_share():
    ci = concentration_interval(_tables(), n_resamples=300, random_state=0)
    # even: a → top 10 (of 100 carriers) 0.1, top 100 → 1.0; b → 10/500, 100/500
    np.testing.assert_allclose(ci["even"], [(0.1 + 0.02) / 2, (1.0 + 0.2) / 2])
    assert ci["nonzero"].tolist() == pytest.approx([0.3, 0.3])
    assert ci["n_documents"].tolist() == [1000, 1000] and ci["n_wordsets"].tolist() == [2, 2]


def test_concentration_sentence_compares_with_the_even_share():
    ci = concentration_interval(_tables(), n_resamples=300, random_state=0)
    text = concentration_sentence(ci)
    assert text.startswith("Of the 1,000 documents, 30.0 % have ΔB ≠ 0 (the mean over 2 word sets)")
    # top 1 %: a → 500/590, b → 10/500; mean 0.434 against an even 0.06: the interval lies above
    # top 10 %: a → 1.0, b → 0.2; mean 0.6 against an even 0.6: not above
    first, second = text.split("The top 1% of documents hold ")[1].split("The top 10%")
    assert first.startswith(f"{100 * (500 / 590 + 0.02) / 2:.3g} [")
    assert "would hold 6 %" in first and "**exceeds**" in first
    assert "here 43.4 − 6 = 37.4" in first
    assert "would hold 60 %" in second and "**does not exceed**" in second
    assert "i.e. the whole 95 % interval lies above it; here 60 − 60 = 0" in second
    with pytest.raises(KeyError, match="even"):
        concentration_sentence(ci.drop(columns="even"))
