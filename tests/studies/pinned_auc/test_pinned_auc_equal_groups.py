"""Tests for the equal-groups pinned AUC (Dixon et al. 2018, appendix, variant 2) of
pinned_auc.metrics: planted scores with hand-computed values, the documented sampling order,
nested groups, a group too small for its share, and a group with no rows."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from nlpbias.studies.pinned_auc.metrics import UndefinedMetricWarning, bias_report

# ------------------------------------------------------------------ the planted example
# rows 0-3: term a; positives {.9, .5}, negatives {.3, .6}
# rows 4-9: term b, six identical negatives scored .8
# rows 10-11: term c, two identical negatives scored .1
# Equal groups, term a (4 rows, 2 other groups): 2 rows of b and 2 of c, so the pinned set has
#   positives {.9, .5} and negatives {.3, .6, .8, .8, .1, .1}: .9 beats all 6, .5 beats
#   .3, .1, .1 -> 9/12 = 3/4, whatever the seed (the rows of a group are identical).
# Default (non_subgroup), term a: 4 of the 8 rows outside a, k of them from b (k = 2, 3 or 4,
#   there are only 2 rows of c): .9 beats all 6, .5 beats .3 and the 4 - k rows of c ->
#   (11 - k) / 12. With random_state=0 the documented draw takes k = 4 rows of b: 7/12.
# So with random_state=0 the equal-groups pinned AUC of a is 2/12 = 1/6 above the default's.
Y = np.array([1, 1, 0, 0] + [0] * 6 + [0] * 2)
S = np.array([0.9, 0.5, 0.3, 0.6] + [0.8] * 6 + [0.1] * 2)
GROUPS = pd.DataFrame(
    {
        "a": [True] * 4 + [False] * 8,
        "b": [False] * 4 + [True] * 6 + [False] * 2,
        "c": [False] * 10 + [True] * 2,
    }
)


def _pinned(background: str, random_state: int = 0):
    with pytest.warns(UndefinedMetricWarning):  # b and c are one-class subgroups
        return bias_report(
            Y,
            S,
            membership=GROUPS,
            threshold=0.5,
            random_state=random_state,
            pinned_background=background,
        )


def test_equal_groups_differs_from_the_default_by_the_hand_computed_amount() -> None:
    eq = _pinned("equal_groups").by_group.set_index("term")
    ns = _pinned("non_subgroup").by_group.set_index("term")
    assert eq.loc["a", "pinned_auc"] == pytest.approx(9 / 12)
    assert ns.loc["a", "pinned_auc"] == pytest.approx(7 / 12)
    assert eq.loc["a", "pinned_auc"] - ns.loc["a", "pinned_auc"] == pytest.approx(1 / 6)
    # the other metrics do not depend on the background sample
    cols = ["fpr", "fnr", "subgroup_auc", "bpsn_auc", "bnsp_auc"]
    pd.testing.assert_frame_equal(eq[cols], ns[cols])


def test_the_default_draw_is_the_one_the_hand_computation_assumes() -> None:
    child = np.random.default_rng(0).spawn(3)[0]
    sample = child.choice(np.arange(4, 12), size=4, replace=False)
    k = int((sample < 10).sum())  # rows of b
    assert k == 4
    assert _pinned("non_subgroup").by_group.loc[0, "pinned_auc"] == pytest.approx((11 - k) / 12)


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_equal_groups_value_does_not_depend_on_the_seed_here(seed: int) -> None:
    r = _pinned("equal_groups", random_state=seed)
    assert r.by_group.loc[0, "pinned_auc"] == pytest.approx(3 / 4)
    assert r.pinned_background == "equal_groups"


def test_equal_groups_follows_the_documented_sampling_order() -> None:
    # a: 5 rows; b: 4 rows; c: 4 rows; d: 3 rows; scores all distinct, so each sample has its
    # own AUC. For a, G = 3 groups: quota 1 each, plus one more row for 5 mod 3 = 2 groups.
    rng = np.random.default_rng(11)
    n = 16
    y = np.array([1, 0, 1, 0, 1] + [0, 1, 0, 1] + [1, 0, 0, 1] + [0, 1, 0])
    s = rng.permutation(np.linspace(0.02, 0.98, n))
    sizes = {"a": 5, "b": 4, "c": 4, "d": 3}
    m, start = {}, 0
    for g, k in sizes.items():
        col = np.zeros(n, dtype=bool)
        col[start : start + k] = True
        m[g], start = col, start + k
    mem = pd.DataFrame(m)
    r = bias_report(
        y, s, membership=mem, threshold=0.5, random_state=5, pinned_background="equal_groups"
    )
    children = np.random.default_rng(5).spawn(4)
    for k, term in enumerate(mem.columns):
        sub = mem[term].to_numpy()
        others = [np.flatnonzero(mem[g].to_numpy() & ~sub) for g in mem.columns if g != term]
        n_t = int(sub.sum())
        quota = np.full(len(others), n_t // len(others))
        quota[children[k].choice(len(others), size=n_t % len(others), replace=False)] += 1
        picks = [
            children[k].choice(rows, size=q, replace=False)
            for rows, q in zip(others, quota, strict=True)
        ]
        idx = np.r_[np.flatnonzero(sub), np.concatenate(picks)]
        yy = y[idx].astype(bool)
        pos, neg = s[idx][yy], s[idx][~yy]
        expected = (pos[:, None] > neg[None, :]).mean()
        assert r.by_group.loc[k, "pinned_auc"] == pytest.approx(expected), term
        # equal representation: group shares differ by at most one row
        assert quota.max() - quota.min() <= 1 and quota.sum() == n_t


def test_a_nested_group_is_part_of_the_subgroup_not_its_background() -> None:
    # Every "african american" row mentions "american": for "american" that group is part of
    # the subgroup, not of its background, so the background comes from "gay" alone (three
    # identical negatives .8, of which it takes both rows of american's equal share).
    # Pinned set: positives {.82}, negatives {.85, .8, .8} -> 2/3.
    texts = ["an american", "an african american", "gay", "gay", "gay"]
    y = np.array([1, 0, 0, 0, 0])
    s = np.array([0.82, 0.85, 0.8, 0.8, 0.8])
    terms = ["american", "african american", "gay"]
    with pytest.warns(UndefinedMetricWarning):
        r = bias_report(
            y, s, texts=texts, terms=terms, threshold=0.5, random_state=0,
            pinned_background="equal_groups",
        )  # fmt: skip
    row = r.by_group.set_index("term").loc["american"]
    assert row["n"] == 2
    assert row["pinned_auc"] == pytest.approx(2 / 3)


def test_a_group_too_small_for_its_share_makes_the_pinned_auc_undefined() -> None:
    r = _pinned("equal_groups")
    b = r.by_group.set_index("term").loc["b"]  # 6 rows: 3 from a and 3 from c, c has 2
    assert np.isnan(b["pinned_auc"])
    assert (
        "group 'c' has 2 rows left to draw outside 'b', fewer than its equal share of 3"
        in (b["reason"])
    )


def test_a_group_with_no_rows_is_a_one_line_error(one_line) -> None:
    mem = GROUPS.assign(empty=False)
    with pytest.raises(ValueError, match=r"groups \['empty'\] have no rows; drop them") as err:
        bias_report(
            Y, S, membership=mem, threshold=0.5, random_state=0, pinned_background="equal_groups"
        )
    one_line(err)
    # the default variant reports such a term as undefined instead
    with pytest.warns(UndefinedMetricWarning, match="'empty'"):
        bias_report(Y, S, membership=mem, threshold=0.5, random_state=0)
