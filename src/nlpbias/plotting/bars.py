"""Horizontal bar figures: one series per row (:func:`barh`) or several side by side
(:func:`paired_barh`).

Every function returns a matplotlib Figure built without pyplot (see :mod:`nlpbias.plotting`).
"""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd
import seaborn as sns
from matplotlib.figure import Figure
from matplotlib.ticker import PercentFormatter

from nlpbias.plotting.style import (
    LABEL_COLOURS,
    PALETTE,
    facet_frames,
    join_columns,
    mark_empty,
    new_figure,
    require_columns,
)

__all__ = ["barh", "paired_barh"]


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
) -> Figure:
    """Horizontal bars of ``x`` per ``y`` (rows kept in the frame's order), optionally coloured.

    ``y`` may name several columns; their values are then joined (``"gap: test"``).

    Examples
    --------
    >>> fig = barh(pd.DataFrame({"name": ["a", "b"], "mb": [1.0, 2.0]}), x="mb", y="name")
    >>> len(fig.axes[0].patches)
    2
    """
    require_columns(df, [x] + ([hue] if hue else []), "barh")
    df, y = join_columns(df, y)
    fig, (ax,) = new_figure(1, width=8.0, height=max(2.0, 0.3 * df[y].nunique() + 1))
    if df.empty:
        mark_empty(ax, "rows")
        return fig
    if hue is not None and palette is None:
        palette = dict(zip(df[hue].unique(), PALETTE * 3, strict=False))
    sns.barplot(
        data=df, x=x, y=y, hue=hue, palette=palette, ax=ax, orient="h", dodge=False,
        errorbar=None,
    )  # fmt: skip
    if hue is not None:
        ax.legend(title=hue, loc="best")
    if log:
        ax.set_xscale("log")
    if percent:
        ax.xaxis.set_major_formatter(PercentFormatter(1.0))
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
    for ax, (key, sub) in zip(axes, facets, strict=True):
        if sub.empty:
            mark_empty(ax, "rows")
            continue
        long = sub.melt(id_vars=[y], value_vars=x, var_name="series", value_name="value")
        long["series"] = long["series"].map(dict(zip(x, labels, strict=True)))
        sns.barplot(
            data=long, x="value", y=y, hue="series", ax=ax, orient="h", errorbar=None,
            palette=[LABEL_COLOURS[True], "#8C8C8C"] if len(x) == 2 else PALETTE[: len(x)],
        )  # fmt: skip
        if percent:
            ax.xaxis.set_major_formatter(PercentFormatter(1.0))
        ax.set(title=str(key) if key is not None else (title or ""), xlabel=xlabel, ylabel="")
        ax.legend(title=None, loc="lower right")
    if title and by is not None and by in df.columns:
        fig.suptitle(title)
    return fig
