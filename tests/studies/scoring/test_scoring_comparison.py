"""Tests for nlpbias.studies.scoring.comparison (our bias beside seed 003's)."""

from __future__ import annotations

import doctest

import numpy as np
import pandas as pd
import pytest

from nlpbias.studies.scoring import comparison
from nlpbias.studies.scoring.comparison import REASONS, paper_comparison, sign_agreement


def test_doctests() -> None:
    failed, attempted = doctest.testmod(comparison, raise_on_error=False, verbose=False)[:2]
    assert attempted > 0 and failed == 0


@pytest.mark.parametrize(
    ("value", "low", "high", "sign", "agree", "reason"),
    [
        (-0.3, -0.5, -0.1, -1, True, "agrees"),
        (0.3, 0.1, 0.5, 1, True, "agrees"),
        (0.3, 0.1, 0.5, -1, False, "opposite"),
        # the base model's career on paper: negative like the paper's −0.435, but the interval
        # (−0.30, 0.34) includes zero, so the sign is not established and cannot agree
        (-0.0036, -0.3049, 0.3381, -1, False, "includes 0"),
        (0.2, 0.0, 0.4, 1, False, "includes 0"),  # an end at exactly 0 does not exclude it
        (-0.38, np.nan, np.nan, -1, False, "no interval"),
        (-0.3, -0.5, -0.1, None, None, "silent"),
        (-0.3, -0.5, -0.1, 0, None, "silent"),
    ],
)
def test_a_sign_agrees_only_where_the_interval_excludes_zero(
    value, low, high, sign, agree, reason
) -> None:
    assert sign_agreement(value, low, high, sign) == (agree, REASONS[reason])


def test_sign_agreement_errors(one_line) -> None:
    with pytest.raises(ValueError, match="paper_sign must be") as err:
        sign_agreement(0.1, 0.0, 0.2, 2)
    one_line(err)
    with pytest.raises(ValueError, match="reversed") as err:
        sign_agreement(0.1, 0.2, 0.0, 1)
    one_line(err)


def test_paper_comparison_signs_values_and_reasons() -> None:
    table = pd.DataFrame(
        {"model": ["base", "base", "base", "Trump", "Trump", "you"],
         "attribute": ["career", "leader", "average", "family", "average", "career"],
         "bias": [-0.0036, -0.6, 0.1, -0.3, -0.05, 1.0],
         "ci_low": [-0.30, -0.8, np.nan, -0.5, np.nan, 0.5],
         "ci_high": [0.34, -0.4, np.nan, -0.1, np.nan, 1.5]}
    )  # fmt: skip
    rep = {"base_bias": {"career": -0.43, "leader": -0.1, "average": -0.1},
           "average": {"Trump": -0.082}, "directions": {"Trump": {"family": 1}}}  # fmt: skip
    cmp = paper_comparison(table, rep, base_label="base")
    assert list(cmp["model"]) == ["base"] * 3 + ["Trump"] * 2  # "you" has no paper
    # career has the paper's sign but an interval around 0: not agreeing (it used to be True)
    assert list(cmp["agree"]) == [False, True, False, False, False]
    assert list(cmp["why"]) == [
        REASONS["includes 0"], REASONS["agrees"], REASONS["no interval"],
        REASONS["opposite"], REASONS["no interval"],
    ]  # fmt: skip
    assert cmp["paper value"].iloc[0] == -0.43
    assert np.isnan(cmp["paper value"].iloc[3])
    assert cmp["paper sign"].iloc[3] == 1
    np.testing.assert_allclose(cmp["ci_low"].iloc[:2], [-0.30, -0.8])


def test_paper_comparison_leaves_agree_empty_where_the_paper_is_silent() -> None:
    table = pd.DataFrame(
        {"model": ["Trump"], "attribute": ["pleasant"], "bias": [-0.2], "ci_low": [-0.3],
         "ci_high": [-0.1]}
    )  # fmt: skip
    cmp = paper_comparison(table, {"base_bias": {}, "directions": {}}, base_label="base")
    assert cmp["agree"].iloc[0] is None and cmp["why"].iloc[0] == REASONS["silent"]


def test_paper_comparison_needs_the_intervals(one_line) -> None:
    table = pd.DataFrame({"model": ["base"], "attribute": ["career"], "bias": [-0.2]})
    with pytest.raises(KeyError, match=r"lacks \['ci_low', 'ci_high'\]") as err:
        paper_comparison(table, {"base_bias": {}}, base_label="base")
    one_line(err)
