"""Tests for nlpbias.plotting.bars: the drawn bars equal the data, and no legend hides a bar."""

from __future__ import annotations

import pandas as pd
import pytest
from figure_checks import (
    assert_legend_clear,
    assert_no_hidden_bars,
    assert_panel_texts_apart,
    bars,
    legend_texts,
)

from nlpbias import plotting


def _three_groups() -> pd.DataFrame:
    """The pinned-AUC chapter's figure: four metrics per group, three groups (hue)."""
    values = {
        "tall": [0.80, 0.81, 0.85, 0.76],
        "average": [0.79, 0.80, 0.84, 0.75],
        "short": [0.78, 0.62, 0.55, 0.93],
    }
    metrics = ["subgroup AUC", "pinned AUC", "BPSN AUC", "BNSP AUC"]
    return pd.DataFrame(
        [
            {"metric": m, "term": g, "AUC": v}
            for g, vs in values.items()
            for m, v in zip(metrics, vs, strict=True)
        ]
    )


def test_barh_with_hue_draws_every_group_at_its_own_position() -> None:
    df = _three_groups()
    fig = plotting.barh(df, x="AUC", y="metric", hue="term")
    ax = fig.axes[0]
    drawn = bars(ax)
    assert len(drawn) == len(df)  # one bar per row
    assert_no_hidden_bars(ax)  # dodge=False painted tall and average behind short
    got = {(r.label, r.hue): r.value for r in drawn.itertuples()}
    want = {(r.metric, r.term): r.AUC for r in df.itertuples()}
    assert got == pytest.approx(want)  # every (metric, group) drawn with its own length
    assert legend_texts(ax) == ["tall", "average", "short"]
    assert_legend_clear(fig)


def test_barh_old_dodge_false_is_caught_by_the_checks() -> None:
    """The checks fail on bars drawn as the old barh drew them (dodge=False, legend inside)."""
    import seaborn as sns

    df = _three_groups()
    fig, (ax,) = plotting.new_figure(1, width=8.0, height=2.5)
    sns.barplot(data=df, x="AUC", y="metric", hue="term", ax=ax, orient="h", dodge=False,
                errorbar=None)  # fmt: skip
    ax.legend(title="term", loc="best")
    with pytest.raises(AssertionError, match="drawn over each other"):
        assert_no_hidden_bars(ax)
    with pytest.raises(AssertionError, match="covers bar"):
        assert_legend_clear(fig)


def test_barh_hue_that_only_colours_keeps_one_full_bar_per_row() -> None:
    df = pd.DataFrame(
        {"name": ["a", "b", "c"], "mb": [3.0, 40.0, 0.5], "have": [True, False, True]}
    )
    fig = plotting.barh(df, x="mb", y="name", hue="have", names={True: "yes", False: "no"},
                        legend_title="on this machine")  # fmt: skip
    ax = fig.axes[0]
    drawn = bars(ax)
    assert len(drawn) == 3  # one bar per row, not one per (row, hue value)
    assert {r.label: (r.value, r.hue) for r in drawn.itertuples()} == {
        "a": (3.0, "yes"), "b": (40.0, "no"), "c": (0.5, "yes")
    }  # fmt: skip
    assert (drawn["high"] - drawn["low"]).round(6).nunique() == 1  # all as thick as one row
    assert legend_texts(ax) == ["yes", "no"]
    assert ax.get_legend().get_title().get_text() == "on this machine"
    assert_no_hidden_bars(ax)
    assert_legend_clear(fig)


def test_barh_names_relabel_rows_and_keep_their_order() -> None:
    df = pd.DataFrame({"metric": ["bpsn_auc", "pinned_auc"], "AUC": [0.6, 0.7]})
    fig = plotting.barh(df, x="AUC", y="metric", names={"bpsn_auc": "BPSN AUC"})
    assert [t.get_text() for t in fig.axes[0].get_yticklabels()] == ["BPSN AUC", "pinned_auc"]
    assert list(bars(fig.axes[0])["value"]) == pytest.approx([0.6, 0.7])


def test_barh_log_axis_starts_at_a_power_of_ten_with_plain_ticks() -> None:
    df = pd.DataFrame({"part": ["a", "b"], "rows": [4000, 10000]})
    ax = plotting.barh(df, x="rows", y="part", log=True, xlabel="rows (log scale)").axes[0]
    assert ax.get_xscale() == "log" and ax.get_xlim()[0] == pytest.approx(1000)
    fmt = ax.xaxis.get_major_formatter()
    assert [fmt(v, 0) for v in (1000, 10000)] == ["1,000", "10,000"]
    assert sorted(bars(ax)["end"]) == pytest.approx([4000, 10000])


def test_barh_with_a_missing_hue_value_in_a_row_still_shows_the_others() -> None:
    df = pd.DataFrame({"row": ["r1", "r1", "r2"], "kind": ["k1", "k2", "k2"], "v": [1.0, 2.0, 3.0]})
    fig = plotting.barh(df, x="v", y="row", hue="kind")
    drawn = bars(fig.axes[0])
    assert {(r.label, r.hue): r.value for r in drawn.itertuples()} == {
        ("r1", "k1"): 1.0, ("r1", "k2"): 2.0, ("r2", "k2"): 3.0
    }  # fmt: skip
    assert_no_hidden_bars(fig.axes[0])
    assert_legend_clear(fig)


def test_paired_barh_bars_equal_the_columns_and_the_legend_is_below() -> None:
    df = pd.DataFrame(
        {"d": ["x", "x", "y"], "term": ["a", "b", "a"], "p": [0.1, 0.2, 0.3], "q": [0.4, 0.5, 0.6]}
    )
    fig = plotting.paired_barh(df, y="term", x=["p", "q"], labels=["P", "Q"], by="d")
    for ax, part in zip(fig.axes, ["x", "y"], strict=True):
        drawn = bars(ax)
        sub = df[df["d"] == part]
        want = {(t, "P"): p for t, p in zip(sub["term"], sub["p"], strict=True)}
        want |= {(t, "Q"): q for t, q in zip(sub["term"], sub["q"], strict=True)}
        assert {(r.label, r.hue): r.value for r in drawn.itertuples()} == pytest.approx(want)
        assert_no_hidden_bars(ax)
        assert ax.get_legend() is None
    assert legend_texts(fig.axes[0]) == ["P", "Q"]
    assert_legend_clear(fig)
    assert_panel_texts_apart(fig)


def test_barh_names_each_part_of_a_joined_row_label() -> None:
    df = pd.DataFrame({"family": ["coref"], "metric": ["weat_extracted_rho"], "rho": [0.5]})
    fig = plotting.barh(df, x="rho", y=["family", "metric"],
                        names={"weat_extracted_rho": "WEAT, extracted word sets"})  # fmt: skip
    assert [t.get_text() for t in fig.axes[0].get_yticklabels()] == [
        "coref: WEAT, extracted word sets"
    ]


def _row_of_text(fig, text: str) -> str:  # noqa: ANN001 -- a matplotlib Figure
    """The y tick label nearest the text's anchor."""
    ax = fig.axes[0]
    (note,) = [t for t in ax.texts if t.get_text() == text]
    ticks = ax.get_yticks()
    labels = [t.get_text() for t in ax.get_yticklabels()]
    return labels[int(abs(ticks - note.xy[1]).argmin())]


def test_barh_writes_the_value_of_bars_too_short_to_see_and_na_for_missing() -> None:
    # LOGAN's rows per group on paper: 2 'unknown' rows among 4,000 draw no visible bar
    df = pd.DataFrame({"g": ["a", "b", "c", "d"], "n": [4000.0, float("nan"), 0.0, 2.0]})
    fig = plotting.barh(df, x="n", y="g")
    assert sorted(t.get_text() for t in fig.axes[0].texts) == ["0", "2", "n/a"]
    assert _row_of_text(fig, "n/a") == "b"
    assert _row_of_text(fig, "0") == "c"
    assert _row_of_text(fig, "2") == "d"
    long_bars = plotting.barh(df.iloc[[0]], x="n", y="g")
    assert len(long_bars.axes[0].texts) == 0  # a visible bar carries no text


def test_barh_value_text_of_a_dodged_bar_sits_at_its_own_bar() -> None:
    df = pd.DataFrame(
        {"row": ["r1", "r1", "r2", "r2"], "kind": ["k1", "k2", "k1", "k2"],
         "v": [1.0, float("nan"), 0.0, 2.0]}
    )  # fmt: skip
    fig = plotting.barh(df, x="v", y="row", hue="kind")
    drawn = bars(fig.axes[0]).set_index(["label", "hue"])
    centre = (drawn["low"] + drawn["high"]) / 2
    notes = {t.get_text(): t.xy[1] for t in fig.axes[0].texts}
    assert notes["0"] == pytest.approx(centre[("r2", "k1")])  # on the zero bar itself
    # the missing k2 bar of r1: the other half of r1 from its k1 bar, same offset as in r2
    assert notes["n/a"] == pytest.approx(centre[("r2", "k2")] - 1.0)
    assert notes["n/a"] != pytest.approx(centre[("r1", "k1")])


def test_paired_barh_percent_ticks_do_not_run_into_each_other() -> None:
    # the identity-term figure on paper: shares up to 1.5 %, ticks 0.00% … 1.50% collided
    terms = [f"term {i}" for i in range(10)]
    df = pd.DataFrame(
        {"term": terms, "toxic": [0.0005 + 0.0015 * i for i in range(10)],
         "all": [0.0004 + 0.0014 * i for i in range(10)]}
    )  # fmt: skip
    fig = plotting.paired_barh(df, y="term", x=["toxic", "all"], by=None)
    assert_panel_texts_apart(fig)
    assert len(fig.axes[0].get_xticks()) <= 7
