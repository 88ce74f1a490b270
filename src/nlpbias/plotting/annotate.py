"""Point labels that do not overlap: :func:`annotate_apart`.

A scatter with a label per point (identity terms at their observed and planted rates, occupations
at their association and share of women) prints labels over each other where points crowd.
:func:`annotate_apart` measures each label on the laid-out figure and places it greedily: beside
its point where there is room, else on a wider ring around it with a thin line to the point, so
that no label covers another label or a point and every label stays inside the axes.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from matplotlib.axes import Axes

__all__ = ["annotate_apart"]

#: Directions tried on each ring, as (x, y) signs of the label's offset from its point.
_DIRECTIONS = ((1, 0), (1, 1), (1, -1), (-1, 0), (-1, 1), (-1, -1), (0, 1), (0, -1))
_RINGS = 10


def _overlap(a: np.ndarray, boxes: np.ndarray) -> np.ndarray:
    """Overlap area of box ``a`` (left, right, bottom, top) with each row of ``boxes``."""
    if not len(boxes):
        return np.zeros(0)
    w = np.minimum(a[1], boxes[:, 1]) - np.maximum(a[0], boxes[:, 0])
    h = np.minimum(a[3], boxes[:, 3]) - np.maximum(a[2], boxes[:, 2])
    return np.clip(w, 0, None) * np.clip(h, 0, None)


def _candidates(px: np.ndarray, w: float, h: float, gap: float) -> list[tuple[int, np.ndarray]]:
    """(ring, box) of every place tried for a label of size ``w`` × ``h`` at pixel ``px``."""
    out = []
    for ring in range(_RINGS):
        d = gap + ring * 0.9 * h
        for sx, sy in _DIRECTIONS:
            dx = sx * (d * (0.7 if sy else 1.0) + w / 2)
            dy = sy * (d * (0.7 if sx else 1.0) + h / 2)
            cx, cy = px[0] + dx, px[1] + dy
            out.append((ring, np.array([cx - w / 2, cx + w / 2, cy - h / 2, cy + h / 2])))
    return out


def annotate_apart(
    ax: Axes,
    x: np.ndarray,
    y: np.ndarray,
    texts: Sequence[str],
    *,
    fontsize: str | float = "small",
) -> None:
    """Write each text near its point so that no two labels, and no label and point, overlap.

    Labels are placed one at a time, the most crowded points first: on the first of eight places
    around the point (right, upper right, lower right, left, …) that stays inside the axes and
    covers no placed label and no point; where none is free, on a wider ring. A label away from
    its point, or of a point with neighbours, is joined to it by a thin grey line. Positions are
    computed on the laid-out figure, so they hold for the size it is shown at; call it last,
    after limits, labels and legends are set.
    """
    fig = ax.figure
    x, y = np.asarray(x, float), np.asarray(y, float)
    probes = [ax.text(xi, yi, t, fontsize=fontsize) for t, xi, yi in zip(texts, x, y, strict=True)]
    fig.draw_without_rendering()
    px = ax.transData.transform(np.column_stack([x, y]))
    scale = fig.dpi / 72.0  # pixels per point
    extents = [p.get_window_extent() for p in probes]  # measured, then removed
    for p in probes:
        p.remove()
    gap, radius = 2 * scale, 3.5 * scale
    frame = ax.get_window_extent()
    points = np.column_stack([px[:, 0] - radius, px[:, 0] + radius,
                              px[:, 1] - radius, px[:, 1] + radius])  # fmt: skip
    near = np.hypot(*(px[:, None, :] - px[None, :, :]).transpose(2, 0, 1)) < 40 * scale
    crowded = near.sum(axis=1) > 1  # another point within 40 pt: a line says whose label
    order = sorted(range(len(texts)), key=lambda i: (-int(near[i].sum()), i))
    placed = np.empty((0, 4))
    line = {"arrowstyle": "-", "color": "0.55", "linewidth": 0.6, "shrinkA": 0, "shrinkB": 2}
    for i in order:
        w, h = extents[i].width + 2, extents[i].height + 1
        best, best_cost = None, np.inf
        others = np.delete(points, i, axis=0)
        for ring, box in _candidates(px[i], w, h, radius + gap):
            inside = (box[0] >= frame.x0 and box[1] <= frame.x1
                      and box[2] >= frame.y0 and box[3] <= frame.y1)  # fmt: skip
            cost = _overlap(box, placed).sum() + _overlap(box, others).sum()
            if inside and cost == 0:
                best = (ring, box)
                break
            cost += 0 if inside else 1e6
            if cost < best_cost:
                best, best_cost = (ring, box), cost
        ring, box = best  # type: ignore[misc]
        placed = np.vstack([placed, box])
        cx, cy = (box[0] + box[1]) / 2, (box[2] + box[3]) / 2
        ax.annotate(
            texts[i],
            (x[i], y[i]),
            xytext=((cx - px[i, 0]) / scale, (cy - px[i, 1]) / scale),
            textcoords="offset points",
            fontsize=fontsize,
            ha="center",
            va="center",
            arrowprops=line if ring > 0 or crowded[i] else None,
        )
