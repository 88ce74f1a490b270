"""Figures of the LOGAN chapter: accuracies, biased clusters, the λ path and the seed spread.

:data:`COLUMN_LABELS` names the columns of the chapter's tables (``acc_1`` → "accuracy, group
A1"); every figure here draws with :func:`nlpbias.plotting.barh` (bars of one row side by side,
legend beside the panel) and says which group is A1 and which A2 for each attribute.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.patches import Patch
from matplotlib.ticker import MaxNLocator

from nlpbias.plotting import (
    PALETTE,
    barh,
    legend_below,
    new_figure,
    require_columns,
)
from nlpbias.studies.logan.robustness import usable_fits

__all__ = [
    "COLUMN_LABELS",
    "biased_cluster_figure",
    "feature_comparison_figure",
    "group_accuracy_figure",
    "group_auc_figure",
    "groups_note",
    "lambda_path_figure",
    "seed_spread_figure",
]

#: Column of the chapter's tables → its name in figures (and tables).
COLUMN_LABELS: dict[str, str] = {
    "acc_1": "accuracy, group A1",
    "acc_2": "accuracy, group A2",
    "auc_1": "subgroup AUC, group A1",
    "auc_2": "subgroup AUC, group A2",
    "bias": "bias |A1 − A2| (points)",
    "bcr_pct": "BCR: biased clusters",
    "bir_pct": "BIR: rows in biased clusters",
    "gap_pts": "accuracy gap A1 − A2 (points)",
}


def groups_note(pairs: Mapping[str, tuple[str, str]] | None) -> str:
    """One line saying which group is A1 and which A2 for each attribute.

    Examples
    --------
    >>> groups_note({"race": ("AA-aligned", "white-aligned")})
    'A1 vs A2 — race: AA-aligned vs white-aligned'
    """
    if not pairs:
        return ""
    parts = [f"{attr}: {a1} vs {a2}" for attr, (a1, a2) in pairs.items()]
    return "A1 vs A2 — " + "; ".join(parts)


def _title(title: str, pairs: Mapping[str, tuple[str, str]] | None) -> str:
    note = groups_note(pairs)
    return f"{title}\n{note}" if note else title


def _side_by_side(
    table: pd.DataFrame, columns: list[str], what: str, *, xlabel: str, title: str
) -> Figure:
    """Bars of ``columns`` side by side per (attribute, method) row, named by COLUMN_LABELS."""
    frame = table.reset_index()
    require_columns(frame, ["attribute", "method", *columns], what)
    long = frame.melt(id_vars=["attribute", "method"], value_vars=columns, var_name="column")
    return barh(
        long, x="value", y=["attribute", "method"], hue="column", names=COLUMN_LABELS,
        xlabel=xlabel, title=title,
    )  # fmt: skip


def group_accuracy_figure(
    table1: pd.DataFrame,
    pairs: Mapping[str, tuple[str, str]] | None = None,
    *,
    title: str = "Accuracy of the two groups: globally and in the most biased cluster",
) -> Figure:
    """Accuracy of groups A1 and A2 per attribute and method, side by side (the paper's Table 1).

    Parameters
    ----------
    table1 : DataFrame
        Index (``attribute``, ``method``), columns ``acc_1`` and ``acc_2`` in % (the chapter's
        concatenated :func:`nlpbias.studies.logan.study.table1`).
    pairs : mapping, optional
        Attribute → (A1, A2) group names (``LoganData.pairs``), written under the title.

    Examples
    --------
    >>> t = pd.DataFrame({"attribute": ["x", "x"], "method": ["Global", "LOGAN"],
    ...                   "acc_1": [80.0, 95.0], "acc_2": [78.0, 60.0]})
    >>> fig = group_accuracy_figure(t.set_index(["attribute", "method"]))
    >>> sum(len(bars) for bars in fig.axes[0].containers)
    4
    """
    return _side_by_side(
        table1, ["acc_1", "acc_2"], "group_accuracy_figure",
        xlabel="accuracy (%)", title=_title(title, pairs),
    )  # fmt: skip


def group_auc_figure(
    table2: pd.DataFrame,
    pairs: Mapping[str, tuple[str, str]] | None = None,
    *,
    title: str = "Subgroup AUC of the two groups: globally and in the most biased cluster",
) -> Figure:
    """Subgroup AUC of groups A1 and A2 per attribute and method (the paper's Table 2).

    Parameters
    ----------
    table2 : DataFrame
        Index (``attribute``, ``method``), columns ``auc_1`` and ``auc_2`` (fractions; the
        chapter's :func:`nlpbias.studies.logan.prose.table2_comparison`).
    pairs : mapping, optional
        Attribute → (A1, A2) group names, written under the title.

    Examples
    --------
    >>> t = pd.DataFrame({"attribute": ["x", "x"], "method": ["Global", "LOGAN"],
    ...                   "auc_1": [0.8, 0.95], "auc_2": [0.78, 0.6]})
    >>> fig = group_auc_figure(t.set_index(["attribute", "method"]))
    >>> sum(len(bars) for bars in fig.axes[0].containers)
    4
    """
    return _side_by_side(
        table2, ["auc_1", "auc_2"], "group_auc_figure",
        xlabel="subgroup AUC (0 to 1)", title=_title(title, pairs),
    )  # fmt: skip


def biased_cluster_figure(
    table4: pd.DataFrame,
    *,
    title: str = "Biased clusters (BCR) and rows in them (BIR)",
) -> Figure:
    """BCR and BIR per attribute and method, side by side (the paper's Table 4).

    Parameters
    ----------
    table4 : DataFrame
        Index (``attribute``, ``method``), columns ``bcr_pct`` and ``bir_pct`` in %.

    Examples
    --------
    >>> t = pd.DataFrame({"attribute": ["x"], "method": ["LOGAN"], "bcr_pct": [50.0],
    ...                   "bir_pct": [34.0]})
    >>> fig = biased_cluster_figure(t.set_index(["attribute", "method"]))
    >>> sum(len(bars) for bars in fig.axes[0].containers)
    2
    """
    return _side_by_side(
        table4, ["bcr_pct", "bir_pct"], "biased_cluster_figure",
        xlabel="% of clusters (BCR) or of rows (BIR)", title=title,
    )  # fmt: skip


_METHOD_STYLE = {  # method of robustness.METHODS -> (colour, marker)
    "K-Means": ("0.35", "*"),
    "LOGAN, paper's rule": (PALETTE[0], "o"),
    "LOGAN, exact rule": (PALETTE[1], "s"),
}
_PATH_Y = {
    "n_biased": "biased clusters (|gap| ≥ 5)",
    "max_abs_gap_pts": "largest |gap| (points)",
    "inertia_ratio": "inertia ÷ K-Means'",
}
#: Horizontal offset of each method at one λ (in λ positions), so two rules never cover each other.
_DODGE = {"K-Means": 0.0, "LOGAN, paper's rule": -0.2, "LOGAN, exact rule": 0.2}


def lambda_path_figure(path: pd.DataFrame) -> Figure:
    """The λ path: biased clusters, the largest gap and the inertia ratio at each λ, per rule.

    λ is on the x axis, one evenly spaced position per value of the grid (K-Means, λ = 0, is the
    star at the first position), so every point says its λ by where it stands and no point
    needs a label; the two rules stand a little left and right of their λ, so they never hide
    each other or the star.

    Parameters
    ----------
    path : DataFrame
        :func:`nlpbias.studies.logan.robustness.lambda_path` rows, with an ``attribute``
        column for one row of panels per attribute. Degenerate fits (``usable`` False: see the
        table's ``degenerate`` column) are drawn hollow; a fit without an eligible cluster has
        no largest gap (NaN) and is not drawn there.

    Examples
    --------
    >>> p = pd.DataFrame({"method": ["K-Means", "LOGAN, paper's rule"], "lam": [0.0, 1.0],
    ...                   "inertia_ratio": [1.0, 1.2], "n_biased": [2, 3],
    ...                   "max_abs_gap_pts": [20.0, 25.0], "usable": [True, False]})
    >>> len(lambda_path_figure(p).axes)
    3
    """
    require_columns(path, ["method", "lam", "usable", *_PATH_Y], "lambda_path_figure")
    frame = path if "attribute" in path.columns else path.assign(attribute="")
    attrs = list(dict.fromkeys(frame["attribute"]))
    lams = sorted(set(frame["lam"].astype(float)))
    where = {v: i for i, v in enumerate(lams)}
    ticks = [f"{v:g}" for v in lams]
    fig, axes = new_figure(3 * len(attrs), ncols=3, width=2.9, height=2.9)
    for row, attr in enumerate(attrs):
        sub = frame[frame["attribute"] == attr]
        for col, (y, label) in enumerate(_PATH_Y.items()):
            ax = axes[3 * row + col]
            for method, (colour, marker) in _METHOD_STYLE.items():
                pts = sub[(sub["method"] == method) & np.isfinite(sub[y].astype(float))]
                pts = pts.sort_values("lam")
                if pts.empty:
                    continue
                x = pts["lam"].astype(float).map(where).to_numpy(float) + _DODGE[method]
                if len(pts) > 1:
                    ax.plot(x, pts[y], color=colour, linewidth=1, zorder=1)
                usable = pts["usable"].astype(bool).to_numpy()
                for keep in (True, False):
                    if not (usable == keep).any():
                        continue
                    ax.scatter(
                        x[usable == keep], pts[y].to_numpy(float)[usable == keep],
                        marker=marker, zorder=3 if method == "K-Means" else 2,
                        s=90 if marker == "*" else 36, edgecolors=colour,
                        facecolors=colour if keep else "white", linewidths=1.2,
                    )  # fmt: skip
            ax.set_xticks(range(len(lams)), ticks)
            ax.set_xlim(-0.5, len(lams) - 0.5)
            ax.tick_params(axis="x", labelsize="small")
            ax.set(xlabel="λ (0: K-Means)", ylabel=label, title=f"{attr}" if attr else "")
            if y == "n_biased":  # a count: whole numbers on its axis
                ax.yaxis.set_major_locator(MaxNLocator(integer=True))
    handles = [
        Line2D([], [], color=c, marker=m, linestyle="-" if n != "K-Means" else "",
               markersize=9 if m == "*" else 6)
        for n, (c, m) in _METHOD_STYLE.items()
    ]  # fmt: skip
    handles.append(Line2D([], [], color="0.3", marker="o", markerfacecolor="white", linestyle=""))
    labels = [*(f"{n} (λ = 0)" if n == "K-Means" else n for n in _METHOD_STYLE),
              "hollow: degenerate fit, never selected (reason in the table)"]  # fmt: skip
    legend_below(fig, handles, labels)
    return fig


def seed_spread_figure(spread: pd.DataFrame) -> Figure:
    """BCR and the largest gap over k-means++ seeds, one dot per seed and a bar at the median.

    Dots of equal value are stacked (no random jitter), so the figure is the same on every run.
    Degenerate fits (a non-empty ``degenerate`` column) are not drawn and not in the median; the
    row's label says how many were left out.

    Examples
    --------
    >>> s = pd.DataFrame({"method": ["K-Means", "K-Means"], "seed": [0, 1],
    ...                   "bcr_pct": [50.0, 50.0], "max_abs_gap_pts": [10.0, 12.0]})
    >>> len(seed_spread_figure(s).axes)
    2
    """
    require_columns(spread, ["method", "bcr_pct", "max_abs_gap_pts"], "seed_spread_figure")
    frame = spread if "attribute" in spread.columns else spread.assign(attribute="")
    attrs = list(dict.fromkeys(frame["attribute"]))
    methods = [m for m in _METHOD_STYLE if m in set(frame["method"])]
    kept = usable_fits(frame)
    fig, axes = new_figure(2 * len(attrs), ncols=2, width=4.2, height=0.5 * len(methods) + 1.6)
    columns = {
        "bcr_pct": ("BCR: biased clusters (%)", 1.0),
        "max_abs_gap_pts": ("largest |gap| (points)", 0.5),
    }
    for row, attr in enumerate(attrs):
        sub = kept[kept["attribute"] == attr]
        left_out = (frame["attribute"] == attr).groupby(frame["method"]).sum() - sub.groupby(
            "method"
        ).size().reindex(methods, fill_value=0)
        fitted = set(frame.loc[frame["attribute"] == attr, "method"])
        names = [
            f"{m}\n(not fitted: no usable λ)"
            if m not in fitted
            else f"{m}\n({int(left_out.get(m, 0))} degenerate left out)"
            if left_out.get(m, 0)
            else m
            for m in methods
        ]
        for col, (x, (label, step)) in enumerate(columns.items()):
            ax = axes[2 * row + col]
            for i, method in enumerate(methods):
                values = sub.loc[sub["method"] == method, x].dropna().to_numpy(float)
                bins = np.round(values / step)
                colour, marker = _METHOD_STYLE[method]
                for b in np.unique(bins):
                    same = values[bins == b]
                    step_y = min(0.07, 0.36 / max(len(same) - 1, 1))  # a stack stays in its row
                    offsets = (np.arange(len(same)) - (len(same) - 1) / 2) * step_y
                    ax.scatter(same, i + offsets, s=14, color=colour, marker="o", zorder=2)
                if len(values):  # the median as a bar under the row's dots
                    med = float(np.median(values))
                    ax.plot([med, med], [i + 0.22, i + 0.42], color="black", linewidth=2.5)
            ax.set_yticks(range(len(methods)), names)
            ax.set_ylim(len(methods) - 0.5, -0.5)
            if sub.empty:  # say why the panel is empty rather than draw bare axes
                ax.text(0.5, 0.5, "every fit is degenerate:\nnothing to draw", ha="center",
                        va="center", transform=ax.transAxes, fontsize="small",
                        color="0.3")  # fmt: skip
                ax.set_xticks([])
            ax.set(xlabel=label, title=f"{attr}" if attr else "")
            if col:
                ax.tick_params(axis="y", labelleft=False)
    legend_below(
        fig,
        [Line2D([], [], color="0.3", marker="o", linestyle="", markersize=4),
         Line2D([], [], color="black", linewidth=2)],
        ["one k-means++ seed", "median over seeds (bar under the dots)"],
    )  # fmt: skip
    return fig


_FEATURE_PANELS = {  # column of feature_comparison -> axis label
    "bcr_pct": "BCR: biased clusters (%)",
    "max_abs_gap_pts": "largest |gap| (points)",
}


def feature_comparison_figure(
    table: pd.DataFrame,
    *,
    title: str = "Biased clusters and the largest gap on each feature set",
) -> Figure:
    """BCR and the largest gap per attribute and method, one bar per feature set (the hue).

    Two panels (:data:`_FEATURE_PANELS`); in each, a row per (attribute, method) holds one bar
    per feature set side by side, in the table's order of the sets. Where the table has the
    paper's number (``paper_bcr_pct``, ``paper_max_abs_gap_pts``), a black diamond marks it on
    the bar of the same feature set. A missing value (a degenerate fit) has no bar and reads
    "n/a".

    Parameters
    ----------
    table : DataFrame
        :func:`nlpbias.studies.logan.feature_comparison.feature_comparison`: index
        (``attribute``, ``features``, ``method``), columns ``bcr_pct`` and ``max_abs_gap_pts``.

    Examples
    --------
    >>> idx = pd.MultiIndex.from_tuples(
    ...     [("x", "pretrained", "LOGAN"), ("x", "fine-tuned", "LOGAN")],
    ...     names=["attribute", "features", "method"])
    >>> t = pd.DataFrame({"bcr_pct": [50.0, 10.0], "max_abs_gap_pts": [20.0, 4.0]}, index=idx)
    >>> fig = feature_comparison_figure(t)
    >>> [[float(b.get_width()) for b in c] for c in fig.axes[0].containers]
    [[50.0], [10.0]]
    """
    frame = table.reset_index()
    require_columns(
        frame, ["attribute", "features", "method", *_FEATURE_PANELS], "feature_comparison_figure"
    )
    rows = list(dict.fromkeys(zip(frame["attribute"], frame["method"], strict=True)))
    sets = list(dict.fromkeys(frame["features"]))
    width = 0.8 / len(sets)
    fig, axes = new_figure(2, ncols=2, width=4.2, height=0.3 * len(rows) * max(len(sets), 2) + 1.6)
    colours = dict(zip(sets, PALETTE * 3, strict=False))
    paper_drawn = False
    for ax, (col, label) in zip(axes, _FEATURE_PANELS.items(), strict=True):
        for j, fs in enumerate(sets):
            sub = frame[frame["features"] == fs].set_index(["attribute", "method"]).reindex(rows)
            pos = np.arange(len(rows)) - 0.4 + width * (j + 0.5)
            values = sub[col].to_numpy(float)
            ax.barh(pos, np.nan_to_num(values, nan=0.0), height=width, color=colours[fs],
                    label=fs)  # fmt: skip
            for p, v in zip(pos, values, strict=True):
                if not np.isfinite(v):
                    ax.annotate("n/a", (0, p), xytext=(3, 0), textcoords="offset points",
                                va="center", fontsize="x-small", color="0.3")  # fmt: skip
            ref = f"paper_{col}"
            if ref in sub.columns:
                theirs = sub[ref].to_numpy(float)
                keep = np.isfinite(theirs)
                if keep.any():
                    ax.scatter(theirs[keep], pos[keep], marker="D", s=22, color="black",
                               zorder=3)  # fmt: skip
                    paper_drawn = True
        ax.set_yticks(range(len(rows)), [f"{a}: {m}" for a, m in rows])
        ax.set_ylim(len(rows) - 0.5, -0.5)
        ax.set(xlabel=label)
        ax.set_xlim(left=0)
    axes[1].tick_params(axis="y", labelleft=False)
    handles: list[object] = [Patch(color=colours[fs]) for fs in sets]
    labels = [f"{fs} features" for fs in sets]
    if paper_drawn:
        handles.append(Line2D([], [], marker="D", color="black", linestyle="", markersize=5))
        labels.append("the paper (same features)")
    legend_below(fig, handles, labels)
    fig.suptitle(title)
    return fig
