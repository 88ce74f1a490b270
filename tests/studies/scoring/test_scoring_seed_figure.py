"""Tests for nlpbias.studies.scoring.figures.seed_spread_figure (per-seed differences from the base
model)."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest
from figure_checks import assert_legend_clear, assert_panel_texts_apart, bars, legend_texts
from matplotlib.collections import LineCollection, PathCollection
from matplotlib.colors import to_hex

from nlpbias.studies.scoring.figures import (
    COUNTS_COLOUR,
    DELTA_XLABEL,
    SEED_MARKERS,
    seed_spread_figure,
)
from nlpbias.studies.scoring.seeds import exceeds_seed_spread

PEOPLE = ["Trump", "Clinton"]
CONCEPTS = ["career", "family", "pleasant", "unpleasant", "leader", "follower", "average"]
SEEDS = [0, 1, 2]


def _diff(p: int, c: int, s: int) -> float:
    """Planted: Trump counts on even concepts (a tight cluster off 0), never on odd ones."""
    if c % 2 == 0 and p == 0:
        return -0.3 - 0.02 * s - 0.05 * c
    return (-1) ** s * 0.05 * (c + 1) + 0.01 * p


def _long(seeds=SEEDS) -> pd.DataFrame:
    rows = [
        {"person": PEOPLE[p], "seed": s, "concept": CONCEPTS[c], "difference": _diff(p, c, s)}
        for p, s, c in itertools.product(range(2), seeds, range(len(CONCEPTS)))
    ]
    return pd.DataFrame(rows)


def _dots(ax) -> list[PathCollection]:
    return [c for c in ax.collections if type(c) is PathCollection]


def _segments(ax, vertical: bool) -> list[np.ndarray]:
    segs = [s for c in ax.collections if isinstance(c, LineCollection) for s in c.get_segments()]
    return [s for s in segs if (s[0, 0] == s[1, 0]) == vertical and len(s) == 2]


def test_panels_rows_and_labels(close) -> None:
    fig = close(seed_spread_figure(_long()))
    assert [ax.get_title() for ax in fig.axes] == PEOPLE
    for ax in fig.axes:
        assert [t.get_text() for t in ax.get_yticklabels()] == CONCEPTS
        assert ax.get_ylim()[0] > ax.get_ylim()[1]  # first concept on top
        assert ax.get_xlabel() == DELTA_XLABEL
    # one shared x axis, symmetric around 0, holding every band
    lo, hi = fig.axes[0].get_xlim()
    assert lo == pytest.approx(-hi) and fig.axes[1].get_xlim() == (lo, hi)
    assert_legend_clear(fig)
    assert_panel_texts_apart(fig)


def test_every_seed_is_a_dot_at_its_difference(close) -> None:
    long = _long()
    fig = close(seed_spread_figure(long))
    for ax, person in zip(fig.axes, PEOPLE, strict=True):
        dots = _dots(ax)
        assert len(dots) == len(SEEDS) * len(CONCEPTS)
        got = sorted(tuple(np.round(d.get_offsets()[0], 12)) for d in dots)
        sub = long[long["person"] == person]
        want = sorted(
            (round(v, 12), float(CONCEPTS.index(c)))
            for v, c in zip(sub["difference"], sub["concept"], strict=True)
        )
        np.testing.assert_allclose(got, want)
        # a marker shape per seed: as many distinct paths as seeds
        shapes = {tuple(map(tuple, d.get_paths()[0].vertices.round(6))) for d in dots}
        assert len(shapes) == len(SEEDS)


def test_range_mean_and_the_rule_band(close) -> None:
    long = _long()
    fig = close(seed_spread_figure(long))
    for ax, person in zip(fig.axes, PEOPLE, strict=True):
        sub = long[long["person"] == person]
        stats = sub.groupby("concept", sort=False)["difference"].agg(["min", "max", "mean"])
        ranges = sorted((s[0, 1], min(s[:, 0]), max(s[:, 0])) for s in _segments(ax, False))
        assert len(ranges) == len(CONCEPTS)  # the zero line is an axvline, not a segment
        want = sorted((float(CONCEPTS.index(c)), r["min"], r["max"]) for c, r in stats.iterrows())
        np.testing.assert_allclose(ranges, want)
        ticks = sorted((s[0, 0], s[:, 1].mean()) for s in _segments(ax, True))
        np.testing.assert_allclose(
            ticks, sorted((r["mean"], float(CONCEPTS.index(c))) for c, r in stats.iterrows())
        )
        band = bars(ax)
        assert band["label"].tolist() == CONCEPTS
        for c, row in zip(CONCEPTS, band.itertuples(index=False), strict=True):
            r = stats.loc[c]
            spread = r["max"] - r["min"]
            assert (row.start, row.end) == pytest.approx((r["mean"] - spread, r["mean"] + spread))
            d = sub.loc[sub["concept"] == c, "difference"]
            counts = exceeds_seed_spread(d)
            assert (row.colour == to_hex(COUNTS_COLOUR)) is counts
            # the band is clear of 0 exactly where the effect counts
            assert (row.start > 0 or row.end < 0) is counts
        # the dots of a counted row are drawn in the same colour as its band
        for dots in _dots(ax):
            c = CONCEPTS[int(dots.get_offsets()[0][1])]
            counts = exceeds_seed_spread(sub.loc[sub["concept"] == c, "difference"])
            assert (to_hex(dots.get_edgecolors()[0]) == to_hex(COUNTS_COLOUR)) is counts
    trump = bars(fig.axes[0])
    assert trump["colour"].eq(to_hex(COUNTS_COLOUR)).tolist() == [c % 2 == 0 for c in range(7)]
    assert not bars(fig.axes[1])["colour"].eq(to_hex(COUNTS_COLOUR)).any()


def test_zero_line_and_legend(close) -> None:
    fig = close(seed_spread_figure(_long()))
    for ax in fig.axes:
        zero = [ln for ln in ax.lines if list(ln.get_xdata()) == [0, 0]]
        assert len(zero) == 1
    texts = legend_texts(fig.axes[0]) if fig.axes[0].get_legend() else []
    legend = [t.get_text() for lg in fig.legends for t in lg.get_texts()] + texts
    for s in SEEDS:
        assert f"seed {s}" in legend
    assert "mean ± range clear of 0: counts" in legend
    assert "mean ± range reaches 0: does not count" in legend
    assert "no difference (0)" in legend


def test_one_seed_draws_dots_and_claims_nothing(close) -> None:
    fig = close(seed_spread_figure(_long(seeds=[0])))
    ax = fig.axes[0]
    assert len(_dots(ax)) == len(CONCEPTS)
    assert not bars(ax)["colour"].eq(to_hex(COUNTS_COLOUR)).any()
    legend = [t.get_text() for lg in fig.legends for t in lg.get_texts()]
    assert "one seed: no range, nothing counts" in legend
    assert len(SEED_MARKERS) >= 3


def test_errors(close, one_line) -> None:
    with pytest.raises(KeyError, match="difference") as err:
        seed_spread_figure(_long().drop(columns="difference"))
    one_line(err)
    with pytest.raises(ValueError, match="empty") as err:
        seed_spread_figure(_long().iloc[:0])
    one_line(err)
    with pytest.raises(ValueError, match="missing or non-numeric") as err:
        seed_spread_figure(_long().assign(difference=np.nan))
    one_line(err)
    with pytest.raises(ValueError, match="more than once") as err:
        seed_spread_figure(pd.concat([_long(), _long().iloc[:1]]))
    one_line(err)
