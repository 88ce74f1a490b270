"""Geometry checks of drawn figures, shared by the figure tests of every layer.

A figure test should check what a reader sees, not only that an image exists:

- :func:`bars` lists the drawn bars (rectangles) of an axes with their extents in data units,
  the tick label of their row and the legend entry of their colour; a test compares them with
  the frame it drew (one bar per row, bar lengths equal to the values, every hue present);
- :func:`assert_no_hidden_bars` fails when a bar is painted over another (two bars of one row
  that share a stretch of both axes, as ``dodge=False`` with a hue draws them);
- :func:`assert_legend_clear` fails when a legend box covers a mark: a bar, a point, a line of
  data, an error bar, a filled area or a text label. A legend outside the axes, or in an empty
  corner, passes;
- :func:`assert_texts_apart` fails when two text labels of an axes (point labels, annotations)
  overlap each other; :func:`assert_panel_texts_apart` when the titles, axis labels or tick
  labels of a figure's panels run into each other.

Every function draws the figure first (``Figure.draw_without_rendering``), so the extents are
those of the final layout. Importable from any test folder (``tests/`` is on ``sys.path`` because
it holds ``conftest.py``): ``from figure_checks import bars, assert_legend_clear``.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np
import pandas as pd
from matplotlib.axes import Axes
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.collections import LineCollection, PathCollection, PolyCollection
from matplotlib.colors import to_hex
from matplotlib.figure import Figure
from matplotlib.legend import Legend
from matplotlib.lines import Line2D
from matplotlib.patches import Rectangle
from matplotlib.text import Text
from matplotlib.transforms import Bbox

__all__ = [
    "assert_legend_clear",
    "assert_no_hidden_bars",
    "assert_panel_texts_apart",
    "assert_texts_apart",
    "bars",
    "legend_overlaps",
    "legend_texts",
    "ytick_labels",
]


def _drawn(fig: Figure) -> None:
    """Lay out and draw ``fig`` (on an Agg canvas if it has none), so extents are final."""
    if not hasattr(fig.canvas, "get_renderer"):
        FigureCanvasAgg(fig)
    fig.draw_without_rendering()


def ytick_labels(ax: Axes) -> list[str]:
    """The y tick labels of ``ax`` as drawn, top to bottom in the order of the ticks."""
    return [t.get_text() for t in ax.get_yticklabels()]


def legend_texts(ax: Axes) -> list[str]:
    """The entries of the legend of ``ax`` (its own, or a figure legend), in order."""
    legend = ax.get_legend() or (ax.figure.legends[0] if ax.figure.legends else None)
    return [] if legend is None else [t.get_text() for t in legend.get_texts()]


def _legend_colours(ax: Axes) -> dict[str, str]:
    """Face colour (hex) → legend text, for the patch handles of the axes' legend."""
    legend = ax.get_legend() or (ax.figure.legends[0] if ax.figure.legends else None)
    if legend is None:
        return {}
    out = {}
    for handle, text in zip(legend.legend_handles, legend.get_texts(), strict=True):
        if hasattr(handle, "get_facecolor"):
            colour = handle.get_facecolor()
            if np.ndim(colour) == 2:
                colour = colour[0]
            out[to_hex(colour, keep_alpha=False)] = text.get_text()
    return out


def _bar_patches(ax: Axes) -> list[Rectangle]:
    return [
        p
        for p in ax.patches
        if type(p) is Rectangle and p.get_visible() and p.get_height() != 0
        and np.isfinite(p.get_width())
    ]  # fmt: skip


def bars(ax: Axes, *, horizontal: bool = True) -> pd.DataFrame:
    """The bars drawn on ``ax``, one row each, in drawing order.

    Columns: ``start``, ``end`` (extent along the value axis), ``value`` (signed length),
    ``low``, ``high`` (extent across it, in data units), ``label`` (the tick label nearest to
    the bar's centre), ``colour`` (hex) and ``hue`` (the legend entry of that colour, or None).
    Bars of zero length are listed too (a zero is data); the zero-size legend proxies that seaborn
    adds to ``ax.patches`` are not (they have no thickness).
    """
    _drawn(ax.figure)
    rows = []
    ticks = ax.get_yticks() if horizontal else ax.get_xticks()
    labels = [t.get_text() for t in (ax.get_yticklabels() if horizontal else ax.get_xticklabels())]
    by_colour = _legend_colours(ax)
    for p in _bar_patches(ax):
        x, y, w, h = p.get_x(), p.get_y(), p.get_width(), p.get_height()
        if horizontal:
            start, value, low, high = x, w, min(y, y + h), max(y, y + h)
        else:
            start, value, low, high = y, h, min(x, x + w), max(x, x + w)
        centre = (low + high) / 2
        label = None
        if len(ticks):
            i = int(np.argmin(np.abs(np.asarray(ticks, float) - centre)))
            label = labels[i] if i < len(labels) else None
        colour = to_hex(p.get_facecolor(), keep_alpha=False)
        rows.append(
            {
                "start": start,
                "end": start + value,
                "value": value,
                "low": low,
                "high": high,
                "label": label,
                "colour": colour,
                "hue": by_colour.get(colour),
            }
        )
    return pd.DataFrame(
        rows, columns=["start", "end", "value", "low", "high", "label", "colour", "hue"]
    )


def assert_no_hidden_bars(ax: Axes, *, horizontal: bool = True, tol: float = 1e-9) -> None:
    """Fail if two bars cover a common area (one painted over the other).

    Stacked bars touch end to start and pass; bars of one row drawn from the same baseline
    (``dodge=False``) overlap and fail.
    """
    b = bars(ax, horizontal=horizontal)
    lo_v = np.minimum(b["start"], b["end"]).to_numpy(float)
    hi_v = np.maximum(b["start"], b["end"]).to_numpy(float)
    lo_c, hi_c = b["low"].to_numpy(float), b["high"].to_numpy(float)
    hidden = []
    for i in range(len(b)):
        for j in range(i + 1, len(b)):
            across = min(hi_c[i], hi_c[j]) - max(lo_c[i], lo_c[j])
            along = min(hi_v[i], hi_v[j]) - max(lo_v[i], lo_v[j])
            zero_len = hi_v[i] - lo_v[i] <= tol or hi_v[j] - lo_v[j] <= tol
            if across > tol and (along > tol or (zero_len and along >= 0)):
                hidden.append(
                    f"{b['label'][i]!r}/{b['hue'][i]!r} and {b['label'][j]!r}/{b['hue'][j]!r}"
                )
    assert not hidden, f"bars drawn over each other: {hidden}"


# -- legends


def _legends(fig: Figure) -> list[Legend]:
    found = [ax.get_legend() for ax in fig.axes if ax.get_legend() is not None]
    return found + list(fig.legends)


def _is_data_line(line: Line2D, ax: Axes) -> bool:
    """A line drawn in data coordinates (not axhline/axvline, which span the axes)."""
    return line.get_visible() and line.get_transform() == ax.transData and len(line.get_xdata())


def _line_points(xy: np.ndarray, step: float = 2.0) -> np.ndarray:
    """Points every ``step`` pixels along a polyline in display coordinates."""
    xy = xy[np.isfinite(xy).all(axis=1)]
    if len(xy) < 2:
        return xy
    out = [xy[:1]]
    for a, b in zip(xy[:-1], xy[1:], strict=True):
        n = max(int(np.hypot(*(b - a)) / step), 1)
        t = np.linspace(0, 1, n + 1)[1:, None]
        out.append(a + t * (b - a))
    return np.concatenate(out)


def _inside(points: np.ndarray, box: Bbox, pad: float = 0.0) -> np.ndarray:
    if len(points) == 0:
        return np.zeros(0, bool)
    x, y = points[:, 0], points[:, 1]
    return (x > box.x0 - pad) & (x < box.x1 + pad) & (y > box.y0 - pad) & (y < box.y1 + pad)


def _grid(box: Bbox, n: int = 24) -> np.ndarray:
    xs = np.linspace(box.x0, box.x1, n)
    ys = np.linspace(box.y0, box.y1, n)
    return np.array([(x, y) for x in xs for y in ys])


def _overlap(a: Bbox, b: Bbox, px: float = 0.5) -> bool:
    """True when the boxes share an area wider and taller than ``px`` pixels."""
    both = Bbox.intersection(a, b)
    return both is not None and both.width > px and both.height > px


def _marks(ax: Axes) -> Iterable[tuple[str, object]]:
    """(description, test) pairs: ``test(box)`` is True when the mark reaches into ``box``."""
    renderer = ax.figure.canvas.get_renderer()
    clip = ax.get_window_extent(renderer)
    for p in _bar_patches(ax):
        ext = Bbox.intersection(p.get_window_extent(renderer), clip)
        if ext is not None and ext.width > 0.5 and ext.height > 0.5:
            yield f"bar at {p.get_xy()}", (lambda box, e=ext: _overlap(e, box))
    for line in ax.lines:
        if _is_data_line(line, ax):
            pts = _line_points(line.get_transform().transform(line.get_xydata()))
            pts = pts[_inside(pts, clip)]
            pad = line.get_markersize() / 2 if line.get_marker() not in (None, "", "None") else 0
            yield (
                f"line {line.get_label()!r}",
                lambda box, pts=pts, pad=pad: _inside(pts, box, pad).any(),
            )
    for coll in ax.collections:
        if not coll.get_visible():
            continue
        if isinstance(coll, PathCollection):  # scatter points
            pts = coll.get_offset_transform().transform(coll.get_offsets())
            pts = pts[_inside(pts, clip)]
            sizes = coll.get_sizes()
            pad = float(np.sqrt(sizes.max()) / 2 * ax.figure.dpi / 72) if len(sizes) else 0.0
            yield (
                f"points {coll.get_label()!r}",
                lambda box, pts=pts, pad=pad: _inside(pts, box, pad).any(),
            )
        elif isinstance(coll, LineCollection):  # error bars, hlines
            segs = [coll.get_transform().transform(np.asarray(s)) for s in coll.get_segments()]
            pts = np.concatenate([_line_points(s) for s in segs]) if segs else np.empty((0, 2))
            pts = pts[_inside(pts, clip)]
            yield "error bars", lambda box, pts=pts: _inside(pts, box).any()
        elif isinstance(coll, PolyCollection):  # filled areas (histogram steps, KDE fills)
            paths = [coll.get_transform().transform_path(p) for p in coll.get_paths()]
            yield (
                "filled area",
                lambda box, paths=paths: any(
                    p.contains_points(_grid(box)).any() or _inside(p.vertices, box).any()
                    for p in paths
                ),
            )
    for text in ax.texts:
        if text.get_visible() and text.get_text().strip():
            ext = text.get_window_extent(renderer)
            yield f"text {text.get_text()!r}", (lambda box, e=ext: _overlap(e, box))


def legend_overlaps(fig: Figure) -> list[str]:
    """Descriptions of the marks that a legend box of ``fig`` covers (empty: all clear)."""
    _drawn(fig)
    renderer = fig.canvas.get_renderer()
    found = []
    for legend in _legends(fig):
        box = legend.get_window_extent(renderer)
        for ax in fig.axes:
            for what, reaches in _marks(ax):
                if reaches(box):
                    found.append(
                        f"legend {[t.get_text() for t in legend.get_texts()]} covers {what}"
                    )
    return found


def assert_legend_clear(fig: Figure) -> None:
    """Fail if any legend box of ``fig`` covers a bar, point, data line, error bar, area or text."""
    found = legend_overlaps(fig)
    assert not found, "; ".join(found[:5]) + (
        f" (+{len(found) - 5} more)" if len(found) > 5 else ""
    )


def assert_texts_apart(ax: Axes) -> None:
    """Fail if two non-empty texts of ``ax`` (labels written on the panel) overlap."""
    _drawn(ax.figure)
    texts = [t for t in ax.texts if t.get_visible() and t.get_text().strip()]
    boxes = [Text.get_window_extent(t) for t in texts]  # the text itself, not an annotation's line
    clashes = [
        f"{texts[i].get_text()!r} and {texts[j].get_text()!r}"
        for i in range(len(texts))
        for j in range(i + 1, len(texts))
        if _overlap(boxes[i], boxes[j])
    ]
    assert not clashes, f"text labels overlap: {clashes}"


def assert_labels_clear_of_points(ax: Axes, x: Iterable[float], y: Iterable[float]) -> None:
    """Fail if a text of ``ax`` leaves the axes or covers one of the points ``(x, y)``.

    A point is a disc of 3 points' radius (a scatter marker of the book's sizes).
    """
    _drawn(ax.figure)
    frame = ax.get_window_extent()
    px = ax.transData.transform(np.column_stack([list(x), list(y)]))
    r = 3.0 * ax.figure.dpi / 72.0
    problems = []
    for t in ax.texts:
        if not (t.get_visible() and t.get_text().strip()):
            continue
        box = Text.get_window_extent(t)
        if (
            box.x0 < frame.x0 - 0.5
            or box.x1 > frame.x1 + 0.5
            or box.y0 < frame.y0 - 0.5
            or (box.y1 > frame.y1 + 0.5)
        ):
            problems.append(f"{t.get_text()!r} outside the axes")
        # nearest point of the box to each point centre, then the distance to it
        nx = np.clip(px[:, 0], box.x0, box.x1)
        ny = np.clip(px[:, 1], box.y0, box.y1)
        hit = np.flatnonzero(np.hypot(px[:, 0] - nx, px[:, 1] - ny) < r)
        problems += [f"{t.get_text()!r} covers point {i}" for i in hit]
    assert not problems, "; ".join(problems)


def _shown_ticklabels(ax: Axes) -> list[Text]:
    """The tick labels matplotlib draws: non-empty, at a tick inside the view limits."""
    shown = []
    for axis, (lo, hi) in ((ax.xaxis, ax.get_xlim()), (ax.yaxis, ax.get_ylim())):
        lo, hi = min(lo, hi), max(lo, hi)
        tol = 1e-9 * max(abs(lo), abs(hi), 1.0)
        for tick in axis.get_major_ticks():
            label = tick.label1
            if (
                label.get_visible()
                and label.get_text().strip()
                and lo - tol <= tick.get_loc() <= hi + tol
            ):
                shown.append(label)
    return shown


def assert_panel_texts_apart(fig: Figure) -> None:
    """Fail if the titles, axis labels or tick labels of two panels of ``fig`` overlap, or a
    panel's title or axis label overlaps another panel's data area."""
    _drawn(fig)
    texts = []
    for k, ax in enumerate(fig.axes):
        for t in [ax.title, ax.xaxis.label, ax.yaxis.label]:
            if t.get_visible() and t.get_text().strip():
                texts.append((k, t.get_text(), t.get_window_extent()))
        for t in _shown_ticklabels(ax):
            texts.append((k, t.get_text(), t.get_window_extent()))
    clashes = [
        f"{a!r} (panel {i}) and {b!r} (panel {j})"
        for n, (i, a, box_a) in enumerate(texts)
        for (j, b, box_b) in texts[n + 1 :]
        if i != j and _overlap(box_a, box_b)
    ]
    for i, text, box in texts:
        for j, ax in enumerate(fig.axes):
            if i != j and _overlap(box, ax.get_window_extent()):
                clashes.append(f"{text!r} (panel {i}) over panel {j}")
    assert not clashes, f"panel texts run into each other: {clashes[:5]}"
