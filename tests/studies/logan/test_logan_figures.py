"""Tests for nlpbias.studies.logan.figures: the two groups' bars side by side, named in words."""

from __future__ import annotations

import doctest

import pandas as pd
import pytest
from figure_checks import assert_legend_clear, assert_no_hidden_bars, bars, legend_texts

from nlpbias.studies.logan import figures


def _table1() -> pd.DataFrame:
    return pd.DataFrame(
        {
            "attribute": ["race"] * 3 + ["gender"] * 3,
            "method": ["Global", "K-Means", "LOGAN"] * 2,
            "acc_1": [81.0, 96.0, 96.0, 90.0, 92.0, 99.0],
            "acc_2": [79.0, 63.0, 64.0, 88.0, 70.0, 75.0],
        }
    ).set_index(["attribute", "method"])


def test_doctests() -> None:
    assert doctest.testmod(figures, raise_on_error=False).failed == 0


def test_group_accuracy_both_groups_side_by_side_with_their_values() -> None:
    t1 = _table1()
    fig = figures.group_accuracy_figure(t1, {"race": ("AA", "white"), "gender": ("m", "f")})
    ax = fig.axes[0]
    drawn = bars(ax)
    assert len(drawn) == 2 * len(t1)  # one bar per (row, group): none painted over another
    assert_no_hidden_bars(ax)
    got = {(r.label, r.hue): r.value for r in drawn.itertuples()}
    want = {
        (f"{a}: {m}", f"accuracy, group A{k}"): t1.loc[(a, m), f"acc_{k}"]
        for a, m in t1.index
        for k in (1, 2)
    }
    assert got == pytest.approx(want)
    assert legend_texts(ax) == ["accuracy, group A1", "accuracy, group A2"]
    assert "race: AA vs white; gender: m vs f" in ax.get_title()
    assert ax.get_xlabel() == "accuracy (%)"
    assert_legend_clear(fig)


def test_biased_cluster_figure_names_bcr_and_bir() -> None:
    t4 = pd.DataFrame(
        {"attribute": ["race", "race"], "method": ["K-Means", "LOGAN"],
         "bcr_pct": [50.0, 60.0], "bir_pct": [34.0, 35.0]}
    ).set_index(["attribute", "method"])  # fmt: skip
    fig = figures.biased_cluster_figure(t4)
    ax = fig.axes[0]
    assert len(bars(ax)) == 4
    assert_no_hidden_bars(ax)
    assert legend_texts(ax) == ["BCR: biased clusters", "BIR: rows in biased clusters"]
    assert_legend_clear(fig)


def test_missing_column_is_named() -> None:
    with pytest.raises(KeyError, match="acc_2"):
        figures.group_accuracy_figure(_table1().drop(columns="acc_2"))


def test_group_auc_both_groups_side_by_side_with_their_values() -> None:
    t2 = _table1().rename(columns={"acc_1": "auc_1", "acc_2": "auc_2"}) / 100
    fig = figures.group_auc_figure(t2, {"race": ("AA", "white")})
    ax = fig.axes[0]
    drawn = bars(ax)
    assert len(drawn) == 2 * len(t2)
    got = {(r.label, r.hue): r.value for r in drawn.itertuples()}
    want = {
        (f"{a}: {m}", f"subgroup AUC, group A{k}"): t2.loc[(a, m), f"auc_{k}"]
        for a, m in t2.index
        for k in (1, 2)
    }
    assert got == pytest.approx(want)
    assert ax.get_xlabel() == "subgroup AUC (0 to 1)"
    with pytest.raises(KeyError, match="auc_2"):
        figures.group_auc_figure(t2.drop(columns="auc_2"))
