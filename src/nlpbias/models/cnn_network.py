"""The torch side of :class:`~nlpbias.models.cnn.CNNTextClassifier`: the network and one
epoch's training batches.

:class:`CNNNetwork` is the network described in :mod:`nlpbias.models.cnn`; :func:`epoch_batches`
cuts one epoch into (optionally length-bucketed) batches (also used by
:class:`~nlpbias.models.kim.KimCNNClassifier`, which inherits the training loop). The seeded
torch session is :func:`nlpbias.models.torch_utils.torch_session`.
"""

from __future__ import annotations

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

__all__ = ["BUCKET_CHUNK_BATCHES", "CNNNetwork", "epoch_batches"]

#: With ``bucket_by_length``, texts are sorted by length within chunks of this many batches.
BUCKET_CHUNK_BATCHES = 50


# --------------------------------------------------------------------------- the network
class CNNNetwork(nn.Module):
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


def epoch_batches(
    indices: np.ndarray,
    lengths: np.ndarray,
    *,
    batch_size: int,
    generator: torch.Generator,
    bucket_by_length: bool = False,
    chunk_batches: int = BUCKET_CHUNK_BATCHES,
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
    >>> batches = epoch_batches(np.arange(6), lengths, batch_size=2, generator=gen,
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
