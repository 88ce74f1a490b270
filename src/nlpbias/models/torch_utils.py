"""Small torch helpers shared by the book's trainers (classifiers, fine-tuning, masked LMs)."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Sequence

import torch

__all__ = ["pad_ids", "torch_session"]


def pad_ids(blocks: Sequence[Sequence[int]], pad_id: int) -> tuple[torch.Tensor, torch.Tensor]:
    """Right-pad token-id lists into ``(input_ids, attention_mask)`` tensors (on the CPU)."""
    width = max(len(b) for b in blocks)
    ids = torch.full((len(blocks), width), pad_id, dtype=torch.long)
    attention = torch.zeros((len(blocks), width), dtype=torch.long)
    for row, block in enumerate(blocks):
        ids[row, : len(block)] = torch.as_tensor(block, dtype=torch.long)
        attention[row, : len(block)] = 1
    return ids, attention


@contextlib.contextmanager
def torch_session(seed: int, device: torch.device, n_threads: int | None) -> Iterator[None]:
    """Seed torch inside a forked RNG state, make CPU kernels deterministic, set threads.

    Everything is restored on exit (threads, deterministic algorithms, cuDNN flags, the RNG).
    """
    devices = [device.index or 0] if device.type == "cuda" else []
    old_threads = torch.get_num_threads()
    old_det = torch.are_deterministic_algorithms_enabled()
    old_cudnn = torch.backends.cudnn.deterministic, torch.backends.cudnn.benchmark
    with torch.random.fork_rng(devices=devices):
        try:
            torch.manual_seed(seed)
            if n_threads is not None:
                torch.set_num_threads(n_threads)
            if device.type == "cpu":
                torch.use_deterministic_algorithms(True)
            else:
                torch.backends.cudnn.deterministic, torch.backends.cudnn.benchmark = True, False
            yield
        finally:
            torch.set_num_threads(old_threads)
            torch.use_deterministic_algorithms(old_det)
            torch.backends.cudnn.deterministic, torch.backends.cudnn.benchmark = old_cudnn
