"""Tests for nlpbias.studies.logan.calibration: the permutation null and random-split gaps."""

from __future__ import annotations

import doctest

import numpy as np
import pytest
from logan_cases import blobs, fit

from nlpbias.studies.logan import calibration
from nlpbias.studies.logan.calibration import max_gap_null, random_split_gap
from nlpbias.studies.logan.estimator import LOGAN
from nlpbias.studies.logan.summaries import local_bias_summary


# --------------------------------------------------------------------- null and random split
def test_max_gap_null_p_value_formula_and_determinism():
    X, y, y_pred, group = blobs(300, 3, seed=1)
    est = LOGAN(3, lam=1.0, min_clusters=1, random_state=0)
    kw = {"y_true": y, "y_pred_or_score": y_pred, "group": group, "estimator": est}
    a = max_gap_null(X, **kw, n_permutations=15, random_state=7, show_progress=False)
    b = max_gap_null(X, **kw, n_permutations=15, random_state=7, show_progress=False)
    c = max_gap_null(X, **kw, n_permutations=15, random_state=8, show_progress=False)
    np.testing.assert_array_equal(a.null, b.null)
    assert a.p_value == b.p_value and not np.array_equal(a.null, c.null)
    assert a.p_value == pytest.approx(((a.null >= a.observed).sum() + 1) / 16)
    observed = local_bias_summary(fit(est, X, y, y_pred, group).cluster_report_)
    assert a.observed == pytest.approx(observed["max_abs_gap_pts"])
    assert len(a.null) == 15 and (a.null >= 0).all()


def test_max_gap_null_small_p_for_a_planted_gap():
    rng = np.random.default_rng(0)
    X = np.r_[rng.normal(0, 0.3, (100, 2)), rng.normal(5, 0.3, (100, 2))]
    group = np.tile([0, 1], 100)
    y = np.ones(200, dtype=int)
    y_pred = np.where((np.arange(200) < 100) & (group == 1), 0, 1)  # blob 0: group 1 all wrong
    est = LOGAN(2, lam=0.0, min_clusters=1, random_state=0)
    res = max_gap_null(
        X,
        y_true=y,
        y_pred_or_score=y_pred,
        group=group,
        estimator=est,
        n_permutations=19,
        random_state=0,
        show_progress=False,
    )
    assert res.observed == pytest.approx(100.0)
    assert res.null.max() < 100.0 and res.p_value == pytest.approx(1 / 20)


def test_random_split_gap_by_recomputation():
    rng = np.random.default_rng(1)
    y = rng.integers(0, 2, 101)
    y_pred = np.where(rng.random(101) < 0.7, y, 1 - y)
    group = np.r_[np.zeros(30), np.ones(71)]
    t = random_split_gap(y, y_pred, group=group, n_splits=4, random_state=3)
    assert list(t.columns) == [
        "split",
        "n_a1",
        "n_a2",
        "metric_a1",
        "metric_a2",
        "gap_pts",
        "abs_gap_pts",
    ]
    gen = np.random.default_rng(3)
    correct = y == y_pred
    for s in range(4):
        g = group[gen.permutation(101)]
        expected = 100 * (correct[g == 0].mean() - correct[g == 1].mean())
        assert t.loc[s, "gap_pts"] == pytest.approx(expected)
    assert (t["n_a1"] == 30).all() and (t["n_a2"] == 71).all()
    halves = random_split_gap(y, y_pred, n_splits=2, random_state=0)
    assert halves["n_a1"].tolist() == [51, 51] and halves["n_a2"].tolist() == [50, 50]


def test_docstring_examples_run():
    failed, attempted = doctest.testmod(calibration, raise_on_error=False, verbose=False)[:2]
    assert attempted > 0 and failed == 0
