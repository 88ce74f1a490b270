"""Figures of per-term classifier metrics and of results over seeds (the Dixon study)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.ticker import MaxNLocator

from nlpbias.plotting import PALETTE, legend_below, new_figure, relabel, require_columns
from nlpbias.studies.pinned_auc.metric_names import METRIC_LABELS


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
    below them.

    Examples
    --------
    >>> df = pd.DataFrame({"term": ["gay", "gay", "old", "old"], "family": ["a", "b", "a", "b"],
    ...                    "fpr": [0.5, 0.2, 0.1, 0.1]})
    >>> ax = per_term_figure(df, metrics=["fpr"]).axes[0]
    >>> [t.get_text() for t in ax.get_yticklabels()], len(ax.collections)
    (['gay', 'old'], 2)
    """
    require_columns(df, [term, hue, *metrics], "per_term_figure")
    terms = list(dict.fromkeys(df[term]))
    levels = list(dict.fromkeys(df[hue]))
    pos = {t: i for i, t in enumerate(terms)}
    fig, axes = new_figure(
        len(metrics), ncols=len(metrics), width=4.2, height=0.24 * len(terms) + 1.9, sharey=True
    )
    for ax, metric in zip(axes, metrics, strict=True):
        for k, level in enumerate(levels):
            sub = df[df[hue] == level]
            ax.scatter(
                sub[metric],
                sub[term].map(pos),
                s=18,
                color=PALETTE[k % len(PALETTE)],
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
        ``y, metric, value``: a published value per row, drawn as an open diamond.

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
        ax.scatter(df[metric], yy, s=16, color=PALETTE[0], alpha=0.7, label="one model")
        if summary is not None:
            part = summary[summary["metric"] == metric]
            err = np.vstack([part["mean"] - part["ci_low"], part["ci_high"] - part["mean"]])
            ax.errorbar(
                part["mean"],
                part[y].map(pos),
                xerr=err,
                fmt="s",
                color="black",
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
                edgecolors=PALETTE[1],
                zorder=3,
                label="paper",
            )
        ax.set_yticks(range(len(rows)), rows)
        ax.xaxis.set_major_locator(MaxNLocator(nbins=4))
        ax.set(xlabel=relabel(metric, {**METRIC_LABELS, **(labels or {})}))
    axes[0].set_ylim(len(rows) - 0.5, -0.5)
    legend_below(fig, *axes[0].get_legend_handles_labels())
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
