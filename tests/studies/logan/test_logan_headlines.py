"""LOGAN's headline rows for the scorecard (nlpbias.studies.logan.headlines)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from nlpbias.core import scorecard
from nlpbias.data.reported import load_reported
from nlpbias.studies import logan as study
from nlpbias.studies.logan.calibration import NullResult
from nlpbias.studies.logan.headlines import SECTION

PAPER = load_reported("zhao2020logan")


def _spread(bcr_km, bcr_logan, gap_logan) -> pd.DataFrame:
    rows = []
    for seed, (k, lo, g) in enumerate(zip(bcr_km, bcr_logan, gap_logan, strict=True)):
        rows.append({"seed": seed, "method": "K-Means", "bcr_pct": k, "max_abs_gap_pts": 5.0})
        rows.append({"seed": seed, "method": "LOGAN, paper's rule", "bcr_pct": lo,
                     "max_abs_gap_pts": g})  # fmt: skip
    return pd.DataFrame(rows)


def _inputs(attrs, *, bcr_km, bcr_logan, gap_logan, global_gap=3.0):
    table1 = pd.DataFrame({"bias": [global_gap, 20.0, 21.0]}, index=["Global", "K-Means", "LOGAN"])
    runs = {a: {"table1": table1, "null": NullResult(21.0, np.zeros(9), 0.1)} for a in attrs}
    robust = {
        a: {"spread": _spread(bcr_km, bcr_logan, gap_logan), "lams": {"paper": 30.0}} for a in attrs
    }
    return runs, robust


def _by_key(rows):
    return {r["key"]: r for r in rows}


def test_planted_verdicts_from_the_seed_spread() -> None:
    n = 20
    # BCR gain of exactly the paper's 12.5 points on every seed; gaps 16.7 above global on
    # average, spread 15-18 (the paper's race excess 16.7 lies inside, gender's 21.3 does not)
    runs, robust = _inputs(
        ["race", "gender"],
        bcr_km=[50.0] * n,
        bcr_logan=[62.5] * n,
        gap_logan=list(np.linspace(18.0, 21.0, n)),
    )
    rows = _by_key(study.headlines(runs, robust, paper=PAPER, source="real"))
    assert list(rows) == ["bcr_gain_race", "local_gap_race", "local_gap_gender"]
    gain = rows["bcr_gain_race"]
    assert gain["paper"] == pytest.approx(75.0 - 62.5)
    assert (gain["book"], gain["ci_low"], gain["ci_high"]) == (12.5, 12.5, 12.5)
    assert gain["verdict"] == "reproduced"
    race = rows["local_gap_race"]
    assert race["paper"] == pytest.approx(21.5 - 4.8)
    assert race["book"] == pytest.approx(np.median(np.linspace(18.0, 21.0, n)) - 3.0)
    assert race["ci_low"] == pytest.approx(np.percentile(np.linspace(15.0, 18.0, n), 2.5))
    assert race["verdict"] == "reproduced" and race["p_value"] == 0.1
    assert "permutation test of the largest gap (9 refits on shuffled groups" in race["reason"]
    # the interval finds an effect and p = 0.1 does not: the reason says they disagree
    assert "the two uncertainties disagree" in race["reason"]
    assert rows["local_gap_gender"]["verdict"] == "direction only"
    assert all(r["section"] == SECTION for r in rows.values())
    scorecard.check_rows(list(rows.values()))


def test_no_gain_and_the_stand_in() -> None:
    # LOGAN as often ahead as behind K-Means: the gain's interval includes 0
    runs, robust = _inputs(
        ["race", "gender"],
        bcr_km=[50.0, 62.5, 50.0, 62.5],
        bcr_logan=[62.5, 50.0, 62.5, 50.0],
        gap_logan=[20.0] * 4,
    )
    rows = _by_key(study.headlines(runs, robust, paper=PAPER, source="real"))
    assert rows["bcr_gain_race"]["verdict"] == "not reproduced"
    # the synthetic stand-in: its one attribute answers the race rows, none is testable; the
    # gender row has no number (not the planted attribute's number a second time) and says why
    runs, robust = _inputs(["planted"], bcr_km=[50.0] * 3, bcr_logan=[75.0] * 3,
                           gap_logan=[30.0] * 3)  # fmt: skip
    rows = _by_key(study.headlines(runs, robust, paper=PAPER, source="synthetic"))
    assert {r["verdict"] for r in rows.values()} == {"not testable offline"}
    assert rows["bcr_gain_race"]["book"] == 25.0 and rows["local_gap_race"]["book"] == 27.0
    gender = rows["local_gap_gender"]
    assert gender["book"] is None or np.isnan(gender["book"])
    assert "one attribute (planted)" in gender["reason"] and "race row" in gender["reason"]
    assert all(r["data"] == "synthetic" for r in rows.values())


def test_missing_logan_fits_give_no_number() -> None:
    runs, robust = _inputs(["race"], bcr_km=[50.0] * 3, bcr_logan=[50.0] * 3, gap_logan=[9.0] * 3)
    robust["race"]["spread"] = robust["race"]["spread"].query("method == 'K-Means'")
    rows = _by_key(study.headlines(runs, robust, paper=PAPER, source="real"))
    assert rows["bcr_gain_race"]["book"] is None or np.isnan(rows["bcr_gain_race"]["book"])
    assert rows["bcr_gain_race"]["verdict"] == "not testable offline"
    assert rows["local_gap_gender"]["verdict"] == "not testable offline"  # no gender attribute
    with pytest.raises(ValueError, match="source"):
        study.headlines(runs, robust, paper=PAPER, source="demo")


def test_rows_from_the_chapters_own_steps_on_the_stand_in() -> None:
    data = study.load_logan_data(use_data_home=False, max_rows=None, max_train=None,
                                 classifier="frozen", classifier_params={}, n_synthetic=1200,
                                 random_state=0, feature_sets=["fine-tuned"])  # fmt: skip
    kw = dict(n_clusters=6, min_group_size=10, min_clusters=3, random_state=0,
              show_progress=False)  # fmt: skip
    runs = {"planted": study.run_attribute(data, "planted", lam_grid=(1, 10), n_permutations=5,
                                           **kw)}  # fmt: skip
    robust = {"planted": study.run_robustness(data, "planted", path_grid=(1, 10), n_seeds=3,
                                              **kw)}  # fmt: skip
    rows = _by_key(study.headlines(runs, robust, paper=PAPER, source=data.source))
    spread = robust["planted"]["spread"].set_index(["method", "seed"])
    gain = spread.loc["LOGAN, paper's rule", "bcr_pct"] - spread.loc["K-Means", "bcr_pct"]
    assert rows["bcr_gain_race"]["book"] == pytest.approx(gain.median())
    assert gain.min() <= rows["bcr_gain_race"]["ci_low"] <= gain.median()


def test_degenerate_fits_never_reach_a_row() -> None:
    """A seed whose LOGAN fit is degenerate (here: a largest gap of 100 points) is left out of
    the gap rows and of the BCR gain; a degenerate K-Means fit drops its seed from the gain."""
    n = 10
    runs, robust = _inputs(["race", "gender"], bcr_km=[50.0] * n, bcr_logan=[62.5] * n,
                           gap_logan=[20.0] * n)  # fmt: skip
    for attr in ("race", "gender"):
        spread = robust[attr]["spread"]
        spread["degenerate"] = ""
        bad = (spread["method"] == "LOGAN, paper's rule") & spread["seed"].isin([0, 1])
        spread.loc[bad, ["max_abs_gap_pts", "bcr_pct", "degenerate"]] = [
            100.0,
            100.0,
            "largest gap 100 points",
        ]
        spread.loc[(spread["method"] == "K-Means") & (spread["seed"] == 2),
                   ["bcr_pct", "degenerate"]] = [0.0, "one eligible cluster"]  # fmt: skip
    rows = _by_key(study.headlines(runs, robust, paper=PAPER, source="real"))
    race = rows["local_gap_race"]
    # 8 usable LOGAN fits of 20 points on a global gap of 3: no 100 anywhere
    assert (race["book"], race["ci_low"], race["ci_high"]) == (17.0, 17.0, 17.0)
    assert "8 of 10 k-means++ seeds (2 left out: a degenerate LOGAN fit)" in race["interval"]
    gain = rows["bcr_gain_race"]
    assert (gain["book"], gain["ci_low"], gain["ci_high"]) == (12.5, 12.5, 12.5)
    assert (
        "7 of 10 k-means++ seeds (3 left out: a degenerate K-Means or LOGAN fit)"
        in (gain["interval"])
    )
    # without the flag the same numbers would reach the rows (the test can fail)
    for attr in ("race", "gender"):
        robust[attr]["spread"]["degenerate"] = ""
    rows = _by_key(study.headlines(runs, robust, paper=PAPER, source="real"))
    assert rows["local_gap_race"]["ci_high"] == pytest.approx(97.0)


def test_gap_interval_says_it_holds_seed_variation_only() -> None:
    runs, robust = _inputs(["race"], bcr_km=[50.0] * 4, bcr_logan=[62.5] * 4,
                           gap_logan=[20.0, 21.0, 22.0, 23.0])  # fmt: skip
    race = _by_key(study.headlines(runs, robust, paper=PAPER, source="real"))["local_gap_race"]
    assert "4 k-means++ seeds" in race["interval"]
    assert "minus the global gap, a fixed number" in race["interval"]
    assert "seed variation only" in race["interval"] and "λ = 30" in race["interval"]


def test_a_degenerate_selected_fit_gives_no_permutation_p() -> None:
    runs, robust = _inputs(["race"], bcr_km=[50.0] * 4, bcr_logan=[62.5] * 4,
                           gap_logan=[20.0] * 4)  # fmt: skip
    runs["race"]["table4"] = pd.DataFrame(
        {"degenerate": ["", "3 eligible clusters < min_clusters = 5"]}, index=["K-Means", "LOGAN"]
    )
    race = _by_key(study.headlines(runs, robust, paper=PAPER, source="real"))["local_gap_race"]
    assert np.isnan(race["p_value"]) and "no permutation p" in race["reason"]
    assert "3 eligible clusters < min_clusters = 5" in race["reason"]


def test_one_usable_seed_gives_no_interval() -> None:
    # paper-smoke: one seed's fit survives; its value is no interval (was "7.01 [7.01, 7.01]")
    runs, robust = _inputs(["race"], bcr_km=[50.0], bcr_logan=[62.5], gap_logan=[10.0])
    rows = _by_key(study.headlines(runs, robust, paper=PAPER, source="real"))
    race = rows["local_gap_race"]
    assert race["book"] == pytest.approx(7.0)
    assert np.isnan(race["ci_low"]) and race["verdict"] == "not reproduced"
    assert "no interval" in race["reason"]


def test_table2_rows_come_from_the_auc_runs_in_auc_points() -> None:
    n = 20
    runs, robust = _inputs(["race", "gender"], bcr_km=[50.0] * n, bcr_logan=[62.5] * n,
                           gap_logan=[20.0] * n)  # fmt: skip
    # AUC runs: global AUC gap 0.02 (a fraction, as Table 2 prints it); LOGAN's largest gap
    # 14–16 AUC points, so 12–14 above global: the paper's race 0.153 − 0.024 = 12.9 inside
    gaps = list(np.linspace(14.0, 16.0, n))
    auc_runs, auc_robust = _inputs(["race", "gender"], bcr_km=[50.0] * n, bcr_logan=[62.5] * n,
                                   gap_logan=gaps)  # fmt: skip
    for r in auc_runs.values():
        r["table2"] = r.pop("table1").assign(bias=[0.02, 0.15, 0.16])
    rows = _by_key(study.headlines(runs, robust, paper=PAPER, source="real",
                                   runs_auc=auc_runs, robust_auc=auc_robust))  # fmt: skip
    assert list(rows)[-2:] == ["local_auc_gap_race", "local_auc_gap_gender"]
    race = rows["local_auc_gap_race"]
    assert race["paper"] == pytest.approx(100 * (0.153 - 0.024))
    assert race["book"] == pytest.approx(np.median(gaps) - 2.0)
    assert race["verdict"] == "reproduced"
    assert "Table 2" in race["claim"] and "AUC points" in race["unit"]
    # gender: paper 0.092 − 0.028 = 6.4 points, below the 12–14 of this run: an overshoot
    assert rows["local_auc_gap_gender"]["verdict"] == "direction only"
    # the accuracy rows are unchanged by the AUC runs
    assert (
        rows["local_gap_race"]
        == _by_key(study.headlines(runs, robust, paper=PAPER, source="real"))["local_gap_race"]
    )
    # no AUC seed with a usable fit: the row has no number and says so
    for r in auc_robust.values():
        r["spread"] = r["spread"][r["spread"]["method"] == "K-Means"]
    none = _by_key(study.headlines(runs, robust, paper=PAPER, source="real",
                                   runs_auc=auc_runs, robust_auc=auc_robust))  # fmt: skip
    assert pd.isna(none["local_auc_gap_gender"]["book"])
    assert none["local_auc_gap_gender"]["verdict"] == "not testable offline"
    scorecard.check_rows(list(rows.values()))
