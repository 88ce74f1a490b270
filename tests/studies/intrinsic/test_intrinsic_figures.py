"""Tests for nlpbias.studies.intrinsic.figures: per-word associations and labelled scatters."""

from __future__ import annotations

import pandas as pd

from nlpbias.studies.intrinsic import figures


def test_association_figure_sorts_and_colours_by_set() -> None:
    df = pd.DataFrame(
        {"word": ["nurse", "engineer", "baker"], "association": [-0.1, 0.2, 0.05],
         "set": ["female", "male", "female"]}
    )  # fmt: skip
    ax = figures.association_figure(df).axes[0]
    assert [t.get_text() for t in ax.get_yticklabels()] == ["engineer", "baker", "nurse"]
    colours = [p.get_facecolor() for p in ax.patches[:3]]
    assert colours[1] == colours[2] != colours[0]


def test_scatter_figure_labels_points() -> None:
    df = pd.DataFrame({"a": [1, 2, 3], "b": [3, 1, 2], "w": ["x", "y", "z"], "g": [0, 1, 1]})
    ax = figures.scatter_figure(df, x="a", y="b", hue="g", label="w", annotate=["y"]).axes[0]
    assert [t.get_text() for t in ax.texts] == ["y"]
    assert len(ax.collections) == 2
