"""Tests for nlpbias.studies.intrinsic_extrinsic.balancing: dataset balancing (Goldfarb-Tarrant et
al.; Katô)."""

from __future__ import annotations

import doctest

import numpy as np
import pytest

import nlpbias.studies.intrinsic_extrinsic.balancing as corpus_mod
from nlpbias.data.wordsets import load_wordset
from nlpbias.metrics.query import Query
from nlpbias.studies.intrinsic_extrinsic.balancing import (
    CorpusBalance,
    balance_corpus,
    sentence_kinds,
)

Q = Query(
    targets={"male_jobs": ["doctor", "construction worker"], "female_jobs": ["nurse", "clerk"]},
    attributes={"male": ["he", "him"], "female": ["she", "her"]},
    name="toy",
)

# (sentence, kind by hand)
TOY = [
    ("he is a doctor", "stereotypical"),  # T1 & A1
    ("she is a doctor", "anti"),  # T1 & A2
    ("the nurse said she would come", "stereotypical"),  # T2 & A2
    ("ask him about the clerk", "anti"),  # T2 & A1
    ("the sea is blue", "neutral"),
    ("he likes the sea", "neutral"),  # attribute only
    ("the doctor and the nurse", "neutral"),  # targets only
    ("he told her the doctor was in", "both"),  # T1 & A1 and T1 & A2
    ("He Is A Construction Worker", "stereotypical"),  # multi-word, case
    ("a worker in construction met him", "neutral"),  # tokens not contiguous
    ("construction worker her", "anti"),
    ("she and the clerk", "stereotypical"),
]
SENTS = [s.split() for s, _ in TOY]
KINDS_BY_HAND = [k for _, k in TOY]


def expected_kept(kinds: list[str], eligible: tuple[str, ...], p: float, seed: int) -> list[bool]:
    """The documented draw order: one uniform per eligible sentence, in order; keep if u < p."""
    gen = np.random.default_rng(seed)
    n_eligible = sum(k in eligible for k in kinds)
    u = iter(gen.random(n_eligible))
    return [bool(next(u) < p) if k in eligible else True for k in kinds]


def test_kinds_by_hand() -> None:
    assert sentence_kinds(SENTS, Q).tolist() == KINDS_BY_HAND


def test_lowercase_false_is_case_sensitive() -> None:
    kinds = sentence_kinds(SENTS, Q, lowercase=False)
    assert kinds[8] == "neutral"  # "He ... Construction Worker" no longer matches
    assert kinds.tolist()[:8] == KINDS_BY_HAND[:8]


@pytest.mark.parametrize("seed", [0, 1, 7])
@pytest.mark.parametrize("p", [0.3, 0.5, 0.8])
def test_debias_keeps_exactly_the_expected_sentences(seed: int, p: float) -> None:
    res = balance_corpus(SENTS, Q, p=p, random_state=seed)
    kept = expected_kept(KINDS_BY_HAND, ("stereotypical", "both"), p, seed)
    assert res.kept.tolist() == kept
    assert res.sentences == [s for s, k in zip(SENTS, kept, strict=True) if k]
    assert res.kind.tolist() == KINDS_BY_HAND


@pytest.mark.parametrize("seed", [0, 3])
def test_overbias_keeps_exactly_the_expected_sentences(seed: int) -> None:
    res = balance_corpus(SENTS, Q, p=0.5, mode="overbias", random_state=seed)
    assert res.kept.tolist() == expected_kept(KINDS_BY_HAND, ("anti", "both"), 0.5, seed)


def test_p0_debias_removes_all_stereotypical_and_nothing_else() -> None:
    res = balance_corpus(SENTS, Q, p=0.0)
    removed = {i for i, k in enumerate(res.kept) if not k}
    assert removed == {i for i, k in enumerate(KINDS_BY_HAND) if k in ("stereotypical", "both")}
    assert len(res.sentences) == 12 - 5
    assert res.sentences[0] == "she is a doctor".split()


def test_p0_overbias_removes_all_anti_and_nothing_else() -> None:
    res = balance_corpus(SENTS, Q, p=0.0, mode="overbias")
    removed = [i for i, k in enumerate(res.kept) if not k]
    assert removed == [1, 3, 7, 10]


@pytest.mark.parametrize("mode", ["debias", "overbias"])
def test_p1_keeps_everything(mode: str) -> None:
    res = balance_corpus(SENTS, Q, p=1.0, mode=mode, random_state=5)
    assert res.kept.all() and res.sentences == SENTS
    assert all(a is b for a, b in zip(res.sentences, SENTS, strict=True))  # not copies


def test_overbias_mirrors_debias_with_swapped_attributes() -> None:
    """Swapping A1 and A2 turns stereotypical into anti sentences (both/neutral stay)."""
    swapped = Q.swap_attributes()
    a = balance_corpus(SENTS, Q, p=0.4, mode="debias", random_state=11)
    b = balance_corpus(SENTS, swapped, p=0.4, mode="overbias", random_state=11)
    assert a.kept.tolist() == b.kept.tolist()
    flip = {"stereotypical": "anti", "anti": "stereotypical", "both": "both", "neutral": "neutral"}
    assert [flip[k] for k in a.kind] == b.kind.tolist()


def test_summary_counts() -> None:
    res = balance_corpus(SENTS, Q, p=0.0)
    s = res.summary().set_index("kind")
    assert s["n_before"].to_dict() == {
        "stereotypical": 4,
        "anti": 3,
        "both": 1,
        "neutral": 4,
        "all": 12,
    }
    assert s["n_after"].to_dict() == {
        "stereotypical": 0,
        "anti": 3,
        "both": 0,
        "neutral": 4,
        "all": 7,
    }
    assert s["eligible"].tolist() == [True, False, True, False, False]
    assert (s["n_removed"] == s["n_before"] - s["n_after"]).all()
    assert isinstance(res, CorpusBalance)


def _big_corpus(n: int = 2000) -> list[list[str]]:
    gen = np.random.default_rng(123)
    vocab = ["he", "she", "doctor", "nurse", "the", "sea", "a", "is"]
    return [list(gen.choice(vocab, size=5)) for _ in range(n)]


def test_seed_reproducible_and_seeds_differ() -> None:
    big = _big_corpus()
    a = balance_corpus(big, Q, p=0.5, random_state=1)
    b = balance_corpus(big, Q, p=0.5, random_state=1)
    c = balance_corpus(big, Q, p=0.5, random_state=2)
    assert np.array_equal(a.kept, b.kept) and not np.array_equal(a.kept, c.kept)
    eligible = np.isin(a.kind, ["stereotypical", "both"])
    share = a.kept[eligible].mean()
    assert eligible.sum() > 500 and abs(share - 0.5) < 0.06
    assert a.kept[~eligible].all()


def test_larger_p_keeps_a_superset() -> None:
    big = _big_corpus(500)
    low = balance_corpus(big, Q, p=0.2, random_state=4).kept
    high = balance_corpus(big, Q, p=0.7, random_state=4).kept
    assert (high | ~low).all() and high.sum() > low.sum()


def test_generator_random_state_is_advanced() -> None:
    gen = np.random.default_rng(9)
    first = balance_corpus(SENTS, Q, p=0.5, random_state=gen).kept
    assert first.tolist() == expected_kept(KINDS_BY_HAND, ("stereotypical", "both"), 0.5, 9)
    second = balance_corpus(SENTS, Q, p=0.5, random_state=gen).kept
    ref = np.random.default_rng(9)
    ref.random(5)
    u = ref.random(5)
    elig = [i for i, k in enumerate(KINDS_BY_HAND) if k in ("stereotypical", "both")]
    assert [bool(second[i]) for i in elig] == (u < 0.5).tolist()


def test_accepts_wordset_and_tuples() -> None:
    ws = load_wordset("winobias_occupations")
    sents = [("the", "ceo", "said", "he", "would"), ("the", "nurse", "thanked", "him")]
    assert sentence_kinds(sents, ws).tolist() == ["stereotypical", "anti"]
    # case-sensitive: "CEO" in the word set does not match "ceo"
    assert sentence_kinds(sents, ws, lowercase=False).tolist() == ["neutral", "anti"]
    with pytest.raises(ValueError, match="no sentence contains both"):
        sentence_kinds([("the", "ceo", "said", "he")], ws, lowercase=False)


@pytest.mark.parametrize(
    "name, sentence, kind",
    [
        ("winobias_occupations", "the construction worker told her", "anti"),
        ("hsd_gender", "he is a stupid idiot", "stereotypical"),
        ("hsd_gender", "thanks to her , she won", "stereotypical"),
        ("hsd_race", "bruh that is stupid", "stereotypical"),
        ("hsd_race", "amazing you are stupid", "anti"),
    ],
)
def test_real_word_sets(name: str, sentence: str, kind: str) -> None:
    ws = load_wordset(name)
    kinds = sentence_kinds([sentence.split(), ["nothing", "here"]], ws)
    assert kinds.tolist() == [kind, "neutral"]
    res = balance_corpus([sentence.split(), ["nothing", "here"]], ws, p=0.0)
    assert len(res.sentences) == (1 if kind == "stereotypical" else 2)


def test_absent_set_is_logged(caplog) -> None:
    with caplog.at_level("WARNING", logger="nlpbias.studies.intrinsic_extrinsic.balancing"):
        sentence_kinds([["he", "doctor"]], Q)
    assert "'female_jobs', 'female'" in caplog.text


@pytest.mark.parametrize(
    "kwargs, exc, msg",
    [
        ({"p": -0.1}, ValueError, "p must be a number in [0, 1]"),
        ({"p": 1.5}, ValueError, "p must be a number in [0, 1]"),
        ({"p": float("nan")}, ValueError, "p must be a number in [0, 1]"),
        ({"p": True}, ValueError, "p must be a number"),
        ({"p": "0.5"}, ValueError, "p must be a number"),
        ({"p": 0.5, "mode": "unbias"}, ValueError, "mode must be"),
        ({"p": 0.5, "random_state": -1}, ValueError, "random_state"),
        ({"p": 0.5, "lowercase": "yes"}, TypeError, "lowercase"),
    ],
)
def test_argument_errors(one_line, kwargs: dict, exc: type, msg: str) -> None:
    with pytest.raises(exc) as err:
        balance_corpus(SENTS, Q, **kwargs)
    assert msg in one_line(err)


def test_corpus_errors(one_line) -> None:
    with pytest.raises(ValueError) as err:
        balance_corpus([], Q, p=0.5)
    assert "corpus is empty" in one_line(err)
    with pytest.raises(TypeError) as err:
        balance_corpus(["he is a doctor"], Q, p=0.5)
    assert "sentence 0 is a str" in one_line(err)
    with pytest.raises(TypeError) as err:
        balance_corpus("he is a doctor", Q, p=0.5)
    assert "token lists" in one_line(err)
    with pytest.raises(TypeError) as err:
        balance_corpus([["he", 3]], Q, p=0.5)
    assert "token 3" in one_line(err)
    with pytest.raises(ValueError) as err:
        balance_corpus([["the", "sea"], ["he", "said"]], Q, p=0.5)
    assert "check the word set / lower-casing" in one_line(err)
    with pytest.raises(TypeError) as err:
        balance_corpus(SENTS, {"targets": 1}, p=0.5)
    assert "Query" in one_line(err)


def test_docstring_examples() -> None:
    failed, attempted = doctest.testmod(corpus_mod, raise_on_error=False, verbose=False)[:2]
    assert attempted > 0 and failed == 0
