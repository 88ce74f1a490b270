"""Tests for nlpbias.studies.scoring.claims (Dong's cross-model claims and Table 3) and
claims_figure, on planted per-seed biases."""

from __future__ import annotations

import doctest
import itertools

import numpy as np
import pandas as pd
import pytest
from figure_checks import assert_legend_clear
from matplotlib.collections import LineCollection, PathCollection
from matplotlib.colors import to_hex

import nlpbias.studies.scoring.claims as claims_module
from nlpbias.data.reported import load_reported
from nlpbias.studies.scoring.claims import (
    check_claims,
    claim_parts,
    paper_claims,
    paper_topk,
)
from nlpbias.studies.scoring.figures import ABSENT, COUNTS_COLOUR, claims_figure
from nlpbias.studies.scoring.study import reported

REP = load_reported("dong2020")
CONCEPTS = ["career", "family", "pleasant", "unpleasant", "leader", "follower", "average"]
#: planted per-seed biases (seeds 0, 1); the base model's value and bootstrap interval
PLANTED = {
    ("Trump", "career"): [-0.30, -0.34],
    ("Trump", "family"): [0.20, 0.22],
    ("Trump", "pleasant"): [0.10, 0.12],
    ("Trump", "unpleasant"): [0.05, -0.05],  # within the seed spread
    ("Trump", "leader"): [-0.40, -0.42],
    ("Trump", "follower"): [-0.10, -0.11],
    ("Trump", "average"): [-0.10, -0.11],
    ("Clinton", "career"): [-0.20, -0.21],
    ("Clinton", "family"): [-0.21, -0.20],  # |family| as Trump's: "even"
    ("Clinton", "pleasant"): [-0.10, -0.12],
    ("Clinton", "unpleasant"): [0.30, 0.31],
    ("Clinton", "leader"): [0.15, 0.16],
    ("Clinton", "follower"): [0.10, 0.12],
    ("Clinton", "average"): [-0.05, -0.06],
}
BASE = {"career": -0.43, "family": 0.05, "pleasant": 0.02, "unpleasant": -0.03,
        "leader": -0.10, "follower": 0.04, "average": -0.075}  # fmt: skip
BASE_CI = {"career": (-0.6, -0.3), "family": (-0.1, 0.2), "pleasant": (-0.1, 0.1),
           "unpleasant": (-0.2, 0.1), "leader": (-0.2, -0.02), "follower": (-0.1, 0.2),
           "average": (np.nan, np.nan)}  # fmt: skip


def _biases(changes: dict | None = None) -> pd.DataFrame:
    values = {**PLANTED, **(changes or {})}
    rows = [
        {"person": p, "seed": s, "concept": c, "bias": values[p, c][s], "base": BASE[c],
         "difference": values[p, c][s] - BASE[c]}
        for p, s, c in itertools.product(["Trump", "Clinton"], [0, 1], CONCEPTS)
    ]  # fmt: skip
    return pd.DataFrame(rows)


def _base_table() -> pd.DataFrame:
    return pd.DataFrame(
        [{"model": "base", "attribute": c, "bias": BASE[c], "ci_low": BASE_CI[c][0],
          "ci_high": BASE_CI[c][1]} for c in CONCEPTS]
    )  # fmt: skip


def _check(biases: pd.DataFrame, rep=REP) -> pd.DataFrame:
    out = check_claims(biases, rep, base_table=_base_table(), base_label="base")
    return out.set_index("key")


def _rep(*claims: dict) -> dict:
    return {"claims": list(claims)}


def test_doctests() -> None:
    failed, attempted = doctest.testmod(claims_module, raise_on_error=False, verbose=False)[:2]
    assert attempted > 0 and failed == 0


# ----------------------------------------------------------------------------- the paper
def test_table3_is_transcribed_whole_and_ranked() -> None:
    t = paper_topk(REP)
    assert len(t) == 18 and list(t["attribute"].unique()) == [
        "executive", "management", "professional",
    ]  # fmt: skip
    targets = {"he", "boys", "men", "she", "girls", "women"}
    for _, sub in t.groupby("attribute"):
        assert sub["rank"].tolist() == [1, 2, 3, 4, 5, 6]
        assert set(sub["target"]) == targets  # each target once per attribute
        assert (np.diff(sub["score"].to_numpy()) <= 0).all()  # ranked best first
    assert set(t.loc[t["target"].isin(["she", "girls", "women"]), "gender"]) == {"female"}
    assert set(t.loc[t["target"].isin(["he", "boys", "men"]), "gender"]) == {"male"}
    assert t.attrs["template"] == "[TARGET] likes [ATTRIBUTE]"


def test_claims_load_and_the_old_readers_still_work() -> None:
    claims = paper_claims(REP)
    keys = [c["key"] for c in claims]
    for key in ("career_everyone_pro_male", "leader_pro_male_except_clinton",
                "dong_twice_trump", "dong_pro_female_only_follower"):  # fmt: skip
        assert key in keys
    rep = reported()  # the chapter's reader: old keys as before, new ones beside them
    assert rep["average"] == {"Trump": -0.082, "Clinton": -0.068}
    assert {"career", "leader", "average"} <= set(rep["base_bias"])
    assert "claims" in rep and "table3" in rep


@pytest.mark.parametrize(
    ("rep", "match"),
    [
        ({}, "no 'claims'"),
        (_rep({"key": "k", "words": "w", "kind": "vibes"}), "kind 'vibes'"),
        (_rep({"key": "k", "words": "w", "kind": "ratio", "first": "A"}), "lacks"),
        (_rep({"key": "k", "words": "w", "kind": "signs", "signs": {"A": {"c": 2}}}), "-1 or 1"),
    ],
)
def test_paper_claims_errors(rep, match) -> None:
    with pytest.raises((KeyError, ValueError), match=match):
        paper_claims(rep)


# ----------------------------------------------------------------------------- verdicts
def test_every_claim_of_the_file_gets_a_verdict_and_dong_is_not_testable() -> None:
    out = _check(_biases())
    assert list(out.index) == [c["key"] for c in paper_claims(REP)]
    assert set(out["verdict"]) <= {"holds", "does not hold", "not testable here"}
    twice = out.loc["dong_twice_trump"]
    assert twice["verdict"] == "not testable here" and twice["absent"] == "Dong"
    assert "Dong not in this book" in twice["why"]
    assert pd.isna(out.loc["dong_pro_female_only_follower", "verdict here"])  # nobody to test
    # everyone pro-male on career: not testable as a whole, holds on the three models here
    career = out.loc["career_everyone_pro_male"]
    assert (career["verdict"], career["verdict here"]) == ("not testable here", "holds")
    assert out.loc["same_direction", "verdict"] == "not testable here"
    assert "no rule" in out.loc["same_direction", "why"]
    # Trump and Clinton's family have the same size: "even" holds, and is fully testable
    assert out.loc["family_even_trump_clinton", "verdict"] == "holds"


CAREER = {"key": "career", "words": "everyone is pro-male on career", "kind": "signs",
          "signs": {"BERT-base": {"career": -1}, "Trump": {"career": -1},
                    "Clinton": {"career": -1}}}  # fmt: skip


def test_a_sign_claim_flips_with_a_planted_score_both_ways() -> None:
    rep = _rep(CAREER)
    assert _check(_biases(), rep).loc["career", "verdict"] == "holds"
    flipped = _check(_biases({("Clinton", "career"): [0.20, 0.21]}), rep).loc["career"]
    assert flipped["verdict"] == "does not hold"
    assert "pro-female, not pro-male" in flipped["why"]
    # and back: a claim that does not hold starts to hold when the planted score does
    pro_female = {**CAREER, "signs": {**CAREER["signs"], "Clinton": {"career": 1}}}
    assert _check(_biases(), _rep(pro_female)).loc["career", "verdict"] == "does not hold"
    moved = _check(_biases({("Clinton", "career"): [0.20, 0.21]}), _rep(pro_female))
    assert moved.loc["career", "verdict"] == "holds"


def test_a_sign_within_the_seed_spread_does_not_hold() -> None:
    # mean −0.01, range 0.1: the band mean ± range reaches 0
    out = _check(_biases({("Trump", "career"): [0.04, -0.06]}), _rep(CAREER)).loc["career"]
    assert out["verdict"] == "does not hold" and "includes 0" in out["why"]


def test_the_base_model_uses_its_bootstrap_interval() -> None:
    base_leader = {"key": "b", "words": "w", "kind": "signs",
                   "signs": {"BERT-base": {"leader": -1}}}  # fmt: skip
    assert _check(_biases(), _rep(base_leader)).loc["b", "verdict"] == "holds"
    base_family = {**base_leader, "signs": {"BERT-base": {"family": 1}}}
    assert _check(_biases(), _rep(base_family)).loc["b", "verdict"] == "does not hold"
    base_average = {**base_leader, "signs": {"BERT-base": {"average": -1}}}  # no interval
    assert _check(_biases(), _rep(base_average)).loc["b", "verdict"] == "not testable here"


def test_leader_except_clinton_flips_when_clinton_turns_pro_male() -> None:
    claim = next(c for c in paper_claims(REP) if c["key"] == "leader_pro_male_except_clinton")
    claim = {**claim, "signs": {k: v for k, v in claim["signs"].items() if k != "Dong"}}
    assert _check(_biases(), _rep(claim)).loc[claim["key"], "verdict"] == "holds"
    turned = _biases({("Clinton", "leader"): [-0.15, -0.16]})
    assert _check(turned, _rep(claim)).loc[claim["key"], "verdict"] == "does not hold"


def test_an_absent_person_is_not_testable_and_named() -> None:
    claim = {"key": "k", "words": "w", "kind": "signs",
             "signs": {"Trump": {"career": -1}, "Obama": {"career": -1}}}  # fmt: skip
    out = _check(_biases(), _rep(claim)).loc["k"]
    assert out["verdict"] == "not testable here"
    assert out["absent"] == "Obama" and out["verdict here"] == "holds"
    assert out["why"].startswith("Obama not in this book; on Trump: holds")


RATIO = {"key": "r", "words": "Trump twice Clinton", "kind": "ratio", "first": "Trump",
         "second": "Clinton", "concept": "average", "factor": 2}  # fmt: skip


def test_a_ratio_claim_flips_with_the_planted_ratio() -> None:
    # Trump −0.10/−0.11, Clinton −0.05/−0.06: ratios 2.0, 1.67, 2.2, 1.83 -> 2 within
    assert _check(_biases(), _rep(RATIO)).loc["r", "verdict"] == "holds"
    four_times = _biases({("Trump", "average"): [-0.20, -0.22]})
    out = _check(four_times, _rep(RATIO)).loc["r"]
    assert out["verdict"] == "does not hold" and "outside" in out["why"]
    # a denominator whose sign is not established: its size is no multiple
    unsure = _biases({("Clinton", "average"): [0.02, -0.03]})
    assert _check(unsure, _rep(RATIO)).loc["r", "verdict"] == "does not hold"


def test_a_ratio_with_one_seed_is_not_testable() -> None:
    one_seed = _biases()
    one_seed = one_seed[one_seed["seed"] == 0]
    out = _check(one_seed, _rep(RATIO)).loc["r"]
    assert out["verdict"] == "not testable here"


def test_an_order_claim_flips() -> None:
    order = {"key": "o", "words": "Clinton least so", "kind": "order", "first": "Clinton",
             "others": ["Trump"], "concept": "average"}  # fmt: skip
    assert _check(_biases(), _rep(order)).loc["o", "verdict"] == "holds"
    swapped = _biases({("Clinton", "average"): [-0.30, -0.31]})
    assert _check(swapped, _rep(order)).loc["o", "verdict"] == "does not hold"


def test_a_split_claim_needs_both_signs_established() -> None:
    split = {"key": "s", "words": "split", "kind": "split", "models": ["Trump", "Clinton"],
             "concepts": ["follower", "pleasant"]}  # fmt: skip
    assert _check(_biases(), _rep(split)).loc["s", "verdict"] == "holds"
    same = _biases({("Clinton", "follower"): [-0.10, -0.12]})
    assert _check(same, _rep(split)).loc["s", "verdict"] == "does not hold"


def test_check_claims_input_errors() -> None:
    with pytest.raises(KeyError, match="lacks"):
        check_claims(_biases().drop(columns="base"), REP, base_table=None, base_label="base")
    with pytest.raises(ValueError, match="no rows of 'bert'"):
        check_claims(_biases(), REP, base_table=_base_table(), base_label="bert")
    with pytest.raises(ValueError, match="empty"):
        check_claims(_biases().iloc[:0], REP, base_table=None, base_label="base")


# ----------------------------------------------------------------------------- the figure
def test_claims_figure_marks(close) -> None:
    biases = _biases({("Clinton", "career"): [0.20, 0.21]})
    parts = claim_parts(biases, reported(), base_table=_base_table(), base_label="base")
    assert not parts.duplicated(["model", "concept"]).any()
    fig = close(claims_figure(parts))
    (ax,) = fig.axes
    labels = [t.get_text() for t in ax.get_yticklabels()]
    assert labels == [f"{m} · {c}" for m, c in zip(parts["model"], parts["concept"], strict=True)]
    # one band per present row with a band, from its low to its high, at its row
    segments = [s for c in ax.collections if isinstance(c, LineCollection)
                for s in c.get_segments() if s[0, 1] == s[1, 1]]  # fmt: skip
    banded = parts[parts["present"] & parts["low"].notna()]
    assert len(segments) == len(banded)
    drawn = {round(float(s[0, 1])): (s[0, 0], s[1, 0]) for s in segments}
    for y, r in banded.iterrows():
        assert drawn[y] == pytest.approx((r["low"], r["high"]))
    dots = [c for c in ax.collections if type(c) is PathCollection]
    offsets = np.concatenate([c.get_offsets() for c in dots])
    # Clinton's career is pro-female against the paper's pro-male: dark, at its mean, not blue
    y = labels.index("Clinton · career")
    (dot,) = [c for c in dots if tuple(c.get_offsets()[0]) == (pytest.approx(0.205), y)]
    assert to_hex(dot.get_facecolor()[0]) != to_hex(COUNTS_COLOUR)
    y_trump = labels.index("Trump · career")
    (dot,) = [c for c in dots if tuple(c.get_offsets()[0]) == (pytest.approx(-0.32), y_trump)]
    assert to_hex(dot.get_facecolor()[0]) == to_hex(COUNTS_COLOUR)
    # the paper's sign: a triangle at the end of every row on the paper's side
    lim = ax.get_xlim()[1]
    for y, r in parts.iterrows():
        at = offsets[(offsets[:, 1] == y) & (np.abs(offsets[:, 0]) > 0.9 * lim)]
        assert len(at) == 1 and np.sign(at[0, 0]) == r["paper sign"]
    # the paper's printed numbers (BERT-base per concept, the people's averages) as crosses
    y = labels.index("Trump · average")
    assert ((offsets[:, 1] == y) & np.isclose(offsets[:, 0], -0.082)).any()
    # Dong is absent: said in her rows, nothing drawn there but the paper's sign
    absent = [t for t in ax.texts if t.get_text() == ABSENT]
    assert len(absent) == int((~parts["present"]).sum()) > 0
    for y in np.flatnonzero(~parts["present"].to_numpy()):
        assert ((offsets[:, 1] == y).sum()) == 1
    assert_legend_clear(fig)


def test_claims_figure_errors() -> None:
    with pytest.raises(KeyError, match="present"):
        claims_figure(pd.DataFrame({"model": ["A"], "concept": ["c"]}))


def test_table3_draws_beside_ours_in_topk_figure(close) -> None:
    from nlpbias.studies.scoring.figures import topk_figure

    paper = paper_topk(REP).assign(model="BERT-base (Table 3)")
    ours = paper.assign(model="base", score=paper["score"] - 1.0)  # planted: same order
    fig = close(topk_figure(pd.concat([paper, ours], ignore_index=True), k=6))
    assert len(fig.axes) == 3
    cells = [t.get_text() for t in fig.axes[0].texts]
    assert "he\n0.08" in cells and "women\n−1.06" in cells  # the paper's row, as printed
