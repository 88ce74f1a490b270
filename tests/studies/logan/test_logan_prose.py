"""The LOGAN chapter's generated sentences and comparison tables (nlpbias.studies.logan.prose)."""

from __future__ import annotations

import doctest
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest

from nlpbias.data.reported import load_reported
from nlpbias.studies.logan import prose
from nlpbias.studies.logan.calibration import NullResult

PAPER = load_reported("zhao2020logan")


def _run(global_gap: float, logan_gap: float, *, ratio: float = 1.0, bcr: float = 50.0) -> dict:
    t1 = pd.DataFrame(
        {"acc_1": [81.0, 96.0, 96.3], "acc_2": [79.0, 62.9, 64.4],
         "bias": [global_gap, 33.3, logan_gap]},
        index=["Global", "K-Means", "LOGAN"],
    )  # fmt: skip
    t4 = pd.DataFrame({"inertia_ratio": [1.0, ratio], "bcr_pct": [40.0, bcr]},
                      index=["K-Means", "LOGAN"])  # fmt: skip
    lam_table = pd.DataFrame(
        {"degenerate": ["", "", "largest gap 100 points"]},
        index=pd.Index([1.0, 10.0, 1000.0], name="lam"),
    )  # fmt: skip
    return {"table1": t1, "table4": t4, "lam": 10.0, "lambda_table": lam_table,
            "null": NullResult(logan_gap, np.zeros(50), 0.0196),
            "split_gaps": pd.DataFrame({"abs_gap_pts": [1.0, 2.0, 3.0]})}  # fmt: skip


def test_doctests() -> None:
    assert doctest.testmod(prose, raise_on_error=False).failed == 0


def test_table1_comparison_has_no_all_nan_column_on_the_stand_in() -> None:
    t = prose.table1_comparison({"planted": _run(2.0, 31.9)}, PAPER)
    assert list(t.columns) == ["acc_1", "acc_2", "bias"]  # no paper_ columns full of NaN
    assert not t.isna().all().any()
    assert "`planted`" in t.attrs["note"] and "race and gender" in t.attrs["note"]
    assert t.loc[("planted", "LOGAN"), "bias"] == 31.9


def test_table1_comparison_on_real_attributes_is_full() -> None:
    t = prose.table1_comparison({"race": _run(4.0, 20.0), "gender": _run(1.0, 15.0)}, PAPER)
    assert {"paper_acc_1", "paper_acc_2", "paper_bias"} <= set(t.columns)
    assert not t.isna().any().any() and t.attrs["note"] == ""
    assert t.loc[("race", "LOGAN"), "paper_bias"] == 21.5


def test_paper_comparison_shows_only_what_both_sides_report() -> None:
    t = prose.paper_comparison({"planted": _run(2.02, 31.91, ratio=1.0004, bcr=50.0)}, PAPER)
    assert list(t.columns) == ["this run: planted", "paper: race", "paper: gender"]
    assert "permutation p" not in " ".join(t.index)  # the paper has none: not a row
    assert t.loc["global gap (points)"].tolist() == ["2.0", "4.8", "1.8"]
    assert t.loc["largest LOGAN cluster gap (points)"].tolist() == ["31.9", "21.5", "23.1"]
    assert t.loc["inertia ratio, LOGAN ÷ K-Means"].tolist() == ["1.000", "1.002", "not reported"]
    assert t.loc["BCR, LOGAN (%)", "paper: gender"] == "not reported"
    assert not t.isin(["nan", "NaN"]).any().any()
    assert "stands for neither race nor gender" in t.attrs["note"]
    real = prose.paper_comparison({"race": _run(4.0, 20.0)}, PAPER)
    assert "stands for neither" not in real.attrs["note"]


def test_null_sentences_state_the_runs_numbers() -> None:
    text = prose.null_sentences({"race": _run(4.04, 20.06)}, PAPER)
    assert text == (
        "- **race**: largest gap 20.1 points with LOGAN (λ = 10); permutation p = 0.020 over "
        "50 refits; global gap 4.0 points; random halves differ by 2.0 points on average over "
        "3 splits (paper: 2.4)."
    )


def test_selection_sentence_names_the_degenerate_fits_it_left_out() -> None:
    text = prose.selection_sentence({"planted": _run(2.0, 31.9)})
    assert text.startswith("- **planted**: λ = 10 of the grid; left out as degenerate: λ = 1000:")
    assert "largest gap 100 points" in text
    clean = _run(2.0, 31.9)
    clean["lambda_table"]["degenerate"] = ""
    assert "no fit of the grid is degenerate" in prose.selection_sentence({"x": clean})


def test_setting_table_counts_the_runs_rows() -> None:
    note = {"classifier": "frozen MiniLM on 19,826 Davidson tweets"}
    real = SimpleNamespace(source="real", y_true=np.zeros(4957), pairs={}, notes=note)
    text = prose.setting_table(real)
    assert "(4,957)" in text and "frozen MiniLM on 19,826 Davidson tweets" in text
    assert "97,320" in text  # the paper's test set
    assert "pretrained BERT (main text)" in text and "Appendix A.4" in text  # which features
    assert "its 2nd-to-last layer" in text  # no note on the feature sets: the classifier's layer
    real.notes = {**note, "features": "'pretrained': the frozen MiniLM"}
    assert "features: 'pretrained': the frozen MiniLM" in prose.setting_table(real)
    syn = SimpleNamespace(source="synthetic", y_true=np.zeros(4000), pairs={"planted": ("A", "B")},
                          notes={})  # fmt: skip
    assert "4,000 rows" in prose.setting_table(syn) and "4000.0" not in prose.setting_table(syn)


def test_counts_are_whole_numbers_and_noise_prints_as_zero() -> None:
    assert prose._count(10033.0) == "10,033"
    with pytest.raises(ValueError, match="whole number"):
        prose._count(2.5)
    assert prose._num(8.5e-17) == "0.0" and prose._num(-3e-13, 3) == "0.000"


def test_a_degenerate_selected_fit_is_left_out_of_tables_and_sentences() -> None:
    """When no λ of the grid gives a usable fit (the paper-smoke profile's gender), the
    selection falls back to a degenerate fit: its numbers reach no table or sentence."""
    run = _run(2.0, 28.7)
    run["table4"]["degenerate"] = ["2 eligible clusters < min_clusters = 5"] * 2
    t1 = prose.table1_comparison({"gender": run, "race": _run(4.0, 20.0)}, PAPER)
    assert ("gender", "LOGAN") not in t1.index and ("gender", "K-Means") not in t1.index
    assert ("gender", "Global") in t1.index and ("race", "LOGAN") in t1.index
    assert "gender, LOGAN (2 eligible clusters < min_clusters = 5)" in t1.attrs["note"]
    cmp = prose.paper_comparison({"gender": run}, PAPER)
    assert cmp.loc["largest LOGAN cluster gap (points)", "this run: gender"] == "degenerate fit"
    assert cmp.loc["global gap (points)", "this run: gender"] == "2.0"
    assert "No λ of the grid gave a usable LOGAN fit for gender" in cmp.attrs["note"]
    text = prose.null_sentences({"gender": run}, PAPER)
    assert "28.7" not in text and "permutation p" not in text
    assert "no λ of the grid gave a usable LOGAN fit" in text
