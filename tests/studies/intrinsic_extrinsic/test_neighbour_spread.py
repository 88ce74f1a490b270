"""Tests for nlpbias.studies.intrinsic_extrinsic.neighbour_spread (the paper's RNSB remark)."""

from __future__ import annotations

import doctest

import numpy as np
import pandas as pd
import pytest

from nlpbias.studies.intrinsic_extrinsic import neighbour_spread
from nlpbias.studies.intrinsic_extrinsic.neighbour_spread import spread_at_similar, spread_text

W, R, Y = "intrinsic:extracted:weat", "intrinsic:extracted:rnsb", "extrinsic:type1_f1"
PANEL = {"family": "coref", "algorithm": "word2vec", "modset": "extracted", "x": W,
         "beside": [R], "y": Y}  # fmt: skip


def _planted(n: int = 30) -> pd.DataFrame:
    """The gap is a deterministic (non-linear) function of WEAT; RNSB is WEAT plus much noise,
    so RNSB still correlates with the gap, but embeddings of similar RNSB differ widely."""
    rng = np.random.default_rng(11)
    w = rng.uniform(-2, 2, size=n)
    frame = pd.DataFrame({W: w, R: w + rng.normal(0, 1.0, size=n), Y: 0.1 + 0.05 * w + 0.02 * w**2})
    frame["method"] = ["original"] + ["balance"] * (n - 1)
    frame["modset"] = [np.nan] + ["extracted"] * (n - 1)
    return frame.assign(family="coref", algorithm="word2vec")


def test_a_gap_determined_by_weat_has_a_small_ratio_and_a_noisy_rnsb_a_large_one() -> None:
    scores = _planted()
    weat, rnsb = spread_at_similar(scores, [PANEL]).itertuples()
    assert (weat.x, rnsb.x) == (W, R) and weat.n == rnsb.n == 30
    y = scores[Y].to_numpy()
    # by hand: neighbours in WEAT order, and every pair
    by_w = y[np.argsort(scores[W].to_numpy())]
    assert weat.neighbour_spread == pytest.approx(np.abs(np.diff(by_w)).mean())
    pairs = [abs(a - b) for i, a in enumerate(y) for b in y[i + 1 :]]
    assert weat.pair_spread == pytest.approx(np.mean(pairs)) == rnsb.pair_spread
    assert weat.ratio < 0.2  # the floor for an even monotone gap over 30 points is 3/31
    assert rnsb.ratio > 0.5
    assert scores[[R, Y]].corr(method="spearman").iloc[0, 1] > 0.5  # yet RNSB correlates


def test_the_ratio_ignores_the_scale_of_x_and_keeps_ties_in_frame_order() -> None:
    scores = _planted()
    scaled = scores.assign(**{R: scores[R] * 1000 - 5})
    a = spread_at_similar(scores, [PANEL])
    b = spread_at_similar(scaled, [PANEL])
    np.testing.assert_allclose(a["ratio"], b["ratio"])
    tied = pd.DataFrame({W: [1.0, 1.0, 1.0, 2.0], Y: [0.0, 1.0, 0.0, 1.0]}).assign(
        method="balance", modset="extracted", family="coref", algorithm="word2vec"
    )
    (row,) = spread_at_similar(tied, [dict(PANEL, beside=[])]).itertuples()
    assert row.neighbour_spread == pytest.approx((1 + 1 + 1) / 3)  # 0,1,0,1 in frame order


def test_panels_without_numbers_say_why() -> None:
    scores = _planted(n=4)
    scores[R] = np.nan
    scores.loc[0, W] = np.nan
    scores.loc[1, W] = np.nan
    weat, rnsb = spread_at_similar(scores, [PANEL]).itertuples()
    assert weat.n == 2 and "fewer than 3" in weat.skipped and np.isnan(weat.ratio)
    assert rnsb.skipped == f"{R} measured on no embedding of this panel"
    flat = _planted().assign(**{Y: 0.3})
    assert "the same on every embedding" in spread_at_similar(flat, [PANEL])["skipped"][0]
    with pytest.raises(KeyError, match="lacks the keys"):
        spread_at_similar(scores, [{"family": "coref"}])


def test_text_compares_the_metrics_of_each_panel() -> None:
    text = spread_text(spread_at_similar(_planted(), [PANEL]))
    assert text.startswith("- **coreference, gender, word2vec** (30 embeddings): embeddings next")
    assert "in WEAT differ in the F1 gap by" in text and "next to each other in RNSB, by" in text
    assert text.endswith(
        "The gap varies more between embeddings of similar RNSB than of similar WEAT, as Katô "
        "& Miyao say of theirs."
    )
    swapped = _planted().rename(columns={W: R, R: W})  # now RNSB determines the gap
    text = spread_text(spread_at_similar(swapped, [PANEL]))
    assert text.endswith("similar WEAT than of similar RNSB.")


def test_doctests() -> None:
    failed, attempted = doctest.testmod(neighbour_spread, optionflags=doctest.NORMALIZE_WHITESPACE)[
        :2
    ]
    assert attempted and not failed
