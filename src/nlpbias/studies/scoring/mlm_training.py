"""The pieces of masked-LM training shared by the stand-in and per-person fine-tuning.

Texts are tokenised once and packed greedily into blocks of at most ``max_length`` tokens
(``[CLS] text [SEP] text [SEP] ...``, a text never split across blocks; a text longer than a block
is truncated). Each training step draws a batch of blocks and masks it afresh (*dynamic masking*,
as RoBERTa): 15 % of the non-special tokens are selected; of those 80 % become ``[MASK]``, 10 % a
random token and 10 % stay. The loss is the cross-entropy at the selected positions only, and
for BERT models the output layer is applied only there instead of scoring every position against
the 30k-word vocabulary: one stand-in training step (batch 32 x 128, top 2 layers trainable,
2 CPU cores) took 1.9 s instead of 5.9 s, and 1.2 s with bfloat16 autocast
(``benchmarks/mlm_step.py``).

The randomness of step ``s`` comes from a generator seeded with ``(random_state, s)``, so a run
that is interrupted and resumed from a checkpoint draws exactly the batches and masks that an
uninterrupted run would.

Held-out quality is the **masked-token accuracy**: on held-out blocks, a fixed 15 % of the
tokens (seeded) is replaced by ``[MASK]`` and the share of those whose original token is the
model's top-1 (top-5) prediction is reported.
"""

from __future__ import annotations

import contextlib
import hashlib
from collections.abc import Iterable, Iterator, Sequence
from typing import Any

import numpy as np
import torch

from nlpbias.core import checks
from nlpbias.core.progress import progress
from nlpbias.models.torch_utils import pad_ids

__all__ = [
    "bf16_autocast",
    "lr_factor",
    "mask_tokens",
    "masked_accuracy",
    "masked_lm_loss",
    "nonempty_texts",
    "pack_blocks",
    "seeded",
    "step_generator",
    "step_seed",
    "texts_fingerprint",
]


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


@contextlib.contextmanager
def seeded(seed: int, device: torch.device | None = None) -> Iterator[None]:
    """Run a block with torch's global generator(s) seeded, restoring them afterwards.

    Dropout and weight initialisation draw from the global generator; seeding it per step
    makes a resumed run draw exactly what an uninterrupted one would.
    """
    devices = [device.index or 0] if device is not None and device.type == "cuda" else []
    with torch.random.fork_rng(devices=devices):
        torch.manual_seed(seed % (2**63))
        yield


def lr_factor(step: int, *, start: int, warmup: int, total: int) -> float:
    """Linear warm-up from ``start`` over ``warmup`` steps, then linear decay to 0 at ``total``."""
    since = step - start
    if since < warmup:
        return (since + 1) / warmup
    return max(0.0, (total - step) / max(1, total - start - warmup))


def bf16_autocast(enabled: bool, device: torch.device) -> contextlib.AbstractContextManager[Any]:
    """bfloat16 autocast on ``device`` when ``enabled``, else a no-op context."""
    if not enabled:
        return contextlib.nullcontext()
    return torch.autocast(device_type=device.type, dtype=torch.bfloat16)


def pack_blocks(
    tokenizer: Any,
    texts: Sequence[str],
    *,
    max_length: int = 128,
    show_progress: bool = False,
) -> list[list[int]]:
    """Tokenise texts and pack them greedily into blocks of at most ``max_length`` token ids.

    Parameters
    ----------
    tokenizer : transformers tokenizer
        Needs ``cls_token_id`` and ``sep_token_id``.
    texts : sequence of str
        Documents or posts; empty strings are skipped.
    max_length : int, default 128
        Block length including ``[CLS]`` and the ``[SEP]`` after each text.
    show_progress : bool, default False
        Show a tqdm bar over the texts.

    Returns
    -------
    list of list of int
        ``[CLS] t1 [SEP] t2 [SEP] ...``; no text is split; longer texts are truncated.

    Examples
    --------
    >>> from transformers import BertTokenizer  # doctest: +SKIP
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


def step_seed(random_state: int, step: int) -> int:
    """The seed of training step ``step`` of a run seeded with ``random_state``."""
    digest = hashlib.sha256(f"{int(random_state)}:{int(step)}".encode()).digest()
    return int.from_bytes(digest[:8], "little") >> 1


def step_generator(random_state: int, step: int) -> torch.Generator:
    """The generator for training step ``step`` of a run seeded with ``random_state``."""
    return torch.Generator().manual_seed(step_seed(random_state, step))


def mask_tokens(
    input_ids: torch.Tensor,
    attention_mask: torch.Tensor,
    *,
    tokenizer: Any,
    generator: torch.Generator,
    mlm_probability: float = 0.15,
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
    mlm_probability : float, default 0.15
        Share of non-special tokens selected. At least one token per batch is selected.
    replace_probabilities : (float, float), default (0.8, 0.1)
        Shares of the selected tokens set to ``[MASK]`` and to a random token (the rest stay).

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


def _bert_parts(model: Any) -> tuple[Any, Any] | None:
    """(encoder, head) of a BertForMaskedLM-like model, or None for other architectures."""
    base, head = getattr(model, "bert", None), getattr(model, "cls", None)
    return (base, head) if base is not None and head is not None else None


def masked_logits(
    model: Any, inputs: torch.Tensor, attention_mask: torch.Tensor, selected: torch.Tensor
) -> torch.Tensor:
    """Vocabulary logits at the ``selected`` positions only, shape ``(n_selected, vocab)``."""
    parts = _bert_parts(model)
    if parts is None:
        result = model(input_ids=inputs, attention_mask=attention_mask)
        return (result.logits if hasattr(result, "logits") else result)[selected]
    base, head = parts
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


def batch_tensors(
    blocks: Sequence[Sequence[int]], rows: Sequence[int], pad_id: int, device: torch.device
) -> tuple[torch.Tensor, torch.Tensor]:
    """Pad the chosen blocks into ``(input_ids, attention_mask)`` on ``device``."""
    ids, attention = pad_ids([blocks[i] for i in rows], pad_id)
    return ids.to(device), attention.to(device)


def masked_accuracy(
    model: Any,
    tokenizer: Any,
    blocks: Sequence[Sequence[int]],
    *,
    mlm_probability: float = 0.15,
    batch_size: int = 64,
    random_state: int = 0,
    show_progress: bool = False,
) -> dict[str, float]:
    """Held-out masked-token accuracy: top-1 and top-5 over a fixed, seeded 15 % of tokens.

    Every selected token is replaced by ``[MASK]`` (no random or kept tokens), so the score is
    the accuracy of filling a blank. The model is put in eval mode and restored afterwards.

    Parameters
    ----------
    model : transformers masked LM
    tokenizer : transformers tokenizer
    blocks : sequence of list of int
        Held-out blocks from :func:`pack_blocks`.
    mlm_probability : float, default 0.15
    batch_size : int, default 64
    random_state : int, default 0
        Seeds which tokens are masked (the same for every model compared).
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
                ids, attention = batch_tensors(blocks, rows, pad_id, device)
                gen = step_generator(random_state, start)
                inputs, labels = mask_tokens(
                    ids.cpu(),
                    attention.cpu(),
                    tokenizer=tokenizer,
                    generator=gen,
                    mlm_probability=mlm_probability,
                    replace_probabilities=(1.0, 0.0),
                )
                selected = (labels != -100).to(device)
                logits = masked_logits(model, inputs.to(device), attention, selected).float()
                truth = labels.to(device)[selected]
                top5 = logits.topk(min(5, logits.shape[-1]), dim=-1).indices
                hits1 += int((top5[:, 0] == truth).sum())
                hits5 += int((top5 == truth[:, None]).any(dim=-1).sum())
                loss_sum += float(torch.nn.functional.cross_entropy(logits, truth, reduction="sum"))
                n += int(truth.numel())
    finally:
        model.train(was_training)
    return {"top1": hits1 / n, "top5": hits5 / n, "loss": loss_sum / n, "n_masked": float(n)}


def split_indices(n: int, *, val_fraction: float, random_state: int) -> tuple[np.ndarray, ...]:
    """Seeded train/validation split of ``range(n)`` (at least one item on each side)."""
    checks.check_fraction(val_fraction, "val_fraction")
    if n < 2:
        raise ValueError(f"need at least 2 texts to split into train and validation, got {n}")
    order = np.random.default_rng(random_state).permutation(n)
    n_val = min(max(1, round(n * val_fraction)), n - 1)
    return np.sort(order[n_val:]), np.sort(order[:n_val])
