"""Figures of the chapter on associations in word embeddings: per-word associations, scatters.

Every function returns a matplotlib Figure built without pyplot, in the book's style
(:mod:`nlpbias.plotting`). The figures the chapter shares with other chapters (effect sizes with
intervals, heatmaps, bars) are in :mod:`nlpbias.plotting`.
"""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd
from matplotlib.figure import Figure
from matplotlib.patches import Patch
from matplotlib.ticker import MaxNLocator

from nlpbias.plotting import (
    PALETTE,
    annotate_apart,
    legend_beside,
    new_figure,
    relabel,
    require_columns,
    tidy_label,
    wordset_label,
)
from nlpbias.plotting.labels import Names

__all__ = ["RNSB_VARIANTS", "association_figure", "rnsb_figure", "scatter_figure"]

#: RNSB variant → (panel title, axis label with the unit) of :func:`rnsb_figure`.
RNSB_VARIANTS: dict[str, tuple[str, str]] = {
    "signed": ("signed two-set RNSB", "score from −1 to 1\n(0: no bias)"),
    "kl": ("KL from uniform", "KL divergence in nats\n(0: no bias)"),
    "kl_sets": ("KL over the two sets", "KL divergence in nats\n(0: no bias)"),
}


def association_figure(
    df: pd.DataFrame,
    *,
    word: str = "word",
    value: str = "association",
    hue: str = "set",
    xlabel: str = "association s(w)",
    title: str | None = None,
    colours: dict[object, str] | None = None,
) -> Figure:
    """Horizontal bars of a per-word association, sorted, coloured by the word's set.

    One bar per row of ``df``; the legend (the set names written as words, "male occupations")
    stands beside the panel.

    Examples
    --------
    >>> df = pd.DataFrame({"word": ["nurse", "engineer"], "association": [-0.1, 0.2],
    ...                    "set": ["female", "male"]})
    >>> [t.get_text() for t in association_figure(df).axes[0].get_yticklabels()]
    ['engineer', 'nurse']
    """
    require_columns(df, [word, value, hue], "association_figure")
    data = df.sort_values(value, ascending=False, ignore_index=True)
    groups = list(dict.fromkeys(df[hue]))
    colours = colours or {g: PALETTE[i % len(PALETTE)] for i, g in enumerate(groups)}
    fig, (ax,) = new_figure(1, ncols=1, width=7.5, height=0.22 * len(data) + 1.5)
    ax.barh(range(len(data)), data[value], color=[colours[g] for g in data[hue]])
    ax.set_yticks(range(len(data)), data[word].astype(str).tolist(), fontsize="small")
    ax.set_ylim(len(data) - 0.5, -0.5)  # first row on top, no empty rows around
    ax.axvline(0, color="grey", linewidth=0.8)
    handles = [Patch(color=colours[g], label=tidy_label(g)) for g in groups]
    legend_beside(ax, handles=handles, fontsize="small")
    ax.set(xlabel=xlabel, title=title or "")
    return fig


def scatter_figure(
    df: pd.DataFrame,
    *,
    x: str,
    y: str,
    hue: str | None = None,
    label: str | None = None,
    xlabel: str | None = None,
    ylabel: str | None = None,
    title: str | None = None,
    annotate: Sequence[str] | None = None,
) -> Figure:
    """Scatter of ``y`` against ``x``, optionally coloured by ``hue`` and labelled by ``label``.

    Labels of crowded points are stacked in a column beside them, joined to their points by thin
    lines (:func:`nlpbias.plotting.annotate_apart`), so no label is printed over another.

    Examples
    --------
    >>> df = pd.DataFrame({"a": [1, 2, 3], "b": [3, 1, 2], "w": ["x", "y", "z"]})
    >>> len(scatter_figure(df, x="a", y="b", label="w").axes[0].texts)
    3
    """
    require_columns(df, [x, y] + [c for c in (hue, label) if c], "scatter_figure")
    fig, (ax,) = new_figure(1, ncols=1, width=6.4, height=4.6)
    groups = list(dict.fromkeys(df[hue])) if hue else [None]
    for i, g in enumerate(groups):
        sub = df if g is None else df[df[hue] == g]
        ax.scatter(
            sub[x],
            sub[y],
            color=PALETTE[i % len(PALETTE)],
            s=22,
            label=None if g is None else tidy_label(g),
        )
    ax.set(xlabel=xlabel or x, ylabel=ylabel or y, title=title or "")
    if hue:
        legend_beside(ax, fontsize="small")
    if label:  # last: label positions are computed on the final layout
        keep = df if annotate is None else df[df[label].isin(annotate)]
        annotate_apart(
            ax,
            keep[x].to_numpy(float),
            keep[y].to_numpy(float),
            list(keep[label].astype(str)),
            fontsize="x-small",
        )
    return fig


def rnsb_figure(
    scores: pd.DataFrame, *, title: str | None = None, names: Names = wordset_label
) -> Figure:
    """RNSB per word set, one panel per variant (each variant on its own scale and unit).

    Parameters
    ----------
    scores : DataFrame
        Rows of :func:`nlpbias.metrics.rnsb.rnsb_table` for one or more variants: ``name``,
        ``variant`` (``signed``, ``kl`` or ``kl_sets``) and ``score``.
    title : str, optional
        Figure title.
    names : mapping or function, default :func:`nlpbias.plotting.labels.wordset_label`
        Display label of each word set.

    Returns
    -------
    matplotlib.figure.Figure
        One bar per row of ``scores``, word sets top to bottom in order of first appearance, the
        same rows in every panel, a line at 0.

    Examples
    --------
    >>> s = pd.DataFrame({"name": ["a", "b", "a"], "variant": ["signed", "signed", "kl"],
    ...                   "score": [0.2, -0.1, 0.05]})
    >>> fig = rnsb_figure(s)
    >>> [ax.get_title() for ax in fig.axes], len(fig.axes[1].patches)
    (['signed two-set RNSB', 'KL from uniform'], 1)
    """
    require_columns(scores, ["name", "variant", "score"], "rnsb_figure")
    if scores.empty:
        raise ValueError("rnsb_figure: the frame has no rows; run rnsb_table first")
    rows = list(dict.fromkeys(scores["name"]))
    labels = [relabel(r, names) for r in rows]
    lines = max(label.count("\n") + 1 for label in labels)
    variants = list(dict.fromkeys(scores["variant"]))
    pos = {r: i for i, r in enumerate(rows)}
    fig, axes = new_figure(  # room for the labels of the first panel and 3.4 in per panel
        len(variants),
        ncols=len(variants),
        width=3.4 + (3.4 if lines > 1 else 1.8) / len(variants),
        height=max(0.3, 0.2 * lines + 0.1) * len(rows) + 1.4,
        sharey=True,
    )
    for k, (ax, variant) in enumerate(zip(axes, variants, strict=True)):
        sub = scores[scores["variant"] == variant]
        ax.barh(sub["name"].map(pos), sub["score"], color=PALETTE[k % len(PALETTE)])
        ax.axvline(0, color="0.3", linewidth=0.8)
        ax.xaxis.set_major_locator(MaxNLocator(nbins=4))  # tick labels clear of the next panel
        heading, unit = RNSB_VARIANTS.get(str(variant), (str(variant), "score"))
        ax.set(title=heading, xlabel=unit)
    axes[0].set_yticks(range(len(rows)), labels, fontsize="small" if lines > 1 else None)
    axes[0].set_ylim(len(rows) - 0.5, -0.5)
    fig.get_layout_engine().set(wspace=0.06)
    if title:
        fig.suptitle(title)
    return fig
