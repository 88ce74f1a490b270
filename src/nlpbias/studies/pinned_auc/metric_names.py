"""Readable names of the pinned-AUC chapter's metrics, for figures and the tables beside them.

One table, :data:`METRIC_LABELS`, maps each metric's column name (``bpsn_auc``) to what a reader
reads ("BPSN AUC"); figures take it as their ``names`` argument and tables as
``frame.rename(columns=METRIC_LABELS)``.
"""

from __future__ import annotations

__all__ = ["METRIC_LABELS"]

#: Column name of a metric → its display name.
METRIC_LABELS: dict[str, str] = {
    "auc": "AUC",
    "subgroup_auc": "subgroup AUC",
    "pinned_auc": "pinned AUC",
    "bpsn_auc": "BPSN AUC",
    "bnsp_auc": "BNSP AUC",
    "fpr": "false positive rate",
    "fnr": "false negative rate",
    "FPED": "FPED",
    "FNED": "FNED",
    "PAED": "PAED",
    "final_score": "final score",
}
