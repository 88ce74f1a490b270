"""The pinned-AUC headline rows: the paper's differences per model, ours with an interval."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from nlpbias.core.scorecard import check_rows
from nlpbias.studies import pinned_auc as study


def per_model(shift: float, scenarios=("main", "skew"), n_seeds: int = 5) -> pd.DataFrame:
    rng = np.random.default_rng(0)
    rows = []
    for scenario in scenarios:
        for family, level in (
            ("baseline", 5.0),
            ("random control", 5.0),
            ("bias mitigated", 5.0 + shift),
        ):
            for seed in range(n_seeds):
                rows.append(
                    {
                        "scenario": scenario,
                        "terms": "all terms",
                        "family": family,
                        "seed": seed,
                        "FPED": level + rng.normal(0, 0.05),
                        "PAED": level / 10 + rng.normal(0, 0.005),
                        "auc_templates": 0.9 - shift / 100 + rng.normal(0, 0.001),
                    }
                )
    return pd.DataFrame(rows)


def test_rows_carry_the_papers_differences_per_model():
    rows = check_rows(
        study.headlines(
            per_model(-2.0),
            main="main",
            skew="skew",
            source="real",
            model="cnn",
            n_bootstrap=2000,
            random_state=0,
        )
    )
    assert rows["key"].tolist() == [
        "fped",
        "paed",
        "auc_templates",
        "auc_templates_vs_control",
        "fped_in_domain",
        "paed_in_domain",
        "auc_templates_in_domain",
    ]
    by = rows.set_index("key")
    assert by.loc["fped", "paper"] == pytest.approx((52.94 - 74.13) / 10)
    assert by.loc["paed", "paper"] == pytest.approx((4.07 - 6.37) / 10)
    assert by.loc["auc_templates", "paper"] == pytest.approx(0.960 - 0.952)
    assert by.loc["auc_templates_vs_control", "paper"] == pytest.approx(0.960 - 0.946)
    # a planted drop of 2 per model: the sign agrees and the paper's -2.12 lies in reach
    assert by.loc["fped", "book"] == pytest.approx(-2.0, abs=0.1)
    assert by.loc["fped", "verdict"] in {"reproduced", "direction only"}
    assert by.loc["fped", "ci_high"] < 0
    # the CNN's numbers differ between CPUs (issue 27): every row says so and names its interval
    assert (rows["stability"] == "varies across CPUs").all()
    assert rows["interval"].str.contains("one per seed").all()
    assert rows["interval"].str.contains("seed-to-seed spread").all()


def test_linear_model_rows_keep_the_default_stability():
    rows = check_rows(
        study.headlines(
            per_model(-2.0), main="main", source="real", model="linear", n_bootstrap=200,
            random_state=0,
        )
    )  # fmt: skip
    assert (rows["stability"] == "bit-identical").all()


def test_no_effect_is_not_reproduced_and_synthetic_is_not_testable():
    rows = check_rows(
        study.headlines(
            per_model(0.0),
            main="main",
            source="real",
            model="cnn",
            n_bootstrap=2000,
            random_state=0,
        )
    ).set_index("key")
    assert rows.loc["fped", "verdict"] == "not reproduced"
    assert "fped_in_domain" not in rows.index
    synth = check_rows(
        study.headlines(
            per_model(-2.0),
            main="main",
            source="synthetic",
            model="linear",
            n_bootstrap=2000,
            random_state=0,
        )
    )
    assert (synth["verdict"] == "not testable offline").all()


def test_unknown_scenario_is_named():
    with pytest.raises(ValueError, match="no per-model rows for scenario 'x'"):
        study.headlines(
            per_model(0.0), main="x", source="real", model="cnn", n_bootstrap=2000, random_state=0
        )


def test_one_model_per_family_gives_no_interval_and_no_verdict_of_agreement():
    # paper-smoke trains one seed: a 1 + 1 model bootstrap has zero width, which is no interval
    rows = study.headlines(
        per_model(-2.0, n_seeds=1),
        main="main",
        skew="skew",
        source="real",
        model="cnn",
        n_bootstrap=200,
        random_state=0,
    )
    for row in rows:
        assert np.isnan(row["ci_low"]) and np.isnan(row["ci_high"])
        assert row["verdict"] == "not reproduced" and "no interval" in row["reason"]
