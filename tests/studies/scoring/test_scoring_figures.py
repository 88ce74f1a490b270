"""Tests for nlpbias.studies.scoring.figures (figures of the masked-language-model chapter, seed
003)."""

from __future__ import annotations

import doctest

import numpy as np
import pandas as pd
import pytest
from figure_checks import assert_legend_clear, legend_texts
from matplotlib.collections import LineCollection, PathCollection
from matplotlib.colors import to_rgb

from nlpbias.plotting import PALETTE
from nlpbias.studies.scoring import figures as mod
from nlpbias.studies.scoring.figures import (
    BIAS_XLABEL,
    GENDER_COLOURS,
    accuracy_figure,
    bias_figure,
    learning_curve_figure,
    topk_figure,
)

ATTRS = ["career", "family", "pleasant", "unpleasant", "leader", "follower", "average"]
MODELS = ["base (stand-in)", "Trump", "Clinton", "you"]


def _bias_table(paper: bool = False) -> pd.DataFrame:
    rows = []
    for j, m in enumerate(MODELS):
        for i, a in enumerate(ATTRS):
            b = (-1) ** (i + j) * 0.1 * (i + 1) + 0.01 * j
            ci = np.nan if a == "average" else 0.05 * (j + 1)
            row = {"model": m, "attribute": a, "bias": b, "ci_low": b - ci, "ci_high": b + ci}
            if paper:
                row["paper"] = 2.5 if (j < 2 and a == "career") else np.nan
            rows.append(row)
    return pd.DataFrame(rows)


def _points(ax, label: str) -> np.ndarray:
    (line,) = [ln for ln in ax.lines if ln.get_label() == label]
    return np.column_stack([line.get_xdata(), line.get_ydata()])


def _whiskers(ax) -> list[np.ndarray]:
    return [
        seg for c in ax.collections if isinstance(c, LineCollection) for seg in c.get_segments()
    ]


def _scatters(ax) -> list[PathCollection]:
    return [c for c in ax.collections if type(c) is PathCollection]


# -- bias_figure


def test_bias_rows_models_and_positions(close) -> None:
    t = _bias_table()
    ax = close(bias_figure(t)).axes[0]
    assert [x.get_text() for x in ax.get_yticklabels()] == ATTRS
    assert [x.get_text() for x in ax.get_legend().get_texts()] == [*MODELS, mod.NO_INTERVAL]
    for m in MODELS:
        pts = _points(ax, m)
        sub = t[t["model"] == m]
        np.testing.assert_allclose(pts[:, 0], sub["bias"])
        # each point sits within its attribute's row band
        assert np.all(np.abs(pts[:, 1] - np.arange(len(ATTRS))) < 0.5)
    # models are dodged: same attribute, different heights, first model on top (y axis inverted)
    ys = [_points(ax, m)[0, 1] for m in MODELS]
    assert ys == sorted(ys) and len(set(ys)) == 4
    assert ax.get_ylim()[0] > ax.get_ylim()[1]
    assert_legend_clear(ax.figure)


def test_bias_sign_convention_negative_is_left_of_zero(close) -> None:
    t = pd.DataFrame(
        {"model": ["m", "m"], "attribute": ["career", "family"], "bias": [-0.7, 0.3],
         "ci_low": [-0.9, 0.1], "ci_high": [-0.5, 0.5]}
    )  # fmt: skip
    ax = close(bias_figure(t)).axes[0]
    (zero,) = [ln for ln in ax.lines if list(ln.get_xdata()) == [0, 0]]
    x0 = zero.get_xdata()[0]
    pts = _points(ax, "m")
    assert pts[0, 0] < x0 < pts[1, 0]
    # left means smaller x on screen: axis not inverted, label says left = pro-male
    assert ax.get_xlim()[0] < ax.get_xlim()[1]
    label = ax.get_xlabel()
    assert label == BIAS_XLABEL and label.index("pro-male") < label.index("pro-female")


def test_bias_whiskers_span_the_ci_and_skip_nan(close) -> None:
    t = _bias_table()
    ax = close(bias_figure(t)).axes[0]
    segs = _whiskers(ax)
    finite = t[t["ci_low"].notna()]
    assert len(segs) == len(finite) == 6 * 4
    spans = sorted((float(s[0, 0]), float(s[1, 0])) for s in segs)
    want = sorted(zip(finite["ci_low"], finite["ci_high"], strict=True))
    np.testing.assert_allclose(spans, want)
    # each whisker is horizontal, at the height of its point
    assert all(s[0, 1] == s[1, 1] for s in segs)


def test_bias_limits_contain_all_values_and_are_symmetric(close) -> None:
    t = _bias_table(paper=True)
    ax = close(bias_figure(t)).axes[0]
    lo, hi = ax.get_xlim()
    assert lo == pytest.approx(-hi)
    allv = pd.concat([t["bias"], t["ci_low"], t["ci_high"], t["paper"]]).dropna()
    assert lo < allv.min() and allv.max() < hi  # the paper's 2.5 is inside
    assert 4.0 <= close(bias_figure(t)).get_size_inches()[1] <= 9.0


def test_bias_paper_marker_only_with_the_column(close) -> None:
    ax = close(bias_figure(_bias_table())).axes[0]
    assert _scatters(ax) == []
    assert not any("paper" in x.get_text() for x in ax.get_legend().get_texts())
    ax = close(bias_figure(_bias_table(paper=True))).axes[0]
    marks = _scatters(ax)
    assert [m.get_label() for m in marks] == ["paper (BERT-base)", "paper (Trump)"]
    for m in marks:
        assert len(m.get_offsets()) == 1 and m.get_offsets()[0][0] == 2.5
        assert m.get_facecolors().size == 0 or m.get_facecolors()[0][3] == 0  # hollow
    # the paper marker sits on its model's row (same height as the model's career point)
    assert marks[1].get_offsets()[0][1] == _points(ax, "Trump")[0, 1]
    legend = [x.get_text() for x in ax.get_legend().get_texts()]
    assert legend == MODELS + ["paper (BERT-base)", "paper (Trump)", mod.NO_INTERVAL]


def test_bias_paper_model_gives_one_label(close) -> None:
    ax = close(bias_figure(_bias_table(paper=True), paper_model="BERT-large")).axes[0]
    legend = [x.get_text() for x in ax.get_legend().get_texts()]
    assert legend == MODELS + ["paper (BERT-large)", mod.NO_INTERVAL]


def test_bias_all_nan_paper_draws_nothing(close) -> None:
    t = _bias_table().assign(paper=np.nan)
    assert _scatters(close(bias_figure(t)).axes[0]) == []


def test_bias_errors() -> None:
    t = _bias_table()
    with pytest.raises(KeyError, match="ci_high"):
        bias_figure(t.drop(columns="ci_high"))
    with pytest.raises(ValueError, match="empty"):
        bias_figure(t.iloc[:0])
    with pytest.raises(ValueError, match="'bias'"):
        bias_figure(t.assign(bias=np.where(t.index == 3, np.nan, t["bias"])))
    with pytest.raises(ValueError, match="more than once"):
        bias_figure(pd.concat([t, t.iloc[:1]]))


# -- topk_figure


def _scores(gender: bool = True) -> pd.DataFrame:
    targets = {"he": "male", "men": "male", "boys": "male", "she": "female", "women": "female"}
    rows = []
    for j, m in enumerate(["base", "Trump"]):
        for i, a in enumerate(["career", "family", "leader", "follower"]):
            for n, (w, g) in enumerate(targets.items()):
                s = ((n * 7 + i * 3 + j * 5) % 11) / 10 - 0.5
                rows.append({"model": m, "attribute": a, "target": w, "score": s, "gender": g})
    df = pd.DataFrame(rows)
    return df if gender else df.drop(columns="gender")


def _cells(ax) -> list[list[str]]:
    """The grid's texts as rows (models) of 'target score' in rank order."""
    by_row: dict[float, list[tuple[float, str]]] = {}
    for t in ax.texts:
        x, y = t.get_position()
        by_row.setdefault(y, []).append((x, t.get_text().replace("\n", " ")))
    return [[s for _, s in sorted(v)] for _, v in sorted(by_row.items())]


def test_topk_default_three_panels_ranked_by_score(close) -> None:
    s = _scores()
    fig = close(topk_figure(s, k=3))
    assert [ax.get_title() for ax in fig.axes] == ["career", "family", "leader"]
    ax = fig.axes[0]
    assert [x.get_text() for x in ax.get_yticklabels()] == ["base", "Trump"]
    cells = _cells(ax)
    assert len(cells) == 2 and all(len(r) == 3 for r in cells)
    for row, m in zip(cells, ["base", "Trump"], strict=True):
        sub = s[(s["model"] == m) & (s["attribute"] == "career")]
        top = sub.sort_values(["score", "target"], ascending=[False, True]).head(3)
        pairs = zip(top["target"], top["score"], strict=True)
        want = [f"{w} {v:.2f}".replace("-", "−") for w, v in pairs]
        assert row == want


def test_topk_cells_coloured_by_gender(close) -> None:
    s = _scores()
    ax = close(topk_figure(s, attributes=["follower"], k=5)).axes[0]
    assert len(ax.patches) == 2 * 5
    gender = dict(zip(s["target"], s["gender"], strict=False))
    for patch, text in zip(ax.patches, ax.texts, strict=True):
        target = text.get_text().split("\n")[0]
        assert to_rgb(patch.get_facecolor()) == to_rgb(GENDER_COLOURS[gender[target]])
    assert {GENDER_COLOURS["female"], GENDER_COLOURS["male"]} <= set(PALETTE)
    legend = [x.get_text() for x in ax.get_legend().get_texts()]
    assert legend == ["female", "male"]


def test_topk_without_gender_is_grey_and_k_larger_than_targets(close) -> None:
    ax = close(topk_figure(_scores(gender=False), attributes=["family"], k=8)).axes[0]
    assert len(ax.texts) == 2 * 5  # only 5 targets exist
    assert len({to_rgb(p.get_facecolor()) for p in ax.patches}) == 1
    assert ax.get_legend() is None
    assert ax.get_xlim() == (0.5, 5.5)  # the columns drawn, not the k asked for


def test_topk_errors() -> None:
    s = _scores()
    with pytest.raises(KeyError, match="score"):
        topk_figure(s.drop(columns="score"))
    with pytest.raises(ValueError, match="empty"):
        topk_figure(s.iloc[:0])
    with pytest.raises(ValueError, match="nope"):
        topk_figure(s, attributes=["career", "nope"])
    with pytest.raises(ValueError, match="k must be"):
        topk_figure(s, k=0)
    with pytest.raises(ValueError, match="gender"):
        topk_figure(s.assign(gender="neutral"))
    with pytest.raises(ValueError, match="more than once"):
        topk_figure(pd.concat([s, s.iloc[:1]]))


# -- accuracy_figure


def _acc(top5: bool = True) -> pd.DataFrame:
    df = pd.DataFrame(
        {"model": ["Trump", "Clinton", "you"], "top-1 before": [0.40, 0.42, 0.38],
         "top-1 after": [0.55, 0.61, 0.50], "top-5 before": [0.60, 0.62, 0.58],
         "top-5 after": [0.70, 0.76, 0.69]}
    )  # fmt: skip
    return df if top5 else df.drop(columns=["top-5 before", "top-5 after"])


def test_accuracy_paired_bars_and_panels(close) -> None:
    df = _acc()
    fig = close(accuracy_figure(df))
    assert len(fig.axes) == 2
    for ax, k in zip(fig.axes, ["top-1", "top-5"], strict=True):
        heights = [p.get_height() for p in ax.patches]
        np.testing.assert_allclose(heights, list(df[f"{k} before"]) + list(df[f"{k} after"]))
        xs = [p.get_x() + p.get_width() / 2 for p in ax.patches]
        assert xs[:3] < xs[3:]  # before left of after, per model
        assert all(b < a for b, a in zip(xs[:3], xs[3:], strict=True))
        assert [x.get_text() for x in ax.get_xticklabels()] == ["Trump", "Clinton", "you"]
        assert ax.get_ylim()[1] > max(heights)
        values = list(df[f"{k} before"]) + list(df[f"{k} after"])
        assert [t.get_text() for t in ax.texts] == [f"{100 * v:.1f}%" for v in values]
    assert legend_texts(fig.axes[0]) == ["before fine-tuning", "after fine-tuning"]
    assert all(ax.get_legend() is None for ax in fig.axes)
    assert_legend_clear(fig)
    assert len(close(accuracy_figure(_acc(top5=False))).axes) == 1


def test_accuracy_a_zero_bar_says_zero(close) -> None:
    df = _acc().assign(**{"top-1 before": [0.0, 0.0, 0.0]})
    ax = close(accuracy_figure(df)).axes[0]
    assert [t.get_text() for t in ax.texts][:3] == ["0.0%"] * 3


def test_accuracy_paper_marker_on_the_after_bar(close) -> None:
    ax = close(accuracy_figure(_acc(), paper={"Trump": 0.636})).axes[0]
    (mark,) = _scatters(ax)
    assert mark.get_label() == "paper (after fine-tuning)"
    (px, py), after = mark.get_offsets()[0], ax.patches[3]
    assert py == pytest.approx(0.636)
    assert px == pytest.approx(after.get_x() + after.get_width() / 2)
    assert any("63.6%" in t.get_text() for t in ax.texts)
    assert ax.get_ylim()[1] > 0.636
    assert _scatters(close(accuracy_figure(_acc())).axes[0]) == []
    # a paper value for a model this run does not have draws nothing
    assert _scatters(close(accuracy_figure(_acc(), paper={"Hillary": 0.5})).axes[0]) == []


def test_accuracy_errors() -> None:
    df = _acc()
    with pytest.raises(KeyError, match="top-1 after"):
        accuracy_figure(df.drop(columns="top-1 after"))
    with pytest.raises(ValueError, match="empty"):
        accuracy_figure(df.iloc[:0])
    with pytest.raises(ValueError, match="shares"):
        accuracy_figure(df.assign(**{"top-1 after": [55.0, 61.0, 50.0]}))


# -- learning_curve_figure


def _history() -> pd.DataFrame:
    return pd.DataFrame(
        {"step": [200, 0, 100], "seconds": [240.0, 0.0, 120.0], "top1": [0.3, 0.0, 0.2],
         "top5": [0.5, 0.02, 0.4]}
    )  # fmt: skip


def test_learning_curve_lines_in_minutes_and_target(close) -> None:
    ax = close(learning_curve_figure(_history(), target=0.25)).axes[0]
    top1, top5, target = ax.lines
    assert list(top1.get_xdata()) == [0.0, 2.0, 4.0]  # sorted by time, in minutes
    assert list(top1.get_ydata()) == [0.0, 0.2, 0.3]
    assert list(top5.get_ydata()) == [0.02, 0.4, 0.5]
    assert list(target.get_ydata()) == [0.25, 0.25] and target.get_linestyle() == "--"
    legend = [x.get_text() for x in ax.get_legend().get_texts()]
    assert legend == ["top-1", "top-5", "reference level: 25 % top-1"]
    assert_legend_clear(ax.figure)  # beside the axes, not over the end of the curves
    lo, hi = ax.get_xlim()
    assert lo < 0.0 and hi > 4.0 and ax.get_ylim()[1] > 0.5
    assert ax.get_xlabel() == "minutes of training"
    assert ax.child_axes and ax.child_axes[0].get_xlabel() == "training step"


def test_learning_curve_without_target(close) -> None:
    ax = close(learning_curve_figure(_history(), target=None)).axes[0]
    assert len(ax.lines) == 2


def test_learning_curve_target_above_data_is_visible(close) -> None:
    h = _history().assign(top5=[0.1, 0.01, 0.05], top1=[0.05, 0.0, 0.02])
    ax = close(learning_curve_figure(h, target=0.25)).axes[0]
    assert ax.get_ylim()[1] > 0.25


def test_learning_curve_errors() -> None:
    h = _history()
    with pytest.raises(KeyError, match="top5"):
        learning_curve_figure(h.drop(columns="top5"))
    with pytest.raises(ValueError, match="empty"):
        learning_curve_figure(h.iloc[:0])
    with pytest.raises(ValueError, match="'top1'"):
        learning_curve_figure(h.assign(top1=[0.1, np.nan, 0.2]))
    with pytest.raises(ValueError, match="target"):
        learning_curve_figure(h, target=25.0)


def test_error_messages_are_one_line() -> None:
    with pytest.raises(ValueError) as err:
        topk_figure(_scores(), attributes=["nope"])
    assert "\n" not in str(err.value)


def test_docstring_examples_run() -> None:
    failed, attempted = doctest.testmod(mod, raise_on_error=False, verbose=False)[:2]
    assert attempted >= 4 and failed == 0


def test_learning_curve_step_ticks_do_not_run_together_when_speed_varies(close) -> None:
    # the paper stand-in on a busy machine: 1,000 steps in 8 minutes, the next 3,000 in 87
    steps = np.arange(0, 4001, 250)
    minutes = np.where(steps <= 1000, steps * 0.008, 8 + (steps - 1000) * 0.029)
    h = pd.DataFrame({"step": steps, "seconds": 60 * minutes,
                      "top1": np.linspace(0, 0.24, len(steps)),
                      "top5": np.linspace(0, 0.45, len(steps))})  # fmt: skip
    fig = close(learning_curve_figure(h, target=0.25))
    sec = fig.axes[0].child_axes[0]
    fig.draw_without_rendering()
    boxes = [t.get_window_extent() for t in sec.get_xticklabels() if t.get_text()]
    assert len(boxes) >= 3
    assert all(a.x1 < b.x0 for a, b in zip(boxes, boxes[1:], strict=False))  # apart, in order
