"""Tests for nlpbias.studies.intrinsic_extrinsic.designs and correlation.design_scores: the
expanded and unexpanded designs kept apart, and the paired difference of their median ρ."""

from __future__ import annotations

import doctest

import numpy as np
import pandas as pd
import pytest

from nlpbias.studies.intrinsic_extrinsic import designs
from nlpbias.studies.intrinsic_extrinsic.correlation import correlations, design_scores

YCOLS = [f"extrinsic:{v}_{m}" for v in ("type1", "type2") for m in ("precision", "recall", "f1")]


def _two_designs(noise: dict[str, float], n: int = 12, seed: int = 0) -> pd.DataFrame:
    """A coref family modified in both designs with the same settings: in each design the
    extrinsic gaps are 2·WEAT plus noise of the given size (extracted and WEAT sets alike)."""
    rng = np.random.default_rng(seed)
    rows = [{"method": "original", "family": "coref", "algorithm": "w2v"}]
    for design, sd in noise.items():
        for modset in ("extracted", "weat"):
            for k in range(n):
                bias = rng.normal()
                row = {"method": "balance", "mode": "debias", "p": k / 10, "family": "coref",
                       "algorithm": "w2v", "modset": modset, "design": design}  # fmt: skip
                cols = ["extracted"] if modset == "extracted" else ["weat6", "weat7", "weat8"]
                for w in cols:
                    row[f"intrinsic:{w}:weat"] = bias
                    row[f"intrinsic:{w}:rnsb"] = bias
                for y in YCOLS:
                    row[y] = 2 * bias + sd * rng.normal()
                rows.append(row)
    orig = rows[0]
    for w in ("extracted", "weat6", "weat7", "weat8"):
        orig[f"intrinsic:{w}:weat"] = orig[f"intrinsic:{w}:rnsb"] = 0.0
    for y in YCOLS:
        orig[y] = 0.0
    return pd.DataFrame(rows)


def test_a_correlation_the_unexpanded_design_builds_in_is_found() -> None:
    scores = _two_designs({"expanded": 3.0, "unexpanded": 0.01})
    out = designs.design_difference(scores, n_bootstrap=400, random_state=0)
    assert list(out["sets"]) == ["aligned", "generic"]
    assert (out["settings"] == 13).all() and (out["skipped"] == "").all()
    assert (out["unexpanded"] > 0.99).all() and (out["expanded"] < 0.8).all()
    assert np.allclose(out["built_in"], out["unexpanded"] - out["expanded"])
    assert (out["low"] > 0).all()
    assert "is the part of the correlation the unexpanded design built in" in designs.design_text(
        out
    )


def test_equal_designs_give_an_interval_around_zero() -> None:
    scores = _two_designs({"expanded": 0.5, "unexpanded": 0.5})
    out = designs.design_difference(scores, n_bootstrap=400, random_state=0)
    assert ((out["low"] < 0) & (out["high"] > 0)).all()
    assert "includes 0" in designs.design_text(out)
    again = designs.design_difference(scores, n_bootstrap=400, random_state=0)
    pd.testing.assert_frame_equal(out, again)


def test_one_design_or_too_few_settings_is_said_not_guessed() -> None:
    scores = _two_designs({"expanded": 0.5, "unexpanded": 0.5})
    with pytest.raises(ValueError, match="needs embeddings of both designs"):
        designs.design_difference(design_scores(scores, "expanded"), n_bootstrap=9, random_state=0)
    few = _two_designs({"expanded": 0.5, "unexpanded": 0.5}, n=3)
    out = designs.design_difference(few, n_bootstrap=9, random_state=0)
    assert out["skipped"].str.startswith("4 paired settings (fewer than 5)").all()
    assert "no comparison (4 paired settings" in designs.design_text(out)


def test_designs_are_kept_apart_in_the_correlations() -> None:
    scores = _two_designs({"expanded": 3.0, "unexpanded": 0.01})
    with pytest.raises(ValueError, match="pass one design at a time"):
        correlations(scores, n_resamples=9, random_state=0)
    from nlpbias.studies.intrinsic_extrinsic.headlines import headlines

    with pytest.raises(ValueError, match="headlines: the scores hold embeddings of the designs"):
        headlines(scores, pd.DataFrame(), task_options={}, random_state=0)
    exp = design_scores(scores, "expanded")
    assert set(exp["design"].dropna()) == {"expanded"} and (exp["method"] == "original").sum() == 1
    with pytest.raises(ValueError, match=r"hold \['expanded', 'unexpanded'\]"):
        design_scores(scores, "neighbours")
    corr = {d: correlations(design_scores(scores, d), n_resamples=9, random_state=0)
            for d in ("unexpanded", "expanded")}  # fmt: skip
    table = designs.design_comparison(corr)
    assert list(table["design"]) == ["unexpanded", "expanded"]
    got = table.set_index("design")["weat_extracted_rho"]
    assert got["unexpanded"] > 0.99 > got["expanded"]


def test_doctests() -> None:
    failed, attempted = doctest.testmod(designs, raise_on_error=False, verbose=False)[:2]
    assert attempted > 0 and failed == 0
