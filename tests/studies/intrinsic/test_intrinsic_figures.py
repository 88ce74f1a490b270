"""Tests for nlpbias.studies.intrinsic.figures: per-word associations and labelled scatters."""

from __future__ import annotations

import pandas as pd
import pytest
from figure_checks import (
    assert_labels_clear_of_points,
    assert_legend_clear,
    assert_no_hidden_bars,
    assert_panel_texts_apart,
    assert_texts_apart,
    bars,
    legend_texts,
)

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


def test_association_figure_one_bar_per_word_with_its_value_and_the_legend_beside() -> None:
    df = pd.DataFrame(
        {"word": [f"w{i}" for i in range(12)], "association": [0.01 * (i - 6) for i in range(12)],
         "set": ["male_occupations", "female_occupations"] * 6}
    )  # fmt: skip
    fig = figures.association_figure(df)
    ax = fig.axes[0]
    drawn = bars(ax)
    assert len(drawn) == len(df)  # no zero-width legend proxies among the bars
    assert dict(zip(drawn["label"], drawn["value"], strict=True)) == pytest.approx(
        dict(zip(df["word"], df["association"], strict=True))
    )
    assert {r.label: r.hue for r in drawn.itertuples()} == {
        w: s.replace("_", " ") for w, s in zip(df["word"], df["set"], strict=True)
    }
    assert legend_texts(ax) == ["male occupations", "female occupations"]
    assert_no_hidden_bars(ax)
    assert_legend_clear(fig)
    lo, hi = sorted(ax.get_ylim())
    assert (lo, hi) == (-0.5, len(df) - 0.5)  # no empty rows above or below


def test_scatter_figure_legend_covers_no_point_or_label() -> None:
    df = pd.DataFrame(
        {"a": [0, 1, 0, 1, 0.5], "b": [0, 0, 1, 1, 0.5], "w": list("vwxyz"), "g": [0, 0, 1, 1, 1]}
    )  # points in every corner: a legend inside would cover one
    fig = figures.scatter_figure(df, x="a", y="b", hue="g", label="w")
    assert_legend_clear(fig)


def test_rnsb_figure_one_panel_per_variant_bars_equal_scores_readable_rows() -> None:
    scores = pd.DataFrame(
        {"name": ["caliskan_weat7", "science_arts"] * 2, "variant": ["signed"] * 2 + ["kl"] * 2,
         "score": [0.35, -0.1, 0.19, 0.02]}
    )  # fmt: skip
    fig = figures.rnsb_figure(scores)
    assert [ax.get_title() for ax in fig.axes] == ["signed two-set RNSB", "KL from uniform"]
    assert "nats" in fig.axes[1].get_xlabel()
    assert_panel_texts_apart(fig)
    for ax, variant in zip(fig.axes, ["signed", "kl"], strict=True):
        drawn = bars(ax)
        sub = scores[scores["variant"] == variant]
        assert list(drawn["value"]) == pytest.approx(list(sub["score"]))  # one bar per row
        assert_no_hidden_bars(ax)
    labels = [t.get_text() for t in fig.axes[0].get_yticklabels()]
    assert labels[0].startswith("WEAT 7: math vs arts") and "caliskan" not in " ".join(labels)


def test_scatter_figure_labels_of_crowded_points_do_not_overlap() -> None:
    # the occupations on paper: lawyer/analyst, receptionist/housekeeper/nurse printed over
    # each other
    words = ["lawyer", "analyst", "CEO", "receptionist", "housekeeper", "nurse", "hairdresser"]
    df = pd.DataFrame(
        {"women": [40, 41, 39, 90, 89, 90, 92],
         "s": [0.056, 0.055, 0.068, -0.155, -0.158, -0.165, -0.178],
         "w": words, "g": ["male"] * 3 + ["female"] * 4}
    )  # fmt: skip
    fig = figures.scatter_figure(df, x="women", y="s", hue="g", label="w")
    ax = fig.axes[0]
    assert sorted(t.get_text() for t in ax.texts) == sorted(words)  # one label per point
    assert_texts_apart(ax)
    assert_labels_clear_of_points(ax, df["women"], df["s"])
    assert_legend_clear(fig)


def test_rnsb_figure_axis_labels_apart_with_the_chapters_word_sets() -> None:
    # demo: the two panels' x-labels ran into each other under the long multi-line row labels
    names = [f"caliskan_weat{i}" for i in range(1, 11)]
    names += ["winobias_occupations", "kato_weat6", "kato_weat7", "kato_weat8"]
    scores = pd.DataFrame(
        {
            "name": names * 2,
            "variant": ["signed"] * len(names) + ["kl"] * len(names),
            "score": [0.3] * len(names) + [0.2] * len(names),
        }
    )
    fig = figures.rnsb_figure(scores)
    assert_panel_texts_apart(fig)
    left, right = (ax.xaxis.label.get_window_extent() for ax in fig.axes)
    assert left.x1 < right.x0  # side by side, not overlapping
