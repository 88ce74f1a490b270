"""Figures of the intrinsic-vs-extrinsic study: scatter plots with error bars, ρ beside the paper's.

Every function returns a matplotlib Figure built without pyplot (see :mod:`nlpbias.plotting`).
The study's ids are written as words by one table per concept: :data:`FAMILY_LABELS` (the
task and bias of a family), :data:`METHOD_LABELS` (how an embedding was modified),
:data:`RHO_LABELS` (the columns of ``alignment_summary``) and
:func:`score_label` (the ``intrinsic:…`` and ``extrinsic:…`` columns of ``scores_frame``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd
from matplotlib.axes import Axes
from matplotlib.figure import Figure

from nlpbias.plotting import PALETTE, legend_below, new_figure, paired_barh
from nlpbias.plotting import require_columns as _need
from nlpbias.studies.intrinsic_extrinsic.families import FAMILIES

__all__ = [
    "FAMILY_LABELS",
    "METHOD_LABELS",
    "RHO_LABELS",
    "hsd_groups_figure",
    "intrinsic_extrinsic_figure",
    "panel_pairs",
    "panel_points",
    "rho_vs_paper_figure",
    "score_label",
]

_METHOD_STYLE = {
    "original": (PALETTE[7], "*", 140),
    "balance": (PALETTE[0], "o", 28),
    "attract_repel": (PALETTE[1], "s", 28),
}
_TASKS = {"coref": "coreference", "hsd": "hate speech"}
#: Family id → its downstream task and bias in words (``hsd_race`` → "hate speech, race").
FAMILY_LABELS: dict[str, str] = {
    name: f"{_TASKS.get(fam.task, fam.task)}, {fam.bias}" for name, fam in FAMILIES.items()
}
#: How an embedding was made → its name in figures.
METHOD_LABELS: dict[str, str] = {
    "original": "original",
    "balance": "balancing",
    "attract_repel": "Attract-Repel",
}
#: Column of :func:`~nlpbias.studies.intrinsic_extrinsic.paper.alignment_summary` → its name.
RHO_LABELS: dict[str, str] = {
    f"{metric}_{kind}_{stat}": f"{name}, {words}" + (" (share with p < α)" if stat != "rho" else "")
    for metric, name in (("weat", "WEAT"), ("rnsb", "RNSB"))
    for kind, words in (("extracted", "extracted word sets"), ("generic", "generic WEAT sets"))
    for stat in ("rho", "significant")
}
_INTRINSIC = {"weat": "WEAT effect size d", "rnsb": "RNSB"}
#: ``wordset kind`` of :func:`~nlpbias.studies.intrinsic_extrinsic.paper.rho_long` → words.
_WORDSET_KINDS = {"extracted": "aligned (extracted) word sets", "WEAT": "generic WEAT sets"}
_EXTRINSIC = {
    "type1": "pro − anti, WinoBias type 1",
    "type2": "pro − anti, WinoBias type 2",
    "mean": "pro − anti, WinoBias (mean of types)",
    "gender": "male − female",
    "dialect": "white- − AA-aligned",
}


def score_label(column: str) -> str:
    """The axis label of a column of ``scores_frame``: words, not the column id.

    Examples
    --------
    >>> score_label("intrinsic:extracted:weat")
    'WEAT effect size d, extracted word sets'
    >>> score_label("intrinsic:weat6:rnsb")
    'RNSB, WEAT 6 word sets'
    >>> score_label("extrinsic:type1_f1")
    'F1 gap (pro − anti, WinoBias type 1)'
    >>> score_label("extrinsic:task_f1_overall")
    'F1 (overall)'
    """
    kind, _, rest = str(column).partition(":")
    if kind == "intrinsic" and rest.count(":") == 1:
        wordset, metric = rest.split(":")
        words = "extracted" if wordset == "extracted" else wordset.upper().replace("WEAT", "WEAT ")
        return f"{_INTRINSIC.get(metric, metric)}, {words} word sets"
    if kind in ("extrinsic", "extrinsic_sd") and "_" in rest:
        if rest.startswith("task_"):
            measure, _, group = rest.removeprefix("task_").partition("_")
            return f"{measure.upper()} ({group.replace('_', ' ')})"
        view, _, measure = rest.partition("_")
        name = "F1" if measure == "f1" else measure
        return f"{name} gap ({_EXTRINSIC.get(view, view)})"
    return str(column)


_PANEL_KEYS = ("family", "algorithm", "modset", "x", "y")


def panel_points(scores: pd.DataFrame, panel: dict[str, Any]) -> pd.DataFrame:
    """The embeddings a panel of :func:`intrinsic_extrinsic_figure` shows: of the panel's family
    and algorithm, the original one and those modified with the panel's modification set.

    Rows missing a value are kept (each axes leaves out those without its x and y).

    Examples
    --------
    >>> s = pd.DataFrame({"family": "f", "algorithm": "a", "method": ["original", "balance",
    ...                   "balance"], "modset": [np.nan, "m", "other"]})
    >>> panel_points(s, dict(family="f", algorithm="a", modset="m", x="", y="")).index.tolist()
    [0, 1]
    """
    _need(scores, ["family", "algorithm", "method", "modset"], "panel_points")
    lacking = [k for k in _PANEL_KEYS if k not in panel]
    if lacking:
        raise KeyError(
            f"panel {panel!r} lacks the keys {lacking}; build the panels with figure1_panels"
        )
    block = scores[
        (scores["family"] == panel["family"]) & (scores["algorithm"] == panel["algorithm"])
    ]
    return block[(block["method"] == "original") | (block["modset"] == panel["modset"])]


def panel_pairs(
    points: pd.DataFrame, panel: dict[str, Any], x: str, y: str
) -> tuple[dict[str, Any], pd.DataFrame | None]:
    """The start of a per-panel result row and the embeddings of ``points`` with both ``x`` and
    ``y``; ``None`` (the row saying why) when either was measured on no embedding.

    Examples
    --------
    >>> pts = pd.DataFrame({"x": [1.0, np.nan, 3.0], "y": [0.1, 0.2, np.nan], "z": np.nan})
    >>> row, both = panel_pairs(pts, dict(family="f", algorithm="a"), "x", "y")
    >>> row["n"], both.index.tolist()
    (1, [0])
    >>> panel_pairs(pts, dict(family="f", algorithm="a"), "z", "y")[0]["skipped"]
    'z measured on no embedding of this panel'
    """
    row: dict[str, Any] = {"family": panel["family"], "algorithm": panel["algorithm"],
                           "x": x, "y": y, "n": 0, "skipped": ""}  # fmt: skip
    absent = [c for c in (x, y) if c not in points or points[c].isna().all()]
    if absent:
        row["skipped"] = f"{' and '.join(absent)} measured on no embedding of this panel"
        return row, None
    both = points.dropna(subset=[x, y])
    row["n"] = len(both)
    return row, both


def intrinsic_extrinsic_figure(
    scores: pd.DataFrame,
    panels: Sequence[dict[str, Any]],
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
        ``extrinsic:…`` column) and optional ``title`` and ``beside`` (a list of further
        ``intrinsic:…`` columns, e.g. RNSB beside WEAT as in the paper's Figure 1). The points
        are the original embedding (a star, with error bars of ±1 sample standard deviation
        over its extrinsic seeds) and the embeddings modified with the panel's modification
        set, marked by method. A panel whose x or y column was measured on no embedding (a
        word set out of every vocabulary) says so ("n/a: …") instead of failing; embeddings
        missing x or y are left out.
    ncols : int, default 2
        Panels per row when no panel has ``beside``. When some do, each panel is one row: ``x``
        on the left, then its ``beside`` columns, all on the same y axis (shared limits).

    Examples
    --------
    >>> s = pd.DataFrame({"family": "f", "algorithm": "a", "method": ["original", "balance"],
    ...                   "modset": [np.nan, "m"], "intrinsic:x": [0.1, 0.5],
    ...                   "intrinsic:z": [0.3, 0.2],
    ...                   "extrinsic:y": [1.0, 2.0], "extrinsic_sd:y": [0.2, np.nan]})
    >>> fig = intrinsic_extrinsic_figure(s, [dict(family="f", algorithm="a", modset="m",
    ...                                           x="intrinsic:x", y="extrinsic:y")])
    >>> len(fig.axes)
    1
    >>> fig = intrinsic_extrinsic_figure(s, [dict(family="f", algorithm="a", modset="m",
    ...     x="intrinsic:x", y="extrinsic:y", beside=["intrinsic:z"])])
    >>> [ax.get_xlabel() for ax in fig.axes]
    ['intrinsic:x', 'intrinsic:z']
    """
    _need(scores, ["family", "algorithm", "method", "modset"], "intrinsic_extrinsic_figure")
    rows = [[panel["x"], *panel.get("beside", ())] for panel in panels]
    if any(len(r) > 1 for r in rows):  # one row per panel: x, then its beside columns
        width = max(len(r) for r in rows)
        fig, grid = new_figure(len(panels) * width, ncols=width, width=4.6, height=3.6)
        cells = [[grid[i * width + j] for j in range(len(r))] for i, r in enumerate(rows)]
        for i, r in enumerate(rows):
            for ax in grid[i * width + len(r) : (i + 1) * width]:
                fig.delaxes(ax)
    else:
        fig, grid = new_figure(len(panels), ncols=ncols, width=4.6, height=3.6)
        cells = [[ax] for ax in grid]
    for row_axes, panel, xs in zip(cells, panels, rows, strict=True):
        points = panel_points(scores, panel)
        family = FAMILY_LABELS.get(panel["family"], panel["family"])
        title = panel.get("title", f"{family}, {panel['algorithm']}")
        drawn = [
            ax
            for j, (ax, x) in enumerate(zip(row_axes, xs, strict=True))
            if _scatter(ax, points, x, panel["y"], title, ylabel=j == 0)
        ]
        if len(drawn) > 1:  # one y axis per row: the union of the panels' limits
            low = min(ax.get_ylim()[0] for ax in drawn)
            high = max(ax.get_ylim()[1] for ax in drawn)
            for ax in drawn:
                ax.set_ylim(low, high)
    handles: dict[str, object] = {}
    for ax in fig.axes:
        for handle, text in zip(*ax.get_legend_handles_labels(), strict=True):
            handles.setdefault(text, handle)
    if handles:
        legend_below(fig, list(handles.values()), list(handles))
    return fig


def _scatter(ax: Axes, points: pd.DataFrame, x: str, y: str, title: str, *, ylabel: bool) -> bool:
    """One axes of :func:`intrinsic_extrinsic_figure`: the points of ``x`` against ``y``;
    False (and an "n/a" note in the axes) when ``x`` or ``y`` was measured on no point."""
    absent = [c for c in (x, y) if c not in points or points[c].isna().all()]
    if absent:  # e.g. a word set out of every embedding's vocabulary: say so in the panel
        ax.set(title=title, xlabel=score_label(x), ylabel=score_label(y) if ylabel else "",
               xticks=[], yticks=[])  # fmt: skip
        ax.text(0.5, 0.5, "n/a: " + " and ".join(score_label(c) for c in absent)
                + "\nmeasured on no embedding of this run", transform=ax.transAxes,
                ha="center", va="center", fontsize="small", wrap=True)  # fmt: skip
        return False
    points = points.dropna(subset=[x, y])
    for method, (colour, marker, size) in _METHOD_STYLE.items():
        sub = points[points["method"] == method]
        if sub.empty:
            continue
        ax.scatter(sub[x], sub[y], color=colour, marker=marker, s=size, label=METHOD_LABELS[method])
        sd_col = y.replace("extrinsic:", "extrinsic_sd:", 1)
        if method == "original" and sd_col in sub.columns:
            sd = sub[sd_col].to_numpy(float)
            if np.isfinite(sd).any():
                ax.errorbar(sub[x], sub[y], yerr=sd, fmt="none", ecolor=colour, capsize=3, lw=1)
    heading = title
    if len(points) >= 3:  # in the title, where it covers no point
        r = points[[x, y]].rank().corr().iloc[0, 1]
        heading += f"\nSpearman ρ = {r:.2f} (n = {len(points)})"
    ax.set(xlabel=score_label(x), ylabel=score_label(y) if ylabel else "", title=heading)
    ax.axhline(0, color="0.7", lw=0.8, zorder=0)
    return True


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
        Long form with columns ``rho``, ``paper rho`` and ``hue`` (e.g. "extracted" vs "WEAT",
        named in words in the legend with their number of cells; the diagonal has its entry).

    Examples
    --------
    >>> t = pd.DataFrame({"rho": [0.8, 0.1], "paper rho": [0.9, -0.1],
    ...                   "wordset kind": ["extracted", "WEAT"]})
    >>> len(rho_vs_paper_figure(t).axes)
    1
    """
    _need(table, ["rho", "paper rho", hue], "rho_vs_paper_figure")
    fig, (ax,) = new_figure(1, ncols=1, width=6.0, height=5.2)
    both = table.dropna(subset=["rho", "paper rho"])
    for i, (name, sub) in enumerate(both.groupby(hue, sort=True)):
        cells = f"{len(sub)} cell" + ("s" if len(sub) != 1 else "")
        label = f"{_WORDSET_KINDS.get(str(name), str(name))} ({cells})"
        ax.scatter(sub["paper rho"], sub["rho"], color=PALETTE[i], s=26, label=label)
    ax.plot(
        [-1, 1], [-1, 1], color="0.6", lw=0.8, ls="--", zorder=0, label="ρ here = ρ in the paper"
    )
    ax.set(
        xlim=(-1.05, 1.05),
        ylim=(-1.05, 1.05),
        xlabel="ρ in the paper",
        ylabel="ρ here",
        title=title or f"Spearman ρ: this book vs Katô & Miyao ({len(both)} cells)",
    )
    # below the panel: beside it, the entries (in words, with their counts) squeezed the axes
    legend_below(fig, *ax.get_legend_handles_labels())
    return fig


#: Attribute of :func:`~nlpbias.studies.intrinsic_extrinsic.downstream_data.hsd_group_counts` →
#: its panel title (the paper's table it mirrors).
_GROUP_PANELS = {
    "gender": "gender (the paper's Table 18)",
    "dialect": "dialect (the paper's Table 19)",
}


def hsd_groups_figure(counts: pd.DataFrame) -> Figure:
    """The HSD test tweets' groups as shares of the test set, this book beside the paper.

    One panel per attribute (gender, dialect), one pair of bars per group: our share and the
    paper's, each of its own test set (the legend gives both sizes).

    Parameters
    ----------
    counts : pandas.DataFrame
        :func:`~nlpbias.studies.intrinsic_extrinsic.downstream_data.hsd_group_counts`.

    Examples
    --------
    >>> c = pd.DataFrame({"attribute": "gender", "group": ["male-targeting", "neutral"],
    ...                   "tweets": [1, 3], "share": [0.25, 0.75], "paper tweets": [2, 6],
    ...                   "paper share": [0.25, 0.75]})
    >>> sum(len(b) for b in hsd_groups_figure(c).axes[0].containers)
    4
    """
    need = ["attribute", "group", "tweets", "share", "paper tweets", "paper share"]
    _need(counts, need, "hsd_groups_figure")
    first = counts[counts["attribute"] == counts["attribute"].iloc[0]]
    ours = f"this book ({int(first['tweets'].sum()):,} test tweets)"
    theirs = f"Katô & Miyao ({int(first['paper tweets'].sum()):,} test tweets)"
    frame = counts.assign(attribute=counts["attribute"].map(lambda a: _GROUP_PANELS.get(a, a)))
    return paired_barh(
        frame,
        y="group",
        x=["share", "paper share"],
        labels=[ours, theirs],
        by="attribute",
        xlabel="share of the test tweets",
    )
