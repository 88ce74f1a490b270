"""The scoring chapter's headline rows: base concepts with their bootstrap interval, person
averages with the range over fine-tuning seeds."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from nlpbias.core.scorecard import check_rows
from nlpbias.studies.scoring import headlines
from nlpbias.studies.scoring.headlines import claim_rows

REP = {"base_bias": {"career": -0.435, "leader": -0.1}, "average": {"Trump": -0.082}}


def bias(career=(-0.3, -0.5, -0.1), leader=(-0.004, -0.30, 0.34)):
    rows = [
        {"model": "base", "attribute": a, "bias": b, "ci_low": lo, "ci_high": hi}
        for a, (b, lo, hi) in (("career", career), ("leader", leader))
    ]
    rows.append({"model": "Trump", "attribute": "career", "bias": -1.0, "ci_low": -1.1,
                 "ci_high": -0.9})  # fmt: skip
    return pd.DataFrame(rows)


def per_seed(values=(-0.38, -0.44, -0.41)):
    return pd.DataFrame(
        {"person": "Trump", "seed": range(len(values)), "concept": "average", "bias": values}
    )


def test_rows_and_verdicts():
    rows = check_rows(
        headlines(bias(), per_seed(), REP, base_label="base", is_standin=True, data="real")
    ).set_index("key")
    assert rows.index.tolist() == ["base_career", "base_leader", "average_trump"]
    assert rows.loc["base_career", "verdict"] == "reproduced"  # -0.435 inside [-0.5, -0.1]
    # the case: -0.004 with an interval across 0 does not agree in sign
    assert rows.loc["base_leader", "verdict"] == "not reproduced"
    t = rows.loc["average_trump"]
    assert t["book"] == pytest.approx(np.mean([-0.38, -0.44, -0.41]))
    assert (t["ci_low"], t["ci_high"]) == (-0.44, -0.38)
    assert t["verdict"] == "direction only"  # all seeds pro-male, none near -0.082
    assert t["interval"] == "range over 3 fine-tuning seeds (0, 1, 2)"
    assert "stand-in MLM, not BERT-base" in rows.loc["base_career", "reason"]


def test_one_seed_has_no_interval_and_a_missing_person_no_number():
    one = check_rows(
        headlines(
            bias(), per_seed((-0.4,)), REP, base_label="base", is_standin=False, data="real"
        )  # fmt: skip
    ).set_index("key")
    assert np.isnan(one.loc["average_trump", "ci_low"])
    # one seed: that seed's value, named as one seed (no "mean over seeds" of one value)
    assert one.loc["average_trump", "interval"] == "one fine-tuning seed (0), no interval"
    assert one.loc["average_trump", "book"] == -0.4
    none = check_rows(
        headlines(bias(), per_seed(()), REP, base_label="base", is_standin=True, data="real")
    ).set_index("key")
    assert none.loc["average_trump", "verdict"] == "not testable offline"
    # the case: a run without Trump must not say "one fine-tuning run"
    assert none.loc["average_trump", "interval"] == "no such person in this run, no interval"


def test_synthetic_runs_are_not_tests_and_bad_labels_are_named():
    rows = check_rows(
        headlines(bias(), per_seed(), REP, base_label="base", is_standin=True, data="synthetic")
    )
    assert (rows["verdict"] == "not testable offline").all()
    with pytest.raises(ValueError, match="no rows of model 'bert'"):
        headlines(bias(), per_seed(), REP, base_label="bert", is_standin=True, data="real")


CLAIMS = [
    {"key": "career_everyone_pro_male", "kind": "signs", "words": "everyone is pro-male.",
     "signs": {"BERT-base": {"career": -1}, "Trump": {"career": -1}, "Dong": {"career": -1}}},
    {"key": "leader_except_clinton", "kind": "signs", "words": "except for Hillary",
     "signs": {"Trump": {"leader": -1}, "Clinton": {"leader": 1}}},
    {"key": "average_everyone", "kind": "signs", "words": "everyone is pro-male",
     "signs": {"Trump": {"average": -1}}},
    {"key": "twice", "kind": "ratio", "words": "twice", "first": "Dong", "second": "Trump",
     "concept": "average", "factor": 2},
]  # fmt: skip


def person_concepts(trump_career=(-0.2, -0.1), clinton_leader=(0.05, 0.1)):
    rows = []
    for person, concept, values in (("Trump", "career", trump_career),
                                    ("Clinton", "leader", clinton_leader)):  # fmt: skip
        rows += [{"person": person, "seed": s, "concept": concept, "bias": v}
                 for s, v in enumerate(values)]  # fmt: skip
    return pd.DataFrame(rows)


def test_claim_rows_one_per_person_and_concept_of_each_signs_claim():
    rows = check_rows(
        headlines(
            bias(),
            person_concepts(),
            {**REP, "claims": CLAIMS},
            base_label="base",
            is_standin=True,
            data="real",
        )  # fmt: skip
    ).set_index("key")
    claim_keys = [k for k in rows.index if not k.startswith(("base_", "average_"))]
    # no row for the base model, Dong (not in the run), the average (its own row) or a ratio;
    # Trump has no leader number in this run: that row has no number
    assert claim_keys == [
        "career_everyone_pro_male_trump", "leader_except_clinton_trump",
        "leader_except_clinton_clinton",
    ]  # fmt: skip
    career = rows.loc["career_everyone_pro_male_trump"]
    assert career["verdict"] == "reproduced" and career["book"] == pytest.approx(-0.15)
    assert (career["ci_low"], career["ci_high"]) == (-0.2, -0.1)
    assert rows.loc["leader_except_clinton_clinton", "verdict"] == "reproduced"  # pro-female
    assert rows.loc["leader_except_clinton_trump", "verdict"] == "not testable offline"


def test_claim_rows_flip_with_the_planted_sign():
    def verdict(**kw):
        rows = check_rows(claim_rows(person_concepts(**kw), {"claims": CLAIMS}, data="real"))
        return rows.set_index("key")["verdict"].to_dict()

    assert verdict()["career_everyone_pro_male_trump"] == "reproduced"
    assert verdict(trump_career=(0.2, 0.1))["career_everyone_pro_male_trump"] == "not reproduced"
    # seeds on both sides of 0: the sign is not established
    assert verdict(trump_career=(-0.2, 0.1))["career_everyone_pro_male_trump"] == "not reproduced"
    assert verdict(clinton_leader=(-0.3, -0.2))["leader_except_clinton_clinton"] == (
        "not reproduced"
    )
