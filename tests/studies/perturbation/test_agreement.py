"""Tests for nlpbias.studies.perturbation.agreement: prediction vs retraining, judged by rules."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from nlpbias.studies.perturbation.agreement import (
    LITTLE,
    NOT_LITTLE,
    agreement_interval,
    random_check,
    random_sentence,
    retraining_noise,
)

NAMES = ["increasing 30", "decreasing 30", "random 30 #1", "increasing 300", "decreasing 300",
         "random 300 #1"]  # fmt: skip
#: The demo run of the chapter before issue 27 (one seed): the random 300 set moved B by 0.699
#: against a predicted 0.078, more than the increasing 30 set (0.657).
DEMO = pd.DataFrame(
    {
        "kind": ["increasing", "decreasing", "random"] * 2,
        "n_documents": [30] * 3 + [300] * 3,
        "predicted": [1.1001, -1.5766, 0.1779, 1.3240, -1.8338, 0.0781],
        "actual": [0.6574, -1.1198, -0.0069, 1.3236, -1.7709, 0.6987],
        "seeds": [1] * 6,
    },
    index=pd.Index(NAMES, name="removed"),
)


def _with_runs(per_seed: np.ndarray, predicted=None, kind=None) -> pd.DataFrame:
    """A validation frame whose ``attrs["runs"]`` holds ``per_seed`` (sets x seeds)."""
    n_sets, n_seeds = per_seed.shape
    names = [f"set {i}" for i in range(n_sets)]
    v = pd.DataFrame(
        {
            "kind": kind or ["increasing", "decreasing", "random"] * (n_sets // 3),
            "predicted": np.arange(n_sets, dtype=float) if predicted is None else predicted,
            "actual": per_seed.mean(axis=1),
        },
        index=pd.Index(names, name="removed"),
    )
    v.attrs["runs"] = pd.DataFrame(
        [
            {"removed": names[i], "seed": s, "actual": per_seed[i, s]}
            for i in range(n_sets)
            for s in range(n_seeds)
        ]
    )
    return v


# -- agreement_interval


def test_interval_is_a_bootstrap_over_the_removal_sets() -> None:
    out = agreement_interval(DEMO, n_resamples=2000, random_state=0)
    r = np.corrcoef(DEMO["predicted"], DEMO["actual"])[0, 1]
    assert out["r"] == pytest.approx(r) and out["n_sets"] == 6 and out["n_seeds"] == 1
    # by hand: the same draws of sets, Pearson's r on each, drawn sets without spread dropped
    gen = np.random.default_rng(0)
    idx = gen.integers(0, 6, size=(2000, 6))
    p, a = DEMO["predicted"].to_numpy()[idx], DEMO["actual"].to_numpy()[idx]
    rs = np.array(
        [np.corrcoef(x, y)[0, 1] if np.ptp(x) > 0 else np.nan for x, y in zip(p, a, strict=True)]
    )
    # a draw of fewer than three distinct sets is dropped: over two points r is ±1
    distinct = np.array([len(set(row)) for row in idx])
    rs = rs[np.isfinite(rs) & (distinct >= 3)]
    assert out["draws"] == rs.size
    assert [out["ci_low"], out["ci_high"]] == pytest.approx(np.quantile(rs, [0.025, 0.975]))
    # much wider than the Fisher-z interval of before ([0.644, 0.995]): six designed points
    assert out["ci_low"] < 0.62 and out["ci_high"] > 0.99


def test_interval_resamples_seeds_where_there_are_several() -> None:
    rng = np.random.default_rng(3)
    truth = np.array([2.0, -2.0, 0.0, 1.0, -1.0, 0.0])
    noisy = truth[:, None] + rng.normal(scale=1.5, size=(6, 4))
    calm = np.repeat(noisy.mean(axis=1, keepdims=True), 4, axis=1)  # same means, no spread
    v_noisy = _with_runs(noisy, predicted=truth)
    v_calm = _with_runs(calm, predicted=truth)
    a = agreement_interval(v_noisy, n_resamples=1000, random_state=1)
    b = agreement_interval(v_calm, n_resamples=1000, random_state=1)
    assert a["r"] == pytest.approx(b["r"]) and a["n_seeds"] == 4
    assert a["ci_high"] - a["ci_low"] > b["ci_high"] - b["ci_low"]  # the seeds' spread counts


def test_interval_needs_five_sets_and_names_missing_columns() -> None:
    out = agreement_interval(DEMO.iloc[:2], n_resamples=100, random_state=0)
    assert out["n_sets"] == 2 and np.isnan(out["r"]) and np.isnan(out["ci_low"])
    # three or four sets: r, but no interval (the smoke and paper profiles' validations)
    for n in (3, 4):
        out = agreement_interval(DEMO.iloc[:n], n_resamples=100, random_state=0)
        assert np.isfinite(out["r"]) and np.isnan(out["ci_low"]) and np.isnan(out["ci_high"])
        assert out["draws"] == 0
    assert np.isfinite(
        agreement_interval(DEMO.iloc[:5], n_resamples=2000, random_state=0)["ci_low"]
    )
    with pytest.raises(KeyError, match="predicted"):
        agreement_interval(DEMO.drop(columns="predicted"), n_resamples=2000, random_state=0)


# -- retraining_noise


def test_retraining_noise_is_the_pooled_sd_over_seeds() -> None:
    per_seed = np.array([[0.0, 1.0, 2.0], [5.0, 5.0, 5.0], [1.0, 3.0, 2.0]])
    v = _with_runs(per_seed)
    # variances (ddof 1): 1, 0, 1 → pooled sd sqrt(2/3)
    assert retraining_noise(v) == pytest.approx(np.sqrt(2 / 3))
    assert retraining_noise(DEMO) is None  # one seed: not measured
    assert retraining_noise(_with_runs(per_seed[:, :1])) is None


# -- random_check / random_sentence


def test_demo_random_set_moves_b_as_much_as_a_selected_one() -> None:
    out = random_check(DEMO)
    # 0.6574 (increasing 30) - 0.6987 (random 300) is not above the margin 0 (one seed)
    assert not out.holds and out.word == NOT_LITTLE
    small = DEMO.copy()
    small.loc["random 300 #1", "actual"] = 0.2
    assert random_check(small).holds and random_check(small).word == LITTLE


def test_the_retraining_noise_is_the_margin() -> None:
    per_seed = np.array(
        [[0.9, 1.1], [-1.0, -1.0], [0.3, 0.3], [1.0, 1.0], [-1.2, -1.2], [0.2, 0.2]]
    )  # selected sets move B by >= 0.9 + ..., random ones by <= 0.3: a gap of 0.7
    v = _with_runs(per_seed)
    assert random_check(v).holds  # noise sqrt(0.02 / 6) ≈ 0.058 < 0.7
    loud = per_seed.copy()
    loud[0] = [-0.4, 2.4]  # the same mean, a large spread: pooled noise ≈ 0.81 > 0.7
    v_loud = _with_runs(loud)
    assert retraining_noise(v_loud) > 0.7
    assert not random_check(v_loud).holds


def test_random_check_needs_both_kinds() -> None:
    with pytest.raises(ValueError, match="random and one influence-selected"):
        random_check(DEMO[DEMO["kind"] != "random"])
    with pytest.raises(ValueError, match="n_random"):
        random_check(DEMO[DEMO["kind"] == "random"])


def test_random_sentence_names_the_numbers_and_the_rule() -> None:
    text = random_sentence(DEMO)
    assert text.startswith(f"Random documents **{NOT_LITTLE}** (criterion: ")
    assert "here 0.657 − 0.699 = -0.0413, against a margin of 0: with one seed" in text
    assert "Removing `random 300 #1` moved B by 0.699 against a predicted 0.0781" in text
    assert "`increasing 30`, moved it by 0.657" in text
    # |actual - predicted| of the random sets: 0.1848 and 0.6206
    assert "deviate from their prediction by 0.185 to 0.621" in text
    one = DEMO.drop(index="random 30 #1")
    assert "The random set deviates from its prediction by 0.621" in random_sentence(one)
    per_seed = np.array(
        [[0.9, 1.1], [-1.0, -1.0], [0.3, 0.3], [1.0, 1.0], [-1.2, -1.2], [0.2, 0.2]]
    )
    text = random_sentence(_with_runs(per_seed))
    assert text.startswith(f"Random documents **{LITTLE}**")
    assert "a margin of 0.0577, the retraining noise (the standard deviation over 2 seeds" in text


def test_agreement_table_counts_are_integers() -> None:
    from scipy import stats

    from nlpbias.studies.perturbation.agreement import agreement_table

    out = agreement_table(DEMO, n_resamples=2000, random_state=0, label="science")
    ref = agreement_interval(DEMO, n_resamples=2000, random_state=0)
    assert out.index.tolist() == ["science"]
    assert out["Pearson's r"].iloc[0] == pytest.approx(ref["r"])
    assert out["95 % interval"].iloc[0] == f"[{ref['ci_low']:.3f}, {ref['ci_high']:.3f}]"
    rho = stats.spearmanr(DEMO["predicted"], DEMO["actual"]).statistic
    assert out["Spearman's r"].iloc[0] == pytest.approx(rho)
    for col in ("removal sets", "seeds", "bootstrap draws"):
        assert out[col].dtype.kind == "i", col  # printed as 6, not 6.0000
    assert out[["removal sets", "seeds"]].iloc[0].tolist() == [6, 1]
    assert (
        agreement_table(DEMO.iloc[:2], n_resamples=2000, random_state=0)["95 % interval"].iloc[0]
        == "none"
    )
