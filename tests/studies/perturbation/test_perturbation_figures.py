"""Tests for nlpbias.studies.perturbation.figures (figures of the corpus-perturbation chapter)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from figure_checks import assert_legend_clear, assert_panel_texts_apart, bars, legend_texts
from matplotlib.collections import PathCollection
from matplotlib.container import ErrorbarContainer
from matplotlib.figure import Figure

from nlpbias.studies.perturbation.bias_concentration import even_share
from nlpbias.studies.perturbation.figures import (
    DEVIATION_LABEL,
    EVEN_LABEL,
    KIND_COLOURS,
    baseline_figure,
    cumulative_share_figure,
    delta_b_histogram,
    predicted_vs_actual_figure,
)

REPORTED = {"citation": "x", "concentration": {"top 1%": 0.488, "top 10%": 0.922}}


def _points(ax) -> np.ndarray:
    offsets = [c.get_offsets() for c in ax.collections if type(c) is PathCollection]
    return np.concatenate(offsets) if offsets else np.empty((0, 2))


# -- baseline_figure


def test_baseline_one_bar_per_wordset_with_p_in_label_and_sign_colours() -> None:
    b = pd.DataFrame(
        {"effect_size": [0.6, -0.3, 1.2], "p_value": [0.012, 0.8, 0.0001]},
        index=pd.Index(["sci", "math", "inst"], name="wordset"),
    )
    fig = baseline_figure(b)
    assert isinstance(fig, Figure)
    ax = fig.axes[0]
    assert len(ax.patches) == 3
    # listed top to bottom in the table's order; bar widths are the effect sizes
    labels = [t.get_text() for t in ax.get_yticklabels()][::-1]
    assert labels == ["sci (p = 0.012)", "math (p = 0.8)", "inst (p = 0.0001)"]
    widths = sorted(p.get_width() for p in ax.patches)
    assert widths == pytest.approx([-0.3, 0.6, 1.2])
    negative = [p for p in ax.patches if p.get_width() < 0]
    assert len({p.get_facecolor() for p in negative}) == 1
    assert negative[0].get_facecolor() != ax.patches[0].get_facecolor()


def test_baseline_reads_a_wordset_column_too() -> None:
    b = pd.DataFrame({"wordset": ["a"], "effect_size": [0.1], "p_value": [0.5]})
    assert baseline_figure(b).axes[0].get_yticklabels()[0].get_text() == "a (p = 0.5)"


def test_baseline_missing_column_is_named() -> None:
    with pytest.raises(KeyError, match="p_value"):
        baseline_figure(pd.DataFrame({"effect_size": [0.1]}))


# -- delta_b_histogram


def test_histogram_counts_only_nonzero_documents_per_panel() -> None:
    tables = {
        "a": pd.DataFrame({"delta_b": [0.0, 0.0, 0.1, -0.2, 0.3, 0.0]}),
        "b": pd.DataFrame({"delta_b": [0.5, -0.5, 0.0]}),
    }
    fig = delta_b_histogram(tables, bins=4)
    assert len(fig.axes) == 2
    for ax, n_nonzero, n_all in zip(fig.axes, [3, 2], [6, 3], strict=True):
        assert len(ax.patches) == 4
        assert sum(p.get_height() for p in ax.patches) == n_nonzero  # the zeros are left out
        assert ax.get_yscale() == "log"
        zero_lines = [ln for ln in ax.lines if list(ln.get_xdata()) == [0, 0]]
        assert len(zero_lines) == 1
        assert ax.get_title() == f"{'ab'[fig.axes.index(ax)]}\n{n_nonzero} of {n_all} documents"
    # bins are symmetric around 0: from -max|ΔB| to +max|ΔB|
    left = min(p.get_x() for p in fig.axes[0].patches)
    right = max(p.get_x() + p.get_width() for p in fig.axes[0].patches)
    assert (left, right) == pytest.approx((-0.3, 0.3))


def test_histogram_panel_without_nonzero_documents_says_so() -> None:
    fig = delta_b_histogram({"empty": pd.DataFrame({"delta_b": [0.0, 0.0]})})
    ax = fig.axes[0]
    assert len(ax.patches) == 0
    assert "no documents with ΔB ≠ 0" in ax.texts[0].get_text()


def test_histogram_rejects_bad_input_with_one_line() -> None:
    with pytest.raises(KeyError, match=r"word set 'a'.*delta_b"):
        delta_b_histogram({"a": pd.DataFrame({"delta": [0.1]})})
    with pytest.raises(ValueError, match="at least one word set"):
        delta_b_histogram({})
    with pytest.raises(TypeError, match="mapping"):
        delta_b_histogram(pd.DataFrame({"delta_b": [0.1]}))


# -- cumulative_share_figure


def _solid(ax) -> list:
    return [ln for ln in ax.lines if ln.get_linestyle() == "-" and len(ln.get_xdata())]


def _dotted(ax) -> list:
    return [ln for ln in ax.lines if ln.get_linestyle() == ":" and len(ln.get_xdata())]


def test_cumulative_lines_and_seed_points() -> None:
    tables = {
        "a": pd.DataFrame({"delta_b": [4.0, -3.0, 1.0, 0.0]}),
        "b": pd.DataFrame({"delta_b": [1.0, 1.0]}),
    }
    fig = cumulative_share_figure(tables, REPORTED)
    ax = fig.axes[0]
    assert ax.get_xscale() == "log"
    assert len(_solid(ax)) == 2  # one per word set
    a, b = _solid(ax)
    # sorted by |ΔB|: 4, 3, 1, 0 of a total of 8
    assert list(a.get_xdata()) == pytest.approx([0.25, 0.5, 0.75, 1.0])
    assert list(a.get_ydata()) == pytest.approx([0.5, 0.875, 1.0, 1.0])
    assert list(b.get_ydata()) == pytest.approx([0.5, 1.0])
    assert a.get_label() == "a" and b.get_label() == "b"
    np.testing.assert_allclose(_points(ax), [[0.01, 0.488], [0.1, 0.922]])
    assert not ax.texts  # seed 004's values are in the legend, not written over the curves
    assert "seed 004:\ntop 1% → 48.8%\ntop 10% → 92.2%" in legend_texts(ax)
    assert_legend_clear(fig)


def test_cumulative_draws_the_share_without_concentration_per_word_set() -> None:
    # a: 3 of 4 documents carry ΔB; b: 20 of 1,000 — its top 10 % hold everything even if the
    # 20 carried the same |ΔB| (the mechanical share the old "all documents equal" line hid)
    rng = np.random.default_rng(0)
    tables = {
        "a": pd.DataFrame({"delta_b": [4.0, -3.0, 1.0, 0.0]}),
        "b": pd.DataFrame({"delta_b": np.r_[rng.uniform(0.1, 1, 20), np.zeros(980)]}),
    }
    ax = cumulative_share_figure(tables, REPORTED).axes[0]
    solid, dotted = _solid(ax), _dotted(ax)
    assert len(dotted) == 2
    for line, even, (name, table) in zip(solid, dotted, tables.items(), strict=True):
        assert even.get_color() == line.get_color()  # the word set's colour
        x, y = np.asarray(even.get_xdata()), np.asarray(even.get_ydata())
        d = table["delta_b"].to_numpy()
        np.testing.assert_allclose(x, np.arange(1, d.size + 1) / d.size)
        # at every drawn fraction the line is even_share there
        for q in (0.01, 0.1, 0.5):
            k = max(1, int(np.floor(q * d.size)))
            assert y[k - 1] == pytest.approx(even_share(d, tops=[q]).iloc[0]), name
    assert list(dotted[0].get_ydata()) == pytest.approx([1 / 3, 2 / 3, 1.0, 1.0])
    b = np.asarray(dotted[1].get_ydata())
    assert b[9] == pytest.approx(10 / 20) and b[99] == pytest.approx(1.0)
    # one legend entry for all of them, not one per word set; the y = x line is gone
    texts = legend_texts(ax)
    assert texts.count(EVEN_LABEL) == 1 and not any(t.startswith("_") for t in texts)
    assert "all documents equal" not in texts


def test_cumulative_accepts_a_plain_mapping_of_points() -> None:
    tables = {"a": pd.DataFrame({"delta_b": [1.0, 2.0]})}
    ax = cumulative_share_figure(tables, {"top 10%": 0.9}).axes[0]
    np.testing.assert_allclose(_points(ax), [[0.1, 0.9]])


def test_cumulative_rejects_bad_input_with_one_line() -> None:
    good = {"a": pd.DataFrame({"delta_b": [1.0]})}
    with pytest.raises(KeyError, match="delta_b"):
        cumulative_share_figure({"a": pd.DataFrame({"x": [1.0]})}, REPORTED)
    with pytest.raises(ValueError, match="top N%"):
        cumulative_share_figure(good, {"citation": "x"})
    with pytest.raises(TypeError, match="mapping"):
        cumulative_share_figure(good, [0.488])


# -- predicted_vs_actual_figure


def _validation() -> pd.DataFrame:
    return pd.DataFrame(
        {
            "kind": ["increasing", "decreasing", "random", "random"],
            "n_documents": [10, 10, 10, 10],
            "predicted": [1.0, -1.0, 0.1, -0.1],
            "actual": [0.8, -0.9, 0.0, 0.1],
            "actual_sd": [0.1, np.nan, 0.05, 0.05],
        },
        index=pd.Index(["increasing 10", "decreasing 10", "random 10 #1", "random 10 #2"]),
    )


def test_predicted_vs_actual_points_colours_errorbars_diagonal_and_r() -> None:
    fig = predicted_vs_actual_figure(_validation())
    ax = fig.axes[0]
    scatters = [c for c in ax.collections if type(c) is PathCollection]
    assert len(scatters) == 3  # one per kind
    assert len(_points(ax)) == 4
    colours = {c.get_label(): tuple(c.get_facecolor()[0]) for c in scatters}
    from matplotlib.colors import to_rgba

    assert colours == {k: to_rgba(v) for k, v in KIND_COLOURS.items()}
    # error bars only where actual_sd is finite: 1 increasing + 2 random, none for decreasing
    bars = [c for c in ax.containers if isinstance(c, ErrorbarContainer)]
    assert sorted(len(c.lines[2][0].get_segments()) for c in bars) == [1, 2]
    diagonal = [ln for ln in ax.lines if ln.get_label() == "actual = predicted"]
    assert len(diagonal) == 1
    x, y = diagonal[0].get_data()
    assert list(x) == list(y)
    # by hand: Σpa = 0.8 + 0.9 + 0 − 0.01 = 1.69, Σp² = 2.02, Σ(a − ā)² = 1.46 (ā = 0)
    r = 1.69 / np.sqrt(2.02 * 1.46)
    assert f"Pearson r = {r:.2f} (4 sets)" == "Pearson r = 0.98 (4 sets)"
    assert "Pearson r = 0.98 (4 sets)" in [t.get_text() for t in ax.texts]
    assert [t.get_text() for t in ax.texts].count("n = 10") == 4  # set sizes beside the points
    assert_legend_clear(fig)


def test_predicted_vs_actual_without_sd_and_with_two_sets() -> None:
    v = _validation().drop(columns=["actual_sd", "n_documents"]).iloc[:2]
    ax = predicted_vs_actual_figure(v).axes[0]
    assert not ax.containers
    assert [t.get_text() for t in ax.texts] == ["Pearson r undefined (2 sets)"]


def test_predicted_vs_actual_draws_the_random_sets_deviation() -> None:
    from matplotlib.collections import LineCollection

    v = _validation().assign(seeds=1).drop(columns="actual_sd")
    ax = predicted_vs_actual_figure(v).axes[0]
    segments = [c for c in ax.collections if type(c) is LineCollection]
    assert len(segments) == 1 and segments[0].get_label() == DEVIATION_LABEL
    # from each random set's prediction on the diagonal to its actual change
    drawn = sorted(map(tuple, (tuple(map(tuple, seg)) for seg in segments[0].get_segments())))
    assert drawn == sorted([((0.1, 0.1), (0.1, 0.0)), ((-0.1, -0.1), (-0.1, 0.1))])
    assert DEVIATION_LABEL in legend_texts(ax)
    # one seed: the label says so, no "mean over seeds"
    assert ax.get_ylabel() == "actual ΔB (retrained, one seed)"
    ax = predicted_vs_actual_figure(v.assign(seeds=3)).axes[0]
    assert ax.get_ylabel() == "actual ΔB (retrained, mean over 3 seeds)"
    ax = predicted_vs_actual_figure(v[v["kind"] != "random"]).axes[0]
    assert not [c for c in ax.collections if type(c) is LineCollection]
    assert DEVIATION_LABEL not in legend_texts(ax)


def test_predicted_vs_actual_missing_column_is_named() -> None:
    with pytest.raises(KeyError, match="actual"):
        predicted_vs_actual_figure(_validation().drop(columns=["actual"]))


def test_cumulative_fraction_axis_labels_small_percentages() -> None:
    ax = cumulative_share_figure({"a": pd.DataFrame({"delta_b": [1.0, 2.0]})}, REPORTED).axes[0]
    fmt = ax.xaxis.get_major_formatter()
    assert [fmt(v, 0) for v in (0.001, 0.01, 1.0)] == ["0.1%", "1%", "100%"]


def test_figures_name_word_sets_by_their_titles() -> None:
    b = pd.DataFrame(
        {"effect_size": [-0.3, -0.9], "p_value": [0.72, 0.95]},
        index=pd.Index(["science_arts", "caliskan_weat7"], name="wordset"),
    )
    ax = baseline_figure(b).axes[0]
    labels = [t.get_text() for t in ax.get_yticklabels()][::-1]
    assert labels == [
        "Science vs arts\n× male vs female terms (p = 0.72)",
        "WEAT 7: math vs arts\n× male vs female terms (p = 0.95)",
    ]
    assert sorted(bars(ax)["value"]) == pytest.approx([-0.9, -0.3])
    tables = {"caliskan_weat7": pd.DataFrame({"delta_b": [0.1, -0.2, 0.0]})}
    title = delta_b_histogram(tables).axes[0].get_title()
    assert title.startswith("WEAT 7: math vs arts") and "caliskan" not in title
    three = {n: pd.DataFrame({"delta_b": np.linspace(-0.25, 0.2, 50) ** 3})
             for n in ["science_arts", "caliskan_weat7", "caliskan_weat8"]}  # fmt: skip
    assert_panel_texts_apart(delta_b_histogram(three))
    fmt = delta_b_histogram(tables).axes[0].yaxis.get_major_formatter()
    assert [fmt(v, 0) for v in (1, 100)] == ["1", "100"]
    ax = cumulative_share_figure(tables, REPORTED).axes[0]
    assert legend_texts(ax)[0] == "WEAT 7: math vs arts\n× male vs female terms"


# -- issue 29: figures of seed 004's questions


def _dots(ax) -> dict[str, list[tuple[float, float]]]:
    """The dots of each legend entry of an effect_size_figure: (x, y) pairs."""
    out = {}
    for c in ax.containers:
        if isinstance(c, ErrorbarContainer):
            line = c.lines[0]
            out[c.get_label()] = list(
                zip(
                    np.asarray(line.get_xdata(), float),
                    np.asarray(line.get_ydata(), float),
                    strict=True,
                )
            )
    return out


def test_intersectional_figure_draws_each_axis_and_says_not_testable() -> None:
    from nlpbias.studies.perturbation.figures import AXIS_LABELS, intersectional_figure

    idx = pd.MultiIndex.from_product(
        [["t1", "t2"], ["intersectional", "race", "gender"]], names=["test", "axis"]
    )
    e = pd.DataFrame(
        {
            "effect_size": [1.2, 0.5, 0.9, np.nan, 0.3, 0.2],
            "ci_low": [1.0, 0.2, 0.6, np.nan, 0.1, 0.0],
            "ci_high": [1.4, 0.8, 1.1, np.nan, 0.5, 0.4],
        },
        index=idx,
    )
    fig = intersectional_figure(e, names=str)
    ax = fig.axes[0]
    dots = _dots(ax)
    assert set(dots) == set(AXIS_LABELS.values())
    xs = {k: [x for x, _ in v if np.isfinite(x)] for k, v in dots.items()}
    assert xs[AXIS_LABELS["intersectional"]] == [1.2]
    assert xs[AXIS_LABELS["race"]] == [0.5, 0.3]
    assert xs[AXIS_LABELS["gender"]] == [0.9, 0.2]
    assert [t.get_text().strip() for t in ax.texts] == ["not testable here"]
    assert [t.get_text() for t in ax.get_yticklabels()] == ["t1", "t2"]
    assert {t.get_text() for t in fig.legends[0].get_texts()} == set(AXIS_LABELS.values())


def test_correlation_figure_is_the_symmetric_matrix_grouped_by_area() -> None:
    from nlpbias.studies.perturbation.figures import correlation_figure

    idx = pd.MultiIndex.from_tuples(
        [("g1", "r1"), ("g1", "g2"), ("r1", "g2")], names=["test_a", "test_b"]
    )
    p = pd.DataFrame(
        {"area_a": ["gender", "gender", "race"], "area_b": ["race", "gender", "gender"],
         "pearson": [0.05, 0.4, np.nan]}, index=idx,
    )  # fmt: skip
    fig = correlation_figure(p, names=str)
    ax = fig.axes[0]
    rows = [t.get_text() for t in ax.get_yticklabels()]
    assert rows == ["(1) [gender] g1", "(2) [gender] g2", "(3) [race] r1"]  # grouped by area
    assert [t.get_text() for t in ax.get_xticklabels()] == ["(1)", "(2)", "(3)"]
    mesh = ax.collections[0].get_array().reshape(3, 3)
    expected = np.array([[1, 0.4, 0.05], [0.4, 1, np.nan], [0.05, np.nan, 1]])
    np.testing.assert_allclose(np.ma.filled(mesh.astype(float), np.nan), expected)


def test_reduction_figure_draws_the_deltas_and_the_posters_row() -> None:
    from nlpbias.studies.perturbation.figures import reduction_figure

    idx = pd.MultiIndex.from_tuples(
        [("reduced", "a"), ("reduced", "b"), ("random", "a"), ("random", "b")],
        names=["reduction", "wordset"],
    )
    t = pd.DataFrame({"delta_effect_sizes": [0.4, 0.2, 0.05, -0.1]}, index=idx)
    rows = {
        f"WEAT {k}": {"delta_effect_sizes": v} for k, v in zip("ABC", [0.1, 0.3, 0.5], strict=True)
    }
    fig = reduction_figure(t, {"table6": {"rows": rows}}, names=str)
    dots = _dots(fig.axes[0])
    assert [x for x, _ in dots["this book: top documents removed"]] == [0.4, 0.2]
    assert [x for x, _ in dots["this book: random documents removed"]] == [0.05, -0.1]
    poster = dots["seed 004: reduced NYT corpus"]
    assert [x for x, _ in poster] == [0.1, 0.3, 0.5]
    assert len({round(y, 6) for _, y in poster}) == 1  # one row for the 14 unidentified tests


def test_prediction_figure_draws_both_aucs_with_chance() -> None:
    from nlpbias.studies.perturbation.figures import prediction_figure

    r = pd.DataFrame(
        {"auc_baseline": [0.6, 0.7], "auc_baseline_low": [0.5, 0.6],
         "auc_baseline_high": [0.7, 0.8], "auc_model": [0.8, np.nan],
         "auc_model_low": [0.7, np.nan], "auc_model_high": [0.9, np.nan]},
        index=pd.Index(["a", "b"], name="test"),
    )  # fmt: skip
    r.attrs["top"] = 0.05
    fig = prediction_figure(r, names=str)
    ax = fig.axes[0]
    dots = _dots(ax)
    assert [x for x, _ in dots["count of the test's words"]] == [0.6, 0.7]
    assert [x for x, _ in dots["trees on all features"] if np.isfinite(x)] == [0.8]
    assert "top 5 %" in ax.get_title()
    assert any(np.allclose(line.get_xdata(), 0.5) for line in ax.lines)
    assert ax.get_xlim()[0] <= 0.45


def test_corpora_figure_leaves_out_tests_no_corpus_can_test() -> None:
    from nlpbias.studies.perturbation.figures import corpora_figure

    idx = pd.MultiIndex.from_product([["old", "new"], ["x", "y", "z"]], names=["corpus", "wordset"])
    c = pd.DataFrame(
        {"effect_size": [0.5, np.nan, np.nan, 0.7, 0.2, np.nan],
         "ci_low": [0.2, np.nan, np.nan, 0.4, 0.0, np.nan],
         "ci_high": [0.8, np.nan, np.nan, 1.0, 0.4, np.nan]}, index=idx,
    )  # fmt: skip
    ax = corpora_figure(c, names=str).axes[0]
    assert [t.get_text() for t in ax.get_yticklabels()] == ["x", "y"]
    dots = _dots(ax)
    assert [x for x, _ in dots["old"] if np.isfinite(x)] == [0.5]
    assert [x for x, _ in dots["new"]] == [0.7, 0.2]
    assert [t.get_text().strip() for t in ax.texts] == ["not testable here"]
