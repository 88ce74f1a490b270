"""Effect-size and association figures."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

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
    assert [t.get_text() for t in ax.get_legend().get_texts()] == ["glove", "w2v", "paper"]


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
