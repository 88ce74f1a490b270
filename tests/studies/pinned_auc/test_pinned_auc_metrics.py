"""Tests for pinned_auc.metrics (per-term metrics, bias report), .roc: by hand, sklearn, SciPy."""

from __future__ import annotations

import itertools
import warnings

import numpy as np
import pandas as pd
import pytest
from scipy.stats import mannwhitneyu
from sklearn.metrics import roc_auc_score

from nlpbias.studies.pinned_auc import metrics as metrics_module
from nlpbias.studies.pinned_auc.metrics import (
    METRICS,
    BiasReport,
    UndefinedMetricWarning,
    bias_report,
)
from nlpbias.studies.pinned_auc.roc import auc, eer_threshold, generalized_mean

# ------------------------------------------------------------------ the hand-computed example
# row  y  score  term
#  0   0  0.25   a
#  1   0  0.60   a
#  2   1  0.70   a
#  3   1  0.40   -
#  4   0  0.30   -
#  5   1  0.90   b
#  6   0  0.20   b
#  7   1  0.80   -
# Negatives {.25, .6, .3, .2}, positives {.7, .4, .9, .8}: of the 16 pairs only (.4, .6) is
# mis-ordered, so AUC = 15/16. At threshold 0.5 (positive iff score >= 0.5): FP = {row 1},
# FN = {row 3}, so FPR = FNR = 1/4.
# Term a: negatives {.25, .6}, positives {.7}; background positives {.4, .9, .8}, background
#   negatives {.3, .2}.
#   FPR_a = 1/2 (0.6), FNR_a = 0, subgroup AUC = 1 (0.7 beats both negatives).
#   BPSN_a: {.25, .6} vs {.4, .9, .8}: only (.4 > .6) fails -> 5/6.
#   BNSP_a: {.7} vs {.3, .2} -> 1.
#   pos AEG_a = 1/2 - P(sub+ > bg+) = 1/2 - P(.7 > {.4, .9, .8}) = 1/2 - 1/3 = 1/6
#   neg AEG_a = P(sub- > bg-) - 1/2 = P({.25, .6} > {.3, .2}) - 1/2 = 3/4 - 1/2 = 1/4
# Term b: negatives {.2}, positives {.9}; background positives {.7, .4, .8}, negatives
#   {.25, .6, .3}.
#   FPR_b = FNR_b = 0, subgroup AUC = 1, BPSN_b = 1 (.2 below all), BNSP_b = 1 (.9 above all),
#   pos AEG_b = 1/2 - 1 = -1/2, neg AEG_b = 0 - 1/2 = -1/2.
# FPED = |1/4 - 1/2| + |1/4 - 0| = 1/2;  FNED = |1/4 - 0| + |1/4 - 0| = 1/2.
Y = np.array([0, 0, 1, 1, 0, 1, 0, 1])
S = np.array([0.25, 0.60, 0.70, 0.40, 0.30, 0.90, 0.20, 0.80])
MEMBERSHIP = pd.DataFrame(
    {
        "a": [True, True, True, False, False, False, False, False],
        "b": [False, False, False, False, False, True, True, False],
    }
)
HAND = {
    "a": dict(
        n=3,
        n_pos=1,
        n_neg=2,
        fpr=0.5,
        fnr=0.0,
        subgroup_auc=1.0,
        bpsn_auc=5 / 6,
        bnsp_auc=1.0,
        pos_aeg=1 / 6,
        neg_aeg=0.25,
    ),  # fmt: skip
    "b": dict(
        n=2,
        n_pos=1,
        n_neg=1,
        fpr=0.0,
        fnr=0.0,
        subgroup_auc=1.0,
        bpsn_auc=1.0,
        bnsp_auc=1.0,
        pos_aeg=-0.5,
        neg_aeg=-0.5,
    ),  # fmt: skip
}


def _brute_auc(pos, neg) -> float:
    """Share of (positive, negative) pairs ordered correctly, ties 1/2 (independent of sklearn)."""
    wins = sum(1.0 if p > q else 0.5 if p == q else 0.0 for p, q in itertools.product(pos, neg))
    return wins / (len(pos) * len(neg))


def _report(**kw) -> BiasReport:
    kw.setdefault("membership", MEMBERSHIP)
    kw.setdefault("threshold", 0.5)
    kw.setdefault("random_state", 0)
    return bias_report(Y, S, **kw)


def test_overall_and_per_term_values_match_hand_computation():
    r = _report()
    assert r.overall["auc"] == pytest.approx(15 / 16)
    assert r.overall[["n", "n_pos", "threshold", "fpr", "fnr"]].tolist() == [8, 4, 0.5, 0.25, 0.25]
    assert r.threshold_source == "given"
    bg = r.by_group.set_index("term")
    for term, expected in HAND.items():
        for metric, value in expected.items():
            assert bg.loc[term, metric] == pytest.approx(value), (term, metric)
    assert bg["status"].tolist() == ["ok", "ok"]
    assert bg["reason"].tolist() == ["", ""]


def test_fped_fned_by_hand():
    d = _report().difference()
    assert d["FPED"] == pytest.approx(0.5)
    assert d["FNED"] == pytest.approx(0.5)
    assert d[["n_terms_FPED", "n_terms_FNED", "n_terms_PAED"]].tolist() == [2, 2, 2]
    # PAED is the sum of |AUC - pinned AUC| over the two terms
    pinned = _report().by_group["pinned_auc"]
    assert d["PAED"] == pytest.approx(float(np.abs(15 / 16 - pinned).sum()))


def test_differences_over_no_terms_are_undefined_not_zero():
    # no text mentions either term: FPED/FNED/PAED sum over no terms, which is undefined
    with pytest.warns(UndefinedMetricWarning):
        r = bias_report(
            Y, S, threshold=0.5, texts=["hello"] * 8, terms=["gay", "deaf"], random_state=None
        )
    with pytest.warns(UndefinedMetricWarning) as caught:
        d = r.difference()
    assert d[["FPED", "FNED", "PAED"]].isna().all()
    assert d[["n_terms_FPED", "n_terms_FNED", "n_terms_PAED"]].tolist() == [0, 0, 0]
    (warning,) = caught
    msg = str(warning.message)
    assert "\n" not in msg
    assert msg.startswith("FPED, FNED, PAED are undefined (NaN, not 0): none of the 2 terms")
    assert "'gay', 'deaf'" in msg and "no rows mention 'gay'" in msg
    assert msg.endswith("or pass terms that occur in it")
    assert set(d.attrs["reasons"]) == {"FPED", "FNED", "PAED"}
    notes = r.to_frame().set_index(["term", "metric"])["note"]
    assert notes[("(all terms)", "PAED")].startswith("PAED is undefined: none of the 2 terms")
    assert notes[("(all terms)", "n_terms_PAED")] == ""


def test_a_difference_with_terms_stays_defined_and_silent():
    with warnings.catch_warnings():
        warnings.simplefilter("error", UndefinedMetricWarning)
        d = _report().difference()
    assert d.notna().all() and d.attrs["reasons"] == {}


def test_eer_threshold_of_one_class_names_the_class_and_the_fix(one_line):
    with pytest.raises(ValueError) as err:
        eer_threshold([1, 1, 1], [0.2, 0.5, 0.9])
    assert one_line(err) == (
        "the EER threshold is undefined: y_true has only class 1 (all 3 rows); pass data with "
        "both positive (1) and negative (0) examples, or pass a fixed threshold= to bias_report"
    )
    with pytest.raises(ValueError, match="only class 0 \\(all 2 rows\\)"):
        eer_threshold([0, 0], [0.2, 0.5])


def test_threshold_none_uses_eer_of_this_set():
    # FP(t) = #negatives >= t, FN(t) = #positives < t. For t in (0.4, 0.6] FP = {0.6} and
    # FN = {0.4}: |FP - FN| = 0, elsewhere >= 1; the largest such grid point is 0.60.
    r = _report(threshold=None)
    assert r.threshold_source == "eer"
    assert r.overall["threshold"] == 0.6
    assert r.overall["fpr"] == 0.25 and r.overall["fnr"] == 0.25  # 0.6 >= 0.6 is positive


def test_eer_threshold_known_minimiser():
    # y = [0, 0, 1, 1], s = [.1, .35, .3, .9]: |FP - FN| is 2, 1, 0, 1 on (.., .1], (.1, .3],
    # (.3, .35], (.35, .9]; grid points .31 ... .35 give 0, the largest is 0.35.
    assert eer_threshold([0, 0, 1, 1], [0.1, 0.35, 0.3, 0.9]) == 0.35
    # With 11 points the grid misses (.3, .35]; |FP - FN| = 2, 2, 1, 1, ..., 1, 2 at
    # t = 0, .1, .2, ..., .9, 1 and ties go to the largest minimiser, 0.9 (Dixon's loop).
    assert eer_threshold([0, 0, 1, 1], [0.1, 0.35, 0.3, 0.9], n_grid=11) == 0.9
    # Perfect separation: FP = FN = 0 for t in (.2, .8]; largest grid point 0.8.
    assert eer_threshold([0, 0, 1, 1], [0.1, 0.2, 0.8, 0.9]) == 0.8


def test_eer_threshold_minimises_gap_on_random_data():
    g = np.random.default_rng(3)
    y = g.random(300) < 0.3
    s = np.round(g.random(300), 2)
    t = eer_threshold(y, s)

    def gap(th):
        return abs(int(((s >= th) & ~y).sum()) - int(((s < th) & y).sum()))

    grid = [k / 100 for k in range(101)]
    best = min(gap(th) for th in grid)
    assert gap(t) == best
    assert t == max(th for th in grid if gap(th) == best)


def test_scipy_mannwhitneyu_returns_u_of_first_sample():
    # x = [3, 5, 7], y = [1, 4]: pairs with x > y are (3,1), (5,1), (5,4), (7,1), (7,4) -> 5
    # of 6, so U_x = 5 and U_y = 1. SciPy >= 1.7 returns the U of the FIRST sample.
    assert mannwhitneyu([3, 5, 7], [1, 4]).statistic == 5
    assert mannwhitneyu([1, 4], [3, 5, 7]).statistic == 1
    # A tie counts 1/2: x = [2], y = [2, 1] -> 1 (2 > 1) + 0.5 (2 = 2) = 1.5
    assert mannwhitneyu([2], [2, 1]).statistic == 1.5
    assert metrics_module._u2(np.array([3, 5, 7]), np.array([1, 4])) == 2 * 5
    assert metrics_module._u2(np.array([2]), np.array([1, 2])) == 3


def test_u_and_aucs_agree_with_scipy_and_sklearn_on_random_tied_data():
    g = np.random.default_rng(11)
    n = 400
    y = g.random(n) < 0.4
    s = np.round(g.random(n), 1)  # many ties
    sub = g.random(n) < 0.2
    a, b = s[sub], s[~sub]
    assert metrics_module._u2(a, np.sort(b)) / 2 == mannwhitneyu(a, b).statistic
    r = bias_report(y, s, membership=pd.DataFrame({"t": sub}), threshold=0.5, random_state=0)
    row = r.by_group.iloc[0]
    sp, sn, bp, bn = s[sub & y], s[sub & ~y], s[~sub & y], s[~sub & ~y]
    # AEG in terms of SciPy's U of the first sample (see the module docstring)
    assert row["pos_aeg"] == pytest.approx(
        0.5 - mannwhitneyu(sp, bp).statistic / (len(sp) * len(bp))
    )
    assert row["neg_aeg"] == pytest.approx(
        mannwhitneyu(sn, bn).statistic / (len(sn) * len(bn)) - 0.5
    )

    def sk(pos, neg):
        return roc_auc_score(np.r_[np.ones(len(pos)), np.zeros(len(neg))], np.r_[pos, neg])

    assert row["subgroup_auc"] == pytest.approx(roc_auc_score(y[sub], s[sub]))
    assert row["bpsn_auc"] == pytest.approx(sk(bp, sn))
    assert row["bnsp_auc"] == pytest.approx(sk(sp, bn))
    assert r.overall["auc"] == pytest.approx(roc_auc_score(y, s))


def _aeg_case(sub_neg, sub_pos):
    bg_neg, bg_pos = [0.1, 0.2, 0.3], [0.7, 0.8, 0.9]
    s = np.array(bg_neg + bg_pos + sub_neg + sub_pos)
    y = np.array([0] * 3 + [1] * 3 + [0] * len(sub_neg) + [1] * len(sub_pos))
    m = pd.DataFrame({"t": [False] * 6 + [True] * (len(sub_neg) + len(sub_pos))})
    return bias_report(y, s, membership=m, threshold=0.5, random_state=0).by_group.iloc[0]


def test_aeg_signs_on_constructed_shifts():
    # Background negatives {.1, .2, .3}, positives {.7, .8, .9}.
    # Subgroup negatives {.5, .6} beat every background negative: neg AEG = 1 - 1/2 = +1/2
    # (more false positives for the subgroup). Subgroup positives {.75, .85}: background
    # positives beat them in (.8,.75), (.9,.75), (.9,.85) = 3 of 6 pairs -> pos AEG = 0.
    row = _aeg_case([0.5, 0.6], [0.75, 0.85])
    assert row["neg_aeg"] == pytest.approx(0.5)
    assert row["pos_aeg"] == pytest.approx(0.0)
    # Subgroup positives shifted down to {.4, .45}: every background positive beats them,
    # pos AEG = 1 - 1/2 = +1/2 (more false negatives for the subgroup).
    row = _aeg_case([0.15, 0.25], [0.4, 0.45])
    assert row["pos_aeg"] == pytest.approx(0.5)
    # neg: {.15, .25} vs {.1, .2, .3}: .15 > .1; .25 > .1, .2 -> 3/6, neg AEG = 0
    assert row["neg_aeg"] == pytest.approx(0.0)
    # Whole subgroup shifted up: neg AEG > 0, pos AEG < 0 (Borkan's "skew towards toxicity").
    row = _aeg_case([0.5, 0.6], [0.95, 0.97])
    assert row["neg_aeg"] == pytest.approx(0.5)
    assert row["pos_aeg"] == pytest.approx(-0.5)


def test_pinned_auc_with_a_fixed_background():
    # Subgroup g: (y=0, .6), (y=1, .7). Background: four identical rows (y=0, .75), so every
    # sample of 2 is the same. Pinned set: positives {.7}, negatives {.6, .75, .75} -> 1/3.
    # Overall: positives {.7} vs negatives {.6, .75 x 4} -> 1/5. PAED = |1/5 - 1/3| = 2/15.
    y = [0, 1, 0, 0, 0, 0]
    s = [0.6, 0.7, 0.75, 0.75, 0.75, 0.75]
    m = pd.DataFrame({"g": [True, True, False, False, False, False]})
    with pytest.warns(UndefinedMetricWarning, match="'g'"):
        r = bias_report(y, s, membership=m, threshold=0.5, random_state=123)
    row = r.by_group.iloc[0]
    assert row["pinned_auc"] == pytest.approx(1 / 3)
    assert r.overall["auc"] == pytest.approx(1 / 5)
    assert r.difference()["PAED"] == pytest.approx(2 / 15)
    # the background has no positives: BPSN and positive AEG are undefined, with the reason
    assert np.isnan(row["bpsn_auc"]) and np.isnan(row["pos_aeg"])
    assert row["status"] == "undefined"
    assert "background has no class 1 rows (undefined: bpsn_auc, pos_aeg)" in row["reason"]


@pytest.mark.parametrize("background", ["non_subgroup", "all"])
def test_pinned_sampling_follows_the_documented_order(background):
    r = _report(random_state=7, pinned_background=background)
    children = np.random.default_rng(7).spawn(2)
    for k, term in enumerate(["a", "b"]):
        sub = MEMBERSHIP[term].to_numpy()
        pool = np.flatnonzero(~sub) if background == "non_subgroup" else np.arange(len(Y))
        sample = children[k].choice(pool, size=int(sub.sum()), replace=False)
        idx = np.r_[np.flatnonzero(sub), sample]
        yy, ss = Y[idx].astype(bool), S[idx]
        expected = _brute_auc(ss[yy], ss[~yy])
        assert r.by_group.loc[k, "pinned_auc"] == pytest.approx(expected), term
    # e.g. for term a the background sample {rows 3, 4, 5} gives positives {.7, .4, .9} and
    # negatives {.25, .6, .3}: .7 and .9 beat all three, .4 beats two -> 8/9
    assert _brute_auc([0.7, 0.4, 0.9], [0.25, 0.6, 0.3]) == pytest.approx(8 / 9)


def test_determinism_with_random_state():
    y, s, m = _three_groups()
    r1 = bias_report(y, s, membership=m, random_state=5)
    r2 = bias_report(y, s, membership=m, random_state=5)
    r3 = bias_report(y, s, membership=m, random_state=np.random.default_rng(5))
    r4 = bias_report(y, s, membership=m, random_state=6)
    pd.testing.assert_frame_equal(r1.by_group, r2.by_group)
    pd.testing.assert_frame_equal(r1.by_group, r3.by_group)
    assert not np.allclose(r1.by_group["pinned_auc"], r4.by_group["pinned_auc"])
    # only the pinned AUC is random
    rest = [c for c in r1.by_group.columns if c != "pinned_auc"]
    pd.testing.assert_frame_equal(r1.by_group[rest], r4.by_group[rest])


def _three_groups(k: int = 150, shift: float = 0.25):
    """Dixon Figure 2: 'tall', 'average', 'short'; 'short' scores are all shifted up."""
    g = np.random.default_rng(2018)
    ys, ss, names = [], [], []
    for name in ("tall", "average", "short"):
        y = np.r_[np.zeros(k), np.ones(k)].astype(bool)
        s = np.where(y, 0.6, 0.3) + g.normal(0.0, 0.06, 2 * k) + (shift if name == "short" else 0)
        ys.append(y)
        ss.append(np.clip(s, 0.0, 1.0))
        names += [name] * (2 * k)
    names = np.array(names)
    m = pd.DataFrame({t: names == t for t in ("tall", "average", "short")})
    return np.concatenate(ys), np.concatenate(ss), m


def test_shifted_group_hidden_by_subgroup_auc_revealed_by_pinned_and_bpsn():
    y, s, m = _three_groups()
    r = bias_report(y, s, membership=m, random_state=0)
    bg = r.by_group.set_index("term")
    # within each group toxic and non-toxic are well separated ...
    assert (bg["subgroup_auc"] > 0.99).all()
    # ... but pooled with the others the shifted group stands out
    assert r.overall["auc"] < 0.97
    assert bg["pinned_auc"].idxmin() == "short"
    assert bg.loc["short", "pinned_auc"] < bg.drop("short")["pinned_auc"].min() - 0.01
    assert bg.loc["short", "bpsn_auc"] < 0.85 < 0.99 < bg.drop("short")["bpsn_auc"].min()
    assert bg.loc["short", "bnsp_auc"] > bg.drop("short")["bnsp_auc"].max()
    assert bg.loc["short", "neg_aeg"] > 0.4 and bg.loc["short", "pos_aeg"] < -0.4
    assert bg["fpr"].idxmax() == "short"


def test_undefined_terms_are_reported_with_reasons_and_one_warning():
    m = MEMBERSHIP.assign(
        none=False,
        only_toxic=[False, False, True, True, False, False, False, False],
        everything=True,
    )
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        r = _report(membership=m)
    ours = [w for w in caught if issubclass(w.category, UndefinedMetricWarning)]
    assert len(ours) == 1
    msg = str(ours[0].message)
    assert "'none'" in msg and "'only_toxic'" in msg and "'everything'" in msg and "'a'" not in msg
    bg = r.by_group.set_index("term")
    assert bg.loc["none", "status"] == "undefined"
    assert bg.loc["none", "reason"] == "no rows are in subgroup 'none'"
    assert bg.loc["none", "n"] == 0 and bg.loc["none", list(METRICS)].isna().all()
    one = bg.loc["only_toxic"]
    # rows 2 (.7) and 3 (.4), both toxic: FNR = 1/2 at 0.5; FPR and the subgroup AUC undefined
    assert one["fnr"] == pytest.approx(0.5)
    assert np.isnan(one["fpr"]) and np.isnan(one["subgroup_auc"]) and np.isnan(one["bpsn_auc"])
    assert not np.isnan(one["bnsp_auc"]) and not np.isnan(one["pos_aeg"])
    assert one["reason"].startswith(
        "only class 1 among the 2 rows in subgroup 'only_toxic' (undefined: fpr, subgroup_auc"
    )
    assert "no background" in bg.loc["everything", "reason"]
    # sums use only the defined terms, and say how many
    d = r.difference()
    assert d["n_terms_FPED"] == 3 and d["n_terms_FNED"] == 4
    # FNR is defined for a, b, only_toxic and everything (whose FNR is the overall one)
    assert d["FNED"] == pytest.approx(0.5 + 0.0 + abs(0.25 - 0.5))


def test_min_rows_and_text_membership():
    texts = [
        "An African  American woman",
        "GAY and proud",
        "gayness is not a word here",
        "hello",
        "the african american museum",
        "you are gay",
    ]
    y = [0, 0, 0, 1, 1, 1]
    s = [0.2, 0.7, 0.1, 0.6, 0.4, 0.9]
    with pytest.warns(UndefinedMetricWarning, match="'deaf'"):
        r = bias_report(
            y, s, texts=texts, terms=["african american", "gay", "deaf"], threshold=0.5,
            random_state=0, min_rows=2,
        )  # fmt: skip
    bg = r.by_group.set_index("term")
    assert bg.loc["african american", ["n", "n_pos", "n_neg"]].tolist() == [2, 1, 1]
    assert bg.loc["gay", ["n", "n_pos", "n_neg"]].tolist() == [2, 1, 1]  # not "gayness"
    assert bg.loc["deaf", "reason"] == "no rows mention 'deaf'"
    # gay: non-toxic .7 is a false positive, toxic .9 is found -> FPR 1, FNR 0
    assert bg.loc["gay", ["fpr", "fnr"]].tolist() == [1.0, 0.0]
    with pytest.warns(UndefinedMetricWarning):
        r3 = bias_report(
            y, s, texts=texts, terms=["gay"], threshold=0.5, min_rows=3, random_state=None
        )
    assert r3.by_group.loc[0, "reason"].startswith("only 2 rows that mention 'gay', fewer than")


def test_generalized_mean_by_hand():
    # 0.9^-5 = 1.69351, 0.8^-5 = 3.05176, mean 2.37263, 2.37263^(-1/5) = 0.841306
    assert generalized_mean([0.9, 0.8], p=-5) == pytest.approx(0.841306, abs=1e-6)
    # [1, 0.5]: (1 + 32) / 2 = 16.5, 16.5^(-1/5) = 0.570825 -- pulled towards the worst
    assert generalized_mean([1.0, 0.5]) == pytest.approx(0.570825, abs=1e-6)
    assert generalized_mean([0.5, 0.5, 0.5]) == pytest.approx(0.5)
    assert generalized_mean([0.9, 0.8], p=1) == pytest.approx(0.85)
    assert generalized_mean([0.9, 0.0]) == 0.0


def test_generalized_means_and_final_score_by_hand():
    r = _report()
    gm = r.generalized_means()
    # subgroup AUCs [1, 1] -> 1; BPSN [5/6, 1] -> ((6/5)^5 + 1) / 2 = 1.74416,
    # 1.74416^(-1/5) = 0.894711; BNSP [1, 1] -> 1
    assert gm["subgroup_auc"] == pytest.approx(1.0)
    assert gm["bpsn_auc"] == pytest.approx(0.894711, abs=1e-6)
    assert gm["bnsp_auc"] == pytest.approx(1.0)
    assert gm["n_terms_bpsn_auc"] == 2
    # 0.25 * (15/16 + 1 + 0.894711 + 1) = 0.957053
    assert r.final_score() == pytest.approx(0.25 * (15 / 16 + 1 + 0.894711 + 1), abs=1e-6)
    assert r.final_score(weights=(1, 0, 0, 0)) == pytest.approx(15 / 16)


def test_to_frame_is_tidy_with_summary_rows_and_notes():
    m = MEMBERSHIP.assign(none=False)
    with pytest.warns(UndefinedMetricWarning):
        r = _report(membership=m)
    f = r.to_frame()
    assert list(f.columns) == ["term", "metric", "value", "note"]
    v = f.set_index(["term", "metric"])["value"]
    assert v[("a", "bpsn_auc")] == pytest.approx(5 / 6)
    assert v[("(overall)", "auc")] == pytest.approx(15 / 16)
    assert v[("(all terms)", "FPED")] == pytest.approx(0.5)
    assert ("(all terms)", "final_score") in v.index
    nan_rows = f[f["value"].isna()]
    assert len(nan_rows) == len(METRICS) and (nan_rows["term"] == "none").all()
    assert (nan_rows["note"] == "no rows are in subgroup 'none'").all()


def test_auc_and_one_class_errors(one_line):
    assert auc([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8]) == 0.75
    with pytest.raises(ValueError) as err:
        auc([1, 1, 1], [0.2, 0.5, 0.9])
    assert one_line(err).startswith("AUC is undefined: y_true has only class 1 (all 3 rows);")
    with pytest.raises(ValueError, match="only class 0"):
        bias_report(
            [0, 0], [0.1, 0.2], membership=pd.DataFrame({"t": [True, False]}), random_state=None
        )


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        (dict(y_true=[0, 1, 2], y_score=[0.1, 0.2, 0.3]), "0/1 or bool"),
        (dict(y_true=[0, 1], y_score=[0.1, 0.2, 0.3]), "2 rows but y_score has 3"),
        (dict(y_true=[0, 1], y_score=[0.1, np.nan]), "NaN"),
        (dict(y_true=[0, 1], y_score=[0.1, 1.5]), r"\[0, 1\]"),
        (dict(y_true=[0, 1], y_score=["a", "b"]), "numeric"),
        (dict(y_true=[0, 1], y_score=[0.1, 0.9], membership=None), "texts and terms"),
        (dict(y_true=[0, 1], y_score=[0.1, 0.9], texts=["a", "b"]), "texts needs terms"),
        (
            dict(
                y_true=[0, 1],
                y_score=[0.1, 0.9],
                texts=["a", "b"],
                terms=["a"],
                membership=pd.DataFrame({"a": [True, False]}),
            ),
            "not both",
        ),  # fmt: skip
        (
            dict(y_true=[0, 1], y_score=[0.1, 0.9], membership=pd.DataFrame({"a": [True]})),
            "membership table has 1",
        ),
        (
            dict(y_true=[0, 1], y_score=[0.1, 0.9], membership=pd.DataFrame({"a": [2, 0]})),
            "bool",
        ),
        (
            dict(
                y_true=[0, 1],
                y_score=[0.1, 0.9],
                membership=pd.DataFrame({"a": [1, 0]}),
                threshold=1.5,
            ),
            r"threshold must be a number in \[0, 1\]",
        ),  # fmt: skip
        (
            dict(
                y_true=[0, 1],
                y_score=[0.1, 0.9],
                membership=pd.DataFrame({"a": [1, 0]}),
                pinned_background="most",
            ),
            "pinned_background must be one of",
        ),  # fmt: skip
        (
            dict(
                y_true=[0, 1],
                y_score=[0.1, 0.9],
                membership=pd.DataFrame({"a": [1, 0]}),
                min_rows=0,
            ),
            "min_rows must be an integer >= 1",
        ),  # fmt: skip
        (
            dict(
                y_true=pd.Series([0, 1], index=[5, 6]),
                y_score=[0.1, 0.9],
                membership=pd.DataFrame({"a": [1, 0]}),
            ),
            "index",
        ),  # fmt: skip
    ],
)
def test_bad_input_raises_one_line_errors(kwargs, match, one_line):
    if "texts" not in kwargs:
        kwargs.setdefault("membership", pd.DataFrame({"a": [True, False, True][:2]}))
    y, s = kwargs.pop("y_true"), kwargs.pop("y_score")
    with pytest.raises(ValueError, match=match) as err:
        bias_report(y, s, **kwargs, random_state=None)
    one_line(err)


def test_bad_arguments_of_helpers(one_line):
    for bad in (1, 1.5, True):
        with pytest.raises(ValueError) as err:
            eer_threshold([0, 1], [0.1, 0.9], n_grid=bad)
        assert one_line(err).startswith("n_grid must be an integer >= 2")
    for values, p in (([], -5), ([0.5, np.nan], -5), ([0.5], 0), ([-0.1], -5)):
        with pytest.raises(ValueError) as err:
            generalized_mean(values, p=p)
        one_line(err)
