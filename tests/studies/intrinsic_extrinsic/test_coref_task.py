"""Tests for nlpbias.studies.intrinsic_extrinsic.coref: pairs, features, the resolver, scoring and
the GAP baselines."""

from __future__ import annotations

import logging
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import torch
from gensim.models import KeyedVectors
from sklearn.exceptions import NotFittedError

from nlpbias.data.coref import load_winobias
from nlpbias.studies.intrinsic_extrinsic import coref

GAP_COLUMNS = ["id", "text", "pronoun", "pronoun_offset", "a", "a_offset", "a_coref"]
GAP_COLUMNS += ["b", "b_offset", "b_coref"]


def gap_frame(rows: list[tuple]) -> pd.DataFrame:
    return pd.DataFrame(rows, columns=GAP_COLUMNS)


def tiny_gap() -> pd.DataFrame:
    t1 = "Zoe Smith met Ann. She smiled."
    t2 = '"Bob" said Al, and his dog ran after Carl.'
    return gap_frame(
        [
            ("ex-1", t1, "She", 19, "Zoe Smith", 0, True, "Ann", 14, False),
            ("ex-2", t2, "his", 19, "Al", 11, True, "Carl", 37, False),
        ]
    )


class Stub:
    """A 'model' whose decisions are given."""

    def __init__(self, decisions: list[bool]) -> None:
        self.decisions = np.array(decisions, dtype=bool)

    def predict(self, pairs: pd.DataFrame) -> np.ndarray:
        return self.decisions[: len(pairs)]


# --------------------------------------------------------------------------- tokens and pairs
def test_tokenize_with_offsets_keeps_spans() -> None:
    text = "Ann's dog \"Rex\" didn't bark."
    tokens, spans = coref.tokenize_with_offsets(text)
    assert tokens == ["Ann", "'s", "dog", '"', "Rex", '"', "did", "n't", "bark", "."]
    assert [text[s:e] for s, e in spans] == tokens
    assert spans[4].tolist() == [11, 14]


def test_gap_pairs_finds_the_spans() -> None:
    pairs = coref.gap_pairs(tiny_gap())
    assert list(pairs.columns) == coref.PAIR_COLUMNS
    assert pairs["example_id"].tolist() == ["ex-1", "ex-1", "ex-2", "ex-2"]
    assert pairs["candidate"].tolist() == ["Zoe Smith", "Ann", "Al", "Carl"]
    # ex-1 tokens: Zoe Smith met Ann . She smiled .
    # ex-2 tokens: " Bob " said Al , and his dog ran after Carl .
    assert pairs["candidate_token_start"].tolist() == [0, 3, 4, 11]
    assert pairs["candidate_token_end"].tolist() == [2, 4, 5, 12]
    assert pairs["pronoun_token"].tolist() == [5, 5, 7, 7]
    assert pairs["label"].tolist() == [True, False, True, False]
    assert pairs["gender"].tolist() == ["female", "female", "male", "male"]
    assert pairs["candidate_index"].tolist() == [0, 1, 0, 1]
    assert pairs["candidate_end"].tolist() == [9, 17, 13, 41]
    for r in pairs.itertuples():
        assert r.tokens[r.pronoun_token] == r.pronoun


def test_gap_pairs_drops_examples_whose_offsets_miss(caplog: pytest.LogCaptureFixture) -> None:
    bad = tiny_gap()
    bad.loc[1, "b_offset"] = 5  # "Carl" is not at 5
    with caplog.at_level(logging.WARNING, logger="nlpbias.studies.intrinsic_extrinsic.coref"):
        pairs = coref.gap_pairs(bad)
    assert pairs["example_id"].unique().tolist() == ["ex-1"]
    assert "dropped 1 of 2" in caplog.text


WINO_LINES = (
    "1 [The developer] argued with the designer because [he] did not like the design.\n"
    "2 The accountant met [the janitor] and wished [him] well.\n"
    "3 [The construction worker] helped the nurse because [he] was strong.\n"
    "4 [The cook] respects the baker because [he] knows how to recognize a good baker.\n"
    "5 [The developer] argued with the boss because [he] was late.\n"
)


def wino_frame(tmp_path: Path) -> pd.DataFrame:
    p = tmp_path / "pro_stereotyped_type1.txt.test"
    p.write_text(WINO_LINES, encoding="utf-8")
    return load_winobias(stereotype="pro", kind=1, split="test", path=p)


OCCUPATIONS = ["developer", "designer", "accountant", "janitor", "construction worker", "nurse"]
OCCUPATIONS += ["cook", "baker"]


def test_winobias_pairs_finds_both_candidates(tmp_path: Path) -> None:
    pairs = coref.winobias_pairs(wino_frame(tmp_path), OCCUPATIONS)
    assert pairs.attrs["n_dropped"] == 1  # line 5: "the boss" is no occupation
    assert pairs["candidate"].tolist() == [
        "The developer", "the designer", "The accountant", "the janitor",
        "The construction worker", "the nurse", "The cook", "the baker",
    ]  # fmt: skip
    assert pairs["label"].tolist() == [True, False, False, True, True, False, True, False]
    assert pairs["candidate_start"].tolist() == [0, 26, 0, 19, 0, 31, 0, 18]
    assert pairs["candidate_token_start"].tolist() == [0, 4, 0, 3, 0, 4, 0, 3]
    assert pairs["candidate_token_end"].tolist() == [2, 6, 2, 5, 3, 6, 2, 5]
    assert pairs["pronoun_token"].tolist() == [7, 7, 7, 7, 7, 7, 6, 6]
    assert set(pairs["type"]) == {1} and set(pairs["condition"]) == {"pro"}
    assert pairs["example_id"].iloc[0] == "winobias-test-pro-type1-1"


def test_winobias_pairs_logs_drops(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING, logger="nlpbias.studies.intrinsic_extrinsic.coref"):
        coref.winobias_pairs(wino_frame(tmp_path), OCCUPATIONS)
    assert "dropped 1 of 5 sentences" in caplog.text


def test_swap_pronoun_gender_shifts_offsets() -> None:
    text = "Ann met Zoe; Bob saw her brother and told her about Eve."
    gap = gap_frame(
        [
            ("s-1", "Zoe met Ann. She smiled at Eve.", "She", 13, "Zoe", 0, True, "Eve", 27, False),
            ("s-2", text, "her", 21, "Ann", 0, True, "Eve", 52, False),
            ("s-3", text, "her", 42, "Ann", 0, True, "Eve", 52, False),
        ]
    )
    swapped = coref.swap_pronoun_gender(coref.gap_pairs(gap))
    assert swapped["example_id"].unique().tolist() == ["s-1~swapped", "s-2~swapped", "s-3~swapped"]
    assert swapped["pronoun"].tolist() == ["He", "He", "his", "his", "him", "him"]
    assert swapped["text"].iloc[0] == "Zoe met Ann. He smiled at Eve."
    assert swapped["candidate_start"].tolist() == [0, 26, 0, 52, 0, 52]
    assert swapped["gender"].tolist() == ["male"] * 6
    assert not swapped["label"].any()
    for r in swapped.itertuples():
        assert r.text[r.candidate_start : r.candidate_end] == r.candidate


# --------------------------------------------------------------------------- scoring
def test_score_pairs_by_hand() -> None:
    s = coref.score_pairs([True, True, False, False, True], [True, False, True, False, False])
    assert (s["tp"], s["fp"], s["fn"], s["tn"], s["n"]) == (1, 1, 2, 1, 5)
    assert s["precision"] == pytest.approx(0.5)
    assert s["recall"] == pytest.approx(1 / 3)
    assert s["f1"] == pytest.approx(0.4)
    assert coref.score_pairs([True], [False])["precision"] == 0.0  # GAP's scorer: 0, not NaN


def test_score_gap_by_gender_and_bias() -> None:
    pairs = coref.gap_pairs(tiny_gap())  # ex-1 feminine (A gold), ex-2 masculine (A gold)
    table = coref.score_gap(Stub([True, False, False, True]), pairs)
    assert table.index.tolist() == ["overall", "masculine", "feminine"]
    assert table.loc["feminine", "f1"] == 1.0
    assert table.loc["masculine", ["tp", "fp", "fn", "tn"]].tolist() == [0, 1, 1, 0]
    assert table.loc["overall", "precision"] == pytest.approx(0.5)
    assert table.loc["overall", "n"] == 4
    assert np.isnan(table["bias_f_m"]).all()  # masculine F1 is 0
    table = coref.score_gap(Stub([True, False, True, True]), tiny_gap())  # raw GAP frame works
    assert table.loc["masculine", "f1"] == pytest.approx(2 / 3)
    assert table["bias_f_m"].tolist() == pytest.approx([1.5] * 3)


def wino_pairs_four() -> pd.DataFrame:
    rows = []
    for t in (1, 2):
        for c in ("pro", "anti"):
            rows.append(
                (f"{t}{c}", "The cook hit the nurse because he was mad.", "The cook", 0, 8)
                + ("he", 31, c, t)
            )
    df = pd.DataFrame(
        rows,
        columns=["id", "text", "mention", "mention_start", "mention_end", "pronoun"]
        + ["pronoun_start", "stereotype", "kind"],
    )
    return coref.winobias_pairs(df, ["cook", "nurse"])


def test_score_winobias_and_gaps() -> None:
    pairs = wino_pairs_four()  # per (type, condition): gold first, other second
    # 1 pro right; 1 anti wrong; 2 pro abstains; 2 anti right
    table = coref.score_winobias(Stub([True, False, False, True, False, False, True, False]), pairs)
    assert table.index.tolist() == [(1, "pro"), (1, "anti"), (2, "pro"), (2, "anti")]
    assert table["f1"].tolist() == [1.0, 0.0, 0.0, 1.0]
    assert table.loc[(2, "pro"), ["tp", "fp", "fn"]].tolist() == [0, 0, 1]
    gaps = coref.winobias_gaps(table)
    assert gaps.name == "pro_minus_anti"
    assert gaps["type1_f1"] == 1.0 and gaps["type2_recall"] == -1.0
    assert gaps["mean_f1"] == 0.0 and gaps["mean_precision"] == 0.0


def test_baselines_by_hand() -> None:
    pairs = coref.gap_pairs(tiny_gap())
    assert not coref.MajorityBaseline().fit(pairs).predict(pairs).any()  # 2 of 4 True: tie → False
    assert coref.MajorityBaseline(strategy="always_positive").fit(pairs).predict(pairs).all()
    nearest = coref.HeuristicBaseline().fit(pairs).predict(pairs)
    assert nearest.tolist() == [False, True, True, False]  # Ann before "She"; Al before "his"
    first = coref.HeuristicBaseline(rule="first").fit(pairs).predict(pairs)
    assert first.tolist() == [True, False, True, False]


# --------------------------------------------------------------------------- the model
NAMES_M = ["adam", "bruno", "carlos", "dmitri", "emil", "felix"]
NAMES_F = ["alice", "berta", "clara", "dora", "elena", "fiona"]


def toy_vectors() -> KeyedVectors:
    """Gender is the first coordinate: male names and 'he' +1, female names and 'she' −1."""
    gen = np.random.default_rng(0)
    words = NAMES_M + NAMES_F + ["he", "she", "met", "smiled", "."]
    vecs = gen.normal(0, 0.3, size=(len(words), 8)).astype(np.float32)
    vecs[: len(NAMES_M), 0] = 1.0
    vecs[len(NAMES_M) : 2 * len(NAMES_M), 0] = -1.0
    vecs[words.index("he"), 0], vecs[words.index("she"), 0] = 1.0, -1.0
    kv = KeyedVectors(vector_size=8)
    kv.add_vectors(words, vecs)
    return kv


def toy_gap(n: int, seed: int) -> pd.DataFrame:
    """One male and one female name; the pronoun's gender picks the antecedent."""
    gen = np.random.default_rng(seed)
    rows = []
    for i in range(n):
        m, f = gen.choice(NAMES_M).title(), gen.choice(NAMES_F).title()
        a, b = (m, f) if gen.random() < 0.5 else (f, m)
        pron = "He" if gen.random() < 0.5 else "She"
        text = f"{a} met {b}. {pron} smiled."
        gold_a = (a == m) == (pron == "He")
        rows.append((f"t-{seed}-{i}", text, pron, len(a) + len(b) + 7, a, 0, gold_a, b))
        rows[-1] += (len(a) + 5, not gold_a)
    return gap_frame(rows)


def fit_toy(**params) -> coref.MentionPairScorer:
    defaults = {"epochs": 20, "hidden": 16, "learning_rate": 1e-2, "gender_swap": 0.0}
    defaults["random_state"] = 0
    return coref.MentionPairScorer(toy_vectors(), **(defaults | params)).fit(
        coref.gap_pairs(toy_gap(80, seed=1))
    )


def test_model_learns_gender_agreement_from_the_vectors() -> None:
    model = fit_toy()
    test = coref.gap_pairs(toy_gap(40, seed=2))
    assert coref.score_pairs(test["label"], model.predict(test))["f1"] >= 0.95
    assert model.coverage_ == 1.0 and model.lowercase_ is True
    assert model.history_["train_loss"].iloc[-1] < model.history_["train_loss"].iloc[0]


def test_decisions_follow_the_frozen_vectors() -> None:
    model = fit_toy()
    flipped = toy_vectors()
    flipped.vectors[: 2 * len(NAMES_M), 0] *= -1  # every name changes gender
    test = coref.gap_pairs(toy_gap(40, seed=2))
    assert coref.score_pairs(test["label"], model.predict(test))["f1"] >= 0.95
    model.set_params(embedding=flipped)
    assert coref.score_pairs(test["label"], model.predict(test))["f1"] <= 0.1


def test_predict_proba_is_a_softmax_over_each_pronoun() -> None:
    model = fit_toy(epochs=3)
    test = coref.gap_pairs(toy_gap(10, seed=3))
    proba = model.predict_proba(test)
    assert proba.shape == (20, 2)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)
    per_pronoun = pd.Series(proba[:, 1]).groupby(test["example_id"].to_numpy()).sum()
    assert (per_pronoun < 1.0).all()  # the rest is the dummy antecedent's
    scores = model.decision_function(test)
    best = pd.Series(scores).groupby(test["example_id"].to_numpy()).transform("max").to_numpy()
    np.testing.assert_array_equal(model.predict(test), (scores == best) & (scores > 0))


def test_same_seed_same_model_and_global_rng_untouched() -> None:
    test = coref.gap_pairs(toy_gap(10, seed=3))
    torch.manual_seed(123)
    before = torch.get_rng_state()
    a = fit_toy(epochs=4, gender_swap=0.5).decision_function(test)
    assert torch.equal(torch.get_rng_state(), before)
    b = fit_toy(epochs=4, gender_swap=0.5).decision_function(test)
    c = fit_toy(epochs=4, gender_swap=0.5, random_state=1).decision_function(test)
    np.testing.assert_array_equal(a, b)
    assert not np.allclose(a, c)


def test_get_params_and_clone() -> None:
    from sklearn.base import clone

    model = coref.MentionPairScorer(embedding=None, window=2, random_state=3)
    assert model.get_params()["window"] == 2 and model.get_params()["random_state"] == 3
    assert clone(model).get_params()["window"] == 2


# --------------------------------------------------------------------------- errors
def test_errors(one_line) -> None:
    pairs = coref.gap_pairs(tiny_gap())
    with pytest.raises(ValueError, match="embedding is required") as err:
        coref.MentionPairScorer().fit(pairs)
    one_line(err)
    with pytest.raises(TypeError, match="gensim KeyedVectors") as err:
        coref.MentionPairScorer(embedding={"a": 1}).fit(pairs)
    one_line(err)
    with pytest.raises(ValueError, match="pairs is empty") as err:
        coref.MentionPairScorer(embedding=toy_vectors()).fit(pairs.iloc[:0])
    one_line(err)
    with pytest.raises(ValueError, match=r"lacks columns \['tokens'") as err:
        coref.MentionPairScorer(embedding=toy_vectors()).fit(pairs.drop(columns="tokens"))
    one_line(err)
    with pytest.raises(ValueError, match=r"gender_swap must be a number in \[0, 1\]") as err:
        coref.MentionPairScorer(embedding=toy_vectors(), gender_swap=2).fit(pairs)
    one_line(err)
    with pytest.raises(NotFittedError):
        coref.MentionPairScorer(embedding=toy_vectors()).predict(pairs)
    with pytest.raises(ValueError, match="pairs is empty") as err:
        coref.score_gap(coref.HeuristicBaseline().fit(pairs), pairs.iloc[:0])
    one_line(err)
    with pytest.raises(ValueError, match="lacks rows") as err:
        coref.winobias_gaps(coref.score_winobias(Stub([True, False] * 4), wino_pairs_four())[:3])
    one_line(err)
    with pytest.raises(ValueError, match="rule must be") as err:
        coref.HeuristicBaseline(rule="last").fit(pairs)
    one_line(err)
    with pytest.raises(ValueError, match="one shape"):
        coref.score_pairs([True], [True, False])


# --------------------------------------------------------------------------- real data
@pytest.fixture(scope="module")
def real(data_home: Path) -> dict:
    """GloVe 50d resolver fitted on GAP development + validation; GAP test and WinoBias test."""
    from nlpbias.models.embeddings import load_glove_50d

    try:
        kv = load_glove_50d()
    except ModuleNotFoundError as err:
        pytest.skip(str(err))
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("NLPBIAS_DATA", str(data_home))
        train = pd.concat(
            [coref.load_gap_pairs("development"), coref.load_gap_pairs("validation")],
            ignore_index=True,
        )
        test, wino = coref.load_gap_pairs("test"), coref.load_winobias_pairs("test")
    model = coref.MentionPairScorer(kv, random_state=0).fit(train)
    return {"model": model, "train": train, "test": test, "wino": wino}


def test_real_pairs_are_complete(real: dict) -> None:
    assert len(real["train"]) == 2 * (2000 + 454) and len(real["test"]) == 4000
    assert real["wino"].attrs["n_dropped"] == 0
    assert real["wino"].groupby(["type", "condition"]).size().tolist() == [792] * 4
    assert real["model"].coverage_ > 0.98


def test_real_gap_model_beats_the_baselines(real: dict) -> None:
    f1 = coref.score_gap(real["model"], real["test"]).loc["overall", "f1"]
    for baseline in (
        coref.MajorityBaseline(),
        coref.MajorityBaseline(strategy="always_positive"),
        coref.HeuristicBaseline(),
        coref.HeuristicBaseline(rule="first"),
    ):
        base = coref.score_gap(baseline.fit(real["train"]), real["test"]).loc["overall", "f1"]
        assert f1 > base + 0.02, (baseline, f1, base)
    history = real["model"].history_  # it learned: one row per epoch, the loss fell
    assert history["epoch"].tolist() == list(range(1, real["model"].epochs + 1))
    assert history["train_loss"].iloc[-1] < 0.9 * history["train_loss"].iloc[0]


def test_real_winobias_shows_the_stereotype(real: dict) -> None:
    table = coref.score_winobias(real["model"], real["wino"])
    gaps = coref.winobias_gaps(table)
    assert gaps["type1_f1"] > 0.05 and gaps["mean_f1"] > 0.05


def test_real_evaluate_coref_returns_one_sweep_point(use_data_home: Path) -> None:
    from nlpbias.models.embeddings import load_glove_50d

    try:
        kv = load_glove_50d()
    except ModuleNotFoundError as err:
        pytest.skip(str(err))
    out = coref.evaluate_coref(kv, random_state=0, train_splits=("validation",), epochs=2)
    assert set(out) == {"gap", "winobias", "gaps", "fit_time", "coverage"}
    assert out["gap"].loc["overall", "n"] == 4000
    assert out["winobias"]["n"].tolist() == [792] * 4
    assert len(out["gaps"]) == 9 and out["fit_time"] > 0
    assert out["coverage"]["winobias"] == 1.0  # every WinoBias word is in GloVe 6B
    with pytest.raises(ValueError, match="train_splits must be"):
        coref.evaluate_coref(kv, train_splits="validation")


def test_real_baselines(use_data_home: Path) -> None:
    table = coref.coref_baselines(train_splits=("validation",))
    assert table.index.tolist() == [
        "most_frequent",
        "always_positive",
        "nearest_preceding",
        "first",
    ]
    assert (table.loc["most_frequent", ["gap_overall", "type1_pro"]] == 0).all()
    # WinoBias type 2 resolves to the nearer occupation (the object of the first clause)
    assert table.loc["nearest_preceding", ["type2_pro", "type2_anti"]].min() > 0.9
    assert table.loc["always_positive", "type1_pro"] == pytest.approx(2 / 3)


def test_standin_model_learns_the_cues_and_shows_the_embeddings_gender_association() -> None:
    """On the generated stand-in, GloVe's occupation-gender association gives pro > anti."""
    from nlpbias.models.embeddings import load_glove_50d
    from nlpbias.studies.intrinsic_extrinsic.coref import coref_baselines, evaluate_coref

    out = evaluate_coref(load_glove_50d(), random_state=0, source="standin")
    base = coref_baselines(source="standin")
    assert out["gap"].loc["overall", "f1"] > base["gap_overall"].max()
    assert out["gaps"]["type1_f1"] > 0  # held-out cues: the model falls back on stereotypes
    with pytest.raises(ValueError, match="source must be"):
        evaluate_coref(load_glove_50d(), source="gap")
