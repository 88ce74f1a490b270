"""Effect-size and association figures."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from figure_checks import assert_legend_clear, assert_panel_texts_apart
from matplotlib.colors import to_hex

from nlpbias import plotting


def _table() -> pd.DataFrame:
    return pd.DataFrame(
        {
            "test": ["w1", "w2", "w1", "w2"],
            "embedding": ["glove", "glove", "w2v", "w2v"],
            "effect_size": [1.2, -0.3, 0.8, 0.1],
            "ci_low": [0.9, -0.8, 0.5, -0.2],
            "ci_high": [1.5, 0.2, 1.1, 0.4],
            "paper": [1.5, np.nan, 1.5, np.nan],
        }
    )


def test_effect_size_figure_draws_each_level_with_its_interval_and_the_reference() -> None:
    fig = plotting.effect_size_figure(_table(), hue="embedding", reference="paper")
    ax = fig.axes[0]
    assert [t.get_text() for t in ax.get_yticklabels()] == ["w1", "w2"]
    bars = [c for c in ax.containers]  # one errorbar container per embedding
    assert len(bars) == 2
    glove_x = bars[0].lines[0].get_xdata()
    assert list(glove_x) == [1.2, -0.3]
    # error bar of w1/glove spans 0.9..1.5
    segs = bars[0].lines[2][0].get_segments()
    assert np.allclose([segs[0][0][0], segs[0][1][0]], [0.9, 1.5])
    ref = ax.collections[-1].get_offsets()
    assert len(ref) == 1 and ref[0][0] == pytest.approx(1.5)  # NaN reference not drawn
    assert [t.get_text() for t in fig.legends[0].get_texts()] == ["glove", "w2v", "paper"]


def test_effect_size_figure_rejects_empty_and_missing_columns() -> None:
    with pytest.raises(ValueError, match="no rows"):
        plotting.effect_size_figure(_table().iloc[:0])
    with pytest.raises(KeyError, match="ci_low"):
        plotting.effect_size_figure(_table().drop(columns="ci_low"))


def test_heatmap_figure_annotates_cells_and_outlines_those_under_the_threshold() -> None:
    df = pd.DataFrame(
        {"query": ["w1", "w1", "w2", "w2"], "embedding": ["g", "h", "g", "h"],
         "share": [1.0, 0.5, 0.9, 0.1]}
    )  # fmt: skip
    ax = plotting.heatmap_figure(df, index="query", columns="embedding", values="share",
                                 threshold=0.6).axes[0]  # fmt: skip
    assert [t.get_text() for t in ax.texts] == ["100%", "50%", "90%", "10%"]
    outlined = sorted((round(p.get_x()), round(p.get_y())) for p in ax.patches)
    assert outlined == [(1, 0), (1, 1)]  # column h, rows w1 and w2
    assert [t.get_text() for t in ax.get_yticklabels()] == ["w1", "w2"]


def test_null_figure_one_histogram_per_null_with_the_observed_line() -> None:
    fig = plotting.null_figure({"race": [1.0, 2.0, 2.5], "gender": [0.5, 1.5]},
                               {"race": 4.0, "gender": 1.0})  # fmt: skip
    assert [ax.get_title() for ax in fig.axes] == ["race", "gender"]
    assert fig.axes[1].lines[0].get_xdata()[0] == 1.0
    assert sum(p.get_height() for p in fig.axes[0].patches) == 3
    with pytest.raises(KeyError, match="no observed value"):
        plotting.null_figure({"race": [1.0]}, {})


def test_effect_size_figure_every_row_inside_the_axes_and_the_legend_off_the_points() -> None:
    df = _table()
    df = pd.concat([df, df.assign(test=["w3", "w4", "w3", "w4"])], ignore_index=True)
    df = df[~((df["test"] == "w4") & (df["embedding"] == "w2v"))]  # last row: one level only
    fig = plotting.effect_size_figure(df, hue="embedding", reference="paper")
    ax = fig.axes[0]
    lo, hi = sorted(ax.get_ylim())
    assert (lo, hi) == (-0.5, 3.5)  # four rows, none on the edge
    for container in ax.containers:  # every point inside the axes, one per row of its level
        y = container.lines[0].get_ydata()
        assert ((y > lo) & (y < hi)).all()
    assert sum(len(c.lines[0].get_xdata()) for c in ax.containers) == len(df)
    assert_legend_clear(fig)


def test_effect_size_figure_names_rows_with_word_set_titles() -> None:
    df = pd.DataFrame({"query": ["caliskan_weat7", "science_arts"], "effect_size": [1.0, 0.5]})
    fig = plotting.effect_size_figure(df, y="query", ci=None, names=plotting.wordset_label)
    labels = [t.get_text() for t in fig.axes[0].get_yticklabels()]
    assert labels == [
        "WEAT 7: math vs arts\n× male vs female terms",
        "Science vs arts\n× male vs female terms",
    ]


def test_heatmap_figure_names_rows() -> None:
    df = pd.DataFrame({"q": ["caliskan_weat1"], "e": ["glove"], "v": [0.5]})
    one_line = lambda n: plotting.wordset_label(n, width=None)  # noqa: E731
    fig = plotting.heatmap_figure(df, index="q", columns="e", values="v", names=one_line)
    assert [t.get_text() for t in fig.axes[0].get_yticklabels()] == [
        "WEAT 1: flowers vs insects × pleasant vs unpleasant"
    ]


def test_null_figure_one_legend_below_the_panels() -> None:
    fig = plotting.null_figure({"race": [1.0, 2.0, 2.5], "gender": [0.5, 1.5]},
                               {"race": 4.0, "gender": 1.0})  # fmt: skip
    assert all(ax.get_legend() is None for ax in fig.axes)
    assert [t.get_text() for t in fig.legends[0].get_texts()] == ["under the null", "observed"]
    assert_legend_clear(fig)


def test_heatmap_figure_long_column_names_break_and_do_not_run_together() -> None:
    # the coverage heatmap on paper: 'word2vec:wiki_summaries' ran into 'word2vec:gutenberg:1'
    names = ["glove-6b-50d", "word2vec:wiki_summaries", "word2vec:gutenberg:1"]
    df = pd.DataFrame({"q": ["a"] * 3, "e": names, "v": [1.0, 0.2, 0.5]})
    fig = plotting.heatmap_figure(df, index="q", columns="e", values="v", threshold=0.6)
    ax = fig.axes[0]
    assert [t.get_text() for t in ax.get_xticklabels()] == [
        "glove-6b-50d", "word2vec:\nwiki_summaries", "word2vec:\ngutenberg:1"
    ]  # fmt: skip
    assert ax.get_xlabel() == "outlined in red: under 60%"
    assert_panel_texts_apart(fig)


def test_effect_size_figure_legend_names_this_books_marks_beside_the_reference() -> None:
    # intrinsic, demo: the legend had only the paper's diamond, not the dots and intervals
    one = _table()[lambda d: d["embedding"] == "glove"]
    fig = plotting.effect_size_figure(one, reference="paper", label="this book, 95 % interval")
    texts = [t.get_text() for t in fig.legends[0].get_texts()]
    assert texts == ["this book, 95 % interval", "paper"]
    handle = fig.legends[0].legend_handles[0]
    dots = fig.axes[0].containers[0].lines[0]
    assert to_hex(np.ravel(handle.get_color())[:4]) == to_hex(dots.get_color())
    assert_legend_clear(fig)
    plain = plotting.effect_size_figure(one, reference="paper")  # as before: no entry
    assert [t.get_text() for t in plain.legends[0].get_texts()] == ["paper"]


def test_effect_size_figure_marks_the_levels_a_row_has_no_number_for() -> None:
    # intrinsic, demo: word2vec was excluded from nine of ten tests and its slots were empty
    table = pd.concat([_table(), pd.DataFrame({"test": ["w3"], "embedding": ["glove"],
                       "effect_size": [0.5], "ci_low": [0.2], "ci_high": [0.8]})],
                      ignore_index=True)  # fmt: skip
    table.loc[3, "effect_size"] = np.nan  # w2v has no number on w2 either
    fig = plotting.effect_size_figure(table, hue="embedding", missing="excluded")
    ax = fig.axes[0]
    marks = [t for t in ax.texts if t.get_text().strip() == "excluded"]
    assert len(marks) == 2  # w2 and w3, for w2v only
    rows = {t.get_text(): t.get_position()[1] for t in ax.get_yticklabels()}
    ticks = dict(zip([t.get_text() for t in ax.get_yticklabels()], ax.get_yticks(), strict=True))
    assert sorted(round(t.get_position()[1] - ticks["w2"], 6) > 0 for t in marks) == [True, True]
    at = sorted(min(ticks, key=lambda r: abs(ticks[r] - t.get_position()[1])) for t in marks)
    assert at == ["w2", "w3"] and len(rows) == 3
    w2v_colour = ax.containers[1].lines[0].get_color()
    assert all(t.get_color() == w2v_colour for t in marks)
    assert_panel_texts_apart(fig)
    none = plotting.effect_size_figure(table, hue="embedding")  # as before: nothing written
    assert not none.axes[0].texts
