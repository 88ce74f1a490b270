"""Point labels that do not overlap: :func:`annotate_apart`.

A scatter with a label per point (identity terms at their observed and planted rates, occupations
at their association and share of women) prints labels over each other where points crowd.
:func:`annotate_apart` measures each label on the laid-out figure and moves the labels of a crowd
into a column beside it, each joined to its point by a thin line.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from matplotlib.axes import Axes

__all__ = ["annotate_apart"]


def _label_boxes(
    px: np.ndarray,
    width: np.ndarray,
    clusters: list[list[int]],
    height: float,
    gap: float,
    right_edge: float = np.inf,
) -> dict[int, tuple[float, float, float, float]]:
    """Pixel box (left, right, bottom, top) of every label: beside its point when alone, in a
    column right of the points (ordered as the points, top to bottom) for a cluster; left of
    them where the right side would cross ``right_edge`` (the axes' border)."""
    boxes = {}
    for members in clusters:
        if len(members) == 1:
            (i,) = members
            left, bottom = px[i, 0] + gap, px[i, 1] + gap / 2
            if left + width[i] > right_edge:
                left = px[i, 0] - gap - width[i]
            boxes[i] = (left, left + width[i], bottom, bottom + height)
            continue
        members = sorted(members, key=lambda i: -px[i, 1])
        left = px[members, 0].max() + 6 * gap
        if left + width[members].max() > right_edge:
            left = px[members, 0].min() - 6 * gap - width[members].max()
        top = px[members, 1].mean() + len(members) / 2 * height
        for k, i in enumerate(members):
            boxes[i] = (left, left + width[i], top - (k + 1) * height, top - k * height)
    return boxes


def annotate_apart(
    ax: Axes,
    x: np.ndarray,
    y: np.ndarray,
    texts: Sequence[str],
    *,
    fontsize: str | float = "small",
) -> None:
    """Write each text beside its point; labels that would overlap go into a column beside them.

    Points whose labels would collide (a cluster) get their labels stacked one line apart, in the
    order of the points from top to bottom, each joined to its point by a thin grey line.
    Positions are computed on the laid-out figure, so they hold for the size it is shown at.
    """
    fig = ax.figure
    probes = [ax.text(xi, yi, t, fontsize=fontsize) for t, xi, yi in zip(texts, x, y, strict=True)]
    fig.draw_without_rendering()
    px = ax.transData.transform(np.column_stack([x, y]))
    scale = fig.dpi / 72.0  # pixels per point
    extents = [p.get_window_extent() for p in probes]  # measured, then removed
    for p in probes:
        p.remove()
    width = np.array([e.width for e in extents])
    height = 1.1 * max((e.height for e in extents), default=1.0)
    gap = 4 * scale
    edge = ax.get_window_extent().x1
    clusters = [[i] for i in range(len(texts))]
    for _ in range(len(texts)):  # merge clusters whose labels overlap, until none do
        boxes = _label_boxes(px, width, clusters, height, gap, edge)
        owner = {i: c for c, members in enumerate(clusters) for i in members}
        clash = next(
            (
                (owner[i], owner[j])
                for i in boxes
                for j in boxes
                if owner[i] < owner[j]
                and boxes[i][0] < boxes[j][1] and boxes[j][0] < boxes[i][1]
                and boxes[i][2] < boxes[j][3] and boxes[j][2] < boxes[i][3]
            ),
            None,
        )  # fmt: skip
        if clash is None:
            break
        a, b = clash
        clusters = [m for c, m in enumerate(clusters) if c not in (a, b)] + [
            clusters[a] + clusters[b]
        ]
    boxes = _label_boxes(px, width, clusters, height, gap, edge)
    line = {"arrowstyle": "-", "color": "0.55", "linewidth": 0.6, "shrinkA": 1, "shrinkB": 3}
    for members in clusters:
        for i in members:
            left, _, bottom, top = boxes[i]
            ax.annotate(
                texts[i],
                (x[i], y[i]),
                xytext=((left - px[i, 0]) / scale, ((bottom + top) / 2 - px[i, 1]) / scale),
                textcoords="offset points",
                fontsize=fontsize,
                va="center",
                arrowprops=line if len(members) > 1 else None,
            )
