"""Coreference as an extrinsic task: pronoun resolution on frozen word vectors.

Katô & Miyao train Lee et al.'s (2017) end-to-end resolver on OntoNotes, which is not available
here. The stand-in is a *mention-ranking* pronoun resolver trained on GAP (Webster et al., 2018)
and scored on WinoBias (Zhao et al., 2018) type 1 and type 2, pro- vs anti-stereotypical.

The code is in six modules: the pairs frames and their loaders
(:mod:`nlpbias.studies.intrinsic_extrinsic.coref_pairs`: tokens, pairs, the WinoBias candidate
rule, the candidates of each pronoun), the features
(:mod:`nlpbias.studies.intrinsic_extrinsic.coref_features`), the model
(:mod:`nlpbias.studies.intrinsic_extrinsic.coref_model`), the baselines
(:mod:`nlpbias.studies.intrinsic_extrinsic.coref_heuristics`), the scores
(:mod:`nlpbias.studies.intrinsic_extrinsic.coref_scoring`), and here one call per sweep point
and the baselines' scorecard. Every public name of the pairs, model, baselines and scores is
importable from here.

**Why gender-swap augmentation** (see the model's module). Without it the pro − anti gap with
GloVe 50d is small and of inconsistent sign; with it, projecting the he−she direction out of the
40 occupation words' vectors brings the type 1 F1 gap from about 0.24 to 0.0, and doubling that
component raises it to about 0.35 (5 seeds each), while GAP F1 stays put.

**Decisions.** A candidate is predicted coreferent iff it has the highest score of its
pronoun's candidates *and* beats ε (s > 0); each candidate is then a binary decision, scored by
:mod:`nlpbias.studies.intrinsic_extrinsic.coref_scoring`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from nlpbias.core.checks import check_choice
from nlpbias.studies.intrinsic_extrinsic.coref_features import token_coverage
from nlpbias.studies.intrinsic_extrinsic.coref_heuristics import (
    HeuristicBaseline,
    MajorityBaseline,
)
from nlpbias.studies.intrinsic_extrinsic.coref_model import MentionPairScorer
from nlpbias.studies.intrinsic_extrinsic.coref_pairs import (
    PAIR_COLUMNS,
    STANDIN_SIZES,
    gap_pairs,
    load_gap_pairs,
    load_winobias_pairs,
    standin_pairs,
    swap_pronoun_gender,
    tokenize_with_offsets,
    winobias_pairs,
)
from nlpbias.studies.intrinsic_extrinsic.coref_scoring import METRIC_COLUMNS as METRIC_COLUMNS
from nlpbias.studies.intrinsic_extrinsic.coref_scoring import (
    score_gap,
    score_pairs,
    score_winobias,
    winobias_gaps,
)

__all__ = [
    "HeuristicBaseline",
    "MajorityBaseline",
    "MentionPairScorer",
    "PAIR_COLUMNS",
    "STANDIN_SIZES",
    "coref_baselines",
    "coref_data",
    "evaluate_coref",
    "gap_pairs",
    "load_gap_pairs",
    "load_winobias_pairs",
    "score_gap",
    "score_pairs",
    "score_winobias",
    "standin_pairs",
    "swap_pronoun_gender",
    "token_coverage",
    "tokenize_with_offsets",
    "winobias_gaps",
    "winobias_pairs",
]


# --------------------------------------------------------------------------- one call per sweep
def _train_pairs(train_splits: Sequence[str]) -> pd.DataFrame:
    if isinstance(train_splits, str) or not train_splits:
        raise ValueError(
            f"train_splits must be a non-empty sequence of GAP splits, got {train_splits!r}"
        )
    return pd.concat([load_gap_pairs(s) for s in train_splits], ignore_index=True)


def coref_data(
    source: str = "data_home",
    train_splits: Sequence[str] = ("development", "validation"),
    test_split: str = "test",
    winobias_split: str = "test",
) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """The (train, test, winobias) pairs frames of :func:`evaluate_coref`'s data arguments."""
    check_choice(source, "source", ("data_home", "standin"))
    if source == "standin":
        p = standin_pairs()
        return p["train"], p["test"], p["winobias"]
    train = _train_pairs(train_splits)
    return train, load_gap_pairs(test_split), load_winobias_pairs(winobias_split)


def evaluate_coref(
    embedding: Any,
    *,
    random_state: None | int | np.random.Generator = 0,
    train_splits: Sequence[str] = ("development", "validation"),
    test_split: str = "test",
    winobias_split: str = "test",
    source: str = "data_home",
    data: tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame] | None = None,
    **params: Any,
) -> dict[str, Any]:
    """Fit :class:`MentionPairScorer` on GAP and score it on GAP and WinoBias: one sweep point.

    Parameters
    ----------
    embedding : gensim KeyedVectors
    random_state : None, int or numpy Generator, default 0
    train_splits : sequence of str, default ("development", "validation")
    test_split : str, default "test"
        GAP split scored.
    winobias_split : {"dev", "test"}, default "test"
    source : {"data_home", "standin"}, default "data_home"
        GAP and WinoBias from the data home, or the generated stand-in of
        :func:`standin_pairs` (then the split arguments are ignored).
    data : (train, test, winobias) pairs frames, optional
        The frames these arguments name, loaded already (:func:`coref_data`; pass them in a
        sweep to load them once); not modified. The other data arguments are then ignored.
    **params
        Other :class:`MentionPairScorer` parameters.

    Returns
    -------
    dict
        ``gap`` (:func:`score_gap` table on ``test_split``), ``winobias``
        (:func:`score_winobias`), ``gaps`` (:func:`winobias_gaps`), ``fit_time`` (seconds),
        ``coverage`` (Series: embedding coverage of the GAP training, GAP test and WinoBias
        texts).

    Examples
    --------
    >>> from nlpbias.models import load_glove_50d
    >>> out = evaluate_coref(load_glove_50d(), random_state=0)  # doctest: +SKIP
    >>> out["gaps"]["mean_f1"]  # doctest: +SKIP
    """
    if data is None:
        data = coref_data(source, train_splits, test_split, winobias_split)
    if not isinstance(data, tuple) or len(data) != 3:
        raise TypeError("data must be coref_data()'s (train, test, winobias) frames or None")
    train, test, wino = data
    model = MentionPairScorer(embedding, random_state=random_state, **params).fit(train)
    table = score_winobias(model, wino)
    coverage = pd.Series(
        {"gap_train": model.coverage_,
         "gap_test": token_coverage(embedding, test, lowercase=model.lowercase_),
         "winobias": token_coverage(embedding, wino, lowercase=model.lowercase_)},
        name="coverage",
    )  # fmt: skip
    return {"gap": score_gap(model, test), "winobias": table, "gaps": winobias_gaps(table),
            "fit_time": model.fit_time_, "coverage": coverage}  # fmt: skip


def coref_baselines(
    *,
    train_splits: Sequence[str] = ("development", "validation"),
    test_split: str = "test",
    winobias_split: str = "test",
    source: str = "data_home",
) -> pd.DataFrame:
    """GAP and WinoBias F1 of the majority, always-positive and positional baselines.

    ``source`` as in :func:`evaluate_coref`.

    Returns
    -------
    pandas.DataFrame
        One row per baseline (``most_frequent``, ``always_positive``, ``nearest_preceding``,
        ``first``); columns ``gap_overall``, ``gap_masculine``, ``gap_feminine``, ``gap_bias_f_m``
        and ``type1_pro``, ``type1_anti``, ``type2_pro``, ``type2_anti`` (WinoBias F1).

    Examples
    --------
    >>> coref_baselines().loc["nearest_preceding", "gap_overall"]  # doctest: +SKIP
    """
    train, test, wino = coref_data(source, train_splits, test_split, winobias_split)
    models: Mapping[str, Any] = {
        "most_frequent": MajorityBaseline(),
        "always_positive": MajorityBaseline(strategy="always_positive"),
        "nearest_preceding": HeuristicBaseline(),
        "first": HeuristicBaseline(rule="first"),
    }
    rows = {}
    for name, model in models.items():
        model.fit(train)
        gap, wb = score_gap(model, test), score_winobias(model, wino)
        row = {f"gap_{g}": gap.loc[g, "f1"] for g in gap.index}
        row["gap_bias_f_m"] = gap["bias_f_m"].iloc[0]
        row |= {f"type{t}_{c}": wb.loc[(t, c), "f1"] for t, c in wb.index}
        rows[name] = row
    out = pd.DataFrame.from_dict(rows, orient="index")
    out.index.name = "baseline"
    return out
