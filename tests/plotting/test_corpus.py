"""Tests of nlpbias.plotting.corpus.toxicity_by_length_figure (Dixon et al.'s Figure 1): the drawn
points are the table's, on a planted corpus, one panel per group."""

from __future__ import annotations

import numpy as np
import pandas as pd
from figure_checks import assert_legend_clear, assert_panel_texts_apart

from nlpbias.data.describe import toxicity_by_length
from nlpbias.plotting import toxicity_by_length_figure

#: per length: (gay toxic, gay not toxic, other toxic, other not toxic); 8 texts per length
CELLS = {10: (3, 1, 1, 3), 20: (1, 1, 1, 5), 40: (0, 2, 1, 5)}


def planted() -> pd.DataFrame:
    """24 texts of lengths 10, 20 and 40 (three buckets of 8), "gay " or "the " then "a"s."""
    kinds = [("gay", True), ("gay", False), ("the", True), ("the", False)]
    rows = [
        (f"{word} " + "a" * (length - 4), toxic)
        for length, counts in CELLS.items()
        for (word, toxic), n in zip(kinds, counts, strict=True)
        for _ in range(n)
    ]
    return pd.DataFrame(rows, columns=["text", "toxic"])


def test_points_are_the_tables_toxic_shares() -> None:
    tbl = toxicity_by_length(planted(), ["gay", "the"], n_buckets=3)
    fig = toxicity_by_length_figure(tbl, by=None)
    (ax,) = fig.axes
    assert [ln.get_label() for ln in ax.lines] == ["all texts", "gay", "the"]
    for line in ax.lines:
        rows = tbl[tbl["subset"] == line.get_label()].sort_values("bucket")
        np.testing.assert_array_equal(line.get_xdata(), rows["bucket"].to_numpy())
        np.testing.assert_array_equal(line.get_ydata(), rows["toxic_share"].to_numpy())
        assert line.get_marker() == "o"
    gay = ax.lines[1]
    assert list(gay.get_ydata()) == [0.75, 0.5, 0.0]  # the planted shares
    assert list(ax.lines[0].get_ydata()) == [0.5, 0.25, 0.125]
    assert [t.get_text() for t in ax.get_xticklabels()] == ["10–10", "20–20", "40–40"]
    assert [t.get_text() for t in fig.legends[0].get_texts()] == ["all texts", "gay", "the"]
    assert_legend_clear(fig)
    assert_panel_texts_apart(fig)


def test_a_panel_per_group_with_its_own_points() -> None:
    df = planted()
    two = np.r_[np.zeros(len(df), int), np.ones(len(df), int)]
    both = df.iloc[np.r_[np.arange(len(df)), np.arange(len(df))]].assign(
        corpus=np.where(two == 0, "a", "b"),
        toxic=lambda d: np.where(two == 0, d["toxic"], ~d["toxic"].to_numpy()),
    )
    tbl = toxicity_by_length(both, ["gay"], n_buckets=3, by="corpus")
    fig = toxicity_by_length_figure(tbl, by="corpus")
    assert [ax.get_title() for ax in fig.axes] == ["a", "b"]
    a, b = ([ln.get_ydata().tolist() for ln in ax.lines] for ax in fig.axes)
    assert a == [[0.5, 0.25, 0.125], [0.75, 0.5, 0.0]]
    assert b == [[0.5, 0.75, 0.875], [0.25, 0.5, 1.0]]  # labels flipped in "b"


def test_a_left_out_cell_is_a_gap_in_its_line() -> None:
    # min_count=3 leaves out gay's cells of 2 texts (lengths 20 and 40): one point, no line
    # through them; "the" keeps all three buckets
    tbl = toxicity_by_length(planted(), ["gay", "the"], n_buckets=3, min_count=3)
    assert tbl[tbl["subset"] == "gay"]["bucket"].tolist() == [1]
    fig = toxicity_by_length_figure(tbl, by=None)
    line = {ln.get_label(): ln for ln in fig.axes[0].lines}
    assert list(line["gay"].get_xdata()) == [1, 2, 3]
    y = line["gay"].get_ydata()
    assert y[0] == 0.75 and np.isnan(y[1]) and np.isnan(y[2])
    assert list(line["the"].get_ydata()) == [0.25, 1 / 6, 1 / 6]
