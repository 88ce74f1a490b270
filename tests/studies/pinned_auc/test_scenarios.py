"""The second scenario of the chapter: skewed data, restricted equality differences, verdicts."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from nlpbias.studies import pinned_auc as study


@pytest.fixture(scope="module")
def demo_run():
    data = study.load_study_data(
        use_data_home=False,
        corpus="davidson",
        test_fraction=0.2,
        validation_fraction=0.0,
        n_synthetic=1500,
        random_state=0,
        max_train=None,
        max_templates=None,
    )
    skew_data, skew = study.skewed_scenario(data, random_state=0, toxic_share=0.15, hold_back=0.5)
    run = study.run_scenario(
        skew_data,
        seeds=[0, 1],
        model="linear",
        embedding=None,
        progress=False,
        model_params=None,
        n_buckets=5,
        threshold_on="general",
        n_jobs=1,
        random_state=0,
    )
    return data, skew_data, skew, run


def test_skewed_scenario_uses_the_held_back_and_control_texts(demo_run):
    data, skew_data, skew, run = demo_run
    assert skew_data.train["toxic"].mean() == pytest.approx(0.15, abs=0.005)
    assert len(skew_data.debias_pool) == len(skew.held_back) > 0
    assert len(skew_data.random_pool) == len(skew.control_pool)
    assert skew_data.eval_sets is data.eval_sets and skew_data.terms == data.terms
    # the mitigation drew only in-domain, held-back texts
    added = run["balance"].added
    assert set(added["text"]) <= set(skew.held_back["text"])
    assert "in-domain skew" in skew_data.notes["scenario"]


def test_restricted_differences_equal_the_report_on_all_terms(demo_run):
    *_, run = demo_run
    res = run["results"]
    every = study.template_differences(res)
    terms = res["by_term"]["term"].unique().tolist()
    recomputed = study.template_differences(res, terms=terms)
    merged = every.merge(recomputed, on=["family", "seed"], suffixes=("", "_re"))
    for m in ("FPED", "FNED", "PAED"):
        np.testing.assert_allclose(merged[m], merged[f"{m}_re"], rtol=1e-12)
    one = study.template_differences(res, terms=terms[:1])
    assert (one["FPED"] <= every["FPED"] + 1e-12).all()
    with pytest.raises(ValueError, match="none of the terms"):
        study.template_differences(res, terms=["no-such-term"])


def test_compare_scenarios_tables(demo_run):
    *_, skew, run = demo_run
    per_model, summary = study.compare_scenarios(
        {"a": run["results"], "b": run["results"]},
        term_sets={"all terms": None, "skewed terms": skew.skewed_terms, "none": []},
        n_bootstrap=50,
        random_state=0,
    )
    assert set(per_model["terms"]) == {"all terms", "skewed terms"}
    assert len(per_model) == 2 * 2 * 3 * 2  # scenarios x term sets x families x seeds
    assert {"auc_general", "auc_templates"} <= set(per_model.columns)
    assert set(summary["metric"]) == {"FPED", "FNED", "PAED", "auc_general", "auc_templates"}


def summary_frame(means: dict[str, float], half: float) -> pd.DataFrame:
    return pd.DataFrame(
        [
            {
                "family": f,
                "metric": "FPED",
                "n_models": 5,
                "mean": m,
                "ci_low": m - half,
                "ci_high": m + half,
            }
            for f, m in means.items()
        ]
    )


def test_mechanism_holds_only_below_both_families_beyond_the_intervals():
    apart = summary_frame({"baseline": 6.0, "random control": 5.5, "bias mitigated": 3.0}, 0.5)
    assert study.mechanism_verdicts(apart, metrics=["FPED"])["holds"].item()
    near_control = summary_frame(
        {"baseline": 6.0, "random control": 3.2, "bias mitigated": 3.0}, 0.5
    )
    v = study.mechanism_verdicts(near_control, metrics=["FPED"]).iloc[0]
    assert v["lower_than_all"] and not v["apart_from_all"] and not v["holds"]
    one_model = apart.assign(n_models=1)
    assert not study.mechanism_verdicts(one_model, metrics=["FPED"])["holds"].item()
    with pytest.raises(ValueError, match="lacks families"):
        study.mechanism_verdicts(apart[apart["family"] != "baseline"], metrics=["FPED"])


def test_family_difference_interval():
    rng = np.random.default_rng(0)
    t = pd.DataFrame(
        {
            "family": ["bias mitigated"] * 10 + ["baseline"] * 10,
            "FPED": np.r_[rng.normal(2, 0.1, 10), rng.normal(5, 0.1, 10)],
        }
    )
    d = study.family_difference(t, "FPED", random_state=0, n_bootstrap=2000)
    assert d["ci_low"] < d["difference"] < d["ci_high"] < 0
    assert d["difference"] == pytest.approx(t.groupby("family")["FPED"].mean().diff().iloc[-1])
    assert study.family_difference(t, "FPED", random_state=0, n_bootstrap=2000) == d
    same = t.assign(family=np.where(np.arange(20) % 2, "bias mitigated", "baseline"))
    d0 = study.family_difference(same, "FPED", random_state=0, n_bootstrap=2000)
    assert d0["ci_low"] < 0 < d0["ci_high"]
    with pytest.raises(ValueError, match="no values"):
        study.family_difference(
            t, "FPED", reference="random control", n_bootstrap=2000, random_state=0
        )


def test_scenario_verdicts_one_block_per_term_set(demo_run):
    *_, skew, run = demo_run
    _, summary = study.compare_scenarios(
        {"a": run["results"]},
        term_sets={"all terms": None, "skewed terms": skew.skewed_terms},
        n_bootstrap=50,
        random_state=0,
    )
    v = study.scenario_verdicts(summary, "a")
    assert v.index.tolist() == ["all terms", "all terms", "skewed terms", "skewed terms"]
    assert v["metric"].tolist() == ["FPED", "PAED"] * 2
    with pytest.raises(ValueError, match="no scenario 'b'"):
        study.scenario_verdicts(summary, "b")


def test_skewed_scenario_without_any_skewable_term_says_why(demo_run):
    """paper-smoke once stopped with 'the pool is empty' deep in the mitigation when no Table 1
    term occurred often enough to skew: the scenario now names the cause and the fix."""
    from dataclasses import replace

    from nlpbias.data.identity import term_mask

    data = demo_run[0]
    terms = list(study.table1_ratios(study.reported()["table1"]))
    has_term = term_mask(data.train["text"], terms).any(axis=1).to_numpy()
    bare = replace(data, train=data.train[~has_term])
    with pytest.raises(ValueError, match="too few texts with the Table 1 terms.*larger max_train"):
        study.skewed_scenario(bare, random_state=0, toxic_share=0.15, hold_back=0.5)


def _rule_summary(fped, paed, auc):
    """compare_scenarios-like summary: per family (mean, ci_low, ci_high) for three metrics."""
    rows = []
    for metric, fams in (("FPED", fped), ("PAED", paed), ("auc_general", auc)):
        for family, (mean, lo, hi) in fams.items():
            rows.append({"scenario": "wiki", "terms": "all terms", "family": family,
                         "metric": metric, "mean": mean, "ci_low": lo, "ci_high": hi,
                         "n_models": 5})  # fmt: skip
    return pd.DataFrame(rows)


def test_paper_rule_needs_both_differences_below_both_families_and_the_auc_kept() -> None:
    from nlpbias.studies.pinned_auc.scenarios import paper_rule

    good = {"baseline": (5.0, 4.0, 6.0), "random control": (5.2, 4.5, 6.1),
            "bias mitigated": (2.0, 1.5, 3.0)}  # fmt: skip
    auc = {"baseline": (0.950, 0.94, 0.96), "random control": (0.949, 0.94, 0.96),
           "bias mitigated": (0.945, 0.93, 0.95)}  # fmt: skip
    table, verdict = paper_rule(_rule_summary(good, good, auc), "wiki", auc_tolerance=0.01)
    assert table.set_index("metric")["holds"].tolist() == [True, True, True]
    assert verdict.startswith("**Verdict.** The mitigation works here by the rule")
    assert "general AUC 0.945 vs baseline 0.950, a difference of -0.005, within 0.01" in verdict
    # the AUC falls by more than the tolerance: the rule fails although both differences fall
    worse = {**auc, "bias mitigated": (0.930, 0.92, 0.94)}
    table, verdict = paper_rule(_rule_summary(good, good, worse), "wiki", auc_tolerance=0.01)
    assert "does not work" in verdict and "beyond 0.01" in verdict
    # PAED's interval touches the control's: not apart, so the rule fails
    touching = {**good, "bias mitigated": (3.5, 2.5, 4.5)}
    table, verdict = paper_rule(_rule_summary(good, touching, auc), "wiki", auc_tolerance=0.01)
    assert table.set_index("metric").loc["PAED", "holds"] == False  # noqa: E712
    assert "PAED not below both with the intervals apart" in verdict
    with pytest.raises(ValueError, match="no rows for scenario 'other'"):
        paper_rule(_rule_summary(good, good, auc), "other", auc_tolerance=0.01)


def test_paper_rule_with_one_model_per_family_cannot_apply() -> None:
    from nlpbias.studies.pinned_auc.scenarios import paper_rule

    fams = {"baseline": (5.0, 5.0, 5.0), "random control": (5.2, 5.2, 5.2),
            "bias mitigated": (2.0, 2.0, 2.0)}  # fmt: skip
    summary = _rule_summary(fams, fams, fams).assign(n_models=1)
    _, verdict = paper_rule(summary, "wiki", auc_tolerance=0.01)
    assert "cannot apply the rule" in verdict and "works" not in verdict.split("(")[0]


def test_paper_rule_prints_no_negative_zero() -> None:
    from nlpbias.studies.pinned_auc.scenarios import paper_rule

    fams = {"baseline": (5.0, 4.0, 6.0), "random control": (5.2, 4.5, 6.1),
            "bias mitigated": (2.0, 1.5, 3.0)}  # fmt: skip
    auc = {"baseline": (0.9161, 0.9, 0.93), "random control": (0.9159, 0.9, 0.93),
           "bias mitigated": (0.9158, 0.9, 0.93)}  # fmt: skip
    _, verdict = paper_rule(_rule_summary(fams, fams, auc), "wiki", auc_tolerance=0.01)
    assert "a difference of +0.000" in verdict and "-0.000" not in verdict
