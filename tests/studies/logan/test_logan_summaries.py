"""Tests for nlpbias.studies.logan.summaries: BCR, BIR, K-Means vs LOGAN and the choice of lam."""

from __future__ import annotations

import doctest

import logan_cases
import numpy as np
import pandas as pd
import pytest

from nlpbias.studies.logan import summaries
from nlpbias.studies.logan.estimator import LOGAN
from nlpbias.studies.logan.summaries import compare_with_kmeans, local_bias_summary, select_lambda


def _report():
    rep = pd.DataFrame(
        {
            "cluster": [0, 1, 2, 3, 4],
            "size": [100, 50, 30, 20, 40],
            "gap": [0.10, -0.06, 0.02, 0.50, -0.05],
            "eligible": [True, True, True, False, True],
        }
    )
    rep.attrs["global_gap"] = 0.012
    return rep


def test_local_bias_summary_bcr_bir_by_hand():
    s = local_bias_summary(_report())
    # eligible: 0, 1, 2, 4 (220 rows); biased (|gap| >= 5 points): 0, 1, 4 (190 rows)
    assert s["n_eligible"] == 4 and s["n_biased"] == 3
    assert s["bcr_pct"] == pytest.approx(75.0)
    assert s["bir_pct"] == pytest.approx(100 * 190 / 220)
    assert s["mean_abs_gap_biased_pts"] == pytest.approx((10 + 6 + 5) / 3)
    assert s["max_abs_gap_pts"] == pytest.approx(10.0)  # cluster 3 (50 points) is not eligible
    assert s["max_gap_cluster"] == 0
    assert s["global_gap_pts"] == pytest.approx(1.2)
    s = local_bias_summary(_report(), threshold=8.0)
    assert s["n_biased"] == 1 and s["bir_pct"] == pytest.approx(100 * 100 / 220)
    s = local_bias_summary(_report(), threshold=20.0)
    assert s["n_biased"] == 0 and s["mean_abs_gap_biased_pts"] is None


def test_local_bias_summary_rejects_bad_reports():
    with pytest.raises(ValueError, match="cluster_report_"):
        local_bias_summary(pd.DataFrame({"gap": [0.1]}))
    rep = _report()
    rep["eligible"] = False
    with pytest.raises(ValueError, match="no cluster is eligible"):
        local_bias_summary(rep)


def test_planted_local_bias_grows_the_biased_cluster_and_lambda_selection():
    # two blobs; in blob 0 half of group 1 is wrong, everything else is right
    rng = np.random.default_rng(5)
    X = np.r_[rng.normal(0, 1, (300, 2)), rng.normal(3, 1, (300, 2))]
    group = rng.integers(0, 2, 600)
    y = rng.integers(0, 2, 600)
    wrong = (np.arange(600) < 300) & (group == 1) & (rng.random(600) < 0.5)
    y_pred = np.where(wrong, 1 - y, y)
    est = LOGAN(4, lam=10.0, min_clusters=2, min_group_size=10, random_state=0)
    fit = {"y_true": y, "y_pred_or_score": y_pred, "group": group, "estimator": est}
    table = compare_with_kmeans(X, **fit)
    assert table.loc["K-Means", "inertia_ratio"] == 1.0 and table.loc["K-Means", "lam"] == 0.0
    km, lo = (
        logan_cases.fit(
            LOGAN(4, lam=v, min_clusters=2, min_group_size=10, random_state=0), X, y, y_pred, group
        )
        for v in (0.0, 10.0)
    )
    assert table.loc["LOGAN", "inertia_ratio"] == pytest.approx(lo.inertia_ / km.inertia_)
    assert table.loc["LOGAN", "inertia_ratio"] > 1.0
    # the reward -lam * gap_k(x joins k)^2 pulls points into the most biased cluster
    top = {
        name: e.cluster_report_.sort_values("abs_gap").iloc[-1]
        for name, e in (("km", km), ("lo", lo))
    }
    assert top["lo"]["size"] > 1.5 * top["km"]["size"]
    assert top["lo"]["abs_gap"] > 0.4 and top["km"]["abs_gap"] > 0.4  # planted: 0.5
    lam, sel = select_lambda(X, **fit, grid=(1, 10, 50, 200))
    most = sel["n_biased"].max()
    assert lam == min(v for v in sel.index if sel.loc[v, "n_biased"] == most)
    assert sel.loc[10.0, "inertia_ratio"] == pytest.approx(lo.inertia_ / km.inertia_)
    assert sel.loc[10.0, "n_biased"] == local_bias_summary(lo.cluster_report_)["n_biased"]


def test_docstring_examples_run():
    failed, attempted = doctest.testmod(summaries, raise_on_error=False, verbose=False)[:2]
    assert attempted > 0 and failed == 0


def test_null_table_prints_a_small_p_value_as_digits_not_scientific_notation() -> None:
    import numpy as np

    from nlpbias.studies.logan.calibration import NullResult
    from nlpbias.studies.logan.summaries import null_table

    runs = {
        a: {"null": NullResult(obs, np.array([1.0, 3.0, 5.0]), p),
            "split_gaps": pd.DataFrame({"abs_gap_pts": [0.5, 1.5, 1.0]})}
        for a, obs, p in (("race", 25.46, 0.004975), ("gender", 29.8, 0.0249))
    }  # fmt: skip
    table = null_table(runs)
    assert table["p-value"].tolist() == ["0.00498", "0.0249"]
    assert "e-0" not in table.to_string()
    assert table.loc["race", "null median (pts)"] == 3.0
    assert table.loc["gender", "random-half gap (pts, mean of 3)"] == 1.0
