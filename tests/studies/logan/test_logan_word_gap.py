"""The accuracy gap on the texts that contain one word (the paper's "racist" example)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from nlpbias.studies.logan import study as ex
from nlpbias.studies.logan.word_gap import word_gap, word_gap_table


def planted() -> dict:
    """40 texts: 12 say "racist" (any case, with punctuation), 4 say "racists" (no match).

    Among the 12: A has 6, all right (100 %); B has 6, 2 right (33.3 %): a gap of 66.7 points.
    Elsewhere everyone is right, so the global gap is small (A 20/20, B 16/20: 20 points).
    """
    hits = ["RACIST!", "so racist", "Racist take", "racist.", "a racist", "racist?"] * 2
    texts = hits + ["racists everywhere"] * 4 + ["nice day"] * 24
    group = np.array(["A"] * 6 + ["B"] * 6 + ["A", "B"] * 2 + ["A", "B"] * 12)
    y = np.ones(40, int)
    pred = y.copy()
    pred[[8, 9, 10, 11]] = 0  # four of B's six "racist" texts wrong
    return {"texts": texts, "y_true": y, "y_pred": pred, "group": group}


def test_word_gap_counts_whole_words_in_any_case() -> None:
    d = planted()
    r = word_gap(d["texts"], y_true=d["y_true"], y_pred=d["y_pred"], group=d["group"],
                 word="racist")  # fmt: skip
    assert (r["n_texts"], r["n_a1"], r["n_a2"]) == (12, 6, 6)
    assert (r["acc_a1"], r["acc_a2"]) == pytest.approx((100.0, 100 / 3))
    assert r["gap_pts"] == pytest.approx(200 / 3) and r["groups"] == ("A", "B")
    flipped = word_gap(d["texts"], y_true=d["y_true"], y_pred=d["y_pred"], group=d["group"],
                       word="Racist", groups=("B", "A"))  # fmt: skip
    assert flipped["gap_pts"] == pytest.approx(-200 / 3) and flipped["abs_gap_pts"] > 66


def test_word_gap_errors() -> None:
    d = planted()
    kw = {"y_true": d["y_true"], "y_pred": d["y_pred"], "group": d["group"]}
    with pytest.raises(ValueError, match="no text contains 'bigot'"):
        word_gap(d["texts"], word="bigot", **kw)
    with pytest.raises(ValueError, match="group 'B'"):  # only A's six texts say "racist"
        word_gap(d["texts"][:6] + ["x"] * 34, word="racist", **kw)
    with pytest.raises(ValueError, match="non-empty string"):
        word_gap(d["texts"], word=" ", **kw)
    with pytest.raises(ValueError, match="one text per row"):
        word_gap(d["texts"][:5], word="racist", **kw)
    with pytest.raises(ValueError, match="exactly two values"):
        word_gap(d["texts"], word="racist", **{**kw, "group": ["A"] * 40})


def test_word_gap_table_reads_every_attribute() -> None:
    d = planted()
    only_c = pd.Series(["C"] * 12 + ["C", "D"] * 14)  # every "racist" text is C's
    data = ex.LoganData(X=np.zeros((40, 2)), y_true=d["y_true"], y_pred=d["y_pred"],
                        y_score=d["y_pred"].astype(float),
                        groups={"g": pd.Series(d["group"]), "none": only_c},
                        pairs={"g": ("A", "B"), "none": ("C", "D")}, source="test",
                        texts=d["texts"])  # fmt: skip
    t = word_gap_table(data, word="racist")
    assert t.loc["g", "gap_pts"] == pytest.approx(200 / 3)
    assert t.loc["g", "global_gap_pts"] == pytest.approx(100 * (1 - 16 / 20))
    assert t.loc["g", "note"] == ""
    # every "racist" text is C's: no gap for that attribute, and the row says why
    assert t.loc["none", "note"].startswith(
        "none of the 12 texts containing 'racist' is in group 'D'"
    )
    assert np.isnan(t.loc["none", "gap_pts"]) and t.loc["none", "word"] == "racist"
    # no attribute with a gap: the columns are still there, all NaN (a reader's filter works)
    nothing = word_gap_table(data, word="wonderful")
    assert nothing["gap_pts"].isna().all() and nothing["n_a1"].isna().all()
    assert nothing["note"].str.len().gt(0).all()
    data.texts = None
    with pytest.raises(ValueError, match="no texts"):
        word_gap_table(data, word="racist")


def test_word_gap_rows_beside_the_papers_19_points() -> None:
    from nlpbias.data.reported import load_reported
    from nlpbias.studies.logan.prose import word_gap_rows

    t = pd.DataFrame({"word": ["racist", "racist"], "abs_gap_pts": [25.04, np.nan],
                      "n_a1": [1200, np.nan], "n_a2": [4, np.nan],
                      "note": ["", "no text contains 'racist'; pick a word"]},
                     index=pd.Index(["race", "gender"], name="attribute"))  # fmt: skip
    paper = load_reported("zhao2020logan")
    row = word_gap_rows(t, paper).iloc[0]
    assert row["this run: race"] == "25.0 (texts: 1,200 and 4)"
    assert row["this run: gender"] == "no gap: no text contains 'racist'"
    assert row["paper: race"] == "19.0" and row["paper: gender"] == "not reported"
    other = word_gap_rows(t.assign(word="bigot"), paper).iloc[0]
    assert other["paper: race"] == "not reported"  # the paper's 19 is for "racist" only
    with pytest.raises(ValueError, match="one word"):
        word_gap_rows(t.assign(word=["a", "b"]), paper)
