"""Tests for nlpbias.data.describe (values computed by hand on tiny frames)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from nlpbias.data import describe, synthetic

# --------------------------------------------------------------------------- label_balance


def test_label_balance_counts_and_shares(four: pd.DataFrame) -> None:
    out = describe.label_balance(four)
    assert out.columns.tolist() == ["label", "n", "share"]
    assert out["label"].tolist() == [False, True]
    assert out["n"].tolist() == [2, 2]
    assert out["share"].tolist() == [0.5, 0.5]


def test_label_balance_by_group(four: pd.DataFrame) -> None:
    df = four.assign(dataset=["a", "a", "a", "b"])
    out = describe.label_balance(df, by="dataset")
    assert out.columns.tolist() == ["dataset", "label", "n", "share"]
    a = out[out["dataset"] == "a"].set_index("label")["share"]
    assert a[True] == pytest.approx(2 / 3) and a[False] == pytest.approx(1 / 3)
    assert out[out["dataset"] == "b"]["share"].tolist() == [1.0]


@pytest.mark.parametrize(
    ("df", "kwargs", "error", "match"),
    [
        (pd.DataFrame({"toxic": []}), {}, ValueError, "empty"),
        (pd.DataFrame({"x": [1]}), {}, KeyError, "toxic"),
        (pd.DataFrame({"toxic": [True, None]}), {}, ValueError, "missing"),
        ([1, 2], {}, TypeError, "DataFrame"),
    ],
)
def test_label_balance_bad_input(df, kwargs, error, match, one_line) -> None:
    with pytest.raises(error, match=match) as info:
        describe.label_balance(df, **kwargs)
    one_line(info)


# --------------------------------------------------------------------------- term frequencies


def test_term_frequencies_by_hand(four: pd.DataFrame) -> None:
    out = describe.identity_term_frequencies(four, ["gay", "deaf"]).set_index("term")
    assert out.loc["gay", "n_overall"] == 2 and out.loc["gay", "n_toxic"] == 1
    assert out.loc["gay", "share_overall"] == 0.5
    assert out.loc["gay", "share_toxic"] == 0.5
    assert out.loc["gay", "toxic_rate"] == 0.5
    assert out.loc["gay", "ratio"] == 1.0
    # deaf: 1 of 4 texts, 1 of 2 toxic texts, always toxic
    assert out.loc["deaf", "share_overall"] == 0.25
    assert out.loc["deaf", "share_toxic"] == 0.5
    assert out.loc["deaf", "toxic_rate"] == 1.0
    assert out.loc["deaf", "ratio"] == 2.0


def test_term_frequencies_whole_word_and_absent_terms() -> None:
    df = pd.DataFrame({"text": ["gaydar on", "GAY!", "x"], "toxic": [True, True, False]})
    out = describe.identity_term_frequencies(df, ["gay", "muslim"]).set_index("term")
    assert out.loc["gay", "n_overall"] == 1  # "gaydar" is not "gay"
    assert out.loc["muslim", "n_overall"] == 0
    assert np.isnan(out.loc["muslim", "toxic_rate"]) and np.isnan(out.loc["muslim", "ratio"])
    kept = describe.identity_term_frequencies(df, ["gay", "muslim"], min_count=1)
    assert kept["term"].tolist() == ["gay"]


def test_term_frequencies_accepts_01_labels_and_dedupes_terms(four: pd.DataFrame) -> None:
    df = four.assign(toxic=four["toxic"].astype(int))
    out = describe.identity_term_frequencies(df, ["gay", "gay", "deaf"])
    assert out["term"].tolist() == ["gay", "deaf"]
    assert out["ratio"].tolist() == [1.0, 2.0]


def test_term_frequencies_by_group(four: pd.DataFrame) -> None:
    df = pd.concat([four.assign(d="x"), four.iloc[:2].assign(d="y")], ignore_index=True)
    out = describe.identity_term_frequencies(df, ["gay"], by="d")
    assert out.columns[0] == "d"
    y = out[out["d"] == "y"].iloc[0]
    assert y["share_overall"] == 0.5 and y["share_toxic"] == 0.5 and y["toxic_rate"] == 1.0


def test_term_frequencies_recover_planted_bias_on_large_sample() -> None:
    corpus = synthetic.make_toxicity_corpus(20_000, random_state=11)
    truth = synthetic.planted_truth().set_index("term")
    got = describe.identity_term_frequencies(corpus, list(truth.index)).set_index("term")
    assert got["toxic_rate"].to_numpy() == pytest.approx(truth["toxic_rate"].to_numpy(), abs=0.06)
    assert got["ratio"].to_numpy() == pytest.approx(truth["ratio"].to_numpy(), abs=0.2)
    assert got["share_overall"].to_numpy() == pytest.approx(
        truth["share_overall"].to_numpy(), abs=0.006
    )
    # the planted ordering is recovered: gay > muslim > black > unplanted terms > christian
    order = got["ratio"].sort_values(ascending=False).index.tolist()
    assert order[:3] == ["gay", "muslim", "black"] and order[-1] == "christian"


def test_term_frequencies_without_toxic_rows_fails_clearly(four: pd.DataFrame, one_line) -> None:
    with pytest.raises(ValueError, match="no toxic rows") as info:
        describe.identity_term_frequencies(four.assign(toxic=False), ["gay"])
    one_line(info)
    grouped = four.assign(d=["a", "a", "b", "b"])
    with pytest.raises(ValueError, match="d='b'"):
        describe.identity_term_frequencies(grouped, ["gay"], by="d")


@pytest.mark.parametrize(
    ("df", "terms", "kwargs", "error", "match"),
    [
        (pd.DataFrame({"text": [], "toxic": []}), ["gay"], {}, ValueError, "empty"),
        (pd.DataFrame({"text": ["a"]}), ["gay"], {}, KeyError, "toxic"),
        (pd.DataFrame({"body": ["a"], "toxic": [True]}), ["gay"], {}, KeyError, "text"),
        (pd.DataFrame({"text": ["a"], "toxic": [True]}), ["gay"], {"by": "g"}, KeyError, "g"),
        (pd.DataFrame({"text": ["a"], "toxic": ["yes"]}), ["gay"], {}, ValueError, "bool or 0/1"),
        (pd.DataFrame({"text": [None], "toxic": [True]}), ["gay"], {}, ValueError, "missing"),
        (pd.DataFrame({"text": ["a"], "toxic": [True]}), "gay", {}, TypeError, "single string"),
        (pd.DataFrame({"text": ["a"], "toxic": [True]}), [], {}, ValueError, "empty"),
    ],
)
def test_term_frequencies_bad_input(df, terms, kwargs, error, match, one_line) -> None:
    with pytest.raises(error, match=match) as info:
        describe.identity_term_frequencies(df, terms, **kwargs)
    one_line(info)


# --------------------------------------------------------------------------- lengths


def test_text_lengths_chars_tokens_and_series(four: pd.DataFrame) -> None:
    chars = describe.text_lengths(four)
    assert chars.columns.tolist() == ["length", "label"]
    assert chars["length"].tolist() == [10, 14, 16, 11]
    assert chars["label"].tolist() == [True, True, False, False]
    tokens = describe.text_lengths(four, unit="tokens", label=None)
    assert tokens.columns.tolist() == ["length"]
    assert tokens["length"].tolist() == [2, 3, 3, 2]
    series = describe.text_lengths(pd.Series(["a b c", ""]), unit="tokens")
    assert series["length"].tolist() == [3, 0]
    grouped = describe.text_lengths(four.assign(d=list("aabb")), by="d")
    assert grouped.columns.tolist() == ["d", "length", "label"]


def test_text_lengths_bad_unit(four: pd.DataFrame) -> None:
    with pytest.raises(ValueError, match="unit"):
        describe.text_lengths(four, unit="words")


def test_length_summary_by_hand() -> None:
    lengths = pd.DataFrame({"length": [1, 2, 3, 4, 10], "label": [True] * 4 + [False]})
    out = describe.length_summary(lengths).set_index("label")
    assert out.loc[True, "median"] == 2.5 and out.loc[True, "q25"] == 1.75
    assert out.loc[True, "mean"] == 2.5 and out.loc[True, "max"] == 4
    assert out.loc[False, "n"] == 1 and out.loc[False, "median"] == 10
    unlabelled = describe.length_summary(pd.DataFrame({"length": [2, 4]}))
    assert unlabelled["median"].tolist() == [3.0] and unlabelled["n"].tolist() == [2]


# --------------------------------------------------------------------------- toxicity by length


def test_toxicity_by_length_by_hand() -> None:
    df = pd.DataFrame(
        {"text": ["a", "gay", "gay bar", "the gay bar"], "toxic": [True, True, True, False]}
    )
    out = describe.toxicity_by_length(df, ["gay"], n_buckets=2)
    assert out.columns.tolist() == [
        "subset", "bucket", "length_min", "length_max", "bucket_label", "n", "n_toxic",
        "toxic_share",
    ]  # fmt: skip
    everything = out[out["subset"] == "all texts"]
    assert everything["bucket"].tolist() == [1, 2]
    assert everything["bucket_label"].tolist() == ["1–3", "7–11"]
    assert everything["toxic_share"].tolist() == [1.0, 0.5]
    gay = out[out["subset"] == "gay"]
    assert gay["n"].tolist() == [1, 2] and gay["toxic_share"].tolist() == [1.0, 0.5]


def test_toxicity_by_length_min_count_and_ties() -> None:
    df = pd.DataFrame({"text": ["ab", "cd", "ef", "gay"], "toxic": [True, False, True, True]})
    out = describe.toxicity_by_length(df, ["gay"], n_buckets=2, min_count=2)
    assert "gay" not in set(out["subset"])  # one text only
    same = pd.DataFrame({"text": ["ab", "cd", "ef"], "toxic": [True, False, False]})
    one = describe.toxicity_by_length(same, n_buckets=3)
    assert one["bucket"].tolist() == [1]  # identical lengths: a single bucket
    assert one["toxic_share"].tolist() == pytest.approx([1 / 3])


def test_toxicity_by_length_per_group_buckets() -> None:
    df = pd.DataFrame(
        {"text": ["a", "bb", "cccccc", "dddddddd"], "toxic": [True, False, True, False],
         "d": ["x", "x", "y", "y"]}
    )  # fmt: skip
    out = describe.toxicity_by_length(df, n_buckets=2, by="d")
    assert out[out["d"] == "y"]["bucket_label"].tolist() == ["6–6", "8–8"]


def test_toxicity_by_length_bad_buckets(four: pd.DataFrame) -> None:
    with pytest.raises(ValueError, match="n_buckets"):
        describe.toxicity_by_length(four, n_buckets=0)
