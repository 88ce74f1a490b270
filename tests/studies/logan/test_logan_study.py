"""The LOGAN study on the synthetic stand-in: the planted biased region is found."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from nlpbias.studies.logan import study as ex


@pytest.fixture(scope="module")
def run() -> dict:
    data = ex.load_logan_data(use_data_home=False, max_rows=None, max_train=None,
                              classifier="frozen", classifier_params={}, n_synthetic=3000,
                              random_state=0, feature_sets=["fine-tuned"])  # fmt: skip
    return {"data": data, **ex.run_attribute(data, "planted", n_clusters=10,
                                             lam_grid=(1, 5, 10, 100), min_group_size=20,
                                             n_permutations=20, random_state=0,
                                             show_progress=False)}  # fmt: skip


def test_logan_finds_the_planted_region_while_the_global_gap_stays_small(run: dict) -> None:
    t1 = run["table1"]
    assert t1.loc["Global", "bias"] < 4  # points
    assert t1.loc["LOGAN", "bias"] > 20
    rep = run["logan"].cluster_report_
    top = rep.loc[rep[rep["eligible"]]["abs_gap"].idxmax(), "cluster"]
    region = run["data"].truth["region"][run["subset"]["index"]]
    labels = run["logan"].labels_
    assert np.mean(labels[region == 0] == top) > 0.9  # the planted region lands in one cluster
    assert np.mean(region[labels == top] == 0) > 0.9  # and that cluster is mostly the region


def test_tables_and_null(run: dict) -> None:
    assert list(run["table1"].index) == ["Global", "K-Means", "LOGAN"]
    assert run["table4"].loc["K-Means", "inertia_ratio"] == 1.0
    assert run["lam"] in (1, 5, 10, 100)
    null = run["null"]
    assert len(null.null) == 20 and null.p_value == pytest.approx(
        (np.sum(null.null >= null.observed) + 1) / 21
    )


def test_bad_requests(run: dict) -> None:
    with pytest.raises(KeyError, match="unknown attribute 'race'"):
        run["data"].subset("race")
    with pytest.raises(ValueError, match="classifier must be"):
        ex.load_logan_data(use_data_home=False, max_rows=None, max_train=None, classifier="bert",
                           classifier_params={}, n_synthetic=100, random_state=0,
                           feature_sets=["fine-tuned"])  # fmt: skip
    knobs = {
        "classifier": "frozen",
        "classifier_params": {},
        "n_synthetic": 100,
        "random_state": 0,
        "feature_sets": ["fine-tuned"],
    }
    with pytest.raises(ValueError, match="max_rows must be"):
        ex.load_logan_data(use_data_home=True, max_rows=0, max_train=None, **knobs)
    with pytest.raises(ValueError, match="max_train must be"):
        ex.load_logan_data(use_data_home=True, max_rows=None, max_train=1.5, **knobs)


def test_topic_word_table_needs_texts_and_reads_clusters() -> None:
    rng = np.random.default_rng(0)
    texts = ["apple banana fruit"] * 60 + ["engine wheel car"] * 60
    X = np.vstack([rng.normal(0, 0.1, (60, 2)), rng.normal(5, 0.1, (60, 2))])
    group = np.tile(["A", "B"], 60)
    y = np.ones(120, int)
    pred = y.copy()
    pred[60:][group[60:] == "B"] = 0  # the second region is biased against B
    pred[61] = 1  # one B right there: a gap below 100 points (a gap of 100 is degenerate)
    data = ex.LoganData(X=X, y_true=y, y_pred=pred, y_score=pred.astype(float),
                        groups={"g": pd.Series(group)}, pairs={"g": ("A", "B")},
                        source="test", texts=texts)  # fmt: skip
    r = ex.run_attribute(data, "g", n_clusters=2, lam_grid=(1,), min_group_size=5,
                         min_clusters=1, n_permutations=5, random_state=0,
                         show_progress=False)  # fmt: skip
    table = ex.topic_word_table({"g": r}, exclude=["car"], random_state=0)
    most = table.set_index("which").loc["most biased"]
    assert most["gap_pts"] == pytest.approx(100 - 100 / 30) and "engine" in most["words"]
    assert "car" not in most["words"]
    # every B wrong in the region: a gap of 100 points, a degenerate fit, whose words are not read
    pred[61] = 0
    r100 = ex.run_attribute(data, "g", n_clusters=2, lam_grid=(1,), min_group_size=5,
                            min_clusters=1, n_permutations=5, random_state=0,
                            show_progress=False)  # fmt: skip
    assert r100["table4"].loc["LOGAN", "degenerate"] == "largest gap 100 points"
    assert ex.topic_word_table({"g": r100}, random_state=0).empty
    r["subset"]["texts"] = None
    with pytest.raises(ValueError, match="no texts"):
        ex.topic_word_table({"g": r}, random_state=0)


def test_paper_comparison_puts_ours_beside_the_papers(run: dict) -> None:
    from nlpbias.data.reported import load_reported
    from nlpbias.studies.logan import paper_comparison

    paper = load_reported("zhao2020logan")
    table = paper_comparison({"planted": run}, paper)
    assert list(table.columns) == ["this run: planted", "paper: race", "paper: gender"]
    ours = table["this run: planted"]
    assert ours["largest LOGAN cluster gap (points)"] == f"{run['table1'].loc['LOGAN', 'bias']:.1f}"
    assert table.loc["largest LOGAN cluster gap (points)", "paper: race"] == "21.5"
    assert table.loc["BCR, LOGAN (%)", "paper: race"] == "75.0"
    assert table.loc["BCR, LOGAN (%)", "paper: gender"] == "not reported"  # race only
    assert not table.isin(["nan"]).any().any()  # no all-NaN rows of a missing attribute
