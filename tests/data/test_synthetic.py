"""Tests for nlpbias.data.synthetic: the planted-bias toxicity generator and its ground truth."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from nlpbias.data import synthetic
from nlpbias.data.identity import load_identity_terms, term_mask


def test_columns_types_and_labelled_synthetic() -> None:
    df = synthetic.make_toxicity_corpus(300, random_state=0)
    assert list(df.columns) == ["text", "toxic", "term", "p_toxic", "source"]
    assert len(df) == 300
    assert df["toxic"].dtype == bool
    assert (df["source"] == "synthetic").all()
    assert df["text"].map(lambda t: isinstance(t, str) and len(t) > 0).all()


def test_same_seed_same_corpus_other_seed_other_corpus() -> None:
    a = synthetic.make_toxicity_corpus(200, random_state=7)
    b = synthetic.make_toxicity_corpus(200, random_state=7)
    c = synthetic.make_toxicity_corpus(200, random_state=8)
    pd.testing.assert_frame_equal(a, b)
    assert not a["text"].equals(c["text"])


def test_each_text_mentions_exactly_its_planted_term() -> None:
    df = synthetic.make_toxicity_corpus(800, random_state=1)
    mask = term_mask(df["text"], list(synthetic.DEFAULT_TERMS))
    has_term = df["term"].notna().to_numpy()
    # texts with a term contain that term and no other; texts without contain none
    assert (mask.sum(axis=1).to_numpy() == has_term.astype(int)).all()
    for i in np.flatnonzero(has_term)[:50]:
        assert mask.iloc[i][df["term"].iloc[i]]


def test_label_probability_is_the_planted_rate() -> None:
    df = synthetic.make_toxicity_corpus(
        500, planted={"gay": 0.9}, base_rate=0.1, mention_rate=0.5, random_state=2
    )
    is_gay = (df["term"] == "gay").fillna(False).to_numpy(dtype=bool)
    assert (df.loc[is_gay, "p_toxic"] == 0.9).all()
    assert (df.loc[~is_gay, "p_toxic"] == 0.1).all()


def test_toxic_texts_are_shorter_and_contain_an_insult() -> None:
    df = synthetic.make_toxicity_corpus(2000, random_state=3)
    tokens = df["text"].str.split().str.len()
    assert tokens[df["toxic"]].mean() < tokens[~df["toxic"]].mean()
    insults = term_mask(df["text"], list(synthetic.INSULTS)).any(axis=1)
    assert insults[df["toxic"]].all()


def test_no_planted_bias_and_no_toxic_text() -> None:
    flat = synthetic.make_toxicity_corpus(100, planted={}, base_rate=0.3, random_state=0)
    assert (flat["p_toxic"] == 0.3).all()
    none = synthetic.make_toxicity_corpus(100, planted={}, base_rate=0.0, random_state=0)
    assert not none["toxic"].any()


def test_planted_truth_matches_hand_computation() -> None:
    # P(toxic) = 0.5 * 0.2 + 0.5 * (0.6 + 0.2) / 2 = 0.3; P(term) = 0.5 / 2 = 0.25
    truth = synthetic.planted_truth(
        terms=["gay", "deaf"], planted={"gay": 0.6}, base_rate=0.2, mention_rate=0.5
    ).set_index("term")
    assert truth.loc["gay", "share_overall"] == pytest.approx(0.25)
    assert truth.loc["gay", "share_toxic"] == pytest.approx(0.25 * 0.6 / 0.3)
    assert truth.loc["deaf", "share_toxic"] == pytest.approx(0.25 * 0.2 / 0.3)
    assert truth.loc["gay", "ratio"] == pytest.approx(2.0)
    assert truth.loc["deaf", "ratio"] == pytest.approx(2 / 3)
    assert truth["planted"].tolist() == [True, False]


def test_filler_words_are_not_identity_terms() -> None:
    words = set(synthetic.NEUTRAL_WORDS) | set(synthetic.INSULTS)
    for term in load_identity_terms("dixon2018"):
        assert not set(term.split()) & words, term


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"n": 0}, ValueError, "n must be an integer >= 1"),
        ({"n": 2.5}, ValueError, "n must be an integer >= 1"),
        ({"terms": "gay"}, TypeError, "single string"),
        ({"terms": ["gay", "gay"]}, ValueError, "duplicates"),
        ({"terms": []}, ValueError, "non-empty"),
        ({"planted": {"queer": 0.5}}, ValueError, "not in terms"),
        ({"planted": {"gay": 1.5}}, ValueError, r"\[0, 1\]"),
        ({"base_rate": "high"}, ValueError, "base_rate must be a number in"),
        ({"terms": ["the"], "planted": {}}, ValueError, "filler"),
        ({"mean_tokens": (2, 10)}, ValueError, "mean_tokens"),
    ],
)
def test_bad_input_raises_one_line(kwargs: dict, error: type, match: str) -> None:
    kwargs = {"n": 10, **kwargs}
    with pytest.raises(error, match=match) as info:
        synthetic.make_toxicity_corpus(**kwargs)
    assert "\n" not in str(info.value)


def test_planted_truth_rejects_a_corpus_without_toxic_text() -> None:
    with pytest.raises(ValueError, match="no toxic text"):
        synthetic.planted_truth(planted={}, base_rate=0.0)
