"""Figures of the intrinsic-vs-extrinsic study: scatter plots with error bars, ρ beside the paper's.

Every function returns a matplotlib Figure built without pyplot (see :mod:`nlpbias.plotting`).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from nlpbias.plotting import PALETTE, new_figure
from nlpbias.plotting import require_columns as _need

__all__ = ["intrinsic_extrinsic_figure", "rho_vs_paper_figure"]

_METHOD_STYLE = {
    "original": (PALETTE[7], "*", 140),
    "balance": (PALETTE[0], "o", 28),
    "attract_repel": (PALETTE[1], "s", 28),
}
_METHOD_LABEL = {"original": "original", "balance": "balancing", "attract_repel": "Attract-Repel"}


def intrinsic_extrinsic_figure(
    scores: pd.DataFrame,
    panels: Sequence[dict[str, str]],
    *,
    ncols: int = 2,
) -> Figure:
    """One scatter panel per entry of ``panels``: intrinsic (x) against extrinsic (y) bias.

    Parameters
    ----------
    scores : DataFrame
        :func:`nlpbias.studies.intrinsic_extrinsic.correlation.scores_frame`.
    panels : list of dict
        Keys ``family``, ``algorithm``, ``modset``, ``x`` (an ``intrinsic:…`` column), ``y`` (an
        ``extrinsic:…`` column) and optional ``title``. The points are the original embedding
        (a star, with error bars of ±1 sample standard deviation over its extrinsic seeds) and
        the embeddings modified with the panel's modification set, marked by method.
    ncols : int, default 2

    Examples
    --------
    >>> s = pd.DataFrame({"family": "f", "algorithm": "a", "method": ["original", "balance"],
    ...                   "modset": [np.nan, "m"], "intrinsic:x": [0.1, 0.5],
    ...                   "extrinsic:y": [1.0, 2.0], "extrinsic_sd:y": [0.2, np.nan]})
    >>> fig = intrinsic_extrinsic_figure(s, [dict(family="f", algorithm="a", modset="m",
    ...                                           x="intrinsic:x", y="extrinsic:y")])
    >>> len(fig.axes)
    1
    """
    _need(scores, ["family", "algorithm", "method", "modset"], "intrinsic_extrinsic_figure")
    fig, axes = new_figure(len(panels), ncols=ncols, width=4.6, height=3.6)
    for ax, panel in zip(axes, panels, strict=True):
        x, y = panel["x"], panel["y"]
        _need(scores, [x, y], "intrinsic_extrinsic_figure")
        block = scores[
            (scores["family"] == panel["family"]) & (scores["algorithm"] == panel["algorithm"])
        ]
        points = block[(block["method"] == "original") | (block["modset"] == panel["modset"])]
        for method, (colour, marker, size) in _METHOD_STYLE.items():
            sub = points[points["method"] == method]
            if sub.empty:
                continue
            ax.scatter(
                sub[x], sub[y], color=colour, marker=marker, s=size, label=_METHOD_LABEL[method]
            )
            sd_col = y.replace("extrinsic:", "extrinsic_sd:", 1)
            if method == "original" and sd_col in sub.columns:
                sd = sub[sd_col].to_numpy(float)
                if np.isfinite(sd).any():
                    ax.errorbar(sub[x], sub[y], yerr=sd, fmt="none", ecolor=colour, capsize=3, lw=1)
        if len(points) >= 3:
            r = points[[x, y]].rank().corr().iloc[0, 1]
            ax.text(
                0.02,
                0.97,
                f"ρ = {r:.2f} (n = {len(points)})",
                transform=ax.transAxes,
                va="top",
                fontsize="small",
            )
        ax.set(
            xlabel=x.removeprefix("intrinsic:"),
            ylabel=y.removeprefix("extrinsic:"),
            title=panel.get("title", f"{panel['family']}, {panel['algorithm']}"),
        )
        ax.axhline(0, color="0.7", lw=0.8, zorder=0)
    axes[0].legend(fontsize="small", loc="lower right")
    return fig


def rho_vs_paper_figure(
    table: pd.DataFrame,
    *,
    hue: str = "wordset kind",
    title: str | None = None,
) -> Figure:
    """Our ρ (y) against the paper's ρ (x), one dot per table cell, the diagonal for reference.

    Parameters
    ----------
    table : DataFrame
        Long form with columns ``rho``, ``paper rho`` and ``hue`` (e.g. "extracted" vs "WEAT").

    Examples
    --------
    >>> t = pd.DataFrame({"rho": [0.8, 0.1], "paper rho": [0.9, -0.1],
    ...                   "wordset kind": ["extracted", "WEAT"]})
    >>> len(rho_vs_paper_figure(t).axes)
    1
    """
    _need(table, ["rho", "paper rho", hue], "rho_vs_paper_figure")
    fig, (ax,) = new_figure(1, ncols=1, width=5.2, height=4.6)
    both = table.dropna(subset=["rho", "paper rho"])
    for i, (name, sub) in enumerate(both.groupby(hue, sort=True)):
        ax.scatter(sub["paper rho"], sub["rho"], color=PALETTE[i], s=26, label=str(name))
    ax.plot([-1, 1], [-1, 1], color="0.6", lw=0.8, ls="--", zorder=0)
    ax.set(
        xlim=(-1.05, 1.05),
        ylim=(-1.05, 1.05),
        xlabel="ρ in the paper",
        ylabel="ρ here",
        title=title or "Spearman ρ: this book vs Katô & Miyao",
    )
    ax.legend(fontsize="small", loc="upper left")
    return fig
