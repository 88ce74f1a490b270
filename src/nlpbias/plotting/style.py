"""The book's figure style and the helpers every figure uses.

Call :func:`set_style` once at the top of a notebook. Figures are built with :func:`new_figure`,
without pyplot (so a notebook shows each exactly once, as the cell's value, and no figure is left
open); nothing random or time-dependent goes into a figure.

Colours are the Okabe–Ito palette (:data:`PALETTE`), which stays distinguishable under the
common colour-vision deficiencies; labels always use the same two colours
(:data:`LABEL_COLOURS`). :func:`require_columns`, :func:`facet_frames`, :func:`join_columns`
and :func:`mark_empty` are the input checks and panel helpers of every figure function, here and in
the studies' ``figures`` modules; :func:`legend_beside` and :func:`legend_below` put legends where
they hide no data (outside the panels).
"""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd
import seaborn as sns
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.legend import Legend

__all__ = [
    "LABEL_COLOURS",
    "LABEL_NAMES",
    "PALETTE",
    "facet_frames",
    "join_columns",
    "legend_below",
    "legend_beside",
    "mark_empty",
    "new_figure",
    "require_columns",
    "set_style",
]

#: Okabe–Ito colours (black last).
PALETTE: list[str] = [
    "#0072B2",  # blue
    "#D55E00",  # vermillion
    "#009E73",  # bluish green
    "#CC79A7",  # reddish purple
    "#E69F00",  # orange
    "#56B4E9",  # sky blue
    "#F0E442",  # yellow
    "#000000",  # black
]

#: Widest row of panels, in inches (see :func:`new_figure`).
MAX_WIDTH = 8.5

#: Colour of each toxicity label, used by every chapter.
LABEL_COLOURS: dict[object, str] = {False: PALETTE[0], True: PALETTE[1]}
#: Legend name of each toxicity label.
LABEL_NAMES: dict[object, str] = {False: "not toxic", True: "toxic"}

_RC = {
    "figure.dpi": 100,
    "savefig.dpi": 150,
    "savefig.bbox": "tight",
    "axes.titlesize": "medium",
    "axes.titleweight": "bold",
    "legend.frameon": False,
    "svg.hashsalt": "nlpbias",  # deterministic SVG ids
    "svg.fonttype": "none",
    "pdf.compression": 6,
}


def set_style() -> None:
    """Apply the book's seaborn theme and matplotlib settings (idempotent).

    Examples
    --------
    >>> set_style()
    >>> import matplotlib
    >>> matplotlib.rcParams["svg.hashsalt"]
    'nlpbias'
    """
    sns.set_theme(context="notebook", style="whitegrid", palette=PALETTE, rc=_RC)


def new_figure(
    n: int = 1,
    *,
    ncols: int = 2,
    width: float = 6.4,
    height: float = 4.0,
    sharex: bool = False,
    sharey: bool = False,
) -> tuple[Figure, list[Axes]]:
    """A figure with ``n`` panels, ``ncols`` per row (each ``width`` x ``height`` inches).

    A row of panels is at most :data:`MAX_WIDTH` inches wide: wider panels are narrowed to fit,
    so that a figure shown at the book's column width (about 690 pixels, 7 inches at the
    figures' 100 dpi) keeps its text readable: a 13-inch figure was shrunk to about half size
    on the page, its 11-point labels to 6 points; at 8.5 inches they stay at 9.

    Returns
    -------
    (Figure, list of Axes)
        Unused grid cells are removed.

    Examples
    --------
    >>> fig, axes = new_figure(3)
    >>> len(axes), len(fig.axes)
    (3, 3)
    """
    if n < 1:
        raise ValueError(f"a figure needs at least one panel, got n={n}")
    ncols = max(1, min(ncols, n))
    nrows = -(-n // ncols)
    width = min(width, MAX_WIDTH / ncols)
    fig = Figure(figsize=(width * ncols, height * nrows), layout="constrained")
    grid = fig.subplots(nrows, ncols, sharex=sharex, sharey=sharey, squeeze=False).ravel()
    for ax in grid[n:]:
        fig.delaxes(ax)
    return fig, list(grid[:n])


def facet_frames(df: pd.DataFrame, by: str | None) -> list[tuple[object, pd.DataFrame]]:
    """``(key, sub-frame)`` per value of ``by`` (order of appearance); ``[(None, df)]`` if none."""
    if not isinstance(df, pd.DataFrame):
        raise TypeError(f"expected a pandas DataFrame, got {type(df).__name__}")
    if by is None or by not in df.columns:
        return [(None, df)]
    return list(df.groupby(by, sort=False, observed=True))


def require_columns(df: pd.DataFrame, columns: Sequence[str], what: str) -> None:
    """Raise a one-line TypeError/KeyError unless ``df`` is a DataFrame with ``columns``."""
    if not isinstance(df, pd.DataFrame):
        raise TypeError(f"{what} needs a pandas DataFrame, got {type(df).__name__}")
    missing = [c for c in columns if c not in df.columns]
    if missing:
        raise KeyError(f"{what}: column(s) {missing} not in the frame (has {list(df.columns)})")


def join_columns(df: pd.DataFrame, y: str | Sequence[str]) -> tuple[pd.DataFrame, str]:
    """Return ``df`` with one label column for ``y`` (several columns are joined with ': ')."""
    if isinstance(y, str):
        return df, y
    cols = list(y)
    require_columns(df, cols, "figure")
    label = ": ".join(cols)
    joined = df[cols[0]].astype(str).str.cat([df[c].astype(str) for c in cols[1:]], sep=": ")
    return df.assign(**{label: joined}), label


def legend_beside(ax: Axes, *, title: str | None = None, **kwargs: object) -> Legend | None:
    """Put the legend of ``ax`` to the right of its axes, top-aligned, where it hides no mark.

    The constrained layout of :func:`new_figure` makes room for it. Keyword arguments go to
    :meth:`~matplotlib.axes.Axes.legend` (e.g. ``handles``); returns None when there is nothing
    to show.
    """
    handles, labels = ax.get_legend_handles_labels()
    if not handles and "handles" not in kwargs:
        return None
    options = {"loc": "upper left", "bbox_to_anchor": (1.01, 1.0), "borderaxespad": 0.0}
    options.update(kwargs)
    return ax.legend(title=title, **options)


def legend_below(
    fig: Figure, handles: Sequence[object], labels: Sequence[str], *, title: str | None = None
) -> Legend:
    """One legend for a figure of several panels, centred below them (outside every panel).

    Up to five entries stand in one row, fewer where long labels would make the row wider than
    the figure; more entries fill rows of equal length, read left to right.
    """
    n = len(labels)
    chars = [max(len(line) for line in str(label).split("\n")) for label in labels]
    ncols = 1
    for cap in range(min(5, n), 0, -1):
        ncols = -(-n // -(-n // cap))  # rows of equal length
        # a column is as wide as its longest entry: ≈ 0.08 inch a character and 0.6 for the key
        width = sum(0.08 * max(chars[c::ncols]) + 0.6 for c in range(ncols))
        if width <= fig.get_figwidth():
            break
    order = [i for c in range(ncols) for i in range(c, n, ncols)]  # matplotlib fills columns
    return fig.legend(
        [handles[i] for i in order],
        [labels[i] for i in order],
        loc="outside lower center",
        ncols=ncols,
        title=title,
    )


def mark_empty(ax: Axes, what: str) -> None:
    """Write "no WHAT in this run" on an empty panel and hide its axes."""
    ax.text(0.5, 0.5, f"no {what} in this run", ha="center", va="center", transform=ax.transAxes)
    ax.set_axis_off()
