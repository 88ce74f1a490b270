"""Tests for nlpbias.studies.intrinsic_extrinsic.correlation: the scores frame, Spearman ρ per
cell, and the word sets left out."""

from __future__ import annotations

import numpy as np
import pytest
from intrinsic_extrinsic_cases import fake_scores
from scipy import stats

from nlpbias.studies.intrinsic_extrinsic.correlation import (
    correlations,
    scores_frame,
    skipped_table,
    skipped_text,
)


def test_correlations_use_the_right_points_and_match_scipy() -> None:
    scores = fake_scores(np.random.default_rng(0))
    corr = correlations(scores, n_resamples=999, random_state=0)
    ext = corr[(corr.modset == "extracted") & (corr.wordset == "extracted")]
    assert set(ext["n"]) == {9}  # the original + 8 embeddings modified with the extracted set
    row = ext[(ext.intrinsic == "weat") & (ext.view == "winobias_type1") & (ext.metric == "f1")]
    pts = scores[(scores.method == "original") | (scores.modset == "extracted")]
    rho = stats.spearmanr(pts["intrinsic:extracted:weat"], pts["extrinsic:type1_f1"])
    assert row["rho"].item() == pytest.approx(rho.statistic)
    assert row["rho"].item() > 0.9 and row["pvalue"].item() < 0.01
    # generic sets are only correlated over the original + WEAT-modified embeddings
    assert set(corr[corr.modset == "weat"]["wordset"]) == {"weat6", "weat7", "weat8"}


def test_a_word_set_missing_on_some_embedding_is_left_out_not_guessed() -> None:
    scores = fake_scores(np.random.default_rng(2))
    scores.loc[12, "intrinsic:weat7:weat"] = np.nan  # a WEAT-modified embedding lacks the words
    corr = correlations(scores, n_resamples=99, random_state=0)
    cell = corr[
        (corr.wordset == "weat7")
        & (corr.intrinsic == "weat")
        & (corr.view == "winobias_type1")
        & (corr.metric == "f1")
    ]
    # the embedding is dropped from this cell only: 8 of the 9 points remain
    pts = scores[(scores.method == "original") | (scores.modset == "weat")].drop(index=12)
    rho = stats.spearmanr(pts["intrinsic:weat7:weat"], pts["extrinsic:type1_f1"]).statistic
    assert cell["n"].item() == 8 and cell["rho"].item() == pytest.approx(rho)
    rnsb = corr[(corr.wordset == "weat7") & (corr.intrinsic == "rnsb")]
    assert set(rnsb["n"]) == {9}
    assert corr["rho"].notna().all()
    # with too few points left, the cell is not reported at all
    scores.loc[10:14, "intrinsic:weat7:weat"] = np.nan
    few = correlations(scores, n_resamples=99, random_state=0)
    assert not ((few.wordset == "weat7") & (few.intrinsic == "weat")).any()


def test_skipped_table_counts_embeddings() -> None:
    res = [
        {"spec": {"id": "a"}, "skipped": [{"family": "f", "wordset": "weat7", "reason": "oov"}]},
        {"spec": {"id": "b"}, "skipped": [{"family": "f", "wordset": "weat7", "reason": "oov"}]},
        {"spec": {"id": "c"}, "skipped": []},
    ]
    t = skipped_table(res)
    assert t.to_dict("records") == [
        {"family": "f", "wordset": "weat7", "embeddings": 2, "reason": "oov"}
    ]
    assert skipped_table(res[2:]).empty


def test_scores_frame_keeps_an_embedding_whose_word_sets_were_all_skipped() -> None:
    ext = [{"seed": s, "metric": "type1_f1", "value": v} for s, v in [(0, 0.2), (1, 0.4)]]
    res = [
        {
            "spec": {"id": "a", "method": "original", "families": ["coref", "hsd_gender"]},
            "intrinsic": [{"family": "coref", "wordset": "weat6", "metric": "weat", "value": 0.5}],
            "extrinsic": ext,
        },
        {
            "spec": {"id": "b", "method": "balance", "family": "coref"},
            "intrinsic": [],  # every evaluation word set out of vocabulary
            "extrinsic": ext,
        },
    ]
    frame = scores_frame(res)
    assert frame[["id", "family"]].values.tolist() == [
        ["a", "coref"],
        ["a", "hsd_gender"],
        ["b", "coref"],
    ]
    assert frame["extrinsic:type1_f1"].tolist() == pytest.approx([0.3, 0.3, 0.3])
    assert frame.loc[0, "intrinsic:weat6:weat"] == 0.5
    assert frame.loc[1:, "intrinsic:weat6:weat"].isna().all()


def test_skipped_text_counts_the_embeddings_a_set_was_to_be_measured_on() -> None:
    def res(id_, measured=(), skipped=()):
        def rows(pairs):
            return [{"family": family, "wordset": wordset} for family, wordset in pairs]

        return {"spec": {"id": id_}, "intrinsic": rows(measured), "skipped": rows(skipped)}

    results = [
        res("books/sgns/original", [("coref", "extracted")], [("coref", "weat7")]),
        res("books/sgns/coref:extracted/balance-debias-p0.0", [],
            [("coref", "weat7"), ("coref", "extracted")]),
        res("books/fasttext/coref:extracted/balance-debias-p0.0", [],
            [("coref", "weat7"), ("coref", "extracted")]),
        res("books/sgns/coref:weat6/balance-debias-p0.5", [("coref", "weat6")]),  # no weat7 here
        res("tweets/sgns/original", [("hsd_race", "weat4")], [("hsd_race", "weat3")]),
        res("tweets/sgns/hsd_race:weat3/balance-debias-p0.5", [("hsd_race", "weat3")]),
    ]  # fmt: skip
    lines = skipped_text(results).splitlines()
    assert lines[0] == "In this run:"
    # WEAT 7 was to be measured on three embeddings (not the weat6-modified one): all failed
    weat7 = next(line for line in lines if line.startswith("- WEAT 7"))
    assert "on all 3 embeddings it was to be measured on (trained on `books`)" in weat7
    assert "`books/sgns" not in weat7
    # the aligned set: measured on the original, skipped on two, both named
    aligned = next(line for line in lines if "aligned" in line)
    assert "on 2 of the 3 embeddings it was to be measured on" in aligned
    assert "`books/sgns/coref:extracted/balance-debias-p0.0`" in aligned
    assert "`books/fasttext/coref:extracted/balance-debias-p0.0`" in aligned
    weat3 = next(line for line in lines if line.startswith("- WEAT 3"))
    assert "hate speech, race on 1 of the 2 embeddings" in weat3
    assert "`tweets/sgns/original`" in weat3
    assert not any(line.startswith("- WEAT 6") for line in lines)
    everything = "In this run every word set was measured on every embedding."
    assert skipped_text(results[3:4]) == everything


def test_doctests() -> None:
    import doctest

    from nlpbias.studies.intrinsic_extrinsic import correlation

    failed, attempted = doctest.testmod(correlation, raise_on_error=False, verbose=False)[:2]
    assert attempted and not failed
