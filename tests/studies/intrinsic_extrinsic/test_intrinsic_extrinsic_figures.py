"""Tests for nlpbias.studies.intrinsic_extrinsic.figures."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from figure_checks import assert_legend_clear, legend_texts

from nlpbias.studies.intrinsic_extrinsic.figures import (
    METHOD_LABELS,
    RHO_LABELS,
    intrinsic_extrinsic_figure,
    rho_vs_paper_figure,
    score_label,
)


def _scores() -> pd.DataFrame:
    rows = [{"method": "original", "modset": np.nan, "x": 0.0, "y": 0.0, "sd": 0.3}]
    rows += [
        {"method": "balance", "modset": "extracted", "x": i, "y": 2 * i, "sd": np.nan}
        for i in range(1, 4)
    ]
    rows += [
        {"method": "attract_repel", "modset": "weat", "x": -i, "y": i, "sd": np.nan}
        for i in range(1, 3)
    ]
    df = pd.DataFrame(rows).rename(
        columns={"x": "intrinsic:extracted:weat", "y": "extrinsic:g", "sd": "extrinsic_sd:g"}
    )
    return df.assign(family="coref", algorithm="word2vec")


PANEL = {
    "family": "coref",
    "algorithm": "word2vec",
    "modset": "extracted",
    "x": "intrinsic:extracted:weat",
    "y": "extrinsic:g",
}


def test_panel_shows_the_original_and_its_modset_only_with_error_bars() -> None:
    fig = intrinsic_extrinsic_figure(_scores(), [PANEL])
    ax = fig.axes[0]
    from matplotlib.collections import PathCollection

    n_points = sum(len(c.get_offsets()) for c in ax.collections if type(c) is PathCollection)
    assert n_points == 1 + 3  # the original + 3 balanced, not the Attract-Repel 'weat' ones
    assert len(ax.containers) == 1  # one errorbar container, for the original
    assert "ρ = 1.00 (n = 4)" in ax.get_title()  # in the title, not over the points
    assert ax.get_xlabel() == "WEAT effect size d, extracted word sets"


def test_panels_share_one_legend_below_that_covers_no_point() -> None:
    fig = intrinsic_extrinsic_figure(_scores(), [PANEL, dict(PANEL, modset="weat")], ncols=2)
    assert all(ax.get_legend() is None for ax in fig.axes)
    assert legend_texts(fig.axes[0]) == ["original", "balancing", "Attract-Repel"]
    assert_legend_clear(fig)


def test_a_column_measured_on_no_embedding_gives_an_na_panel_not_a_key_error() -> None:
    # paper-smoke: a word set out of every tiny embedding's vocabulary raised a KeyError
    scores = _scores().assign(**{"intrinsic:extracted:weat": np.nan})
    fig = intrinsic_extrinsic_figure(scores, [PANEL, dict(PANEL, y="extrinsic:nope")])
    for ax in fig.axes:
        (text,) = [t.get_text() for t in ax.texts]
        assert text.startswith("n/a: WEAT effect size d, extracted word sets")
        assert "measured on no embedding" in text
        assert not ax.collections  # nothing drawn as if measured
    with pytest.raises(KeyError, match="method"):
        intrinsic_extrinsic_figure(_scores().drop(columns="method"), [PANEL])


def test_points_without_a_value_are_left_out_of_n() -> None:
    scores = _scores()
    scores.loc[1, "intrinsic:extracted:weat"] = np.nan
    ax = intrinsic_extrinsic_figure(scores, [PANEL]).axes[0]
    assert "(n = 3)" in ax.get_title()  # the original + 2 measured, not 4


def test_rho_vs_paper_skips_cells_without_both_values() -> None:
    t = pd.DataFrame(
        {
            "rho": [0.5, np.nan, 0.2],
            "paper rho": [0.9, 0.1, np.nan],
            "wordset kind": ["extracted", "WEAT", "WEAT"],
        }
    )
    fig = rho_vs_paper_figure(t)
    ax = fig.axes[0]
    assert sum(len(c.get_offsets()) for c in ax.collections) == 1  # only the complete row
    assert_legend_clear(fig)


def test_rho_vs_paper_legend_names_every_mark_in_words_and_the_title_counts_cells() -> None:
    # the legend listed "WEAT" and "extracted" (ids) and not the diagonal drawn as reference
    t = pd.DataFrame(
        {"rho": [0.5, 0.4, 0.1], "paper rho": [0.9, 0.8, -0.1],
         "wordset kind": ["extracted", "extracted", "WEAT"]}
    )  # fmt: skip
    fig = rho_vs_paper_figure(t)
    ax = fig.axes[0]
    texts = legend_texts(ax)
    assert texts == [
        "generic WEAT sets (1 cell)",
        "aligned (extracted) word sets (2 cells)",
        "ρ here = ρ in the paper",
    ]
    drawn = [c for c in ax.collections if len(c.get_offsets())] + [
        line for line in ax.lines if not line.get_label().startswith("_")
    ]
    assert len(drawn) == len(texts)  # one entry per kind of mark drawn
    assert ax.get_title().endswith("(3 cells)")


def test_labels_name_methods_summary_columns_and_scores() -> None:
    assert METHOD_LABELS["attract_repel"] == "Attract-Repel"
    assert RHO_LABELS["weat_extracted_rho"] == "WEAT, extracted word sets"
    assert score_label("extrinsic:dialect_f1") == "F1 gap (white- − AA-aligned)"
    assert score_label("something") == "something"


def test_panel_titles_name_the_family_in_words() -> None:
    from nlpbias.studies.intrinsic_extrinsic.figures import FAMILY_LABELS

    assert FAMILY_LABELS == {
        "coref": "coreference, gender",
        "hsd_gender": "hate speech, gender",
        "hsd_race": "hate speech, race",
    }
    ax = intrinsic_extrinsic_figure(_scores(), [PANEL]).axes[0]
    assert ax.get_title().startswith("coreference, gender, word2vec\n")


def _offsets(ax) -> np.ndarray:
    """The (x, y) of every scatter point drawn in ``ax``, sorted by x then y."""
    from matplotlib.collections import PathCollection

    pts = [c.get_offsets() for c in ax.collections if type(c) is PathCollection]
    arr = np.concatenate([np.asarray(p, float) for p in pts]) if pts else np.empty((0, 2))
    return arr[np.lexsort((arr[:, 1], arr[:, 0]))]


def _expected(frame: pd.DataFrame, x: str, y: str) -> np.ndarray:
    arr = frame[[x, y]].dropna().to_numpy(float)
    return arr[np.lexsort((arr[:, 1], arr[:, 0]))]


def test_figure1_row_draws_weat_left_and_rnsb_right_at_the_frames_values() -> None:
    from nlpbias.studies.intrinsic_extrinsic.paper import figure1_panels

    scores = _scores()
    # RNSB that does not follow WEAT, so a mix-up of the columns would show
    scores["intrinsic:extracted:rnsb"] = [0.05, -0.2, 0.4, 0.1, 0.3, -0.3]
    scores["extrinsic:type1_f1"] = [0.1, 0.3, 0.2, 0.5, 0.0, 0.6]
    scores["extrinsic_sd:type1_f1"] = [0.04, np.nan, np.nan, np.nan, np.nan, np.nan]
    (panel,) = figure1_panels(scores, ["coref"])
    fig = intrinsic_extrinsic_figure(scores, [panel])
    weat_ax, rnsb_ax = fig.axes
    shown = scores[(scores["method"] == "original") | (scores["modset"] == "extracted")]
    y = "extrinsic:type1_f1"
    np.testing.assert_allclose(_offsets(weat_ax), _expected(shown, "intrinsic:extracted:weat", y))
    np.testing.assert_allclose(_offsets(rnsb_ax), _expected(shown, "intrinsic:extracted:rnsb", y))
    assert weat_ax.get_xlabel() == "WEAT effect size d, extracted word sets"
    assert rnsb_ax.get_xlabel() == "RNSB, extracted word sets"
    assert weat_ax.get_ylim() == rnsb_ax.get_ylim()  # one y axis per row
    # the original's error bars (±1 SD) in both panels, centred on its point
    for ax, x in ((weat_ax, "intrinsic:extracted:weat"), (rnsb_ax, "intrinsic:extracted:rnsb")):
        (container,) = ax.containers
        (bar,) = container.lines[2]
        (seg,) = bar.get_segments()
        np.testing.assert_allclose(seg, [[0.0 if "weat" in x else 0.05, 0.06],
                                         [0.0 if "weat" in x else 0.05, 0.14]])  # fmt: skip
    rho_rnsb = shown[["intrinsic:extracted:rnsb", y]].rank().corr().iloc[0, 1]
    assert f"ρ = {rho_rnsb:.2f} (n = 4)" in rnsb_ax.get_title()
    assert_legend_clear(fig)


def test_rows_of_several_panels_keep_their_own_y_axis_and_an_na_rnsb_leaves_weat_drawn() -> None:
    scores = _scores()
    scores["intrinsic:extracted:rnsb"] = np.nan  # RNSB measured on no embedding
    other = _scores().assign(algorithm="fasttext")
    other["extrinsic:g"] *= 10
    other["intrinsic:extracted:rnsb"] = other["intrinsic:extracted:weat"] / 2
    both = pd.concat([scores, other], ignore_index=True)
    beside = dict(PANEL, beside=["intrinsic:extracted:rnsb"])
    fig = intrinsic_extrinsic_figure(both, [beside, dict(beside, algorithm="fasttext")])
    assert len(fig.axes) == 4
    w1, r1, w2, r2 = fig.axes
    assert len(_offsets(w1)) == 4 and len(w1.get_yticks()) > 0  # WEAT drawn, ticks kept
    assert [t.get_text() for t in r1.texts][0].startswith("n/a: RNSB, extracted word sets")
    assert w2.get_ylim() == r2.get_ylim() and w2.get_ylim()[1] > w1.get_ylim()[1]
    assert r2.get_ylabel() == "" and w2.get_ylabel() == "extrinsic:g"
