r"""Per-term (subgroup) metrics of one identity term, the building block of a bias report.

For a term :math:`t` with subgroup :math:`D_t` (:func:`membership_table`), :func:`term_metrics`
computes the term's FPR and FNR at the threshold, its pinned AUC (with an equal-size background
sample), Borkan's subgroup, BPSN and BNSP AUCs and the positive and negative AEG, and says which
are undefined and why. The definitions, the sampling order and the counting by binary search are
described in :mod:`nlpbias.studies.pinned_auc.metrics`, whose :func:`bias_report` calls these
functions once per term.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from nlpbias.data.identity import term_mask

__all__ = ["METRICS", "membership_table", "term_metrics"]

METRICS = (
    "fpr",
    "fnr",
    "pinned_auc",
    "subgroup_auc",
    "bpsn_auc",
    "bnsp_auc",
    "pos_aeg",
    "neg_aeg",
)


def membership_table(
    n: int, texts: Any, membership: Any, terms: Sequence[str] | None, index: pd.Index | None
) -> pd.DataFrame:
    """Rows x terms bool table: ``term_mask(texts, terms)`` or the checked ``membership``."""
    if texts is not None and membership is not None:
        raise ValueError("pass either texts (with terms) or membership, not both")
    if texts is not None:
        if terms is None:
            raise ValueError("texts needs terms; pass e.g. terms=load_identity_terms()")
        m = term_mask(texts, terms)
    elif membership is not None:
        if not isinstance(membership, pd.DataFrame):
            raise TypeError(
                f"membership must be a pandas DataFrame (rows x terms), got {type(membership)}"
            )
        m = membership
        if m.columns.duplicated().any():
            raise ValueError(
                f"membership has duplicate columns {list(m.columns[m.columns.duplicated()])}"
            )
        if terms is not None:
            missing = [t for t in terms if t not in m.columns]
            if missing:
                raise ValueError(f"terms {missing} are not columns of membership")
            m = m[list(terms)]
    else:
        raise ValueError("pass texts and terms, or a membership DataFrame (rows x terms)")
    if m.shape[1] == 0:
        raise ValueError("no terms to evaluate; pass at least one term")
    if len(m) != n:
        raise ValueError(f"y_true has {n} rows but the membership table has {len(m)}")
    if index is not None and not m.index.equals(index):
        raise ValueError(
            "the index of y_true differs from the membership/texts index; align them or pass "
            "plain arrays"
        )
    bad = [c for c in m.columns if not (m[c].dtype == bool or m[c].isin((0, 1)).all())]
    if bad:
        raise ValueError(f"membership columns must be bool (or 0/1); {bad[:5]} are not")
    return m.astype(bool)


def _u2(x: np.ndarray, ref_sorted: np.ndarray) -> int:
    """Twice the Mann-Whitney U of ``x`` against ``ref``: pairs with x > ref count 2, ties 1.

    ``_u2(x, np.sort(ref)) / 2`` equals ``scipy.stats.mannwhitneyu(x, ref).statistic`` (the U
    of the first sample); integer-valued, so differences of counts stay exact.
    """
    lo = np.searchsorted(ref_sorted, x, side="left")
    hi = np.searchsorted(ref_sorted, x, side="right")
    return int(lo.sum() + hi.sum())


def _pair_auc(pos: np.ndarray, neg: np.ndarray) -> float:
    """AUC of ``pos`` (positives) against ``neg``: share of pairs with pos > neg, ties 1/2."""
    return _u2(pos, np.sort(neg)) / (2 * len(pos) * len(neg))


_PHRASES = {
    # (no rows ..., among the n rows ..., every row ...)
    True: ("no rows mention {t!r}", "that mention {t!r}", "every row mentions {t!r}"),
    False: ("no rows are in subgroup {t!r}", "in subgroup {t!r}", "every row is in subgroup {t!r}"),
}


def term_metrics(
    t: str,
    sub: np.ndarray,
    y: np.ndarray,
    s: np.ndarray,
    pred: np.ndarray,
    gen: np.random.Generator,
    pos_sorted: np.ndarray,
    neg_sorted: np.ndarray,
    *,
    min_rows: int,
    pinned_background: str,
    from_texts: bool,
) -> dict[str, Any]:
    """One row of ``by_group``: counts, the :data:`METRICS` (NaN when undefined), status, reason.

    ``sub`` marks the term's rows; ``y``/``s``/``pred`` are labels, scores and predictions of
    every row; ``pos_sorted``/``neg_sorted`` the sorted scores of each class; ``gen`` draws the
    pinned-AUC background sample.
    """
    none_, among, every = (ph.format(t=t) for ph in _PHRASES[from_texts])
    n_t = int(sub.sum())
    pos_t, neg_t = sub & y, sub & ~y
    n_pos, n_neg = int(pos_t.sum()), int(neg_t.sum())
    row: dict[str, Any] = {"term": t, "n": n_t, "n_pos": n_pos, "n_neg": n_neg}
    row.update({m: math.nan for m in METRICS})
    if n_t == 0:
        row.update(status="undefined", reason=none_)
        return row
    if n_t < min_rows:
        row.update(
            status="undefined",
            reason=f"only {n_t} rows {among}, fewer than min_rows={min_rows} (undefined: all)",
        )
        return row
    causes: list[tuple[str, tuple[str, ...]]] = []
    # Background counts = counts against every row of the class minus those in the subgroup,
    # so each term costs O(|D_t| log n) given the class-wise sorted scores.
    sp, sn = np.sort(s[pos_t]), np.sort(s[neg_t])
    n_bgp, n_bgn = len(pos_sorted) - n_pos, len(neg_sorted) - n_neg
    if n_neg:
        row["fpr"] = float((pred & neg_t).sum() / n_neg)
        if n_bgn:  # U(D_t^-, D_bg^-) / (n m) - 1/2
            u2 = _u2(sn, neg_sorted) - _u2(sn, sn)
            row["neg_aeg"] = u2 / (2 * n_neg * n_bgn) - 0.5
        if n_bgp:  # P(background positive > subgroup negative)
            u2 = _u2(sn, pos_sorted) - _u2(sn, sp)
            row["bpsn_auc"] = 1.0 - u2 / (2 * n_neg * n_bgp)
    if n_pos:
        row["fnr"] = float((~pred & pos_t).sum() / n_pos)
        if n_bgp:  # 1/2 - U(D_t^+, D_bg^+) / (n m)
            u2 = _u2(sp, pos_sorted) - _u2(sp, sp)
            row["pos_aeg"] = 0.5 - u2 / (2 * n_pos * n_bgp)
        if n_bgn:  # P(subgroup positive > background negative)
            u2 = _u2(sp, neg_sorted) - _u2(sp, sn)
            row["bnsp_auc"] = u2 / (2 * n_pos * n_bgn)
    if n_pos and n_neg:
        row["subgroup_auc"] = _u2(sp, sn) / (2 * n_pos * n_neg)
    else:
        c = int(n_pos > 0)
        lost = ("fpr", "neg_aeg", "bpsn_auc") if c else ("fnr", "pos_aeg", "bnsp_auc")
        causes.append((f"only class {c} among the {n_t} rows {among}", (*lost, "subgroup_auc")))
    n_bg = len(sub) - n_t
    if n_bg == 0:
        causes.append(
            (f"{every}, so there is no background", ("bpsn_auc", "bnsp_auc", "pos_aeg", "neg_aeg"))
        )
    else:
        if not n_bgp:
            causes.append(("the background has no class 1 rows", ("bpsn_auc", "pos_aeg")))
        if not n_bgn:
            causes.append(("the background has no class 0 rows", ("bnsp_auc", "neg_aeg")))
    pool = np.flatnonzero(~sub) if pinned_background == "non_subgroup" else np.arange(len(sub))
    if n_t > len(pool):
        causes.append(
            (
                f"the subgroup ({n_t} rows) is larger than the background ({len(pool)} rows), "
                "so no equal-size background sample exists",
                ("pinned_auc",),
            )
        )
    else:
        sample = gen.choice(pool, size=n_t, replace=False)
        yp = np.r_[y[sub], y[sample]]
        if yp.all() or not yp.any():
            causes.append((f"the pinned sample has only class {int(yp[0])}", ("pinned_auc",)))
        else:
            pooled = np.r_[s[sub], s[sample]]
            row["pinned_auc"] = _pair_auc(pooled[yp], pooled[~yp])
    nan = [m for m in METRICS if math.isnan(row[m])]
    if not nan:
        row.update(status="ok", reason="")
        return row
    parts, explained = [], set()
    for cause, mets in causes:
        listed = [m for m in METRICS if m in mets and m in nan]
        explained.update(listed)
        parts.append(f"{cause} (undefined: {', '.join(listed)})" if listed else cause)
    rest = [m for m in nan if m not in explained]
    if rest:  # defensive: never leave a NaN without a reason
        parts.append(f"could not be computed (undefined: {', '.join(rest)})")
    row.update(status="undefined", reason="; ".join(parts))
    return row
