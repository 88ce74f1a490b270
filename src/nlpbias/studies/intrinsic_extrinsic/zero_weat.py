"""The downstream gap left when WEAT is 0: the paper's ethics remark, read off our Figure 1.

Katô & Miyao (§8): "Even when a word embedding has the WEAT metric of 0, the WinoBias extrinsic
bias metric shows an F1 difference of around 0.1" (the top-left panel of their Figure 1), so a
WEAT of 0 would make us underestimate the bias. :func:`gap_at_zero` reads the same number off
each panel of this book's Figure 1 (:func:`~nlpbias.studies.intrinsic_extrinsic.paper.
figure1_panels`): the ordinary least-squares line of the extrinsic gap (y) on WEAT (x) over the
panel's embeddings, its value at WEAT = 0 (the intercept) with a percentile bootstrap interval
over embeddings, and, without any line, the gap of the embedding whose WEAT is closest to 0.
:func:`gap_at_zero_text` says it in words beside the paper's number
(``data/reported/kato2024.yaml``, key ``gap_at_zero``).
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from nlpbias.core.checks import check_int
from nlpbias.studies.intrinsic_extrinsic.figures import (
    FAMILY_LABELS,
    METHOD_LABELS,
    panel_pairs,
    panel_points,
)

__all__ = ["gap_at_zero", "gap_at_zero_text"]

#: Fewest embeddings a line is fitted to (two points fit any line exactly).
MIN_POINTS = 3

_COLUMNS = [
    "family", "algorithm", "x", "y", "n", "slope", "gap_at_zero", "low", "high",
    "nearest_x", "nearest_gap", "nearest_method", "dropped", "skipped",
]  # fmt: skip


class _DroppedReplicates(logging.Handler):
    """Collects :func:`nlpbias.metrics.stats.bootstrap_ci`'s count of dropped replicates (a
    resample whose points share one x has no least-squares line), so the table reports it
    instead of a warning on the notebook's stderr."""

    def __init__(self) -> None:
        super().__init__(level=logging.WARNING)
        self.dropped = 0

    def emit(self, record: logging.LogRecord) -> None:
        if record.msg.startswith("bootstrap: dropped") and record.args:
            self.dropped += int(record.args[0])


def _intercepts(xy: np.ndarray) -> np.ndarray:
    """OLS intercept of y on x for each resample; ``xy`` is (B, n, 2). NaN where x is constant."""
    x, y = xy[..., 0], xy[..., 1]
    xm, ym = x.mean(axis=-1, keepdims=True), y.mean(axis=-1, keepdims=True)
    sxx = ((x - xm) ** 2).sum(axis=-1)
    sxy = ((x - xm) * (y - ym)).sum(axis=-1)
    with np.errstate(invalid="ignore", divide="ignore"):
        slope = np.where(sxx > 0, sxy / np.where(sxx > 0, sxx, 1.0), np.nan)
    return ym[..., 0] - slope * xm[..., 0]


def gap_at_zero(
    scores: pd.DataFrame,
    panels: Sequence[dict[str, Any]],
    *,
    n_resamples: int,
    random_state: int,
    confidence_level: float = 0.95,
) -> pd.DataFrame:
    """The extrinsic gap at WEAT = 0 in each panel: an OLS line over the panel's embeddings.

    Parameters
    ----------
    scores : pandas.DataFrame
        :func:`~nlpbias.studies.intrinsic_extrinsic.correlation.scores_frame`.
    panels : list of dict
        :func:`~nlpbias.studies.intrinsic_extrinsic.paper.figure1_panels`: per panel the
        embeddings (:func:`~nlpbias.studies.intrinsic_extrinsic.figures.panel_points`), its
        ``x`` (WEAT with the extracted word sets) and ``y`` (the F1 gap). ``beside`` is ignored.
    n_resamples : int
        Bootstrap resamples of the embeddings (with replacement); a resample whose WEAT values
        are all equal has no line and is dropped.
    random_state : int
        Seeds the bootstrap.
    confidence_level : float, default 0.95
        Coverage of the percentile interval.

    Returns
    -------
    pandas.DataFrame
        One row per panel: ``family``, ``algorithm``, ``x``, ``y``, ``n`` (embeddings with both
        values), ``slope``, ``gap_at_zero`` (the fitted gap at WEAT = 0, the intercept),
        ``low``, ``high`` (its percentile bootstrap interval), ``nearest_x``, ``nearest_gap``,
        ``nearest_method`` (the embedding with the smallest ``|x|``: its WEAT, its observed gap
        and how it was made; the first in the frame's order on a tie), ``dropped`` (bootstrap
        resamples left out because their points share one WEAT value: no line) and ``skipped``
        (why no line was fitted, else ""). A panel with fewer than :data:`MIN_POINTS` embeddings, or
        whose x or y was measured on none, or whose WEAT is the same on every embedding, is
        kept with NaN numbers and its reason: the chapter runs on small profiles too.

    Raises
    ------
    KeyError
        ``scores`` lacks ``family``, ``algorithm``, ``method`` or ``modset``, or a panel lacks
        one of its keys.

    Examples
    --------
    >>> s = pd.DataFrame({"family": "coref", "algorithm": "w2v",
    ...     "method": ["original"] + ["balance"] * 4, "modset": [np.nan] + ["extracted"] * 4,
    ...     "intrinsic:extracted:weat": [0.5, -1.0, 0.0, 1.0, 2.0],
    ...     "extrinsic:type1_f1": [0.15, 0.0, 0.1, 0.2, 0.3]})
    >>> panel = dict(family="coref", algorithm="w2v", modset="extracted",
    ...              x="intrinsic:extracted:weat", y="extrinsic:type1_f1")
    >>> row = gap_at_zero(s, [panel], n_resamples=200, random_state=0).iloc[0]
    >>> [round(float(row[c]), 6) for c in ("gap_at_zero", "slope", "nearest_gap")]
    [0.1, 0.1, 0.1]
    """
    from nlpbias.metrics.stats import bootstrap_ci

    check_int(n_resamples, "n_resamples", minimum=1)
    check_int(random_state, "random_state")
    rows = []
    for panel in panels:
        points = panel_points(scores, panel)
        x, y = panel["x"], panel["y"]
        row, both = panel_pairs(points, panel, x, y)
        if both is None:
            rows.append(row)
            continue
        xy = both[[x, y]].to_numpy(float)
        nearest = both.iloc[int(np.argmin(np.abs(xy[:, 0])))]
        row.update(
            nearest_x=float(nearest[x]),
            nearest_gap=float(nearest[y]),
            nearest_method=METHOD_LABELS.get(nearest["method"], str(nearest["method"])),
        )
        if len(both) < MIN_POINTS:
            row["skipped"] = (
                f"{len(both)} embeddings with both {x} and {y}, fewer than {MIN_POINTS}: "
                "no line fitted (run a profile with more modified embeddings)"
            )
        elif np.ptp(xy[:, 0]) == 0:
            row["skipped"] = f"{x} is the same on every embedding: no line fitted"
        if row["skipped"]:
            rows.append(row)
            continue
        slope, intercept = np.polyfit(xy[:, 0], xy[:, 1], deg=1)
        stats_log = logging.getLogger("nlpbias.metrics.stats")
        counter, propagate = _DroppedReplicates(), stats_log.propagate
        stats_log.addHandler(counter)
        stats_log.propagate = False
        try:
            low, high = bootstrap_ci(
                (xy,),
                _intercepts,
                n_resamples=n_resamples,
                confidence_level=confidence_level,
                random_state=random_state,
                vectorized=True,
            )
        finally:
            stats_log.removeHandler(counter)
            stats_log.propagate = propagate
        row.update(slope=float(slope), gap_at_zero=float(intercept), low=low, high=high,
                   dropped=counter.dropped)  # fmt: skip
        rows.append(row)
    out = pd.DataFrame(rows, columns=_COLUMNS)
    out["n"] = out["n"].astype(int)
    out.attrs.update(n_resamples=n_resamples, confidence_level=confidence_level)
    return out


def _paper() -> dict[str, Any]:
    from nlpbias.data.reported import load_reported

    return load_reported("kato2024")["gap_at_zero"]


def _dropped(row: Any) -> str:
    n = getattr(row, "dropped", 0)
    if not n or n != n:  # none, or NaN for a skipped panel
        return ""
    return f", {int(n)} resamples whose embeddings share one WEAT value left out"


def gap_at_zero_text(table: pd.DataFrame, *, digits: int = 2) -> str:
    """One Markdown bullet per row of :func:`gap_at_zero`, with the paper's number beside it.

    Each bullet gives the fitted gap at WEAT = 0 with its interval and says whether the
    interval excludes 0 (a WEAT of 0 still leaves a downstream gap), then the observed gap of
    the embedding closest to WEAT = 0. The paper's "around 0.1" is quoted on the rows of its
    family (the coreference panels; the paper reads it off word2vec's).

    Examples
    --------
    >>> t = pd.DataFrame([{"family": "coref", "algorithm": "word2vec",
    ...     "x": "intrinsic:extracted:weat", "y": "extrinsic:type1_f1", "n": 13, "slope": 0.1,
    ...     "gap_at_zero": 0.08, "low": 0.05, "high": 0.11, "nearest_x": 0.02,
    ...     "nearest_gap": 0.09, "nearest_method": "balancing", "skipped": ""}])
    >>> print(gap_at_zero_text(t))  # doctest: +NORMALIZE_WHITESPACE
    - **coreference, gender, word2vec**: fitted F1 gap at WEAT = 0: 0.08 [0.05, 0.11]
      (least squares over 13 embeddings; 95 % percentile bootstrap interval over embeddings),
      above 0: a WEAT of 0 still leaves a downstream gap. The embedding closest to WEAT = 0
      (d = 0.02, balancing) has a gap of 0.09. Katô & Miyao: around 0.1 (word2vec, Section 8,
      Figure 1 top-left).
    """
    from nlpbias.studies.intrinsic_extrinsic.figures import score_label

    paper = _paper()
    level = table.attrs.get("confidence_level", 0.95)
    lines = []
    for row in table.itertuples(index=False):
        head = f"- **{FAMILY_LABELS.get(row.family, row.family)}, {row.algorithm}**: "
        paper_part = ""
        if row.family == paper["family"]:
            paper_part = (
                f" Katô & Miyao: around {paper['value']:g} ({paper['algorithm']}, "
                f"{paper['where']})."
            )
        if row.skipped:
            lines.append(f"{head}no gap at WEAT = 0: {row.skipped}.{paper_part}")
            continue
        gap = score_label(row.y).split(" (")[0]
        if row.low > 0 or row.high < 0:
            side = "above" if row.low > 0 else "below"
            verdict = f"{side} 0: a WEAT of 0 still leaves a downstream gap"
        else:
            verdict = "the interval includes 0: no gap left at WEAT = 0 detectable here"

        def f(v: float) -> str:  # no '-0.00'
            return f"{(v if round(v, digits) != 0 else 0.0):.{digits}f}"

        lines.append(
            f"{head}fitted {gap} at WEAT = 0: {f(row.gap_at_zero)} [{f(row.low)}, {f(row.high)}] "
            f"(least squares over {row.n} embeddings; {level * 100:g} % percentile bootstrap "
            f"interval over embeddings{_dropped(row)}), {verdict}. The embedding closest to "
            f"WEAT = 0 (d = {f(row.nearest_x)}, {row.nearest_method}) has a gap of "
            f"{f(row.nearest_gap)}." + paper_part
        )
    return "\n".join(lines)
