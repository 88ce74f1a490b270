"""Tests for nlpbias.studies.perturbation.bias_concentration: how much of the summed |ΔB| the top
documents hold."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from nlpbias.studies.perturbation.bias_concentration import concentration, cumulative_share


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
