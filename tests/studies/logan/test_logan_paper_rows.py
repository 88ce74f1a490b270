"""The classifier beside the paper's: rows of the paper-vs-book table."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from nlpbias.data.reported import load_reported
from nlpbias.studies.logan import study as ex
from nlpbias.studies.logan.prose import classifier_comparison, paper_comparison


def test_classifier_comparison_fits_under_the_paper_table() -> None:
    rng = np.random.default_rng(0)
    y = np.r_[np.zeros(50, int), np.ones(50, int)]
    score = np.r_[np.linspace(0.0, 0.6, 50), np.linspace(0.4, 1.0, 50)]
    pred = (score >= 0.5).astype(int)  # 9 negatives above 0.5, 8 positives below: 83 % right
    data = ex.LoganData(X=rng.normal(size=(100, 2)), y_true=y, y_pred=pred, y_score=score,
                        groups={"race": pd.Series(["a", "b"] * 50)},
                        pairs={"race": ("a", "b")}, source="real")  # fmt: skip
    paper = load_reported("zhao2020logan")
    t = classifier_comparison(data, {"race": None, "gender": None}, paper)
    from sklearn.metrics import roc_auc_score

    acc = 100 * np.mean(pred == y)
    assert t.iloc[0]["this run: race"] == f"{acc:.1f}" == t.iloc[0]["this run: gender"]
    assert t.iloc[1]["this run: race"] == f"{roc_auc_score(y, score):.3f}"
    assert t.iloc[0]["paper: race"] == "90.2" and t.iloc[2]["paper: gender"] == "89.4"
    assert t.iloc[1]["paper: race"] == "not reported"
    assert t.iloc[2]["this run: race"] == "no development set"
    assert "100 held-out tweets" in t.attrs["note"]
    # same columns as the paper-vs-book table: one concat, no new column
    t1 = pd.DataFrame({"bias": [1.0, 2.0, 3.0]}, index=["Global", "K-Means", "LOGAN"])
    t4 = pd.DataFrame({"inertia_ratio": [1.0, 1.0], "bcr_pct": [50.0, 60.0]},
                      index=["K-Means", "LOGAN"])  # fmt: skip
    runs = {a: {"table1": t1, "table4": t4} for a in ("race", "gender")}
    both = pd.concat([paper_comparison(runs, paper), t])
    assert list(both.columns) == list(t.columns) and not both.isna().any().any()
    with pytest.raises(ValueError, match="no 'classifier' entry"):
        classifier_comparison(data, {"race": None}, {"table1": {}})
