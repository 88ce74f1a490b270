"""Tests for nlpbias.studies.logan.estimator: the LOGAN estimator (K-Means at lam=0, the bias
term, merging as the estimator applies it, the cluster report, bad input)."""

from __future__ import annotations

import numpy as np
import pytest
from logan_cases import blobs, fit, merge_case
from sklearn.base import clone
from sklearn.cluster import KMeans
from sklearn.metrics import roc_auc_score

from nlpbias.studies.logan import estimator as L
from nlpbias.studies.logan.calibration import max_gap_null
from nlpbias.studies.logan.estimator import LOGAN, kmeanspp_starts


# ------------------------------------------------------------------------ lam = 0 is K-Means
def test_lam0_equals_sklearn_kmeans_given_the_same_initial_centres():
    X, y, y_pred, group = blobs()
    init = X[:5].copy()  # a poor start, so several iterations are needed
    km = KMeans(5, init=init, n_init=1, algorithm="lloyd", tol=1e-4).fit(X)
    lo = fit(LOGAN(5, lam=0.0, init=init, min_group_size=0), X, y, y_pred, group)
    assert km.n_iter_ > 2
    np.testing.assert_array_equal(lo.labels_, km.labels_)
    np.testing.assert_allclose(lo.cluster_centers_, km.cluster_centers_, atol=1e-10)
    assert lo.inertia_ == pytest.approx(km.inertia_, rel=1e-12)
    assert lo.n_iter_ == km.n_iter_


@pytest.mark.parametrize("seed", [0, 1, 4])
def test_lam0_with_kmeans_plusplus_and_same_seed_reproduces_kmeans(seed):
    X, y, y_pred, group = blobs()
    km = KMeans(5, n_init=1, algorithm="lloyd", random_state=seed).fit(X)
    lo = fit(LOGAN(5, lam=0.0, min_group_size=0, random_state=seed), X, y, y_pred, group)
    np.testing.assert_array_equal(lo.labels_, km.labels_)
    assert lo.inertia_ == pytest.approx(km.inertia_, rel=1e-12)


# ---------------------------------------------------------------------- the bias term at work
def _moving_point_case():
    # cluster A at 0: 5 + 5 correct points (gap 0); cluster B at 10: group 0 all correct,
    # group 1 4 of 5 correct (gap 0.2); point p at 5 (group 1, wrong) is nearer A.
    X = np.r_[np.zeros(10), np.full(10, 10.0), [5.0]][:, None]
    group = np.r_[np.tile([0, 1], 5), np.tile([0, 1], 5), [1]]
    correct = np.r_[np.ones(10), np.ones(10), [0]]
    correct[11] = 0  # one wrong group-1 point in B
    y = np.ones(21, dtype=int)
    y_pred = np.where(correct == 1, 1, 0)
    return X, y, y_pred, group


def test_gap_term_moves_a_point_to_the_cluster_it_makes_more_biased():
    X, y, y_pred, group = _moving_point_case()
    init = np.array([[0.0], [10.0]])
    kw = {"n_clusters": 2, "init": init, "min_group_size": 0, "min_clusters": 1}
    km = fit(LOGAN(lam=0.0, **kw), X, y, y_pred, group)
    lo = fit(LOGAN(lam=100.0, **kw), X, y, y_pred, group)
    # lam = 0: p joins A (d^2 20.7 vs 25); lam = 100: joining B raises gap_B from 0.2 to 1/3,
    # cost 25 - 100/9 = 13.9 < 20.7 - 100/36 = 17.9 for staying in A (gap_A 1/6)
    assert km.labels_[20] == km.labels_[0] != km.labels_[10]
    assert lo.labels_[20] == lo.labels_[10] != lo.labels_[0]
    rep = lo.cluster_report_.set_index("cluster")
    assert rep.loc[lo.labels_[10], "gap"] == pytest.approx(1 - 4 / 6)
    assert rep.loc[lo.labels_[0], "gap"] == pytest.approx(0.0)
    assert lo.objective_ == pytest.approx(lo.inertia_ - 100.0 * (1 / 3) ** 2)
    # either way 10 points at one end and p: 10 * (5/11)^2 + (50/11)^2 = 2750/121
    assert lo.inertia_ == pytest.approx(2750 / 121) == km.inertia_


# ------------------------------------------------------------------------------------ merging
def test_merge_goes_into_the_nearest_centroid_not_the_farthest():
    X, y, group, init = merge_case()
    est = LOGAN(3, lam=0.0, init=init, min_group_size=20, min_clusters=1)
    est = fit(est, X, y, y, group)
    # the original code merges into argmin of the dot product: B here (S.A = 30, S.B = -25)
    assert est.n_clusters_ == 2
    assert (est.labels_[60:66] == est.labels_[0]).all()
    assert est.labels_[0] != est.labels_[70]
    assert est.merges_[["source", "target"]].values.tolist() == [[1, 0]]
    assert est.merges_.loc[0, "distance"] == pytest.approx(1.0, abs=0.05)
    merged = est.cluster_centers_[est.labels_[0]]
    np.testing.assert_allclose(merged, X[:66].mean(axis=0))
    rest = X[66:] - X[66:].mean(axis=0)
    assert est.inertia_ == pytest.approx(((X[:66] - merged) ** 2).sum() + (rest**2).sum())
    assert est.cluster_report_["eligible"].all()


def test_merging_stops_at_min_clusters_and_flags_small_clusters():
    X, y, group, init = merge_case()
    est = fit(LOGAN(3, lam=0.0, init=init, min_clusters=3), X, y, y, group)
    assert est.n_clusters_ == 3 and est.merges_.empty
    rep = est.cluster_report_
    assert rep["eligible"].tolist() == [True, False, True]
    assert rep["n_a1"].tolist() == [30, 3, 30]


# ------------------------------------------------------------------------ report and summary
def test_cluster_report_values_by_hand():
    X, y, group, init = merge_case()
    y_pred = y.copy()
    y_pred[[0, 2, 4, 1]] = 1 - y_pred[[0, 2, 4, 1]]  # A: group 0 has 3 errors, group 1 has 1
    est = fit(LOGAN(3, lam=0.0, init=init, min_clusters=3), X, y, y_pred, group)
    rep = est.cluster_report_
    assert rep.loc[0, "metric_a1"] == pytest.approx(27 / 30)
    assert rep.loc[0, "metric_a2"] == pytest.approx(29 / 30)
    assert rep.loc[0, "gap"] == pytest.approx(-2 / 30)
    assert rep.attrs["global_gap"] == pytest.approx((60 / 63) - (62 / 63))
    assert rep.attrs["groups"] == (0, 1)


def test_groups_fix_the_orientation_of_the_gap():
    X, y, group, init = merge_case()
    y_pred = y.copy()
    y_pred[[0, 2, 4]] = 1 - y_pred[[0, 2, 4]]
    names = np.where(group == 0, "w", "b")
    kw = {"lam": 0.0, "init": init, "min_clusters": 3}
    a = fit(LOGAN(3, **kw), X, y, y_pred, names).cluster_report_  # sorted: b, w
    b = fit(LOGAN(3, groups=("w", "b"), **kw), X, y, y_pred, names).cluster_report_
    assert a.attrs["groups"] == ("b", "w") and b.attrs["groups"] == ("w", "b")
    assert a.loc[0, "gap"] == pytest.approx(3 / 30) == -b.loc[0, "gap"]


def test_auc_metric_report_matches_sklearn_per_cluster():
    X, y, _, group = blobs(400, 3, seed=2)
    rng = np.random.default_rng(2)
    score = np.clip(0.5 * y + rng.normal(0.25, 0.3, 400), 0, 1)
    est = fit(LOGAN(3, lam=5.0, metric="auc", random_state=0, min_clusters=1), X, y, score, group)
    rep = est.cluster_report_
    for c in range(est.n_clusters_):
        for g, col in ((0, "metric_a1"), (1, "metric_a2")):
            sel = (est.labels_ == c) & (group == g)
            assert rep.loc[c, col] == pytest.approx(roc_auc_score(y[sel], score[sel]))
    whole = [roc_auc_score(y[group == g], score[group == g]) for g in (0, 1)]
    assert rep.attrs["global_gap"] == pytest.approx(whole[0] - whole[1])


# ---------------------------------------------------------------------------------- bad input
@pytest.mark.parametrize(
    ("kwargs", "data", "match"),
    [
        ({}, {"y_true": np.zeros(9)}, "has 9 rows but X has 10"),
        ({}, {"group": np.zeros(10)}, "exactly two values"),
        ({}, {"group": np.arange(10) % 3}, "exactly two values"),
        ({"metric": "acc"}, {}, r"metric must be one of \['accuracy', 'auc'\]"),
        ({}, {"y_pred_or_score": np.linspace(0, 1, 10)}, "look like scores"),
        ({"metric": "auc"}, {"y_true": np.arange(10) % 3}, "binary y_true"),
        ({"groups": ("a", "z")}, {}, "outside groups"),
        ({"min_clusters": 3}, {}, "min_clusters=3 exceeds n_clusters=2"),
        ({"n_clusters": 11, "min_clusters": 1}, {}, "exceeds the 10 rows"),
        ({"init": np.zeros((3, 2))}, {}, "init must be"),
        ({"lam": -1.0}, {}, "lam must be"),
        ({}, {"group": np.array(["a"] * 5 + [None] * 5, dtype=object)}, "missing values"),
    ],
)
def test_bad_input_raises_one_line_errors(kwargs, data, match):
    rng = np.random.default_rng(0)
    base = {
        "y_true": np.tile([0, 1], 5),
        "y_pred_or_score": np.tile([0, 1], 5),
        "group": np.repeat(["a", "b"], 5),
    }
    base.update(data)
    est = LOGAN(**{"n_clusters": 2, "min_clusters": 1, **kwargs})
    with pytest.raises(ValueError, match=match) as err:
        est.fit(rng.normal(size=(10, 2)), **base)
    assert "\n" not in str(err.value)


def test_bad_X_raises_one_line_error():
    X = np.ones((10, 2))
    X[0, 0] = np.nan
    with pytest.raises(ValueError, match="X must be a finite 2-D numeric array") as err:
        LOGAN(2, min_clusters=1).fit(
            X, y_true=np.zeros(10), y_pred_or_score=np.zeros(10), group=np.arange(10) % 2
        )
    assert "\n" not in str(err.value)


def test_array_init_with_n_init_warns_and_runs_once():
    X, y, group, init = merge_case()
    with pytest.warns(RuntimeWarning, match="n_init=1"):
        fit(LOGAN(3, init=init, n_init=3, min_clusters=3), X, y, y, group)


def test_n_init_keeps_the_lowest_objective():
    X, y, y_pred, group = blobs(400, 6, seed=3)
    kw = {"lam": 2.0, "min_group_size": 0, "random_state": 0}
    runs = [fit(LOGAN(6, n_init=1, **kw), X, y, y_pred, group)]
    rs = np.random.RandomState(0)
    best = fit(LOGAN(6, n_init=4, **{**kw, "random_state": rs}), X, y, y_pred, group)
    singles = []
    rs = np.random.RandomState(0)
    from sklearn.cluster import kmeans_plusplus

    for _ in range(4):
        init = kmeans_plusplus(X, 6, random_state=rs)[0]
        singles.append(fit(LOGAN(6, init=init, **kw), X, y, y_pred, group).objective_)
    assert best.objective_ == pytest.approx(min(singles))
    assert runs[0].objective_ == pytest.approx(singles[0])


def test_docstring_examples_run():
    import doctest

    failed, attempted = doctest.testmod(L, raise_on_error=False, verbose=False)[:2]
    assert attempted > 0 and failed == 0


# --------------------------------------------------------------------- k-means++ starts kept
def _no_kept_starts(monkeypatch) -> None:
    monkeypatch.setattr(L, "_STARTS_KEPT", 0)
    monkeypatch.setattr(L, "_STARTS", [])


def test_kept_kmeanspp_starts_give_bit_identical_fits(monkeypatch):
    """The permutation null, the λ grid and the seed spread reuse the k-means++ starts of equal
    rows and seed: every number must be exactly what drawing the starts afresh gives."""
    X, y, y_pred, group = blobs(400, 4, seed=3)
    X = X.astype(np.float32)
    est = LOGAN(4, lam=5.0, min_clusters=1, n_init=2, random_state=11)
    kw = {"y_true": y, "y_pred_or_score": y_pred, "group": group, "estimator": est}

    def outputs():
        null = max_gap_null(X, **kw, n_permutations=12, random_state=5, show_progress=False)
        fits = [
            clone(est)
            .set_params(lam=lam, rule=rule)
            .fit(X, y_true=y, y_pred_or_score=y_pred, group=group)
            for lam in (0.0, 5.0, 50.0)
            for rule in ("paper", "exact")
        ]
        return null, fits

    L._STARTS.clear()
    kept_null, kept_fits = outputs()
    assert L._STARTS  # the starts were kept and reused
    _no_kept_starts(monkeypatch)
    fresh_null, fresh_fits = outputs()
    assert not L._STARTS
    np.testing.assert_array_equal(kept_null.null, fresh_null.null)
    assert kept_null.observed == fresh_null.observed
    for a, b in zip(kept_fits, fresh_fits, strict=True):
        np.testing.assert_array_equal(a.labels_, b.labels_)
        np.testing.assert_array_equal(a.cluster_centers_, b.cluster_centers_)
        assert a.objective_ == b.objective_ and a.inertia_ == b.inertia_


def test_kept_starts_need_equal_rows_and_an_int_seed():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(50, 3))
    L._STARTS.clear()
    first = kmeanspp_starts(X, 3, 2, 4)
    assert kmeanspp_starts(X.copy(), 3, 2, 4) is first  # equal rows, another array: kept
    assert not first[0].flags.writeable
    other = X.copy()
    other[7, 1] += 1e-9
    assert kmeanspp_starts(other, 3, 2, 4) is not first
    assert kmeanspp_starts(X, 3, 2, 5) is not first
    assert kmeanspp_starts(X, 3, 1, 4) is not first
    state = np.random.RandomState(4)
    again = kmeanspp_starts(X, 3, 2, state)
    assert again is not first
    np.testing.assert_array_equal(again[0], first[0])  # same draw, not kept
    assert len(L._STARTS) <= L._STARTS_KEPT
