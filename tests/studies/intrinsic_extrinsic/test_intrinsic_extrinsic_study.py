"""Tests for nlpbias.studies.intrinsic_extrinsic.study: grid, word sets, correlation tables."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from nlpbias.studies.intrinsic_extrinsic import study as ie

AR_ONE = {"delta_sim": [1], "delta_ant": [0], "reg": [0.05]}


def test_full_grid_has_the_papers_45_embeddings_per_group() -> None:
    grid = ie.embedding_grid()
    ids = [g["id"] for g in grid]
    assert len(ids) == len(set(ids))
    originals = [g for g in grid if g["method"] == "original"]
    assert {(g["corpus"], g["algorithm"]) for g in originals} == {
        (c, a) for c in ("gutenberg", "tweets") for a in ("word2vec", "fasttext")
    }
    per_group = pd.DataFrame([g for g in grid if g["method"] != "original"])
    counts = per_group.groupby(["family", "algorithm", "modset"]).size()
    assert len(counts) == 3 * 2 * 2 and (counts == 20 + 24).all()  # + the original = 45


def test_grid_validation() -> None:
    with pytest.raises(ValueError, match="unknown or no families"):
        ie.embedding_grid(families=["ner"])
    with pytest.raises(ValueError, match="unknown grid values"):
        ie.embedding_grid(algorithms=["glove"])
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        ie.embedding_grid(balance_p=[1.5])
    with pytest.raises(ValueError, match="keys delta_sim"):
        ie.embedding_grid(attract_repel={"delta_sim": [1]})


def test_merged_wordset_is_the_role_wise_union() -> None:
    q = ie.merged_wordset(["kato_weat6", "kato_weat7", "kato_weat8"])
    from nlpbias.data.wordsets import load_wordset
    from nlpbias.metrics.query import as_query

    parts = [as_query(load_wordset(f"kato_weat{i}")) for i in (6, 7, 8)]
    for role in ("targets", "attributes"):
        for i in range(2):
            expected = {w for p in parts for w in getattr(p, role)[i]}
            got = getattr(q, role)[i]
            assert set(got) == expected and len(got) == len(expected)


def test_reported_table_matches_the_paper() -> None:
    t = ie.reported_table()
    # 4 gender tables x 3 rows (WB1, WB2, HSD) + 4 race tables x 1 row; 3 metrics x 8 cells each
    assert len(t) == 4 * 3 * 3 * 8 + 4 * 1 * 3 * 8
    cell = t[
        (t.table == 4)
        & (t.view == "winobias_type2")
        & (t.metric == "precision")
        & (t.wordset == "weat7")
        & (t.intrinsic == "rnsb")
    ]
    assert cell["value"].item() == -0.21
    assert t[t.statistic == "p"]["value"].between(0, 1).all()


def _fake_scores(rng: np.random.Generator) -> pd.DataFrame:
    """A coref family whose extracted-set WEAT tracks the extrinsic gap, generic WEAT does not."""
    rows = []
    for modset in ("extracted", "weat"):
        for k in range(8):
            bias = rng.normal()
            row = {
                "method": "balance",
                "modset": modset,
                "family": "coref",
                "algorithm": "word2vec",
                "id": f"{modset}{k}",
            }
            row["intrinsic:extracted:weat"] = bias
            row["intrinsic:extracted:rnsb"] = rng.normal()
            for w in ("weat6", "weat7", "weat8"):
                row[f"intrinsic:{w}:weat"] = rng.normal()
                row[f"intrinsic:{w}:rnsb"] = rng.normal()
            for v in ("type1", "type2"):
                for m in ("precision", "recall", "f1"):
                    row[f"extrinsic:{v}_{m}"] = 2 * bias + 0.01 * rng.normal()
            rows.append(row)
    orig = dict(rows[0], method="original", modset=np.nan, id="orig")
    return pd.DataFrame([orig, *rows])


def test_correlations_use_the_right_points_and_match_scipy() -> None:
    scores = _fake_scores(np.random.default_rng(0))
    corr = ie.correlations(scores, n_resamples=999)
    ext = corr[(corr.modset == "extracted") & (corr.wordset == "extracted")]
    assert set(ext["n"]) == {9}  # the original + 8 embeddings modified with the extracted set
    row = ext[(ext.intrinsic == "weat") & (ext.view == "winobias_type1") & (ext.metric == "f1")]
    pts = scores[(scores.method == "original") | (scores.modset == "extracted")]
    rho = stats.spearmanr(pts["intrinsic:extracted:weat"], pts["extrinsic:type1_f1"])
    assert row["rho"].item() == pytest.approx(rho.statistic)
    assert row["rho"].item() > 0.9 and row["pvalue"].item() < 0.01
    # generic sets are only correlated over the original + WEAT-modified embeddings
    assert set(corr[corr.modset == "weat"]["wordset"]) == {"weat6", "weat7", "weat8"}


def test_paper_table_puts_our_rho_beside_the_papers() -> None:
    scores = _fake_scores(np.random.default_rng(1))
    corr = ie.correlations(scores, n_resamples=99)
    table = ie.paper_table(corr, bias="gender", algorithm="word2vec")
    cell = table.loc[("winobias_type1", "f1"), ("extracted", "weat", "paper rho")]
    assert cell == 0.83
    ours = corr[
        (corr.view == "winobias_type1")
        & (corr.metric == "f1")
        & (corr.wordset == "extracted")
        & (corr.intrinsic == "weat")
    ]["rho"].item()
    assert table.loc[("winobias_type1", "f1"), ("extracted", "weat", "rho")] == ours
    # HSD rows come from the paper only here (no HSD scores in the fake frame)
    assert np.isnan(table.loc[("hsd", "f1"), ("extracted", "weat", "rho")])


def test_a_word_set_missing_on_some_embedding_is_left_out_not_guessed() -> None:
    scores = _fake_scores(np.random.default_rng(2))
    scores.loc[12, "intrinsic:weat7:weat"] = np.nan  # a WEAT-modified embedding lacks the words
    corr = ie.correlations(scores, n_resamples=99)
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
    few = ie.correlations(scores, n_resamples=99)
    assert not ((few.wordset == "weat7") & (few.intrinsic == "weat")).any()


def test_skipped_table_counts_embeddings() -> None:
    res = [
        {"spec": {"id": "a"}, "skipped": [{"family": "f", "wordset": "weat7", "reason": "oov"}]},
        {"spec": {"id": "b"}, "skipped": [{"family": "f", "wordset": "weat7", "reason": "oov"}]},
        {"spec": {"id": "c"}, "skipped": []},
    ]
    t = ie.skipped_table(res)
    assert t.to_dict("records") == [
        {"family": "f", "wordset": "weat7", "embeddings": 2, "reason": "oov"}
    ]
    assert ie.skipped_table(res[2:]).empty


def test_tables_long_form_and_verdict_come_from_the_correlations() -> None:
    scores = _fake_scores(np.random.default_rng(1))
    corr = ie.correlations(scores, n_resamples=99)
    tables = ie.paper_tables(corr)
    assert (
        list(tables) == [("gender", "word2vec")] and tables[("gender", "word2vec")][0] == "word2vec"
    )
    long = ie.rho_long(tables)
    cell = long[
        (long.view == "winobias_type1")
        & (long.metric == "f1")
        & (long.wordset == "extracted")
        & (long.intrinsic == "weat")
    ]
    assert cell["paper rho"].item() == 0.83 and cell["wordset kind"].item() == "extracted"
    text = ie.alignment_text(ie.alignment_summary(corr))
    assert text.startswith("- **coref, word2vec**") and "yes: aligned WEAT" in text
    panels = ie.figure1_panels(scores, ["coref"])
    assert [p["y"] for p in panels] == ["extrinsic:type1_f1"]


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
    frame = ie.scores_frame(res)
    assert frame[["id", "family"]].values.tolist() == [
        ["a", "coref"],
        ["a", "hsd_gender"],
        ["b", "coref"],
    ]
    assert frame["extrinsic:type1_f1"].tolist() == pytest.approx([0.3, 0.3, 0.3])
    assert frame.loc[0, "intrinsic:weat6:weat"] == 0.5
    assert frame.loc[1:, "intrinsic:weat6:weat"].isna().all()
