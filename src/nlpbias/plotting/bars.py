"""Horizontal bar figures: one series per row (:func:`barh`) or several side by side
(:func:`paired_barh`).

Every bar of a figure has its own place: bars of one row with different ``hue`` values stand
side by side (never one painted over another), and the legend sits beside the panel, outside the
data. Every function returns a matplotlib Figure built without pyplot (see
:mod:`nlpbias.plotting`).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd
import seaborn as sns
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.ticker import FuncFormatter, MaxNLocator, NullFormatter, PercentFormatter

from nlpbias.plotting.labels import Names, relabel
from nlpbias.plotting.style import (
    LABEL_COLOURS,
    PALETTE,
    facet_frames,
    join_columns,
    legend_below,
    legend_beside,
    mark_empty,
    new_figure,
    require_columns,
)

__all__ = ["barh", "paired_barh"]


def _plain_log_axis(ax: Axes, values: pd.Series) -> None:
    """Log value axis that starts at the power of ten below the smallest bar, in plain numbers.

    Bars on a log axis have no zero; starting them at a round power of ten makes their lengths
    read as orders of magnitude above it, and the ticks read 1, 10, 1,000 rather than 10^3.
    """
    ax.set_xscale("log")
    positive = pd.to_numeric(values, errors="coerce")
    positive = positive[positive > 0]
    if len(positive):
        lo = 10.0 ** np.floor(np.log10(float(positive.min())))
        hi = 10.0 ** np.ceil(np.log10(float(positive.max()) * 1.05))
        ax.set_xlim(lo, hi)
    ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:,.10g}"))
    ax.xaxis.set_minor_formatter(NullFormatter())


def _value_text(value: float, percent: bool) -> str:
    if not np.isfinite(value):
        return "n/a"
    if value == 0:
        return "0"
    if percent:
        return f"{value:.2%}"
    return f"{value:,.0f}" if float(value).is_integer() else f"{value:.2g}"


def _label_unseen_bars(
    ax: Axes, values: np.ndarray, positions: np.ndarray, *, percent: bool, log: bool
) -> None:
    """Write the value beside each bar too short to see, and "n/a" where there is no value.

    A bar of 0, of 2 rows among 4,000, or of a missing value draws (almost) nothing, so a reader
    cannot tell it from a row the figure forgot. Such rows carry their value as text at the
    bar's end (a missing value at the axis origin).
    """
    lo, hi = ax.get_xlim()
    origin = lo if log else 0.0
    for value, pos in zip(values, positions, strict=True):
        if np.isfinite(value) and (log or abs(value) >= 0.01 * (hi - lo)):
            continue
        end = value if np.isfinite(value) else origin
        left = np.isfinite(value) and value < 0  # a negative bar's value on its own side
        ax.annotate(
            _value_text(value, percent),
            (end, pos),
            xytext=(-3 if left else 3, 0),
            textcoords="offset points",
            ha="right" if left else "left",
            va="center",
            fontsize="x-small",
            color="0.3",
        )


def _lines(labels: Sequence[str]) -> int:
    return max((str(s).count("\n") + 1 for s in labels), default=1)


def barh(
    df: pd.DataFrame,
    *,
    x: str,
    y: str | Sequence[str],
    hue: str | None = None,
    palette: dict[object, str] | None = None,
    title: str | None = None,
    xlabel: str | None = None,
    log: bool = False,
    percent: bool = False,
    names: Names = None,
    legend_title: str | None = None,
) -> Figure:
    """Horizontal bars of ``x`` per ``y`` (rows kept in the frame's order), optionally coloured.

    A bar too short to see (under 1 % of the value axis: a 0, or 2 rows among 4,000) carries its
    value as text, and a missing value reads "n/a", so no row looks forgotten.

    Parameters
    ----------
    df : DataFrame
        One row per bar.
    x, y : str
        Column of the bar lengths, column(s) of the row labels; several ``y`` columns are joined
        (``"gap: test"``).
    hue : str, optional
        Column that colours the bars. Where a row label has several ``hue`` values, their bars
        stand side by side within the row; where each has one, the colour marks it.
    palette : dict, optional
        Colour per ``hue`` value (before ``names`` is applied).
    title, xlabel : str, optional
        ``xlabel`` defaults to the name of ``x``; give the unit in it.
    log : bool
        Logarithmic value axis from the power of ten below the shortest bar, in plain numbers.
    percent : bool
        Values are shares in [0, 1], shown as percentages.
    names : mapping or function, optional
        Display label of each ``y`` and ``hue`` value (e.g.
        :func:`nlpbias.plotting.labels.wordset_label`; with several ``y`` columns, of each
        column's values before they are joined); values it does not know stay as they are.
    legend_title : str, optional
        Title of the legend (beside the panel); default none.

    Examples
    --------
    >>> fig = barh(pd.DataFrame({"name": ["a", "b"], "mb": [1.0, 2.0]}), x="mb", y="name")
    >>> len(fig.axes[0].patches)
    2
    """
    require_columns(df, [x] + ([hue] if hue else []), "barh")
    if names is not None and not isinstance(y, str):  # name each part before joining them
        parts = list(y)
        require_columns(df, parts, "barh")
        df = df.assign(**{c: df[c].map(lambda v: relabel(v, names)) for c in parts})
    df, y = join_columns(df, y)
    rows = [relabel(v, names) for v in dict.fromkeys(df[y])]
    levels = list(dict.fromkeys(df[hue])) if hue is not None else []
    dodge = hue is not None and bool((df.groupby(y, sort=False)[hue].nunique() > 1).any())
    per_row = max(len(levels), 1) if dodge else 1
    height = 0.3 * len(rows) * max(_lines(rows), 0.75 * per_row) + 1.0
    fig, (ax,) = new_figure(1, width=8.0, height=max(2.0, height))
    if df.empty:
        mark_empty(ax, "rows")
        ax.set_title(title or "")
        return fig
    plot = df.assign(**{y: df[y].map(lambda v: relabel(v, names))})
    hue_order = None
    if hue is not None:
        if palette is None:
            palette = dict(zip(levels, PALETTE * 3, strict=False))
        palette = {relabel(k, names): c for k, c in palette.items()}
        plot[hue] = df[hue].map(lambda v: relabel(v, names))
        hue_order = [relabel(v, names) for v in levels]
    sns.barplot(
        data=plot, x=x, y=y, hue=hue, palette=palette if hue else None, ax=ax, orient="h",
        order=rows, hue_order=hue_order, dodge=dodge, errorbar=None, legend=hue is not None,
    )  # fmt: skip
    if hue is not None:
        legend_beside(ax, title=legend_title)
    if log:
        _plain_log_axis(ax, df[x])
    if percent:
        ax.xaxis.set_major_formatter(PercentFormatter(1.0))
    row_of = {r: i for i, r in enumerate(rows)}
    pos = plot[y].map(row_of).to_numpy(float)
    if dodge:  # seaborn's dodge: the row's 0.8 shared by the hue levels in order
        j = plot[hue].map({h: i for i, h in enumerate(hue_order or [])}).to_numpy(float)
        pos = pos - 0.4 + 0.8 * (j + 0.5) / per_row
    values = pd.to_numeric(df[x], errors="coerce").to_numpy(float)
    _label_unseen_bars(ax, values, pos, percent=percent, log=log)
    ax.set(title=title or "", xlabel=xlabel or x, ylabel="")
    return fig


def paired_barh(
    df: pd.DataFrame,
    *,
    y: str,
    x: Sequence[str],
    labels: Sequence[str] | None = None,
    by: str | None = None,
    percent: bool = True,
    title: str | None = None,
    xlabel: str = "",
) -> Figure:
    """Side-by-side horizontal bars of several columns ``x`` per row ``y``, one panel per ``by``.

    One legend for all panels, below them.

    Examples
    --------
    >>> df = pd.DataFrame({"term": ["a", "b"], "p": [0.1, 0.2], "q": [0.3, 0.1]})
    >>> fig = paired_barh(df, y="term", x=["p", "q"])
    >>> sum(len(bars) for bars in fig.axes[0].containers)
    4
    """
    x = list(x)
    labels = list(labels) if labels is not None else x
    require_columns(df, [y, *x], "paired_barh")
    if len(labels) != len(x):
        raise ValueError(f"labels has {len(labels)} names for {len(x)} columns; give one each")
    facets = facet_frames(df, by)
    rows = max((sub[y].nunique() for _, sub in facets), default=1)
    fig, axes = new_figure(len(facets), height=max(2.5, 0.35 * rows * len(x) / 2 + 1.2))
    colours = [LABEL_COLOURS[True], "#8C8C8C"] if len(x) == 2 else PALETTE[: len(x)]
    legend = None
    for ax, (key, sub) in zip(axes, facets, strict=True):
        if sub.empty:
            mark_empty(ax, "rows")
            continue
        long = sub.melt(id_vars=[y], value_vars=x, var_name="series", value_name="value")
        long["series"] = long["series"].map(dict(zip(x, labels, strict=True)))
        sns.barplot(
            data=long, x="value", y=y, hue="series", hue_order=labels, ax=ax, orient="h",
            errorbar=None, palette=colours,
        )  # fmt: skip
        if percent:
            ax.xaxis.set_major_formatter(PercentFormatter(1.0))
        ax.xaxis.set_major_locator(MaxNLocator(nbins=5))  # labels like 1.25% need the room
        ax.set(title=str(key) if key is not None else (title or ""), xlabel=xlabel, ylabel="")
        if ax.get_legend() is not None:
            legend = ax.get_legend_handles_labels()
            ax.get_legend().remove()
    if legend is not None:
        legend_below(fig, *legend)
    if title and by is not None and by in df.columns:
        fig.suptitle(title)
    return fig
