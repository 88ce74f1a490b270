"""The in-domain skew scenario: identity terms over-represented among toxic tweets, by construction.

On the Davidson tweets the mitigation does not separate from its random control. Two causes are
possible: the identity terms are not over-represented among toxic tweets there (83 % of the
tweets are toxic, so a term's ``ratio`` = share among toxic / share among all is at most
1 / 0.83 ≈ 1.2, while Dixon et al.'s Table 1 has ratios up to 6), and the pools add Wikipedia
sentences, another domain. This scenario removes both: it builds, from the Davidson training
tweets alone, a training set in which chosen terms carry Table 1's skew, and takes the mitigation
pool and the control pool from tweets too.

The construction (:func:`skew_in_domain`), for a training frame and target ratios ``r_t``:

1. **Groups.** Each text belongs to the first chosen term it contains (in the order of
   ``targets``), or to no term.
2. **Control pool.** ``control_size`` non-toxic texts that contain no chosen term are held out
   at random: the random control draws from them.
3. **Skew.** The target toxic share among the texts of term ``t`` is ``s_t = r_t ·
   toxic_share`` (a ratio is the toxic share among the term's texts over the toxic share of
   all texts). A share ``hold_back`` of the term's ``N_t`` non-toxic texts is held back — the
   **mitigation pool** — and ``n_t = floor((1 - hold_back) N_t)`` stay; then as many of its
   ``K_t`` toxic texts are kept as the target allows, ``k_t = round(n_t s_t / (1 - s_t))``.
   Where the term has fewer toxic texts than that, all ``K_t`` stay and more non-toxic texts
   are held back, ``n_t = round(K_t (1 - s_t) / s_t)`` (``status = 'toxic-limited'``). A term
   left with ``k_t = 0`` cannot be skewed: it is reported as ``too rare`` and its texts are
   treated like texts without a chosen term.
4. **Prior.** Toxic texts of no skewed term are drawn, term-blind, until the training set's
   toxic share is ``toxic_share``. On Davidson (83 % toxic) a ratio above 1 / 0.83 ≈ 1.2 is out
   of reach without this step; the default 0.15 is the largest round share at which Table 1's
   largest ratio (6.0, "gay") stays below 1 / ``toxic_share``.

The achieved ratios are measured on the resulting training set with
:func:`nlpbias.data.describe.identity_term_frequencies` (texts with two chosen terms count for
both, so a ratio may differ slightly from its target; the report shows both).

Examples
--------
>>> import pandas as pd
>>> train = pd.DataFrame({
...     "text": ["gay idiot"] * 40 + ["gay pride"] * 40 + ["you idiot"] * 400 + ["nice day"] * 400,
...     "toxic": [True] * 40 + [False] * 40 + [True] * 400 + [False] * 400})
>>> res = skew_in_domain(train, {"gay": 5.0}, toxic_share=0.1, hold_back=0.5, control_size=50,
...                      random_state=0)
>>> res.report[["kept_toxic", "kept_nontoxic", "held_back", "status"]].to_dict("records")
[{'kept_toxic': 20, 'kept_nontoxic': 20, 'held_back': 20, 'status': 'matched'}]
>>> round(float(res.train["toxic"].mean()), 2), round(float(res.report.loc[0, "ratio"]), 1)
(0.1, 5.0)
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
import pandas as pd

from nlpbias.core.checks import check_fraction, check_int
from nlpbias.data.describe import identity_term_frequencies
from nlpbias.data.frames import as_labels, as_texts, check_frame
from nlpbias.data.identity import term_mask

__all__ = ["SkewResult", "skew_in_domain", "table1_ratios"]

RandomState = None | int | np.random.Generator

REPORT_COLUMNS = [
    "term",
    "target_ratio",
    "toxic_texts",
    "nontoxic_texts",
    "kept_toxic",
    "kept_nontoxic",
    "held_back",
    "ratio",
    "status",
]


@dataclass(frozen=True, eq=False)
class SkewResult:
    """What :func:`skew_in_domain` built.

    Attributes
    ----------
    train : DataFrame
        The skewed training set (``text``, ``toxic``), indexed by the input's index.
    held_back : DataFrame
        The non-toxic texts held back from chosen terms (``text``, ``toxic`` False, ``term``):
        the mitigation pool.
    control_pool : DataFrame
        Random non-toxic texts without a chosen term, held out (``text``, ``toxic`` False).
    report : DataFrame
        One row per target term: ``target_ratio``, its ``toxic_texts`` and ``nontoxic_texts`` in
        the input, how many were kept (``kept_toxic``, ``kept_nontoxic``) and ``held_back``, the
        achieved ``ratio`` on :attr:`train`, and ``status`` (``matched``; ``toxic-limited``: all
        its toxic texts kept and more non-toxic ones held back; ``too rare``: not skewed).
    toxic_share : float
        The target toxic share of the training set.
    """

    train: pd.DataFrame
    held_back: pd.DataFrame
    control_pool: pd.DataFrame
    report: pd.DataFrame
    toxic_share: float

    @property
    def skewed_terms(self) -> list[str]:
        """The terms the construction skewed (status ``matched`` or ``toxic-limited``)."""
        return self.report.loc[self.report["status"] != "too rare", "term"].tolist()


def table1_ratios(table1_pct: Mapping[str, Mapping[str, float]]) -> dict[str, float]:
    """Dixon et al.'s Table 1 as target ratios: share among toxic / share among all, per term.

    Parameters
    ----------
    table1_pct : mapping term -> {"toxic": %, "overall": %}
        ``reported("dixon2018")["table1"]`` (from ``data/reported/dixon2018.yaml``).

    Examples
    --------
    >>> table1_ratios({"gay": {"toxic": 3.0, "overall": 0.5}})
    {'gay': 6.0}
    """
    out = {}
    for term, row in table1_pct.items():
        if not row.get("overall"):
            raise ValueError(f"table 1: term {term!r} has no positive overall share: {row}")
        out[str(term)] = float(row["toxic"]) / float(row["overall"])
    return out


def _check_targets(targets: Mapping[str, float], toxic_share: float) -> dict[str, float]:
    if not isinstance(targets, Mapping) or not targets:
        raise ValueError("targets must be a non-empty mapping term -> target ratio")
    out = {}
    for term, r in targets.items():
        r = float(r)
        if not (r > 0 and math.isfinite(r)):
            raise ValueError(f"target ratio of {term!r} must be a positive number, got {r}")
        if r * toxic_share >= 1:
            raise ValueError(
                f"target ratio {r:g} of {term!r} is out of reach at toxic_share={toxic_share:g}: "
                f"the term's toxic share would be {r * toxic_share:.2f} >= 1; lower "
                "toxic_share or drop the term"
            )
        out[str(term).lower()] = r
    return out


def _plan(
    k_groups: np.ndarray, n_groups: np.ndarray, shares: np.ndarray, hold_back: float
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Kept toxic and non-toxic texts per term group, and each group's status."""
    kept_n = np.floor((1 - hold_back) * n_groups + 1e-9).astype(int)
    kept_k = np.rint(kept_n * shares / (1 - shares)).astype(int)
    limited = kept_k > k_groups  # too few toxic texts: keep them all, hold back more
    kept_k = np.where(limited, k_groups, kept_k)
    kept_n = np.where(limited, np.rint(k_groups * (1 - shares) / shares).astype(int), kept_n)
    kept_n = np.minimum(kept_n, n_groups)
    rare = kept_k == 0
    status = np.where(rare, "too rare", np.where(limited, "toxic-limited", "matched"))
    return kept_k, kept_n, status


def skew_in_domain(
    train: pd.DataFrame,
    targets: Mapping[str, float],
    *,
    toxic_share: float,
    hold_back: float,
    control_size: int | None = None,
    text: str = "text",
    label: str = "toxic",
    random_state: RandomState,
) -> SkewResult:
    """Build a training set whose chosen terms are over-represented among toxic texts.

    The construction is spelled out in the module docstring (:mod:`.skew`).

    Parameters
    ----------
    train : DataFrame
        Labelled texts (e.g. the Davidson training split).
    targets : mapping term -> ratio
        Target ``share among toxic / share among all`` per term, e.g. :func:`table1_ratios`.
    toxic_share : float
        Toxic share of the built training set.
    hold_back : float
        Share of each term's non-toxic texts held back as the mitigation pool (more where the
        term has too few toxic texts to reach its target otherwise).
    control_size : int, optional
        Non-toxic texts without a chosen term held out as the control pool; by default twice
        the number of non-toxic texts that contain a chosen term (enough for the random control
        to match the mitigation bucket by bucket).
    text, label : str
        Column names.
    random_state : None, int or numpy.random.Generator
        Seeds every draw.

    Returns
    -------
    SkewResult
    """
    toxic_share = check_fraction(toxic_share, "toxic_share")
    hold_back = check_fraction(hold_back, "hold_back")
    targets = _check_targets(targets, toxic_share)
    frame = check_frame(train, [text, label], "skew_in_domain: train")
    texts, y = as_texts(frame[text]), as_labels(frame[label]).to_numpy(bool)
    terms = list(targets)
    mask = term_mask(texts, terms).to_numpy(bool)
    group = np.where(mask.any(axis=1), mask.argmax(axis=1), -1)
    rng = np.random.default_rng(random_state)

    free_non = np.flatnonzero(~y & (group < 0))
    default = 2 * int((~y & (group >= 0)).sum())
    size = check_int(default if control_size is None else control_size, "control_size", minimum=0)
    if size >= free_non.size:
        raise ValueError(
            f"skew_in_domain: control_size={size} needs more non-toxic texts without a chosen "
            f"term than the {free_non.size} there are; pass a smaller control_size"
        )
    control = np.sort(rng.choice(free_non, size=size, replace=False))
    k_groups = np.array([int((y & (group == j)).sum()) for j in range(len(terms))])
    n_groups = np.array([int((~y & (group == j)).sum()) for j in range(len(terms))])
    shares = np.array([targets[t] * toxic_share for t in terms])
    kept_k, kept_n, status = _plan(k_groups, n_groups, shares, hold_back)

    keep = [np.setdiff1d(free_non, control)]
    held, held_term, fill = [], [], [np.flatnonzero(y & (group < 0))]
    for j, term in enumerate(terms):
        tox = np.flatnonzero(y & (group == j))
        non = np.flatnonzero(~y & (group == j))
        if status[j] == "too rare":  # not skewed: its texts are like texts without a term
            keep.append(non)
            fill.append(tox)
            kept_n[j] = non.size
            continue
        keep.append(rng.choice(tox, size=kept_k[j], replace=False))
        stay = rng.choice(non, size=kept_n[j], replace=False)
        keep.append(stay)
        back = np.setdiff1d(non, stay)
        held.append(back)
        held_term += [term] * back.size
    skewed_toxic = int(kept_k[status != "too rare"].sum())
    n_kept = sum(part.size for part in keep) - skewed_toxic  # the non-toxic texts kept
    need = round(toxic_share / (1 - toxic_share) * n_kept) - skewed_toxic
    fill_pos = np.concatenate(fill)
    if need < 0:
        raise ValueError(
            f"skew_in_domain: the skewed terms keep more toxic texts than toxic_share="
            f"{toxic_share:g} allows among {n_kept} non-toxic texts; raise toxic_share or pass "
            "more texts without a chosen term"
        )
    if need > fill_pos.size:
        raise ValueError(
            f"skew_in_domain: toxic_share={toxic_share:g} needs {need} toxic texts without a "
            f"skewed term, but {fill_pos.size} exist; lower toxic_share"
        )
    kept_k = np.where(status == "too rare", 0, kept_k)
    keep.append(rng.choice(fill_pos, size=need, replace=False))
    pos = np.sort(np.concatenate(keep))
    out = pd.DataFrame({text: texts.to_numpy()[pos], label: y[pos]}, index=frame.index[pos])
    held_pos = np.concatenate(held) if held else np.array([], int)
    held_back = pd.DataFrame(
        {text: texts.to_numpy()[held_pos], label: False, "term": held_term},
        index=frame.index[held_pos],
    )
    control_pool = pd.DataFrame(
        {text: texts.to_numpy()[control], label: False}, index=frame.index[control]
    )
    freq = identity_term_frequencies(out, terms, text=text, label=label).set_index("term")
    report = pd.DataFrame(
        {
            "term": terms,
            "target_ratio": shares / toxic_share,
            "toxic_texts": k_groups,
            "nontoxic_texts": n_groups,
            "kept_toxic": kept_k,
            "kept_nontoxic": kept_n,
            "held_back": n_groups - kept_n,
            "ratio": freq.loc[terms, "ratio"].to_numpy(float),
            "status": status,
        }
    )[REPORT_COLUMNS]
    return SkewResult(
        train=out,
        held_back=held_back,
        control_pool=control_pool,
        report=report,
        toxic_share=toxic_share,
    )
