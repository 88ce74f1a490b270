"""Tests of nlpbias.data.pmi: naive-Bayes PMI candidates and the recorded word selections."""

from __future__ import annotations

import math
import random

import pandas as pd
import pytest

from nlpbias.data.pmi import (
    DAVIDSON_SETS,
    clean_tweet,
    davidson_candidates,
    extract_pmi,
    load_selection,
    tweet_tokenize,
)
from nlpbias.data.wordsets import load_wordset

COLUMNS = ["label", "rank", "word", "pmi", "df", "count"]


def _toy(seed: int = 0) -> tuple[list[str], list[str]]:
    """60 'hs' and 40 'ok' texts over shared filler words; 'slur' and 'insult' only in hs
    texts, 'sunny' and 'thanks' only in ok texts."""
    r = random.Random(seed)
    filler = [f"f{i}" for i in range(20)]
    texts, labels = [], []
    for i in range(100):
        label = "hs" if i < 60 else "ok"
        words = r.choices(filler, k=6)
        if label == "hs":
            words += ["slur"] * (2 if i % 2 else 1) + (["insult"] if i % 3 == 0 else [])
        elif i % 2:
            words += ["sunny", "thanks"]
        texts.append(" ".join(words))
        labels.append(label)
    return texts, labels


def test_planted_words_rank_first_for_their_label():
    texts, labels = _toy()
    out = extract_pmi(texts, labels, top_k=5)
    assert list(out.columns) == COLUMNS
    hs = out[out["label"] == "hs"]
    ok = out[out["label"] == "ok"]
    assert hs["word"].tolist()[:2] == ["slur", "insult"]  # tied PMI: slur is more frequent
    assert hs["rank"].tolist() == [1, 2, 3, 4, 5]
    assert set(ok["word"].tolist()[:2]) == {"sunny", "thanks"}
    # words seen under one label only all reach the maximum, -log2(prior)
    assert hs["pmi"].iloc[0] == pytest.approx(-math.log2(0.6))
    assert ok["pmi"].iloc[0] == pytest.approx(-math.log2(0.4))
    assert hs.loc[hs["word"] == "slur", "count"].item() == 90  # 30 texts x 2 + 30 x 1
    assert hs.loc[hs["word"] == "slur", "df"].item() == 60
    assert out["label"].tolist() == ["hs"] * 5 + ["ok"] * 5


def test_pmi_value_matches_a_hand_computation():
    texts = ["x y", "x z", "y y", "z w w", "w"]
    labels = ["A", "A", "B", "B", "B"]
    out = extract_pmi(texts, labels, min_df=1).set_index(["label", "word"])
    # mu_A = 2/5, mu_B = 3/5; A has 4 tokens (y once), B has 6 tokens (y twice)
    # theta_Ay = 1/4, theta_By = 1/3; mixture = 2/5 * 1/4 + 3/5 * 1/3 = 3/10
    assert out.loc[("A", "y"), "pmi"] == pytest.approx(math.log2((1 / 4) / (3 / 10)))
    assert out.loc[("B", "y"), "pmi"] == pytest.approx(math.log2((1 / 3) / (3 / 10)))
    # w only under B: log2(1 / mu_B)
    assert out.loc[("B", "w"), "pmi"] == pytest.approx(math.log2(5 / 3))
    assert out.loc[("B", "w"), "count"] == 3 and out.loc[("B", "w"), "df"] == 2
    assert ("A", "w") not in out.index  # never seen under A: not a candidate of A
    # x: log2((2/4) / (2/5 * 2/4)), z: log2((1/4) / (1/10 + 1/10)), y: log2(5/6)
    assert out.loc["A"].index.tolist() == ["x", "z", "y"]


def test_min_df_counts_documents_over_all_labels():
    texts = ["common word"] * 5 + ["common other"] * 5 + ["rare"] * 9
    labels = ["a"] * 10 + ["b"] * 9
    words = extract_pmi(texts, labels, min_df=10)["word"].tolist()
    assert words == ["common"]
    out = extract_pmi(texts, labels, min_df=9)
    assert set(out["word"]) == {"common", "rare"}
    assert out.loc[out["word"] == "rare", "df"].item() == 9
    # a filtered word still counts in the label's total: theta_a,common = 10 / 20
    common = out[out["word"] == "common"]["pmi"].item()
    assert common == pytest.approx(math.log2(0.5 / (10 / 19 * 0.5)))


def test_ties_broken_by_frequency_then_alphabetically():
    texts = ["b b b a", "a c", "c b", "d d", "d"]
    labels = ["x", "x", "x", "y", "y"]
    out = extract_pmi(texts, labels, min_df=1)
    # a, b, c occur under x only (same PMI); b has 4 tokens, a and c 2 each
    assert out[out["label"] == "x"]["word"].tolist() == ["b", "a", "c"]
    assert out[out["label"] == "x"]["pmi"].nunique() == 1


def test_top_k_lowercase_and_custom_tokenizer():
    texts = ["Alpha beta", "ALPHA gamma", "delta", "delta epsilon"]
    labels = [1, 1, 0, 0]
    out = extract_pmi(texts, labels, min_df=1, top_k=1)
    assert out["label"].tolist() == [0, 1] and out["word"].tolist() == ["delta", "alpha"]
    upper = extract_pmi(texts, labels, min_df=1, lowercase=False)
    assert {"Alpha", "ALPHA"} <= set(upper["word"])
    split = extract_pmi(texts, labels, min_df=1, tokenizer=str.split)
    assert "alpha" in set(split["word"]) and "Alpha" not in set(split["word"])
    series = extract_pmi(pd.Series(texts, index=[9, 8, 7, 6]), pd.Series(labels), min_df=1)
    pd.testing.assert_frame_equal(series, extract_pmi(texts, labels, min_df=1))


@pytest.mark.parametrize(
    ("texts", "labels", "kwargs", "exc", "fragment"),
    [
        (["a", "b"], ["x"], {}, ValueError, "differ in length"),
        (["a", "b"], ["x", "x"], {"min_df": 1}, ValueError, "at least 2 distinct"),
        (["a", "b"], ["x", "y"], {}, ValueError, "lower min_df"),
        (["a", "b"], ["x", None], {"min_df": 1}, ValueError, "missing values"),
        (["a", "b"], "xy", {}, TypeError, "not one string"),
        ("ab", ["x", "y"], {}, TypeError, "not one string"),
        (["a", 3], ["x", "y"], {}, TypeError, "must all be strings"),
        (["a", "b"], ["x", "y"], {"min_df": 0}, ValueError, "min_df"),
        (["a", "b"], ["x", "y"], {"top_k": 1.5}, ValueError, "top_k"),
        (["a", "b"], ["x", "y"], {"tokenizer": "split"}, TypeError, "tokenizer"),
        (["a", "b"], ["x", "y"], {"lowercase": 1}, TypeError, "lowercase"),
    ],
)
def test_bad_input(texts, labels, kwargs, exc, fragment, one_line):
    with pytest.raises(exc) as err:
        extract_pmi(texts, labels, **kwargs)
    assert fragment in one_line(err)


def test_clean_tweet_and_tweet_tokenize():
    text = "RT @bob_1: He's &amp;amp; I'm #blessed http://t.co/x &#128514; www.x.org rt"
    assert "@" not in clean_tweet(text) and "http" not in clean_tweet(text)
    assert tweet_tokenize(text) == ["he's", "i'm", "blessed"]
    assert tweet_tokenize("Art smart", lowercase=False) == ["Art", "smart"]  # 'rt' inside words
    with pytest.raises(TypeError):
        clean_tweet(None)


def test_wordsets_module_reexports():
    from nlpbias.data import wordsets

    assert wordsets.extract_pmi is extract_pmi and wordsets.load_selection is load_selection
    assert {"extract_pmi", "load_selection"} <= set(wordsets.__all__)


# --------------------------------------------------------------------------- recorded selections
@pytest.mark.parametrize("family", list(DAVIDSON_SETS))
def test_selection_record_matches_its_word_set(family):
    name = f"davidson_{family}"
    sel, ws = load_selection(name), load_wordset(name)
    assert sel.attrs["family"] == family and sel.attrs["top_k"] >= 40
    assert (*ws.target_names, *ws.attribute_names) == DAVIDSON_SETS[family]
    sets = {**ws.targets, **ws.attributes}
    for set_name, part in sel.groupby("set", sort=False):
        kept = part.loc[part["decision"] == "kept", "word"].tolist()
        assert sorted(kept) == sorted(sets[set_name]), set_name
        # every candidate from rank 1 to the last chosen word has a decision and a reason
        assert part["rank"].tolist() == list(range(1, len(part) + 1)), set_name
        assert part["decision"].iloc[-1] == "kept"
        assert part["reason"].str.len().min() > 3
    words = [w for group in sets.values() for w in group]
    assert len(words) == len(set(words)), "a word is in two sets"
    sizes = [len(v) for v in sets.values()]
    assert sizes == ([8] * 4 if family == "gender" else [15, 15, 19, 19])


def test_gender_targets_are_aligned_counterparts():
    ws = load_wordset("davidson_gender")
    pairs = dict(zip(ws.targets["male"], ws.targets["female"], strict=True))
    assert pairs["he"] == "she" and pairs["him"] == "her" and pairs["son"] == "daughter"
    assert load_wordset("davidson_race").attribute_names == ("unhateful", "hateful")


def test_load_selection_errors(tmp_path, one_line):
    with pytest.raises(ValueError) as err:
        load_selection("nope")
    assert "davidson_gender" in one_line(err)
    (tmp_path / "x.yaml").write_text("name: x\nfamily: gender\n", encoding="utf-8")
    with pytest.raises(ValueError) as err:
        load_selection("x", folder=tmp_path)
    assert "lacks field(s)" in one_line(err)
    body = (
        "name: x\nfamily: gender\ntop_k: 5\nmin_df: 1\nrules: r\nsets:\n  male:\n"
        "    role: target\n    decisions:\n      - {rank: 1, word: he, pmi: 1, decision: maybe,"
        " reason: r}\n"
    )
    (tmp_path / "x.yaml").write_text(body, encoding="utf-8")
    with pytest.raises(ValueError) as err:
        load_selection("x", folder=tmp_path)
    assert "needs a decision" in one_line(err)


@pytest.fixture(scope="module")
def candidates(data_home):
    mp = pytest.MonkeyPatch()
    mp.setenv("NLPBIAS_DATA", str(data_home))
    try:
        yield {
            family: davidson_candidates(
                family, top_k=load_selection(f"davidson_{family}").attrs["top_k"]
            )  # fmt: skip
            for family in DAVIDSON_SETS
        }
    finally:
        mp.undo()


@pytest.mark.parametrize("family", list(DAVIDSON_SETS))
def test_every_selected_word_is_a_candidate_of_its_set(family, candidates):
    cand = candidates[family].set_index(["set", "word"])
    sel = load_selection(f"davidson_{family}")
    ws = load_wordset(f"davidson_{family}")
    for set_name, words in {**ws.targets, **ws.attributes}.items():
        for word in words:
            assert (set_name, word) in cand.index, f"{word!r} is not a {set_name} candidate"
    # the record's ranks and PMI values are those computed now
    for row in sel.itertuples():
        got = cand.loc[(row.set, row.word)]
        assert int(got["rank"]) == row.rank and float(got["pmi"]) == pytest.approx(
            row.pmi, abs=1e-3
        )
    if family == "race":  # race target words have their group's TwitterAAE argmax
        dialect = {"white_aligned": "white-aligned", "african_american_aligned": "AA-aligned"}
        for set_name, words in ws.targets.items():
            assert (cand.loc[[(set_name, w) for w in words], "dialect"] == dialect[set_name]).all()


def test_davidson_candidates_bad_family(one_line):
    with pytest.raises(ValueError) as err:
        davidson_candidates("religion")
    assert "family must be one of" in one_line(err)
