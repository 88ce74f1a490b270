"""The coreference model: a mention-ranking pronoun resolver on frozen word vectors.

**Model.** ``s(p, c) = MLP(features)`` (one hidden ReLU layer, dropout; the features of
:mod:`nlpbias.studies.intrinsic_extrinsic.coref_features`), a dummy antecedent ε with fixed
score 0 (Lee et al., 2017), ``P(c) = softmax over {ε, candidates of p}``, trained by the marginal
log-likelihood of the gold antecedents (ε when none is gold) with Adam.

**Gender-swap augmentation.** GAP was built so that both names share the pronoun's gender, so
GAP alone never teaches that a gender mismatch rules a candidate out, which OntoNotes-trained
resolvers learn and which carries occupation stereotypes of the embedding into WinoBias. A
random share ``gender_swap`` (default 10 %) of the training pronouns is added again with the
pronoun's gender swapped and ε as gold
(:func:`~nlpbias.studies.intrinsic_extrinsic.coref_pairs.swap_pronoun_gender`).

**Decisions.** A candidate is predicted coreferent iff it has the highest score of its
pronoun's candidates *and* beats ε (s > 0)
(:func:`~nlpbias.studies.intrinsic_extrinsic.coref_pairs.best_candidates`).
"""

from __future__ import annotations

import logging
import math
import time
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd
import torch
from sklearn.base import BaseEstimator
from sklearn.utils.validation import check_is_fitted
from torch import nn

from nlpbias.core.checks import check_int, check_number
from nlpbias.core.progress import progress
from nlpbias.core.repro import rng
from nlpbias.models.encoders import resolve_device
from nlpbias.models.torch_utils import torch_session
from nlpbias.studies.intrinsic_extrinsic.coref_features import (
    EmbeddingLookup,
    check_embedding,
    pair_features,
    use_lowercase,
)
from nlpbias.studies.intrinsic_extrinsic.coref_pairs import (
    PAIR_COLUMNS,
    best_candidates,
    pronoun_groups,
    require_columns,
    swap_pronoun_gender,
)

__all__ = ["MentionPairScorer"]

# Log under the task's name, as before this module was split out of
# nlpbias.studies.intrinsic_extrinsic.coref.
logger = logging.getLogger("nlpbias.studies.intrinsic_extrinsic.coref")


def _padded(scores: torch.Tensor, index: torch.Tensor) -> torch.Tensor:
    """Scores per group with the dummy antecedent (score 0) in column 0; padding → −inf."""
    gathered = scores[index.clamp(min=0)].masked_fill(index < 0, -math.inf)
    null = torch.zeros(len(index), 1, dtype=scores.dtype, device=scores.device)
    return torch.cat([null, gathered], dim=1)


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
        check_embedding(self.embedding)
        check_int(self.window, "window", minimum=0, maximum=10_000)
        for name in ("hidden", "epochs", "batch_size"):
            check_int(getattr(self, name), name, minimum=1, maximum=10**7)
        check_number(self.dropout, "dropout", low=0.0, high=0.99)
        check_number(self.learning_rate, "learning_rate", low=1e-12, high=10.0)
        check_number(self.weight_decay, "weight_decay", low=0.0, high=10.0)
        check_number(self.gender_swap, "gender_swap", low=0.0, high=1.0)
        if self.n_threads is not None:
            check_int(self.n_threads, "n_threads", minimum=1, maximum=4096)

    def _matrix(self, pairs: pd.DataFrame, lookup: EmbeddingLookup) -> np.ndarray:
        return pair_features(require_columns(pairs, PAIR_COLUMNS, "pairs"), lookup, self.window)

    def fit(self, X: pd.DataFrame, y: Sequence[bool] | None = None) -> MentionPairScorer:
        """Train on a pairs frame (:func:`gap_pairs`); labels from ``y`` or ``X["label"]``.

        Returns
        -------
        MentionPairScorer
            ``self``, fitted.
        """
        start = time.perf_counter()
        self._check_params()
        pairs = require_columns(X, PAIR_COLUMNS, "pairs")
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
        self.lowercase_ = use_lowercase(self.embedding, self.lowercase)
        lookup = EmbeddingLookup(self.embedding, self.lowercase_)
        feats = self._matrix(pairs, lookup)
        self.coverage_ = lookup.hits / max(lookup.words, 1)
        logger.info("coref fit: %d pairs, embedding coverage %.3f", len(pairs), self.coverage_)
        self.feature_mean_ = feats.mean(axis=0)
        self.feature_scale_ = np.maximum(feats.std(axis=0), 1e-6)
        index, _ = pronoun_groups(pairs)
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
        pairs = require_columns(X, PAIR_COLUMNS, "pairs")
        if pairs.empty:
            raise ValueError("pairs is empty; nothing to score")
        feats = self._matrix(pairs, EmbeddingLookup(self.embedding, self.lowercase_))
        device = next(self.model_.parameters()).device
        x = torch.from_numpy((feats - self.feature_mean_) / self.feature_scale_).to(device)
        with torch_session(0, device, self.n_threads), torch.no_grad():
            return self.model_(x).squeeze(1).float().cpu().numpy()

    def predict_proba(self, X: pd.DataFrame) -> np.ndarray:
        """Columns [P(not antecedent), P(antecedent)], P from the softmax over {ε, candidates}."""
        scores = torch.from_numpy(self.decision_function(X)).double()
        index, _ = pronoun_groups(X)
        probs = _padded(scores, torch.from_numpy(index)).softmax(dim=1)[:, 1:]
        out = np.zeros(len(X))
        mask = index >= 0
        out[index[mask]] = probs.numpy()[mask]
        return np.column_stack([1.0 - out, out])

    def predict(self, X: pd.DataFrame) -> np.ndarray:
        """True for the best candidate of each pronoun when it beats the dummy antecedent."""
        return best_candidates(self.decision_function(X), X)
