"""Figures of the data chapter: text lengths, toxicity by length, label balance, planted rates.

Every function returns a matplotlib Figure built without pyplot, in the book's style
(:mod:`nlpbias.plotting`). The figures the data chapter shares with other chapters (bars, the
identity-term frequencies) are in :mod:`nlpbias.plotting`.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd
import seaborn as sns
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.ticker import FuncFormatter, NullFormatter, PercentFormatter

from nlpbias.core.checks import check_choice
from nlpbias.plotting import (  # toxicity_by_length_figure: drawn by two chapters, re-exported
    LABEL_COLOURS,
    LABEL_NAMES,
    PALETTE,
    annotate_apart,
    facet_frames,
    join_columns,
    legend_below,
    legend_beside,
    mark_empty,
    new_figure,
    require_columns,
    toxicity_by_length_figure,
)

__all__ = [
    "label_balance_figure",
    "length_figure",
    "observed_vs_planted",
    "stacked_share_barh",
    "toxicity_by_length_figure",
]


def length_figure(
    lengths: pd.DataFrame,
    *,
    by: str | None = "dataset",
    hue: str | None = "label",
    kind: str = "hist",
    unit: str = "characters",
    log_scale: bool = True,
) -> Figure:
    """Distribution of text lengths, one panel per ``by`` group, coloured by ``hue``.

    Parameters
    ----------
    lengths : DataFrame
        Output of :func:`nlpbias.data.describe.text_lengths` (columns ``length`` and, optionally,
        ``label`` and the ``by`` column).
    kind : {'hist', 'ecdf'}
        Density histogram (each hue normalised on its own) or empirical CDF.
    log_scale : bool
        Logarithmic length axis; lengths of 0 are then shown as 1 (the axis label says so).

    Examples
    --------
    >>> lengths = pd.DataFrame({"length": [3, 5, 40, 50], "label": [True, True, False, False]})
    >>> fig = length_figure(lengths, by=None)
    >>> fig.axes[0].get_xscale()
    'log'
    """
    require_columns(lengths, ["length"], "length_figure")
    check_choice(kind, "kind", ["hist", "ecdf"])
    hue = hue if hue is not None and hue in lengths.columns else None
    only = None  # a hue with one value needs no legend: its name goes into the title
    if hue is not None and lengths[hue].nunique() == 1 and hue != "label":
        only, hue = str(lengths[hue].iloc[0]), None
    facets = facet_frames(lengths, by)
    # one legend below all panels; beside a single panel only when it is short (a few short
    # names), since a long one beside the panel leaves the data a third of the width
    values = [str(v) for v in lengths[hue].unique()] if hue is not None else []
    below = len(facets) > 1 or len(values) > 4 or max(map(len, values), default=0) > 20
    fig, axes = new_figure(
        len(facets), width=7.4 if hue is not None and not below else 6.4, height=3.6
    )
    palette = None  # one colour per hue value across all panels
    if hue == "label" and set(lengths[hue].unique()) <= set(LABEL_COLOURS):
        palette = {LABEL_NAMES[k]: c for k, c in LABEL_COLOURS.items()}
    elif hue is not None:
        palette = dict(zip(lengths[hue].unique(), PALETTE * 3, strict=False))
    legend_entries: dict[str, object] = {}
    for ax, (key, sub) in zip(axes, facets, strict=True):
        if sub.empty:
            mark_empty(ax, "texts")
            continue
        sub = sub.copy()
        zero = log_scale and bool((sub["length"] <= 0).any())
        if zero:
            sub["length"] = sub["length"].clip(lower=1)
        if hue == "label" and set(sub[hue].unique()) <= set(LABEL_COLOURS):
            sub[hue] = sub[hue].map(LABEL_NAMES)
        common = {"data": sub, "x": "length", "hue": hue, "ax": ax, "palette": palette}
        if kind == "hist":
            sns.histplot(
                **common, log_scale=log_scale, stat="density", common_norm=False,
                element="step", bins=40,
            )  # fmt: skip
            ylabel = "density (each colour's area is 1)" if hue else "density (area 1)"
        else:
            sns.ecdfplot(**common, log_scale=log_scale)
            ylabel = "share of texts this long or shorter"
            ax.yaxis.set_major_formatter(PercentFormatter(1.0))
        if log_scale:
            _plain_log_ticks(ax)
        xlabel = f"length in {unit}" + (" (log scale; 0 shown as 1)" if zero else "")
        if log_scale and not zero:
            xlabel += " (log scale)"
        heading = " — ".join(str(k) for k in (key, only) if k is not None)
        ax.set(title=heading, xlabel=xlabel, ylabel=ylabel)
        legend = ax.get_legend()
        if legend is not None and not below:
            sns.move_legend(
                ax, "upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0.0, title=None
            )
        elif legend is not None:
            for handle, text in zip(legend.legend_handles, legend.get_texts(), strict=True):
                legend_entries.setdefault(text.get_text(), handle)
            legend.remove()
    if legend_entries:
        legend_below(fig, list(legend_entries.values()), list(legend_entries))
    return fig


def _plain_log_ticks(ax: Axes) -> None:
    """Tick labels 1, 10, 100, 1,000 on a log x axis (not 10^0, 10^1, ...)."""
    ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:,.10g}"))
    ax.xaxis.set_minor_formatter(NullFormatter())


def stacked_share_barh(
    df: pd.DataFrame,
    *,
    y: str | Sequence[str],
    hue: str,
    x: str = "share",
    colours: dict[object, str] | None = None,
    names: dict[object, str] | None = None,
    title: str | None = None,
) -> Figure:
    """100 % stacked horizontal bars: for each ``y``, the shares ``x`` of each ``hue`` value.

    ``y`` may name several columns; their values are then joined (``"gap: test"``).

    Examples
    --------
    >>> df = pd.DataFrame({"part": ["a", "a"], "gender": ["f", "m"], "share": [0.5, 0.5]})
    >>> len(stacked_share_barh(df, y="part", hue="gender").axes[0].patches)
    2
    """
    require_columns(df, [hue, x], "stacked_share_barh")
    df, y = join_columns(df, y)
    ys = list(dict.fromkeys(df[y].astype(str)))
    fig, (ax,) = new_figure(1, width=8.0, height=max(1.8, 0.32 * len(ys) + 1.2))
    if df.empty:
        mark_empty(ax, "rows")
        ax.set_title(title or "")
        return fig
    wide = df.assign(**{y: df[y].astype(str)}).pivot_table(
        index=y, columns=hue, values=x, aggfunc="sum", fill_value=0.0, observed=True
    )
    wide = wide.reindex(ys[::-1])
    left = np.zeros(len(wide))
    for i, value in enumerate(wide.columns):
        colour = (colours or {}).get(value, PALETTE[i % len(PALETTE)])
        name = (names or {}).get(value, str(value))
        ax.barh(wide.index, wide[value], left=left, color=colour, label=name)
        left += wide[value].to_numpy()
    ax.xaxis.set_major_formatter(PercentFormatter(1.0))
    ax.axvline(0.5, color="grey", linewidth=0.8, linestyle=":")
    ax.set(xlim=(0, 1), title=title or "", xlabel="share", ylabel="")
    legend_beside(ax)
    return fig


def label_balance_figure(balance: pd.DataFrame, *, by: str = "dataset") -> Figure:
    """Share of each label per dataset (output of ``label_balance(..., by=by)``).

    Examples
    --------
    >>> bal = pd.DataFrame({"dataset": ["d", "d"], "label": [False, True], "share": [0.8, 0.2]})
    >>> len(label_balance_figure(bal).axes[0].patches)
    2
    """
    require_columns(balance, ["label", "share"], "label_balance_figure")
    if by not in balance.columns:
        balance = balance.assign(**{by: "all"})
    return stacked_share_barh(
        balance, y=by, hue="label", colours=LABEL_COLOURS, names=LABEL_NAMES, title="Label balance"
    )


def observed_vs_planted(
    df: pd.DataFrame,
    *,
    planted: str,
    observed: str,
    name: str | None = None,
    label: str = "term",
    title: str | None = None,
    percent: bool = True,
) -> Figure:
    """Scatter of observed against planted values with the identity line (a recovery check).

    Points on the dashed diagonal were recovered exactly; each point is annotated with ``label``.
    ``name`` (default: the ``planted`` column's name) labels the axes "planted NAME" and
    "observed NAME".

    Examples
    --------
    >>> df = pd.DataFrame({"term": ["a", "b"], "p": [0.2, 0.6], "o": [0.25, 0.55]})
    >>> len(observed_vs_planted(df, planted="p", observed="o").axes[0].texts)
    2
    """
    require_columns(df, [planted, observed, label], "observed_vs_planted")
    fig, (ax,) = new_figure(1, width=4.8, height=4.4)
    if df.empty:
        mark_empty(ax, "rows")
        return fig
    values = pd.concat([df[planted], df[observed]]).astype(float)
    lo, hi = float(values.min()), float(values.max())
    pad = 0.05 * (hi - lo or 1.0)
    lims = (lo - pad, hi + pad)
    ax.plot(lims, lims, color="grey", linestyle="--", linewidth=1, label="observed = planted")
    ax.scatter(df[planted], df[observed], color=PALETTE[1], zorder=3)
    if percent:
        ax.xaxis.set_major_formatter(PercentFormatter(1.0))
        ax.yaxis.set_major_formatter(PercentFormatter(1.0))
    name = name or planted
    ax.set(xlim=lims, ylim=lims, xlabel=f"planted {name}", ylabel=f"observed {name}")
    ax.set_title(title or "")
    legend_below(fig, *ax.get_legend_handles_labels())
    annotate_apart(  # last: label positions are computed on the final layout
        ax, df[planted].to_numpy(float), df[observed].to_numpy(float), list(df[label].astype(str))
    )
    return fig
