"""Tests for nlpbias.studies.intrinsic_extrinsic.hsd: metrics by hand and against sklearn, fixtures
in the original file formats, a synthetic end-to-end run, and a small run on the real Davidson
tweets."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from gensim.models import KeyedVectors
from sklearn.metrics import f1_score, precision_score, recall_score, roc_auc_score

from nlpbias.models.classifiers import KimCNNClassifier
from nlpbias.studies.intrinsic_extrinsic.hsd import (
    GAP_METRICS,
    HSD_PAIRS,
    HSDSplit,
    evaluate_hsd,
    group_metrics,
    hsd_data,
    hsd_gaps,
)


# ----------------------------------------------------------------------------- group_metrics
def test_group_metrics_by_hand():
    # group a: TP=1 (row 0), FN=1 (row 1), FP=1 (row 2); group b: TP=1, TN=1
    table = group_metrics([1, 1, 0, 1, 0], [1, 0, 1, 1, 0], ["a", "a", "a", "b", "b"])
    assert table.index.name == "group" and table.index.tolist() == ["a", "b"]
    assert list(table.columns) == [
        "precision",
        "recall",
        "f1",
        "n",
        "positives",
        "predicted_positives",
    ]
    assert table.loc["a"].tolist() == [0.5, 0.5, 0.5, 3, 2, 2]
    assert table.loc["b"].tolist() == [1.0, 1.0, 1.0, 2, 1, 1]
    # precision 1/3, recall 1: F1 = 2 * (1/3) / (4/3) = 0.5
    t = group_metrics([0, 0, 1, 1], [1, 1, 1, 0], ["x", "x", "x", "y"], labels=["x"])
    assert t.loc["x", "precision"] == pytest.approx(1 / 3)
    assert t.loc["x", "recall"] == 1.0 and t.loc["x", "f1"] == pytest.approx(0.5)


def test_group_metrics_matches_sklearn_per_group():
    gen = np.random.default_rng(0)
    y_true = gen.integers(0, 2, 300).astype(bool)
    y_pred = np.where(gen.random(300) < 0.7, y_true, ~y_true)
    groups = gen.choice(["male", "female", "none"], 300)
    table = group_metrics(y_true, y_pred, pd.Series(groups, index=np.arange(300) + 1000))
    assert table.index.tolist() == ["female", "male", "none"]  # sorted by default
    for g in table.index:
        m = groups == g
        assert table.loc[g, "precision"] == pytest.approx(precision_score(y_true[m], y_pred[m]))
        assert table.loc[g, "recall"] == pytest.approx(recall_score(y_true[m], y_pred[m]))
        assert table.loc[g, "f1"] == pytest.approx(f1_score(y_true[m], y_pred[m]))
        assert table.loc[g, "n"] == m.sum() and table.loc[g, "positives"] == y_true[m].sum()


def test_group_metrics_labels_pick_and_order_groups():
    table = group_metrics([1, 1, 0, 1], [1, 1, 0, 0], ["b", "a", "c", "b"], labels=["b", "a"])
    assert table.index.tolist() == ["b", "a"]
    assert table.loc["b", "recall"] == 0.5 and table.loc["a", "recall"] == 1.0


def test_group_metrics_errors_are_one_line(one_line):
    y, p, g = [1, 0, 1, 0], [1, 0, 0, 0], ["a", "a", "b", "b"]
    cases = [
        (dict(labels=["z"]), "group 'z' has no members"),
        (dict(labels=[]), "no groups"),
        (dict(labels="a"), "single string"),
        (dict(zero_division="warn"), "zero_division"),
    ]
    for kw, words in cases:
        with pytest.raises((ValueError, TypeError)) as err:
            group_metrics(y, p, g, **kw)
        assert words in one_line(err)
    with pytest.raises(ValueError) as err:  # group b: a positive, never predicted
        group_metrics(y, p, g)
    assert "group 'b' has no predicted positives" in one_line(err)
    table = group_metrics(y, p, g, zero_division=0.0)
    assert table.loc["b", "precision"] == 0.0 and table.loc["b", "f1"] == 0.0
    assert not table.isna().any().any()
    with pytest.raises(ValueError) as err:
        group_metrics([1, 0, 0], [1, 0, 1], ["a", "a", "b"])
    assert "group 'b' has no positive examples" in one_line(err)
    for args, words in [
        (([1, 2], [1, 0], ["a", "a"]), "0/1 or bool"),
        ((["y", "n"], [1, 0], ["a", "a"]), "0/1 or bool"),
        (([1, 0], [1, 0, 1], ["a", "a"]), "one length"),
        (([1, 0], [1, 0], ["a", None]), "missing"),
    ]:
        with pytest.raises(ValueError) as err:
            group_metrics(*args)
        assert words in one_line(err)


# ----------------------------------------------------------------------------- hsd_gaps
def _table(values: dict[tuple[str, str], float]) -> pd.DataFrame:
    idx = pd.MultiIndex.from_tuples(list(values), names=["attribute", "group"])
    v = np.array(list(values.values()))
    return pd.DataFrame({"precision": v, "recall": v / 2, "f1": v / 4}, index=idx)


def test_gaps_sign_convention():
    table = _table(
        {
            ("gender", "female"): 0.6,
            ("gender", "male"): 0.9,
            ("gender", "none"): 0.1,
            ("dialect", "AA-aligned"): 0.8,
            ("dialect", "white-aligned"): 0.4,
        }
    )
    gaps = hsd_gaps(table)
    assert gaps.name == "gap"
    assert gaps.index.tolist() == [f"{a}_{m}" for a in HSD_PAIRS for m in GAP_METRICS]
    assert gaps["gender_precision"] == pytest.approx(0.9 - 0.6)  # male - female
    assert gaps["gender_f1"] == pytest.approx((0.9 - 0.6) / 4)
    assert gaps["dialect_precision"] == pytest.approx(0.4 - 0.8)  # white - AA
    assert gaps["dialect_recall"] == pytest.approx((0.4 - 0.8) / 2)
    assert HSD_PAIRS == {"gender": ("male", "female"), "dialect": ("white-aligned", "AA-aligned")}
    assert hsd_gaps(table, metrics=["f1"]).index.tolist() == ["gender_f1", "dialect_f1"]


def test_gaps_errors(one_line):
    full = {
        ("gender", "male"): 0.9,
        ("gender", "female"): 0.6,
        ("dialect", "white-aligned"): 0.4,
        ("dialect", "AA-aligned"): 0.8,
    }
    no_aa = {k: v for k, v in full.items() if k[1] != "AA-aligned"}
    with_nan = _table(full)
    with_nan.loc[("gender", "male"), "recall"] = np.nan
    cases = [
        (lambda: hsd_gaps(_table(no_aa)), "no row ('dialect', 'AA-aligned')"),
        (lambda: hsd_gaps(_table(full), metrics=["auc"]), "lacks metric columns"),
        (lambda: hsd_gaps(_table(full), metrics="f1"), "single string"),
        (lambda: hsd_gaps(with_nan), "missing recall"),
        (lambda: hsd_gaps(_table(full).reset_index(drop=True)), "(attribute, group)"),
    ]
    for call, words in cases:
        with pytest.raises((ValueError, TypeError)) as err:
            call()
        assert words in one_line(err)


# ----------------------------------------------------------------------------- hsd_data
# TwitterAAE fixture: counts per topic (AA, Hispanic, Asian, White), columns sum to 20.
DIALECT_FIXTURE = {"yo": (9, 1, 1, 1), "finna": (7, 1, 1, 1), "hello": (1, 1, 1, 9)}
DIALECT_FIXTURE["the"] = (3, 17, 17, 9)
GENDER_WORDS = ["he", "she", "", "he and she"]  # male, female, none, both
DIALECT_WORDS = ["yo finna", "hello hello"]  # AA-aligned, white-aligned


def _fixture_files(folder: Path) -> tuple[Path, Path]:
    """40 Davidson rows in the original schema (13/14/13 hate/offensive/neither) and a model."""
    rows = []
    for i in range(40):
        cls = i % 3
        words = [GENDER_WORDS[i % 4], ["hate", "ugly", "lovely"][cls], DIALECT_WORDS[i % 5 % 2]]
        votes = [3 if cls == c else 0 for c in range(3)]
        rows.append([100 + i, 3, *votes, cls, " ".join(w for w in words if w)])
    cols = ["", "count", "hate_speech", "offensive_language", "neither", "class", "tweet"]
    csv = folder / "labeled_data.csv"
    pd.DataFrame(rows, columns=cols).to_csv(csv, index=False)
    model = folder / "aae"
    model.mkdir()
    counts = "".join("\t".join(map(str, c)) + "\n" for c in DIALECT_FIXTURE.values())
    (model / "model_count_table.txt").write_text(counts, encoding="utf-8")
    vocab = "".join(f"{10 - i}\t{w}\n" for i, w in enumerate(DIALECT_FIXTURE))
    (model / "model_vocab.txt").write_text(vocab, encoding="utf-8")
    return csv, model


@pytest.fixture
def files(tmp_path: Path) -> dict[str, Path]:
    csv, model = _fixture_files(tmp_path)
    return {"davidson_path": csv, "dialect_path": model}


def test_hsd_data_on_fixture_files(files):
    train, test = split = hsd_data(test_size=0.25, **files)
    assert isinstance(split, HSDSplit) and split.test is test
    assert len(train) == 30 and len(test) == 10
    assert set(train.index) | set(test.index) == set(range(100, 140))
    assert not set(train.index) & set(test.index)
    assert list(train.columns) == ["text", "toxic", "label"]
    assert list(test.columns) == ["text", "toxic", "label", "gender", "dialect"]
    # stratified by the 3-way label: 13/14/13 → 3 or 4 of each in a test set of 10
    assert test["label"].value_counts().between(3, 4).all()
    assert (test["toxic"] == test["label"].isin(["hate", "offensive"])).all()
    i = test.index.to_numpy() - 100
    expected_gender = np.array(["male", "female", "none", "both"])[i % 4]
    expected_dialect = np.array(["AA-aligned", "white-aligned"])[i % 5 % 2]
    assert test["gender"].tolist() == expected_gender.tolist()
    assert test["dialect"].tolist() == expected_dialect.tolist()
    again = hsd_data(test_size=0.25, **files)
    pd.testing.assert_frame_equal(again.test, test)
    other = hsd_data(test_size=0.25, random_state=1, **files)
    assert set(other.test.index) != set(test.index)


def test_hsd_data_max_rows_and_errors(files, one_line):
    train, test = hsd_data(max_rows=20, test_size=0.3, **files)
    assert len(train) + len(test) == 20 and len(test) == 6
    for kw, exc, words in [
        (dict(test_size=1.0), ValueError, "test_size"),
        (dict(max_rows=5), ValueError, "max_rows must be an integer >= 20"),
        (dict(max_rows=2.5), ValueError, "max_rows must be an integer"),
        (dict(random_state=None), ValueError, "random_state"),
        (dict(test_size=0.02), ValueError, "cannot split"),
    ]:
        with pytest.raises(exc) as err:
            hsd_data(**(files | kw))
        assert words in one_line(err)


# ----------------------------------------------------------------------------- evaluate_hsd
def _synthetic(seed: int, n: int) -> pd.DataFrame:
    """Tweets: a gender word, a dialect word, toxic iff an insult is present (~70 %)."""
    gen = np.random.default_rng(seed)
    toxic = gen.random(n) < 0.7
    gender = gen.choice(["male", "female", "none"], n)
    dialect = gen.choice(["AA-aligned", "white-aligned"], n)
    words = {"male": "he", "female": "she", "none": "they"}
    texts = [
        f"{words[g]} {'yo' if d == 'AA-aligned' else 'hello'} "
        f"{gen.choice(['idiot', 'moron']) if t else gen.choice(['lovely', 'kind'])} so"
        for t, g, d in zip(toxic, gender, dialect, strict=True)
    ]
    return pd.DataFrame({"text": texts, "toxic": toxic, "gender": gender, "dialect": dialect})


@pytest.fixture(scope="module")
def synthetic_kv() -> KeyedVectors:
    words = ["he", "she", "they", "yo", "hello", "idiot", "moron", "lovely", "kind", "so"]
    vectors = np.random.default_rng(3).normal(size=(len(words), 6)).astype(np.float32)
    kv = KeyedVectors(vector_size=6)
    kv.add_vectors(words, vectors)
    return kv


def test_evaluate_hsd_end_to_end_on_synthetic_data(synthetic_kv):
    train, test = _synthetic(0, 400), _synthetic(1, 300)
    kw = dict(n_filters=8, max_epochs=4, learning_rate=0.01, device="cpu")
    out = evaluate_hsd(synthetic_kv, data=(train, test), random_state=0, **kw)
    assert set(out) == {"overall", "groups", "gaps", "fit_time", "best_epoch"}
    # Same seed and parameters again, by hand: the tables are the metrics of its predictions.
    clf = KimCNNClassifier(embedding=synthetic_kv, random_state=0, show_progress=False, **kw)
    clf.fit(train["text"].tolist(), train["toxic"].to_numpy())
    score = clf.predict_proba(test["text"].tolist())[:, 1]
    pred, y = score >= 0.5, test["toxic"].to_numpy()
    overall = out["overall"]
    assert overall["f1"] == pytest.approx(f1_score(y, pred))
    assert overall["auc"] == pytest.approx(roc_auc_score(y, score)) and overall["auc"] > 0.95
    assert overall["accuracy"] == pytest.approx((pred == y).mean())
    assert overall["n"] == 300 and overall["positives"] == y.sum()
    groups = out["groups"]
    assert groups.index.names == ["attribute", "group"]
    assert groups.index.tolist() == [(a, g) for a, pair in HSD_PAIRS.items() for g in pair]
    for (attr, g), row in groups.iterrows():
        m = (test[attr] == g).to_numpy()
        assert row["n"] == m.sum() and row["positives"] == y[m].sum()
        assert row["recall"] == pytest.approx(recall_score(y[m], pred[m]))
        assert row["precision"] == pytest.approx(precision_score(y[m], pred[m]))
    gaps = out["gaps"]
    f1 = groups["f1"]
    assert gaps["gender_f1"] == pytest.approx(f1["gender", "male"] - f1["gender", "female"])
    assert gaps["dialect_f1"] == pytest.approx(
        f1["dialect", "white-aligned"] - f1["dialect", "AA-aligned"]
    )
    assert out["fit_time"] > 0 and 1 <= out["best_epoch"] <= 4


def test_evaluate_hsd_bad_input(synthetic_kv, one_line):
    train, test = _synthetic(0, 40), _synthetic(1, 30)
    for kw, exc, words in [
        (dict(data=(train,)), TypeError, "(train, test) pair"),
        (dict(data=(train, test.drop(columns="dialect"))), ValueError, "lacks columns"),
        (dict(data=(train, test.to_dict())), TypeError, "must be a DataFrame"),
        (dict(data=(train, test), threshold=1.5), ValueError, "threshold"),
    ]:
        with pytest.raises(exc) as err:
            evaluate_hsd(synthetic_kv, **kw)
        assert words in one_line(err)


def test_evaluate_hsd_on_real_davidson_subsample(use_data_home):
    from nlpbias.models.embeddings import load_glove_50d

    data = hsd_data(max_rows=1500)
    train, test = data
    assert len(test) == 300 and len(train) == 1200
    assert {"male", "female"} <= set(test["gender"])
    assert {"AA-aligned", "white-aligned"} <= set(test["dialect"])
    out = evaluate_hsd(load_glove_50d(), data=data, max_epochs=3, random_state=0)
    assert out["overall"]["auc"] > 0.8  # beats chance clearly on 1,200 training tweets
    sizes = out["groups"]["n"]
    assert sizes["gender", "male"] == (test["gender"] == "male").sum()
    assert sizes["dialect", "AA-aligned"] == (test["dialect"] == "AA-aligned").sum()
    assert np.isfinite(out["gaps"]).all() and len(out["gaps"]) == 6
