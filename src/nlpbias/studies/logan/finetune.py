"""The encoder fine-tuned end to end for LOGAN (the paper-profile classifier; Zhao & Chang, 2020).

The paper fine-tunes BERT on the Jigsaw comments and clusters its second-to-last layer,
mean-pooled over the non-padding tokens. :class:`FineTunedEncoderClassifier` does this on the
offline encoder all-MiniLM-L6-v2: a two-way classification head
(``AutoModelForSequenceClassification``: dropout + a linear layer on the ``[CLS]`` token's pooled
output), torch ``AdamW`` with a linear warm-up/decay schedule (:func:`linear_schedule`), as in the
paper's BERT setup; its :meth:`~FineTunedEncoderClassifier.features` are the fine-tuned encoder's
second-to-last layer, mean-pooled (the paper's LOGAN features). The fast demo-profile version, a
frozen encoder plus a logistic head, is :mod:`nlpbias.studies.logan.frozen`.

Fine-tuning cost. On the project's 2 CPU cores (measured 2026-11-24) one float32 step of batch
32, ``max_length=64``, length-grouped batches, takes about 0.45-0.55 s: two thirds matrix
products, 8 % dropout masks, 13 % the AdamW step (2 % with ``fused_optimizer=True``). One epoch
on the 19.8k Davidson training tweets and one pass over the 5k test tweets
(:meth:`~FineTunedEncoderClassifier.predict_proba_and_features`) took 279 s with the fused
optimiser (313 s before, with the default one and two passes over the test tweets).
``precision="bf16"`` halves a step (0.31 s against 0.59 s) but changes the model enough to move
the LOGAN chapter's largest gender gap by 3.9 points (29.8 → 33.7), so the ``paper`` profile
trains in float32. A GPU (``device="auto"``) makes it a matter of seconds.
"""

from __future__ import annotations

import contextlib
import logging
import math
import time
from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np
import pandas as pd
import torch
import torch.nn.functional as F
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils.validation import check_is_fitted

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
from nlpbias.models.encoders import (
    MINILM_NAME,
    from_pretrained,
    mean_pool,
    resolve_device,
    resolve_model,
)
from nlpbias.models.torch_utils import pad_ids, torch_session
from nlpbias.studies.logan.classifier_inputs import check_model_name

__all__ = ["FineTunedEncoderClassifier", "linear_schedule"]

logger = logging.getLogger(__name__)

#: Batches are formed inside windows of this many batches, sorted by length (see ``fit``).
_GROUP_WINDOW = 50


def linear_schedule(step: int, *, total_steps: int, warmup_steps: int) -> float:
    """Learning-rate factor of the linear warm-up / linear decay schedule (as in BERT).

    Rises linearly from 0 to 1 over ``warmup_steps`` optimiser steps, then falls linearly to 0
    at ``total_steps`` (``transformers.get_linear_schedule_with_warmup``'s formula).

    Parameters
    ----------
    step : int
        Number of optimiser steps already taken (0 for the first step).
    total_steps, warmup_steps : int

    Returns
    -------
    float
        Multiplier of the base learning rate, in [0, 1].

    Examples
    --------
    >>> [linear_schedule(s, total_steps=10, warmup_steps=2) for s in (0, 1, 2, 6, 10)]
    [0.0, 0.5, 1.0, 0.5, 0.0]
    """
    if step < warmup_steps:
        return step / max(1, warmup_steps)
    return max(0.0, (total_steps - step) / max(1, total_steps - warmup_steps))


@contextlib.contextmanager
def _quiet_transformers() -> Iterator[None]:
    """Silence transformers' load report (the new head's "MISSING" weights) and its bar."""
    from transformers.utils import logging as hf_logging

    old, bar = hf_logging.get_verbosity(), hf_logging.is_progress_bar_enabled()
    hf_logging.set_verbosity_error()
    hf_logging.disable_progress_bar()
    try:
        yield
    finally:
        hf_logging.set_verbosity(old)
        if bar:
            hf_logging.enable_progress_bar()


def _pad(rows: list[list[int]], pad_id: int, device: torch.device) -> dict[str, torch.Tensor]:
    ids, mask = pad_ids(rows, pad_id)
    return {"input_ids": ids.to(device), "attention_mask": mask.to(device)}


def _batches(
    lengths: np.ndarray, batch_size: int, gen: np.random.Generator, group_by_length: bool
) -> list[np.ndarray]:
    """One epoch's batches of row indices, in a random order.

    With ``group_by_length``, a random permutation is cut into windows of ``_GROUP_WINDOW``
    batches, each window is sorted by length before being cut into batches, and the batches are
    shuffled: batches hold texts of similar length (less padding) but still vary from epoch to
    epoch (the "group by length" sampler of ``transformers.Trainer``).
    """
    perm = gen.permutation(len(lengths))
    if group_by_length:
        window = batch_size * _GROUP_WINDOW
        perm = np.concatenate(
            [
                chunk[np.argsort(-lengths[chunk], kind="stable")]
                for chunk in np.array_split(perm, range(window, len(perm), window))
            ]
        )
    batches = [perm[b : b + batch_size] for b in range(0, len(perm), batch_size)]
    return [batches[i] for i in gen.permutation(len(batches))] if group_by_length else batches


class FineTunedEncoderClassifier(ClassifierMixin, BaseEstimator):
    """An encoder fine-tuned with a two-way classification head (the paper-profile classifier).

    ``fit`` loads ``AutoModelForSequenceClassification`` (``num_labels=2``; for MiniLM a
    ``BertForSequenceClassification`` over the packaged weights, its head initialised from the
    seed), then trains every weight with cross-entropy, torch ``AdamW`` (weight decay
    ``weight_decay`` on all weights but biases and LayerNorm) and a linear schedule: warm-up over
    the first ``warmup`` share of the steps, then linear decay to 0 (:func:`linear_schedule`).
    Texts are truncated to ``max_length`` word pieces and batches padded to their longest text.

    Parameters
    ----------
    model : str, default "all-MiniLM-L6-v2"
        Encoder name or local folder (see :func:`nlpbias.models.resolve_model`).
    epochs : int, default 1
    learning_rate : float, default 2e-5
    batch_size : int, default 32
    max_length : int, default 64
    warmup : float, default 0.1
        Share of the optimiser steps spent warming up, in [0, 1).
    weight_decay : float, default 0.01
    fused_optimizer : bool, default False
        Use torch's fused AdamW kernel (one pass over the weights per step instead of about ten
        per-tensor passes): on 2 CPU cores the optimiser step falls from about 69 ms to about
        10 ms of a 0.55 s training step. The same update rule, but not the same rounding: the
        weights differ in the last bits (about 2e-7 after a few steps), so the fit is not
        bit-identical to the default one.
    group_by_length : bool, default True
        Form training batches of texts of similar length (see ``_batches``); about a third less
        padding on tweets. ``False``: plain shuffled batches.
    precision : {"fp32", "bf16"}, default "fp32"
        ``"bf16"`` runs the forward passes (training, and inference unless
        ``inference_precision`` says otherwise) under ``torch.autocast(dtype=torch.bfloat16)``;
        weights and optimiser state stay float32. On a CPU with AVX-512 BF16 / AMX it is about
        twice as fast (a training step of batch 32 on tweets: 0.31 s against 0.59 s on the
        project's 2-core AMD EPYC, measured 2026-11-24); hidden states and probabilities
        computed under it carry about 3 significant digits. The paper used float32.
    inference_precision : {"fp32", "bf16"} or None, default None
        Precision of the forward passes of ``predict_proba``, ``decision_function``,
        ``features`` and :meth:`predict_proba_and_features`; None: ``precision``. ``"fp32"``
        with ``precision="bf16"`` trains in mixed precision but gives full-precision
        probabilities and features (the ``paper`` profile of the LOGAN chapter).
    device : str, default "auto"
        See :func:`nlpbias.models.resolve_device`.
    n_threads : int or None, default None
        torch CPU threads during ``fit``/``predict`` (restored afterwards); None keeps torch's
        setting (2 threads were about 25 % faster than 1 on a 2-core machine).
    random_state : None, int or numpy Generator
        Seeds the head's initial weights, the batch order and dropout. For a fixed int, results
        are identical on CPU for the same thread count and library versions; the global torch
        RNG is not touched.
    show_progress : bool, default True

    Attributes
    ----------
    classes_ : ndarray of shape (2,)
    model_ : transformers.PreTrainedModel
        The fine-tuned model, in eval mode.
    tokenizer_ : transformers.PreTrainedTokenizerBase
    history_ : pandas.DataFrame
        Columns ``epoch`` (from 1), ``train_loss`` (mean over the epoch, dropout on),
        ``steps``, ``seconds``.
    fit_time_ : float
        Seconds spent in ``fit``.

    Examples
    --------
    >>> texts = ["you idiot", "have a nice day", "stupid troll", "lovely work"] * 4
    >>> clf = FineTunedEncoderClassifier(max_length=16, batch_size=8, random_state=0,
    ...                                  show_progress=False).fit(texts, [1, 0, 1, 0] * 4)
    >>> clf.predict_proba(["idiot"]).shape, clf.features(["idiot"]).shape
    ((1, 2), (1, 384))
    """

    def __init__(
        self,
        *,
        model: str = MINILM_NAME,
        epochs: int = 1,
        learning_rate: float = 2e-5,
        batch_size: int = 32,
        max_length: int = 64,
        warmup: float = 0.1,
        weight_decay: float = 0.01,
        fused_optimizer: bool = False,
        group_by_length: bool = True,
        precision: str = "fp32",
        inference_precision: str | None = None,
        device: str = "auto",
        n_threads: int | None = None,
        random_state: None | int | np.random.Generator = None,
        show_progress: bool = True,
    ) -> None:
        self.model = model
        self.epochs = epochs
        self.learning_rate = learning_rate
        self.batch_size = batch_size
        self.max_length = max_length
        self.warmup = warmup
        self.weight_decay = weight_decay
        self.fused_optimizer = fused_optimizer
        self.group_by_length = group_by_length
        self.precision = precision
        self.inference_precision = inference_precision
        self.device = device
        self.n_threads = n_threads
        self.random_state = random_state
        self.show_progress = show_progress

    # ------------------------------------------------------------------ helpers
    def _check_params(self) -> None:
        check_model_name(self.model)
        for name in ("epochs", "batch_size", "max_length"):
            check_int(getattr(self, name), name, minimum=1)
        if self.n_threads is not None:
            check_int(self.n_threads, "n_threads", minimum=1)
        check_number(
            self.learning_rate,
            "learning_rate",
            low=0.0,
            low_open=True,
            high=math.inf,
            high_open=True,
        )
        check_fraction(self.warmup, "warmup", allow_zero=True)
        check_number(self.weight_decay, "weight_decay", low=0.0, high=math.inf, high_open=True)
        check_bool(self.group_by_length, "group_by_length")
        check_bool(self.fused_optimizer, "fused_optimizer")
        check_choice(self.precision, "precision", ("fp32", "bf16"))
        if self.inference_precision is not None:
            check_choice(self.inference_precision, "inference_precision", ("fp32", "bf16"))

    def _autocast(
        self, device: torch.device, precision: str | None = None
    ) -> contextlib.AbstractContextManager[Any]:
        if (precision or self.precision) == "fp32":
            return contextlib.nullcontext()
        if device.type == "cuda" and not torch.cuda.is_bf16_supported():
            raise ValueError("precision='bf16' is not supported by this GPU; use precision='fp32'")
        return torch.autocast(device.type, dtype=torch.bfloat16)

    def _token_ids(self, texts: list[str]) -> list[list[int]]:
        out = self.tokenizer_(texts, truncation=True, max_length=self.max_length)
        return out["input_ids"]

    def _optimiser(self, model: torch.nn.Module) -> torch.optim.Optimizer:
        decay, no_decay = [], []
        for name, param in model.named_parameters():
            (no_decay if name.endswith("bias") or "LayerNorm" in name else decay).append(param)
        groups = [
            {"params": decay, "weight_decay": float(self.weight_decay)},
            {"params": no_decay, "weight_decay": 0.0},
        ]
        fused = {"fused": True} if self.fused_optimizer else {}
        return torch.optim.AdamW(groups, lr=float(self.learning_rate), **fused)

    def _forward_all(
        self, texts: list[str], *, logits: bool, layer: int | None
    ) -> tuple[np.ndarray | None, np.ndarray | None]:
        """Eval-mode logits (if ``logits``) and the pooled hidden states of ``layer`` (unless
        None), in the order of ``texts``, from one forward pass per batch."""
        check_is_fitted(self, "model_")
        model = self.model_
        device = next(model.parameters()).device
        ids = self._token_ids(texts)
        lengths = np.array([len(r) for r in ids])
        order = np.argsort(lengths, kind="stable")  # similar lengths together: less padding
        step = self.batch_size * 2
        chunks: dict[str, list[torch.Tensor]] = {"logits": [], "pooled": []}
        pad_id = self.tokenizer_.pad_token_id
        desc = "fine-tuned " + " + ".join(
            (["predict"] if logits else []) + (["features"] if layer is not None else [])
        )
        session = torch_session(0, device, self.n_threads)  # the seed is unused in eval mode
        autocast = self._autocast(device, self.inference_precision)
        with session, torch.inference_mode(), autocast:
            starts = range(0, len(order), step)
            for b in progress(starts, enabled=self.show_progress, desc=desc, unit="batch"):
                batch = _pad([ids[i] for i in order[b : b + step]], pad_id, device)
                states = layer is not None
                if logits:
                    out = model(**batch, output_hidden_states=states)
                    chunks["logits"].append(out.logits.float().cpu())
                else:
                    out = model.base_model(**batch, output_hidden_states=True)
                if states:
                    pooled = mean_pool(out.hidden_states[layer], batch["attention_mask"])
                    chunks["pooled"].append(pooled.float().cpu())
        results = []
        for name in ("logits", "pooled"):
            if not chunks[name]:
                results.append(None)
                continue
            result = np.empty((len(texts), chunks[name][0].shape[1]), dtype=np.float32)
            result[order] = torch.cat(chunks[name]).numpy()
            results.append(result)
        return results[0], results[1]

    # ------------------------------------------------------------------ API
    def fit(self, X: Sequence[str], y: Sequence[Any]) -> FineTunedEncoderClassifier:
        """Fine-tune the encoder and its head on ``X``, ``y``.

        Parameters
        ----------
        X : sequence of str
            Training texts.
        y : array-like of shape (n,)
            Two distinct labels (e.g. 0/1 or False/True); the larger one is positive.

        Returns
        -------
        FineTunedEncoderClassifier
            ``self``, fitted.
        """
        from transformers import AutoModelForSequenceClassification, AutoTokenizer

        start = time.perf_counter()
        self._check_params()
        texts = check_texts(X)
        if not texts:
            raise ValueError("X is empty; fit needs at least one text per class")
        classes, positive = check_binary_labels(y, len(texts))
        target = positive.astype(np.int64)
        gen = rng(self.random_state)
        seed = int(gen.integers(0, 2**31 - 1))
        device = resolve_device(self.device)
        target_t = torch.from_numpy(target).to(device)
        name = resolve_model(check_model_name(self.model))
        self.tokenizer_ = from_pretrained(AutoTokenizer, name)
        ids = self._token_ids(texts)
        lengths = np.array([len(r) for r in ids])
        n_batches = math.ceil(len(texts) / self.batch_size)
        total = n_batches * self.epochs
        warmup_steps = math.ceil(total * self.warmup)
        pad_id = self.tokenizer_.pad_token_id

        with torch_session(seed, device, self.n_threads):
            with _quiet_transformers():
                model = from_pretrained(AutoModelForSequenceClassification, name, num_labels=2)
            model.to(device).train()
            optimiser = self._optimiser(model)
            scheduler = torch.optim.lr_scheduler.LambdaLR(
                optimiser,
                lambda s: linear_schedule(s, total_steps=total, warmup_steps=warmup_steps),
            )
            rows = []
            bar = progress(total=total, enabled=self.show_progress, desc="fine-tune", unit="step")
            for epoch in range(1, self.epochs + 1):
                t0, loss_sum = time.perf_counter(), 0.0
                for idx in _batches(lengths, self.batch_size, gen, self.group_by_length):
                    batch = _pad([ids[i] for i in idx], pad_id, device)
                    with self._autocast(device):
                        logits = model(**batch).logits
                    loss = F.cross_entropy(logits.float(), target_t[idx])
                    optimiser.zero_grad()
                    loss.backward()
                    optimiser.step()
                    scheduler.step()
                    loss_sum += loss.item() * len(idx)
                    bar.update(1)
                    bar.set_postfix(epoch=epoch, loss=f"{loss.item():.4f}")
                seconds = time.perf_counter() - t0
                rows.append((epoch, loss_sum / len(texts), n_batches, seconds))
                logger.info("fine-tune epoch %d: loss %.4f, %.0f s", epoch, rows[-1][1], seconds)
            bar.close()
        self.model_ = model.eval()
        self.classes_ = classes
        self.history_ = pd.DataFrame(rows, columns=["epoch", "train_loss", "steps", "seconds"])
        self.fit_time_ = time.perf_counter() - start
        return self

    def decision_function(self, X: Sequence[str]) -> np.ndarray:
        """Log-odds of the positive class (logit 1 − logit 0), shape (n,)."""
        check_is_fitted(self, "model_")
        texts = check_texts(X)
        if not texts:
            return np.zeros(0, dtype=np.float32)
        logits, _ = self._forward_all(texts, logits=True, layer=None)
        return logits[:, 1] - logits[:, 0]

    def predict_proba(self, X: Sequence[str]) -> np.ndarray:
        """Class probabilities, shape (n, 2), columns in the order of ``classes_``.

        Parameters
        ----------
        X : sequence of str

        Returns
        -------
        numpy.ndarray of float64
        """
        return _proba(self.decision_function(X))

    def predict(self, X: Sequence[str]) -> np.ndarray:
        """Labels from ``classes_``: the positive one where its probability is >= 0.5."""
        return self.classes_[(self.predict_proba(X)[:, 1] >= 0.5).astype(int)]

    def _check_layer(self, layer: int) -> int:
        n_states = self.model_.config.num_hidden_layers + 1
        return check_int(layer, "layer", minimum=-n_states, maximum=n_states - 1)

    def predict_proba_and_features(
        self, X: Sequence[str], *, layer: int = -2
    ) -> tuple[np.ndarray, np.ndarray]:
        """``predict_proba(X)`` and ``features(X, layer=layer)`` from one forward pass.

        The same numbers as the two calls (the same batches, the same kernels), at half the
        cost: the LOGAN chapter scores and clusters the same test tweets.

        Returns
        -------
        tuple of numpy.ndarray
            Probabilities (n, 2), float64; features (n, hidden_size), float32.
        """
        check_is_fitted(self, "model_")
        texts = check_texts(X)
        layer = self._check_layer(layer)
        if not texts:
            return np.zeros((0, 2)), np.empty((0, self.model_.config.hidden_size), np.float32)
        logits, pooled = self._forward_all(texts, logits=True, layer=layer)
        return _proba(logits[:, 1] - logits[:, 0]), pooled

    def features(self, X: Sequence[str], *, layer: int = -2) -> np.ndarray:
        """Hidden states of the fine-tuned encoder, mean-pooled over non-padding tokens.

        The paper's LOGAN features (``layer=-2``: the second-to-last layer).

        Parameters
        ----------
        X : sequence of str
        layer : int, default -2
            Index into the hidden states (0 = embeddings, -1 = last layer).

        Returns
        -------
        numpy.ndarray, shape (n, hidden_size), float32
        """
        check_is_fitted(self, "model_")
        texts = check_texts(X)
        layer = self._check_layer(layer)
        if not texts:
            return np.empty((0, self.model_.config.hidden_size), dtype=np.float32)
        return self._forward_all(texts, logits=False, layer=layer)[1]


def _proba(decision: np.ndarray) -> np.ndarray:
    """Class probabilities (n, 2), float64, from the log-odds of the positive class."""
    positive = torch.sigmoid(torch.from_numpy(decision).double()).numpy()
    return np.column_stack([1.0 - positive, positive])
