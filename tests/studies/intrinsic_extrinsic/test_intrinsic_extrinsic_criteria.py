"""The chapter's stated rules: the paired bootstrap behind "tracks better", the seed spread in
the headline intervals, rows that coincide, the machines paragraph, and small data (cells left
out with a reason instead of a KeyError or a ValueError)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from intrinsic_extrinsic_cases import fake_scores

from nlpbias.core import scorecard
from nlpbias.data.machines import compare_runs
from nlpbias.studies import intrinsic_extrinsic as study
from nlpbias.studies.intrinsic_extrinsic.correlation import (
    correlations,
    mean_rho_interval,
    skipped_cells,
)
from nlpbias.studies.intrinsic_extrinsic.headlines import headline_intervals

STANDIN = {"coref": {"source": "standin"}}


def _gridded(scores: pd.DataFrame) -> pd.DataFrame:
    """fake_scores with the modification settings of a grid: setting k in both modsets."""
    out = scores.copy()
    k = out.groupby("modset", dropna=False).cumcount()
    out["mode"] = np.where(out["method"] == "original", None, "debias")
    out["p"] = np.where(out["method"] == "original", np.nan, k / 10)
    return out


def test_alignment_difference_finds_the_planted_advantage_with_paired_settings() -> None:
    scores = _gridded(fake_scores(np.random.default_rng(0)))
    corr = correlations(scores, n_resamples=99, random_state=0)
    diff = study.alignment_difference(scores, corr, n_bootstrap=400, random_state=0)
    row = diff.iloc[0]
    assert row["settings"] == 9  # the original + 8 settings met in both modsets
    assert row["aligned"] > 0.9 and row["low"] > 0 and bool(row["holds"])
    assert row["aligned"] - row["generic"] == pytest.approx(row["difference"])
    assert row["skipped"] == ""


def test_alignment_difference_draws_the_same_settings_for_both_medians() -> None:
    # generic WEAT equal to aligned WEAT on the paired embeddings: every paired draw gives a
    # difference of exactly 0; unpaired draws would not
    scores = _gridded(fake_scores(np.random.default_rng(1)))
    weat = scores["modset"] == "weat"
    ext = scores[scores["modset"] == "extracted"]
    for w in ("weat6", "weat7", "weat8"):
        scores.loc[weat, f"intrinsic:{w}:weat"] = ext["intrinsic:extracted:weat"].to_numpy()
        scores.loc[0, f"intrinsic:{w}:weat"] = scores.loc[0, "intrinsic:extracted:weat"]
    cols = [c for c in scores if c.startswith("extrinsic:")]
    scores.loc[weat, cols] = ext[cols].to_numpy()
    corr = correlations(scores, n_resamples=9, random_state=0)
    row = study.alignment_difference(scores, corr, n_bootstrap=200, random_state=0).iloc[0]
    assert (row["difference"], row["low"], row["high"]) == pytest.approx((0.0, 0.0, 0.0))
    assert not row["holds"]
    text = study.alignment_text(study.alignment_summary(corr), study.alignment_difference(
        scores, corr, n_bootstrap=200, random_state=0))  # fmt: skip
    assert "does not track the downstream F1 gap detectably better" in text


def test_alignment_difference_skips_with_a_reason() -> None:
    scores = _gridded(fake_scores(np.random.default_rng(2)))
    few = scores[scores.groupby("modset", dropna=False).cumcount() < 3]  # original + 3 + 3
    corr = correlations(scores, n_resamples=9, random_state=0)
    row = study.alignment_difference(few, corr, n_bootstrap=200, random_state=0).iloc[0]
    assert row["skipped"].startswith("4 paired settings (fewer than 5)")
    only = correlations(scores[scores["modset"] != "weat"], n_resamples=9, random_state=0)
    row = study.alignment_difference(scores, only, n_bootstrap=200, random_state=0).iloc[0]
    assert row["skipped"].startswith("this run has no F1 cell of generic WEAT")
    text = study.alignment_text(study.alignment_summary(only), study.alignment_difference(
        scores, only, n_bootstrap=200, random_state=0))  # fmt: skip
    assert "No verdict on alignment" in text and "nan" not in text


def test_correlations_leave_out_small_constant_and_unmeasured_cells_with_reasons() -> None:
    scores = fake_scores(np.random.default_rng(3))
    scores["extrinsic:type2_f1"] = 0.25  # a constant gap (paper-smoke: a tiny test split)
    scores["intrinsic:weat7:weat"] = np.nan  # a word set out of every vocabulary
    scores.loc[scores.index[3:], "intrinsic:weat8:rnsb"] = np.nan  # on one of the weat block
    corr = correlations(scores, n_resamples=9, random_state=0)
    assert corr["n"].dtype.kind == "i"
    assert not ((corr["view"] == "winobias_type2") & (corr["metric"] == "f1")).any()
    out = skipped_cells(corr)
    reasons = set(out["reason"])
    assert any(r.startswith("the downstream gap is the same (0.25)") for r in reasons)
    assert any("measured on none of these embeddings" in r for r in reasons)
    assert any(r.startswith("1 embeddings with both numbers, fewer than 5") for r in reasons)
    # nothing left out on complete data
    assert skipped_cells(correlations(fake_scores(np.random.default_rng(3)), n_resamples=9,
                                      random_state=0)).empty  # fmt: skip


def test_headline_rows_vary_across_cpus_and_name_why_their_cells_are_absent() -> None:
    scores = fake_scores(np.random.default_rng(4)).assign(algorithm="glove")
    for w in ("weat6", "weat7", "weat8"):
        scores[f"intrinsic:{w}:weat"] = np.nan
    corr = correlations(scores, n_resamples=9, random_state=0)
    rows = study.headlines(scores, corr, task_options=STANDIN, n_resamples=200, random_state=0)
    scorecard.check_rows(rows)
    assert {r["stability"] for r in rows} == {"varies across CPUs"}
    generic = {r["key"]: r for r in rows}["weat_generic"]
    assert "measured on none of these embeddings" in generic["interval"]


def test_seed_spread_widens_the_headline_interval_and_is_shown() -> None:
    scores = fake_scores(np.random.default_rng(5))
    scores["intrinsic:extracted:weat"] += np.random.default_rng(6).normal(0, 0.4, len(scores))
    corr = correlations(scores, n_resamples=9, random_state=0)
    cells = corr.query("modset == 'extracted' and wordset == 'extracted' and intrinsic == 'weat'")
    plain = mean_rho_interval(scores, cells, n_resamples=1000, random_state=0)
    # no seed columns: the same interval with or without the spread
    assert mean_rho_interval(
        scores, cells, n_resamples=1000, random_state=0, seed_spread=True
    ) == pytest.approx(plain)
    noisy = scores.assign(n_seeds=3)
    for c in [c for c in scores if c.startswith("extrinsic:")]:
        noisy[c.replace("extrinsic:", "extrinsic_sd:")] = 2.0  # as large as the gaps' spread
    lo, hi, _ = mean_rho_interval(noisy, cells, n_resamples=1000, random_state=0, seed_spread=True)
    assert (lo, hi) != pytest.approx(plain[:2], abs=0.01)  # the noise acts on the draws
    spans = headline_intervals(noisy, corr, n_resamples=1000, random_state=0).set_index("key")
    row = spans.loc["weat_aligned_word2vec"]
    assert row["low"] == min(row["embeddings low"], row["with seeds low"])
    assert row["high"] == max(row["embeddings high"], row["with seeds high"])
    assert row["low"] <= plain[0] and row["high"] >= plain[1]  # never narrower
    assert row["seeds"] == 3 and row["seed_sd"] == 2.0 and spans["cells"].dtype.kind == "i"
    rows = {r["key"]: r for r in study.headlines(noisy, corr, task_options=STANDIN,
                                                 n_resamples=1000, random_state=0)}  # fmt: skip
    assert rows["weat_aligned_word2vec"]["ci_low"] == pytest.approx(row["low"])
    assert (
        "seed spread added (SD over the original's 3 seeds"
        in (rows["weat_aligned_word2vec"]["interval"])
    )


def test_identical_rows_say_why_they_coincide() -> None:
    scores = fake_scores(np.random.default_rng(7)).assign(algorithm="glove")
    # RNSB a monotone transform of WEAT: the same ranks, so the same ρ in every cell
    scores["intrinsic:extracted:rnsb"] = np.tanh(scores["intrinsic:extracted:weat"])
    corr = correlations(scores, n_resamples=9, random_state=0)
    rows = {r["key"]: r for r in study.headlines(scores, corr, task_options=STANDIN,
                                                 n_resamples=200, random_state=0)}  # fmt: skip
    rnsb, weat = rows["rnsb_aligned"], rows["weat_aligned_word2vec"]
    assert (rnsb["book"], rnsb["ci_low"]) == (weat["book"], weat["ci_low"])
    assert "rank the embeddings identically" in rnsb["reason"]
    assert "not a reused one" in rnsb["reason"]
    # different ranks: no such note
    scores["intrinsic:extracted:rnsb"] = np.random.default_rng(8).normal(size=len(scores))
    corr = correlations(scores, n_resamples=9, random_state=0)
    rows = {r["key"]: r for r in study.headlines(scores, corr, task_options=STANDIN,
                                                 n_resamples=200, random_state=0)}  # fmt: skip
    assert "identically" not in rows["rnsb_aligned"]["reason"]


def test_machine_paragraph_comes_from_the_recorded_runs() -> None:
    record = study.machines.load_machines()
    table = compare_runs(record, study.machines._LABELS)
    generic = table.set_index("row").loc["generic WEAT 6–8"]
    assert generic["difference"] == pytest.approx(-0.168 - -0.41)
    text = study.machine_paragraph("demo", None, record)
    assert "0.242 (generic WEAT 6–8)" in text and record["source"].split()[0] in text
    assert "this run is `demo`, for which no second machine's run is recorded" in text
    # change the record, the paragraph follows: no number is typed in the function
    changed = {**record, "other": {**record["other"], "weat_generic": {"estimate": -0.5}}}
    assert "-0.5 there" in study.machine_paragraph("paper", None, changed)
    assert "no second machine" not in study.machine_paragraph("paper", None, changed)
    with pytest.raises(ValueError, match="source"):
        study.machines.load_machines(_write(record, drop="source"))


def _write(record: dict, *, drop: str):
    import tempfile
    from pathlib import Path

    import yaml

    path = Path(tempfile.mkdtemp()) / "m.yaml"
    path.write_text(yaml.safe_dump({k: v for k, v in record.items() if k != drop}))
    return path


def test_the_seed_noise_interval_of_a_near_perfect_correlation_stays_within_one() -> None:
    # paper printed [0.61, 1.05] for a mean ρ: re-centring the noisy draws pushed them above 1
    import pandas as pd

    from nlpbias.studies.intrinsic_extrinsic.correlation import correlations, mean_rho_interval

    n = 8
    s = pd.DataFrame({
        "family": "coref", "algorithm": "a", "method": ["original"] + ["ar"] * (n - 1),
        "modset": [None] + ["extracted"] * (n - 1),
        "intrinsic:extracted:weat": np.arange(n, dtype=float),
        "extrinsic:type1_f1": np.arange(n, dtype=float),
        "extrinsic_sd:type1_f1": [3.0] + [np.nan] * (n - 1),
    })  # fmt: skip
    cells = correlations(s, n_resamples=9, random_state=0).query(
        "metric == 'f1' and intrinsic == 'weat'"
    )
    low, high, _ = mean_rho_interval(s, cells, n_resamples=300, random_state=0, seed_spread=True)
    assert -1.0 <= low <= high <= 1.0
