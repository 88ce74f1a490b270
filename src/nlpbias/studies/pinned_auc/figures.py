"""Figures of per-term classifier metrics and of results over seeds (the Dixon study).

Every figure of the chapter takes its colours from one key, :data:`COLOURS`, so a colour means
one thing on the whole page: a family (baseline, random control, bias mitigated), the paper's
number, this run's number, a toxicity label. :func:`chapter_palette` maps the series of a figure
onto it.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.ticker import MaxNLocator

from nlpbias.plotting import (
    LABEL_COLOURS,
    PALETTE,
    heatmap_figure,
    legend_below,
    new_figure,
    relabel,
    require_columns,
)
from nlpbias.studies.pinned_auc.metric_names import METRIC_LABELS

#: The chapter's colour key: each colour has one meaning in every figure of the chapter.
COLOURS: dict[str, str] = {
    "baseline": PALETTE[0],  # blue
    "random control": PALETTE[3],  # reddish purple
    "bias mitigated": PALETTE[2],  # bluish green (also: texts the mitigation added)
    "paper": PALETTE[4],  # orange: a number the paper reports
    "this run": "#000000",  # black: this run's summary (mean, measured ratio)
    "toxic": LABEL_COLOURS[True],  # vermillion, as in every chapter
    "all texts": "#8C8C8C",  # grey
    "shortfall": PALETTE[6],  # yellow: texts needed but missing
    # the three groups of the Figure 2 simulation (no family, no paper)
    "tall": "#4D4D4D",
    "average": "#B8B8B8",
    "short": "#56B4E9",  # the shifted group stands out
}

#: Legend meaning of each series name a figure of the chapter uses → its key in :data:`COLOURS`.
_SERIES = {
    "added": "bias mitigated",
    "shortfall": "shortfall",
    "target_ratio": "paper",
    "ratio": "this run",
}

#: Vertical offset of each family's dot within its term's row (:func:`per_term_figure`).
DODGE = 0.22


def chapter_palette(levels: Sequence[object]) -> dict[object, str]:
    """Colour of each series name from :data:`COLOURS` (unknown names: the palette's unused
    colours, in order).

    Examples
    --------
    >>> chapter_palette(["baseline", "added", "x"])["added"] == COLOURS["bias mitigated"]
    True
    """
    used = set(COLOURS.values())
    spare = iter([c for c in PALETTE if c not in used] + list(PALETTE))
    out = {}
    for level in levels:
        key = _SERIES.get(str(level), str(level))
        out[level] = COLOURS[key] if key in COLOURS else next(spare)
    return out


def per_term_figure(
    df: pd.DataFrame,
    *,
    metrics: Sequence[str],
    term: str = "term",
    hue: str = "family",
    reference: dict[str, float] | None = None,
    labels: dict[str, str] | None = None,
    title: str | None = None,
    reference_label: str = "overall",
) -> Figure:
    """One panel per metric: a dot per term and ``hue`` level (Dixon et al.'s Figures 3–5).

    ``reference`` draws a vertical line per metric (e.g. the overall rate). Terms keep input order;
    metrics are named by ``labels`` (default
    :data:`~nlpbias.studies.pinned_auc.METRIC_LABELS`); one legend for all panels stands
    below them. Each ``hue`` level has its colour from :func:`chapter_palette` and its own
    height within the term's row (offsets up to :data:`DODGE`), so families with equal values
    (a false negative rate of 0 for every family) stand one above the other, none hidden.

    Examples
    --------
    >>> df = pd.DataFrame({"term": ["gay", "gay", "old", "old"], "family": ["a", "b", "a", "b"],
    ...                    "fpr": [0.5, 0.2, 0.1, 0.1]})
    >>> ax = per_term_figure(df, metrics=["fpr"]).axes[0]
    >>> [t.get_text() for t in ax.get_yticklabels()], len(ax.collections)
    (['gay', 'old'], 2)
    >>> ax.collections[0].get_offsets()[:, 1].tolist()  # family a just above the row's centre
    [-0.11, 0.89]
    """
    require_columns(df, [term, hue, *metrics], "per_term_figure")
    terms = list(dict.fromkeys(df[term]))
    levels = list(dict.fromkeys(df[hue]))
    pos = {t: i for i, t in enumerate(terms)}
    colours = chapter_palette(levels)
    offsets = np.linspace(-DODGE / 2, DODGE / 2, len(levels)) if len(levels) > 1 else np.zeros(1)
    fig, axes = new_figure(
        len(metrics),
        ncols=len(metrics),
        width=4.2,
        height=(0.24 + 0.04 * len(levels)) * len(terms) + 1.9,
        sharey=True,
    )
    for ax, metric in zip(axes, metrics, strict=True):
        for k, level in enumerate(levels):
            sub = df[df[hue] == level]
            ax.scatter(
                sub[metric],
                sub[term].map(pos) + offsets[k],
                s=18,
                color=colours[level],
                label=str(level),
                alpha=0.85,
            )
        if reference and metric in reference:
            ax.axvline(reference[metric], color="grey", linestyle="--", linewidth=1)
        ax.set_yticks(range(len(terms)), terms, fontsize="small")
        ax.xaxis.set_major_locator(MaxNLocator(nbins=4))  # narrow panels: few, legible ticks
        ax.set(xlabel=relabel(metric, {**METRIC_LABELS, **(labels or {})}))
    axes[0].set_ylim(len(terms) - 0.5, -0.5)
    handles, texts = axes[0].get_legend_handles_labels()
    if reference:
        handles.append(Line2D([], [], color="grey", linestyle="--", linewidth=1))
        texts.append(reference_label)
    legend_below(fig, handles, texts)
    if title:
        fig.suptitle(title)
    return fig


def seed_dots_figure(
    df: pd.DataFrame,
    *,
    metrics: Sequence[str],
    y: str = "family",
    summary: pd.DataFrame | None = None,
    reference: pd.DataFrame | None = None,
    title: str | None = None,
    labels: dict[str, str] | None = None,
) -> Figure:
    """One panel per metric: every model (seed) as a dot per ``y``, the mean with its interval.

    Metrics are named by ``labels`` (default
    :data:`~nlpbias.studies.pinned_auc.METRIC_LABELS`); one legend for all panels stands
    below them.

    Parameters
    ----------
    df : DataFrame
        One row per model, with ``y`` and the ``metrics`` columns.
    summary : DataFrame, optional
        Output of :func:`nlpbias.studies.pinned_auc.study.family_summary` (``y, metric, mean,
        ci_low, ci_high``) — drawn as a bar with its interval.
    reference : DataFrame, optional
        ``y, metric, value``: a published value per row, drawn as an open diamond in the
        paper's colour of :data:`COLOURS`.

    Each model's dot takes its family's colour when ``df`` has a ``family`` column (else the
    neutral grey); the means are this run's black.

    Examples
    --------
    >>> df = pd.DataFrame({"family": ["a", "a", "b"], "FPED": [1.0, 2.0, 0.5]})
    >>> len(seed_dots_figure(df, metrics=["FPED"]).axes[0].collections)
    1
    """
    require_columns(df, [y, *metrics], "seed_dots_figure")
    rows = list(dict.fromkeys(df[y]))
    pos = {r: i for i, r in enumerate(rows)}
    fig, axes = new_figure(  # one panel: room for the row labels beside it
        len(metrics),
        ncols=len(metrics),
        width=4.0 if len(metrics) > 1 else 6.4,
        height=0.5 * len(rows) + 2.0,
        sharey=True,
    )
    jitter = np.linspace(-0.15, 0.15, num=max(df.groupby(y).size().max(), 1))
    for ax, metric in zip(axes, metrics, strict=True):
        yy = df[y].map(pos).to_numpy(float) + jitter[df.groupby(y).cumcount().to_numpy()]
        colour = (
            df["family"].map(chapter_palette(list(dict.fromkeys(df["family"])))).tolist()
            if "family" in df.columns
            else COLOURS["all texts"]
        )
        ax.scatter(df[metric], yy, s=16, color=colour, alpha=0.7, label="one model")
        if summary is not None:
            part = summary[summary["metric"] == metric]
            err = np.vstack([part["mean"] - part["ci_low"], part["ci_high"] - part["mean"]])
            ax.errorbar(
                part["mean"],
                part[y].map(pos),
                xerr=err,
                fmt="s",
                color=COLOURS["this run"],
                capsize=3,
                label="mean (95 % CI)",
            )
        if reference is not None:
            ref = reference[reference["metric"] == metric]
            ax.scatter(
                ref["value"],
                ref[y].map(pos),
                marker="D",
                s=40,
                facecolors="none",
                edgecolors=COLOURS["paper"],
                zorder=3,
                label="paper",
            )
        ax.set_yticks(range(len(rows)), rows)
        ax.xaxis.set_major_locator(MaxNLocator(nbins=4))
        ax.set(xlabel=relabel(metric, {**METRIC_LABELS, **(labels or {})}))
    axes[0].set_ylim(len(rows) - 0.5, -0.5)
    handles, texts = axes[0].get_legend_handles_labels()
    if "family" in df.columns:  # the dots' colours are the families: one neutral key
        handles[0] = Line2D(
            [], [], marker="o", linestyle="", color=COLOURS["all texts"], markersize=4
        )
        texts[0] = "one model (its family's colour)"
    legend_below(fig, handles, texts)
    if title:
        fig.suptitle(title)
    return fig


def scenario_dots_figure(
    per_model: pd.DataFrame,
    summary: pd.DataFrame,
    *,
    terms: str,
    metrics: Sequence[str] = ("FPED", "PAED"),
) -> Figure:
    """:func:`seed_dots_figure` of one term set of ``compare_scenarios``, a row per scenario and
    family (sums over different term sets have different scales, so each gets its own figure)."""
    require_columns(per_model, ["scenario", "terms", "family", *metrics], "scenario_dots_figure")
    if terms not in set(per_model["terms"]):
        have = sorted(set(per_model["terms"]))
        raise ValueError(f"scenario_dots_figure: no rows for terms={terms!r}; have {have}")

    def label(df: pd.DataFrame) -> pd.DataFrame:
        df = df[df["terms"] == terms]
        return df.assign(row=df["scenario"] + ": " + df["family"])

    return seed_dots_figure(
        label(per_model),
        metrics=list(metrics),
        y="row",
        summary=label(summary),
        title=f"Equality differences on the templates, summed over {terms}",
    )


def lowest_heatmap(
    df: pd.DataFrame,
    *,
    values: str,
    of: str = "baseline",
    n: int = 15,
    what: str = "on the templates",
) -> Figure:
    """Heatmap of ``values`` per term (rows) and family (columns) for the ``n`` terms where the
    family ``of`` is lowest, lowest first; the title states how many terms it shows.

    Examples
    --------
    >>> df = pd.DataFrame({"term": ["a", "b", "a", "b"], "family": ["baseline"] * 2 + ["m"] * 2,
    ...                    "bpsn_auc": [0.9, 0.8, 0.95, 0.9]})
    >>> fig = lowest_heatmap(df, values="bpsn_auc", n=15)
    >>> fig.axes[0].get_title()
    'BPSN AUC on the templates (all 2 terms, lowest of the baseline first)'
    """
    require_columns(df, ["term", "family", values], "lowest_heatmap")
    base = df[df["family"] == of].dropna(subset=[values])
    order = list(base.sort_values([values, "term"])["term"].head(n))
    total = df["term"].nunique()
    shown = df[df["term"].isin(order)].copy()
    shown["_rank"] = shown["term"].map({t: i for i, t in enumerate(order)})
    shown = shown.sort_values("_rank", kind="stable").drop(columns="_rank")
    which = (
        f"all {len(order)} terms, lowest of the {of} first"
        if len(order) == total
        else f"the {len(order)} lowest of {total} terms for the {of}, lowest first"
    )
    return heatmap_figure(
        shown,
        index="term",
        columns="family",
        values=values,
        fmt=".2f",
        vmin=0.5,
        vmax=1.0,
        title=f"{relabel(values, METRIC_LABELS)} {what} ({which})",
    )
