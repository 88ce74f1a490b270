"""Masked-language-model bias scores: Kurita et al.'s (2019) increased log probability.

Kurita's score for a target ``t`` (e.g. ``he``), an attribute ``a`` (e.g. ``programmer``) and a
template ``τ`` (e.g. ``"[TARGET] is a [ATTRIBUTE]."``)::

    p_tgt   = P(t at the target mask | τ with t masked and a filled in)
    p_prior = P(t at the target mask | τ with t masked and a masked too)
    score   = log p_tgt - log p_prior

Conventions
-----------
- **Mask positions come from the tokenizer**: the sentence is tokenised and the masks are the
  positions whose id is ``tokenizer.mask_token_id``. Nothing is found by counting words, which
  is how the original code went wrong (its index helper is off by one in one branch: a word
  before the slot that splits into several word pieces, or the ``[CLS]`` token, shifts the
  position). The target's masks are the first ones when ``[TARGET]`` precedes ``[ATTRIBUTE]``
  in the template, the last ones otherwise.
- **Targets of several word pieces** (rule ``multi_piece="sum"``, the default): a target of
  ``k`` pieces (tokenised on its own, without special tokens) is replaced by ``k`` consecutive
  ``[MASK]`` tokens, and ``log P(t)`` is the *sum* of the log-probabilities of its pieces, each
  read at its own mask position from one forward pass (all ``k`` masks present at once). The
  prior uses the same ``k`` masks, so the score of a one-piece target is exactly Kurita's.
  ``multi_piece="drop"`` keeps only one-piece targets and logs which were dropped;
  ``multi_piece="raise"`` raises on the first multi-piece target. The ``n_pieces`` column of
  :func:`kurita_scores` shows how each target was scored. Pieces are those of the word
  tokenised alone; for byte-level BPE tokenizers (RoBERTa, GPT-style) whose pieces depend on a
  leading space, pass the words as the tokenizer sees them mid-sentence (e.g. ``" he"``).
- **Masked attribute** in the prior sentence: as many ``[MASK]`` tokens as the attribute has
  word pieces (one for a one-piece attribute, as in Kurita's code), so both sentences have the
  same length.
- The model is put in eval mode (dropout off) and run under ``torch.no_grad()``; its previous
  mode is restored afterwards. Inputs go to the device of the model's first parameter.

From scores to bias (Dong's bias, Kurita's effect size, bootstrap intervals) is
:mod:`nlpbias.studies.scoring.effects`.
"""

from __future__ import annotations

import itertools
import logging
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from nlpbias.core.checks import check_choice, check_int

__all__ = [
    "ATTRIBUTE_SLOT",
    "SCORE_COLUMNS",
    "TARGET_SLOT",
    "check_words",
    "kurita_scores",
    "mask_positions",
]

log = logging.getLogger(__name__)

TARGET_SLOT = "[TARGET]"
ATTRIBUTE_SLOT = "[ATTRIBUTE]"
SCORE_COLUMNS = (
    "template",
    "target",
    "attribute",
    "n_pieces",
    "log_p_target",
    "log_p_prior",
    "score",
)
_MULTI_PIECE = ("sum", "drop", "raise")


def _mask_id(tokenizer: Any) -> int:
    mask_id = getattr(tokenizer, "mask_token_id", None)
    if mask_id is None or getattr(tokenizer, "mask_token", None) is None:
        raise ValueError(
            f"tokenizer {type(tokenizer).__name__} has no mask token; use the tokenizer of a "
            "masked language model (e.g. BERT's)"
        )
    return int(mask_id)


def _ids(encoded: Any) -> Any:
    return encoded["input_ids"]


def mask_positions(tokenizer: Any, texts: Sequence[str]) -> list[list[int]]:
    """Token positions of the mask token in each text, as the tokenizer sees them.

    Parameters
    ----------
    tokenizer : HF-style tokenizer
        Callable on a list of strings, returning ``input_ids``; must have ``mask_token`` and
        ``mask_token_id``. Special tokens (e.g. ``[CLS]``) are added, so positions index the
        model's input.
    texts : sequence of str
        Sentences containing ``tokenizer.mask_token``.

    Returns
    -------
    list of list of int
        For each text, the positions ``i`` with ``input_ids[i] == mask_token_id``, ascending.

    Examples
    --------
    >>> from transformers import BertTokenizerFast  # doctest: +SKIP
    >>> mask_positions(tok, ["[MASK] is a programmer."])  # doctest: +SKIP
    [[1]]
    """
    if isinstance(texts, str):
        raise TypeError("texts must be a sequence of strings, got one str; wrap it in a list")
    mask_id = _mask_id(tokenizer)
    texts = list(texts)
    if not texts:
        return []
    ids = _ids(tokenizer(texts, padding=True, return_tensors="pt"))
    return [[int(i) for i in (row == mask_id).nonzero().flatten().tolist()] for row in ids]


def _check_template(template: object) -> str:
    if not isinstance(template, str):
        raise TypeError(f"template must be a str, got {type(template).__name__}")
    for slot in (TARGET_SLOT, ATTRIBUTE_SLOT):
        if template.count(slot) != 1:
            raise ValueError(
                f"template {template!r} has {template.count(slot)} {slot} slots; "
                f"write exactly one {TARGET_SLOT} and one {ATTRIBUTE_SLOT}"
            )
    return template


def check_words(words: object, name: str) -> list[str]:
    """``words`` as a list: non-empty, distinct, non-blank strings (not one str)."""
    if isinstance(words, str) or not isinstance(words, Sequence):
        raise TypeError(f"{name} must be a list of strings, got {type(words).__name__}")
    out = list(words)
    if not out:
        raise ValueError(f"{name} is empty; pass at least one word")
    for w in out:
        if not isinstance(w, str) or not w.strip():
            raise ValueError(f"{name} contains an empty or non-str entry {w!r}; remove it")
    if len(set(out)) != len(out):
        raise ValueError(f"{name} contains duplicates; pass each word once")
    return out


def _pieces(tokenizer: Any, word: str) -> list[int]:
    ids = list(_ids(tokenizer(word, add_special_tokens=False)))
    ids = [int(i) for i in ids]
    unk = getattr(tokenizer, "unk_token_id", None)
    if not ids:
        raise ValueError(f"{word!r} tokenises to no word piece; pass a real word")
    if unk is not None and int(unk) in ids:
        raise ValueError(f"{word!r} tokenises to the unknown token; drop it or use another model")
    return ids


def _fill(template: str, target: str, attribute: str) -> str:
    return template.replace(TARGET_SLOT, target).replace(ATTRIBUTE_SLOT, attribute)


def _log_probs(
    model: Any,
    tokenizer: Any,
    texts: list[str],
    first: list[bool],
    n_masks: list[int],
    *,
    batch_size: int,
) -> list[Any]:
    """Log-softmax rows (n_masks, vocab) at the target masks of each text."""
    import torch

    from nlpbias.studies.scoring.mlm import masked_logits

    mask_id = _mask_id(tokenizer)
    try:
        device = next(model.parameters()).device
    except (AttributeError, StopIteration):
        device = torch.device("cpu")
    out: list[Any] = []
    for start in range(0, len(texts), batch_size):
        enc = tokenizer(texts[start : start + batch_size], padding=True, return_tensors="pt")
        ids = enc["input_ids"]
        selected = torch.zeros_like(ids, dtype=torch.bool)
        counts = []
        for row in range(ids.shape[0]):
            k = start + row
            pos = (ids[row] == mask_id).nonzero().flatten()
            n = n_masks[k]
            if pos.numel() < n:
                raise ValueError(
                    f"found {pos.numel()} mask tokens in {texts[k]!r}, expected at least {n}; "
                    "the template must not break the mask token apart"
                )
            selected[row, pos[:n] if first[k] else pos[pos.numel() - n :]] = True
            counts.append(n)
        # vocabulary logits at the target masks only (BERT: the output layer runs there alone)
        logits = masked_logits(
            model, ids.to(device), enc["attention_mask"].to(device), selected.to(device)
        )
        logp = torch.log_softmax(logits.float(), dim=-1).cpu()
        out.extend(torch.split(logp, counts))
    return out


def kurita_scores(
    model: Any,
    tokenizer: Any,
    templates: Sequence[str],
    targets: Sequence[str],
    attributes: Sequence[str],
    *,
    batch_size: int = 32,
    multi_piece: str = "sum",
) -> pd.DataFrame:
    """Kurita's increased log probability for every template × target × attribute.

    Parameters
    ----------
    model : torch.nn.Module
        A masked LM: ``model(input_ids=..., attention_mask=...)`` returns ``.logits`` (or a
        tensor) of shape ``(batch, seq, vocab)``. Set to eval mode while scoring, then restored.
    tokenizer : HF-style tokenizer
        With a mask token; called as ``tokenizer(texts, padding=True, return_tensors="pt")``.
    templates : sequence of str
        Each with exactly one ``[TARGET]`` and one ``[ATTRIBUTE]`` slot.
    targets, attributes : sequence of str
        Target words (e.g. ``he``, ``she``) and attribute words (e.g. ``programmer``).
    batch_size : int, default 32
        Sentences per forward pass.
    multi_piece : {"sum", "drop", "raise"}, default "sum"
        What to do with targets of several word pieces (see the module docstring).

    Returns
    -------
    pandas.DataFrame
        Columns :data:`SCORE_COLUMNS`: ``template, target, attribute, n_pieces, log_p_target,
        log_p_prior, score`` (natural logs), rows in template, target, attribute order.

    Raises
    ------
    ValueError
        A template without exactly one of each slot, a tokenizer without a mask token, an empty
        or unknown-token target/attribute, bad ``batch_size``/``multi_piece``, or no targets left.

    Examples
    --------
    >>> df = kurita_scores(model, tok, ["[TARGET] is a [ATTRIBUTE]."], ["he", "she"],
    ...                    ["programmer"])  # doctest: +SKIP
    >>> list(df.columns)  # doctest: +SKIP
    ['template', 'target', 'attribute', 'n_pieces', 'log_p_target', 'log_p_prior', 'score']
    """
    import torch

    if isinstance(templates, str):
        raise TypeError("templates must be a list of strings, got one str; wrap it in a list")
    templates = [_check_template(t) for t in templates]
    if not templates:
        raise ValueError("templates is empty; pass at least one template")
    targets = check_words(targets, "targets")
    attributes = check_words(attributes, "attributes")
    batch_size = check_int(batch_size, "batch_size", minimum=1)
    check_choice(multi_piece, "multi_piece", _MULTI_PIECE)
    _mask_id(tokenizer)
    mask = str(tokenizer.mask_token)
    for t in templates:
        if mask in t:
            raise ValueError(f"template {t!r} contains the mask token {mask!r}; use the slots")

    t_pieces = {t: _pieces(tokenizer, t) for t in targets}
    multi = [t for t in targets if len(t_pieces[t]) > 1]
    if multi and multi_piece == "raise":
        raise ValueError(
            f"target {multi[0]!r} splits into {len(t_pieces[multi[0]])} word pieces; pass "
            "multi_piece='sum' to sum piece log-probs or 'drop' to skip such targets"
        )
    if multi and multi_piece == "drop":
        log.warning("kurita_scores: dropped multi-piece targets %s", multi)
        targets = [t for t in targets if t not in multi]
        if not targets:
            raise ValueError("every target splits into several word pieces; use 'sum'")
    a_len = {a: len(_pieces(tokenizer, a)) for a in attributes}
    lengths = sorted({len(t_pieces[t]) for t in targets})

    # One sentence per (template, attribute, k pieces, prior?), shared by all targets with k.
    keys: list[tuple[str, str, int, bool]] = []
    texts: list[str] = []
    first: list[bool] = []
    for tpl, attr, k in itertools.product(templates, attributes, lengths):
        t_first = tpl.index(TARGET_SLOT) < tpl.index(ATTRIBUTE_SLOT)
        masks = " ".join([mask] * k)
        for prior in (False, True):
            filled = " ".join([mask] * a_len[attr]) if prior else attr
            keys.append((tpl, attr, k, prior))
            texts.append(_fill(tpl, masks, filled))
            first.append(t_first)
    n_masks = [k for (_, _, k, _) in keys]
    # the prior sentence of a template is the same for every attribute of the same length
    unique = {text: i for i, text in reversed(list(enumerate(texts)))}
    order = sorted(unique.values())

    was_training = bool(getattr(model, "training", False))
    model.eval()
    try:
        with torch.no_grad():
            rows = _log_probs(
                model,
                tokenizer,
                [texts[i] for i in order],
                [first[i] for i in order],
                [n_masks[i] for i in order],
                batch_size=batch_size,
            )
    finally:
        model.train(was_training)
    by_text = {texts[i]: r for i, r in zip(order, rows, strict=True)}
    table = {key: by_text[text] for key, text in zip(keys, texts, strict=True)}

    records = []
    for tpl, tgt, attr in itertools.product(templates, targets, attributes):
        ids = t_pieces[tgt]
        k = len(ids)
        idx = torch.arange(k)
        piece = torch.tensor(ids)
        lp_t = float(table[(tpl, attr, k, False)][idx, piece].double().sum())
        lp_p = float(table[(tpl, attr, k, True)][idx, piece].double().sum())
        records.append((tpl, tgt, attr, k, lp_t, lp_p, lp_t - lp_p))
    df = pd.DataFrame.from_records(records, columns=list(SCORE_COLUMNS))
    if not np.all(np.isfinite(df[["log_p_target", "log_p_prior"]].to_numpy())):
        raise ValueError("some log-probabilities are infinite; the model gives probability 0")
    return df
