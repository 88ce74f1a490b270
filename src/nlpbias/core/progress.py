"""One progress bar for the package: tqdm, switched off by the caller or by ``TQDM_DISABLE``.

tqdm reads ``TQDM_DISABLE`` only as a default, so an explicit ``disable=False`` from library code
would override it. The runner sets ``TQDM_DISABLE=1`` in the kernel because progress bars carry
timings, which would make two executions of a notebook differ; every bar in ``nlpbias`` therefore
goes through :func:`progress`, which honours both.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from typing import Any

from tqdm import tqdm

__all__ = ["disabled_by_env", "progress"]


def disabled_by_env() -> bool:
    """True when ``TQDM_DISABLE`` is set to a true value (1, true, yes, on)."""
    return os.environ.get("TQDM_DISABLE", "").strip().lower() in {"1", "true", "yes", "on"}


def progress(iterable: Iterable[Any] | None = None, *, enabled: bool = True, **kwargs: Any) -> tqdm:
    """A tqdm bar (the plain text one: no widget needed) unless disabled.

    Examples
    --------
    >>> bar = progress(range(3), enabled=False)
    >>> list(bar), bar.disable
    ([0, 1, 2], True)
    """
    return tqdm(iterable, disable=(not enabled) or disabled_by_env(), **kwargs)
