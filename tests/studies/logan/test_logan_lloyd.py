"""Tests for nlpbias.studies.logan.lloyd: candidate gaps and the assignment step by brute force."""

from __future__ import annotations

import numpy as np

from nlpbias.studies.logan.group_metrics import check_group_data
from nlpbias.studies.logan.lloyd import assign, candidate_gaps, penalty


def _brute_candidate_gaps(labels, group, correct, k):
    n = len(labels)
    out = np.zeros((n, k))
    for i in range(n):
        for j in range(k):
            members = (labels == j) | (np.arange(n) == i)
            acc = []
            for g in (0, 1):
                sel = members & (group == g)
                acc.append(correct[sel].mean() if sel.any() else np.nan)
            gap = acc[0] - acc[1]
            out[i, j] = 0.0 if np.isnan(gap) else gap
    return out


def test_running_count_candidate_gaps_equal_brute_force_recomputation():
    rng = np.random.default_rng(3)
    n, k = 40, 5
    labels = rng.integers(0, k, n)
    labels[labels == 4] = 3  # cluster 4 empty: its gap is undefined until someone joins
    group = rng.integers(0, 2, n)
    y = rng.integers(0, 2, n)
    y_pred = np.where(rng.random(n) < 0.6, y, 1 - y)
    data = check_group_data(y, y_pred, group, metric="accuracy")
    fast = candidate_gaps(labels, data, k)
    slow = _brute_candidate_gaps(labels, group, (y == y_pred).astype(float), k)
    np.testing.assert_allclose(fast, slow, atol=1e-12)


def test_assignment_step_minimises_distance_minus_lam_gap_squared():
    rng = np.random.default_rng(4)
    n, k, lam = 60, 4, 3.0
    X = rng.normal(size=(n, 3))
    centers = rng.normal(size=(k, 3))
    labels = rng.integers(0, k, n)
    group = rng.integers(0, 2, n)
    y = rng.integers(0, 2, n)
    y_pred = np.where(rng.random(n) < 0.7, y, 1 - y)
    data = check_group_data(y, y_pred, group, metric="accuracy")
    got = assign(X, centers, penalty(labels, data, k, lam))
    d2 = ((X[:, None, :] - centers[None]) ** 2).sum(axis=2)
    cost = d2 - lam * _brute_candidate_gaps(labels, group, (y == y_pred).astype(float), k) ** 2
    np.testing.assert_array_equal(got, cost.argmin(axis=1))
    assert not np.array_equal(got, d2.argmin(axis=1))  # the bias term changed something
