"""Reproducibility helpers: one call to seed every generator, one way to build a numpy Generator."""

from __future__ import annotations

import logging
import os
import random

import numpy as np

from nlpbias.core.checks import check_int

__all__ = ["rng", "seed_everything"]

logger = logging.getLogger(__name__)

_MAX_SEED = 2**32 - 1  # numpy's legacy global seed must fit in 32 bits


def seed_everything(seed: int) -> None:
    """Seed Python's ``random``, numpy's global generator and torch (CPU and CUDA).

    Also sets ``PYTHONHASHSEED`` so that subprocesses (e.g. papermill kernels) hash strings the
    same way; the hash seed of the running interpreter cannot be changed after start-up.

    Parameters
    ----------
    seed : int
        A non-negative integer below 2**32.

    Examples
    --------
    >>> seed_everything(0)
    >>> a = np.random.rand()
    >>> seed_everything(0)
    >>> a == np.random.rand()
    True
    """
    seed = check_int(seed, "seed", minimum=0, maximum=_MAX_SEED)
    os.environ["PYTHONHASHSEED"] = str(seed)
    random.seed(seed)
    np.random.seed(seed)  # noqa: NPY002 -- seeding the legacy global state is the point
    try:
        import torch
    except ModuleNotFoundError:  # torch is a dependency, but keep repro usable without it
        logger.debug("torch not installed; seeded random and numpy only")
        return
    torch.manual_seed(seed)
    if torch.cuda.is_available():
        torch.cuda.manual_seed_all(seed)


def rng(
    random_state: None | int | np.random.Generator | np.random.RandomState = None,
) -> np.random.Generator:
    """Turn a ``random_state`` argument into a :class:`numpy.random.Generator`.

    Parameters
    ----------
    random_state : None, int, numpy.random.Generator or numpy.random.RandomState
        ``None``: a Generator seeded from numpy's global state, so :func:`seed_everything`
        makes it repeatable; ``int``: a fresh Generator with that seed; ``Generator``: returned
        as is (draws advance the caller's generator); ``RandomState``: a Generator seeded from
        a draw of it.

    Returns
    -------
    numpy.random.Generator

    Examples
    --------
    >>> rng(42).integers(0, 10, size=3).tolist() == rng(42).integers(0, 10, size=3).tolist()
    True
    """
    if random_state is None:
        seed = np.random.randint(0, _MAX_SEED, dtype=np.int64)  # noqa: NPY002 -- global state
        return np.random.default_rng(seed)
    if isinstance(random_state, np.random.Generator):
        return random_state
    if isinstance(random_state, np.random.RandomState):
        return np.random.default_rng(random_state.randint(0, _MAX_SEED, dtype=np.int64))
    if isinstance(random_state, bool) or not isinstance(random_state, int | np.integer):
        raise TypeError(
            "random_state must be None, a non-negative int or a numpy Generator, "
            f"got {type(random_state).__name__}"
        )
    return np.random.default_rng(check_int(random_state, "random_state", minimum=0))
