"""Tests for nlpbias.studies.perturbation.questions: seed 004's own questions as chapter steps."""

from __future__ import annotations

import doctest

import numpy as np
import pandas as pd
import pytest

from nlpbias.studies.perturbation import questions as q


def _table(values, words=()):
    t = pd.DataFrame({"delta_b": np.asarray(values, dtype=float)})
    t.attrs["words"] = {"all": tuple(words)}
    return t


def _tables(seed: int = 0, n: int = 3000) -> dict[str, pd.DataFrame]:
    rng = np.random.default_rng(seed)
    g, r = rng.normal(size=n), rng.normal(size=n)
    return {
        "science_arts": _table(g + rng.normal(size=n), ["he", "she", "art"]),
        "caliskan_weat7": _table(g + rng.normal(size=n), ["he", "she", "math"]),
        "manzini2019_race_black_white": _table(r + rng.normal(size=n), ["black", "white"]),
        "manzini2019_race_asian_white": _table(r + rng.normal(size=n), ["asian", "white"]),
    }


def test_test_areas_reads_the_files_and_names_a_missing_area(one_line):
    assert q.test_areas(["science_arts", "manzini2019_race_black_white"]) == {
        "science_arts": "gender",
        "manzini2019_race_black_white": "race",
    }
    with pytest.raises(ValueError) as err:
        q.test_areas(["davidson_gender"])
    assert "data/wordsets/davidson_gender.yaml" in one_line(err)


def test_relations_within_and_across_areas():
    pairs, means, sentence = q.relations(_tables(), n_resamples=100, random_state=0)
    assert len(pairs) == 6
    assert means.loc["within area", "pairs"] == 2 and means.loc["across areas", "pairs"] == 4
    # planted: r = 0.5 within an area, 0 across
    assert means.loc["within area", "pearson"] == pytest.approx(0.5, abs=0.05)
    assert means.loc["across areas", "pearson"] == pytest.approx(0.0, abs=0.05)
    assert means.loc["within area", "pairs_sharing_words"] == 2
    assert "difference, within minus across" in sentence
    assert "built in by the lists" in sentence


def test_relations_with_one_area_or_one_test():
    tables = _tables()
    gender = {k: v for k, v in tables.items() if k in ("science_arts", "caliskan_weat7")}
    pairs, means, sentence = q.relations(gender, n_resamples=50, random_state=0)
    assert means.loc["across areas", "pairs"] == 0
    assert "no pair across areas of bias" in sentence and "cannot be made" in sentence
    pairs, means, sentence = q.relations(
        {"science_arts": tables["science_arts"]}, n_resamples=50, random_state=0
    )
    assert pairs.empty and means is None and "Only 1 test" in sentence


def test_answers_from_planted_results():
    baseline = pd.DataFrame(
        {"effect_size": [0.9, 0.7], "p_value": [0.001, 0.02]},
        index=["science_arts", "manzini2019_race_black_white"],
    )
    idx = pd.MultiIndex.from_product([["t"], ["intersectional", "race", "gender"]])
    inter = pd.DataFrame(
        {"testable": True, "effect_size": [1.2, 0.5, 0.9], "ci_low": [1.0, 0.2, 0.6],
         "ci_high": [1.4, 0.8, 1.1]}, index=idx,
    )  # fmt: skip
    _, means, _ = q.relations(_tables(), n_resamples=100, random_state=0)
    prediction = pd.DataFrame(
        {"auc_model": [0.8], "auc_model_low": [0.7], "auc_words": [0.75],
         "auc_baseline": [0.7], "gain_low": [0.01], "gain_high": [0.2]},
        index=["science_arts"],
    )  # fmt: skip
    out = q.answers(
        baseline=baseline, skipped=pd.DataFrame({"wordset": ["caliskan_weat3"]}),
        intersectional={"ref": inter}, means=means, prediction=prediction,
    )  # fmt: skip
    assert out["answer"].tolist() == ["yes", "yes", "yes", "no"]
    assert "manzini2019_race_black_white: d = 0.70" in out["evidence"].iloc[0]
    assert "science_arts 0.70 / 0.75 / 0.80" in out["evidence"].iloc[2]
    weak = q.answers(
        baseline=baseline.assign(p_value=[0.001, 0.3]), skipped=pd.DataFrame(columns=["wordset"]),
        intersectional={"ref": inter}, means=means, prediction=prediction,
    )  # fmt: skip
    assert weak["answer"].iloc[0] == "measured, not significant"
    gender_only = q.answers(
        baseline=baseline.iloc[:1], skipped=pd.DataFrame({"wordset": ["caliskan_weat3"]}),
        intersectional={"ref": inter.assign(testable=False)}, means=None, prediction=None,
    )  # fmt: skip
    assert gender_only["answer"].tolist() == ["not testable here"] * 4


def test_reduction_sentence_says_when_an_effect_size_is_negative():
    idx = pd.MultiIndex.from_product([["reduced", "random"], ["a"]])
    t = pd.DataFrame(
        {"delta_effect_sizes": [0.4, 0.1], "effect_sizes_ratio": [-0.8, -0.2], "n_removed": 5,
         "B_full": [-0.5, -0.5]}, index=idx,
    )  # fmt: skip
    text = q.reduction_sentence(t)
    assert "1 of 1 tests" in text and "already negative" in text


def test_compare_corpora_without_a_second_corpus_is_none():
    kw = {"wordsets": ["science_arts"], "min_count": 5, "max_vocab": None, "window": 8,
          "parts": [1], "block_tokens": 1000, "glove": {}, "max_missing": 0.4,
          "n_permutations": 9, "n_bootstrap": 0, "random_state": 0}  # fmt: skip
    assert q.compare_corpora(None, None, "wiki", other=None, **kw) is None
    assert q.compare_corpora(None, None, "wiki", other="wiki", **kw) is None


def test_doctests():
    failed, attempted = doctest.testmod(q, optionflags=doctest.NORMALIZE_WHITESPACE)[:2]
    assert attempted > 0 and failed == 0
