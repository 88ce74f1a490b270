"""Tests for nlpbias.data.cards (tiny parts built by hand; one test on the real data home)."""

from __future__ import annotations

import pandas as pd
import pytest

from nlpbias.data import MissingDataError, cards, describe

# --------------------------------------------------------------------------- collections of frames


def test_stack_frames_order_columns_and_sampling(four: pd.DataFrame) -> None:
    out = cards.stack_frames({"b": four, "a": four.iloc[:1]})
    assert out.columns.tolist() == ["dataset", "text", "toxic"]
    assert list(out["dataset"].cat.categories) == ["b", "a"]
    assert len(out) == 5
    s1 = cards.stack_frames({"x": four}, max_rows=2, random_state=0)
    s2 = cards.stack_frames({"x": four}, max_rows=2, random_state=0)
    assert len(s1) == 2 and s1.equals(s2)
    with pytest.raises(KeyError, match="toxic"):
        cards.stack_frames({"x": four[["text"]]})
    with pytest.raises(ValueError, match="max_rows"):
        cards.stack_frames({"x": four}, max_rows=0)


def test_toxicity_frames_picks_labelled_comment_sets(four: pd.DataFrame, one_line) -> None:
    parts = {"synthetic": {"corpus": four}, "wiki_summaries": {"summaries": pd.Series(["a"])}}
    out = cards.toxicity_frames(parts, max_rows=None, random_state=None)
    assert out["dataset"].unique().tolist() == ["synthetic stand-in (planted bias, not real data)"]
    with pytest.raises(ValueError, match="no labelled comment set") as info:
        cards.toxicity_frames(
            {"wiki_summaries": parts["wiki_summaries"]}, max_rows=None, random_state=None
        )
    one_line(info)


def test_parts_table_and_cards(four: pd.DataFrame) -> None:
    parts = {"synthetic": {"corpus": four}, "wiki_summaries": {"summaries": pd.Series(["a b"])}}
    table = cards.parts_table(parts)
    assert table["rows"].tolist() == [4, 1]
    assert table["n_toxic"].iloc[0] == 2 and pd.isna(table["n_toxic"].iloc[1])
    got = cards.dataset_cards(parts).set_index("dataset")
    assert got.loc["synthetic", "label balance"] == "corpus: 50.0 % toxic"
    assert got.loc["wiki_summaries", "label balance"] == "unlabelled"
    assert got.loc["synthetic", "rows"] == "corpus: 4"
    assert "not real data" in got.loc["synthetic", "title"]


def test_registry_card_without_loading() -> None:
    card = cards.dataset_card("davidson2017").set_index("field")["value"]
    assert card["licence"] == "MIT"
    assert card["size"].startswith("2 files")
    assert card["rows"] == "not loaded in this run"
    assert "cb50f7e" in card["origin"]
    with pytest.raises(Exception, match="unknown dataset"):
        cards.dataset_card("nope")
    with pytest.raises(ValueError, match="empty"):
        cards.dataset_cards({})


def test_pronoun_gender_table() -> None:
    gap = pd.DataFrame({"pronoun": ["She", "his", "her", "him", "hers"]})
    wino = pd.DataFrame({"pronoun": ["he"]})
    out = cards.pronoun_gender_table({"gap": {"test": gap}, "winobias": {"pro": wino}})
    g = out[out["dataset"] == "gap"].set_index("gender")
    assert g.loc["female", "n"] == 3 and g.loc["male", "n"] == 2
    assert g.loc["female", "share"] == pytest.approx(0.6)
    assert out[out["dataset"] == "winobias"]["share"].tolist() == [1.0]
    assert cards.pronoun_gender_table({}).empty
    with pytest.raises(ValueError, match="not gendered"):
        cards.pronoun_gender_table({"gap": {"x": pd.DataFrame({"pronoun": ["they"]})}})


def test_corpus_lengths() -> None:
    parts = {
        "wiki_summaries": {"summaries": pd.Series(["a b c", "d"])},
        "trump_tweets": {"tweets": pd.DataFrame({"text": ["x y"]})},
        "synthetic": {"corpus": pd.DataFrame({"text": ["not a corpus"]})},
    }
    out = cards.corpus_lengths(parts)
    assert out["corpus"].tolist() == ["wiki_summaries: summaries"] * 2 + ["trump_tweets: tweets"]
    assert out["length"].tolist() == [3, 1, 2]
    assert cards.corpus_lengths({}).empty


# --------------------------------------------------------------------------- what a run can reach


def test_reachable_parts_without_data_home() -> None:
    parts = cards.reachable_parts(use_data_home=False, n_synthetic=30, random_state=0)
    assert len(parts["synthetic"]["corpus"]) == 30
    assert not {"davidson2017", "dixon2018"} & set(parts)
    with pytest.raises(TypeError, match="use_data_home"):
        cards.reachable_parts(use_data_home="yes", n_synthetic=2000, random_state=None)


def test_reachable_parts_missing_data_home(tmp_path, monkeypatch, one_line) -> None:
    monkeypatch.setenv("NLPBIAS_DATA", str(tmp_path))
    monkeypatch.setenv("NLPBIAS_OFFLINE", "1")
    with pytest.raises(MissingDataError, match="nlpbias data fetch") as info:
        cards.reachable_parts(use_data_home=True, n_synthetic=2000, random_state=None)
    one_line(info)
    parts = cards.reachable_parts(
        use_data_home=True, skip_missing=True, n_synthetic=2000, random_state=None
    )
    assert set(parts) <= {"wiki_summaries"}


def test_reachable_parts_real_data_home(use_data_home) -> None:
    parts = cards.reachable_parts(use_data_home=True, n_synthetic=2000, random_state=None)
    table = cards.parts_table(parts).set_index(["dataset", "part"])["rows"]
    assert table[("davidson2017", "tweets")] == 24_783
    assert table[("dixon2018", "wiki talk test")] == 1_492
    assert table[("gap", "development")] == 2_000
    tox = cards.toxicity_frames(parts, max_rows=None, random_state=None)
    freq = describe.identity_term_frequencies(tox, ["gay"], by="dataset").set_index("dataset")
    # Dixon et al.'s observation holds on their identity-focused Wikipedia Talk test set
    assert freq.loc["Dixon 2018 Wiki Talk test", "ratio"] > 1
