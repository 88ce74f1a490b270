"""The in-domain skew: target ratios reached, pools disjoint and clean, clear errors."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from nlpbias.data.describe import identity_term_frequencies
from nlpbias.data.identity import term_mask
from nlpbias.studies.pinned_auc.skew import skew_in_domain, table1_ratios


def corpus(counts: dict[str, tuple[int, int]], n_tox: int = 4000, n_non: int = 20000):
    """Texts with one term each (toxic, non-toxic counts per term) plus term-free texts."""
    rows = []
    for term, (k, n) in counts.items():
        rows += [(f"{term} idiot {i}", True) for i in range(k)]
        rows += [(f"{term} pride {i}", False) for i in range(n)]
    rows += [(f"you idiot {i}", True) for i in range(n_tox)]
    rows += [(f"nice day {i}", False) for i in range(n_non)]
    return pd.DataFrame(rows, columns=["text", "toxic"])


TARGETS = {"gay": 6.0, "queer": 5.0, "black": 1.2, "muslim": 2.0}
COUNTS = {"gay": (2000, 100), "queer": (1000, 100), "black": (500, 400), "muslim": (300, 200)}


def test_target_ratios_and_toxic_share_are_reached():
    res = skew_in_domain(corpus(COUNTS), TARGETS, toxic_share=0.15, random_state=0, hold_back=0.5)
    assert res.train["toxic"].mean() == pytest.approx(0.15, abs=0.002)
    freq = identity_term_frequencies(res.train, list(TARGETS)).set_index("term")
    for term, target in TARGETS.items():
        assert freq.loc[term, "ratio"] == pytest.approx(target, rel=0.03), term
    assert (res.report["status"] == "matched").all()
    assert res.skewed_terms == list(TARGETS)
    # the report's ratio is the one measured on the training set
    np.testing.assert_allclose(res.report["ratio"], freq.loc[list(TARGETS), "ratio"])


def test_pools_are_disjoint_non_toxic_and_hold_what_they_should():
    data = corpus(COUNTS)
    res = skew_in_domain(data, TARGETS, toxic_share=0.15, random_state=0, hold_back=0.5)
    parts = [set(res.train.index), set(res.held_back.index), set(res.control_pool.index)]
    assert not (parts[0] & parts[1] or parts[0] & parts[2] or parts[1] & parts[2])
    assert not res.held_back["toxic"].any() and not res.control_pool["toxic"].any()
    assert not data.loc[res.held_back.index, "toxic"].any()
    # every held-back text contains the term it was held back for; the control none of them
    held_mask = term_mask(res.held_back["text"], list(TARGETS))
    assert all(held_mask.loc[i, t] for i, t in res.held_back["term"].items())
    assert not term_mask(res.control_pool["text"], list(TARGETS)).to_numpy().any()
    # half of each term's non-toxic texts are held back (the default hold_back=0.5)
    rep = res.report.set_index("term")
    assert (rep["held_back"] == rep["nontoxic_texts"] - rep["nontoxic_texts"] // 2).all()
    assert len(res.control_pool) == 2 * sum(n for _, n in COUNTS.values())


def test_toxic_limited_and_too_rare_terms():
    counts = {"gay": (10, 300), "queer": (0, 50)}
    res = skew_in_domain(
        corpus(counts), {"gay": 6.0, "queer": 5.0}, toxic_share=0.15, random_state=1, hold_back=0.5
    )
    rep = res.report.set_index("term")
    assert rep.loc["gay", "status"] == "toxic-limited"
    assert rep.loc["gay", "kept_toxic"] == 10  # all its toxic texts, and more held back
    assert rep.loc["gay", "held_back"] > 150
    assert rep.loc["gay", "ratio"] == pytest.approx(6.0, rel=0.05)
    assert rep.loc["queer", "status"] == "too rare" and rep.loc["queer", "held_back"] == 0
    assert res.skewed_terms == ["gay"]


def test_same_seed_same_sets_other_seed_other_sets():
    data = corpus(COUNTS)
    a = skew_in_domain(data, TARGETS, random_state=3, toxic_share=0.15, hold_back=0.5)
    b = skew_in_domain(data, TARGETS, random_state=3, toxic_share=0.15, hold_back=0.5)
    c = skew_in_domain(data, TARGETS, random_state=4, toxic_share=0.15, hold_back=0.5)
    pd.testing.assert_frame_equal(a.train, b.train)
    pd.testing.assert_frame_equal(a.held_back, b.held_back)
    assert not a.train.index.equals(c.train.index)


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        (dict(targets={"gay": 7.0}, toxic_share=0.15), "out of reach"),
        (dict(targets={}), "non-empty mapping"),
        (dict(targets={"gay": -1.0}), "positive number"),
        (dict(targets=TARGETS, control_size=10**6), "smaller control_size"),
        (dict(targets=TARGETS, toxic_share=1.5), "toxic_share"),
        (dict(targets=TARGETS, toxic_share=0.2, hold_back=2.0), "hold_back"),
    ],
)
def test_bad_arguments_are_refused(kwargs, match):
    with pytest.raises(ValueError, match=match):
        skew_in_domain(
            corpus(COUNTS), **{"toxic_share": 0.15, "hold_back": 0.5, **kwargs}, random_state=None
        )


def test_too_high_toxic_share_says_so():
    few = corpus(COUNTS, n_tox=10)
    with pytest.raises(ValueError, match="toxic_share=0.15 needs"):
        skew_in_domain(few, TARGETS, toxic_share=0.15, random_state=0, hold_back=0.5)
    few_free = corpus(COUNTS, n_non=2000)
    with pytest.raises(ValueError, match="raise toxic_share"):
        skew_in_domain(few_free, TARGETS, toxic_share=0.15, random_state=0, hold_back=0.5)


def test_table1_ratios():
    table = {"gay": {"toxic": 3.0, "overall": 0.5}, "x": {"toxic": 1, "overall": 2}}
    assert table1_ratios(table) == {"gay": 6.0, "x": 0.5}
    with pytest.raises(ValueError, match="no positive overall share"):
        table1_ratios({"gay": {"toxic": 3.0, "overall": 0}})
