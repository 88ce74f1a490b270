"""Tests for nlpbias.studies.data.figures: the figures only the data chapter draws."""

from __future__ import annotations

import io

import pandas as pd
import pytest
from matplotlib.colors import to_hex

from nlpbias import plotting
from nlpbias.studies.data import figures


@pytest.fixture(autouse=True)
def _style() -> None:
    plotting.set_style()


def test_length_figure_labels_hue_and_zero_lengths() -> None:
    lengths = pd.DataFrame(
        {"d": ["x"] * 4 + ["y"] * 4, "length": [0, 5, 40, 50, 3, 4, 5, 6],
         "label": [True, True, False, False] * 2}
    )  # fmt: skip
    fig = figures.length_figure(lengths, by="d")
    assert len(fig.axes) == 2
    legend = [t.get_text() for t in fig.axes[0].get_legend().get_texts()]
    assert sorted(legend) == ["not toxic", "toxic"]
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
