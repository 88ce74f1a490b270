"""Tests for nlpbias.plotting: the book's style and figure helpers."""

from __future__ import annotations

import io

import matplotlib
import matplotlib.pyplot as plt
import pandas as pd
import pytest
from matplotlib.colors import to_hex
from matplotlib.figure import Figure

from nlpbias import plotting


@pytest.fixture(autouse=True)
def _style() -> None:
    plotting.set_style()


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
    assert [t.get_text() for t in fig.axes[0].get_legend().get_texts()] == ["P", "Q"]
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


def test_length_figure_labels_hue_and_zero_lengths() -> None:
    lengths = pd.DataFrame(
        {"d": ["x"] * 4 + ["y"] * 4, "length": [0, 5, 40, 50, 3, 4, 5, 6],
         "label": [True, True, False, False] * 2}
    )  # fmt: skip
    fig = plotting.length_figure(lengths, by="d")
    assert len(fig.axes) == 2
    legend = [t.get_text() for t in fig.axes[0].get_legend().get_texts()]
    assert sorted(legend) == ["not toxic", "toxic"]
    assert "0 shown as 1" in fig.axes[0].get_xlabel()
    assert "0 shown as 1" not in fig.axes[1].get_xlabel()
    ecdf = plotting.length_figure(lengths, by=None, hue=None, kind="ecdf", log_scale=False)
    assert ecdf.axes[0].get_xscale() == "linear"
    with pytest.raises(ValueError, match="kind"):
        plotting.length_figure(lengths, kind="box")


def test_toxicity_by_length_figure_lines_and_ticks() -> None:
    tbl = pd.DataFrame(
        {
            "subset": ["all texts", "all texts", "gay", "gay"],
            "bucket": [1, 2, 1, 2],
            "bucket_label": ["1–5", "6–9", "1–5", "6–9"],
            "toxic_share": [0.5, 0.25, 0.8, 0.4],
        }
    )
    fig = plotting.toxicity_by_length_figure(tbl, by=None)
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
    fig = plotting.stacked_share_barh(df, y="part", hue="gender", names={"f": "female"})
    bars = fig.axes[0].patches
    assert [round(b.get_width(), 2) for b in bars] == [0.5, 0.3, 0.5, 0.7]  # rows reversed
    assert [round(b.get_x(), 2) for b in bars] == [0.0, 0.0, 0.5, 0.3]
    assert [t.get_text() for t in fig.axes[0].get_legend().get_texts()] == ["female", "m"]


def test_label_balance_figure_uses_label_colours() -> None:
    bal = pd.DataFrame({"dataset": ["d", "d"], "label": [False, True], "share": [0.8, 0.2]})
    fig = plotting.label_balance_figure(bal)
    colours = [to_hex(p.get_facecolor()) for p in fig.axes[0].patches]
    assert colours == [plotting.LABEL_COLOURS[False].lower(), plotting.LABEL_COLOURS[True].lower()]


def test_observed_vs_planted_annotates_points() -> None:
    df = pd.DataFrame({"term": ["a", "b"], "p": [0.2, 0.6], "o": [0.25, 0.55]})
    fig = plotting.observed_vs_planted(df, planted="p", observed="o", name="toxic rate")
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
        plotting.toxicity_by_length_figure(tbl, by=None).savefig(buf, format="png")
        return buf.getvalue()

    assert png() == png()


def test_bad_input_is_one_line() -> None:
    with pytest.raises(TypeError, match="DataFrame") as info:
        plotting.term_frequency_figure([1, 2])
    assert "\n" not in str(info.value)


def test_toxicity_by_length_figure_keeps_a_term_colour_across_panels() -> None:
    # 'gay' is missing from panel A, so a per-panel colour index would shift 'muslim'
    rows = [
        ("A", "all texts", 0.5), ("A", "muslim", 0.4),
        ("B", "all texts", 0.3), ("B", "gay", 0.9), ("B", "muslim", 0.2),
    ]  # fmt: skip
    tbl = pd.DataFrame(rows, columns=["dataset", "subset", "toxic_share"])
    tbl = tbl.assign(bucket=1, bucket_label="1–5")
    fig = plotting.toxicity_by_length_figure(tbl, by="dataset")
    colour = [{ln.get_label(): ln.get_color() for ln in ax.lines} for ax in fig.axes]
    assert colour[0]["muslim"] == colour[1]["muslim"]
    assert colour[1]["gay"] != colour[1]["muslim"]
