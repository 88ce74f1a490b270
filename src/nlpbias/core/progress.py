"""One progress bar for the package: tqdm, switched off by the caller or by ``TQDM_DISABLE``.

tqdm reads ``TQDM_DISABLE`` only as a default, so an explicit ``disable=False`` from library code
would override it. The runner sets ``TQDM_DISABLE=1`` in the kernel because progress bars carry
timings, which would make two executions of a notebook differ; every bar in ``nlpbias`` therefore
goes through :func:`progress`, which honours both.

Importing this module also imports ``tqdm.auto`` once without its widget warning (see
:func:`import_tqdm_auto_quietly`), so that transformers and huggingface_hub, which import it when
they load a model, print no ``TqdmWarning: IProgress not found`` into a chapter.
"""

from __future__ import annotations

import os
import warnings
from collections.abc import Iterable
from typing import Any

from tqdm import TqdmWarning, tqdm

__all__ = ["disabled_by_env", "import_tqdm_auto_quietly", "progress"]


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


def import_tqdm_auto_quietly() -> None:
    """Import ``tqdm.auto`` without the warning it gives in a kernel that lacks ipywidgets.

    In a Jupyter kernel, the first import of ``tqdm.auto`` looks for the widget bar; without
    ipywidgets it warns ``TqdmWarning: IProgress not found. Please update jupyter and ipywidgets``
    on stderr, which lands in the output of the cell that loaded a Hugging Face model, and falls
    back to the text bar. The package uses only the text bar (and the runner turns bars off in the
    kernel), so the warning says nothing to a reader: this first import ignores exactly it, and
    every later import finds the module loaded. Other warnings pass as usual.

    Examples
    --------
    >>> import sys
    >>> import_tqdm_auto_quietly()
    >>> "tqdm.auto" in sys.modules
    True
    """
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="IProgress not found", category=TqdmWarning)
        import tqdm.auto  # noqa: F401


import_tqdm_auto_quietly()
