"""Tests for nlpbias.studies.data.figures: the figures only the data chapter draws."""

from __future__ import annotations

import io

import numpy as np
import pandas as pd
import pytest
from figure_checks import (
    assert_labels_clear_of_points,
    assert_legend_clear,
    assert_no_hidden_bars,
    assert_panel_texts_apart,
    assert_texts_apart,
    bars,
)
from matplotlib.colors import to_hex
from matplotlib.text import Text

from nlpbias import plotting
from nlpbias.studies.data import figures


def test_length_figure_labels_hue_and_zero_lengths() -> None:
    lengths = pd.DataFrame(
        {"d": ["x"] * 4 + ["y"] * 4, "length": [0, 5, 40, 50, 3, 4, 5, 6],
         "label": [True, True, False, False] * 2}
    )  # fmt: skip
    fig = figures.length_figure(lengths, by="d")
    assert len(fig.axes) == 2
    legend = [t.get_text() for t in fig.legends[0].get_texts()]  # one, below both panels
    assert sorted(legend) == ["not toxic", "toxic"]
    assert all(ax.get_legend() is None for ax in fig.axes)
    assert_legend_clear(fig)
    assert "0 shown as 1" in fig.axes[0].get_xlabel()
    assert "0 shown as 1" not in fig.axes[1].get_xlabel()
    ecdf = figures.length_figure(lengths, by=None, hue=None, kind="ecdf", log_scale=False)
    assert ecdf.axes[0].get_xscale() == "linear"
    with pytest.raises(ValueError, match="kind"):
        figures.length_figure(lengths, kind="box")


def test_toxicity_by_length_figure_lines_and_ticks() -> None:
    tbl = pd.DataFrame(
        {
            "subset": ["all texts", "all texts", "gay", "gay"],
            "bucket": [1, 2, 1, 2],
            "bucket_label": ["1–5", "6–9", "1–5", "6–9"],
            "toxic_share": [0.5, 0.25, 0.8, 0.4],
        }
    )
    fig = figures.toxicity_by_length_figure(tbl, by=None)
    ax = fig.axes[0]
    assert [line.get_label() for line in ax.lines] == ["all texts", "gay"]
    assert list(ax.lines[0].get_ydata()) == [0.5, 0.25]
    assert ax.lines[0].get_linestyle() == "--"
    assert [t.get_text() for t in ax.get_xticklabels()] == ["1–5", "6–9"]


def test_stacked_share_barh_stacks_to_one() -> None:
    df = pd.DataFrame(
        {
            "part": ["a", "a", "b", "b"],
            "gender": ["f", "m", "f", "m"],
            "share": [0.3, 0.7, 0.5, 0.5],
        }
    )
    fig = figures.stacked_share_barh(df, y="part", hue="gender", names={"f": "female"})
    bars = fig.axes[0].patches
    assert [round(b.get_width(), 2) for b in bars] == [0.5, 0.3, 0.5, 0.7]  # rows reversed
    assert [round(b.get_x(), 2) for b in bars] == [0.0, 0.0, 0.5, 0.3]
    assert [t.get_text() for t in fig.axes[0].get_legend().get_texts()] == ["female", "m"]


def test_label_balance_figure_uses_label_colours() -> None:
    bal = pd.DataFrame({"dataset": ["d", "d"], "label": [False, True], "share": [0.8, 0.2]})
    fig = figures.label_balance_figure(bal)
    colours = [to_hex(p.get_facecolor()) for p in fig.axes[0].patches]
    assert colours == [plotting.LABEL_COLOURS[False].lower(), plotting.LABEL_COLOURS[True].lower()]


def test_observed_vs_planted_annotates_points() -> None:
    df = pd.DataFrame({"term": ["a", "b"], "p": [0.2, 0.6], "o": [0.25, 0.55]})
    fig = figures.observed_vs_planted(df, planted="p", observed="o", name="toxic rate")
    ax = fig.axes[0]
    assert [t.get_text() for t in ax.texts] == ["a", "b"]
    assert ax.get_xlabel() == "planted toxic rate" and ax.get_ylabel() == "observed toxic rate"


def test_figures_are_deterministic() -> None:
    tbl = pd.DataFrame(
        {"subset": ["all texts"] * 2, "bucket": [1, 2], "bucket_label": ["1–5", "6–9"],
         "toxic_share": [0.5, 0.25]}
    )  # fmt: skip

    def png() -> bytes:
        buf = io.BytesIO()
        figures.toxicity_by_length_figure(tbl, by=None).savefig(buf, format="png")
        return buf.getvalue()

    assert png() == png()


def test_toxicity_by_length_figure_keeps_a_term_colour_across_panels() -> None:
    # 'gay' is missing from panel A, so a per-panel colour index would shift 'muslim'
    rows = [
        ("A", "all texts", 0.5), ("A", "muslim", 0.4),
        ("B", "all texts", 0.3), ("B", "gay", 0.9), ("B", "muslim", 0.2),
    ]  # fmt: skip
    tbl = pd.DataFrame(rows, columns=["dataset", "subset", "toxic_share"])
    tbl = tbl.assign(bucket=1, bucket_label="1–5")
    fig = figures.toxicity_by_length_figure(tbl, by="dataset")
    colour = [{ln.get_label(): ln.get_color() for ln in ax.lines} for ax in fig.axes]
    assert colour[0]["muslim"] == colour[1]["muslim"]
    assert colour[1]["gay"] != colour[1]["muslim"]


def test_observed_vs_planted_labels_of_a_cluster_do_not_overlap() -> None:
    terms = ["gay", "muslim", "jewish", "white", "american", "elderly", "deaf", "lesbian"]
    planted = [0.6, 0.5, 0.2, 0.2, 0.2, 0.2, 0.2, 0.2]
    observed = [0.59, 0.455, 0.232, 0.21, 0.205, 0.19, 0.183, 0.136]
    df = pd.DataFrame({"term": terms, "p": planted, "o": observed})
    fig = figures.observed_vs_planted(df, planted="p", observed="o", name="toxic rate")
    ax = fig.axes[0]
    assert sorted(t.get_text() for t in ax.texts) == sorted(terms)  # one label per point
    assert_texts_apart(ax)
    assert_legend_clear(fig)
    # each label inside the axes and off every point; a label away from its point, or of a
    # point in the crowd at 20 %, has a line to its point
    assert_labels_clear_of_points(ax, planted, observed)
    lined = {t.get_text() for t in ax.texts if t.arrow_patch is not None}
    assert set(terms[2:]) <= lined
    right = ax.get_window_extent().x1  # "gay" at the top right is written left of its point
    assert all(Text.get_window_extent(t).x1 <= right for t in ax.texts)


def test_length_figure_one_hue_value_goes_to_the_title_not_a_legend() -> None:
    lengths = pd.DataFrame({"length": [3, 5, 40, 50], "corpus": ["wiki: summaries"] * 4})
    fig = figures.length_figure(lengths, by=None, hue="corpus", kind="ecdf", unit="tokens")
    ax = fig.axes[0]
    assert ax.get_legend() is None and ax.get_title() == "wiki: summaries"


def test_length_and_toxicity_figures_keep_legends_off_the_data() -> None:
    rng = np.random.default_rng(0)
    lengths = pd.DataFrame(
        {"d": "x", "length": np.r_[rng.lognormal(4, 0.6, 400), rng.lognormal(5, 0.6, 400)],
         "label": [True] * 400 + [False] * 400}
    )  # fmt: skip
    fig = figures.length_figure(lengths, by="d")
    assert_legend_clear(fig)
    assert "log scale" in fig.axes[0].get_xlabel()
    fmt = fig.axes[0].xaxis.get_major_formatter()
    assert [fmt(v, 0) for v in (10, 1000)] == ["10", "1,000"]
    tbl = pd.DataFrame(
        {"dataset": ["a"] * 4 + ["b"] * 4, "subset": ["all texts", "all texts", "gay", "gay"] * 2,
         "bucket": [1, 2] * 4, "bucket_label": ["1–5", "6–9"] * 4,
         "toxic_share": [0.9, 0.1, 0.95, 0.05, 0.1, 0.9, 0.05, 0.95]}
    )  # fmt: skip
    fig = figures.toxicity_by_length_figure(tbl)
    assert [t.get_text() for t in fig.legends[0].get_texts()] == ["all texts", "gay"]
    assert all(ax.get_legend() is None for ax in fig.axes)
    assert_legend_clear(fig)
    assert_panel_texts_apart(fig)


def test_stacked_share_bars_touch_without_hiding_and_sum_to_one() -> None:
    df = pd.DataFrame(
        {
            "part": ["a", "a", "b", "b"],
            "gender": ["f", "m", "f", "m"],
            "share": [0.3, 0.7, 0.5, 0.5],
        }
    )
    fig = figures.stacked_share_barh(df, y="part", hue="gender")
    ax = fig.axes[0]
    drawn = bars(ax)
    assert len(drawn) == 4
    assert_no_hidden_bars(ax)
    assert drawn.groupby("label")["value"].sum().round(9).tolist() == [1.0, 1.0]
    assert_legend_clear(fig)


def test_length_figure_one_colour_per_hue_value_in_every_panel() -> None:
    lengths = pd.DataFrame(
        {"d": ["x", "x", "y", "y", "y", "y"], "length": [3, 5, 4, 6, 40, 50],
         "corpus": ["b", "b", "a", "a", "b", "b"]}
    )  # fmt: skip
    fig = figures.length_figure(lengths, by="d", hue="corpus", kind="ecdf")
    colours = {}
    for handle, text in zip(fig.legends[0].legend_handles, fig.legends[0].get_texts(), strict=True):
        colours[text.get_text()] = to_hex(handle.get_color())
    assert sorted(colours) == ["a", "b"] and colours["a"] != colours["b"]
    for ax in fig.axes:  # each panel draws "b" in the legend's colour for "b"
        drawn = {to_hex(line.get_color()) for line in ax.lines}
        assert colours["b"] in drawn


def test_toxicity_by_length_long_bucket_labels_break_and_stay_apart() -> None:
    # the Wiki Talk panel on paper: '394–852' and '854–5000' ran together
    labels = ["21–104", "105–219", "220–392", "394–852", "854–5000"]
    tbl = pd.DataFrame(
        {"subset": "all texts", "bucket": range(1, 6), "bucket_label": labels,
         "toxic_share": [0.3, 0.2, 0.15, 0.1, 0.08]}
    )  # fmt: skip
    fig = figures.toxicity_by_length_figure(tbl, by=None)
    ticks = [t.get_text() for t in fig.axes[0].get_xticklabels()]
    assert ticks == ["21–\n104", "105–\n219", "220–\n392", "394–\n852", "854–\n5000"]
    assert_panel_texts_apart(fig)


def test_length_figure_many_or_long_hue_names_put_the_legend_below() -> None:
    # the token-length ECDF on paper: six corpora with names of 40 characters beside one panel
    names = [f"lindadongx_personal_corpora: part {i}" for i in range(6)]
    lengths = pd.DataFrame({"length": np.arange(1, 61), "corpus": names * 10})
    fig = figures.length_figure(lengths, by=None, hue="corpus", kind="ecdf", unit="tokens")
    assert fig.axes[0].get_legend() is None
    assert sorted(t.get_text() for t in fig.legends[0].get_texts()) == sorted(names)
    assert_legend_clear(fig)
    two = figures.length_figure(lengths.assign(label=lengths["length"] > 30), by=None)
    assert two.axes[0].get_legend() is not None  # two short names stay beside the panel
