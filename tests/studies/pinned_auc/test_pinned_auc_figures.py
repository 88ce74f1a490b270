"""Per-term and per-seed figures of the Dixon study."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from figure_checks import assert_legend_clear, assert_panel_texts_apart, legend_texts

from nlpbias.plotting import term_frequency_figure
from nlpbias.studies.pinned_auc import figures as plotting


def test_per_term_figure_one_panel_per_metric_dots_per_family_and_reference_line() -> None:
    df = pd.DataFrame({"term": ["gay", "gay", "old", "old"], "family": ["a", "b", "a", "b"],
                       "fpr": [0.5, 0.2, 0.1, 0.1], "fnr": [0.0, 0.1, 0.3, 0.2]})  # fmt: skip
    fig = plotting.per_term_figure(df, metrics=["fpr", "fnr"], reference={"fpr": 0.15})
    assert len(fig.axes) == 2
    fpr_ax = fig.axes[0]
    a_dots = fpr_ax.collections[0].get_offsets()
    half = plotting.DODGE / 2  # family a just above each row's centre, b just below
    np.testing.assert_allclose(a_dots, [[0.5, 0 - half], [0.1, 1 - half]])
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
        offsets = np.linspace(-plotting.DODGE / 2, plotting.DODGE / 2, 3)
        families = dict.fromkeys(df["family"])
        for k, (coll, family) in enumerate(zip(ax.collections, families, strict=True)):
            sub = df[df["family"] == family]
            want = np.column_stack([sub[metric], sub["term"].map(pos) + offsets[k]])
            np.testing.assert_allclose(coll.get_offsets(), want)  # one dot per row, in place
            assert abs(offsets[k]) < 0.5  # inside its term's row
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
    assert legend_texts(fig.axes[0]) == [
        "one model (its family's colour)",
        "paper",
        "mean (95 % CI)",
    ]
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


# ---------------------------------------------------------------- issue 27: marks a reader sees


def _marker_centres(ax) -> dict[str, np.ndarray]:
    """Display coordinates (pixels) of every scatter marker, per legend label."""
    ax.figure.canvas.draw()
    return {
        coll.get_label(): ax.transData.transform(coll.get_offsets())
        for coll in ax.collections
        if len(coll.get_offsets())
    }


def test_per_term_figure_hides_no_family_under_another_when_values_tie() -> None:
    """The false negative rates of issue 27's demo: 0 for every term and family, so the three
    families' dots fell on one spot and only the last one drawn showed."""
    terms = [f"t{i}" for i in range(10)]
    df = pd.DataFrame(
        [{"term": t, "family": f, "fnr": 0.0} for f in plotting.COLOURS if f in
         ("baseline", "random control", "bias mitigated") for t in terms]
    )  # fmt: skip
    fig = plotting.per_term_figure(df, metrics=["fnr"])
    ax = fig.axes[0]
    centres = _marker_centres(ax)
    assert len(centres) == 3
    diameter_px = np.sqrt(ax.collections[0].get_sizes()[0]) * fig.dpi / 72
    names = list(centres)
    for i, a in enumerate(names):
        for b in names[i + 1 :]:
            gaps = np.linalg.norm(centres[a] - centres[b], axis=1)  # same term, same row
            # less than half of a marker may lie under another: its centre stays visible
            assert gaps.min() >= diameter_px / 2, (a, b, gaps.min(), diameter_px)
    rows = np.array([t.get_position()[1] for t in ax.get_yticklabels()])
    for coll in ax.collections:  # each dot stays in its term's row
        assert np.all(np.abs(coll.get_offsets()[:, 1] - rows) < 0.5)


def _legend_colour_of(fig) -> dict[str, str]:
    from matplotlib.colors import to_hex

    legend = fig.legends[0] if fig.legends else fig.axes[0].get_legend()
    out = {}
    for handle, text in zip(legend.legend_handles, legend.get_texts(), strict=True):
        colour = None
        for getter in ("get_facecolor", "get_edgecolor", "get_color"):
            if hasattr(handle, getter):
                c = getattr(handle, getter)()
                if np.ndim(c) == 2:
                    c = c[0] if len(c) else None
                if c is not None and (np.ndim(c) == 0 or len(c) == 0 or c[-1] != 0):
                    colour = to_hex(c, keep_alpha=False)
                    break
        out[text.get_text()] = colour
    return out


def test_one_colour_one_meaning_across_the_chapters_figures() -> None:
    """Issue 27: vermillion meant 'random control' in the per-term figure and 'paper' in the
    equality-difference figure beside it. Every figure now draws from one colour key."""
    from matplotlib.colors import to_hex
    from seaborn.utils import desaturate

    from nlpbias.plotting import barh

    df = _per_term()
    per_term = plotting.per_term_figure(df, metrics=["fpr"], reference={"fpr": 0.4})
    fams = ["baseline", "random control", "bias mitigated"]
    dots = pd.DataFrame({"family": fams * 2, "FPED": np.arange(6.0)})
    summary = pd.DataFrame({"family": fams, "metric": "FPED", "mean": [1.0, 2, 3],
                            "ci_low": [0.0, 1, 2], "ci_high": [2.0, 3, 4]})  # fmt: skip
    paper = pd.DataFrame({"family": fams, "metric": "FPED", "value": [7.0, 7.7, 5.3]})
    seed = plotting.seed_dots_figure(dots, metrics=["FPED"], summary=summary, reference=paper)
    added = barh(
        pd.DataFrame({"term": ["gay", "gay"], "texts": ["added", "shortfall"], "n": [5, 2]}),
        x="n", y="term", hue="texts", palette=plotting.chapter_palette(["added", "shortfall"]),
        names={"added": "added to the training set", "shortfall": "needed, not in the pool"},
    )  # fmt: skip
    ratio = barh(
        pd.DataFrame({"term": ["gay", "gay"], "of": ["target_ratio", "ratio"], "r": [6.0, 5.9]}),
        x="r", y="term", hue="of", palette=plotting.chapter_palette(["target_ratio", "ratio"]),
        names={"target_ratio": "Table 1 (target)", "ratio": "skewed training set"},
    )  # fmt: skip
    meaning = {  # legend text -> what it means
        "baseline": "baseline", "random control": "random control",
        "bias mitigated": "bias mitigated", "added to the training set": "bias mitigated",
        "paper": "paper", "Table 1 (target)": "paper", "needed, not in the pool": "shortfall",
        "skewed training set": "this run", "mean (95 % CI)": "this run",
    }  # fmt: skip
    seen: dict[str, str] = {}
    for fig in (per_term, seed, added, ratio):
        for text, colour in _legend_colour_of(fig).items():
            if text not in meaning or colour is None:
                continue
            want = plotting.COLOURS[meaning[text]]
            # seaborn draws bars at 75 % saturation: either shade means the same colour
            assert colour in {want.lower(), to_hex(desaturate(want, 0.75))}, (text, colour)
            assert seen.setdefault(want, meaning[text]) == meaning[text], (text, want, seen)
    assert {"paper", "random control", "baseline", "bias mitigated"} <= set(seen.values())
    assert len(set(plotting.COLOURS.values())) == len(plotting.COLOURS)  # one meaning each
    # the models' dots take their family's colour, the paper's diamonds another
    ax = seed.axes[0]
    dot_colours = {c for c in map(tuple, ax.collections[0].get_facecolors().round(3))}
    assert len(dot_colours) == 3


def test_frequency_change_figure_keeps_one_term_order_and_states_the_count() -> None:
    """Issue 27: the before/after panels each sorted their terms by their own ratio."""
    before = pd.DataFrame({"term": list("abcde"), "n_overall": [9, 9, 9, 9, 2],
                           "ratio": [3.0, 2.0, 1.0, 0.5, 9.0]})  # fmt: skip
    after = before.assign(ratio=[0.9, 1.2, 1.0, 1.1, 1.0])
    freq = pd.concat([before.assign(s="before"), after.assign(s="after")], ignore_index=True)
    freq = freq.assign(share_toxic=0.02, share_overall=0.01)
    fig = term_frequency_figure(freq, by="s", top=12, min_count=5, order_by="before")
    orders = [[t.get_text() for t in ax.get_yticklabels()] for ax in fig.axes]
    assert orders == [["a", "b", "c", "d"]] * 2  # e has too few texts in the first panel
    assert [ax.get_title() for ax in fig.axes] == ["before", "after"]
    title = fig._suptitle.get_text()
    assert "all 4 terms" in title and "12" not in title
    top2 = term_frequency_figure(freq, by="s", top=2, min_count=5, order_by="before")
    assert "the 2 with the highest ratio before" in top2._suptitle.get_text()
    assert [t.get_text() for t in top2.axes[1].get_yticklabels()] == ["a", "b"]


def test_lowest_heatmap_sorts_by_the_baseline_and_counts_its_rows() -> None:
    """Issue 27: '15 lowest terms' over 10 rows, in no particular order."""
    df = _per_term().rename(columns={"pinned_auc": "bpsn_auc"})
    fig = plotting.lowest_heatmap(df, values="bpsn_auc", of="baseline", n=15)
    ax = fig.axes[0]
    rows = [t.get_text() for t in ax.get_yticklabels()]
    base = df[df["family"] == "baseline"].set_index("term")["bpsn_auc"]
    assert rows == list(base.sort_values().index)
    assert "all 10 terms" in ax.get_title() and "15" not in ax.get_title()
    few = plotting.lowest_heatmap(df, values="bpsn_auc", n=4).axes[0]
    assert "the 4 lowest of 10 terms" in few.get_title()
    assert len(few.get_yticklabels()) == 4
