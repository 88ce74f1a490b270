"""The intrinsic chapter's headline rows: one per published WEAT test."""

from __future__ import annotations

import numpy as np
import pandas as pd

from nlpbias.core import scorecard
from nlpbias.data.wordsets import reported_values
from nlpbias.studies import intrinsic as study

TESTS = ["caliskan_weat1", "caliskan_weat6", "caliskan_weat7", "caliskan_weat8"]


def _results() -> pd.DataFrame:
    # published: WEAT 1 1.5, WEAT 6 1.81, WEAT 7 1.06, WEAT 8 1.24; WEAT 8 excluded here
    return pd.DataFrame(
        {
            "query": TESTS[:3],
            "effect_size": [1.4, 0.5, -0.3],
            "ci_low": [1.2, 0.2, -0.9],
            "ci_high": [1.6, 0.8, 0.4],
        }
    )


def test_one_row_per_published_test_with_planted_verdicts() -> None:
    rows = study.headlines(
        _results(), reported_values(TESTS), embedding="glove-6b-50d", n_bootstrap=1000
    )
    scorecard.check_rows(rows)
    by = {r["key"]: r for r in rows}
    assert list(by) == ["weat1", "weat6", "weat7", "weat8"]
    assert by["weat1"]["paper"] == 1.5 and by["weat1"]["verdict"] == "reproduced"
    assert by["weat6"]["verdict"] == "direction only"  # positive, below the published 1.81
    assert by["weat7"]["verdict"] == "not reproduced"  # the interval includes 0
    assert by["weat8"]["verdict"] == "not testable offline" and np.isnan(by["weat8"]["book"])
    assert "excluded" in by["weat8"]["interval"]
    assert by["weat1"]["claim"].startswith("WEAT 1, flowers vs insects")
    assert "Caliskan et al. (2017) Table 1" in by["weat1"]["claim"]
    assert "not verified" in by["weat1"]["reason"]  # the files say verified: false
    assert "1,000 draws" in by["weat1"]["interval"]


def test_the_planted_stand_in_and_no_bootstrap() -> None:
    rows = study.headlines(_results(), reported_values(TESTS), embedding="planted", n_bootstrap=0)
    assert {r["verdict"] for r in rows} == {"not testable offline"}
    assert all(r["data"] == "synthetic" for r in rows)
    assert np.isnan(rows[0]["ci_low"]) and "n_bootstrap = 0" in rows[0]["interval"]


def test_the_rows_give_the_permutation_p_and_say_where_it_disagrees() -> None:
    results = _results().assign(p_value=[1e-4, 1e-4, 1e-4], p_method="exact")
    rows = study.headlines(
        results, reported_values(TESTS), embedding="glove-6b-50d", n_bootstrap=1000
    )
    by = {r["key"]: r for r in rows}
    assert by["weat7"]["verdict"] == "not reproduced"  # the verdict follows the interval
    assert by["weat7"]["p_value"] == 1e-4
    assert by["weat7"]["test"] == "one-sided permutation test over the target words (exact)"
    assert "bootstrap over the words" in by["weat7"]["reason"]
    assert "p ≤ 0.0001" in by["weat7"]["reason"] and "disagree" in by["weat7"]["reason"]
    assert "disagree" not in by["weat1"]["reason"]  # both find the effect
    assert np.isnan(by["weat8"]["p_value"]) and by["weat8"]["test"] == ""  # excluded: no test
    # without a p-value column the rows are as before
    plain = study.headlines(
        _results(), reported_values(TESTS), embedding="glove-6b-50d", n_bootstrap=1000
    )
    assert all(np.isnan(r["p_value"]) for r in plain)
