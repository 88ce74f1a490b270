"""The skew scenario's sentences: the verdict follows the rule and says when the test is unfair."""

from __future__ import annotations

import numpy as np
import pandas as pd

from nlpbias.studies import pinned_auc as study
from nlpbias.studies.pinned_auc.mitigation import BalanceResult
from nlpbias.studies.pinned_auc.skew import SkewResult


def balance(needed: int, added: int) -> BalanceResult:
    report = pd.DataFrame({"needed": [needed], "added": [added], "shortfall": [needed - added]})
    texts = pd.DataFrame({"text": ["x"] * added, "toxic": False})
    return BalanceResult(added=texts, report=report, edges=np.array([0.0, 1.0]), n_buckets=1)


SKEW = SkewResult(
    train=pd.DataFrame({"text": ["a", "b", "c", "d"], "toxic": [True, False, False, False]}),
    held_back=pd.DataFrame({"text": ["e"], "toxic": [False], "term": ["gay"]}),
    control_pool=pd.DataFrame({"text": ["f", "g"], "toxic": False}),
    report=pd.DataFrame(
        {
            "term": ["gay", "queer"],
            "kept_toxic": [27, 0],
            "kept_nontoxic": [3, 1],
            "status": ["matched", "too rare"],
        }
    ),  # fmt: skip
    toxic_share=0.25,
)


def checks(holds: list[bool], n: int = 5) -> pd.DataFrame:
    return pd.DataFrame(
        {"metric": ["FPED", "PAED"], "n_models": n, "holds": holds},
        index=pd.Index(["all terms", "skewed terms"], name="terms"),
    )


def test_verdict_branches():
    assert "one model per family" in study.skew_verdict(
        checks([True, True], 1), balance(10, 10), SKEW
    )
    assert "mechanism holds" in study.skew_verdict(checks([True, True]), balance(10, 10), SKEW)
    unfair = study.skew_verdict(checks([False, True]), balance(333, 21), SKEW)
    assert "FPED (all terms)" in unfair and "it does for PAED (skewed terms)" in unfair
    assert "333 non-toxic texts" in unfair and "21 (6%)" in unfair and "inconclusive" in unfair
    assert "only 27 toxic texts" in unfair
    fair = study.skew_verdict(checks([False, False]), balance(100, 80), SKEW)
    assert "80%" in fair and "not the whole explanation" in fair and "inconclusive" not in fair
    # on the synthetic stand-in there are no tweets and no Wikipedia pools to blame or credit
    synth_fair = study.skew_verdict(
        checks([False, False]), balance(100, 80), SKEW, source="synthetic"
    )
    assert "Wikipedia" not in synth_fair and "not tweets" in synth_fair
    synth_holds = study.skew_verdict(
        checks([True, True]), balance(10, 10), SKEW, source="synthetic"
    )
    assert "lacked the skew" not in synth_holds and "not of tweets" in synth_holds


def test_sentences():
    text = study.skew_sentence(SKEW, source="real")
    assert "4 texts, 25.0% toxic" in text and "1 of the 2 Table 1 terms" in text
    assert "(gay)" in text and "synthetic" not in text
    assert "synthetic stand-in" in study.skew_sentence(SKEW, source="synthetic")
    assert "The other terms occur in too few texts" in text  # queer is too rare
    every = SkewResult(**{**SKEW.__dict__, "report": SKEW.report.iloc[:1]})
    assert "other terms" not in study.skew_sentence(every, source="real")
    assert study.added_sentence(balance(10, 4)).startswith(
        "The mitigation added 4 held-back texts (shortfall 6)"
    )
