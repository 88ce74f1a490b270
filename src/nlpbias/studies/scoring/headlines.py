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
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from nlpbias.core.scorecard import headline

__all__ = ["headlines", "person_average"]

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
    """Headline rows from the chapter's bias table and its per-seed biases.

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
    averages = per_seed[per_seed["concept"] == "average"]
    for person, paper in rep["average"].items():
        mine = averages[averages["person"] == person].sort_values("seed")
        values = mine["bias"].to_numpy(float)
        seeds = ", ".join(str(int(s)) for s in mine["seed"])
        book, interval = person_average(values, seeds)
        rows.append(
            headline(
                study=CHAPTER,
                key=f"average_{str(person).lower()}",
                claim=(
                    f"A masked LM fine-tuned on {person}'s tweets is pro-male on average over "
                    "the concepts."
                ),
                paper=float(paper),
                book=book,
                ci_low=float(values.min()) if values.size > 1 else None,
                ci_high=float(values.max()) if values.size > 1 else None,
                interval=interval,
                data=data,
                chapter=CHAPTER,
                section="scoring-seeds",
                note=(
                    model_note + " as the base" if values.size else "this run has no such person"
                ),
            )
        )
    return rows


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
