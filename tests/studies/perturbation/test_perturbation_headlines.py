"""The perturbation chapter's headline rows, and the bootstrap over documents behind them."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from nlpbias.core import scorecard
from nlpbias.data.reported import load_reported
from nlpbias.studies import perturbation as study
from nlpbias.studies.perturbation.bias_concentration import concentration_interval

REPORTED = load_reported("wajdalevie2021")


def _table(delta_b) -> pd.DataFrame:
    return pd.DataFrame({"delta_b": np.asarray(delta_b, float)})


def _concentrated(n: int = 2000, top_share: float = 0.488, seed: int = 0) -> np.ndarray:
    """|ΔB| of ``n`` documents whose top 1 % hold ``top_share`` of the sum, signs mixed."""
    rng = np.random.default_rng(seed)
    k = n // 100
    rest = rng.uniform(0.5, 1.5, n - k)
    top = np.full(k, rest.sum() * top_share / (1 - top_share) / k)
    return np.r_[top, rest] * rng.choice([-1, 1], n)


def _validation(predicted, actual) -> pd.DataFrame:
    return pd.DataFrame({"predicted": predicted, "actual": actual})


def _rows(tables, validation) -> dict[str, dict]:
    rows = study.headlines(tables, validation, reported=REPORTED, source="wiki", n_resamples=300,
                          random_state=0)  # fmt: skip
    scorecard.check_rows(rows)
    return {r["key"]: r for r in rows}


GOOD = _validation([-3.0, -1.0, 0.1, 1.2, 2.9, 0.0], [-2.5, -1.2, 0.3, 0.9, 3.1, -0.2])


def test_planted_concentration_is_reproduced_and_a_flat_one_is_not_reached() -> None:
    rows = _rows({"a": _table(_concentrated()), "b": _table(_concentrated(seed=1))}, GOOD)
    top1 = rows["top1_share"]
    assert top1["paper"] == pytest.approx(48.8) and top1["book"] == pytest.approx(48.8, abs=0.5)
    assert top1["ci_low"] < 48.8 < top1["ci_high"] and top1["verdict"] == "reproduced"
    assert "2,000 documents" in top1["interval"] and "mean of 2 word sets" in top1["interval"]
    flat = _rows({"a": _table(np.ones(2000))}, GOOD)
    assert flat["top1_share"]["book"] == pytest.approx(1.0)
    assert flat["top1_share"]["verdict"] == "direction only"  # positive, far below 48.8 %
    assert flat["top10_share"]["paper"] == pytest.approx(92.2)


def test_agreement_with_retraining() -> None:
    tables = {"a": _table(_concentrated())}
    good = _rows(tables, GOOD)["retraining_agreement"]
    r = np.corrcoef(GOOD["predicted"], GOOD["actual"])[0, 1]
    assert good["book"] == pytest.approx(r) and good["ci_low"] > 0
    assert good["verdict"] == "reproduced" and good["paper_sign"] == 1
    assert "Fisher-z" in good["interval"]
    flipped = _rows(tables, GOOD.assign(actual=-GOOD["actual"]))["retraining_agreement"]
    assert flipped["verdict"] == "not reproduced"
    # six sets with a weak relation: the interval includes 0
    weak = _validation([1.0, 2, 3, 4, 5, 6], [2.0, -1, 3, -2, 1, 0.5])
    assert _rows(tables, weak)["retraining_agreement"]["verdict"] == "not reproduced"
    # three sets: no interval, the point decides the sign
    three = _rows(tables, GOOD.iloc[:3])["retraining_agreement"]
    assert np.isnan(three["ci_low"]) and "none" in three["interval"]


def test_concentration_interval_matches_the_table_and_resamples_documents() -> None:
    tables = {"a": _table(_concentrated()), "b": _table(_concentrated(top_share=0.3, seed=2))}
    ci = concentration_interval(tables, n_resamples=500, random_state=0)
    table = study.concentration_table(tables)
    assert ci["share"].to_dict() == pytest.approx(
        table.loc["mean", ["top 1%", "top 10%"]].to_dict()
    )
    assert (ci["ci_low"] <= ci["share"]).all() and (ci["share"] <= ci["ci_high"]).all()
    assert ci["ci_high"].loc["top 1%"] - ci["ci_low"].loc["top 1%"] > 0.005
    again = concentration_interval(tables, n_resamples=500, random_state=0)
    pd.testing.assert_frame_equal(ci, again)
    with pytest.raises(ValueError, match="empty"):
        concentration_interval({}, random_state=0)
