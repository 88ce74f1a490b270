"""Small torch helpers shared by the book's trainers (classifiers, fine-tuning, masked LMs)."""

from __future__ import annotations

from collections.abc import Sequence

import torch

__all__ = ["pad_ids"]


def pad_ids(blocks: Sequence[Sequence[int]], pad_id: int) -> tuple[torch.Tensor, torch.Tensor]:
    """Right-pad token-id lists into ``(input_ids, attention_mask)`` tensors (on the CPU)."""
    width = max(len(b) for b in blocks)
    ids = torch.full((len(blocks), width), pad_id, dtype=torch.long)
    attention = torch.zeros((len(blocks), width), dtype=torch.long)
    for row, block in enumerate(blocks):
        ids[row, : len(block)] = torch.as_tensor(block, dtype=torch.long)
        attention[row, : len(block)] = 1
    return ids, attention
