"""Tests for nlpbias.mitigation: length-bucket balancing (Dixon et al. 2018) and its control."""

from __future__ import annotations

import doctest

import numpy as np
import pandas as pd
import pytest

import nlpbias.studies.pinned_auc.mitigation as mit
from nlpbias.data.identity import term_mask
from nlpbias.studies.pinned_auc.mitigation import (
    BalanceResult,
    augment,
    balance_by_length,
    frequency_change,
    length_buckets,
    random_control,
)


def pad(s: str, n: int) -> str:
    assert len(s) <= n
    return s.ljust(n, ".")


def _train() -> pd.DataFrame:
    """Two length buckets (10 and 40 characters; edge 25), each 8 texts with toxic share 0.5.

    Bucket 1: 'gay' in 4 texts, 3 toxic -> needed = ceil(3 / 0.5 - 4) = 2; 'deaf' absent.
    Bucket 2: 'gay' in 2 texts, 1 toxic (= 0.5, not disproportionate); 'deaf' in 3, all toxic ->
    needed = ceil(3 / 0.5 - 3) = 3.
    """
    rows = [("gay x", True)] * 3 + [("gay y", False)] + [("z", True)] + [("w", False)] * 3
    short = [(pad(t, 10), y) for t, y in rows]
    rows = [("gay x", True), ("gay y", False)] + [("deaf x", True)] * 3 + [("w", False)] * 3
    long = [(pad(t, 40), y) for t, y in rows]
    return pd.DataFrame(short + long, columns=["text", "toxic"])


def _pool() -> pd.DataFrame:
    texts = [
        "gay",  # 3 chars: shorter than any training text -> bucket 1
        pad("gay pride", 20),  # bucket 1
        pad("gay bar", 100),  # longer than any training text -> bucket 2
        pad("deaf club", 30),  # bucket 2
        pad("deaf", 12),  # bucket 1: useless for 'deaf' (needed only in bucket 2)
        pad("sea", 30),
    ]
    return pd.DataFrame({"text": texts, "toxic": False}, index=[f"p{i}" for i in range(6)])


# --------------------------------------------------------------------------- buckets


def test_length_buckets_match_qcut_and_clip_with_edges() -> None:
    x = np.random.default_rng(0).integers(1, 300, size=500)
    b, edges = length_buckets(x, n_buckets=5)
    expected = pd.qcut(x, 5, labels=False, duplicates="drop") + 1
    assert b.tolist() == expected.tolist()
    assert edges.size == 6 and edges[0] == x.min() and edges[-1] == x.max()
    b2, e2 = length_buckets([0, 10, 25, 26, 40, 1000], edges=[10, 25, 40])
    assert b2.tolist() == [1, 1, 1, 2, 2, 2]
    assert e2.tolist() == [10, 25, 40]


def test_length_buckets_ties_and_constant() -> None:
    b, edges = length_buckets([5, 5, 5, 5, 9], n_buckets=4)  # quantiles 5,5,5,5,9 -> one edge pair
    assert edges.tolist() == [5, 9] and b.tolist() == [1, 1, 1, 1, 1]
    b, edges = length_buckets([7, 7], n_buckets=3)
    assert edges.tolist() == [7, 7] and b.tolist() == [1, 1]


@pytest.mark.parametrize(
    "kwargs",
    [{"n_buckets": 0}, {"n_buckets": True}, {"edges": [3]}, {"edges": [1, 5, 4]}],
)
def test_length_buckets_rejects_bad_arguments(kwargs, one_line) -> None:
    with pytest.raises(ValueError) as err:
        length_buckets([1, 2, 3], **kwargs)
    one_line(err)


# --------------------------------------------------------------------------- balancing


def test_hand_computed_needs_shortfall_and_pool_buckets() -> None:
    res = balance_by_length(_train(), _pool(), terms=["gay", "deaf"], n_buckets=2, random_state=0)
    assert res.edges.tolist() == [10, 25, 40]
    rep = res.report.set_index(["term", "bucket"])
    assert list(res.report.columns) == mit.REPORT_COLUMNS
    assert len(rep) == 4
    gay1, gay2, deaf1, deaf2 = (
        rep.loc[k] for k in [("gay", 1), ("gay", 2), ("deaf", 1), ("deaf", 2)]
    )
    # gay, bucket 1: 4 texts, 3 toxic, share 0.5 -> needed 2; pool 'gay' (3 chars) and
    # 'gay pride' (20) fall in bucket 1 under the training edges
    assert (gay1["n"], gay1["n_toxic"], gay1["toxic_share"], gay1["bucket_share"]) == (
        4,
        3,
        0.75,
        0.5,
    )
    assert (gay1["needed"], gay1["available"], gay1["added"], gay1["shortfall"]) == (2, 2, 2, 0)
    # gay, bucket 2: 1 of 2 toxic equals the bucket share -> nothing to add
    assert not gay2["disproportionate"]
    assert (gay2["needed"], gay2["available"], gay2["added"]) == (0, 1, 0)
    # deaf, bucket 1: no training text -> NaN share, nothing needed
    assert deaf1["n"] == 0 and np.isnan(deaf1["toxic_share"]) and deaf1["needed"] == 0
    # deaf, bucket 2: needed ceil(3 / 0.5 - 3) = 3, one pool text -> shortfall 2
    assert (deaf2["needed"], deaf2["available"], deaf2["added"], deaf2["shortfall"]) == (3, 1, 1, 2)
    added = res.added
    assert sorted(added.index) == ["p0", "p1", "p3"]
    assert added.loc["p0", "term"] == "gay" and added.loc["p0", "bucket"] == 1
    assert added.loc["p3", "term"] == "deaf" and added.loc["p3", "bucket"] == 2
    assert not added["toxic"].any() and set(added["source"]) == {"mitigation"}
    assert list(added.columns) == ["text", "toxic", "term", "bucket", "source"]
    assert res.added_per_bucket.to_dict() == {1: 2, 2: 1}


def test_no_additions_when_not_disproportionate() -> None:
    train = pd.DataFrame(
        {"text": ["gay x", "gay y", "a", "b"], "toxic": [True, False, True, False]}
    )
    pool = pd.DataFrame({"text": ["gay pride", "gay bar"]})
    res = balance_by_length(train, pool, terms=["gay"], n_buckets=1, random_state=None)
    assert res.added.empty and list(res.added.columns) == [
        "text",
        "toxic",
        "term",
        "bucket",
        "source",
    ]
    assert res.report[["needed", "added", "shortfall"]].to_numpy().tolist() == [[0, 0, 0]]
    assert res.added_per_bucket.tolist() == [0]


def test_needed_is_exact_in_integers() -> None:
    # bucket share 11/15; 'gay' in 11 texts, all toxic: 11 / (11/15) - 11 = 4 exactly, but in
    # floating point it is 4.000000000000002, whose ceiling would be 5
    train = pd.DataFrame({"text": ["gay"] * 11 + ["x"] * 4, "toxic": [True] * 11 + [False] * 4})
    pool = pd.DataFrame({"text": [f"gay {i}" for i in range(9)]})
    res = balance_by_length(train, pool, terms=["gay"], n_buckets=1, random_state=0)
    assert res.report.loc[0, "needed"] == 4 and len(res.added) == 4
    assert 11 / 15 == res.report.loc[0, "bucket_share"]


@pytest.mark.parametrize(
    ("terms", "credited"), [(["gay", "deaf"], "gay"), (["deaf", "gay"], "deaf")]
)
def test_text_with_two_terms_is_drawn_once(terms, credited) -> None:
    train = pd.DataFrame(
        {"text": ["gay a", "deaf b", "c", "d"], "toxic": [True, True, False, False]}
    )
    pool = pd.DataFrame({"text": ["gay and deaf"]})
    res = balance_by_length(train, pool, terms=terms, n_buckets=1, random_state=None)
    assert res.added["term"].tolist() == [credited]
    rep = res.report.set_index("term")
    other = terms[1]
    assert rep.loc[credited, "added"] == 1 and rep.loc[credited, "available"] == 1
    assert (
        rep.loc[other, "available"] == 0 and rep.loc[other, "shortfall"] == rep.loc[other, "needed"]
    )


def test_determinism_and_seed_dependence() -> None:
    train = pd.DataFrame({"text": ["gay x"] * 3 + ["y"] * 3, "toxic": [True] * 3 + [False] * 3})
    pool = pd.DataFrame({"text": [f"gay {i}" for i in range(60)]})
    runs = [
        balance_by_length(train, pool, terms=["gay"], n_buckets=1, random_state=s).added
        for s in (0, 0, 1)
    ]
    assert runs[0].loc[:, "text"].size == 3  # ceil(3 / 0.5 - 3)
    pd.testing.assert_frame_equal(runs[0], runs[1])
    assert runs[0].index.tolist() != runs[2].index.tolist()


def test_case_insensitive_whole_word_matching() -> None:
    train = pd.DataFrame({"text": ["Gay x", "y"], "toxic": [True, False]})
    pool = pd.DataFrame({"text": ["gaydar", "GAY rights"]})
    res = balance_by_length(train, pool, terms=["gay"], n_buckets=1, random_state=None)
    assert res.report.loc[0, "available"] == 1 and res.added["text"].tolist() == ["GAY rights"]


def test_errors_are_one_line(one_line) -> None:
    train, pool = _train(), _pool()
    cases = [
        (
            ValueError,
            lambda: balance_by_length(
                train, pool.iloc[:0], terms=["gay"], n_buckets=5, random_state=None
            ),
        ),
        (
            ValueError,
            lambda: balance_by_length(
                train.assign(toxic=False), pool, terms=["gay"], n_buckets=5, random_state=None
            ),
        ),
        (
            KeyError,
            lambda: balance_by_length(
                train, pool, terms=["gay"], label="label", n_buckets=5, random_state=None
            ),
        ),
        (
            KeyError,
            lambda: balance_by_length(
                train,
                pool.rename(columns={"text": "t"}),
                terms=["gay"],
                n_buckets=5,
                random_state=None,
            ),
        ),
        (
            ValueError,
            lambda: balance_by_length(
                train, pool.assign(toxic=True), terms=["gay"], n_buckets=5, random_state=None
            ),
        ),
        (
            ValueError,
            lambda: balance_by_length(train, pool, terms=[], n_buckets=5, random_state=None),
        ),
        (
            TypeError,
            lambda: balance_by_length(train, pool, terms="gay", n_buckets=5, random_state=None),
        ),
        (
            ValueError,
            lambda: balance_by_length(train, pool, terms=["gay"], n_buckets=0, random_state=None),
        ),
    ]
    msgs = []
    for exc, call in cases:
        with pytest.raises(exc) as err:
            call()
        msgs.append(one_line(err))
    assert "pool is empty" in msgs[0] and "no toxic rows" in msgs[1] and "'label'" in msgs[2]
    assert "labelled toxic" in msgs[4]


# --------------------------------------------------------------------------- control


def _random_pool() -> pd.DataFrame:
    lengths = [3, 10, 15, 20, 24, 26, 30, 60, 100]  # 5 in bucket 1, 4 in bucket 2
    return pd.DataFrame({"text": [pad(f"r{i}", n) for i, n in enumerate(lengths)]})


def test_random_control_matches_counts_per_bucket() -> None:
    res = balance_by_length(_train(), _pool(), terms=["gay", "deaf"], n_buckets=2, random_state=0)
    ctrl = random_control(_train(), _random_pool(), res, random_state=0, n_buckets=5)
    assert ctrl["bucket"].value_counts().sort_index().to_dict() == {1: 2, 2: 1}
    lengths = ctrl["text"].str.len()
    assert (lengths[ctrl["bucket"] == 1] <= 25).all() and (lengths[ctrl["bucket"] == 2] > 25).all()
    assert set(ctrl["source"]) == {"random"} and not ctrl["toxic"].any()
    assert ctrl.index.is_unique
    again = random_control(_train(), _random_pool(), res, random_state=0, n_buckets=5)
    pd.testing.assert_frame_equal(ctrl, again)
    same = random_control(_train(), _random_pool(), {1: 2, 2: 1}, n_buckets=2, random_state=0)
    pd.testing.assert_frame_equal(ctrl, same)


def test_random_control_shortfall(one_line, caplog) -> None:
    with caplog.at_level("WARNING", logger="nlpbias.studies.pinned_auc.mitigation"):
        ctrl = random_control(
            _train(), _random_pool(), {1: 0, 2: 6}, n_buckets=2, random_state=None
        )
    assert ctrl["bucket"].tolist() == [2, 2, 2, 2] and "bucket 2 asks for 6" in caplog.text
    with pytest.raises(ValueError) as err:
        random_control(
            _train(), _random_pool(), {2: 6}, n_buckets=2, strict=True, random_state=None
        )
    assert "pool has 4" in one_line(err)


def test_random_control_rejects_bad_counts_and_other_train(one_line) -> None:
    res = balance_by_length(_train(), _pool(), terms=["gay"], n_buckets=2, random_state=0)
    other = _train().iloc[:12]
    cases = [
        (
            ValueError,
            lambda: random_control(other, _random_pool(), res, n_buckets=5, random_state=None),
        ),
        (
            ValueError,
            lambda: random_control(
                _train(), _random_pool(), {3: 1}, n_buckets=2, random_state=None
            ),
        ),
        (
            ValueError,
            lambda: random_control(
                _train(), _random_pool(), {1: -1}, n_buckets=2, random_state=None
            ),
        ),
        (
            TypeError,
            lambda: random_control(
                _train(), _random_pool(), [1, 2], n_buckets=2, random_state=None
            ),
        ),
        (
            ValueError,
            lambda: random_control(
                _train(), _random_pool().iloc[:0], res, n_buckets=5, random_state=None
            ),
        ),
    ]
    for exc, call in cases:
        with pytest.raises(exc) as err:
            call()
        one_line(err)


# --------------------------------------------------------------------------- augment, Table 1


def test_augment_and_frequency_change() -> None:
    train = _train()
    res = balance_by_length(train, _pool(), terms=["gay", "deaf"], n_buckets=2, random_state=0)
    aug = augment(train, res)
    assert len(aug) == len(train) + 3 and list(aug.columns) == ["text", "toxic", "source"]
    assert aug["source"].value_counts().to_dict() == {"train": 16, "mitigation": 3}
    ch = frequency_change(train, aug, ["gay", "deaf"]).set_index("term")
    # gay: 6 texts, 4 toxic before; +2 non-toxic after -> 4/8
    assert ch.loc["gay", "toxic_rate_before"] == pytest.approx(4 / 6)
    assert ch.loc["gay", "toxic_rate_after"] == pytest.approx(4 / 8)
    # deaf: 3 of 3 toxic before, +1 -> 3/4; share_toxic is unchanged by non-toxic additions
    assert ch.loc["deaf", "toxic_rate_after"] == pytest.approx(3 / 4)
    assert ch.loc["deaf", "share_toxic_before"] == ch.loc["deaf", "share_toxic_after"] == 3 / 8
    assert ch.loc["deaf", "share_overall_after"] == pytest.approx(4 / 19)
    with pytest.raises(KeyError):
        augment(train, res.added.drop(columns="source"))


def test_docstring_examples() -> None:
    failed, attempted = doctest.testmod(mit, raise_on_error=False, verbose=False)[:2]
    assert attempted > 0 and failed == 0


# --------------------------------------------------------------------------- real data


@pytest.mark.usefixtures("use_data_home")
def test_real_davidson_with_dixon_pool() -> None:
    from nlpbias.data.dixon import load_dixon_pool
    from nlpbias.data.identity import load_identity_terms
    from nlpbias.data.toxicity import load_davidson

    train = load_davidson().sample(4000, random_state=0)
    pool = load_dixon_pool("debias")
    pool = pool[pool["split"] == "train"]
    terms = load_identity_terms()
    res = balance_by_length(train, pool, terms=terms, random_state=0, n_buckets=5)
    assert isinstance(res, BalanceResult)
    rep, added = res.report, res.added
    k = len(res.edges) - 1
    assert k == 5 and len(rep) == len(terms) * k
    assert (rep["added"] == np.minimum(rep["needed"], rep["available"])).all()
    assert (rep["shortfall"] == rep["needed"] - rep["added"]).all() and (
        rep["shortfall"] >= 0
    ).all()
    assert ((rep["needed"] > 0) == rep["disproportionate"]).all()
    assert rep["added"].sum() == len(added) > 0 and added.index.is_unique
    # needed is the smallest count that brings the term's toxic share down to the bucket's
    d = rep[rep["disproportionate"]]
    assert (d["n_toxic"] / (d["n"] + d["needed"]) <= d["bucket_share"] + 1e-12).all()
    assert (d["n_toxic"] / (d["n"] + d["needed"] - 1) > d["bucket_share"]).all()
    # every added text contains its term and lies in its bucket under the training edges
    mask = term_mask(added["text"], terms)
    assert all(mask.loc[i, t] for i, t in added["term"].items())
    buckets, _ = length_buckets(added["text"].str.len(), edges=res.edges)
    assert buckets.tolist() == added["bucket"].tolist()
    rand = load_dixon_pool("random")
    ctrl = random_control(train, rand[rand["split"] == "train"], res, random_state=0, n_buckets=5)
    got = ctrl["bucket"].value_counts().reindex(res.added_per_bucket.index, fill_value=0)
    assert (got <= res.added_per_bucket).all() and got.sum() > 0


def test_a_term_list_with_no_term_in_the_training_texts_is_refused_before_training() -> None:
    train = pd.DataFrame({"text": ["you are dumb", "nice day"] * 5, "toxic": [True, False] * 5})
    pool = pd.DataFrame({"text": ["a calm sentence"] * 3})
    with pytest.raises(ValueError, match=r"none of the 2 terms \(zebra, quokka\) occurs"):
        balance_by_length(train, pool, terms=["zebra", "quokka"], n_buckets=2, random_state=0)
