"""One figure style for the whole book, and the figure helpers the chapters share.

Call :func:`set_style` once at the top of a notebook. Every helper returns a
:class:`matplotlib.figure.Figure` built without pyplot (so a notebook shows it exactly once, as the
cell's value, and no figure is left open); nothing random or time-dependent goes into a figure.

Colours are the Okabe–Ito palette, which stays distinguishable under the common colour-vision
deficiencies; labels always use the same two colours (:data:`LABEL_COLOURS`).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd
import seaborn as sns
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.ticker import PercentFormatter

__all__ = [
    "LABEL_COLOURS",
    "LABEL_NAMES",
    "PALETTE",
    "association_figure",
    "barh",
    "effect_size_figure",
    "heatmap_figure",
    "null_figure",
    "label_balance_figure",
    "length_figure",
    "new_figure",
    "observed_vs_planted",
    "paired_barh",
    "scatter_figure",
    "set_style",
    "stacked_share_barh",
    "term_frequency_figure",
    "toxicity_by_length_figure",
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
    fig = Figure(figsize=(width * ncols, height * nrows), layout="constrained")
    grid = fig.subplots(nrows, ncols, sharex=sharex, sharey=sharey, squeeze=False).ravel()
    for ax in grid[n:]:
        fig.delaxes(ax)
    return fig, list(grid[:n])


def _facets(df: pd.DataFrame, by: str | None) -> list[tuple[object, pd.DataFrame]]:
    if not isinstance(df, pd.DataFrame):
        raise TypeError(f"expected a pandas DataFrame, got {type(df).__name__}")
    if by is None or by not in df.columns:
        return [(None, df)]
    return list(df.groupby(by, sort=False, observed=True))


def _need(df: pd.DataFrame, columns: Sequence[str], what: str) -> None:
    if not isinstance(df, pd.DataFrame):
        raise TypeError(f"{what} needs a pandas DataFrame, got {type(df).__name__}")
    missing = [c for c in columns if c not in df.columns]
    if missing:
        raise KeyError(f"{what}: column(s) {missing} not in the frame (has {list(df.columns)})")


def _join(df: pd.DataFrame, y: str | Sequence[str]) -> tuple[pd.DataFrame, str]:
    """Return ``df`` with one label column for ``y`` (several columns are joined with ': ')."""
    if isinstance(y, str):
        return df, y
    cols = list(y)
    _need(df, cols, "figure")
    label = ": ".join(cols)
    joined = df[cols[0]].astype(str).str.cat([df[c].astype(str) for c in cols[1:]], sep=": ")
    return df.assign(**{label: joined}), label


def _empty(ax: Axes, what: str) -> None:
    ax.text(0.5, 0.5, f"no {what} in this run", ha="center", va="center", transform=ax.transAxes)
    ax.set_axis_off()


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
    _need(df, [x] + ([hue] if hue else []), "barh")
    df, y = _join(df, y)
    fig, (ax,) = new_figure(1, width=8.0, height=max(2.0, 0.3 * df[y].nunique() + 1))
    if df.empty:
        _empty(ax, "rows")
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
    _need(df, [y, *x], "paired_barh")
    if len(labels) != len(x):
        raise ValueError(f"labels has {len(labels)} names for {len(x)} columns; give one each")
    facets = _facets(df, by)
    rows = max((sub[y].nunique() for _, sub in facets), default=1)
    fig, axes = new_figure(len(facets), height=max(2.5, 0.35 * rows * len(x) / 2 + 1.2))
    for ax, (key, sub) in zip(axes, facets, strict=True):
        if sub.empty:
            _empty(ax, "rows")
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


def term_frequency_figure(
    freq: pd.DataFrame, *, by: str | None = "dataset", top: int = 12, min_count: int = 5
) -> Figure:
    """Share of toxic texts vs of all texts containing each term (Dixon et al. 2018, Table 1).

    Shows, per panel, the ``top`` terms with the highest ``ratio`` among those contained in at
    least ``min_count`` texts, as paired bars.

    Parameters
    ----------
    freq : DataFrame
        Output of :func:`nlpbias.data.describe.identity_term_frequencies`.

    Examples
    --------
    >>> freq = pd.DataFrame({"term": ["a", "b"], "n_overall": [5, 9], "share_overall": [.1, .2],
    ...                      "share_toxic": [.3, .1], "ratio": [3.0, 0.5]})
    >>> sum(len(bars) for bars in term_frequency_figure(freq, top=1).axes[0].containers)
    2
    """
    _need(
        freq,
        ["term", "n_overall", "share_toxic", "share_overall", "ratio"],
        "term_frequency_figure",
    )
    keep = []
    for _, sub in _facets(freq, by):
        sub = sub[sub["n_overall"] >= min_count]
        keep.append(sub.sort_values(["ratio", "term"], ascending=[False, True]).head(top))
    shown = pd.concat(keep, ignore_index=True) if keep else freq.iloc[:0]
    fig = paired_barh(
        shown,
        y="term",
        x=["share_toxic", "share_overall"],
        labels=["of toxic texts", "of all texts"],
        by=by,
        xlabel="share of texts containing the term",
    )
    fig.suptitle(
        f"Identity terms in toxic texts vs overall (top {top} by ratio, ≥ {min_count} texts)"
    )
    return fig


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
    _need(lengths, ["length"], "length_figure")
    if kind not in ("hist", "ecdf"):
        raise ValueError(f"kind must be 'hist' or 'ecdf', got {kind!r}")
    hue = hue if hue is not None and hue in lengths.columns else None
    facets = _facets(lengths, by)
    outside = hue is not None and lengths[hue].nunique() > 2  # legend beside the panel
    fig, axes = new_figure(len(facets), width=9.5 if outside else 6.4, height=3.6)
    for ax, (key, sub) in zip(axes, facets, strict=True):
        if sub.empty:
            _empty(ax, "texts")
            continue
        sub = sub.copy()
        zero = log_scale and bool((sub["length"] <= 0).any())
        if zero:
            sub["length"] = sub["length"].clip(lower=1)
        palette = None
        if hue == "label" and set(sub[hue].unique()) <= set(LABEL_COLOURS):
            sub[hue] = sub[hue].map(LABEL_NAMES)
            palette = {LABEL_NAMES[k]: c for k, c in LABEL_COLOURS.items()}
        elif hue is not None:
            palette = dict(zip(sub[hue].unique(), PALETTE * 3, strict=False))
        common = {"data": sub, "x": "length", "hue": hue, "ax": ax, "palette": palette}
        if kind == "hist":
            sns.histplot(
                **common, log_scale=log_scale, stat="density", common_norm=False,
                element="step", bins=40,
            )  # fmt: skip
        else:
            sns.ecdfplot(**common, log_scale=log_scale)
        xlabel = f"length in {unit}" + (" (0 shown as 1)" if zero else "")
        ax.set(title=str(key) if key is not None else "", xlabel=xlabel)
        legend = ax.get_legend()
        if legend is not None:
            legend.set_title(None)
            if outside:
                sns.move_legend(ax, "center left", bbox_to_anchor=(1.01, 0.5), title=None)
    return fig


def toxicity_by_length_figure(tbl: pd.DataFrame, *, by: str | None = "dataset") -> Figure:
    """Toxic share per length bucket, all texts and per term (Dixon et al. 2018, Figure 1).

    Parameters
    ----------
    tbl : DataFrame
        Output of :func:`nlpbias.data.describe.toxicity_by_length`.

    Examples
    --------
    >>> tbl = pd.DataFrame({"subset": ["all texts"] * 2, "bucket": [1, 2],
    ...                     "bucket_label": ["1–5", "6–9"], "toxic_share": [0.5, 0.25]})
    >>> len(toxicity_by_length_figure(tbl, by=None).axes[0].lines)
    1
    """
    _need(tbl, ["subset", "bucket", "bucket_label", "toxic_share"], "toxicity_by_length_figure")
    facets = _facets(tbl, by)
    fig, axes = new_figure(len(facets), height=3.8)
    # one colour per term across all panels, so a term looks the same in every facet
    terms = [s for s in dict.fromkeys(tbl["subset"]) if s != "all texts"]
    colour = {t: PALETTE[i % (len(PALETTE) - 1)] for i, t in enumerate(terms)}
    for ax, (key, sub) in zip(axes, facets, strict=True):
        if sub.empty:
            _empty(ax, "length buckets")
            continue
        for name in ["all texts", *terms]:
            rows = sub[sub["subset"] == name].sort_values("bucket")
            if rows.empty:
                continue
            style = (
                {"color": "black", "linestyle": "--", "linewidth": 2.5}
                if name == "all texts"
                else {"color": colour[name], "linewidth": 1.5}
            )
            ax.plot(rows["bucket"], rows["toxic_share"], marker="o", label=name, **style)
        ticks = sub.drop_duplicates("bucket").sort_values("bucket")
        ax.set_xticks(ticks["bucket"].to_numpy(), ticks["bucket_label"].tolist())
        ax.yaxis.set_major_formatter(PercentFormatter(1.0))
        ax.set(
            title=str(key) if key is not None else "",
            xlabel="length bucket (shortest to longest)",
            ylabel="share labelled toxic",
            ylim=(-0.02, 1.02),
        )
        ax.legend(fontsize="small", loc="best")
    return fig


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
    _need(df, [hue, x], "stacked_share_barh")
    df, y = _join(df, y)
    ys = list(dict.fromkeys(df[y].astype(str)))
    fig, (ax,) = new_figure(1, width=8.0, height=max(1.8, 0.32 * len(ys) + 1.2))
    if df.empty:
        _empty(ax, "rows")
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
    ax.legend(loc="center left", bbox_to_anchor=(1.01, 0.5))
    return fig


def label_balance_figure(balance: pd.DataFrame, *, by: str = "dataset") -> Figure:
    """Share of each label per dataset (output of ``label_balance(..., by=by)``).

    Examples
    --------
    >>> bal = pd.DataFrame({"dataset": ["d", "d"], "label": [False, True], "share": [0.8, 0.2]})
    >>> len(label_balance_figure(bal).axes[0].patches)
    2
    """
    _need(balance, ["label", "share"], "label_balance_figure")
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
    _need(df, [planted, observed, label], "observed_vs_planted")
    fig, (ax,) = new_figure(1, width=4.8, height=4.4)
    if df.empty:
        _empty(ax, "rows")
        return fig
    values = pd.concat([df[planted], df[observed]]).astype(float)
    lo, hi = float(values.min()), float(values.max())
    pad = 0.05 * (hi - lo or 1.0)
    lims = (lo - pad, hi + pad)
    ax.plot(lims, lims, color="grey", linestyle="--", linewidth=1, label="observed = planted")
    ax.scatter(df[planted], df[observed], color=PALETTE[1], zorder=3)
    for _, row in df.iterrows():
        ax.annotate(
            str(row[label]), (row[planted], row[observed]), xytext=(4, 3),
            textcoords="offset points", fontsize="small",
        )  # fmt: skip
    if percent:
        ax.xaxis.set_major_formatter(PercentFormatter(1.0))
        ax.yaxis.set_major_formatter(PercentFormatter(1.0))
    name = name or planted
    ax.set(xlim=lims, ylim=lims, xlabel=f"planted {name}", ylabel=f"observed {name}")
    ax.set_title(title or "")
    ax.legend(loc="upper left")
    return fig


# Figures of bias measurements (effect sizes, per-word associations) live in their own module.
from nlpbias.plotting.effects import (  # noqa: E402
    association_figure,
    effect_size_figure,
    heatmap_figure,
    null_figure,
    scatter_figure,
)
