"""Tests for nlpbias.studies.logan.estimator: the LOGAN estimator, merging, summaries, null and
topic words."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from sklearn.cluster import KMeans
from sklearn.datasets import make_blobs
from sklearn.metrics import roc_auc_score

from nlpbias.studies.logan import estimator as L
from nlpbias.studies.logan.estimator import (
    LOGAN,
    compare_with_kmeans,
    local_bias_summary,
    max_gap_null,
    random_split_gap,
    select_lambda,
    topic_words,
)


def _blobs(n: int = 600, centers: int = 5, seed: int = 0):
    X, comp = make_blobs(
        n_samples=n, centers=centers, n_features=4, cluster_std=2.5, random_state=seed
    )
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    y_pred = np.where(rng.random(n) < 0.8, y, 1 - y)
    group = rng.integers(0, 2, n)
    return X, y, y_pred, group


def _fit(est, X, y, y_pred, group):
    return est.fit(X, y_true=y, y_pred_or_score=y_pred, group=group)


# ------------------------------------------------------------------------ lam = 0 is K-Means
def test_lam0_equals_sklearn_kmeans_given_the_same_initial_centres():
    X, y, y_pred, group = _blobs()
    init = X[:5].copy()  # a poor start, so several iterations are needed
    km = KMeans(5, init=init, n_init=1, algorithm="lloyd", tol=1e-4).fit(X)
    lo = _fit(LOGAN(5, lam=0.0, init=init, min_group_size=0), X, y, y_pred, group)
    assert km.n_iter_ > 2
    np.testing.assert_array_equal(lo.labels_, km.labels_)
    np.testing.assert_allclose(lo.cluster_centers_, km.cluster_centers_, atol=1e-10)
    assert lo.inertia_ == pytest.approx(km.inertia_, rel=1e-12)
    assert lo.n_iter_ == km.n_iter_


@pytest.mark.parametrize("seed", [0, 1, 4])
def test_lam0_with_kmeans_plusplus_and_same_seed_reproduces_kmeans(seed):
    X, y, y_pred, group = _blobs()
    km = KMeans(5, n_init=1, algorithm="lloyd", random_state=seed).fit(X)
    lo = _fit(LOGAN(5, lam=0.0, min_group_size=0, random_state=seed), X, y, y_pred, group)
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
    km = _fit(LOGAN(lam=0.0, **kw), X, y, y_pred, group)
    lo = _fit(LOGAN(lam=100.0, **kw), X, y, y_pred, group)
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
    data = L._check_data(y, y_pred, group, metric="accuracy")
    fast = L._candidate_gaps(labels, data, k)
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
    data = L._check_data(y, y_pred, group, metric="accuracy")
    got = L._assign(X, centers, L._penalty(labels, data, k, lam))
    d2 = ((X[:, None, :] - centers[None]) ** 2).sum(axis=2)
    cost = d2 - lam * _brute_candidate_gaps(labels, group, (y == y_pred).astype(float), k) ** 2
    np.testing.assert_array_equal(got, cost.argmin(axis=1))
    assert not np.array_equal(got, d2.argmin(axis=1))  # the bias term changed something


# ------------------------------------------------------------------------------------ merging
def _merge_case(jitter_seed: int = 0):
    rng = np.random.default_rng(jitter_seed)
    a = np.c_[np.full(60, 6.0), np.zeros(60)]  # A: nearest to S (distance 1)
    s = np.c_[np.full(6, 5.0), np.zeros(6)]  # S: 3 + 3 members, below min_group_size
    b = np.c_[np.full(60, -5.0), np.zeros(60)]  # B: farthest (distance 10), least similar
    X = np.r_[a, s, b] + rng.normal(0, 0.05, (126, 2))
    group = np.r_[np.tile([0, 1], 30), np.tile([0, 1], 3), np.tile([0, 1], 30)]
    y = rng.integers(0, 2, 126)
    init = np.array([[6.0, 0.0], [5.0, 0.0], [-5.0, 0.0]])
    return X, y, group, init


def test_merge_goes_into_the_nearest_centroid_not_the_farthest():
    X, y, group, init = _merge_case()
    est = LOGAN(3, lam=0.0, init=init, min_group_size=20, min_clusters=1)
    est = _fit(est, X, y, y, group)
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
    X, y, group, init = _merge_case()
    est = _fit(LOGAN(3, lam=0.0, init=init, min_clusters=3), X, y, y, group)
    assert est.n_clusters_ == 3 and est.merges_.empty
    rep = est.cluster_report_
    assert rep["eligible"].tolist() == [True, False, True]
    assert rep["n_a1"].tolist() == [30, 3, 30]


# ------------------------------------------------------------------------ report and summary
def test_cluster_report_values_by_hand():
    X, y, group, init = _merge_case()
    y_pred = y.copy()
    y_pred[[0, 2, 4, 1]] = 1 - y_pred[[0, 2, 4, 1]]  # A: group 0 has 3 errors, group 1 has 1
    est = _fit(LOGAN(3, lam=0.0, init=init, min_clusters=3), X, y, y_pred, group)
    rep = est.cluster_report_
    assert rep.loc[0, "metric_a1"] == pytest.approx(27 / 30)
    assert rep.loc[0, "metric_a2"] == pytest.approx(29 / 30)
    assert rep.loc[0, "gap"] == pytest.approx(-2 / 30)
    assert rep.attrs["global_gap"] == pytest.approx((60 / 63) - (62 / 63))
    assert rep.attrs["groups"] == (0, 1)


def test_groups_fix_the_orientation_of_the_gap():
    X, y, group, init = _merge_case()
    y_pred = y.copy()
    y_pred[[0, 2, 4]] = 1 - y_pred[[0, 2, 4]]
    names = np.where(group == 0, "w", "b")
    kw = {"lam": 0.0, "init": init, "min_clusters": 3}
    a = _fit(LOGAN(3, **kw), X, y, y_pred, names).cluster_report_  # sorted: b, w
    b = _fit(LOGAN(3, groups=("w", "b"), **kw), X, y, y_pred, names).cluster_report_
    assert a.attrs["groups"] == ("b", "w") and b.attrs["groups"] == ("w", "b")
    assert a.loc[0, "gap"] == pytest.approx(3 / 30) == -b.loc[0, "gap"]


def _report():
    rep = pd.DataFrame(
        {
            "cluster": [0, 1, 2, 3, 4],
            "size": [100, 50, 30, 20, 40],
            "gap": [0.10, -0.06, 0.02, 0.50, -0.05],
            "eligible": [True, True, True, False, True],
        }
    )
    rep.attrs["global_gap"] = 0.012
    return rep


def test_local_bias_summary_bcr_bir_by_hand():
    s = local_bias_summary(_report())
    # eligible: 0, 1, 2, 4 (220 rows); biased (|gap| >= 5 points): 0, 1, 4 (190 rows)
    assert s["n_eligible"] == 4 and s["n_biased"] == 3
    assert s["bcr_pct"] == pytest.approx(75.0)
    assert s["bir_pct"] == pytest.approx(100 * 190 / 220)
    assert s["mean_abs_gap_biased_pts"] == pytest.approx((10 + 6 + 5) / 3)
    assert s["max_abs_gap_pts"] == pytest.approx(10.0)  # cluster 3 (50 points) is not eligible
    assert s["max_gap_cluster"] == 0
    assert s["global_gap_pts"] == pytest.approx(1.2)
    s = local_bias_summary(_report(), threshold=8.0)
    assert s["n_biased"] == 1 and s["bir_pct"] == pytest.approx(100 * 100 / 220)
    s = local_bias_summary(_report(), threshold=20.0)
    assert s["n_biased"] == 0 and s["mean_abs_gap_biased_pts"] is None


def test_local_bias_summary_rejects_bad_reports():
    with pytest.raises(ValueError, match="cluster_report_"):
        local_bias_summary(pd.DataFrame({"gap": [0.1]}))
    rep = _report()
    rep["eligible"] = False
    with pytest.raises(ValueError, match="no cluster is eligible"):
        local_bias_summary(rep)


def test_auc_metric_report_matches_sklearn_per_cluster():
    X, y, _, group = _blobs(400, 3, seed=2)
    rng = np.random.default_rng(2)
    score = np.clip(0.5 * y + rng.normal(0.25, 0.3, 400), 0, 1)
    est = _fit(LOGAN(3, lam=5.0, metric="auc", random_state=0, min_clusters=1), X, y, score, group)
    rep = est.cluster_report_
    for c in range(est.n_clusters_):
        for g, col in ((0, "metric_a1"), (1, "metric_a2")):
            sel = (est.labels_ == c) & (group == g)
            assert rep.loc[c, col] == pytest.approx(roc_auc_score(y[sel], score[sel]))
    whole = [roc_auc_score(y[group == g], score[group == g]) for g in (0, 1)]
    assert rep.attrs["global_gap"] == pytest.approx(whole[0] - whole[1])


def test_planted_local_bias_grows_the_biased_cluster_and_lambda_selection():
    # two blobs; in blob 0 half of group 1 is wrong, everything else is right
    rng = np.random.default_rng(5)
    X = np.r_[rng.normal(0, 1, (300, 2)), rng.normal(3, 1, (300, 2))]
    group = rng.integers(0, 2, 600)
    y = rng.integers(0, 2, 600)
    wrong = (np.arange(600) < 300) & (group == 1) & (rng.random(600) < 0.5)
    y_pred = np.where(wrong, 1 - y, y)
    est = LOGAN(4, lam=10.0, min_clusters=2, min_group_size=10, random_state=0)
    fit = {"y_true": y, "y_pred_or_score": y_pred, "group": group, "estimator": est}
    table = compare_with_kmeans(X, **fit)
    assert table.loc["K-Means", "inertia_ratio"] == 1.0 and table.loc["K-Means", "lam"] == 0.0
    km, lo = (
        _fit(
            LOGAN(4, lam=v, min_clusters=2, min_group_size=10, random_state=0), X, y, y_pred, group
        )
        for v in (0.0, 10.0)
    )
    assert table.loc["LOGAN", "inertia_ratio"] == pytest.approx(lo.inertia_ / km.inertia_)
    assert table.loc["LOGAN", "inertia_ratio"] > 1.0
    # the reward -lam * gap_k(x joins k)^2 pulls points into the most biased cluster
    top = {
        name: e.cluster_report_.sort_values("abs_gap").iloc[-1]
        for name, e in (("km", km), ("lo", lo))
    }
    assert top["lo"]["size"] > 1.5 * top["km"]["size"]
    assert top["lo"]["abs_gap"] > 0.4 and top["km"]["abs_gap"] > 0.4  # planted: 0.5
    lam, sel = select_lambda(X, **fit, grid=(1, 10, 50, 200))
    most = sel["n_biased"].max()
    assert lam == min(v for v in sel.index if sel.loc[v, "n_biased"] == most)
    assert sel.loc[10.0, "inertia_ratio"] == pytest.approx(lo.inertia_ / km.inertia_)
    assert sel.loc[10.0, "n_biased"] == local_bias_summary(lo.cluster_report_)["n_biased"]


# --------------------------------------------------------------------- null and random split
def test_max_gap_null_p_value_formula_and_determinism():
    X, y, y_pred, group = _blobs(300, 3, seed=1)
    est = LOGAN(3, lam=1.0, min_clusters=1, random_state=0)
    kw = {"y_true": y, "y_pred_or_score": y_pred, "group": group, "estimator": est}
    a = max_gap_null(X, **kw, n_permutations=15, random_state=7, show_progress=False)
    b = max_gap_null(X, **kw, n_permutations=15, random_state=7, show_progress=False)
    c = max_gap_null(X, **kw, n_permutations=15, random_state=8, show_progress=False)
    np.testing.assert_array_equal(a.null, b.null)
    assert a.p_value == b.p_value and not np.array_equal(a.null, c.null)
    assert a.p_value == pytest.approx(((a.null >= a.observed).sum() + 1) / 16)
    observed = local_bias_summary(_fit(est, X, y, y_pred, group).cluster_report_)
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


# -------------------------------------------------------------------------------- topic words
def test_topic_words_exclude_group_words():
    texts = [
        "black white people vote election president",
        "black voters election vote president party",
        "White African-American party election vote",
        "cooking recipe pasta sauce black pepper",
        "recipe pasta white sauce cooking garlic",
        "garlic pasta recipe sauce african-american cooking",
    ]
    labels = [0, 0, 0, 1, 1, 1]
    t = topic_words(
        texts, labels, n_words=4, exclude=["black", "white", "African-American"], random_state=0
    )
    assert not set(t["word"]) & {"black", "white", "african", "american"}
    assert set(t.loc[t.cluster == 0, "word"]) <= {
        "vote",
        "election",
        "president",
        "party",
        "people",
        "voters",
    }
    assert {"pasta", "recipe", "sauce", "cooking"} == set(t.loc[t.cluster == 1, "word"])
    assert t.groupby("cluster")["rank"].apply(list).tolist() == [[0, 1, 2, 3]] * 2
    with_group = topic_words(texts, labels, n_words=3, random_state=0)
    assert "black" in set(with_group["word"]) or "white" in set(with_group["word"])


def test_topic_words_bad_input():
    with pytest.raises(ValueError, match="one label per text"):
        topic_words(["a b"], [0, 1])
    with pytest.raises(TypeError, match="list of words"):
        topic_words(["aa bb"], [0], exclude="black")
    with pytest.raises(ValueError, match="no texts"):
        topic_words(["aa bb"], [0], clusters=[1])


# ---------------------------------------------------------------------------------- bad input
@pytest.mark.parametrize(
    ("kwargs", "data", "match"),
    [
        ({}, {"y_true": np.zeros(9)}, "has 9 rows but X has 10"),
        ({}, {"group": np.zeros(10)}, "exactly two values"),
        ({}, {"group": np.arange(10) % 3}, "exactly two values"),
        ({"metric": "acc"}, {}, "metric must be 'accuracy' or 'auc'"),
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
    X, y, group, init = _merge_case()
    with pytest.warns(RuntimeWarning, match="n_init=1"):
        _fit(LOGAN(3, init=init, n_init=3, min_clusters=3), X, y, y, group)


def test_n_init_keeps_the_lowest_objective():
    X, y, y_pred, group = _blobs(400, 6, seed=3)
    kw = {"lam": 2.0, "min_group_size": 0, "random_state": 0}
    runs = [_fit(LOGAN(6, n_init=1, **kw), X, y, y_pred, group)]
    rs = np.random.RandomState(0)
    best = _fit(LOGAN(6, n_init=4, **{**kw, "random_state": rs}), X, y, y_pred, group)
    singles = []
    rs = np.random.RandomState(0)
    from sklearn.cluster import kmeans_plusplus

    for _ in range(4):
        init = kmeans_plusplus(X, 6, random_state=rs)[0]
        singles.append(_fit(LOGAN(6, init=init, **kw), X, y, y_pred, group).objective_)
    assert best.objective_ == pytest.approx(min(singles))
    assert runs[0].objective_ == pytest.approx(singles[0])


def test_docstring_examples_run():
    import doctest

    failed, attempted = doctest.testmod(L, raise_on_error=False, verbose=False)[:2]
    assert attempted > 0 and failed == 0


def test_merge_drops_empty_clusters_without_nan_or_warning():
    import warnings

    rng = np.random.default_rng(0)
    X = np.vstack([rng.normal(0, 0.1, (60, 2)), rng.normal(5, 0.1, (60, 2))])
    group = np.tile([0, 1], 60)
    labels = np.repeat([0, 2], 60)  # cluster 1 (and 3) are empty after the assignment
    centers = np.array([[0.0, 0.0], [np.nan, np.nan], [5.0, 5.0], [np.nan, np.nan]])
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a mean over no rows would warn
        new_labels, new_centers, merges = L._merge(X, labels, centers, group, 20, 1)
    assert merges.empty and np.isfinite(new_centers).all()
    assert sorted(set(new_labels.tolist())) == [0, 1] and len(new_centers) == 2


def test_topic_words_skip_numbers_such_as_html_entity_codes():
    texts = ["love &#128514; &#128514; game 2014", "love game &#8220;win&#8221;"] * 10
    labels = np.zeros(20, dtype=int)
    words = L.topic_words(texts, labels, n_words=10, random_state=0)["word"].tolist()
    assert "love" in words and "game" in words
    assert not any(w.isdigit() for w in words)
