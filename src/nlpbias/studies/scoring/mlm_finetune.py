"""Per-person fine-tuning of a masked LM (seed 003's per-person models), MLM loss only.

:func:`fine_tune_mlm` continues masked-LM training of any masked LM (an HF name, a local folder,
or the stand-in of :func:`nlpbias.studies.scoring.mlm.adapt_mlm`) on one person's posts and
measures the held-out masked-token accuracy before and after. Re-exported by
:mod:`nlpbias.studies.scoring.mlm`.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import shutil
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd
import torch

from nlpbias.core.cache import code_digest, models_dir
from nlpbias.core.checks import check_int
from nlpbias.core.progress import progress
from nlpbias.models.encoders import load_mlm, resolve_device, resolve_model
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

__all__ = ["FINETUNE_FILE", "FineTuneResult", "fine_tune_mlm"]

FINETUNE_FILE = "fine_tune.json"


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
        Default ``$NLPBIAS_CACHE/scoring/models/finetuned-<key>`` (the key hashes the
        parameters, the data and the code).
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
    texts = nonempty_texts(texts)
    check_int(epochs, "epochs", minimum=1)
    check_int(batch_size, "batch_size", minimum=1)
    if max_steps is not None:
        check_int(max_steps, "max_steps", minimum=1)
    if not learning_rate > 0:
        raise ValueError(f"learning_rate must be positive, got {learning_rate!r}")
    if val_texts is None:
        train_idx, val_idx = split_indices(
            len(texts), val_fraction=val_fraction, random_state=random_state
        )
        train_texts = [texts[i] for i in train_idx]
        held_texts = [texts[i] for i in val_idx]
    else:
        train_texts, held_texts = texts, nonempty_texts(val_texts, "val_texts")
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
    code = code_digest(__name__)  # the training code is part of the key, as for @cached results
    key = hashlib.sha256(json.dumps({**params, "code": code}, sort_keys=True).encode())
    key = key.hexdigest()[:12]
    out = Path(output_dir).expanduser() if output_dir else models_dir(__name__) / f"finetuned-{key}"
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
            group["lr"] = learning_rate * lr_factor(step, start=0, warmup=warmup, total=total)
        ids, attention = batch_tensors(train, rows, pad_id, torch.device("cpu"))
        inputs, labels = mask_tokens(
            ids, attention, tokenizer=tokenizer, generator=step_generator(random_state, step)
        )
        with seeded(step_seed(random_state, step), torch_device), bf16_autocast(bf16, torch_device):
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
