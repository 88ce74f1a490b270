"""Figures of the LOGAN chapter: the two groups' accuracies and the biased clusters, in words.

:data:`COLUMN_LABELS` names the columns of the chapter's tables (``acc_1`` → "accuracy, group
A1"); every figure here draws with :func:`nlpbias.plotting.barh` (bars of one row side by side,
legend beside the panel) and says which group is A1 and which A2 for each attribute.
"""

from __future__ import annotations

from collections.abc import Mapping

import pandas as pd
from matplotlib.figure import Figure

from nlpbias.plotting import barh, require_columns

__all__ = ["COLUMN_LABELS", "biased_cluster_figure", "group_accuracy_figure", "groups_note"]

#: Column of the chapter's tables → its name in figures (and tables).
COLUMN_LABELS: dict[str, str] = {
    "acc_1": "accuracy, group A1",
    "acc_2": "accuracy, group A2",
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
    frame = table1.reset_index()
    require_columns(frame, ["attribute", "method", "acc_1", "acc_2"], "group_accuracy_figure")
    long = frame.melt(
        id_vars=["attribute", "method"],
        value_vars=["acc_1", "acc_2"],
        var_name="group",
        value_name="accuracy",
    )
    return barh(
        long,
        x="accuracy",
        y=["attribute", "method"],
        hue="group",
        names=COLUMN_LABELS,
        xlabel="accuracy (%)",
        title=_title(title, pairs),
    )


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
    frame = table4.reset_index()
    require_columns(frame, ["attribute", "method", "bcr_pct", "bir_pct"], "biased_cluster_figure")
    long = frame.melt(
        id_vars=["attribute", "method"],
        value_vars=["bcr_pct", "bir_pct"],
        var_name="share",
        value_name="percent",
    )
    return barh(
        long,
        x="percent",
        y=["attribute", "method"],
        hue="share",
        names=COLUMN_LABELS,
        xlabel="% of clusters (BCR) or of rows (BIR)",
        title=title,
    )
