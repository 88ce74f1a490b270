"""Tests for nlpbias.studies.intrinsic_extrinsic.paper: the paper's tables beside ours, the long
form, the verdict and the Figure 1 panels."""

from __future__ import annotations

import numpy as np
from intrinsic_extrinsic_cases import fake_scores

from nlpbias.studies.intrinsic_extrinsic import paper as ie
from nlpbias.studies.intrinsic_extrinsic.correlation import correlations


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


def test_paper_table_puts_our_rho_beside_the_papers() -> None:
    scores = fake_scores(np.random.default_rng(1))
    corr = correlations(scores, n_resamples=99, random_state=0)
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


def test_tables_long_form_and_verdict_come_from_the_correlations() -> None:
    scores = fake_scores(np.random.default_rng(1))
    corr = correlations(scores, n_resamples=99, random_state=0)
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
    assert text.startswith("- **coreference, gender, word2vec**") and "better" not in text
    diff = ie.alignment_difference(scores, corr, n_bootstrap=300, random_state=0)
    text = ie.alignment_text(ie.alignment_summary(corr), diff)
    assert "aligned WEAT tracks the downstream F1 gap better than generic WEAT" in text
    assert "the 95 % interval of the difference excludes 0" in text
    panels = ie.figure1_panels(scores, ["coref"])
    assert [p["y"] for p in panels] == ["extrinsic:type1_f1"]


def test_doctests() -> None:
    import doctest

    failed, attempted = doctest.testmod(ie, raise_on_error=False, verbose=False)[:2]
    assert attempted > 0 and failed == 0
