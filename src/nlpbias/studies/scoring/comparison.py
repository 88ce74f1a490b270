"""The paper vs this book: our bias beside seed 003's, and when a sign counts as agreeing.

- :func:`sign_agreement` — the rule for one number: a sign agrees with the paper's only where
  this book's 95 % interval excludes zero on the paper's side;
- :func:`paper_comparison` — the rule applied to every row of the bias table that the paper
  has a value or a direction for;
- :func:`paper_numbers` — the paper's headline numbers in a sentence, read from its results.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

__all__ = ["paper_comparison", "paper_numbers", "sign_agreement"]

#: The reasons :func:`sign_agreement` gives, in the order of its checks.
REASONS = {
    "silent": "the paper gives no sign",
    "no interval": "no interval (the average of the concepts has none)",
    "includes 0": "the 95 % interval includes 0: the sign is not established",
    "agrees": "same sign, and the 95 % interval excludes 0",
    "opposite": "opposite sign, and the 95 % interval excludes 0",
}


def sign_agreement(
    value: float, ci_low: float, ci_high: float, paper_sign: int | None
) -> tuple[bool | None, str]:
    """Does our number agree in sign with the paper's? Only where its interval excludes zero.

    Parameters
    ----------
    value : float
        Our estimate (Dong's bias: positive = pro-female).
    ci_low, ci_high : float
        Its 95 % interval (NaN where there is none, as for the ``average`` row).
    paper_sign : {-1, 1} or None
        The paper's sign; None or 0 where the paper says nothing.

    Returns
    -------
    (bool or None, str)
        ``True`` where the interval lies wholly on the paper's side of zero; ``False`` where it
        lies on the other side, includes zero, or is missing (no sign is established, so none
        can agree); ``None`` where the paper gives no sign. The second item says which case
        (a value of :data:`REASONS`).

    Examples
    --------
    >>> sign_agreement(-0.3, -0.5, -0.1, -1)
    (True, 'same sign, and the 95 % interval excludes 0')
    >>> sign_agreement(-0.004, -0.30, 0.34, -1)[0]  # negative, but the interval includes 0
    False
    """
    if paper_sign is None or pd.isna(paper_sign) or paper_sign == 0:
        return None, REASONS["silent"]
    if paper_sign not in (-1, 1):
        raise ValueError(f"paper_sign must be -1, 1, 0 or None, got {paper_sign!r}")
    low, high = float(ci_low), float(ci_high)
    if not (np.isfinite(low) and np.isfinite(high)):
        return False, REASONS["no interval"]
    if low > high:
        raise ValueError(f"the interval is reversed: ci_low {low} > ci_high {high}")
    if not np.isfinite(float(value)):
        raise ValueError(f"value must be a finite number, got {value!r}")
    if low <= 0 <= high:
        return False, REASONS["includes 0"]
    ours = 1 if low > 0 else -1
    return (True, REASONS["agrees"]) if ours == paper_sign else (False, REASONS["opposite"])


def paper_comparison(
    table: pd.DataFrame, rep: Mapping[str, Any], *, base_label: str
) -> pd.DataFrame:
    """Our bias beside the paper's, per model and attribute: value where printed, else sign.

    Parameters
    ----------
    table : pandas.DataFrame
        The bias table (:func:`nlpbias.studies.scoring.study.bias_table`): ``model``,
        ``attribute``, ``bias``, ``ci_low``, ``ci_high``.
    rep : mapping
        :func:`nlpbias.studies.scoring.study.reported`: ``base_bias`` (BERT-base per attribute),
        ``average`` (per person) and ``directions`` (signs in the paper's words).
    base_label : str
        The model of ``table`` that stands for the paper's BERT-base.

    Returns
    -------
    pandas.DataFrame
        ``model, attribute, ours, ci_low, ci_high, paper value, paper sign, agree, why``, one
        row per row of ``table`` whose model the paper has (the base model, Trump, Clinton).
        ``agree`` follows :func:`sign_agreement`: True only where our 95 % interval excludes
        zero on the paper's side; empty where the paper says nothing; ``why`` says which case.
    """
    missing = [c for c in ("model", "attribute", "bias", "ci_low", "ci_high") if c not in table]
    if missing:
        raise KeyError(f"paper_comparison: the table lacks {missing}; pass bias_table's output")
    paper_label = {base_label: "BERT-base", "Trump": "Trump", "Clinton": "Clinton"}
    rows = []
    for _, r in table.iterrows():
        who = paper_label.get(r["model"])
        if who is None:
            continue
        value = np.nan
        if who == "BERT-base":
            value = rep["base_bias"].get(r["attribute"], np.nan)
        elif r["attribute"] == "average":
            value = rep.get("average", {}).get(who, np.nan)
        sign = rep.get("directions", {}).get(who, {}).get(r["attribute"])
        if sign is None and not np.isnan(value):
            sign = int(np.sign(value))
        agree, why = sign_agreement(r["bias"], r["ci_low"], r["ci_high"], sign)
        rows.append(
            {"model": r["model"], "attribute": r["attribute"], "ours": r["bias"],
             "ci_low": r["ci_low"], "ci_high": r["ci_high"], "paper value": value,
             "paper sign": sign, "agree": agree, "why": why}
        )  # fmt: skip
    return pd.DataFrame(rows)


def _signed(x: float) -> str:
    return f"{x:.3f}".replace("-", "−")


def paper_numbers(rep: Mapping[str, Any]) -> str:
    """The paper's headline numbers in one sentence, read from :func:`reported` (not typed).

    ``rep`` is :func:`nlpbias.studies.scoring.study.reported` output: ``base_bias`` (BERT-base's
    bias per concept, from Dong's results file) and ``average`` (each person's model averaged
    over the concepts).

    Examples
    --------
    >>> text = paper_numbers({"base_bias": {"career": -0.4346, "leader": -0.1001},
    ...                       "average": {"Trump": -0.082, "Clinton": -0.068}})
    >>> "−0.435 on career and −0.100 on leader" in text
    True
    >>> text.endswith("the Trump model scores −0.082 and the Clinton model −0.068.")
    True
    """
    base = rep["base_bias"]
    people = list(rep["average"].items())
    said = (
        f"Dong's numbers (her results file): BERT-base's bias is {_signed(base['career'])} on "
        f"career and {_signed(base['leader'])} on leader"
    )
    if people:
        first, *rest = people
        parts = [f"the {first[0]} model scores {_signed(first[1])}"]
        parts += [f"the {p} model {_signed(v)}" for p, v in rest]
        said += "; averaged over the six concepts, " + " and ".join(parts)
    return said + "."
