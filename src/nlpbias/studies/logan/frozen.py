"""Frozen-encoder features and the frozen-encoder classifier (LOGAN's demo-profile pipeline).

LOGAN clusters the *features of the classifier under audit*: the paper fine-tunes BERT on the
Jigsaw comments and takes the second-to-last layer, mean-pooled over the non-padding tokens. This
module gives the book's fast version of that pipeline on the offline encoder all-MiniLM-L6-v2:

- :func:`encoder_features`: mean-pooled hidden states of one layer of the **frozen** encoder,
  cached on disk (:func:`nlpbias.core.cache.cached`), keyed by the texts and the parameters;
- :class:`FrozenEncoderClassifier` (demo profile): those features, standardised, plus a logistic
  regression; fast (encoding 20k tweets takes a few minutes on 2 CPU cores, once; then cached).

The paper-profile classifier, fine-tuned end to end, is
:class:`nlpbias.studies.logan.finetune.FineTunedEncoderClassifier`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import Pipeline, make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.utils.validation import check_is_fitted

from nlpbias.core.cache import cached
from nlpbias.core.checks import check_binary_labels, check_int, check_number, check_texts
from nlpbias.models.encoders import MINILM_NAME, encode, load_encoder
from nlpbias.studies.logan.classifier_inputs import check_model_name

__all__ = ["FrozenEncoderClassifier", "encoder_features"]


@cached(ignore=("device", "show_progress"))
def _frozen_features(
    texts: list[str],
    model: str,
    layer: int,
    batch_size: int,
    max_length: int,
    device: str,
    show_progress: bool,
) -> np.ndarray:
    tokenizer, encoder = load_encoder(model, device=device)
    return encode(
        texts,
        tokenizer=tokenizer,
        model=encoder,
        layer=layer,
        batch_size=batch_size,
        max_length=max_length,
        show_progress=show_progress,
    )


def encoder_features(
    texts: Sequence[str],
    *,
    model: str = MINILM_NAME,
    layer: int = -2,
    batch_size: int = 64,
    max_length: int = 64,
    device: str = "auto",
    show_progress: bool = True,
) -> np.ndarray:
    """Mean-pooled hidden states of one layer of a frozen encoder, cached on disk.

    The LOGAN features: by default the second-to-last layer of all-MiniLM-L6-v2, averaged over
    the non-padding tokens of each text (:func:`nlpbias.models.encoders.encode`).

    The result is stored under :func:`nlpbias.core.cache.cache_dir`, keyed by the texts, ``model``
    (MiniLM's aliases count as one name), ``layer``, ``batch_size`` and ``max_length``;
    ``device`` and ``show_progress`` are not part of the key (CPU and GPU agree to about 1e-5).

    Parameters
    ----------
    texts : sequence of str
    model : str, default "all-MiniLM-L6-v2"
        Encoder name or local folder (see :func:`nlpbias.models.resolve_model`).
    layer : int, default -2
        Index into the hidden states (0 = embeddings, -1 = last layer).
    batch_size : int, default 64
    max_length : int, default 64
        Longer texts are truncated to this many word pieces.
    device : str, default "auto"
    show_progress : bool, default True

    Returns
    -------
    numpy.ndarray, shape (len(texts), hidden_size), float32

    Examples
    --------
    >>> X = encoder_features(["a nurse", "a doctor"], show_progress=False)
    >>> X.shape
    (2, 384)
    """
    items = check_texts(texts, "texts")
    name = check_model_name(model)
    layer = check_int(layer, "layer")
    batch_size = check_int(batch_size, "batch_size", minimum=1)
    max_length = check_int(max_length, "max_length", minimum=1)
    if not items:
        _, encoder = load_encoder(name, device="cpu")
        return np.empty((0, encoder.config.hidden_size), dtype=np.float32)
    return _frozen_features(
        items, name, layer, batch_size, max_length, device=device, show_progress=show_progress
    )


class FrozenEncoderClassifier(ClassifierMixin, BaseEstimator):
    """Frozen encoder features + logistic regression (the demo-profile LOGAN classifier).

    ``fit`` computes :func:`encoder_features` (cached), standardises them and fits a
    :class:`~sklearn.linear_model.LogisticRegression` (lbfgs, ``max_iter=2000``).

    Parameters
    ----------
    model : str, default "all-MiniLM-L6-v2"
    C : float, default 1.0
        Inverse L2 strength of the logistic regression (on standardised features).
    layer : int, default -2
    max_length : int, default 64
    batch_size : int, default 64
        Encoding batch size.
    device : str, default "auto"
    random_state : None or int
        Passed to the logistic regression (lbfgs is deterministic and does not use it).
    show_progress : bool, default True

    Attributes
    ----------
    classes_ : ndarray of shape (2,)
    head_ : sklearn.pipeline.Pipeline
        ``StandardScaler`` → ``LogisticRegression`` on the features.

    Examples
    --------
    >>> texts = ["you idiot", "have a nice day", "stupid troll", "lovely work"] * 5
    >>> clf = FrozenEncoderClassifier(show_progress=False).fit(texts, [1, 0, 1, 0] * 5)
    >>> clf.predict(["what an idiot"]).tolist()
    [1]
    """

    def __init__(
        self,
        *,
        model: str = MINILM_NAME,
        C: float = 1.0,
        layer: int = -2,
        max_length: int = 64,
        batch_size: int = 64,
        device: str = "auto",
        random_state: int | None = None,
        show_progress: bool = True,
    ) -> None:
        self.model = model
        self.C = C
        self.layer = layer
        self.max_length = max_length
        self.batch_size = batch_size
        self.device = device
        self.random_state = random_state
        self.show_progress = show_progress

    def features(self, X: Sequence[str], *, layer: int | None = None) -> np.ndarray:
        """Frozen-encoder features of ``X`` (``layer`` defaults to the estimator's).

        Parameters
        ----------
        X : sequence of str
        layer : int, optional

        Returns
        -------
        numpy.ndarray, shape (n, hidden_size)
        """
        return encoder_features(
            X,
            model=self.model,
            layer=self.layer if layer is None else layer,
            batch_size=self.batch_size,
            max_length=self.max_length,
            device=self.device,
            show_progress=self.show_progress,
        )

    def fit(self, X: Sequence[str], y: Sequence[Any]) -> FrozenEncoderClassifier:
        """Encode ``X`` and fit the logistic head.

        Parameters
        ----------
        X : sequence of str
        y : array-like of shape (n,)
            Two distinct labels; the larger one is positive.

        Returns
        -------
        FrozenEncoderClassifier
            ``self``, fitted.
        """
        check_number(self.C, "C", low=0.0, low_open=True, high=math.inf, high_open=True)
        texts = check_texts(X)
        if not texts:
            raise ValueError("X is empty; fit needs at least one text per class")
        classes, positive = check_binary_labels(y, len(texts))
        target = positive.astype(np.int64)
        head: Pipeline = make_pipeline(
            StandardScaler(),
            LogisticRegression(C=self.C, max_iter=2000, random_state=self.random_state),
        )
        head.fit(self.features(texts), target)
        self.head_, self.classes_ = head, classes
        return self

    def predict_proba(self, X: Sequence[str]) -> np.ndarray:
        """Class probabilities, shape (n, 2), columns in the order of ``classes_``."""
        check_is_fitted(self, "head_")
        texts = check_texts(X)
        if not texts:
            return np.zeros((0, 2))
        return self.head_.predict_proba(self.features(texts))

    def predict_proba_and_features(
        self, X: Sequence[str], *, layer: int | None = None
    ) -> tuple[np.ndarray, np.ndarray]:
        """``predict_proba(X)`` and ``features(X, layer=layer)`` (the features are encoded once:
        :func:`encoder_features` is cached)."""
        return self.predict_proba(X), self.features(X, layer=layer)

    def predict(self, X: Sequence[str]) -> np.ndarray:
        """Labels from ``classes_``: the positive one where its probability is >= 0.5."""
        return self.classes_[(self.predict_proba(X)[:, 1] >= 0.5).astype(int)]
