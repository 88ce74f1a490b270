"""Coreference baselines: one constant label for every pair, or a candidate picked by position.

They put the scores of :class:`~nlpbias.studies.intrinsic_extrinsic.coref_model.MentionPairScorer`
in context (:func:`nlpbias.studies.intrinsic_extrinsic.coref.coref_baselines`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd
from sklearn.base import BaseEstimator
from sklearn.utils.validation import check_is_fitted

from nlpbias.core.checks import check_choice
from nlpbias.studies.intrinsic_extrinsic.coref_pairs import best_candidates, require_columns

__all__ = ["HeuristicBaseline", "MajorityBaseline"]


class MajorityBaseline(BaseEstimator):
    """Predict one label for every pair: the training majority, or always positive.

    Parameters
    ----------
    strategy : {"most_frequent", "always_positive"}, default "most_frequent"
        On GAP the majority label of a candidate is False, so "most_frequent" has F1 = 0;
        "always_positive" has recall 1 and is the best constant predictor in F1.

    Examples
    --------
    >>> pairs = pd.DataFrame({"label": [True, False, False]})
    >>> MajorityBaseline().fit(pairs).predict(pairs).tolist()
    [False, False, False]
    """

    def __init__(self, strategy: str = "most_frequent") -> None:
        self.strategy = strategy

    def fit(self, X: pd.DataFrame, y: Sequence[bool] | None = None) -> MajorityBaseline:
        """Learn the majority label of ``y`` (default ``X["label"]``)."""
        check_choice(self.strategy, "strategy", ("most_frequent", "always_positive"))
        labels = np.asarray(
            require_columns(X, ["label"], "pairs")["label"] if y is None else y, bool
        )
        if labels.size == 0:
            raise ValueError("pairs is empty; fit needs at least one labelled pair")
        self.label_ = True if self.strategy == "always_positive" else bool(labels.mean() > 0.5)
        return self

    def predict(self, X: pd.DataFrame) -> np.ndarray:
        """The constant label for every pair."""
        check_is_fitted(self, "label_")
        return np.full(len(X), self.label_, dtype=bool)


class HeuristicBaseline(BaseEstimator):
    """Pick one candidate per pronoun by position, never abstaining.

    Parameters
    ----------
    rule : {"nearest_preceding", "first"}, default "nearest_preceding"
        The candidate ending closest before the pronoun (the nearest following one when none
        precedes), or the candidate that comes first in the text.

    Examples
    --------
    >>> pairs = pd.DataFrame({"example_id": ["x", "x"], "pronoun_token": [5, 5],
    ...     "candidate_token_start": [0, 2], "candidate_token_end": [1, 3]})
    >>> HeuristicBaseline().fit(pairs).predict(pairs).tolist()
    [False, True]
    """

    def __init__(self, rule: str = "nearest_preceding") -> None:
        self.rule = rule

    def fit(self, X: pd.DataFrame, y: Any = None) -> HeuristicBaseline:
        """Nothing to learn; checks ``rule``."""
        check_choice(self.rule, "rule", ("nearest_preceding", "first"))
        self.fitted_ = True
        return self

    def predict(self, X: pd.DataFrame) -> np.ndarray:
        """One True per pronoun."""
        check_is_fitted(self, "fitted_")
        cols = ["example_id", "pronoun_token", "candidate_token_start", "candidate_token_end"]
        pairs = require_columns(X, cols, "pairs")
        start = pairs["candidate_token_start"].to_numpy(float)
        if self.rule == "first":
            return best_candidates(-start, pairs, null=-np.inf)
        before = pairs["candidate_token_end"].to_numpy() <= pairs["pronoun_token"].to_numpy()
        # preceding candidates score by their start (higher = nearer); following ones rank below
        return best_candidates(np.where(before, start, -1e9 - start), pairs, null=-np.inf)
