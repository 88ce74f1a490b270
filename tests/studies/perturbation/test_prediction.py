"""Tests for nlpbias.studies.perturbation.prediction: predicting the biasing documents."""

from __future__ import annotations

import doctest

import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import roc_auc_score

from nlpbias.studies.perturbation import prediction as pr
from nlpbias.studies.perturbation.documents import prepare

QUERY_DOCS = pd.DataFrame(
    {
        "title": ["d0", "d1", "d2"],
        "text": [
            "he met art x x x x x x x x x math she",
            "x x x x",
            "she art she",
        ],
    }
)


def test_weighted_auc_is_the_auc_of_the_resampled_documents():
    rng = np.random.default_rng(0)
    scores = rng.integers(0, 5, size=60).astype(float)  # many ties
    labels = rng.random(60) < 0.3
    draws = rng.integers(0, 60, size=60)
    w = np.bincount(draws, minlength=60).astype(float)[None, :]
    got = pr._weighted_auc(scores, labels, w)[0]
    assert got == pytest.approx(roc_auc_score(labels[draws], scores[draws]), abs=1e-12)
    ones = np.ones((1, 60))
    assert pr._weighted_auc(scores, labels, ones)[0] == pytest.approx(
        roc_auc_score(labels, scores), abs=1e-12
    )


def test_document_features_hand_counted():
    from nlpbias.metrics.query import Query

    query = Query(
        targets={"science": ["math"], "arts": ["art"]},
        attributes={"male": ["he"], "female": ["she"]},
    )
    p = prepare(QUERY_DOCS, min_count=1, window=3, max_size=None, show_progress=False)
    f = pr.document_features(p, query, max_missing=0.0, random_state=0)
    assert f["tokens"].tolist() == [14, 4, 3]
    assert f["target_1"].tolist() == [1, 0, 0]  # math
    assert f["target_2"].tolist() == [1, 0, 1]  # art
    assert f["attribute_1"].tolist() == [1, 0, 0]  # he
    assert f["attribute_2"].tolist() == [1, 0, 2]  # she
    assert f["test_words"].tolist() == [4, 0, 3]
    # d0: art (pos 2) meets he (pos 0), math (12) meets she (13), not he; d2: art meets both she
    assert f["pairs"].tolist() == [2, 0, 2]


def _planted(n: int, driver: str, seed: int = 0):
    rng = np.random.default_rng(seed)
    words = rng.poisson(3, n) + 1
    pairs = rng.binomial(words, 0.5)
    features = pd.DataFrame(
        {
            "tokens": rng.integers(100, 1000, n),
            "target_1": words // 2,
            "target_2": words - words // 2,
            "attribute_1": 0,
            "attribute_2": 0,
            "test_words": words,
            "pairs": pairs,
        }
    )
    signal = words if driver == "count" else pairs - words / 2
    delta = 0.01 * (signal + 0.3 * rng.normal(size=n))
    table = pd.DataFrame({"delta_b": delta})
    topics = pd.DataFrame({"topic_0": rng.normal(size=n)})
    return {"t": table}, {"t": features}, topics


def test_features_beyond_the_count_help_only_when_they_drive_delta_b():
    tables, feats, topics = _planted(3000, "pairs")
    kw = {"top": 0.05, "n_splits": 5, "n_resamples": 200, "random_state": 0}
    out = pr.predict_biasing(tables, feats, topics, **kw).loc["t"]
    assert out["biasing"] == 150 and out["documents"] == 3000
    assert out["gain_low"] > 0.05  # the meetings, not the count, decide: the model wins
    tables, feats, topics = _planted(3000, "count")
    out = pr.predict_biasing(tables, feats, topics, **kw).loc["t"]
    assert out["auc_baseline"] > 0.9  # the count alone ranks the documents
    assert out["gain_low"] < 0 < out["gain_high"] or out["gain_high"] < 0.03


def test_predict_biasing_only_documents_with_a_word_and_deterministic():
    tables, feats, topics = _planted(600, "pairs")
    tables["t"].loc[:99, "delta_b"] = 0.0  # no word of the test
    kw = {"top": 0.05, "n_splits": 3, "n_resamples": 50, "random_state": 1}
    one = pr.predict_biasing(tables, feats, topics, **kw)
    assert one.loc["t", "documents"] == 500
    pd.testing.assert_frame_equal(one, pr.predict_biasing(tables, feats, topics, **kw))


def test_too_few_biasing_documents_is_said(one_line):
    tables, feats, topics = _planted(100, "pairs")
    out = pr.predict_biasing(
        tables, feats, topics, top=0.02, n_splits=5, n_resamples=10, random_state=0
    )
    assert "too few" in out.loc["t", "note"]
    assert "No test" in pr.prediction_sentence(out)
    with pytest.raises(ValueError) as err:
        pr.predict_biasing(tables, {}, topics, top=0.02, n_splits=5, n_resamples=10, random_state=0)
    assert "no document features" in one_line(err)


def test_doctests():
    failed, attempted = doctest.testmod(pr, optionflags=doctest.NORMALIZE_WHITESPACE)[:2]
    assert attempted > 0 and failed == 0


def test_groups_keep_a_books_blocks_in_one_fold():
    # the biasing documents are exactly the blocks of a few books, and the topic tells the book:
    # without groups the model recognises the book; with the books kept whole it cannot
    rng = np.random.default_rng(3)
    n_books, per_book = 60, 20
    book = np.repeat(np.arange(n_books), per_book)
    n = book.size
    biasing_books = rng.choice(n_books, 3, replace=False)
    delta = np.where(np.isin(book, biasing_books), 1.0 + rng.random(n), 0.01 * rng.random(n))
    feats = pd.DataFrame(
        {"tokens": 1000, "target_1": 1, "target_2": 1, "attribute_1": 1, "attribute_2": 1,
         "test_words": 4, "pairs": 1}, index=range(n),
    )  # fmt: skip
    topics = pd.DataFrame({"topic_0": book + 0.01 * rng.normal(size=n)})
    tables = {"t": pd.DataFrame({"delta_b": delta})}
    kw = {"top": 0.05, "n_splits": 5, "n_resamples": 50, "random_state": 0}
    seen = pr.predict_biasing(tables, {"t": feats}, topics, **kw).loc["t"]
    unseen = pr.predict_biasing(tables, {"t": feats}, topics, groups=book, **kw).loc["t"]
    assert seen["auc_model"] > 0.95
    assert unseen["auc_model"] < 0.75


def test_groups_must_label_every_document(one_line):
    tables, feats, topics = _planted(200, "pairs")
    with pytest.raises(ValueError) as err:
        pr.predict_biasing(
            tables, feats, topics, top=0.05, n_splits=3, n_resamples=10, random_state=0,
            groups=[0, 1],
        )  # fmt: skip
    assert "groups has 2 labels for 200 documents" in one_line(err)
