"""The chapter's generated sentences: each word follows its criterion and the run's numbers."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from nlpbias.core.criteria import Interval
from nlpbias.studies import pinned_auc as study
from nlpbias.studies.pinned_auc import prose


def summary(
    rows: dict[str, tuple[float, float, float]], *, metric: str = "FPED", n: int = 2
) -> pd.DataFrame:
    """A family_summary frame: family -> (mean, ci_low, ci_high)."""
    return pd.DataFrame(
        [
            {"metric": metric, "family": f, "n_models": n, "mean": m, "ci_low": lo, "ci_high": hi}
            for f, (m, lo, hi) in rows.items()
        ]
    )


def two_metrics(fped: dict, paed: dict, n: int = 2) -> pd.DataFrame:
    return pd.concat([summary(fped, metric="FPED", n=n), summary(paed, metric="PAED", n=n)])


# the demo build of issue 27: FNED of the mitigated family touches the baseline's at 0.045
FNED_DEMO = {
    "baseline": (0.022, 0.0, 0.045),
    "random control": (0.0, 0.0, 0.0),
    "bias mitigated": (0.385, 0.045 + 1e-12, 0.725),
}
APART = {"baseline": (1.86, 1.6, 2.1), "random control": (1.24, 0.9, 1.5),
         "bias mitigated": (0.4, 0.35, 0.45)}  # fmt: skip
OVERLAP = {"baseline": (1.86, 1.6, 2.1), "random control": (1.24, 0.3, 1.9),
           "bias mitigated": (0.4, 0.35, 0.45)}  # fmt: skip


def test_touching_intervals_do_not_separate_even_with_floating_noise() -> None:
    line = study.verdict_lines(summary(FNED_DEMO, metric="FNED"), metrics=["FNED"])[0]
    assert "not lower than the baseline 0.022 [0, 0.045] and does not separate from it" in line
    assert "separates from it." in line  # from the control's [0, 0]
    assert "do not overlap" not in line


def test_verdict_lines_separate_and_direction_against_both_families() -> None:
    line = study.verdict_lines(summary(APART), metrics=["FPED"])[0]
    assert line.startswith("FPED: mitigated 0.4 [0.35, 0.45]")
    assert line.count("lower than") == 2 and line.count("and separates from it") == 2
    over = study.verdict_lines(summary(OVERLAP), metrics=["FPED"])[0]
    assert "lower than the random control 1.24 [0.3, 1.9] and does not separate from it" in over
    one = study.verdict_lines(summary(APART, n=1), metrics=["FPED"])[0]
    assert "no interval over seeds" in one and "[" not in one
    with pytest.raises(ValueError, match="lacks one of"):
        study.verdict_lines(summary(APART).iloc[:2], metrics=["FPED"])


def test_family_interval_rounds_away_floating_noise_and_needs_one_row() -> None:
    s = summary({"baseline": (0.1, 0.0, 0.045 - 1e-17)})
    assert prose.family_interval(s, "FPED", "baseline") == Interval(0.1, 0.0, 0.045)
    with pytest.raises(ValueError, match="0 rows"):
        prose.family_interval(s, "FPED", "bias mitigated")


def balance_report(shortfall_bucket: int = 1) -> pd.DataFrame:
    return pd.DataFrame(
        {
            "bucket": [1, 2, 3],
            "needed": [10, 5, 5],
            "shortfall": [4 if b == shortfall_bucket else 0 for b in (1, 2, 3)],
        }
    )


def test_mitigation_reading_follows_the_separation_on_each_profile() -> None:
    beats = two_metrics(APART, APART)
    text = study.mitigation_reading(
        beats,
        source="synthetic",
        train_toxic_share=0.24,
        balance_report=balance_report(),
        corpus="synthetic",
    )
    assert "separates from the random control on FPED (0.4 [0.35, 0.45] vs 1.24" in text
    assert "and on PAED (0.4 [0.35, 0.45] vs 1.24" in text
    assert "removes the planted bias beyond what adding as many random texts does" in text
    assert "24% toxic" in text and "lacked 4 of the 20 texts" in text and "bucket 1 of 3" in text
    assert "83" not in text and "does not separate" not in text
    fails = two_metrics(APART, OVERLAP)
    real = study.mitigation_reading(
        fails,
        source="real",
        train_toxic_share=0.83,
        balance_report=balance_report(3),
        corpus="davidson",
    )
    assert "does not separate from the random control on PAED" in real
    assert "83% of the training tweets are toxic" in real and "at most 1.20" in real
    assert "in-domain skew scenario below tests" in real and "bucket 3 of 3" in real
    assert "here it asked for 20" in real and "little" not in real
    one = study.mitigation_reading(
        two_metrics(APART, APART, n=1),
        source="synthetic",
        train_toxic_share=0.24,
        balance_report=balance_report(),
        corpus="synthetic",
    )
    assert "cannot say whether" in one and "does not beat" not in one
    assert "separates" not in one
    wiki = study.mitigation_reading(
        fails,
        source="real",
        train_toxic_share=0.0973,
        balance_report=balance_report(3),
        corpus="wikipedia_talk",
        n_train=16_000,
    )
    # the set-up facts come from the paper's reported set-up, the rest from the run
    assert "paper's own corpus family" in wiki and "9.7% of the training comments toxic" in wiki
    assert "the paper's test set: 9.6%" in wiki and "16,000 training comments, 13% of the" in wiki
    assert "127,820" in wiki and "tweets" not in wiki and "bucket 3 of 3" in wiki


def test_skew_intro_states_this_runs_separation_and_prior_bound() -> None:
    real = study.skew_intro(
        two_metrics(APART, OVERLAP), source="real", train_toxic_share=0.83, table1_max_ratio=6.0
    )
    assert real.startswith(
        "On this run the mitigation is not below its random control with the intervals"
    )
    assert "With 83.0% of the training texts toxic" in real and "1 / 0.830 ≈ 1.2" in real
    assert "ratios up to 6" in real and "tweets" in real
    synth = study.skew_intro(
        two_metrics(APART, APART), source="synthetic", train_toxic_share=0.24, table1_max_ratio=6.0
    )
    assert synth.startswith("On this run the mitigation separates from its random control")
    assert "synthetic stand-in" in synth and "≈ 4.2" in synth
    one = study.skew_intro(
        two_metrics(APART, APART, n=1),
        source="synthetic",
        train_toxic_share=0.24,
        table1_max_ratio=6.0,
    )
    assert one.startswith("With one model per family this run cannot say")


def test_shifted_group_sentence_uses_the_bootstrap_margin() -> None:
    sim = study.make_shifted_groups(3000, random_state=0)
    membership = pd.get_dummies(sim["group"]).astype(bool)
    text = study.shifted_group_sentence(
        sim["y"],
        sim["score"],
        membership,
        paper_combined_auc=0.79,
        n_bootstrap=60,
        random_state=0,
    )
    # issue 27: 0.887 against 0.894 is not "found"; the BPSN AUC's 0.677 against 0.962 is
    assert "The pinned AUC is lowest for **short** (0.887; the next group 0.894)" in text
    assert "and does not single it out: the gap, 0.007, is not larger than half" in text
    assert "The BPSN AUC is lowest for **short** (0.677; the next group 0.962) and singles" in text
    assert "finds the shifted group" in text and "(paper: 0.79)" in text
    rng = np.random.default_rng(1)
    y = rng.random(3000) < 0.3
    score = 1 / (1 + np.exp(-(2.0 * y + rng.normal(size=3000))))  # no group shifted
    groups = pd.Series(np.repeat(["tall", "average", "short"], 1000))
    flat = study.shifted_group_sentence(
        y,
        score,
        pd.get_dummies(groups).astype(bool),
        paper_combined_auc=0.79,
        n_bootstrap=30,
        random_state=0,
        metrics=["pinned_auc"],
    )
    assert "No AUC singles out a group" in flat


def test_machine_paragraph_from_the_recorded_file() -> None:
    rec = prose.machine_record()
    assert rec["profile"] == "paper" and set(rec["here"]) == set(rec["other"]) == {"FPED", "PAED"}
    text = study.machine_paragraph(model="cnn", profile="paper")
    assert "FPED change −1.5 in issue 19's run on another CPU vs −0.375 [−4.02, +3.14]" in text
    assert "lies inside that interval" in text  # −1.5 is within [−4.02, 3.14]
    assert "PAED change +0.145 in issue 19's run on another CPU vs +0.279" in text
    assert "bit-identical" in text and "verdict may flip on another machine" in text
    demo = study.machine_paragraph(model="cnn", profile="demo", source="synthetic")
    assert "no verdict that could flip" in demo and "say that their verdict may flip" not in demo
    linear = study.machine_paragraph(model="linear", profile="smoke", source="synthetic")
    assert "trains the linear model" in linear
    outside = dict(rec, other={"FPED": -5.0, "PAED": 0.145})
    assert "lies outside" in study.machine_paragraph(model="cnn", profile="paper", record=outside)


def test_machine_record_names_what_is_missing(tmp_path) -> None:
    path = tmp_path / "m.yaml"
    path.write_text("source: x\nprofile: paper\nhere: {}\nother: {}\n", encoding="utf-8")
    with pytest.raises(ValueError, match="identical_on_one_machine"):
        prose.machine_record(path)
