"""Figures of bias measurements: effect sizes with intervals, heatmaps, null distributions.

Every function returns a matplotlib Figure built without pyplot (see :mod:`nlpbias.plotting`).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from nlpbias.plotting.labels import Names, relabel
from nlpbias.plotting.style import PALETTE, legend_below, new_figure, require_columns


def effect_size_figure(
    df: pd.DataFrame,
    *,
    y: str = "test",
    x: str = "effect_size",
    hue: str | None = None,
    ci: tuple[str, str] | None = ("ci_low", "ci_high"),
    reference: str | None = None,
    reference_label: str = "paper",
    xlabel: str = "effect size d (standardised, no unit)",
    title: str | None = None,
    names: Names = None,
    label: str | None = None,
    missing: str | None = None,
) -> Figure:
    """Forest plot: one row per ``y``, a dot per ``hue`` level with its interval, and the reference.

    Parameters
    ----------
    df : DataFrame
        One row per (test, hue level), e.g. the output of
        :func:`nlpbias.metrics.weat.weat_table` with an ``embedding`` column.
    ci : pair of column names or None
        Lower and upper bounds drawn as horizontal error bars.
    reference : str, optional
        Column with a published value for the same row (drawn as an open diamond, once per ``y``).
    names : mapping or function, optional
        Display label of each ``y`` value, e.g. :func:`nlpbias.plotting.labels.wordset_label`
        (labels may span lines; the rows grow with them).
    label : str, optional
        Legend entry of the dots when there is no ``hue`` (e.g. "this book, 95 % interval"), so
        that a legend with a reference names both marks; None: no entry (as before).
    missing : str, optional
        With ``hue``: the text written in a level's slot of a row where that level has no number
        (no row, or NaN), in the level's colour, e.g. "excluded (missing words)"; None: the slot
        stays empty (as before).

    Returns
    -------
    matplotlib.figure.Figure
        Rows top to bottom in order of first appearance, every row inside the axes; the legend
        (hue levels, then the reference) below the panel, so the labels and the data share the
        width.

    Examples
    --------
    >>> df = pd.DataFrame({"test": ["a", "b"], "effect_size": [1.2, -0.3],
    ...                    "ci_low": [0.9, -0.8], "ci_high": [1.5, 0.2], "paper": [1.5, None]})
    >>> fig = effect_size_figure(df, reference="paper")
    >>> [t.get_text() for t in fig.axes[0].get_yticklabels()]
    ['a', 'b']
    """
    cols = [y, x] + ([hue] if hue else []) + (list(ci) if ci else [])
    require_columns(df, cols + ([reference] if reference else []), "effect_size_figure")
    if df.empty:
        raise ValueError(
            "effect_size_figure: the frame has no rows; compute some effect sizes first"
        )
    rows = list(dict.fromkeys(df[y]))
    labels = [relabel(r, names) for r in rows]
    levels = list(dict.fromkeys(df[hue])) if hue else [None]
    step = 0.7 / max(len(levels), 1)
    lines = max(label.count("\n") + 1 for label in labels)
    per_row = max(0.45 * max(1, len(levels) ** 0.5), 0.2 * lines + 0.1)
    fig, (ax,) = new_figure(  # wider for labels of several lines, so the data keep room
        1, ncols=1, width=7.5 if lines == 1 else 8.5, height=per_row * len(rows) + 1.5
    )
    pos = {r: i for i, r in enumerate(rows)}
    for k, level in enumerate(levels):
        sub = df if level is None else df[df[hue] == level]
        offset = (k - (len(levels) - 1) / 2) * step
        yy = sub[y].map(pos).to_numpy(float) + offset
        xerr = None
        if ci:
            lo, hi = sub[ci[0]].to_numpy(float), sub[ci[1]].to_numpy(float)
            xerr = np.vstack([sub[x] - lo, hi - sub[x]])
        ax.errorbar(
            sub[x],
            yy,
            xerr=xerr,
            fmt="o",
            color=PALETTE[k % len(PALETTE)],
            capsize=2,
            label=label if level is None else str(level),
        )
        if missing and level is not None:
            scored = set(sub.loc[sub[x].notna(), y])
            for r in rows:
                if r not in scored:
                    ax.text(
                        0,
                        pos[r] + offset,
                        f" {missing}",
                        transform=ax.get_yaxis_transform(),  # x in axes units: at the left edge
                        color=PALETTE[k % len(PALETTE)],
                        fontsize="x-small",
                        va="center",
                        ha="left",
                    )
    if reference:
        ref = df.drop_duplicates(y).set_index(y)[reference].dropna()
        ax.scatter(
            ref.to_numpy(float),
            [pos[r] for r in ref.index],
            marker="D",
            s=42,
            facecolors="none",
            edgecolors="black",
            zorder=3,
            label=reference_label,
        )
    ax.axvline(0, color="grey", linewidth=0.8)
    ax.set_yticks(range(len(rows)), labels, fontsize="small" if lines > 1 else None)
    ax.set_ylim(len(rows) - 0.5, -0.5)  # every row inside, the first on top
    ax.grid(axis="y", visible=False)
    for i in range(1, len(rows)):
        ax.axhline(i - 0.5, color="0.9", linewidth=0.8, zorder=0)
    ax.set(xlabel=xlabel, title=title or "")
    if hue or reference or label:
        handles, texts = ax.get_legend_handles_labels()
        order = sorted(range(len(texts)), key=lambda i: texts[i] == reference_label)
        legend_below(fig, [handles[i] for i in order], [texts[i] for i in order])
    return fig


def heatmap_figure(
    df: pd.DataFrame,
    *,
    index: str,
    columns: str,
    values: str,
    fmt: str = ".0%",
    vmin: float | None = 0.0,
    vmax: float | None = 1.0,
    cmap: str = "viridis",
    title: str | None = None,
    threshold: float | None = None,
    names: Names = None,
) -> Figure:
    """Annotated heatmap of ``values`` (rows ``index``, columns ``columns``, input order kept).

    ``threshold`` outlines the cells below it in red (e.g. coverage under an OOV limit) and says
    so under the axis; column names longer than a column is wide break at their ``:``;
    ``names`` gives the display label of each row (a mapping or a function such as
    :func:`nlpbias.plotting.labels.wordset_label`).

    Examples
    --------
    >>> df = pd.DataFrame({"q": ["a", "a", "b"], "e": ["x", "y", "x"], "v": [1.0, 0.5, 0.2]})
    >>> fig = heatmap_figure(df, index="q", columns="e", values="v", threshold=0.7)
    >>> len(fig.axes[0].patches)  # outlines of the two cells under 0.7 (the missing one is blank)
    2
    """
    import seaborn as sns

    require_columns(df, [index, columns, values], "heatmap_figure")
    grid = df.pivot_table(index=index, columns=columns, values=values, sort=False)
    grid = grid.reindex(
        index=list(dict.fromkeys(df[index])), columns=list(dict.fromkeys(df[columns]))
    )
    rows = [relabel(r, names) for r in grid.index]
    lines = max((r.count("\n") + 1 for r in rows), default=1)
    fig, (ax,) = new_figure(
        1,
        ncols=1,
        width=1.6 * grid.shape[1] + (3.5 if lines == 1 else 5.0),
        height=max(0.42, 0.2 * lines + 0.1) * grid.shape[0] + 1.6,
    )
    sns.heatmap(
        grid,
        ax=ax,
        annot=True,
        fmt=fmt,
        vmin=vmin,
        vmax=vmax,
        cmap=cmap,
        cbar=False,
        linewidths=0.5,
    )
    if threshold is not None:
        from matplotlib.patches import Rectangle

        for (i, j), v in np.ndenumerate(grid.to_numpy()):
            if np.isfinite(v) and v < threshold:
                ax.add_patch(
                    Rectangle((j + 0.06, i + 0.08), 0.88, 0.84, fill=False, edgecolor="red", lw=2)
                )
    ax.set_yticks(np.arange(len(rows)) + 0.5, rows, fontsize="small" if lines > 1 else None)
    # a column 1.6 inches wide holds about 16 characters: longer names break at their ':'
    cols = [str(c) if len(str(c)) <= 16 else str(c).replace(":", ":\n", 1) for c in grid.columns]
    ax.set_xticks(np.arange(len(cols)) + 0.5, cols)
    key = "" if threshold is None else f"outlined in red: under {threshold:{fmt}}"
    ax.set(xlabel=key, ylabel="", title=title or "")
    ax.tick_params(axis="x", rotation=0)
    ax.tick_params(axis="y", rotation=0)
    return fig


def null_figure(
    nulls: dict[str, Sequence[float]],
    observed: dict[str, float],
    *,
    xlabel: str = "statistic under the null",
    bins: int = 20,
) -> Figure:
    """One histogram per named null distribution, with the observed value as a vertical line.

    Examples
    --------
    >>> fig = null_figure({"race": [1.0, 2.0, 2.5]}, {"race": 4.0})
    >>> [round(ln.get_xdata()[0], 1) for ln in fig.axes[0].lines]
    [4.0]
    """
    if not nulls:
        raise ValueError("nulls is empty; pass at least one named null distribution")
    missing = sorted(set(nulls) - set(observed))
    if missing:
        raise KeyError(f"no observed value for {missing}; pass observed={{name: value}}")
    fig, axes = new_figure(len(nulls), ncols=min(len(nulls), 2), width=4.5, height=3.2)
    for ax, (name, values) in zip(axes, nulls.items(), strict=True):
        values = np.asarray(values, dtype=float)
        ax.hist(values, bins=bins, color="#999999")
        line = ax.axvline(observed[name], color=PALETTE[5], linewidth=2, label="observed")
        ax.set(title=str(name), xlabel=xlabel, ylabel="count")
    patch = axes[0].patches[0] if axes[0].patches else None
    handles = [patch, line] if patch is not None else [line]
    texts = ["under the null", "observed"] if patch is not None else ["observed"]
    legend_below(fig, handles, texts)
    return fig
