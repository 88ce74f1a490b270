"""Figure checks of issue 27 for the scoring chapter: what each figure draws must match its data.

Each test would have failed before the fix it guards: a title that counts more columns (or
seeds) than are drawn, a series absent from the run left as a silent gap, a point without
interval drawn like one with a tiny interval, a legend that names the reference line as a target
the prose does not set.
"""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
from matplotlib.collections import LineCollection, PathCollection
from matplotlib.patches import Rectangle

from nlpbias.studies.scoring.figures import (
    ABSENT,
    NO_INTERVAL,
    bias_figure,
    learning_curve_figure,
    seed_spread_figure,
    topk_figure,
)

CONCEPTS = ["career", "family", "leader", "follower", "average"]


def _texts(ax) -> list[str]:
    return [t.get_text() for t in ax.texts]


def _legend(fig) -> list[str]:
    out = [t.get_text() for lg in fig.legends for t in lg.get_texts()]
    for ax in fig.axes:
        if ax.get_legend():
            out += [t.get_text() for t in ax.get_legend().get_texts()]
    return out


# ----------------------------------------------------------------------------- top-k figure
def _scores(n_targets: int, models=("base", "planted")) -> pd.DataFrame:
    rows = [
        {"model": m, "attribute": a, "target": f"t{i}", "score": 0.1 * i - 0.2 * j,
         "gender": "female" if i % 2 else "male"}
        for j, m in enumerate(models)
        for a in ("executive", "management")
        for i in range(n_targets)
    ]  # fmt: skip
    return pd.DataFrame(rows)


def test_topk_title_counts_the_columns_drawn(close) -> None:
    # six targets asked, three exist: the title and the axis show three (was "Top 6" over 3)
    fig = close(topk_figure(_scores(3), k=6))
    drawn = {round(t.get_position()[0]) for ax in fig.axes for t in ax.texts}
    assert drawn == {1, 2, 3}
    assert fig._suptitle.get_text() == "Top 3 targets by prior-corrected log-probability"
    for ax in fig.axes:
        assert [t.get_text() for t in ax.get_xticklabels()] == ["top 1", "top 2", "top 3"]
        cells = [p for p in ax.patches if type(p) is Rectangle]
        assert len(cells) == 2 * 3


def test_topk_marks_a_model_without_scores_for_an_attribute(close) -> None:
    s = _scores(4)
    s = s[~((s["model"] == "planted") & (s["attribute"] == "management"))]
    fig = close(topk_figure(s, attributes=["executive", "management"], k=4))
    assert ABSENT not in _texts(fig.axes[0])
    (mark,) = [t for t in fig.axes[1].texts if t.get_text() == ABSENT]
    assert mark.get_position()[1] == 1  # the row of the second model, "planted"


# ----------------------------------------------------------------------------- bias figure
def _bias(drop: tuple[str, str] | None = None) -> pd.DataFrame:
    rows = []
    for j, m in enumerate(["base (stand-in)", "planted"]):
        for i, a in enumerate(CONCEPTS):
            b = 0.1 * (i + 1) * (-1) ** j
            ci = np.nan if a == "average" else 0.05
            rows.append({"model": m, "attribute": a, "bias": b, "ci_low": b - ci,
                         "ci_high": b + ci})  # fmt: skip
    df = pd.DataFrame(rows)
    if drop:
        df = df[~((df["model"] == drop[0]) & (df["attribute"] == drop[1]))]
    return df


def test_bias_figure_names_points_without_interval(close) -> None:
    fig = close(bias_figure(_bias()))
    ax = fig.axes[0]
    whiskers = [
        s for c in ax.collections if isinstance(c, LineCollection) for s in c.get_segments()
    ]
    assert len(whiskers) == 2 * (len(CONCEPTS) - 1)  # the averages have none ...
    assert NO_INTERVAL in _legend(fig)  # ... and the legend says why
    full = _bias().assign(ci_low=lambda d: d["bias"] - 0.1, ci_high=lambda d: d["bias"] + 0.1)
    assert NO_INTERVAL not in _legend(close(bias_figure(full)))


def test_bias_figure_marks_an_absent_series(close) -> None:
    fig = close(bias_figure(_bias(drop=("planted", "leader"))))
    ax = fig.axes[0]
    (mark,) = [t for t in ax.texts if t.get_text() == f"planted: {ABSENT}"]
    leader = [t.get_text() for t in ax.get_yticklabels()].index("leader")
    assert abs(mark.get_position()[1] - leader) < 0.5  # in the leader row
    pts = [ln for ln in ax.lines if ln.get_label() == "planted"][0]
    assert len(pts.get_xdata()) == len(CONCEPTS) - 1


# ----------------------------------------------------------------------------- seed spread
def _diffs(seeds, drop: tuple[str, str] | None = None) -> pd.DataFrame:
    rows = [
        {"person": p, "seed": s, "concept": c, "difference": 0.3 + 0.01 * s - 0.1 * i}
        for p, s, (i, c) in itertools.product(["Trump", "Clinton"], seeds, enumerate(CONCEPTS))
    ]
    df = pd.DataFrame(rows)
    if drop:
        df = df[~((df["person"] == drop[0]) & (df["concept"] == drop[1]))]
    return df


def test_seed_figure_title_counts_the_seeds_and_one_seed_draws_no_range(close) -> None:
    two = close(seed_spread_figure(_diffs([0, 1])))
    assert two._suptitle.get_text() == "Person − base model, 2 fine-tuning seeds (0, 1)"
    one = close(seed_spread_figure(_diffs([0])))
    # was "(1 seeds)", with a band and a "mean" tick drawn over a single value
    assert one._suptitle.get_text() == "Person − base model, one fine-tuning seed (0)"
    for ax in one.axes:
        assert not [p for p in ax.patches if type(p) is Rectangle and p.get_height() != 0]
        assert not [c for c in ax.collections if isinstance(c, LineCollection)]
        dots = [c for c in ax.collections if type(c) is PathCollection]
        assert len(dots) == len(CONCEPTS)
    legend = _legend(one)
    assert "one seed: no range, nothing counts" in legend
    assert not any("range over seeds" in t or "mean ±" in t for t in legend)


def test_seed_figure_marks_a_concept_a_person_lacks(close) -> None:
    fig = close(seed_spread_figure(_diffs([0, 1], drop=("Clinton", "leader"))))
    trump, clinton = fig.axes
    assert ABSENT not in _texts(trump)
    (mark,) = [t for t in clinton.texts if t.get_text() == ABSENT]
    assert mark.get_position()[1] == CONCEPTS.index("leader")


# ----------------------------------------------------------------------------- learning curve
def test_learning_curve_names_the_reference_level_it_draws(close) -> None:
    h = pd.DataFrame({"step": [0, 10], "seconds": [0, 60], "top1": [0.0, 0.1],
                      "top5": [0.0, 0.2]})  # fmt: skip
    ax = close(learning_curve_figure(h, target=0.3)).axes[0]
    (ref,) = [ln for ln in ax.lines if ln.get_linestyle() == "--"]
    assert list(ref.get_ydata()) == [0.3, 0.3]
    assert ref.get_label() == "reference level: 30 % top-1"


def test_seed_figure_tick_labels_of_small_differences_do_not_collide(close) -> None:
    # the smoke run's differences are a few thousandths: "−0.0075−0.0050" ran together
    d = [-0.0011, 0.0019, 0.0003, -0.0035, 0.0038, -0.0003, 0.0002]
    d += [-0.0024, -0.0022, -0.0043, -0.0068, 0.0019, -0.0020, -0.0026]
    small = pd.DataFrame(
        {"person": "planted", "seed": [0] * 7 + [1] * 7, "concept": CONCEPTS_7 * 2,
         "difference": d}
    )  # fmt: skip
    fig = close(seed_spread_figure(small))
    fig.canvas.draw()
    ax = fig.axes[0]
    lo, hi = ax.get_xlim()
    shown = [
        t.get_window_extent()
        for t, x in zip(ax.get_xticklabels(), ax.get_xticks(), strict=True)
        if t.get_visible() and t.get_text() and lo <= x <= hi
    ]
    assert len(shown) >= 3
    for a, b in zip(shown, shown[1:], strict=False):
        assert a.x1 < b.x0, "tick labels of the difference axis run together"


CONCEPTS_7 = ["career", "family", "pleasant", "unpleasant", "leader", "follower", "average"]
