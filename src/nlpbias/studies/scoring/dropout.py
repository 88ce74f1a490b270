"""Dropout whose masks come from numpy's PCG64: fast on any CPU, and the same on every CPU.

Why not torch's own dropout? On a CPU, torch draws a dropout mask (``bernoulli_``) element by
element, on one thread, from its Mersenne Twister -- except on Intel CPUs in an MKL build,
where it seeds MKL's generator from that Twister and draws on all threads (``bernoulli_scalar``
in ATen's ``DistributionKernels.cpp`` checks the vendor). Two consequences for a masked-LM
training step of MiniLM (32 blocks of 128 tokens: 58 M mask elements, 38 M of them on the
attention probabilities):

* on an AMD CPU the masks take about a quarter of the step (4.6 ns per element on 2026-11-28's
  2-core AMD EPYC, 0.27 s of a 1.12 s step);
* the same seed gives other masks, hence other weights, on Intel and on AMD machines.

numpy's ``Generator.random(dtype=float32)`` draws the same numbers on every machine, at about
1.4 ns each (:func:`keep_draws` reads the same decisions from its raw bits, in 0.85 ns). The
distribution is torch's: an element is kept when its uniform draw on [0, 1)
(float32, steps of 2**-24) is at least ``p``, and kept elements are scaled by ``1 / (1 - p)``;
the backward pass multiplies by the same mask, as torch's does.

Use it around training steps::

    with numpy_dropout(model):          # swap nn.Dropout, route attention through here
        for step in steps:
            with dropout_seed(seed_of(step)):
                loss = model(...).loss

Within :func:`numpy_dropout` the model's ``nn.Dropout`` modules become :class:`NumpyDropout`
and its attention runs through :func:`attention_forward` (registered with transformers'
``AttentionInterface``): with dropout it computes attention in the eager way, dropping
probabilities with a numpy mask; without (evaluation) it is transformers' SDPA attention,
unchanged. On exit the model is as before. Only models whose attention follows transformers'
``AttentionInterface`` (BERT, MiniLM, RoBERTa, ...) can be used.
"""

from __future__ import annotations

import contextlib
import contextvars
import math
import sys
from collections.abc import Iterator
from typing import Any

import numpy as np
import torch
from torch import nn

from nlpbias.core.checks import check_number

__all__ = [
    "ATTENTION_NAME",
    "NumpyDropout",
    "attention_forward",
    "dropout_seed",
    "keep_draws",
    "masked_dropout",
    "numpy_dropout",
]

#: The name under which :func:`attention_forward` is registered with transformers.
ATTENTION_NAME = "nlpbias_numpy_dropout"

_RNG: contextvars.ContextVar[np.random.Generator | None] = contextvars.ContextVar(
    "nlpbias_dropout_rng", default=None
)


@contextlib.contextmanager
def dropout_seed(seed: int) -> Iterator[np.random.Generator]:
    """Within the block, dropout masks are drawn from ``PCG64(seed)``, in call order.

    Examples
    --------
    >>> x = torch.ones(2, 4)
    >>> with dropout_seed(3):
    ...     a = masked_dropout(x, 0.5, training=True)
    >>> with dropout_seed(3):
    ...     b = masked_dropout(x, 0.5, training=True)
    >>> torch.equal(a, b)
    True
    """
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ValueError(f"the dropout seed must be a non-negative integer, got {seed!r}")
    generator = np.random.Generator(np.random.PCG64(int(seed)))
    token = _RNG.set(generator)
    try:
        yield generator
    finally:
        _RNG.reset(token)


def _scaled_keep_mask(x: torch.Tensor, p: float) -> torch.Tensor:
    """``1 / (1 - p)`` where an element is kept, 0 where dropped; ``x``'s shape, dtype, device."""
    rng = _RNG.get()
    if rng is None:
        raise RuntimeError(
            "numpy dropout ran in training mode without a seed: wrap the forward pass in "
            "nlpbias.studies.scoring.dropout.dropout_seed(seed), or call model.eval()"
        )
    keep = torch.from_numpy(keep_draws(rng, math.prod(x.shape), p)).view(x.shape)
    return keep.to(device=x.device, dtype=x.dtype).mul_(1.0 / (1.0 - p))


def keep_draws(rng: np.random.Generator, n: int, p: float) -> np.ndarray:
    """``rng.random(n, dtype=np.float32) >= np.float32(p)``, and ``rng`` left in the same state.

    numpy makes a float32 uniform from the next 32 random bits ``u`` as ``(u >> 8) * 2**-24``,
    and PCG64 gives 32 bits as the low, then the high half of each 64-bit output. So the
    comparison is ``u >= ceil(float32(p) * 2**24) << 8`` on the raw outputs read as pairs of
    little-endian 32-bit integers: the same booleans without making the floats, in 0.85 ns an
    element against 1.4 ns (58 M elements a masked-LM step; 2026-11-28's AMD EPYC). Where that
    reading does not hold (another bit generator, a big-endian machine, an odd ``n``, or half a
    64-bit output left from an earlier odd draw) the floats are drawn as before.
    """
    bits = rng.bit_generator
    threshold = math.ceil(float(np.float32(p)) * 2**24) << 8
    if (
        n % 2
        or threshold >= 2**32  # float32(p) is 1
        or sys.byteorder != "little"
        or type(bits) is not np.random.PCG64
        or bits.state["has_uint32"]
    ):
        return np.greater_equal(rng.random(n, dtype=np.float32), np.float32(p))
    return np.greater_equal(bits.random_raw(n // 2).view(np.uint32), np.uint32(threshold))


def _probability(p: object) -> float:
    return check_number(p, "dropout probability", low=0.0, high=1.0)


def masked_dropout(x: torch.Tensor, p: float, *, training: bool) -> torch.Tensor:
    """Inverted dropout with the mask drawn from the generator of :func:`dropout_seed`."""
    p = _probability(p)
    if not training or p == 0.0:
        return x
    if p == 1.0:
        return x * 0.0
    return x * _scaled_keep_mask(x, p)


class NumpyDropout(nn.Module):
    """Drop-in for :class:`torch.nn.Dropout` drawing from :func:`dropout_seed`'s generator."""

    def __init__(self, p: float = 0.5) -> None:
        super().__init__()
        self.p = _probability(p)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return masked_dropout(x, self.p, training=self.training)

    def extra_repr(self) -> str:
        return f"p={self.p}"


def attention_forward(
    module: nn.Module,
    query: torch.Tensor,
    key: torch.Tensor,
    value: torch.Tensor,
    attention_mask: torch.Tensor | None,
    scaling: float | None = None,
    dropout: float = 0.0,
    **kwargs: Any,
) -> tuple[torch.Tensor, torch.Tensor | None]:
    """Transformers attention function: SDPA without dropout, eager with a numpy-drawn one.

    ``query``/``key``/``value`` are ``(batch, heads, length, head_dim)``; ``attention_mask``
    is SDPA's (boolean, True = attend; additive float; or None). Returns ``(output, weights)``
    with the output as ``(batch, length, heads, head_dim)``, as transformers expects.
    """
    from transformers.integrations.sdpa_attention import sdpa_attention_forward

    if dropout == 0.0 or not module.training:
        return sdpa_attention_forward(
            module, query, key, value, attention_mask, scaling=scaling, dropout=0.0, **kwargs
        )
    if getattr(module, "is_causal", False) or key.shape[1] != query.shape[1]:
        raise ValueError(
            "numpy dropout supports bidirectional attention with as many key as query heads "
            "(BERT-like encoders); train this model without numpy_dropout"
        )
    scale = query.shape[-1] ** -0.5 if scaling is None else scaling
    scores = torch.matmul(query, key.transpose(2, 3)) * scale
    if attention_mask is not None:
        if attention_mask.dtype == torch.bool:
            scores = scores.masked_fill(~attention_mask, torch.finfo(scores.dtype).min)
        else:
            scores = scores + attention_mask
    weights = masked_dropout(torch.softmax(scores, dim=-1), dropout, training=True)
    output = torch.matmul(weights.to(value.dtype), value)
    return output.transpose(1, 2).contiguous(), weights


def _register() -> None:
    from transformers import AttentionInterface
    from transformers.masking_utils import AttentionMaskInterface, sdpa_mask

    AttentionInterface.register(ATTENTION_NAME, attention_forward)
    AttentionMaskInterface.register(ATTENTION_NAME, sdpa_mask)


@contextlib.contextmanager
def numpy_dropout(model: nn.Module) -> Iterator[nn.Module]:
    """Within the block, ``model``'s dropout draws its masks from :func:`dropout_seed`.

    Every ``nn.Dropout`` submodule is replaced by a :class:`NumpyDropout` of the same ``p``
    and the attention implementation is set to :data:`ATTENTION_NAME`; both are restored on
    exit, so a model saved afterwards is saved as it came.
    """
    config = getattr(model, "config", None)
    if config is None or not hasattr(model, "set_attn_implementation"):
        raise TypeError(
            f"numpy_dropout needs a transformers model with set_attn_implementation, got "
            f"{type(model).__name__}"
        )
    _register()
    swapped = [
        (parent, name, child)
        for parent in model.modules()
        for name, child in parent.named_children()
        if type(child) is nn.Dropout
    ]
    previous = config._attn_implementation
    for parent, name, child in swapped:
        replacement = NumpyDropout(child.p)
        replacement.train(child.training)
        setattr(parent, name, replacement)
    model.set_attn_implementation(ATTENTION_NAME)
    try:
        yield model
    finally:
        model.set_attn_implementation(previous)
        for parent, name, child in swapped:
            child.train(getattr(parent, name).training)
            setattr(parent, name, child)
