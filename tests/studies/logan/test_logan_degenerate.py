"""Degenerate fits are flagged with their reason and never selected or summarised.

A degenerate fit (nlpbias.studies.logan.summaries.DEGENERATE_RULES): it did not converge, kept no
or one eligible cluster or fewer than ``min_clusters``, or has a cluster gap of 100 points (one
group all right, the other all wrong: rows sorted by group and correctness). On the stand-in the
exact rule at λ = 300 gives such a fit *that converges and keeps every cluster*: before the flag
it was the λ with the most biased clusters, so the selection picked it and the seed range of
the largest gap reached 100.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from nlpbias.studies.logan import LOGAN, best_lams, lambda_path, seed_spread, spread_summary
from nlpbias.studies.logan.robustness import robustness_verdict
from nlpbias.studies.logan.summaries import degenerate_reason, select_lambda
from nlpbias.studies.logan.synthetic import make_local_bias_data

GAP_100 = "largest gap 100 points"


@pytest.fixture(scope="module")
def rows() -> dict:
    d = make_local_bias_data(1200, dim=8, n_regions=6, random_state=0)
    return {"X": d["X"], "y_true": d["y_true"], "y_pred_or_score": d["y_pred"],
            "group": d["group"]}  # fmt: skip


def _est(**kw) -> LOGAN:
    return LOGAN(n_clusters=6, min_clusters=3, min_group_size=10, random_state=0, **kw)


def _fit(rows: dict) -> dict:
    return {k: rows[k] for k in ("y_true", "y_pred_or_score", "group")}


@pytest.mark.parametrize(
    ("kw", "want"),
    [
        ({"converged": True, "n_eligible": 6, "min_clusters": 3, "max_abs_gap_pts": 99.9}, ""),
        ({"converged": True, "n_eligible": 6, "min_clusters": 3, "max_abs_gap_pts": 100.0},
         GAP_100),
        ({"converged": True, "n_eligible": 1, "min_clusters": 1, "max_abs_gap_pts": 40.0},
         "one eligible cluster"),
        ({"converged": True, "n_eligible": 0, "min_clusters": 1, "max_abs_gap_pts": None},
         "no eligible cluster"),
        ({"converged": True, "n_eligible": 2, "min_clusters": 3, "max_abs_gap_pts": np.nan},
         "2 eligible clusters < min_clusters = 3"),
        ({"converged": False, "n_eligible": 6, "min_clusters": 3, "max_abs_gap_pts": 20.0,
          "max_iter": 50}, "no convergence in max_iter = 50 iterations"),
    ],
)  # fmt: skip
def test_each_rule_names_its_reason(kw: dict, want: str) -> None:
    assert degenerate_reason(**kw) == want


def test_a_gap_of_100_is_flagged_and_never_selected(rows: dict) -> None:
    path = lambda_path(rows, estimator=_est(), grid=(1, 300), rules=["exact"])
    at300 = path[path["lam"] == 300].iloc[0]
    # converged, every cluster eligible, the most biased clusters: only the gap of 100 flags it
    assert at300["converged"] and at300["n_eligible"] == 6
    assert at300["max_abs_gap_pts"] == pytest.approx(100.0)
    assert at300["n_biased"] > path.loc[path["lam"] == 1, "n_biased"].iloc[0]
    assert at300["degenerate"] == GAP_100 and not at300["usable"]
    assert path.loc[path["lam"] <= 1, "degenerate"].tolist() == ["", ""]
    assert best_lams(path) == {"exact": 1.0}
    lam, table = select_lambda(rows["X"], **_fit(rows), estimator=_est(rule="exact"),
                               grid=(1, 300))  # fmt: skip
    assert lam == 1.0 and table.loc[300.0, "degenerate"] == GAP_100


def test_no_usable_lam_is_said_and_the_reasons_are_in_the_table(rows: dict) -> None:
    lam, table = select_lambda(rows["X"], **_fit(rows), estimator=_est(rule="exact"),
                               grid=(300, 1000))  # fmt: skip
    assert not table["usable"].any() and "degenerate" in table.attrs["note"]
    assert (table["degenerate"] != "").all()


def test_degenerate_seeds_are_left_out_of_every_summary(rows: dict) -> None:
    spread = seed_spread(rows, lams={"exact": 300.0}, estimator=_est(), n_seeds=3)
    exact = spread[spread["method"] == "LOGAN, exact rule"]
    # seed 0's fit at λ = 300 reaches 100 (and 3 biased clusters); seeds 1 and 2 do not
    assert exact["degenerate"].tolist() == [GAP_100, "", ""]
    assert exact["max_abs_gap_pts"].max() == pytest.approx(100.0)
    summary = spread_summary(spread)
    kept = exact[exact["degenerate"] == ""]
    row = summary.loc["LOGAN, exact rule"]
    assert row["n_seeds"] == 3 and row["n_degenerate"] == 1
    assert row["gap_max"] == kept["max_abs_gap_pts"].max() < 100
    assert row["biased_max"] == kept["n_biased"].max() < exact["n_biased"].max()
    res = {"race": {"summary": summary, "lams": {"exact": 300.0}}}
    text = robustness_verdict(res)
    assert "100.0" not in text
    assert "degenerate" in text


def test_spread_summary_counts_what_it_leaves_out() -> None:
    spread = pd.DataFrame(
        {"method": ["K-Means"] * 4 + ["LOGAN, exact rule"] * 4, "seed": [0, 1, 2, 3] * 2,
         "n_biased": [3, 4, 4, 5, 5, 6, 7, 6], "bcr_pct": [30.0, 40, 40, 50, 50, 60, 70, 60],
         "max_abs_gap_pts": [20.0, 22, 24, 26, 28, 30, 100, 100],
         "degenerate": ["", "", "", "", "", "", GAP_100, GAP_100]}
    )  # fmt: skip
    s = spread_summary(spread)
    assert s.loc["LOGAN, exact rule", ["n_seeds", "n_degenerate"]].tolist() == [4, 2]
    assert s.loc["LOGAN, exact rule", ["gap_min", "gap_max"]].tolist() == [28.0, 30.0]
    assert s.loc["LOGAN, exact rule", "biased_max"] == 6
    assert s.loc["K-Means", "n_degenerate"] == 0
    text = robustness_verdict({"race": {"summary": s, "lams": {"exact": 300.0}}})
    assert "over 2 of 4 k-means++ seeds (2 degenerate fits left out)" in text
    assert "(28.0–30.0)" in text and "100" not in text
    # every fit of a rule degenerate: its counts, no statistics, and the verdict says so
    spread.loc[spread["method"] == "LOGAN, exact rule", "degenerate"] = GAP_100
    s = spread_summary(spread)
    assert s.loc["LOGAN, exact rule", ["n_seeds", "n_degenerate"]].tolist() == [4, 4]
    assert np.isnan(s.loc["LOGAN, exact rule", "gap_max"])
    text = robustness_verdict({"race": {"summary": s, "lams": {"exact": 300.0}}})
    assert "every seed's fit is degenerate" in text
    # every K-Means fit degenerate (the paper-smoke profile's race): no range, no verdict
    spread["degenerate"] = np.where(spread["method"] == "K-Means", "one eligible cluster", "")
    s = spread_summary(spread)
    assert "kmeans_range_clusters" not in s.attrs
    text = robustness_verdict({"race": {"summary": s, "lams": {"exact": 300.0}}})
    assert "every K-Means fit of the 4 k-means++ seeds is degenerate" in text
    assert "no verdict for this attribute" in text


def test_counts_stay_whole_numbers_when_a_method_has_no_usable_fit() -> None:
    spread = pd.DataFrame(
        {"method": ["K-Means"] * 2 + ["LOGAN, exact rule"] * 2, "seed": [0, 1] * 2,
         "n_biased": [3, 4, 5, 6], "bcr_pct": [30.0, 40, 50, 60],
         "max_abs_gap_pts": [20.0, 22, 100, 100], "degenerate": ["", "", GAP_100, GAP_100]}
    )  # fmt: skip
    s = spread_summary(spread)
    assert s.loc["K-Means", ["biased_min", "biased_max"]].tolist() == [3, 4]
    assert "3" in s.to_string() and "3.0" not in s["biased_min"].to_string()
    assert s["biased_min"].isna().tolist() == [False, True]


def test_robustness_doctests() -> None:
    import doctest

    from nlpbias.studies.logan import robustness

    failed, attempted = doctest.testmod(robustness, raise_on_error=False, verbose=False)[:2]
    assert attempted > 0 and failed == 0
