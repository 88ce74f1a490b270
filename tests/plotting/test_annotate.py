"""Tests for nlpbias.plotting.annotate: labels apart from each other, off the points, inside."""

from __future__ import annotations

import numpy as np
import pytest
from figure_checks import assert_labels_clear_of_points, assert_texts_apart

from nlpbias import plotting


def test_annotate_apart_crowded_points_get_labels_that_overlap_nothing() -> None:
    rng = np.random.default_rng(0)
    x = np.r_[rng.normal(0.3, 0.04, 12), rng.uniform(0, 1, 12)]
    y = np.r_[rng.normal(0.5, 0.04, 12), rng.uniform(0, 1, 12)]
    words = [f"word{i}" for i in range(len(x))]
    fig, (ax,) = plotting.new_figure(1, ncols=1, width=6.4, height=4.6)
    ax.scatter(x, y, s=22)
    ax.set(xlim=(-0.1, 1.1), ylim=(-0.1, 1.1))
    plotting.annotate_apart(ax, x, y, words, fontsize="x-small")
    assert sorted(t.get_text() for t in ax.texts) == sorted(words)
    assert_texts_apart(ax)
    assert_labels_clear_of_points(ax, x, y)
    # each annotation points at its own point
    for t in ax.texts:
        i = words.index(t.get_text())
        assert t.xy == pytest.approx((x[i], y[i]))


def test_annotate_apart_a_lone_point_is_labelled_beside_it_without_a_line() -> None:
    fig, (ax,) = plotting.new_figure(1, ncols=1, width=4, height=3)
    ax.scatter([0.5], [0.5])
    ax.set(xlim=(0, 1), ylim=(0, 1))
    plotting.annotate_apart(ax, np.array([0.5]), np.array([0.5]), ["alone"])
    (t,) = ax.texts
    assert t.arrow_patch is None
    assert t.get_position()[0] > 0  # to the right of the point
