"""Tests for nlpbias.studies.scoring.effects: Dong's bias, Kurita's effect size and bootstrap
intervals on hand-made score tables."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest

from nlpbias.studies.scoring.effects import bootstrap_bias_ci, dong_bias, kurita_effect_size


def _scores(values: dict) -> pd.DataFrame:
    """values[(template, target, attribute)] = score."""
    rows = [(*k, v) for k, v in values.items()]
    return pd.DataFrame(rows, columns=["template", "target", "attribute", "score"])


def _table() -> pd.DataFrame:
    vals = {}
    base = {"she": 1.0, "girls": 2.0, "he": -1.0, "boys": 0.0}
    for (i, tpl), t, (j, a) in itertools.product(
        enumerate(["t1", "t2"]), base, enumerate(["home", "family", "work", "office"])
    ):
        vals[(tpl, t, a)] = base[t] * (1 if j < 2 else -1) + 0.5 * i + 0.25 * j
    return _scores(vals)


def test_dong_bias_by_attribute_and_group():
    df = _table()
    bias = dong_bias(df, female=["she", "girls"], male=["he", "boys"])
    # home: female mean 1.5, male mean -0.5 (template/attribute offsets cancel) -> 2.0
    assert bias["home"] == pytest.approx(2.0)
    assert bias["work"] == pytest.approx(-2.0)
    assert bias.name == "bias"
    groups = {"family": ["home", "family"], "career": ["work", "office"]}
    g = dong_bias(df, female=["she", "girls"], male=["he", "boys"], attribute_groups=groups)
    assert g.to_dict() == pytest.approx({"family": 2.0, "career": -2.0})
    with pytest.raises(ValueError, match="both female and male"):
        dong_bias(df, female=["she"], male=["she"])
    with pytest.raises(ValueError, match="not in scores"):
        dong_bias(df, female=["women"], male=["he"])


def test_kurita_effect_size_hand_computed_and_exact_permutation():
    df = _table()
    r = kurita_effect_size(df, ["she", "girls"], ["he", "boys"], ["home", "family"],
                           ["work", "office"], n_permutations=9999, random_state=0)  # fmt: skip
    # s(t) = mean(A) - mean(B) = 2 * base[t] - 0.5 -> she 1.5, girls 3.5, he -2.5, boys -0.5
    s = np.array([1.5, 3.5, -2.5, -0.5])
    stat = s[:2].mean() - s[2:].mean()
    assert r["statistic"] == pytest.approx(stat)
    assert r["effect_size"] == pytest.approx(stat / s.std(ddof=1))
    # all 6 splits: only the observed one and its mirror are as extreme -> 2 / 6
    assert r["exact"] and r["n_permutations"] == 6
    assert r["p_value"] == pytest.approx(2 / 6)
    greater = kurita_effect_size(df, ["she", "girls"], ["he", "boys"], ["home", "family"],
                                 ["work", "office"], alternative="greater",
                                 n_permutations=9999, random_state=0)  # fmt: skip
    assert greater["p_value"] == pytest.approx(1 / 6)


def test_kurita_effect_size_random_permutations_reproducible():
    rng = np.random.default_rng(1)
    vals = {
        ("t", f"x{i}", a): float(rng.normal(1.0 if a == "a" else 0.0))
        for i in range(12)
        for a in ("a", "b")
    }
    df = _scores(vals)
    xs, ys = [f"x{i}" for i in range(6)], [f"x{i}" for i in range(6, 12)]
    r1 = kurita_effect_size(df, xs, ys, ["a"], ["b"], n_permutations=200, random_state=3)
    r2 = kurita_effect_size(df, xs, ys, ["a"], ["b"], n_permutations=200, random_state=3)
    assert not r1["exact"] and r1["n_permutations"] == 200
    assert r1["p_value"] == r2["p_value"]
    assert 1 / 201 <= r1["p_value"] <= 1.0
    with pytest.raises(ValueError, match="both attributes_a and attributes_b"):
        kurita_effect_size(df, xs, ys, ["a"], ["a"], n_permutations=9999, random_state=0)


def test_bootstrap_bias_ci_reproducible_and_brackets_estimate():
    df = _table()
    groups = {"family": ["home", "family"], "career": ["work", "office"]}
    kw = dict(female=["she", "girls"], male=["he", "boys"], attribute_groups=groups)
    a = bootstrap_bias_ci(df, **kw, n_bootstrap=500, random_state=7)
    b = bootstrap_bias_ci(df, **kw, n_bootstrap=500, random_state=7)
    pd.testing.assert_frame_equal(a, b)
    assert list(a.columns) == ["bias", "ci_low", "ci_high"]
    assert a.loc["family", "bias"] == pytest.approx(2.0)
    # the diff female - male does not depend on template or attribute here -> zero-width CI
    assert a.loc["family", "ci_low"] == pytest.approx(2.0)
    assert a.loc["career", "ci_high"] == pytest.approx(-2.0)


def test_bootstrap_bias_ci_varies_with_templates():
    df = _scores(
        {("t", "she", "x"): 1.0, ("t", "he", "x"): 0.0, ("u", "she", "x"): 3.0,
         ("u", "he", "x"): 0.0}
    )  # fmt: skip
    ci = bootstrap_bias_ci(df, female=["she"], male=["he"], n_bootstrap=2000, random_state=0)
    assert ci.loc["x", "bias"] == pytest.approx(2.0)
    # replicates are 1, 2 or 3 (prob 1/4, 1/2, 1/4): the 95% interval is [1, 3]
    assert (ci.loc["x", "ci_low"], ci.loc["x", "ci_high"]) == pytest.approx((1.0, 3.0))
    with pytest.raises(ValueError, match="lacks some template"):
        bootstrap_bias_ci(df.iloc[:3], female=["she"], male=["he"], n_bootstrap=99, random_state=0)
