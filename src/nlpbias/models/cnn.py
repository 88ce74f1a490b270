"""The CNN toxicity classifier of Dixon et al. (2018), in torch, with scikit-learn's API.

:class:`CNNTextClassifier` re-implements, in torch, the Keras model of the paper's code
(``unintended_ml_bias/model_tool.py`` in conversationai/unintended-ml-bias-analysis):

- tokens (:func:`nlpbias.core.text.tokenize`) → indices over the ``vocab_size`` most frequent
  training tokens, plus ``<pad>`` (index 0) and ``<unk>`` (index 1);
- an embedding layer, frozen when ``embedding`` gives word vectors (the paper: 100-d GloVe);
- three blocks ``Conv1d(128 filters, width 5, 'same' padding) → ReLU → max-pool``, the pool being
  5 wide for all blocks but the last and global for the last (the paper's last pool is 40 wide over
  the 10 positions left of 250 tokens, so it is a global max pool);
- dropout 0.3 → dense 128 ReLU → one logit (the paper: a 2-way softmax; the same model);
- binary cross-entropy, early stopping on a validation loss, best weights restored.

Differences from the paper's code, all deliberate and documented in the class docstring: Adam
(learning rate 1e-3) instead of RMSprop (5e-5), so that training on ~20k tweets converges in a few
epochs; words outside the vocabulary map to ``<unk>`` instead of being dropped; texts longer than
``max_length`` keep their *first* tokens (Keras' default keeps the last); and padded positions are
masked, so a text's score does not depend on the other texts in its batch. Weights start from
torch's default initialisation (Keras: Glorot uniform, zero biases; on Davidson's tweets both gave
the same AUC within seed noise).

:class:`~nlpbias.models.kim.KimCNNClassifier` (Kim's sentence CNN, widths 3/4/5 × 100 filters)
subclasses :class:`CNNTextClassifier`: same vocabulary, embedding, masking, training loop
(including the optional length-bucketed training batches) and scikit-learn API.

The torch network and one epoch's (optionally length-bucketed) training batches are at the end
of this module; the seeded torch session is in :mod:`nlpbias.models.torch_utils`;
:func:`nlpbias.models.classifiers.make_classifier` builds any of the book's classifiers by name.
"""

from __future__ import annotations

import copy
import math
import time
from collections import Counter
from collections.abc import Sequence
from typing import Any, Literal

import numpy as np
import pandas as pd
import torch
import torch.nn.functional as F
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.model_selection import train_test_split
from sklearn.utils.validation import check_is_fitted
from torch import nn

from nlpbias.core.checks import (
    check_binary_labels,
    check_bool,
    check_choice,
    check_fraction,
    check_int,
    check_number,
    check_texts,
)
from nlpbias.core.progress import progress
from nlpbias.core.repro import rng
from nlpbias.core.text import tokenize
from nlpbias.models.encoders import resolve_device
from nlpbias.models.torch_utils import torch_session

__all__ = ["PAD", "RANDOM_EMBEDDING_DIM", "UNK", "CNNTextClassifier"]

PAD, UNK = "<pad>", "<unk>"
#: Dimension of the trainable embedding used when ``embedding=None``.
RANDOM_EMBEDDING_DIM = 50
_NAMED_EMBEDDINGS = ("glove-6b-50d",)
#: With ``bucket_by_length``, texts are sorted by length within chunks of this many batches.
_BUCKET_CHUNK_BATCHES = 50


# --------------------------------------------------------------------------- the estimator
class CNNTextClassifier(ClassifierMixin, BaseEstimator):
    """The CNN toxicity classifier of Dixon et al. (2018), in torch, with scikit-learn's API.

    See the module docstring for the architecture. ``fit`` builds the vocabulary from the
    training texts (the ``vocab_size`` most frequent tokens, ties broken alphabetically) and
    the embedding matrix; ``predict_proba`` scores any texts.

    Parameters
    ----------
    embedding : None, str or gensim KeyedVectors, default None
        Word vectors for a **frozen** embedding layer: a ``KeyedVectors`` (anything with
        ``vector_size``, ``in`` and ``[]``) or the name ``"glove-6b-50d"``
        (:func:`nlpbias.models.load_glove_50d`; prefer the name: :func:`sklearn.base.clone`
        deep-copies an object but not a name). ``None``: a **trainable** embedding of
        dimension 50 initialised from N(0, 1).
    vocab_size : int, default 10_000
        Number of words kept (``<pad>`` and ``<unk>`` come on top); other words map to ``<unk>``.
    max_length : int, default 250
        Texts keep their first ``max_length`` tokens. Batches are padded only to their longest
        text, so short texts (tweets) cost little.
    n_filters, kernel_size, n_conv_layers : int, default 128, 5, 3
        Convolution blocks.
    pool_size : int, default 5
        Max-pool width after each block but the last (the last pools globally).
    dropout : float, default 0.3
        Dropout before the dense layer.
    dense_units : int, default 128
        Width of the dense ReLU layer before the output.
    missing_vectors : {"random", "zeros"}, default "random"
        Vectors for vocabulary words that ``embedding`` lacks: a seeded draw from
        N(0, s²), s the standard deviation of the known vectors' entries, so the network can
        still tell them apart; or zeros, as in the paper's code. ``<unk>`` and ``<pad>`` are
        always zero. Ignored when ``embedding`` is None.
    batch_size, max_epochs : int, default 128, 20
    bucket_by_length : bool, default False
        Train on batches of texts of similar length: each epoch, the shuffled training texts
        are cut into chunks of 50 batches, each chunk is sorted by length and cut into
        batches, and the batches are shuffled (all seeded). Less padding, so faster epochs on
        texts of uneven length; predictions do not depend on it (padding is masked), the
        trained weights do, slightly, as the batches differ. The default keeps the batches
        (and so the results) of this class from before the option existed.
    patience : int, default 2
        Stop after this many epochs without a lower validation loss; the weights of the best
        epoch are restored.
    validation_fraction : float, default 0.1
        Share of the training texts held out (stratified, seeded) for early stopping. ``0``
        trains ``max_epochs`` epochs on everything; ``val_loss`` in ``history_`` is then NaN.
    learning_rate : float, default 1e-3
        Adam's learning rate.
    lowercase : bool, default True
        Lower-case tokens (GloVe 6B is uncased).
    device : str, default "auto"
        See :func:`nlpbias.models.resolve_device`.
    n_threads : int or None, default 1
        torch CPU threads during ``fit``/``predict`` (restored afterwards); None leaves
        torch's setting. One thread was the fastest for tweets on a shared 2-core machine
        (about 2.5 s per epoch on 20k tweets with GloVe 50d, against 5 to 26 s with two
        threads) and makes the results independent of the core count.
    random_state : None, int or numpy Generator
        Seeds the split, the missing vectors, the initial weights, the batch order and dropout.
        For a fixed int, results are identical on CPU for the same ``n_threads`` and library
        versions (a different thread count changes the last bits of the sums, hence the
        weights, slightly); on CUDA they may differ in the last bits from run to run. The
        global torch RNG is not touched.
    show_progress : bool, default True
        A progress bar over epochs (and over batches in ``predict_proba``); ``TQDM_DISABLE``
        switches it off.

    Attributes
    ----------
    classes_ : ndarray of shape (2,)
        The labels; ``classes_[1]`` is the positive (toxic) class.
    vocabulary_ : dict of str to int
        Token → row of the embedding matrix.
    embedding_coverage_ : float
        Share of vocabulary words found in ``embedding`` (NaN when ``embedding`` is None).
    model_ : torch.nn.Module
        The network with the best validation weights, in eval mode.
    history_ : pandas.DataFrame
        Columns ``epoch`` (from 1), ``train_loss`` (mean over the epoch, dropout on),
        ``val_loss``.
    best_epoch_ : int
        Epoch whose weights were kept.
    fit_time_ : float
        Seconds spent in ``fit``.

    Examples
    --------
    >>> texts = ["you idiot", "have a nice day", "idiot troll", "nice work"] * 10
    >>> clf = CNNTextClassifier(n_filters=8, max_epochs=3, random_state=0, show_progress=False)
    >>> clf.fit(texts, [1, 0, 1, 0] * 10).predict_proba(["idiot"]).shape
    (1, 2)
    """

    def __init__(
        self,
        *,
        embedding: Any = None,
        vocab_size: int = 10_000,
        max_length: int = 250,
        n_filters: int = 128,
        kernel_size: int = 5,
        n_conv_layers: int = 3,
        pool_size: int = 5,
        dropout: float = 0.3,
        dense_units: int = 128,
        missing_vectors: Literal["random", "zeros"] = "random",
        batch_size: int = 128,
        bucket_by_length: bool = False,
        max_epochs: int = 20,
        patience: int = 2,
        validation_fraction: float = 0.1,
        learning_rate: float = 1e-3,
        lowercase: bool = True,
        device: str = "auto",
        n_threads: int | None = 1,
        random_state: None | int | np.random.Generator = None,
        show_progress: bool = True,
    ) -> None:
        self.embedding = embedding
        self.vocab_size = vocab_size
        self.max_length = max_length
        self.n_filters = n_filters
        self.kernel_size = kernel_size
        self.n_conv_layers = n_conv_layers
        self.pool_size = pool_size
        self.dropout = dropout
        self.dense_units = dense_units
        self.missing_vectors = missing_vectors
        self.batch_size = batch_size
        self.bucket_by_length = bucket_by_length
        self.max_epochs = max_epochs
        self.patience = patience
        self.validation_fraction = validation_fraction
        self.learning_rate = learning_rate
        self.lowercase = lowercase
        self.device = device
        self.n_threads = n_threads
        self.random_state = random_state
        self.show_progress = show_progress

    # ------------------------------------------------------------------ helpers
    #: Name shown on the progress bars.
    _label = "CNN"

    def _check_network_params(self) -> None:
        for name in ("n_filters", "kernel_size", "n_conv_layers", "pool_size", "dense_units"):
            check_int(getattr(self, name), name, minimum=1)
        check_fraction(self.dropout, "dropout", allow_zero=True)

    def _make_network(self, embedding: nn.Embedding) -> nn.Module:
        """The network over ``embedding``; called once per ``fit``, inside the seeded session."""
        return _CNNNetwork(
            embedding,
            n_filters=self.n_filters,
            kernel_size=self.kernel_size,
            n_conv_layers=self.n_conv_layers,
            pool_size=self.pool_size,
            dropout=self.dropout,
            dense_units=self.dense_units,
        )

    def _check_params(self) -> None:
        for name in ("vocab_size", "max_length", "batch_size", "max_epochs", "patience"):
            check_int(getattr(self, name), name, minimum=1)
        self._check_network_params()
        if self.n_threads is not None:
            check_int(self.n_threads, "n_threads", minimum=1)
        check_fraction(self.validation_fraction, "validation_fraction", allow_zero=True)
        check_number(
            self.learning_rate,
            "learning_rate",
            low=0.0,
            high=math.inf,
            low_open=True,
            high_open=True,
        )
        check_choice(self.missing_vectors, "missing_vectors", ["random", "zeros"])
        for name in ("lowercase", "bucket_by_length"):
            check_bool(getattr(self, name), name)

    def _keyed_vectors(self) -> Any:
        emb = self.embedding
        if isinstance(emb, str):
            if emb not in _NAMED_EMBEDDINGS:
                raise ValueError(
                    f"embedding name {emb!r} is unknown; use one of {list(_NAMED_EMBEDDINGS)}, "
                    "a gensim KeyedVectors or None"
                )
            from nlpbias.models.embeddings import load_glove_50d

            return load_glove_50d()
        if not all(hasattr(emb, attr) for attr in ("vector_size", "__contains__", "__getitem__")):
            raise TypeError(
                f"embedding must be None, a name or a gensim KeyedVectors, got {type(emb).__name__}"
            )
        return emb

    def _build_embedding(self, gen: np.random.Generator) -> nn.Embedding:
        n_rows = len(self.vocabulary_)
        if self.embedding is None:
            self.embedding_coverage_ = float("nan")
            return nn.Embedding(n_rows, RANDOM_EMBEDDING_DIM, padding_idx=0)
        kv = self._keyed_vectors()
        words = list(self.vocabulary_)[2:]
        found = [w in kv for w in words]
        matrix = np.zeros((n_rows, int(kv.vector_size)), dtype=np.float32)
        known = [i for i, ok in enumerate(found) if ok]
        if known:
            matrix[[i + 2 for i in known]] = np.stack([kv[words[i]] for i in known])
        self.embedding_coverage_ = len(known) / len(words) if words else float("nan")
        missing = [i + 2 for i, ok in enumerate(found) if not ok]
        if missing and self.missing_vectors == "random":
            scale = float(matrix[2:][found].std()) if known else 1.0
            matrix[missing] = gen.normal(0.0, scale, size=(len(missing), matrix.shape[1]))
        weights = torch.from_numpy(matrix)
        return nn.Embedding.from_pretrained(weights, freeze=True, padding_idx=0)

    def _encode(self, texts: list[str]) -> tuple[np.ndarray, np.ndarray]:
        """Token ids, padded with 0 to the longest text (at most ``max_length``), and lengths."""
        vocab = self.vocabulary_
        rows = [
            [vocab.get(tok, 1) for tok in tokenize(t, lowercase=self.lowercase)[: self.max_length]]
            for t in texts
        ]
        lengths = np.array([len(r) for r in rows], dtype=np.int64)
        ids = np.zeros((len(rows), max(1, int(lengths.max(initial=0)))), dtype=np.int64)
        for i, r in enumerate(rows):
            ids[i, : len(r)] = r
        return ids, lengths

    def _batch(self, ids: np.ndarray, lengths: np.ndarray, idx: np.ndarray, device: torch.device):
        width = max(1, int(lengths[idx].max()))
        return (
            torch.from_numpy(ids[idx, :width]).to(device),
            torch.from_numpy(lengths[idx]).to(device),
        )

    # ------------------------------------------------------------------ API
    def fit(
        self,
        X: Sequence[str],
        y: Sequence[Any],
        *,
        validation: tuple[Sequence[str], Sequence[Any]] | None = None,
    ) -> CNNTextClassifier:
        """Build the vocabulary and embedding from ``X``, then train with early stopping.

        Parameters
        ----------
        X : sequence of str
            Training texts.
        y : array-like of shape (n,)
            Two distinct labels (e.g. 0/1 or False/True); the larger one is positive.
        validation : (texts, labels), optional
            A fixed validation set for early stopping, instead of holding out
            ``validation_fraction`` of ``X`` (which is then ignored): the same set for every
            model that is given it, e.g. models trained on differently augmented training sets.
            Its labels must be the two of ``y``; its words do not enter the vocabulary.

        Returns
        -------
        CNNTextClassifier
            ``self``, fitted.
        """
        start = time.perf_counter()
        self._check_params()
        texts = check_texts(X)
        if not texts:
            raise ValueError("X is empty; fit needs at least one text per class")
        classes, positive = check_binary_labels(y, len(texts))
        target = positive.astype(np.float32)
        gen = rng(self.random_state)
        seed = int(gen.integers(0, 2**31 - 1))
        device = resolve_device(self.device)

        counts = Counter(tok for t in texts for tok in tokenize(t, lowercase=self.lowercase))
        kept = sorted(counts, key=lambda tok: (-counts[tok], tok))[: self.vocab_size]
        self.vocabulary_ = {PAD: 0, UNK: 1} | {tok: i + 2 for i, tok in enumerate(kept)}

        if validation is not None:
            val_texts = check_texts(validation[0])
            if not val_texts:
                raise ValueError("validation has no texts; pass None to hold out a fraction")
            val_labels = np.asarray(validation[1])
            if len(val_labels) != len(val_texts):
                raise ValueError(
                    f"validation has {len(val_texts)} texts but {len(val_labels)} labels"
                )
            unknown = sorted(set(val_labels.tolist()) - set(classes.tolist()))
            if unknown:
                raise ValueError(
                    f"validation labels {unknown} are not among the training labels "
                    f"{classes.tolist()}"
                )
            n = len(texts)
            texts = texts + val_texts
            target = np.concatenate([target, (val_labels == classes[1]).astype(np.float32)])
            train_idx, val_idx = np.arange(n), np.arange(n, len(texts))
        ids, lengths = self._encode(texts)

        if validation is None and self.validation_fraction > 0:
            try:
                train_idx, val_idx = train_test_split(
                    np.arange(len(texts)),
                    test_size=self.validation_fraction,
                    stratify=target,
                    random_state=int(gen.integers(0, 2**31 - 1)),
                )
            except ValueError as err:
                raise ValueError(
                    f"cannot hold out validation_fraction={self.validation_fraction} of "
                    f"{len(texts)} texts with both classes ({err}); give more texts or set "
                    "validation_fraction=0"
                ) from err
        elif validation is None:
            train_idx, val_idx = np.arange(len(texts)), np.array([], dtype=np.int64)
        target_t = torch.from_numpy(target).to(device)

        with torch_session(seed, device, self.n_threads):
            model = self._make_network(self._build_embedding(gen)).to(device)
            optimiser = torch.optim.Adam(
                [p for p in model.parameters() if p.requires_grad], lr=self.learning_rate
            )
            order_gen = torch.Generator().manual_seed(seed)
            rows, best, best_state, wait = [], math.inf, None, 0
            bar = progress(
                range(1, self.max_epochs + 1), enabled=self.show_progress, desc=self._label
            )
            for epoch in bar:
                model.train()
                total = 0.0
                batches = _epoch_batches(
                    train_idx,
                    lengths,
                    batch_size=self.batch_size,
                    generator=order_gen,
                    bucket_by_length=self.bucket_by_length,
                )
                for idx in batches:
                    logits = model(*self._batch(ids, lengths, idx, device))
                    loss = F.binary_cross_entropy_with_logits(logits, target_t[idx])
                    optimiser.zero_grad()
                    loss.backward()
                    optimiser.step()
                    total += loss.item() * len(idx)
                train_loss = total / len(train_idx)
                val_loss = float("nan")
                if len(val_idx):
                    val_logits = self._logits(model, ids, lengths, val_idx, device)
                    val_loss = F.binary_cross_entropy_with_logits(
                        val_logits, target_t[val_idx].cpu()
                    ).item()
                rows.append((epoch, train_loss, val_loss))
                bar.set_postfix(train_loss=f"{train_loss:.4f}", val_loss=f"{val_loss:.4f}")
                if not len(val_idx):
                    continue
                if val_loss < best:
                    best, wait = val_loss, 0
                    best_state = copy.deepcopy(model.state_dict())
                else:
                    wait += 1
                    if wait >= self.patience:
                        break
            bar.close()
        if best_state is not None:
            model.load_state_dict(best_state)
        self.model_ = model.eval()
        self.classes_ = classes
        self.history_ = pd.DataFrame(rows, columns=["epoch", "train_loss", "val_loss"])
        self.best_epoch_ = (
            int(self.history_.loc[self.history_["val_loss"].idxmin(), "epoch"])
            if len(val_idx)
            else int(self.history_["epoch"].iloc[-1])
        )
        self.fit_time_ = time.perf_counter() - start
        return self

    def _logits(
        self,
        model: nn.Module,
        ids: np.ndarray,
        lengths: np.ndarray,
        idx: np.ndarray,
        device: torch.device,
        bar: bool = False,
    ) -> torch.Tensor:
        """Eval-mode logits (on CPU) of rows ``idx``, batched by length to limit padding."""
        was_training = model.training
        model.eval()
        order = idx[np.argsort(lengths[idx], kind="stable")]
        out = torch.empty(len(idx))
        pos = {int(i): k for k, i in enumerate(idx)}
        starts = range(0, len(order), self.batch_size * 4)
        with torch.no_grad():
            for b in progress(
                starts, enabled=bar and self.show_progress, desc=f"{self._label} predict"
            ):
                chunk = order[b : b + self.batch_size * 4]
                logits = model(*self._batch(ids, lengths, chunk, device)).float().cpu()
                out[[pos[int(i)] for i in chunk]] = logits
        model.train(was_training)
        return out

    def decision_function(self, X: Sequence[str]) -> np.ndarray:
        """Log-odds of the positive class, shape (n,).

        Parameters
        ----------
        X : sequence of str

        Returns
        -------
        numpy.ndarray of float32
        """
        check_is_fitted(self, "model_")
        texts = check_texts(X)
        if not texts:
            return np.zeros(0, dtype=np.float32)
        ids, lengths = self._encode(texts)
        device = next(self.model_.parameters()).device
        with torch_session(0, device, self.n_threads):  # seed unused: eval mode is exact
            logits = self._logits(self.model_, ids, lengths, np.arange(len(texts)), device, True)
        return logits.numpy()

    def predict_proba(self, X: Sequence[str]) -> np.ndarray:
        """Class probabilities, shape (n, 2), columns in the order of ``classes_``.

        Parameters
        ----------
        X : sequence of str

        Returns
        -------
        numpy.ndarray of float64
            Column 1 is the probability of ``classes_[1]`` (toxic).
        """
        positive = torch.sigmoid(torch.from_numpy(self.decision_function(X)).double()).numpy()
        return np.column_stack([1.0 - positive, positive])

    def predict(self, X: Sequence[str]) -> np.ndarray:
        """Labels from ``classes_``: the positive one where its probability is >= 0.5."""
        return self.classes_[(self.predict_proba(X)[:, 1] >= 0.5).astype(int)]


# --------------------------------------------------------------------------- the network
class _CNNNetwork(nn.Module):
    """Embedding → (conv → ReLU → mask → pool) × n → dropout → dense ReLU → logit."""

    def __init__(
        self,
        embedding: nn.Embedding,
        *,
        n_filters: int,
        kernel_size: int,
        n_conv_layers: int,
        pool_size: int,
        dropout: float,
        dense_units: int,
    ) -> None:
        super().__init__()
        self.embedding = embedding
        dims = [embedding.embedding_dim] + [n_filters] * n_conv_layers
        self.convs = nn.ModuleList(
            nn.Conv1d(dims[i], dims[i + 1], kernel_size, padding="same")
            for i in range(n_conv_layers)
        )
        self.pool_size = pool_size
        self.dropout = nn.Dropout(dropout)
        self.dense = nn.Linear(n_filters, dense_units)
        self.out = nn.Linear(dense_units, 1)

    def features(self, ids: torch.Tensor, lengths: torch.Tensor) -> torch.Tensor:
        x = self.embedding(ids).transpose(1, 2)  # (batch, dim, length); <pad> rows are zero
        last = len(self.convs) - 1
        for i, conv in enumerate(self.convs):
            x = F.relu(conv(x))
            # Zero the padded positions: then a text's output does not depend on padding.
            positions = torch.arange(x.shape[2], device=x.device)
            x = x * (positions[None, :] < lengths[:, None]).unsqueeze(1).to(x.dtype)
            if i < last:  # values are >= 0 after ReLU, so zeros never win a max-pool
                x = F.max_pool1d(x, self.pool_size, ceil_mode=True)
                lengths = torch.div(
                    lengths + self.pool_size - 1, self.pool_size, rounding_mode="floor"
                )
        return x.amax(dim=2)

    def forward(self, ids: torch.Tensor, lengths: torch.Tensor) -> torch.Tensor:
        hidden = F.relu(self.dense(self.dropout(self.features(ids, lengths))))
        return self.out(hidden).squeeze(1)


def _epoch_batches(
    indices: np.ndarray,
    lengths: np.ndarray,
    *,
    batch_size: int,
    generator: torch.Generator,
    bucket_by_length: bool = False,
    chunk_batches: int = _BUCKET_CHUNK_BATCHES,
) -> list[np.ndarray]:
    """One epoch's training batches: rows of ``indices`` in seeded random order.

    ``indices`` is shuffled with ``generator`` and cut into batches of ``batch_size`` (the last
    one may be smaller). With ``bucket_by_length``, the shuffled rows are first cut into chunks
    of ``chunk_batches * batch_size``, each chunk is sorted by ``lengths[row]`` (stable, so equal
    lengths keep their random order), the chunks are cut into batches, and the order of all
    batches is shuffled with ``generator``: batches hold texts of similar length, so they need
    little padding, while the chunks keep them random. Every row appears exactly once.

    Without bucketing, the draws from ``generator`` and the batches are exactly those of the
    loop before bucketing existed (results of earlier runs do not change).

    >>> gen = torch.Generator().manual_seed(0)
    >>> lengths = np.array([1, 9, 2, 8, 3, 7])
    >>> batches = _epoch_batches(np.arange(6), lengths, batch_size=2, generator=gen,
    ...                          bucket_by_length=True, chunk_batches=3)
    >>> sorted(np.concatenate(batches).tolist())  # every row once
    [0, 1, 2, 3, 4, 5]
    >>> sorted(sorted(lengths[b].tolist()) for b in batches)  # one chunk, sorted by length
    [[1, 2], [3, 7], [8, 9]]
    """
    perm = indices[torch.randperm(len(indices), generator=generator).numpy()]
    if not bucket_by_length:
        return [perm[b : b + batch_size] for b in range(0, len(perm), batch_size)]
    chunk = batch_size * chunk_batches
    batches = []
    for c in range(0, len(perm), chunk):
        part = perm[c : c + chunk]
        part = part[np.argsort(lengths[part], kind="stable")]
        batches += [part[b : b + batch_size] for b in range(0, len(part), batch_size)]
    order = torch.randperm(len(batches), generator=generator).numpy()
    return [batches[i] for i in order]
