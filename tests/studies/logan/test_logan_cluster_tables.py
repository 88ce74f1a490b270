"""Table 2 (subgroup AUC), the per-cluster tables (8, 9), the FPR gap and K-Means' topic words
(Tables 5, 6), on planted clusterings whose gaps are known by construction."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from nlpbias.studies.logan import study as ex
from nlpbias.studies.logan.cluster_tables import (
    cluster_table,
    cluster_tables,
    fpr_gap_table,
    largest_gap_table,
    rescore,
    table2,
    table2_of_clusters,
)
from nlpbias.studies.logan.estimator import LOGAN


def planted_auc() -> ex.LoganData:
    """Two far blobs of 80 rows (40 A, 40 B; 20 positive, 20 negative each).

    A's scores rank perfectly everywhere (AUC 1). B's rank perfectly in blob 1 but are all 0.5 in
    blob 0 (AUC 0.5, ties count 1/2). So blob 0's AUC gap is 0.5, blob 1's is 0, and B's pooled
    AUC is (20·40 + 20·20 + 20·20/2) / (40·40) = 0.875: a global gap of 0.125.
    """
    rng = np.random.default_rng(0)
    blob = np.repeat([0, 1], 80)
    X = np.c_[10.0 * blob, np.zeros(160)] + rng.normal(0, 0.1, (160, 2))
    group = np.tile(np.repeat(["A", "B"], 40), 2)
    y = np.tile(np.repeat([1, 0, 1, 0], 20), 2)
    score = np.where(y == 1, 0.9, 0.1)
    score[(blob == 0) & (group == "B")] = 0.5
    return ex.LoganData(X=X, y_true=y, y_pred=(score >= 0.5).astype(int), y_score=score,
                        groups={"g": pd.Series(group)}, pairs={"g": ("A", "B")},
                        source="test", texts=None)  # fmt: skip


KNOBS = {"n_clusters": 2, "lam_grid": (1,), "min_group_size": 5, "min_clusters": 1,
         "n_permutations": 9, "random_state": 0, "show_progress": False}  # fmt: skip


@pytest.fixture(scope="module")
def auc_run() -> dict:
    return ex.run_attribute(planted_auc(), "g", metric="auc", **KNOBS)


@pytest.fixture(scope="module")
def acc_run() -> dict:
    return ex.run_attribute(planted_auc(), "g", **KNOBS)


def test_table2_of_an_auc_run_has_the_planted_gaps(auc_run: dict) -> None:
    t2 = auc_run["table2"]
    assert "table1" not in auc_run and auc_run["metric"] == "auc"
    assert list(t2.columns) == ["auc_1", "auc_2", "bias"]
    assert t2.loc["Global"].tolist() == pytest.approx([1.0, 0.875, 0.125])
    for method in ("K-Means", "LOGAN"):
        assert t2.loc[method].tolist() == pytest.approx([1.0, 0.5, 0.5])
    # the null and the random splits are in AUC points too
    assert auc_run["null"].observed == pytest.approx(50.0)
    assert len(auc_run["null"].null) == 9
    assert auc_run["table4"].loc["LOGAN", "max_abs_gap_pts"] == pytest.approx(50.0)
    splits = auc_run["split_gaps"]
    assert splits["metric_a1"].between(0.5, 1.0).all()  # AUCs, not accuracies of 0/1 labels


def test_table2_reading_of_an_accuracy_fit_is_the_papers(acc_run: dict) -> None:
    # the paper's reading: the clusters of the accuracy fits, scored by subgroup AUC
    sub = acc_run["subset"]
    reports = [
        rescore(acc_run[k], y_true=sub["y_true"], y_pred_or_score=sub["y_score"],
                group=sub["group"], metric="auc")
        for k in ("kmeans", "logan")
    ]  # fmt: skip
    t2 = table2(*reports)
    assert t2.loc["Global", "bias"] == pytest.approx(0.125)
    assert t2.loc["LOGAN", "bias"] == pytest.approx(0.5)
    pd.testing.assert_frame_equal(table2_of_clusters(acc_run), t2)
    # the accuracy of 0/1 predictions: B is half right in blob 0, A always right
    assert acc_run["table1"].loc["LOGAN"].tolist() == pytest.approx([100.0, 50.0, 50.0])
    with pytest.raises(ValueError, match="scored by 'accuracy', not AUC"):
        table2(acc_run["kmeans"], acc_run["logan"])


def test_seed_spread_under_auc(acc_run: dict) -> None:
    rob = ex.run_robustness(planted_auc(), "g", path_grid=(1,), n_seeds=2, n_clusters=2,
                            min_group_size=5, min_clusters=1, random_state=0, metric="auc",
                            show_progress=False)  # fmt: skip
    assert set(rob["path"]["method"]) == {"K-Means", "LOGAN, paper's rule"}  # no exact AUC rule
    assert rob["spread"]["max_abs_gap_pts"].to_numpy() == pytest.approx(50.0)
    assert rob["summary"].loc["LOGAN, paper's rule", "gap_median"] == pytest.approx(50.0)


def test_cluster_table_and_largest_gap_table(acc_run: dict) -> None:
    both = cluster_tables(acc_run)
    assert list(both.index.names) == ["method", "cluster"]
    pd.testing.assert_frame_equal(both.loc["LOGAN"], cluster_table(acc_run["logan"]))
    assert list(both.columns) == ["n_a1", "n_a2", "metric_a1", "metric_a2", "bias", "eligible"]
    assert sorted(both.loc["LOGAN", "bias"].round(6)) == [0.0, 50.0]
    assert (both[["n_a1", "n_a2"]] == 40).all().all()
    lg = largest_gap_table(acc_run["kmeans"], acc_run["logan"], scale=100, prefix="acc")
    pd.testing.assert_frame_equal(lg, acc_run["table1"])
    with pytest.raises(ValueError, match="not a fitted LOGAN"):
        largest_gap_table(LOGAN(), acc_run["logan"], scale=1, prefix="x")


def planted_fpr() -> tuple[np.ndarray, ...]:
    """Three far blobs of 80 rows (40 per group, 20 true negatives per group).

    False positives among the 20 negatives: blob 0 A 2, B 10 (FPR 10 % vs 50 %: gap -40
    points); blob 1 A 6, B 2 (30 % vs 10 %: +20); blob 2 none. Globally 8/60 vs 12/60: -6.67.
    Positives are all predicted right, so accuracy gaps are FPR gaps halved with the sign
    flipped: blob 0 +20 points.
    """
    rng = np.random.default_rng(1)
    blob = np.repeat([0, 1, 2], 80)
    X = np.c_[10.0 * blob, np.zeros(240)] + rng.normal(0, 0.1, (240, 2))
    group = np.tile(np.repeat(["A", "B"], 40), 3)
    y = np.tile(np.r_[np.zeros(20), np.ones(20)], 6).astype(int)
    pred = y.copy()
    for b, fp in ((0, {"A": 2, "B": 10}), (1, {"A": 6, "B": 2})):
        for g, n in fp.items():
            neg = np.flatnonzero((blob == b) & (group == g) & (y == 0))
            pred[neg[:n]] = 1
    return X, y, pred, group, blob


def test_fpr_gap_on_planted_predictions() -> None:
    X, y, pred, group, blob = planted_fpr()
    data = ex.LoganData(X=X, y_true=y, y_pred=pred, y_score=pred.astype(float),
                        groups={"g": pd.Series(group)}, pairs={"g": ("A", "B")},
                        source="test")  # fmt: skip
    run = ex.run_attribute(data, "g", **{**KNOBS, "n_clusters": 3})
    table = fpr_gap_table(run)
    assert table.attrs["global_fpr_gap_pts"] == pytest.approx(100 * (8 - 12) / 60)
    for method in ("K-Means", "LOGAN"):
        t = table.loc[method]
        # the most accuracy-biased cluster comes first and is blob 0
        first = t.iloc[0]
        assert first["fit_gap_pts"] == pytest.approx(20.0)
        assert first[["fpr_a1", "fpr_a2", "fpr_gap_pts"]].tolist() == pytest.approx([10, 50, -40])
        assert sorted(t["fpr_gap_pts"].round(6)) == [-40.0, 0.0, 20.0]
        assert (t[["n_neg_a1", "n_neg_a2"]] == 20).all().all()
        assert t["eligible"].all()


def test_rescore_errors(acc_run: dict) -> None:
    sub = acc_run["subset"]
    args = {"y_true": sub["y_true"], "group": sub["group"]}
    with pytest.raises(ValueError, match="metric must be"):
        rescore(acc_run["logan"], y_pred_or_score=sub["y_pred"], metric="f1", **args)
    with pytest.raises(ValueError, match="not a fitted LOGAN"):
        rescore(LOGAN(), y_pred_or_score=sub["y_pred"], metric="fpr", **args)
    with pytest.raises(ValueError, match="0/1 y_true"):
        rescore(acc_run["logan"], y_true=2 * sub["y_true"], group=sub["group"],
                y_pred_or_score=sub["y_pred"], metric="fpr")  # fmt: skip
    with pytest.raises(ValueError, match="rows"):
        rescore(acc_run["logan"], y_true=sub["y_true"][:10], group=sub["group"][:10],
                y_pred_or_score=sub["y_pred"][:10], metric="accuracy")  # fmt: skip


def test_topic_word_table_reads_kmeans_too() -> None:
    rng = np.random.default_rng(0)
    texts = ["apple banana fruit"] * 60 + ["engine wheel car"] * 60
    X = np.vstack([rng.normal(0, 0.1, (60, 2)), rng.normal(5, 0.1, (60, 2))])
    group = np.tile(["A", "B"], 60)
    y = np.ones(120, int)
    pred = y.copy()
    pred[60:][group[60:] == "B"] = 0  # the second region is biased against B
    pred[61] = 1
    data = ex.LoganData(X=X, y_true=y, y_pred=pred, y_score=pred.astype(float),
                        groups={"g": pd.Series(group)}, pairs={"g": ("A", "B")},
                        source="test", texts=texts)  # fmt: skip
    r = ex.run_attribute(data, "g", n_clusters=2, lam_grid=(1,), min_group_size=5,
                         min_clusters=1, n_permutations=5, random_state=0,
                         show_progress=False)  # fmt: skip
    km = ex.topic_word_table({"g": r}, method="K-Means", n_words=2, random_state=0)
    assert set(km["method"]) == {"K-Means"}
    most = km.set_index("which").loc["most biased"]
    assert most["gap_pts"] == pytest.approx(100 - 100 / 30)
    assert set(most["words"].split(", ")) <= {"engine", "wheel", "car"}
    least = km.set_index("which").loc["least biased"]
    assert least["gap_pts"] == 0 and set(least["words"].split(", ")) <= {"apple", "banana", "fruit"}
    with pytest.raises(ValueError, match="method must be"):
        ex.topic_word_table({"g": r}, method="DBSCAN", random_state=0)


def test_table2_beside_the_papers(auc_run: dict, acc_run: dict) -> None:
    from nlpbias.data.reported import load_reported
    from nlpbias.studies.logan.prose import paper_comparison, table2_comparison, table2_rows

    paper = load_reported("zhao2020logan")
    runs = {"race": auc_run}
    t = table2_comparison(runs, paper)
    assert t.loc[("race", "LOGAN"), "auc_2"] == pytest.approx(0.5)
    assert t.loc[("race", "LOGAN"), "paper_auc_2"] == pytest.approx(0.691)
    assert t.loc[("race", "Global"), "paper_bias"] == pytest.approx(0.024)
    rows = table2_rows(runs, paper)
    assert rows["this run: race"].tolist() == ["0.125", "0.500", "0.500"]
    assert rows["paper: race"].tolist() == ["0.024", "0.157", "0.153"]
    assert rows["paper: gender"].tolist() == ["0.028", "0.094", "0.092"]
    # the rows go under the paper-vs-book table: same columns once the runs' attributes match
    acc = {"race": acc_run, "gender": acc_run}
    both = {"race": auc_run, "gender": auc_run}
    assert list(table2_rows(both, paper).columns) == list(paper_comparison(acc, paper).columns)
    with pytest.raises(ValueError, match="no 'table2' in the runs of race"):
        table2_rows({"race": acc_run}, paper)
    with pytest.raises(ValueError, match="no 'table2'"):
        table2_comparison({"race": acc_run}, paper)
