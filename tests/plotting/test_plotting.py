"""Tests for nlpbias.plotting: the book's style and figure helpers."""

from __future__ import annotations

import matplotlib
import matplotlib.pyplot as plt
import pandas as pd
import pytest
from matplotlib.colors import to_hex
from matplotlib.figure import Figure

from nlpbias import plotting


def _bars(fig: Figure, i: int = 0) -> list:
    return [bar for container in fig.axes[i].containers for bar in container]


def _yticks(fig: Figure, i: int = 0) -> list[str]:
    return [t.get_text() for t in fig.axes[i].get_yticklabels()]


def test_set_style_applies_palette_and_deterministic_svg() -> None:
    assert matplotlib.rcParams["svg.hashsalt"] == "nlpbias"
    first = matplotlib.rcParams["axes.prop_cycle"].by_key()["color"][0]
    assert to_hex(first) == plotting.PALETTE[0].lower()


def test_new_figure_panels_and_no_pyplot_state() -> None:
    before = plt.get_fignums()
    fig, axes = plotting.new_figure(3, ncols=2)
    assert isinstance(fig, Figure) and len(axes) == 3 and len(fig.axes) == 3
    assert plt.get_fignums() == before  # not registered with pyplot
    with pytest.raises(ValueError, match="at least one panel"):
        plotting.new_figure(0)


def test_barh_one_bar_per_row_joined_labels_and_log() -> None:
    df = pd.DataFrame({"dataset": ["gap", "gap"], "part": ["dev", "test"], "rows": [10, 1000]})
    fig = plotting.barh(df, x="rows", y=["dataset", "part"], log=True)
    assert [b.get_width() for b in _bars(fig)] == [10, 1000]
    assert _yticks(fig) == ["gap: dev", "gap: test"]
    assert fig.axes[0].get_xscale() == "log"
    empty = plotting.barh(df.iloc[:0], x="rows", y="part")
    assert "no rows" in empty.axes[0].texts[0].get_text()
    with pytest.raises(KeyError, match="nope"):
        plotting.barh(df, x="nope", y="part")


def test_paired_barh_values_and_facets() -> None:
    df = pd.DataFrame(
        {"d": ["x", "x", "y"], "term": ["a", "b", "a"], "p": [0.1, 0.2, 0.3], "q": [0.4, 0.5, 0.6]}
    )
    fig = plotting.paired_barh(df, y="term", x=["p", "q"], labels=["P", "Q"], by="d")
    assert len(fig.axes) == 2
    assert sorted(round(b.get_width(), 2) for b in _bars(fig, 0)) == [0.1, 0.2, 0.4, 0.5]
    assert [t.get_text() for t in fig.legends[0].get_texts()] == ["P", "Q"]  # one, below
    assert fig.axes[1].get_title() == "y"
    with pytest.raises(ValueError, match="labels"):
        plotting.paired_barh(df, y="term", x=["p", "q"], labels=["P"])


def test_term_frequency_figure_shows_top_terms_by_ratio() -> None:
    freq = pd.DataFrame(
        {
            "term": ["a", "b", "c", "rare"],
            "n_overall": [10, 10, 10, 1],
            "share_overall": [0.1, 0.1, 0.1, 0.01],
            "share_toxic": [0.1, 0.3, 0.2, 0.5],
            "ratio": [1.0, 3.0, 2.0, 50.0],
        }
    )
    fig = plotting.term_frequency_figure(freq, by=None, top=2, min_count=5)
    assert _yticks(fig) == ["b", "c"]  # "rare" is below min_count
    widths = sorted(round(b.get_width(), 2) for b in _bars(fig))
    assert widths == [0.1, 0.1, 0.2, 0.3]
    assert "top 2 by ratio" in fig._suptitle.get_text()
    # data chapter, demo: "top 12" over the 10 terms there are
    every = plotting.term_frequency_figure(freq, by=None, top=12, min_count=5)
    assert _yticks(every) == ["b", "c", "a"]
    assert "top" not in every._suptitle.get_text()
    assert "every term, by ratio, ≥ 5 texts" in every._suptitle.get_text()


def test_bad_input_is_one_line() -> None:
    with pytest.raises(TypeError, match="DataFrame") as info:
        plotting.term_frequency_figure([1, 2])
    assert "\n" not in str(info.value)


def test_legend_below_reads_left_to_right_in_rows_of_at_most_five() -> None:
    from matplotlib.patches import Patch

    fig, _ = plotting.new_figure(2)
    names = [f"t{i}" for i in range(7)]
    legend = plotting.legend_below(fig, [Patch() for _ in names], names)
    fig.draw_without_rendering()
    pos = {t.get_text(): t.get_window_extent() for t in legend.get_texts()}
    rows = sorted({round(b.y0) for b in pos.values()}, reverse=True)
    assert len(rows) == 2
    first = [n for n in names if round(pos[n].y0) == rows[0]]
    assert first == names[:4]  # the first row holds the first four, in order
    assert all(pos[a].x0 < pos[b].x0 for a, b in zip(first, first[1:], strict=False))


def test_new_figure_rows_of_panels_are_at_most_max_width_wide() -> None:
    fig, _ = plotting.new_figure(3, ncols=3, width=4.4, height=3.0)
    assert tuple(fig.get_size_inches()) == pytest.approx((8.5, 3.0))
    fig, _ = plotting.new_figure(1, width=8.0, height=2.0)
    assert tuple(fig.get_size_inches()) == pytest.approx((8.0, 2.0))


def test_legend_below_with_long_labels_stays_within_the_figure_width() -> None:
    # six corpora named like 'lindadongx_personal_corpora: hillary train' under a 6.4-inch panel
    from matplotlib.lines import Line2D

    labels = [f"lindadongx_personal_corpora: part {i}" for i in range(6)]
    fig, (ax,) = plotting.new_figure(1, width=6.4, height=3.6)
    ax.plot([0, 1], [0, 1])
    legend = plotting.legend_below(fig, [Line2D([], []) for _ in labels], labels)
    fig.draw_without_rendering()
    assert legend.get_window_extent().width <= fig.bbox.width
    short = plotting.legend_below(fig, [Line2D([], []) for _ in range(5)], list("abcde"))
    assert short._ncols == 5  # short labels: five in a row
