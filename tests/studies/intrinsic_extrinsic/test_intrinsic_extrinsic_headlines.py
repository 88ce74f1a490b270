"""The chapter's headline rows for the scorecard, and the bootstrap over embeddings behind them."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from intrinsic_extrinsic_cases import fake_scores
from scipy import stats

from nlpbias.core import scorecard
from nlpbias.studies import intrinsic_extrinsic as study
from nlpbias.studies.intrinsic_extrinsic.correlation import correlations, mean_rho_interval

DATA_HOME = {"coref": {"source": "data_home"}}


def _rows(scores: pd.DataFrame, task_options=DATA_HOME) -> dict[str, dict]:
    corr = correlations(scores, n_resamples=99, random_state=0)
    rows = study.headlines(scores, corr, task_options=task_options, n_resamples=500, random_state=0)
    scorecard.check_rows(rows)
    return {r["key"]: r for r in rows}


def _noisy(scores: pd.DataFrame, sd: float, seed: int = 0) -> pd.DataFrame:
    """The extracted-set WEAT with noise of ``sd`` on top of the planted bias."""
    out = scores.copy()
    rng = np.random.default_rng(seed)
    out["intrinsic:extracted:weat"] += rng.normal(0, sd, len(out))
    return out


def test_the_paper_numbers_come_from_the_reported_tables() -> None:
    rows = _rows(fake_scores(np.random.default_rng(0)))
    ranges = {k: (r["paper_low"], r["paper_high"]) for k, r in rows.items()}
    assert ranges["weat_aligned_word2vec"] == (0.83, 0.91)
    assert ranges["weat_aligned_fasttext"] == (0.88, 0.91)
    assert ranges["rnsb_aligned"] == (0.56, 0.67)
    generic = rows["weat_generic"]
    assert generic["kind"] == "null" and max(-generic["paper_low"], generic["paper_high"]) == 0.22
    assert "0.83 to 0.91 (Table 3)" in rows["weat_aligned_word2vec"]["claim"]
    assert [r["kind"] for r in rows.values()] == ["direction"] * 3 + ["null"] * 3


def test_planted_verdicts() -> None:
    base = fake_scores(np.random.default_rng(0))
    # WEAT tracks the gap almost perfectly: ρ = 1 on every draw, above the paper's 0.83-0.91
    exact = _rows(base)
    assert exact["weat_aligned_word2vec"]["book"] == pytest.approx(1.0)
    assert exact["weat_aligned_word2vec"]["verdict"] == "direction only"
    # with noise, ρ near 0.85: the interval holds the paper's range
    noisy = _rows(_noisy(base, 0.45))
    row = noisy["weat_aligned_word2vec"]
    assert 0.6 < row["book"] < 0.97 and row["ci_low"] < 0.91 and row["verdict"] == "reproduced"
    # generic sets are noise: the null claim holds
    assert noisy["weat_generic"]["verdict"] == "reproduced"
    assert noisy["weat_generic"]["ci_low"] < 0 < noisy["weat_generic"]["ci_high"]
    # no fastText, no hate-speech family in this run: no number
    for key in ("weat_aligned_fasttext", "hsd_gender", "hsd_race"):
        assert noisy[key]["verdict"] == "not testable offline" and np.isnan(noisy[key]["book"])
    assert "data home" in noisy["hsd_race"]["reason"]
    # generic WEAT that does track the gap: the paper's absence of an effect is not reproduced
    tracked = base.copy()
    for w in ("weat6", "weat7", "weat8"):
        tracked[f"intrinsic:{w}:weat"] = tracked["extrinsic:type1_f1"]
    assert _rows(tracked)["weat_generic"]["verdict"] == "not reproduced"


def test_the_stand_in_task_and_a_pretrained_embedding() -> None:
    scores = fake_scores(np.random.default_rng(1)).assign(algorithm="glove")
    rows = _rows(scores, {"coref": {"source": "standin"}})
    w2v = rows["weat_aligned_word2vec"]
    assert w2v["data"] == "synthetic" and w2v["verdict"] == "not testable offline"
    assert "glove stands in for word2vec" in w2v["reason"]
    assert not np.isnan(w2v["book"]) and np.isnan(rows["weat_aligned_fasttext"]["book"])
    assert rows["hsd_gender"]["data"] == "real"


def test_mean_rho_interval_resamples_embeddings_jointly() -> None:
    scores = _noisy(fake_scores(np.random.default_rng(3)), 0.6)
    corr = correlations(scores, n_resamples=9, random_state=0)
    cells = corr.query("modset == 'extracted' and wordset == 'extracted' and intrinsic == 'weat'")
    low, high, n = mean_rho_interval(scores, cells, n_resamples=2000, random_state=0)
    assert n == 9 and low < cells["rho"].mean() < high <= 1.0
    assert (low, high) == mean_rho_interval(scores, cells, n_resamples=2000, random_state=0)[:2]
    # the six cells share their x: the interval is as wide as one cell's (joint draws), not
    # narrowed by averaging six independent draws
    one = cells[(cells.view == "winobias_type1") & (cells.metric == "f1")]
    low1, high1, _ = mean_rho_interval(scores, one, n_resamples=2000, random_state=0)
    assert high - low == pytest.approx(high1 - low1, rel=0.15)
    # one cell by hand: percentile bootstrap of scipy's Spearman over resampled embeddings
    pts = scores[(scores.method == "original") | (scores.modset == "extracted")]
    x, y = pts["intrinsic:extracted:weat"].to_numpy(), pts["extrinsic:type1_f1"].to_numpy()
    idx = np.random.default_rng(0).integers(0, len(x), size=(2000, len(x)))
    rhos = [stats.spearmanr(x[i], y[i]).statistic for i in idx]
    hand = np.nanquantile(np.asarray(rhos, float), [0.025, 0.975])
    assert (low1, high1) == pytest.approx(tuple(hand))
    with pytest.raises(ValueError, match="empty"):
        mean_rho_interval(scores, cells.iloc[:0], random_state=0)


def test_draws_without_a_correlation_are_left_out_quietly() -> None:
    """Five embeddings: many draws repeat one embedding (ρ undefined in every cell); they are
    dropped without a warning (a reader must not see one in the chapter)."""
    scores = fake_scores(np.random.default_rng(4)).iloc[:5]
    cells = correlations(scores, n_resamples=9, random_state=0).query("wordset == 'extracted'")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        low, high, n = mean_rho_interval(scores, cells, n_resamples=3000, random_state=0)
    assert n == 5 and -1.0 <= low <= high <= 1.0
