"""Tests for nlpbias.studies.pinned_auc.synthetic: the planted-bias Dixon scenario and its
templates."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from nlpbias.data import synthetic
from nlpbias.data.describe import identity_term_frequencies
from nlpbias.data.identity import load_identity_terms, term_mask
from nlpbias.studies.pinned_auc import synthetic as st

TERMS = list(synthetic.DEFAULT_TERMS)
BIASED = list(st.DEFAULT_BIASED_TERMS)


@pytest.fixture(scope="module")
def scenario() -> dict[str, pd.DataFrame]:
    return st.make_mitigation_scenario(random_state=0)


def test_frames_schema_and_labelled_synthetic(scenario) -> None:
    assert tuple(scenario) == st.SCENARIO_FRAMES
    sizes = {"train": 6000, "debias_pool": 3000, "random_pool": 3000, "general_test": 3000}
    for name, df in scenario.items():
        assert list(df.columns[:2]) == ["text", "toxic"], name
        assert df.columns[-1] == "source", name
        assert "term" in df.columns, name
        assert df["toxic"].dtype == bool, name
        assert (df["source"] == "synthetic").all(), name
        assert df["text"].map(lambda t: isinstance(t, str) and len(t) > 1).all(), name
        assert df.index.equals(pd.RangeIndex(len(df))), name
        if name in sizes:
            assert len(df) == sizes[name], name
    assert list(scenario["train"].columns) == [
        "text",
        "toxic",
        "term",
        "p_toxic",
        "implicit",
        "source",
    ]
    assert list(scenario["general_test"].columns) == list(scenario["train"].columns)
    assert list(scenario["debias_pool"].columns) == ["text", "toxic", "term", "source"]


def test_same_seed_same_frames_other_seed_other_frames() -> None:
    kw = dict(n_train=300, n_pool=200, n_test=100)
    a = st.make_mitigation_scenario(random_state=3, **kw)
    b = st.make_mitigation_scenario(random_state=3, **kw)
    c = st.make_mitigation_scenario(random_state=4, **kw)
    for name in st.SCENARIO_FRAMES:
        pd.testing.assert_frame_equal(a[name], b[name])
    for name in ("train", "debias_pool", "random_pool", "general_test"):
        assert not a[name]["text"].equals(c[name]["text"]), name
    # each frame has its own random stream: a bigger pool leaves train and test unchanged
    d = st.make_mitigation_scenario(random_state=3, **{**kw, "n_pool": 500})
    pd.testing.assert_frame_equal(a["train"], d["train"])
    pd.testing.assert_frame_equal(a["general_test"], d["general_test"])


def test_planted_imbalance_is_measurable_and_matches_the_truth(scenario) -> None:
    train = scenario["train"]
    freq = identity_term_frequencies(train, TERMS).set_index("term")
    truth = st.scenario_truth().set_index("term")
    assert truth.loc[BIASED, "planted"].all() and not truth["planted"].drop(BIASED).any()
    for t in TERMS:
        n, p = freq.loc[t, "n_overall"], truth.loc[t, "toxic_rate"]
        assert abs(freq.loc[t, "toxic_rate"] - p) < 4 * np.sqrt(p * (1 - p) / n), t
        sd_share = np.sqrt(truth.loc[t, "share_overall"] / len(train))
        assert abs(freq.loc[t, "share_overall"] - truth.loc[t, "share_overall"]) < 4 * sd_share
    # Dixon's Table 1 signature: biased terms over-represented in toxic texts, the others not
    assert (freq.loc[BIASED, "ratio"] > 2).all()
    assert (freq["ratio"].drop(BIASED) < 1.5).all()
    # each text mentions exactly the term in its term column, and no other
    mask = term_mask(train["text"], TERMS)
    has = train["term"].notna().to_numpy()
    assert (mask.sum(axis=1).to_numpy() == has.astype(int)).all()
    rows = np.flatnonzero(has)
    assert all(mask.iloc[i][train["term"].iloc[i]] for i in rows[:100])


def test_implicit_toxic_texts_have_no_insult_and_the_rest_do(scenario) -> None:
    for df in (scenario["train"], scenario["general_test"]):
        insult = term_mask(df["text"], list(synthetic.INSULTS)).any(axis=1).to_numpy()
        toxic, implicit = df["toxic"].to_numpy(), df["implicit"].to_numpy()
        assert not (implicit & ~toxic).any()
        assert not insult[implicit].any()
        assert insult[toxic & ~implicit].all()
        share = implicit[toxic].mean()
        assert abs(share - 0.5) < 4 * np.sqrt(0.25 / toxic.sum())
        # the label is not leaked by punctuation
        assert df["text"].str.endswith(".").all()


def test_friendly_words_only_in_non_toxic_texts(scenario) -> None:
    for name in ("train", "debias_pool", "random_pool"):
        df = scenario[name]
        friendly = term_mask(df["text"], list(st.POSITIVE_ADJECTIVES)).any(axis=1).to_numpy()
        toxic = df["toxic"].to_numpy()
        assert not friendly[toxic].any(), name
        share = friendly[~toxic].mean()
        assert abs(share - 0.5) < 4 * np.sqrt(0.25 / (~toxic).sum()), name


def test_pools_are_non_toxic_and_mention_terms_as_documented(scenario) -> None:
    debias, rand = scenario["debias_pool"], scenario["random_pool"]
    assert not debias["toxic"].any() and not rand["toxic"].any()
    mask = term_mask(debias["text"], TERMS)
    assert (mask.sum(axis=1) == 1).all()  # every snippet mentions exactly one term
    counts = mask.sum()
    expected = len(debias) / len(TERMS)
    assert ((counts - expected).abs() < 4 * np.sqrt(expected)).all()
    share = term_mask(rand["text"], TERMS).any(axis=1).mean()
    p = st.RANDOM_POOL_MENTION_RATE
    assert abs(share - p) < 4 * np.sqrt(p * (1 - p) / len(rand))


def test_pool_lengths_cover_every_training_length_bucket(scenario) -> None:
    lengths = scenario["train"]["text"].str.len()
    edges = np.quantile(lengths, [0.2, 0.4, 0.6, 0.8])
    for name in ("debias_pool", "random_pool"):
        buckets = np.digitize(scenario[name]["text"].str.len(), edges)
        shares = np.bincount(buckets, minlength=5) / len(buckets)
        assert (shares > 0.1).all(), (name, shares)


def test_templates_are_balanced_per_term() -> None:
    df = st.make_identity_templates(TERMS)
    per_term = len(st.TEMPLATE_FRAMES) * (len(st.NEGATIVE_ADJECTIVES) + len(st.POSITIVE_ADJECTIVES))
    assert len(st.NEGATIVE_ADJECTIVES) == len(st.POSITIVE_ADJECTIVES)
    assert (df.groupby("term")["toxic"].agg(["size", "mean"]) == [per_term, 0.5]).all().all()
    assert df["toxic"].equals(df["adjective"].isin(st.NEGATIVE_ADJECTIVES))
    # the same sentences for every term, up to the term
    mask = term_mask(df["text"], TERMS)
    assert (mask.sum(axis=1) == 1).all()
    assert all(mask.iloc[i][df["term"].iloc[i]] for i in range(0, len(df), 7))
    skeleton = [
        text.lower().replace(term, "<t>") for text, term in zip(df["text"], df["term"], strict=True)
    ]
    sets = pd.Series(skeleton).groupby(df["term"].to_numpy()).apply(frozenset)
    assert sets.nunique() == 1 and len(sets.iloc[0]) == per_term
    assert df.loc[0, "text"] == "Gay people are stupid."
    assert (df["source"] == "synthetic").all()


def test_scenario_templates_do_not_depend_on_the_seed() -> None:
    kw = dict(n_train=50, n_pool=20, n_test=20)
    a = st.make_mitigation_scenario(random_state=1, **kw)["templates"]
    b = st.make_mitigation_scenario(random_state=2, **kw)["templates"]
    pd.testing.assert_frame_equal(a, b)
    pd.testing.assert_frame_equal(a, st.make_identity_templates(TERMS))


def test_template_and_filler_words_are_not_identity_terms() -> None:
    words = set(" ".join(st.TEMPLATE_FRAMES.values()).split())
    words |= set(st.POSITIVE_ADJECTIVES) | set(st.NEGATIVE_ADJECTIVES)
    assert set(st.NEGATIVE_ADJECTIVES) <= set(synthetic.INSULTS)
    for term in load_identity_terms("dixon2018"):
        assert not set(term.split()) & words, term


def test_without_bias_or_implicit_toxicity() -> None:
    flat = st.make_mitigation_scenario(
        n_train=400, n_pool=50, n_test=50, biased_terms=[], implicit_rate=0.0, random_state=0
    )["train"]
    assert (flat["p_toxic"] == 0.2).all()
    assert not flat["implicit"].any()
    insult = term_mask(flat["text"], list(synthetic.INSULTS)).any(axis=1)
    assert insult[flat["toxic"]].all()


def test_scenario_truth_matches_hand_computation() -> None:
    # P(toxic) = 0.5 * 0.2 + 0.5 * (0.6 + 0.2) / 2 = 0.3; P(term) = 0.25
    truth = st.scenario_truth(
        terms=["gay", "deaf"], biased_terms=["gay"], biased_rate=0.6, mention_rate=0.5
    ).set_index("term")
    assert truth.loc["gay", "ratio"] == pytest.approx(2.0)
    assert truth.loc["deaf", "share_toxic"] == pytest.approx(0.25 * 0.2 / 0.3)
    assert truth["planted"].tolist() == [True, False]


@pytest.mark.parametrize(
    ("kwargs", "exc", "needle"),
    [
        (dict(biased_terms=["queer"]), ValueError, "biased_terms ['queer'] are not in terms"),
        (dict(biased_terms="gay"), TypeError, "not the single string"),
        (dict(terms="gay"), TypeError, "not the single string"),
        (dict(n_train=0), ValueError, "n_train must be an integer >= 1"),
        (dict(n_pool=2.5), ValueError, "n_pool must be an integer >= 1"),
        (dict(implicit_rate=1.5), ValueError, "implicit_rate must be a number in [0, 1]"),
        (dict(friendly_rate="x"), ValueError, "friendly_rate must be a number"),
        (dict(terms=["gay", "people"], biased_terms=["gay"]), ValueError, "template words"),
        (dict(terms=["gay", "idiot"], biased_terms=[]), ValueError, "filler words"),
    ],
)
def test_bad_input_raises_one_line_errors(kwargs, exc, needle, one_line) -> None:
    with pytest.raises(exc) as err:
        st.make_mitigation_scenario(
            **{"n_train": 10, "n_pool": 10, "n_test": 10, **kwargs}, random_state=None
        )
    assert needle in one_line(err)


def test_templates_reject_bad_terms(one_line) -> None:
    with pytest.raises(ValueError) as err:
        st.make_identity_templates(["gay", "gay"])
    assert "duplicates" in one_line(err)
