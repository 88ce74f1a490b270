"""How much the downstream gap varies between embeddings of similar intrinsic bias.

Katô & Miyao (§6) call RNSB's moderate correlations with WinoBias "unreliable for estimating the
WinoBias metric from the RNSB because the WinoBias metric varies greatly even for a similar RNSB
value" (Figure 1, top right), and say it from the picture. :func:`spread_at_similar` puts a
number on it for each panel of this book's Figure 1 and each intrinsic metric drawn there (WEAT
and, ``beside`` it, RNSB), and :func:`spread_text` compares the two.

**The rule.** Sort a panel's embeddings by the intrinsic score x and pair each with the next one
(its nearest neighbour on one side in x): the n - 1 *neighbour pairs*, embeddings whose intrinsic
values are as similar as this run has. The *neighbour spread* is the mean |Δy| of the extrinsic
gap over those pairs; the *pair spread* is the mean |Δy| over all n (n - 1) / 2 pairs (Gini's
mean difference, what two embeddings picked at random differ by). Their ratio is

- about 0 when the gap is a smooth function of x (similar x, similar gap): x predicts the gap
  (a gap that rises evenly with x over n embeddings gives 3 / (n + 1): 0.21 for 13, 0.07 for 45);
- about 1 when similar x says no more about the gap than a random other embedding does
  (the gap "varies greatly even for a similar value");

and it does not depend on the scale of x (only its order), so WEAT and RNSB can be compared on
one panel. Embeddings with equal x keep the frame's order (a stable sort), never one chosen to
make the pairs look alike. The ratio is descriptive: no interval, and over the 13 to 45 points
of a panel it moves by a few hundredths when one embedding is added.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from nlpbias.studies.intrinsic_extrinsic.figures import (
    FAMILY_LABELS,
    panel_pairs,
    panel_points,
    score_label,
)

__all__ = ["spread_at_similar", "spread_text"]

#: Fewest embeddings a spread is computed on (two give one pair, the same as all pairs).
MIN_POINTS = 3

_COLUMNS = ["family", "algorithm", "x", "y", "n", "neighbour_spread", "pair_spread", "ratio",
            "skipped"]  # fmt: skip


def _neighbour_ratio(x: np.ndarray, y: np.ndarray) -> tuple[float, float, float]:
    """(neighbour spread, pair spread, their ratio) of y over x; see the module's rule.

    Examples
    --------
    >>> _neighbour_ratio(np.array([3.0, 1.0, 2.0, 4.0]), np.array([30.0, 10.0, 20.0, 40.0]))
    (10.0, 16.666666666666668, 0.6)
    """
    order = np.argsort(x, kind="stable")
    neighbour = float(np.abs(np.diff(y[order])).mean())
    i, j = np.triu_indices(len(y), k=1)
    pair = float(np.abs(y[i] - y[j]).mean())
    return neighbour, pair, (neighbour / pair if pair > 0 else float("nan"))


def spread_at_similar(scores: pd.DataFrame, panels: Sequence[dict[str, Any]]) -> pd.DataFrame:
    """The neighbour spread of the extrinsic gap for each panel and intrinsic metric.

    Parameters
    ----------
    scores : pandas.DataFrame
        :func:`~nlpbias.studies.intrinsic_extrinsic.correlation.scores_frame`.
    panels : list of dict
        :func:`~nlpbias.studies.intrinsic_extrinsic.paper.figure1_panels`: per panel the
        embeddings (:func:`~nlpbias.studies.intrinsic_extrinsic.figures.panel_points`), the
        extrinsic ``y`` and the intrinsic ``x`` and ``beside`` columns (WEAT, then RNSB).

    Returns
    -------
    pandas.DataFrame
        One row per panel and intrinsic column, in the panels' order: ``family``,
        ``algorithm``, ``x``, ``y``, ``n`` (embeddings with both values), ``neighbour_spread``
        (mean |Δy| over the neighbour pairs in x), ``pair_spread`` (mean |Δy| over all pairs),
        ``ratio`` (0: similar x, similar gap; 1: similar x says nothing about the gap) and
        ``skipped`` (why there is no number, else ""): a column measured on no embedding, fewer
        than :data:`MIN_POINTS` embeddings, or a gap equal on every embedding.

    Raises
    ------
    KeyError
        ``scores`` lacks ``family``, ``algorithm``, ``method`` or ``modset``, or a panel lacks
        one of its keys.

    Examples
    --------
    >>> s = pd.DataFrame({"family": "coref", "algorithm": "w2v", "method": "balance",
    ...     "modset": "extracted", "intrinsic:w": [1.0, 2.0, 3.0, 4.0],
    ...     "intrinsic:r": [1.0, 4.0, 2.0, 3.0], "extrinsic:g": [0.1, 0.2, 0.3, 0.4]})
    >>> panel = dict(family="coref", algorithm="w2v", modset="extracted", x="intrinsic:w",
    ...              beside=["intrinsic:r"], y="extrinsic:g")
    >>> spread_at_similar(s, [panel])[["x", "ratio"]].round(2).values.tolist()
    [['intrinsic:w', 0.6], ['intrinsic:r', 1.0]]
    """
    rows = []
    for panel in panels:
        points = panel_points(scores, panel)
        y = panel["y"]
        for x in (panel["x"], *panel.get("beside", ())):
            row, both = panel_pairs(points, panel, x, y)
            if both is None:
                rows.append(row)
                continue
            yv = both[y].to_numpy(float)
            if len(both) < MIN_POINTS:
                row["skipped"] = (
                    f"{len(both)} embeddings with both {x} and {y}, fewer than {MIN_POINTS}: "
                    "no neighbour pairs to compare with all pairs"
                )
            elif np.ptp(yv) == 0:
                row["skipped"] = f"{y} is the same on every embedding: nothing varies"
            else:
                neighbour, pair, ratio = _neighbour_ratio(both[x].to_numpy(float), yv)
                row.update(neighbour_spread=neighbour, pair_spread=pair, ratio=ratio)
            rows.append(row)
    out = pd.DataFrame(rows, columns=_COLUMNS)
    out["n"] = out["n"].astype(int)
    return out


def spread_text(table: pd.DataFrame, *, digits: int = 2) -> str:
    """One Markdown bullet per panel of :func:`spread_at_similar`: each metric's ratio, and which
    metric's neighbours differ more in the downstream gap (the paper's remark on RNSB).

    Examples
    --------
    >>> t = pd.DataFrame({"family": "coref", "algorithm": "w2v",
    ...     "x": ["intrinsic:extracted:weat", "intrinsic:extracted:rnsb"],
    ...     "y": "extrinsic:type1_f1", "n": 13, "neighbour_spread": [0.02, 0.06],
    ...     "pair_spread": 0.1, "ratio": [0.2, 0.6], "skipped": ""})
    >>> print(spread_text(t))  # doctest: +NORMALIZE_WHITESPACE
    - **coreference, gender, w2v** (13 embeddings): embeddings next to each other in WEAT
      differ in the F1 gap by 0.02 on average, 0.20 of what two random embeddings differ by
      (0.10); next to each other in RNSB, by 0.06 (0.60). The gap varies more between
      embeddings of similar RNSB than of similar WEAT, as Katô & Miyao say of theirs.
    >>> t["ratio"] = [0.411, 0.409]
    >>> "give the same ratio at this precision" in spread_text(t)
    True
    """
    lines = []
    for (fam, alg, y), block in table.groupby(["family", "algorithm", "y"], sort=False):
        f = f"{{:.{digits}f}}".format
        names = [score_label(x).split(",")[0].replace(" effect size d", "") for x in block["x"]]
        head = f"- **{FAMILY_LABELS.get(fam, fam)}, {alg}**"
        done = block[block["skipped"] == ""]
        parts = []
        for i, (name, row) in enumerate(zip(names, block.itertuples(index=False), strict=True)):
            if row.skipped:
                parts.append(f"{name}: no number ({row.skipped})")
            elif i == 0 or not parts:
                gap = score_label(y).split(" (")[0]
                parts.append(
                    f"embeddings next to each other in {name} differ in the {gap} by "
                    f"{f(row.neighbour_spread)} on average, {f(row.ratio)} of what two random "
                    f"embeddings differ by ({f(row.pair_spread)})"
                )
            else:
                parts.append(
                    f"next to each other in {name}, by {f(row.neighbour_spread)} ({f(row.ratio)})"
                )
        n = int(block["n"].max())
        line = f"{head} ({n} embeddings): " + "; ".join(parts) + "."
        if len(done) >= 2:
            order = done.sort_values("ratio", kind="stable")
            low, high = (names[list(block.index).index(i)] for i in order.index[[0, -1]])
            if f(order["ratio"].iloc[-1]) == f(order["ratio"].iloc[0]):
                line += (
                    f" {low} and {high} give the same ratio at this precision: here a similar "
                    f"{high} score is as good a guide to the gap as a similar {low} score."
                )
            else:
                line += (
                    f" The gap varies more between embeddings of similar {high} than of similar "
                    f"{low}" + (", as Katô & Miyao say of theirs." if high == "RNSB" else ".")
                )
        lines.append(line)
    return "\n".join(lines)
