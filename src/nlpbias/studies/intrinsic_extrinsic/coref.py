"""Coreference as an extrinsic task: pronoun resolution on frozen word vectors.

Katô & Miyao train Lee et al.'s (2017) end-to-end resolver on OntoNotes, which is not available
here. The stand-in is a *mention-ranking* pronoun resolver trained on GAP (Webster et al., 2018)
and scored on WinoBias (Zhao et al., 2018) type 1 and type 2, pro- vs anti-stereotypical.

The code is in four modules: the pairs frames and their loaders
(:mod:`nlpbias.studies.intrinsic_extrinsic.coref_pairs`: tokens, pairs, the WinoBias candidate
rule), the features (:mod:`nlpbias.studies.intrinsic_extrinsic.coref_features`), the scores
(:mod:`nlpbias.studies.intrinsic_extrinsic.coref_scoring`), and here the model, the baselines and
one call per sweep point. Every public name of those modules is importable from here.

**Model.** ``s(p, c) = MLP(features)`` (one hidden ReLU layer, dropout), a dummy antecedent ε
with fixed score 0 (Lee et al., 2017), ``P(c) = softmax over {ε, candidates of p}``, trained by
the marginal log-likelihood of the gold antecedents (ε when none is gold) with Adam.

**Gender-swap augmentation.** GAP was built so that both names share the pronoun's gender, so
GAP alone never teaches that a gender mismatch rules a candidate out, which OntoNotes-trained
resolvers learn and which carries occupation stereotypes of the embedding into WinoBias. A
random share ``gender_swap`` (default 10 %) of the training pronouns is added again with the
pronoun's gender swapped and ε as gold (:func:`swap_pronoun_gender`). Without it the pro − anti
gap with GloVe 50d is small and of inconsistent sign; with it, projecting the he−she direction
out of the 40 occupation words' vectors brings the type 1 F1 gap from about 0.24 to 0.0, and
doubling that component raises it to about 0.35 (5 seeds each), while GAP F1 stays put.

**Decisions.** A candidate is predicted coreferent iff it has the highest score of its
pronoun's candidates *and* beats ε (s > 0); each candidate is then a binary decision, scored by
:mod:`nlpbias.studies.intrinsic_extrinsic.coref_scoring`.
"""

from __future__ import annotations

import logging
import math
import time
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd
import torch
from sklearn.base import BaseEstimator
from sklearn.utils.validation import check_is_fitted
from torch import nn

from nlpbias.core.progress import progress
from nlpbias.core.repro import rng
from nlpbias.models.encoders import resolve_device
from nlpbias.models.torch_utils import torch_session
from nlpbias.studies.intrinsic_extrinsic.coref_features import (
    _check_embedding,
    _features,
    _is_lowercase,
    _Lookup,
    token_coverage,
)
from nlpbias.studies.intrinsic_extrinsic.coref_pairs import (
    PAIR_COLUMNS,
    STANDIN_SIZES,
    _require,
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

logger = logging.getLogger(__name__)


# --------------------------------------------------------------------------- the model
def _groups(pairs: pd.DataFrame) -> tuple[np.ndarray, np.ndarray]:
    """(n_groups, k_max) pair indices per pronoun (−1 = padding) and each pair's group index."""
    codes, _ = pd.factorize(pairs["example_id"])
    order = np.argsort(codes, kind="stable")
    counts = np.bincount(codes)
    index = np.full((len(counts), int(counts.max())), -1, dtype=np.int64)
    pos = np.arange(len(codes)) - np.repeat(np.cumsum(counts) - counts, counts)
    index[codes[order], pos] = order
    return index, codes


def _padded(scores: torch.Tensor, index: torch.Tensor) -> torch.Tensor:
    """Scores per group with the dummy antecedent (score 0) in column 0; padding → −inf."""
    gathered = scores[index.clamp(min=0)].masked_fill(index < 0, -math.inf)
    null = torch.zeros(len(index), 1, dtype=scores.dtype, device=scores.device)
    return torch.cat([null, gathered], dim=1)


def _check_number(name: str, value: object, *, integer: bool, low: float, high: float) -> None:
    types = (int, np.integer) if integer else (int, float, np.integer, np.floating)
    if isinstance(value, bool) or not isinstance(value, types) or not low <= value <= high:
        kind = "an int" if integer else "a number"
        raise ValueError(f"{name} must be {kind} in [{low}, {high}], got {value!r}")


class MentionPairScorer(BaseEstimator):
    """Mention-ranking pronoun resolver on frozen word vectors (see the module docstring).

    Parameters
    ----------
    embedding : gensim KeyedVectors
        Frozen word vectors (required).
    window : int, default 3
        Context tokens on each side of the pronoun and of the candidate.
    hidden : int, default 64
        Width of the hidden ReLU layer.
    dropout : float, default 0.5
    epochs : int, default 10
    batch_size : int, default 64
        Pronouns (not pairs) per Adam step.
    learning_rate : float, default 1e-3
    weight_decay : float, default 1e-2
        Adam's (L2) weight decay.
    gender_swap : float in [0, 1], default 0.1
        Share of the training pronouns (drawn with ``random_state``) added again as
        :func:`swap_pronoun_gender` copies with no antecedent, so that the model learns that a
        gender mismatch rules a candidate out; 0 switches the augmentation off.
    lowercase : bool or "auto", default "auto"
        Lower-case tokens before lookup; "auto": when the embedding has no upper-case key.
    device : str, default "auto"
        See :func:`nlpbias.models.resolve_device`.
    n_threads : int or None, default 1
        torch CPU threads during fit/predict (restored after); None leaves torch's setting.
    random_state : None, int or numpy Generator
        Seeds initial weights, batch order and dropout; for an int, results are identical on CPU
        for the same thread count and library versions. The global torch RNG is not touched.
    show_progress : bool, default False
        A progress bar over epochs.

    Attributes
    ----------
    feature_mean_, feature_scale_ : numpy.ndarray
        Standardisation of the features, from the training pairs.
    model_ : torch.nn.Module
        The scoring MLP, in eval mode.
    coverage_ : float
        Share of the training texts' word tokens found in ``embedding``.
    lowercase_ : bool
    history_ : pandas.DataFrame
        ``epoch`` and ``train_loss`` (mean negative marginal log-likelihood per pronoun).
    fit_time_ : float
        Seconds spent in ``fit``.

    Examples
    --------
    >>> from nlpbias.models import load_glove_50d
    >>> from nlpbias.data.coref import load_gap
    >>> model = MentionPairScorer(embedding=load_glove_50d(), random_state=0)  # doctest: +SKIP
    >>> model.fit(gap_pairs(load_gap("validation"))).predict_proba(  # doctest: +SKIP
    ...     gap_pairs(load_gap("test"))).shape
    (4000, 2)
    """

    def __init__(
        self,
        embedding: Any = None,
        *,
        window: int = 3,
        hidden: int = 64,
        dropout: float = 0.5,
        epochs: int = 10,
        batch_size: int = 64,
        learning_rate: float = 1e-3,
        weight_decay: float = 1e-2,
        gender_swap: float = 0.1,
        lowercase: bool | str = "auto",
        device: str = "auto",
        n_threads: int | None = 1,
        random_state: None | int | np.random.Generator = None,
        show_progress: bool = False,
    ) -> None:
        self.embedding = embedding
        self.window = window
        self.hidden = hidden
        self.dropout = dropout
        self.epochs = epochs
        self.batch_size = batch_size
        self.learning_rate = learning_rate
        self.weight_decay = weight_decay
        self.gender_swap = gender_swap
        self.lowercase = lowercase
        self.device = device
        self.n_threads = n_threads
        self.random_state = random_state
        self.show_progress = show_progress

    def _check_params(self) -> None:
        _check_embedding(self.embedding)
        _check_number("window", self.window, integer=True, low=0, high=10_000)
        for name in ("hidden", "epochs", "batch_size"):
            _check_number(name, getattr(self, name), integer=True, low=1, high=10**7)
        _check_number("dropout", self.dropout, integer=False, low=0.0, high=0.99)
        _check_number("learning_rate", self.learning_rate, integer=False, low=1e-12, high=10.0)
        _check_number("weight_decay", self.weight_decay, integer=False, low=0.0, high=10.0)
        _check_number("gender_swap", self.gender_swap, integer=False, low=0.0, high=1.0)
        if self.n_threads is not None:
            _check_number("n_threads", self.n_threads, integer=True, low=1, high=4096)

    def _matrix(self, pairs: pd.DataFrame, lookup: _Lookup) -> np.ndarray:
        return _features(_require(pairs, PAIR_COLUMNS, "pairs"), lookup, self.window)

    def fit(self, X: pd.DataFrame, y: Sequence[bool] | None = None) -> MentionPairScorer:
        """Train on a pairs frame (:func:`gap_pairs`); labels from ``y`` or ``X["label"]``.

        Returns
        -------
        MentionPairScorer
            ``self``, fitted.
        """
        start = time.perf_counter()
        self._check_params()
        pairs = _require(X, PAIR_COLUMNS, "pairs")
        if pairs.empty:
            raise ValueError("pairs is empty; fit needs at least one (pronoun, candidate) pair")
        labels = np.asarray(pairs["label"] if y is None else y).astype(bool)
        if labels.shape != (len(pairs),):
            raise ValueError(f"y must hold one label per pair ({len(pairs)}), got {labels.shape}")
        gen = rng(self.random_state)
        if self.gender_swap > 0:
            ids = pairs["example_id"].unique()
            keep = gen.random(len(ids)) < self.gender_swap
            swapped = swap_pronoun_gender(pairs[pairs["example_id"].isin(ids[keep])])
            pairs = pd.concat([pairs[PAIR_COLUMNS], swapped], ignore_index=True)
            labels = np.concatenate([labels, np.zeros(len(swapped), dtype=bool)])
        self.lowercase_ = _is_lowercase(self.embedding, self.lowercase)
        lookup = _Lookup(self.embedding, self.lowercase_)
        feats = self._matrix(pairs, lookup)
        self.coverage_ = lookup.hits / max(lookup.words, 1)
        logger.info("coref fit: %d pairs, embedding coverage %.3f", len(pairs), self.coverage_)
        self.feature_mean_ = feats.mean(axis=0)
        self.feature_scale_ = np.maximum(feats.std(axis=0), 1e-6)
        index, _ = _groups(pairs)
        gold = np.zeros((len(index), index.shape[1] + 1), dtype=bool)
        gold[:, 1:] = (index >= 0) & labels[index.clip(min=0)]
        gold[:, 0] = ~gold[:, 1:].any(axis=1)
        seed = int(gen.integers(0, 2**31 - 1))
        device = resolve_device(self.device)
        x = torch.from_numpy((feats - self.feature_mean_) / self.feature_scale_).to(device)
        with torch_session(seed, device, self.n_threads):
            model = nn.Sequential(
                nn.Linear(x.shape[1], self.hidden), nn.ReLU(), nn.Dropout(self.dropout),
                nn.Linear(self.hidden, 1),
            ).to(device)  # fmt: skip
            opt = torch.optim.Adam(
                model.parameters(), lr=self.learning_rate, weight_decay=self.weight_decay
            )
            index_t = torch.from_numpy(index).to(device)
            log_gold = torch.from_numpy(np.where(gold, 0.0, -np.inf).astype(np.float32)).to(device)
            history = []
            epochs = range(1, self.epochs + 1)
            for epoch in progress(epochs, enabled=self.show_progress, desc="coref"):
                model.train()
                total = 0.0
                perm = gen.permutation(len(index))
                for b in range(0, len(perm), self.batch_size):
                    g = torch.from_numpy(perm[b : b + self.batch_size]).to(device)
                    rows = index_t[g]
                    flat = torch.arange(rows.numel(), device=device).view_as(rows)
                    local = torch.where(rows >= 0, flat, -1)
                    scores = model(x[rows.clamp(min=0).flatten()]).squeeze(1)
                    padded = _padded(scores, local)
                    loss = (padded.logsumexp(1) - (padded + log_gold[g]).logsumexp(1)).mean()
                    opt.zero_grad()
                    loss.backward()
                    opt.step()
                    total += loss.item() * len(g)
                history.append((epoch, total / len(perm)))
        self.model_ = model.eval()
        self.history_ = pd.DataFrame(history, columns=["epoch", "train_loss"])
        self.fit_time_ = time.perf_counter() - start
        return self

    def decision_function(self, X: pd.DataFrame) -> np.ndarray:
        """Score s(pronoun, candidate) of each pair; the dummy antecedent scores 0."""
        check_is_fitted(self, "model_")
        pairs = _require(X, PAIR_COLUMNS, "pairs")
        if pairs.empty:
            raise ValueError("pairs is empty; nothing to score")
        feats = self._matrix(pairs, _Lookup(self.embedding, self.lowercase_))
        device = next(self.model_.parameters()).device
        x = torch.from_numpy((feats - self.feature_mean_) / self.feature_scale_).to(device)
        with torch_session(0, device, self.n_threads), torch.no_grad():
            return self.model_(x).squeeze(1).float().cpu().numpy()

    def predict_proba(self, X: pd.DataFrame) -> np.ndarray:
        """Columns [P(not antecedent), P(antecedent)], P from the softmax over {ε, candidates}."""
        scores = torch.from_numpy(self.decision_function(X)).double()
        index, _ = _groups(X)
        probs = _padded(scores, torch.from_numpy(index)).softmax(dim=1)[:, 1:]
        out = np.zeros(len(X))
        mask = index >= 0
        out[index[mask]] = probs.numpy()[mask]
        return np.column_stack([1.0 - out, out])

    def predict(self, X: pd.DataFrame) -> np.ndarray:
        """True for the best candidate of each pronoun when it beats the dummy antecedent."""
        return _best_beats(self.decision_function(X), X)


def _best_beats(scores: np.ndarray, pairs: pd.DataFrame, null: float = 0.0) -> np.ndarray:
    index, _ = _groups(pairs)
    padded = np.where(index >= 0, scores[index.clip(min=0)], -np.inf)
    best = np.argmax(padded, axis=1)
    win = padded[np.arange(len(index)), best] > null
    out = np.zeros(len(pairs), dtype=bool)
    out[index[win, best[win]]] = True
    return out


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
        if self.strategy not in ("most_frequent", "always_positive"):
            raise ValueError(
                f"strategy must be 'most_frequent' or 'always_positive', got {self.strategy!r}"
            )
        labels = np.asarray(_require(X, ["label"], "pairs")["label"] if y is None else y, bool)
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
        if self.rule not in ("nearest_preceding", "first"):
            raise ValueError(f"rule must be 'nearest_preceding' or 'first', got {self.rule!r}")
        self.fitted_ = True
        return self

    def predict(self, X: pd.DataFrame) -> np.ndarray:
        """One True per pronoun."""
        check_is_fitted(self, "fitted_")
        cols = ["example_id", "pronoun_token", "candidate_token_start", "candidate_token_end"]
        pairs = _require(X, cols, "pairs")
        start = pairs["candidate_token_start"].to_numpy(float)
        if self.rule == "first":
            return _best_beats(-start, pairs, null=-np.inf)
        before = pairs["candidate_token_end"].to_numpy() <= pairs["pronoun_token"].to_numpy()
        # preceding candidates score by their start (higher = nearer); following ones rank below
        return _best_beats(np.where(before, start, -1e9 - start), pairs, null=-np.inf)


# --------------------------------------------------------------------------- one call per sweep
def _train_pairs(train_splits: Sequence[str]) -> pd.DataFrame:
    if isinstance(train_splits, str) or not train_splits:
        raise ValueError(
            f"train_splits must be a non-empty sequence of GAP splits, got {train_splits!r}"
        )
    return pd.concat([load_gap_pairs(s) for s in train_splits], ignore_index=True)


def _task_data(
    source: str, train_splits: Sequence[str], test_split: str, winobias_split: str
) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    if source == "standin":
        p = standin_pairs()
        return p["train"], p["test"], p["winobias"]
    if source != "data_home":
        raise ValueError(f"source must be 'data_home' or 'standin', got {source!r}")
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
    train, test, wino = _task_data(source, train_splits, test_split, winobias_split)
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
    train, test, wino = _task_data(source, train_splits, test_split, winobias_split)
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
