"""Per-term and per-seed figures of the Dixon study."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from figure_checks import assert_legend_clear, assert_panel_texts_apart, legend_texts

from nlpbias.studies.pinned_auc import figures as plotting


def test_per_term_figure_one_panel_per_metric_dots_per_family_and_reference_line() -> None:
    df = pd.DataFrame({"term": ["gay", "gay", "old", "old"], "family": ["a", "b", "a", "b"],
                       "fpr": [0.5, 0.2, 0.1, 0.1], "fnr": [0.0, 0.1, 0.3, 0.2]})  # fmt: skip
    fig = plotting.per_term_figure(df, metrics=["fpr", "fnr"], reference={"fpr": 0.15})
    assert len(fig.axes) == 2
    fpr_ax = fig.axes[0]
    a_dots = fpr_ax.collections[0].get_offsets()
    assert a_dots.tolist() == [[0.5, 0], [0.1, 1]]  # family a: gay at row 0, old at row 1
    assert [ln.get_xdata()[0] for ln in fpr_ax.lines] == [0.15]
    assert not fig.axes[1].lines  # no reference for fnr


def test_seed_dots_figure_draws_models_means_and_paper() -> None:
    df = pd.DataFrame({"family": ["a", "a", "b", "b"], "FPED": [1.0, 3.0, 0.5, 0.7]})
    summary = pd.DataFrame({"family": ["a", "b"], "metric": "FPED", "mean": [2.0, 0.6],
                            "ci_low": [1.0, 0.5], "ci_high": [3.0, 0.7]})  # fmt: skip
    paper = pd.DataFrame({"family": ["a"], "metric": ["FPED"], "value": [2.5]})
    ax = plotting.seed_dots_figure(df, metrics=["FPED"], summary=summary, reference=paper).axes[0]
    dots = ax.collections[0].get_offsets()
    assert sorted(dots[:, 0].tolist()) == [0.5, 0.7, 1.0, 3.0]
    assert np.allclose(ax.containers[0].lines[0].get_xdata(), [2.0, 0.6])
    assert ax.collections[-1].get_offsets().tolist() == [[2.5, 0]]
    with pytest.raises(KeyError, match="FNED"):
        plotting.seed_dots_figure(df, metrics=["FNED"])


def _per_term() -> pd.DataFrame:
    terms = [f"t{i}" for i in range(10)]
    rng = np.random.default_rng(0)
    return pd.DataFrame(
        [
            {"term": t, "family": f, "fpr": rng.uniform(), "pinned_auc": rng.uniform(0.9, 1.0)}
            for f in ["baseline", "random control", "bias mitigated"]
            for t in terms
        ]
    )


def test_per_term_figure_every_dot_at_its_term_readable_axes_and_legend_below() -> None:
    df = _per_term()
    fig = plotting.per_term_figure(df, metrics=["fpr", "pinned_auc"], reference={"fpr": 0.4})
    for ax, metric in zip(fig.axes, ["fpr", "pinned_auc"], strict=True):
        pos = {t: i for i, t in enumerate(dict.fromkeys(df["term"]))}
        for coll, family in zip(ax.collections, dict.fromkeys(df["family"]), strict=True):
            sub = df[df["family"] == family]
            want = np.column_stack([sub[metric], sub["term"].map(pos)])
            np.testing.assert_allclose(coll.get_offsets(), want)  # one dot per row, in place
    assert [ax.get_xlabel() for ax in fig.axes] == ["false positive rate", "pinned AUC"]
    assert sorted(fig.axes[0].get_ylim()) == [-0.5, 9.5]
    assert legend_texts(fig.axes[0]) == ["baseline", "random control", "bias mitigated", "overall"]
    assert_legend_clear(fig)
    three = plotting.per_term_figure(
        df.assign(fnr=df["fpr"] / 10), metrics=["fpr", "fnr", "pinned_auc"]
    )  # three narrow panels, as in the chapter
    assert_panel_texts_apart(three)


def test_seed_dots_figure_legend_below_covers_no_mark() -> None:
    df = pd.DataFrame({"family": ["a", "a", "b", "b"], "PAED": [0.01, 0.02, 0.6, 0.65]})
    summary = pd.DataFrame({"family": ["a", "b"], "metric": "PAED", "mean": [0.015, 0.62],
                            "ci_low": [0.01, 0.6], "ci_high": [0.02, 0.65]})  # fmt: skip
    paper = pd.DataFrame({"family": ["a", "b"], "metric": "PAED", "value": [0.4, 0.7]})
    fig = plotting.seed_dots_figure(df, metrics=["PAED"], summary=summary, reference=paper)
    assert fig.axes[0].get_legend() is None
    assert legend_texts(fig.axes[0]) == ["one model", "paper", "mean (95 % CI)"]
    assert_legend_clear(fig)
    three = plotting.seed_dots_figure(
        df.assign(FPED=[1.6, 2.1, 7.5, 0.3], FNED=[0.0, 0.7, 3.6, 0.1]),
        metrics=["FPED", "FNED", "PAED"],
    )
    assert_panel_texts_apart(three)


def test_metric_labels_name_every_metric_of_the_chapter_figures() -> None:
    from nlpbias.studies.pinned_auc import METRIC_LABELS

    assert METRIC_LABELS["bpsn_auc"] == "BPSN AUC" and METRIC_LABELS["pinned_auc"] == "pinned AUC"
    assert len(set(METRIC_LABELS.values())) == len(METRIC_LABELS)


def test_scenario_dots_figure_one_term_set_a_row_per_scenario_and_family() -> None:
    per_model = pd.DataFrame(
        {
            "scenario": ["s1", "s1", "s2", "s2"] * 2,
            "terms": ["all terms"] * 4 + ["skewed terms"] * 4,
            "family": ["base", "mit"] * 4,
            "seed": 0,
            "FPED": [4.0, 3.0, 5.0, 6.0, 0.4, 0.3, 0.5, 0.6],
            "PAED": [1.0, 0.9, 0.8, 0.7, 0.1, 0.09, 0.08, 0.07],
        }
    )
    summary = per_model.melt(
        id_vars=["scenario", "terms", "family"], value_vars=["FPED", "PAED"], var_name="metric",
        value_name="mean",
    ).assign(ci_low=lambda d: d["mean"] - 0.1, ci_high=lambda d: d["mean"] + 0.1)  # fmt: skip
    fig = plotting.scenario_dots_figure(per_model, summary, terms="skewed terms")
    ax = fig.axes[0]
    assert [t.get_text() for t in ax.get_yticklabels()] == [
        "s1: base",
        "s1: mit",
        "s2: base",
        "s2: mit",
    ]
    np.testing.assert_allclose(ax.collections[0].get_offsets()[:, 0], [0.4, 0.3, 0.5, 0.6])
    assert "skewed terms" in fig._suptitle.get_text()
    with pytest.raises(ValueError, match="no rows for terms='none'"):
        plotting.scenario_dots_figure(per_model, summary, terms="none")
