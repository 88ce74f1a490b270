"""The scoring chapter's headline rows for the reproduction scorecard.

Dong's headlines (seed 003, Figure 5 and section 6): BERT-base is pro-male on *career* (−0.435)
and on *leader* (−0.100), and every person's fine-tuned model is pro-male on average over the
concepts (Trump −0.082, Clinton −0.068). This book's base model is its stand-in, not BERT-base,
so the base rows test the direction on another model; each row's note says so. The base rows
carry the bootstrap interval of :func:`nlpbias.studies.scoring.study.bias_table`; a person's
average has no bootstrap interval, so its row carries the mean over the fine-tuning seeds with
their range as its interval (:func:`nlpbias.studies.scoring.seeds.seed_biases`) — the spread the
chapter's seed rule uses; with one seed, that seed's value and no interval
(:func:`person_average`).

The report's cross-model claims (``claims`` in ``dong2020.yaml``, checked whole by
:func:`nlpbias.studies.scoring.claims.check_claims`) add one row per person of this run and
concept of each *signs* claim ("for the career attribute, everyone is pro-male"; "everyone is
pro-male [on leader] except for Hillary"): the paper states the sign only, so the row carries it
(``sign``) and the person's mean over seeds with their range (:func:`claim_rows`). The base
model's parts are the base rows above (on the stand-in), the averages the average rows; Dong's
own model is not public, so her parts have no row.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from nlpbias.core.scorecard import headline

__all__ = ["claim_rows", "headlines", "person_average"]

CHAPTER = "scoring"
#: The base model's concepts the paper's text names as pro-male (its headline).
BASE_CONCEPTS = ("career", "leader")


def headlines(
    bias: pd.DataFrame,
    per_seed: pd.DataFrame,
    rep: Mapping[str, Any],
    *,
    base_label: str,
    is_standin: bool,
    data: str,
) -> list[dict]:
    """Headline rows from the chapter's bias table and its per-seed biases (the claim rows of
    :func:`claim_rows` last).

    Parameters
    ----------
    bias : DataFrame
        :func:`~nlpbias.studies.scoring.study.bias_table` (``model, attribute, bias, ci_low,
        ci_high``).
    per_seed : DataFrame
        :func:`~nlpbias.studies.scoring.seeds.seed_biases` (``person, seed, concept, bias``).
    rep : mapping
        :func:`~nlpbias.studies.scoring.study.reported` (``base_bias``, ``average``).
    base_label : str
        The base model's label in ``bias``.
    is_standin : bool
        Whether the base model is this book's stand-in (the rows say so).
    data : {"real", "synthetic"}
        ``synthetic`` where the run scores a planted person with a briefly trained stand-in
        (profiles ``smoke`` and ``demo``).
    """
    base = bias[bias["model"] == base_label].set_index("attribute")
    if base.empty:
        raise ValueError(
            f"headlines: no rows of model {base_label!r} in the bias table; models: "
            f"{sorted(bias['model'].unique())}"
        )
    model_note = "this book's stand-in MLM, not BERT-base" if is_standin else base_label
    rows = []
    for concept in BASE_CONCEPTS:
        if concept not in base.index:
            raise ValueError(f"headlines: the bias table has no concept {concept!r}")
        r = base.loc[concept]
        rows.append(
            headline(
                study=CHAPTER,
                key=f"base_{concept}",
                claim=f"The base masked LM is pro-male on {concept} (Dong's bias below 0).",
                paper=float(rep["base_bias"][concept]),
                book=float(r["bias"]),
                ci_low=float(r["ci_low"]),
                ci_high=float(r["ci_high"]),
                interval="bootstrap over templates and words",
                data=data,
                chapter=CHAPTER,
                section="scoring-figure5",
                note=model_note,
            )
        )
    for person, paper in rep["average"].items():
        rows.append(
            headline(
                study=CHAPTER,
                key=f"average_{str(person).lower()}",
                claim=(
                    f"A masked LM fine-tuned on {person}'s tweets is pro-male on average over "
                    "the concepts."
                ),
                paper=float(paper),
                **(seeded := _over_seeds(per_seed, str(person), "average")),
                data=data,
                chapter=CHAPTER,
                section="scoring-seeds",
                note=(
                    model_note + " as the base"
                    if seeded["book"] is not None
                    else "this run has no such person"
                ),
            )
        )
    if "claims" not in rep:  # a reduced ``rep`` (tests): the claim rows need the claims
        return rows
    return rows + claim_rows(per_seed, rep, data=data, note=model_note + " as the base")


def claim_rows(
    per_seed: pd.DataFrame, rep: Mapping[str, Any], *, data: str, note: str = ""
) -> list[dict]:
    """One headline row per person of the run and concept of each *signs* claim of the report.

    The paper gives the sign only (Figure 5's bars have no printed numbers for the people), so
    the row is reproduced when the range over the fine-tuning seeds lies wholly on that side of
    0. Concept ``average`` is left to the average rows and models not in ``per_seed`` (BERT-base,
    Dong) have no row. Rows are in the order of the claims, then of the people in ``per_seed``.

    Examples
    --------
    >>> per_seed = pd.DataFrame({"person": ["Trump"] * 2, "seed": [0, 1],
    ...                          "concept": ["career"] * 2, "bias": [-0.2, -0.1]})
    >>> rep = {"claims": [{"key": "career_everyone_pro_male", "kind": "signs",
    ...                    "words": "For the career attribute, everyone is pro-male.",
    ...                    "signs": {"Trump": {"career": -1}}}]}
    >>> row = claim_rows(per_seed, rep, data="real")[0]
    >>> row["key"], row["verdict"], round(row["book"], 2)
    ('career_everyone_pro_male_trump', 'reproduced', -0.15)
    """
    from nlpbias.studies.scoring.claims import paper_claims

    people = list(dict.fromkeys(per_seed["person"].astype(str)))
    rows = []
    for claim in paper_claims(rep):
        if claim["kind"] != "signs":
            continue
        for person in people:
            for concept, sign in claim["signs"].get(person, {}).items():
                if concept == "average":
                    continue
                way = "pro-male" if sign < 0 else "pro-female"
                rows.append(
                    headline(
                        study=CHAPTER,
                        key=f"{claim['key']}_{person.lower()}",
                        claim=(
                            f"A masked LM fine-tuned on {person}'s tweets is {way} on {concept} "
                            "(a claim across models in the report's words)."
                        ),
                        sign=int(sign),
                        **_over_seeds(per_seed, person, concept),
                        data=data,
                        chapter=CHAPTER,
                        section="scoring-claims",
                        note=note,
                    )
                )
    return rows


def _over_seeds(per_seed: pd.DataFrame, person: str, concept: str) -> dict[str, Any]:
    """``book``, ``ci_low``, ``ci_high`` and ``interval`` of a headline: a person's bias on a
    concept over the fine-tuning seeds (:func:`person_average`; the range as the interval)."""
    mine = per_seed[(per_seed["person"] == person) & (per_seed["concept"] == concept)]
    mine = mine.sort_values("seed")
    values = mine["bias"].to_numpy(float)
    book, interval = person_average(values, ", ".join(str(int(s)) for s in mine["seed"]))
    several = values.size > 1
    return {"book": book, "interval": interval,
            "ci_low": float(values.min()) if several else None,
            "ci_high": float(values.max()) if several else None}  # fmt: skip


def person_average(values: np.ndarray, seeds: str) -> tuple[float | None, str]:
    """A person's average over the concepts for the scorecard, and the name of its uncertainty.

    Several seeds: the mean over the seeds, with their range as the interval; one seed: that
    seed's value, without an interval (no "mean" of one value); none: no number.

    Examples
    --------
    >>> person_average(np.array([-0.2, -0.3]), "0, 1")
    (-0.25, 'range over 2 fine-tuning seeds (0, 1)')
    >>> person_average(np.array([-0.2]), "0")
    (-0.2, 'one fine-tuning seed (0), no interval')
    >>> person_average(np.array([]), "")
    (None, 'no such person in this run, no interval')
    """
    if values.size == 0:
        return None, "no such person in this run, no interval"
    if values.size == 1:
        return float(values[0]), f"one fine-tuning seed ({seeds}), no interval"
    return float(values.mean()), f"range over {values.size} fine-tuning seeds ({seeds})"
