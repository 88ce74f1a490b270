"""The stated criteria behind words in prose: each holds exactly when its rule says."""

import numpy as np
import pytest
from scipy import stats

from nlpbias.core.criteria import (
    Interval,
    differs,
    exceeds,
    paired_bootstrap_difference,
    separates,
)


@pytest.mark.parametrize(
    ("a", "b", "holds"),
    [
        (Interval(0.40, 0.35, 0.45), Interval(1.24, 1.10, 1.38), True),
        (Interval(1.24, 1.10, 1.38), Interval(0.40, 0.35, 0.45), True),  # symmetric
        (Interval(0.02, 0.0, 0.045), Interval(0.1, 0.045, 0.2), False),  # touching overlaps
        (Interval(0.3, 0.1, 0.5), Interval(0.4, 0.2, 0.6), False),
        (Interval(0.3, 0.1, 0.9), Interval(0.4, 0.3, 0.5), False),  # nested
    ],
)
def test_separates_is_non_overlap_of_the_intervals(a, b, holds):
    out = separates(a, b, yes="lower", no="not lower")
    assert out.holds is holds
    assert bool(out) is holds
    assert out.word == ("lower" if holds else "not lower")
    assert "do not overlap" in out.criterion
    assert a.text() in out.detail and b.text() in out.detail


def test_separates_refuses_a_missing_or_reversed_interval():
    with pytest.raises(ValueError, match="finite"):
        separates(Interval(0.1, float("nan"), 0.2), Interval(0.5, 0.4, 0.6))
    with pytest.raises(ValueError, match="above high"):
        separates(Interval(0.1, 0.3, 0.2), Interval(0.5, 0.4, 0.6))


def test_exceeds_uses_the_stated_margin():
    # the figure-2 case: 0.894 vs 0.887 is not "found" against a 0.02 yardstick
    assert not exceeds(0.894, 0.887, margin=0.02).holds
    assert exceeds(0.95, 0.887, margin=0.02).holds
    out = exceeds(
        0.387, 0.0, margin=0.5, margin_name="the interval's width", yes="moved", no="not moved"
    )
    assert out.word == "not moved"
    assert "the interval's width, 0.5" in out.criterion
    assert exceeds(1.0, 0.5, margin=0.5).holds is False  # equal to the margin is not more
    with pytest.raises(ValueError, match="margin must be >= 0"):
        exceeds(1.0, 0.5, margin=-0.1)


def _rho(m):
    return float(stats.spearmanr(m[:, 0], m[:, 1])[0])


def test_paired_bootstrap_difference_finds_a_real_difference_and_not_a_null_one():
    rng = np.random.default_rng(1)
    target = rng.normal(size=60)
    close = np.c_[target + rng.normal(scale=0.2, size=60), target]
    noise = np.c_[rng.normal(size=60), target]
    d = paired_bootstrap_difference(close, noise, statistic=_rho, n_bootstrap=400, random_state=0)
    assert d.low <= d.estimate <= d.high
    assert d.estimate == pytest.approx(_rho(close) - _rho(noise))
    assert differs(d).holds
    # two measures equally related to the target: the difference's interval covers 0
    other = np.c_[target + rng.normal(scale=0.2, size=60), target]
    same = paired_bootstrap_difference(
        close, other, statistic=_rho, n_bootstrap=400, random_state=0
    )
    assert not differs(same, yes="better", no="no better").holds
    assert differs(same, yes="better", no="no better").word == "no better"


def test_paired_bootstrap_difference_is_paired_and_seeded():
    rng = np.random.default_rng(2)
    t = rng.normal(size=30)
    x = np.c_[t + rng.normal(scale=0.5, size=30), t]
    a = paired_bootstrap_difference(x, x, statistic=_rho, n_bootstrap=200, random_state=3)
    assert (a.estimate, a.low, a.high) == (0.0, 0.0, 0.0)  # the same rows for both: no spread
    y = np.c_[rng.normal(size=30), t]
    b1 = paired_bootstrap_difference(x, y, statistic=_rho, n_bootstrap=200, random_state=3)
    b2 = paired_bootstrap_difference(x, y, statistic=_rho, n_bootstrap=200, random_state=3)
    assert b1 == b2


@pytest.mark.filterwarnings("ignore::scipy.stats.ConstantInputWarning")
def test_paired_bootstrap_difference_errors():
    x = np.zeros((5, 2))
    with pytest.raises(ValueError, match="same rows"):
        paired_bootstrap_difference(x, x[:4], statistic=_rho, n_bootstrap=10, random_state=0)
    with pytest.raises(ValueError, match="at least 3 rows"):
        paired_bootstrap_difference(x[:2], x[:2], statistic=_rho, n_bootstrap=10, random_state=0)
    with pytest.raises(ValueError, match="constant column"):
        paired_bootstrap_difference(x, x, statistic=_rho, n_bootstrap=10, random_state=0)


def test_interval_text_rounds_floating_noise():
    assert Interval(8.5e-17, -0.1, 0.2).text() == "0 [-0.1, 0.2]"
    assert Interval(0.40351, 0.35, 0.45).text(2) == "0.4 [0.35, 0.45]"
