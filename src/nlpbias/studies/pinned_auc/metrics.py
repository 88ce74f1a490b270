r"""Unintended-bias metrics for a scored binary classifier and identity subgroups.

Follows Dixon et al. (2018, seed 002), Borkan et al. (2019, "Nuanced metrics for measuring
unintended bias with real data for text classification") and the Jigsaw Unintended Bias in
Toxicity Classification competition. A *subgroup* :math:`D_t` is the set of rows whose text
mentions term :math:`t` as a whole word, case-insensitively (multi-word terms such as
``'african american'`` included; :func:`nlpbias.data.identity.term_mask`); the *background* is
every other row of the evaluation set.

Conventions
-----------
- **Prediction.** A row is predicted positive when ``score >= threshold`` (as in Dixon's code).
- **EER threshold** (:func:`eer_threshold`): on the grid ``k / (n_grid - 1)``, ``k = 0 …
  n_grid - 1`` (101 points by default), the threshold that minimises ``|FP - FN|`` (counts);
  ties go to the largest such threshold, which is what Dixon's ``compute_equal_error_rate``
  returns. :func:`bias_report` computes it on the set it is given when ``threshold=None``;
  the paper's text takes it on the general test set, so for the template set pass
  ``threshold=eer_threshold(y_general, s_general)``.
- **FPED / FNED** (Dixon eqs. 1-2): :math:`\sum_t |FPR - FPR_t|` and :math:`\sum_t |FNR -
  FNR_t|`, with the overall rates on the same evaluation set at the same threshold.
- **Pinned AUC** (Dixon eqs. 3-4): :math:`pAUC_t = AUC(D_t \cup B_t)` with :math:`B_t` a random
  sample, without replacement, of :math:`|D_t|` rows. By default (``pinned_background=
  "non_subgroup"``) it is drawn from the rows *not* in :math:`D_t`, as Dixon's code does
  (``df[~df[subgroup]].sample(len(subgroup_df))``); the paper's text writes :math:`s(D)`, a
  sample of the whole set, which ``pinned_background="all"`` gives. Sampling order: one
  Generator is made from ``random_state`` (:func:`nlpbias.core.repro.rng`), ``Generator.spawn``
  gives one child per term, and the k-th term (column order) draws
  ``child_k.choice(pool, size=|D_t|, replace=False)`` from the ascending row positions of the
  pool. **PAED** (eq. 5) is :math:`\sum_t |AUC - pAUC_t|`.
- **Pinned AUC with equal groups** (``pinned_background="equal_groups"``; the paper's appendix,
  variant 2: "If D contains many subgroups in different amounts, s(D) could be sampled to
  ensure equal representation from each group"). The groups are the terms (the membership
  columns); :math:`B_t` still has :math:`|D_t|` rows outside :math:`D_t`, but each *other* group
  :math:`g` gives the same number of them, drawn from :math:`D_g \setminus D_t`: with
  :math:`G` such groups, :math:`\lfloor |D_t| / G \rfloor` rows each and one more row from
  :math:`|D_t| \bmod G` of them. A group every row of which mentions :math:`t` ("african
  american" for "american") is part of the subgroup, not of its background, and is left out of
  :math:`G`; rows that mention no term are never drawn. Sampling order: the k-th term's child
  first picks the groups that give one more row (``child_k.choice(G, size=|D_t| mod G,
  replace=False)`` over the other groups in column order), then draws each group's rows
  (``child_k.choice(rows, size=quota, replace=False)`` from the ascending positions of that
  group's rows outside :math:`D_t` and not drawn yet), groups in column order. When a group has
  fewer rows than its quota the term's pinned AUC is undefined, with the group named in its
  ``reason``. A term with no rows at all is an error in this variant (every background must
  draw from it): drop it from ``terms``.
- **Borkan AUCs**: subgroup AUC on :math:`D_t` alone; BPSN AUC on subgroup negatives and
  background positives; BNSP AUC on subgroup positives and background negatives.
- **AEG** (Borkan eq. 4): the area between the curve (subgroup rate, background rate) and the
  diagonal, ``∫ (y - x) dx``. For the true-positive rates this area is
  :math:`P(s_{bg}^+ > s_t^+) - 1/2`, for the true-negative rates
  :math:`P(s_t^- > s_{bg}^-) - 1/2` (ties count 1/2). Written with :math:`U(a, b)`, the
  Mann-Whitney U of the *first* sample (the number of pairs in which ``a`` is larger, ties
  1/2 — what ``scipy.stats.mannwhitneyu(a, b).statistic`` returns since SciPy 1.7; the tests
  pin this on a hand-computed example):

  - positive AEG :math:`= 1/2 - U(D_t^+, D_{bg}^+) / (n m)`: **> 0 when the subgroup's
    positives score lower** than the background's (more false negatives for the subgroup);
  - negative AEG :math:`= U(D_t^-, D_{bg}^-) / (n m) - 1/2`: **> 0 when the subgroup's
    negatives score higher** than the background's (more false positives for the subgroup).

  Both are positive when the shift hurts the subgroup, and a subgroup whose scores are all
  shifted up has negative AEG > 0 and positive AEG < 0 — the pattern Borkan et al. report for
  identity comments ("positive values for Negative AEG and negative values for Positive
  AEG"). conversationai's ``model_bias_analysis.py`` (read, not run) computes
  ``0.5 - U(background, subgroup) / (n m)`` for both: its negative AEG equals ours, its
  positive AEG is the negative of ours.
- **Computation.** Every pairwise AUC and U above is counted by binary search in the
  class-wise sorted scores (background counts = all-row counts minus subgroup counts), so a
  term costs :math:`O(|D_t| \log n)`; the tests check the results against
  ``sklearn.metrics.roc_auc_score`` and ``scipy.stats.mannwhitneyu``.
- **Generalised mean** (Jigsaw): :math:`M_p = (\frac1N \sum_t m_t^p)^{1/p}`, ``p = -5``, per
  bias AUC over the terms where it is defined; final score ``0.25 AUC + 0.25 M_p(subgroup) +
  0.25 M_p(BPSN) + 0.25 M_p(BNSP)``.

Per term, :func:`_term_metrics` computes the FPR and FNR at the threshold, the pinned AUC, the
three Borkan AUCs and the two AEGs of the subgroup (:func:`_membership_table` gives the rows of
each term); :func:`bias_report` calls it once per term and adds the sums and means.

Undefined values are never silent: a term with no rows (or fewer than ``min_rows``), a
one-class subgroup, a one-class background, or an impossible pinned sample makes the affected
metrics NaN, sets the term's ``status`` to ``'undefined'`` with a ``reason`` naming the metrics
and the cause, and :func:`bias_report` emits one :class:`UndefinedMetricWarning` listing them.
Sums and means over terms (:meth:`BiasReport.difference`, :meth:`BiasReport.generalized_means`)
use the terms where that metric is defined and report how many; where no term has it defined
(no identity term occurs in the data), the difference is NaN with its reason, never 0.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
from sklearn.metrics import roc_auc_score

from nlpbias.core.checks import check_choice, check_int, check_number
from nlpbias.core.repro import rng as _rng
from nlpbias.data.identity import term_mask
from nlpbias.studies.pinned_auc.roc import (
    check_both_classes,
    check_labels,
    check_scores,
    eer_threshold,
    generalized_mean,
)

__all__ = [
    "METRICS",
    "BiasReport",
    "UndefinedMetricWarning",
    "bias_report",
]

_BIAS_AUCS = ("subgroup_auc", "bpsn_auc", "bnsp_auc")
_DIFFERENCES = {"FPED": "fpr", "FNED": "fnr", "PAED": "pinned_auc"}
_DIFF_REFERENCE = {"fpr": "fpr", "fnr": "fnr", "pinned_auc": "auc"}
_BACKGROUNDS = ("non_subgroup", "all", "equal_groups")


# ---------------------------------------------------------------------------- one term

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


def _membership_table(
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


def _equal_groups_sample(
    t: str, sub: np.ndarray, groups: pd.DataFrame, gen: np.random.Generator
) -> tuple[np.ndarray | None, str]:
    """The pinned background of ``t`` with equal rows from each other group (module docstring).

    Returns the row positions, or ``None`` and the reason when no such sample exists.
    """
    n_t = int(sub.sum())
    others = [
        (str(g), np.flatnonzero(groups[g].to_numpy(dtype=bool) & ~sub))
        for g in groups.columns
        if str(g) != t
    ]
    others = [(g, rows) for g, rows in others if len(rows)]  # nested groups belong to t
    if not others:
        return None, f"no other group has rows outside {t!r} to draw an equal-groups background"
    quota = np.full(len(others), n_t // len(others))
    quota[gen.choice(len(others), size=n_t % len(others), replace=False)] += 1
    taken = np.zeros(len(sub), dtype=bool)
    parts = []
    for (g, rows), q in zip(others, quota, strict=True):
        free = rows[~taken[rows]]
        if q > len(free):
            return None, (
                f"group {g!r} has {len(free)} rows left to draw outside {t!r}, fewer than its "
                f"equal share of {int(q)} of the {n_t}-row equal-groups background"
            )
        pick = gen.choice(free, size=int(q), replace=False)
        taken[pick] = True
        parts.append(pick)
    return np.concatenate(parts), ""


_PHRASES = {
    # (no rows ..., among the n rows ..., every row ...)
    True: ("no rows mention {t!r}", "that mention {t!r}", "every row mentions {t!r}"),
    False: ("no rows are in subgroup {t!r}", "in subgroup {t!r}", "every row is in subgroup {t!r}"),
}


def _term_metrics(
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
    groups: pd.DataFrame | None = None,
) -> dict[str, Any]:
    """One row of ``by_group``: counts, the :data:`METRICS` (NaN when undefined), status, reason.

    ``sub`` marks the term's rows; ``y``/``s``/``pred`` are labels, scores and predictions of
    every row; ``pos_sorted``/``neg_sorted`` the sorted scores of each class; ``gen`` draws the
    pinned-AUC background sample; ``groups`` (the rows x terms table) is needed with
    ``pinned_background="equal_groups"``.
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
    if pinned_background == "equal_groups":
        if groups is None:
            raise ValueError("pinned_background='equal_groups' needs the groups table")
        sample, short = _equal_groups_sample(t, sub, groups, gen)
    else:
        pool = np.flatnonzero(~sub) if pinned_background == "non_subgroup" else np.arange(len(sub))
        if n_t > len(pool):
            sample, short = (
                None,
                (
                    f"the subgroup ({n_t} rows) is larger than the background ({len(pool)} rows), "
                    "so no equal-size background sample exists"
                ),
            )
        else:
            sample, short = gen.choice(pool, size=n_t, replace=False), ""
    if sample is None:
        causes.append((short, ("pinned_auc",)))
    else:
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


class UndefinedMetricWarning(UserWarning):
    """Some per-term metrics are undefined (no rows, one class, ...); see ``by_group.reason``."""


# ------------------------------------------------------------------------------ the report
@dataclass
class BiasReport:
    """Per-term bias metrics in the shape of Fairlearn's ``MetricFrame``.

    Attributes
    ----------
    overall : pandas.Series
        ``n``, ``n_pos``, ``auc``, ``threshold``, ``fpr``, ``fnr`` on the whole evaluation set.
    by_group : pandas.DataFrame
        One row per term: ``term``, ``n``, ``n_pos``, ``n_neg`` and the :data:`METRICS`
        (``fpr``, ``fnr``, ``pinned_auc``, ``subgroup_auc``, ``bpsn_auc``, ``bnsp_auc``,
        ``pos_aeg``, ``neg_aeg``), ``status`` (``'ok'`` when every metric is defined, else
        ``'undefined'``) and ``reason`` (empty when ok; else which metrics are NaN and why).
    threshold_source : str
        ``'eer'`` (EER threshold of this set) or ``'given'``.
    pinned_background : str
        ``'non_subgroup'``, ``'all'`` or ``'equal_groups'``: where the pinned-AUC background
        sample came from.
    """

    overall: pd.Series
    by_group: pd.DataFrame
    threshold_source: str
    pinned_background: str

    def difference(self) -> pd.Series:
        """Dixon's equality differences: sums over terms of ``|overall - per-term|``.

        A sum over no terms is undefined, not zero: when no term has the per-term metric
        defined (e.g. no identity term occurs in the data, so ``n_terms_<name> = 0``), that
        difference is NaN, its reason is in ``attrs["reasons"]`` (and in the ``note`` of
        :meth:`to_frame`), and one :class:`UndefinedMetricWarning` names the terms and the fix.

        Returns
        -------
        pandas.Series
            ``FPED``, ``FNED``, ``PAED`` (PAED uses the overall AUC), each summed over the
            terms where the per-term metric is defined, and ``n_terms_FPED``,
            ``n_terms_FNED``, ``n_terms_PAED``: how many terms each sum used.
            ``attrs["reasons"]`` maps each undefined difference to why it is undefined.

        Warns
        -----
        UndefinedMetricWarning
            When a difference is undefined (no term to sum over).

        Examples
        --------
        >>> r = bias_report([0, 1, 0, 1], [0.2, 0.9, 0.6, 0.7], threshold=0.5, random_state=0,
        ...                 membership=pd.DataFrame({"a": [True, True, False, False]}))
        >>> float(r.difference()["FPED"])  # overall FPR 1/2, FPR_a = 0
        0.5
        """
        out, reasons = self._differences()
        if reasons:
            warnings.warn(self._undefined_message(reasons), UndefinedMetricWarning, stacklevel=2)
        return out

    def _differences(self) -> tuple[pd.Series, dict[str, str]]:
        """The differences and, for each undefined one, its reason (no warning)."""
        out: dict[str, float] = {}
        counts: dict[str, float] = {}
        reasons: dict[str, str] = {}
        for name, col in _DIFFERENCES.items():
            vals = self.by_group[col].dropna()
            ref = float(self.overall[_DIFF_REFERENCE[col]])
            if vals.empty:
                out[name] = math.nan
                reasons[name] = f"{name} is undefined: {self._no_term_defines(col)}"
            else:
                out[name] = float(np.abs(ref - vals.to_numpy(dtype=float)).sum())
            counts[f"n_terms_{name}"] = float(len(vals))
        series = pd.Series({**out, **counts}, name="difference", dtype=float)
        series.attrs["reasons"] = reasons
        return series, reasons

    def _no_term_defines(self, col: str) -> str:
        """'none of the N terms (...) has a defined <col> (first term: its reason)'."""
        terms = self.by_group["term"].astype(str).tolist()
        shown = ", ".join(map(repr, terms[:5])) + (", ..." if len(terms) > 5 else "")
        first = self.by_group["reason"].iloc[0] if len(self.by_group) else ""
        why = f"; {terms[0]!r}: {first}" if first else ""
        return f"none of the {len(terms)} terms ({shown}) has a defined {col}{why}"

    def _undefined_message(self, reasons: dict[str, str]) -> str:
        names = list(reasons)
        cols = ", ".join(_DIFFERENCES[n] for n in names)
        verb = "is" if len(names) == 1 else "are"
        return (
            f"{', '.join(names)} {verb} undefined (NaN, not 0): "
            f"{self._no_term_defines(cols)}; evaluate on data that mentions the terms (with "
            "both classes among their rows), or pass terms that occur in it"
        )

    def generalized_means(self, p: float = -5.0) -> pd.Series:
        """Generalised mean over terms of each bias AUC (subgroup, BPSN, BNSP).

        Parameters
        ----------
        p : float, default -5
            Exponent (Jigsaw: -5).

        Returns
        -------
        pandas.Series
            ``subgroup_auc``, ``bpsn_auc``, ``bnsp_auc`` and ``n_terms_<metric>`` (terms used).

        Raises
        ------
        ValueError
            If no term has that metric defined.
        """
        out: dict[str, float] = {}
        counts: dict[str, float] = {}
        for col in _BIAS_AUCS:
            vals = self.by_group[col].dropna()
            if vals.empty:
                raise ValueError(
                    f"the generalised mean of {col} is undefined: no term has a defined {col}; "
                    "see by_group.reason"
                )
            out[col] = generalized_mean(vals.to_numpy(dtype=float), p=p)
            counts[f"n_terms_{col}"] = float(len(vals))
        return pd.Series({**out, **counts}, name=f"generalized_mean_p{p:g}", dtype=float)

    def final_score(
        self, *, weights: Sequence[float] = (0.25, 0.25, 0.25, 0.25), p: float = -5.0
    ) -> float:
        """Jigsaw competition score: ``w0 AUC + w1 M_p(subgroup) + w2 M_p(BPSN) + w3 M_p(BNSP)``.

        Parameters
        ----------
        weights : sequence of 4 floats, default (0.25, 0.25, 0.25, 0.25)
        p : float, default -5

        Returns
        -------
        float
        """
        w = np.asarray(weights, dtype=np.float64)
        if w.shape != (4,) or not np.all(np.isfinite(w)):
            raise ValueError(f"weights must be 4 finite numbers, got {list(weights)!r}")
        gm = self.generalized_means(p)
        parts = [float(self.overall["auc"])] + [float(gm[c]) for c in _BIAS_AUCS]
        return float(np.dot(w, parts))

    def to_frame(self, p: float = -5.0) -> pd.DataFrame:
        """Everything in tidy long format: one row per (term, metric).

        Per-term rows carry ``n``, ``n_pos``, ``n_neg`` and the :data:`METRICS`; summary rows
        have term ``'(overall)'`` (the :attr:`overall` values) and ``'(all terms)'``
        (:meth:`difference`, :meth:`generalized_means` as ``gm_<metric>``, ``final_score``).

        Returns
        -------
        pandas.DataFrame
            Columns ``term``, ``metric``, ``value``, ``note`` (why a value is NaN, else
            empty).
        """
        bg = self.by_group
        value_cols = ["n", "n_pos", "n_neg", *METRICS]
        long = bg.melt(id_vars=["term", "reason"], value_vars=value_cols, var_name="metric")
        long["value"] = long["value"].astype(float)
        long["note"] = np.where(long["value"].isna(), long["reason"], "")
        rows = [long[["term", "metric", "value", "note"]]]
        ov = pd.DataFrame(
            {"term": "(overall)", "metric": self.overall.index, "value": self.overall.values}
        )
        ov["note"] = ""
        diff, reasons = self._differences()
        summary = [(k, float(v), reasons.get(k, "")) for k, v in diff.items()]
        try:
            gm = self.generalized_means(p)
            summary += [(f"gm_{k}", float(v), "") for k, v in gm.items() if k in _BIAS_AUCS]
            summary.append(("final_score", self.final_score(p=p), ""))
        except ValueError as err:
            summary += [(f"gm_{k}", math.nan, str(err)) for k in _BIAS_AUCS]
            summary.append(("final_score", math.nan, str(err)))
        sm = pd.DataFrame(summary, columns=["metric", "value", "note"])
        sm.insert(0, "term", "(all terms)")
        out = pd.concat([*rows, ov, sm], ignore_index=True)
        out["value"] = out["value"].astype(float)
        return out


def bias_report(
    y_true: Any,
    y_score: Any,
    *,
    texts: Iterable[str] | pd.Series | None = None,
    membership: pd.DataFrame | None = None,
    terms: Sequence[str] | None = None,
    threshold: float | None = None,
    random_state: None | int | np.random.Generator,
    min_rows: int = 1,
    pinned_background: str = "non_subgroup",
) -> BiasReport:
    """Per-term unintended-bias metrics (Dixon 2018, Borkan 2019, Jigsaw) in one call.

    Parameters
    ----------
    y_true : array-like of {0, 1} or bool
        True labels of the evaluation set (both classes must occur).
    y_score : array-like of float in [0, 1]
        Model scores, one per row.
    texts : iterable of str or pandas.Series, optional
        The texts; with ``terms``, subgroup membership is
        ``term_mask(texts, terms)`` (whole word, case-insensitive, multi-word terms allowed).
    membership : pandas.DataFrame of bool, optional
        Rows x terms, instead of ``texts``; ``terms`` then selects and orders columns.
    terms : sequence of str, optional
        Terms to evaluate (required with ``texts``).
    threshold : float in [0, 1], optional
        Decision threshold for FPR/FNR. ``None``: the EER threshold of *this* set
        (:func:`eer_threshold`). To follow the paper's text on the template set, pass the EER
        threshold of the general test set.
    random_state : None, int or numpy.random.Generator
        Seeds the pinned-AUC background samples (see the module docstring for the order).
    min_rows : int, default 1
        Terms with fewer rows are reported as undefined.
    pinned_background : {"non_subgroup", "all", "equal_groups"}, default "non_subgroup"
        Draw the pinned-AUC background sample from the rows outside the subgroup (Dixon's
        code), from all rows (the paper's :math:`s(D)`), or from the rows outside the subgroup
        with the same number of rows from each other term (the appendix's second variant; see
        the module docstring).

    Returns
    -------
    BiasReport

    Warns
    -----
    UndefinedMetricWarning
        Once, listing the terms with undefined metrics (their ``reason`` says why).

    Examples
    --------
    >>> r = bias_report([0, 1, 0, 1], [0.2, 0.9, 0.6, 0.7], threshold=0.5, random_state=0,
    ...                 texts=["a gay man", "gay idiot", "hi", "idiot"], terms=["gay"])
    >>> r.by_group[["term", "n", "fpr", "subgroup_auc", "status"]]
      term  n  fpr  subgroup_auc status
    0  gay  2  0.0           1.0     ok
    """
    index = y_true.index if isinstance(y_true, pd.Series) else None
    y = check_labels(y_true)
    s = check_scores(y_score, len(y))
    check_both_classes(y)
    check_int(min_rows, "min_rows", minimum=1)
    check_choice(pinned_background, "pinned_background", _BACKGROUNDS)
    if isinstance(texts, pd.Series) and index is not None and not texts.index.equals(index):
        raise ValueError("y_true and texts have different indexes; align them first")
    m = _membership_table(len(y), texts, membership, terms, index if texts is None else None)
    if pinned_background == "equal_groups":
        empty = [str(c) for c in m.columns if not m[c].any()]
        if empty:
            raise ValueError(
                f"pinned_background='equal_groups' draws every background from each group, but "
                f"groups {empty} have no rows; drop them from terms (or membership), or use "
                "pinned_background='non_subgroup'"
            )
    if threshold is None:
        thr, source = eer_threshold(y, s), "eer"
    else:
        thr, source = check_number(threshold, "threshold", low=0.0, high=1.0), "given"
    pred = s >= thr
    overall = pd.Series(
        {
            "n": len(y),
            "n_pos": int(y.sum()),
            "auc": float(roc_auc_score(y, s)),
            "threshold": thr,
            "fpr": float((pred & ~y).sum() / (~y).sum()),
            "fnr": float((~pred & y).sum() / y.sum()),
        },
        name="overall",
        dtype=float,
    )
    children = _rng(random_state).spawn(m.shape[1])
    mat = m.to_numpy(dtype=bool)
    pos_sorted, neg_sorted = np.sort(s[y]), np.sort(s[~y])
    rows = [
        _term_metrics(
            str(t),
            mat[:, k],
            y,
            s,
            pred,
            children[k],
            pos_sorted,
            neg_sorted,
            min_rows=int(min_rows),
            pinned_background=pinned_background,
            from_texts=texts is not None,
            groups=m if pinned_background == "equal_groups" else None,
        )
        for k, t in enumerate(m.columns)
    ]
    by_group = pd.DataFrame(
        rows, columns=["term", "n", "n_pos", "n_neg", *METRICS, "status", "reason"]
    )
    bad = by_group.loc[by_group["status"] != "ok", "term"].tolist()
    if bad:
        warnings.warn(
            f"{len(bad)} of {len(by_group)} terms have undefined metrics (see "
            f"by_group.reason): {', '.join(map(repr, bad))}",
            UndefinedMetricWarning,
            stacklevel=2,
        )
    return BiasReport(
        overall, by_group, threshold_source=source, pinned_background=pinned_background
    )
