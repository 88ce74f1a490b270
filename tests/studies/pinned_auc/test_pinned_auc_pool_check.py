"""Tests for pinned_auc.pool_check: a planted model with known scores, counts by hand."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy.stats import binomtest

from nlpbias.studies.pinned_auc import pool_check as pc


class PlantedModel:
    """Scores 0.9 for a text with 'rotten', 0.4 for one with 'meh', else 0.1."""

    def predict_proba(self, texts):
        s = np.array([0.9 if "rotten" in t else 0.4 if "meh" in t else 0.1 for t in texts])
        return np.c_[1 - s, s]


POOL = pd.DataFrame(
    {
        "text": ["a rotten idea", "meh article", "the river", "a town", "rotten wood"]
        + [f"sentence {i}" for i in range(15)],
        "toxic": False,
    }
)  # 20 texts: 2 score 0.9, 1 scores 0.4, 17 score 0.1


@pytest.mark.parametrize(
    ("threshold", "flagged"),
    [(0.5, 2), (0.4, 3), (0.9, 2), (0.91, 0), (0.1, 20), (0.0, 20)],
)
def test_planted_model_flags_the_known_texts(threshold: float, flagged: int) -> None:
    r = pc.pool_check(POOL, model=PlantedModel(), threshold=threshold)
    assert list(r.index) == list(pc.POOL_CHECK_FIELDS)
    assert (r["n"], r["n_flagged"]) == (20, flagged)  # score >= threshold is flagged
    assert r["share_flagged"] == pytest.approx(flagged / 20)
    assert r["share_nontoxic"] == pytest.approx(1 - flagged / 20)
    ci = binomtest(flagged, 20).proportion_ci(method="wilson")
    assert (r["ci_low"], r["ci_high"]) == pytest.approx((ci.low, ci.high))
    assert r["ci_low"] <= r["share_flagged"] <= r["ci_high"]
    assert r["threshold"] == threshold


def test_scores_give_the_same_result_as_the_model() -> None:
    by_model = pc.pool_check(POOL["text"].tolist(), model=PlantedModel(), threshold=0.5)
    scores = PlantedModel().predict_proba(POOL["text"])[:, 1]
    pd.testing.assert_series_equal(pc.pool_check(scores=scores, threshold=0.5), by_model)
    pd.testing.assert_series_equal(pc.pool_check(POOL, scores=scores, threshold=0.5), by_model)


def test_by_model_uses_each_models_threshold() -> None:
    scores = PlantedModel().predict_proba(POOL["text"])[:, 1]
    rows = []
    for family in ("baseline", "bias mitigated"):
        for seed in (0, 1):
            for name, s in (("general", np.array([0.2, 0.8])), ("pool", scores)):
                rows.append(
                    pd.DataFrame(
                        {
                            "family": family,
                            "seed": seed,
                            "eval_set": name,
                            "row": np.arange(len(s)),
                            "toxic": False,
                            "score": s,
                        }
                    )  # fmt: skip
                )
    long = pd.concat(rows, ignore_index=True)
    thr = pd.DataFrame(
        {
            "family": ["baseline"] * 4 + ["bias mitigated"] * 4,
            "seed": [0, 0, 1, 1] * 2,
            "eval_set": ["general", "templates"] * 4,
            "threshold": [0.5, 0.5, 0.35, 0.35, 0.95, 0.95, 0.1, 0.1],
        }
    )
    out = pc.pool_check_by_model(long, thr, eval_set="pool")
    assert out[["family", "seed"]].values.tolist() == [
        ["baseline", 0], ["baseline", 1], ["bias mitigated", 0], ["bias mitigated", 1]
    ]  # fmt: skip
    assert out["n_flagged"].tolist() == [2, 3, 0, 20]
    text = pc.pool_check_text(out, model="every model")
    assert text.startswith("At each model's EER threshold (0.1–0.95), every model (4 models)")
    mean = np.mean([18 / 20, 17 / 20, 1.0, 0.0])
    assert f"on average {100 * mean:.3g} % of the 20 pool sentences as non-toxic" in text
    assert "(range 0 %–100 %)" in text
    with pytest.raises(ValueError, match=r"no eval_set 'debias' \(has \['general', 'pool'\]\)"):
        pc.pool_check_by_model(long, thr, eval_set="debias")
    with pytest.raises(ValueError, match="two different thresholds"):
        pc.pool_check_by_model(long, thr.assign(threshold=np.arange(8) / 10), eval_set="pool")


def test_text_states_the_numbers_and_the_papers_check() -> None:
    r = pc.pool_check(POOL, model=PlantedModel(), threshold=0.5)
    text = pc.pool_check_text(r)
    assert text.startswith("At the EER threshold 0.5, the baseline model scores 90 % of the 20 ")
    assert "(2 flagged, 95 % interval of the flagged share " in text
    assert text.endswith(
        "the paper's raters confirmed 99.5 % of 1,000 labelled sentences non-toxic."
    )
    other = pc.pool_check_text(r, reported={"n_labelled": 10, "nontoxic_share": 0.9})
    assert other.endswith("confirmed 90 % of 10 labelled sentences non-toxic.")


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"threshold": 0.5}, ValueError, "exactly one of model"),
        ({"threshold": 0.5, "scores": [0.1], "model": PlantedModel()}, ValueError, "exactly one"),
        ({"threshold": 1.5, "scores": [0.1]}, ValueError, "threshold"),
        ({"threshold": 0.5, "scores": []}, ValueError, "non-empty 1-D"),
        ({"threshold": 0.5, "scores": [0.1, 2.0]}, ValueError, r"\[0, 1\]"),
        ({"threshold": 0.5, "model": object(), "pool": ["a"]}, TypeError, "predict_proba"),
        ({"threshold": 0.5, "model": PlantedModel()}, ValueError, "needs the pool"),
        ({"threshold": 0.5, "model": PlantedModel(), "pool": []}, ValueError, "pool is empty"),
        (
            {"threshold": 0.5, "model": PlantedModel(), "pool": pd.DataFrame({"comment": ["a"]})},
            ValueError,
            "no 'text' column",
        ),
        ({"threshold": 0.5, "scores": [0.1], "pool": ["a", "b"]}, ValueError, "one score per"),
    ],
)
def test_bad_input_is_a_one_line_error(kwargs, error, match, one_line) -> None:
    with pytest.raises(error, match=match) as err:
        pc.pool_check(**kwargs)
    one_line(err)
