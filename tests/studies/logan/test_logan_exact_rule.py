"""The exact assignment rule of LOGAN: a descent step on the paper's objective."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.cluster import KMeans

from nlpbias.studies.logan import LOGAN
from nlpbias.studies.logan.group_metrics import check_group_data, current_gaps
from nlpbias.studies.logan.lloyd import _update, assign, penalty


def _objective(X: np.ndarray, labels: np.ndarray, centers: np.ndarray, data, lam: float) -> float:  # noqa: ANN001
    """inertia - lam * sum_k gap_k^2 for fixed centres (gap 0 where a group is empty)."""
    inertia = float(((X - centers[labels]) ** 2).sum())
    return inertia - lam * float((current_gaps(labels, data, len(centers)) ** 2).sum())


def test_exact_rule_picks_the_move_that_lowers_the_objective_most() -> None:
    # brute force: for every point, move it to every cluster (centres fixed) and evaluate the
    # objective; the exact rule's choice is the argmin, the paper's rule often is not
    rng = np.random.default_rng(3)
    n, k, lam = 60, 4, 0.8
    X = rng.normal(0, 1, (n, 2))
    data = check_group_data(rng.integers(0, 2, n), np.ones(n, int), rng.integers(0, 2, n),
                            metric="accuracy")  # fmt: skip
    labels = rng.integers(0, k, n)
    centers = rng.normal(0, 1, (k, 2))
    brute = np.empty((n, k))
    for i in range(n):
        for j in range(k):
            moved = labels.copy()
            moved[i] = j
            brute[i, j] = _objective(X, moved, centers, data, lam)
    exact = assign(X, centers, penalty(labels, data, k, lam, "exact"))
    np.testing.assert_array_equal(exact, brute.argmin(axis=1))
    paper = assign(X, centers, penalty(labels, data, k, lam, "paper"))
    assert (paper != brute.argmin(axis=1)).any()  # the two rules do differ here


def test_planted_case_the_exact_rule_raises_sum_of_squared_gaps_at_each_step() -> None:
    # one tight blob (distances do not matter) of 16 points in two clusters; the exact rule
    # sorts the groups' right and wrong answers apart step by step (sum gap^2: 0.007 -> 0.56
    # -> 2.0, the maximum for two clusters) while the paper's rule pulls every point into the
    # cluster with the largest gap and ends with one cluster and no gap at all
    X = np.array([-0.012, -0.024, 0.005, -0.003, -0.005, -0.002, 0.018, -0.0,
                  0.001, -0.015, 0.016, 0.009, 0.011, 0.0, 0.009, 0.004])[:, None]  # fmt: skip
    group = [1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 1, 0, 0, 1, 0, 1]
    correct = [1, 0, 1, 0, 1, 1, 1, 1, 1, 1, 1, 0, 1, 1, 1, 1]
    data = check_group_data(correct, np.ones(16, int), group, metric="accuracy")
    start = np.random.default_rng(0).integers(0, 2, 16)

    def path(rule: str) -> list[float]:
        labels = start.copy()
        centers, _ = _update(X, labels, np.zeros((2, 1)), 2)
        sums = [float((current_gaps(labels, data, 2) ** 2).sum())]
        for _ in range(10):
            new = assign(X, centers, penalty(labels, data, 2, 2.0, rule))
            if np.array_equal(new, labels):
                break
            labels = new
            centers, _ = _update(X, labels, centers, 2)
            sums.append(float((current_gaps(labels, data, 2) ** 2).sum()))
        return sums

    exact = path("exact")
    assert len(exact) >= 3 and all(b > a for a, b in zip(exact, exact[1:], strict=False))
    assert exact[-1] == pytest.approx(2.0)
    assert path("paper")[-1] < path("paper")[0]


@pytest.mark.parametrize("rule", ["paper", "exact"])
def test_lam_zero_is_kmeans_for_both_rules(rule: str) -> None:
    rng = np.random.default_rng(1)
    X = np.r_[rng.normal(0, 1, (80, 3)), rng.normal(4, 1, (80, 3))]
    init = X[[0, 50, 100, 150]]
    est = LOGAN(n_clusters=4, lam=0.0, rule=rule, init=init, min_group_size=0, min_clusters=4)
    est.fit(X, y_true=np.zeros(160), y_pred_or_score=np.zeros(160), group=np.tile([0, 1], 80))
    km = KMeans(n_clusters=4, init=init, n_init=1, algorithm="lloyd").fit(X)
    np.testing.assert_array_equal(est.labels_, km.labels_)
    assert est.inertia_ == pytest.approx(km.inertia_)
    assert est.converged_


def test_exact_rule_refuses_auc_and_an_unknown_rule_in_one_line() -> None:
    X = np.zeros((4, 1))
    args = dict(y_true=[0, 1, 0, 1], y_pred_or_score=[0.1, 0.9, 0.2, 0.8], group=[0, 0, 1, 1])
    with pytest.raises(ValueError, match="rule='exact' needs metric='accuracy'"):
        LOGAN(n_clusters=1, min_clusters=1, metric="auc", rule="exact").fit(X, **args)
    with pytest.raises(ValueError, match="rule"):
        LOGAN(n_clusters=1, min_clusters=1, rule="greedy").fit(X, **args)


def test_a_fit_that_stops_at_max_iter_says_so() -> None:
    rng = np.random.default_rng(2)
    X = rng.normal(0, 1, (200, 2))
    args = dict(y_true=rng.integers(0, 2, 200), y_pred_or_score=np.ones(200, int),
                group=rng.integers(0, 2, 200))  # fmt: skip
    one = LOGAN(n_clusters=5, lam=0.0, max_iter=1, min_group_size=0, random_state=0).fit(X, **args)
    assert not one.converged_ and one.n_iter_ == 1
    many = LOGAN(n_clusters=5, lam=0.0, max_iter=300, min_group_size=0, random_state=0).fit(
        X, **args
    )
    assert many.converged_ and many.n_iter_ < 300


def test_select_lambda_never_picks_a_fit_that_did_not_converge_or_collapsed() -> None:
    from nlpbias.studies.logan.summaries import select_lambda

    rng = np.random.default_rng(4)
    n = 400
    X = rng.normal(0, 1, (n, 2))
    group = rng.integers(0, 2, n)
    correct = (rng.random(n) < np.where(X[:, 0] > 1, 0.3, 0.9)).astype(int)  # a biased corner
    args = dict(y_true=correct, y_pred_or_score=np.ones(n, int), group=group)
    est = LOGAN(n_clusters=6, min_clusters=3, min_group_size=10, random_state=0)
    _, table = select_lambda(X, **args, estimator=est, grid=(0.5, 1e6))
    assert {"converged", "degenerate", "usable"} <= set(table.columns)
    # a huge lam swamps the distances: every point chases the gap and the fit is unusable
    assert not table.loc[1e6, "usable"]
    lam, _ = select_lambda(X, **args, estimator=est, grid=(0.5, 1e6))
    assert lam == 0.5
    est_one = est.set_params(max_iter=1)
    _, none = select_lambda(X, **args, estimator=est_one, grid=(0.5,))
    assert not none["usable"].any() and "no lam" in none.attrs["note"]
