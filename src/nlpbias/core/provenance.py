"""Which project data files the running cached computations read.

A cached call (:func:`nlpbias.core.cache.cached`) opens a *recording* while it computes. Every
read of the project's ``data/`` folder goes through :mod:`nlpbias.core.paths`, which notes the
file (``{key: sha256}``, the key being ``data/<relative path>``) into **every** recording open
in this context: a nested cached call's files are also its callers' files. The cache stores a
call's files with its result, and a stored result counts only while every file still has the
digest it had.

Recordings live in a :class:`contextvars.ContextVar`, so threads and processes start without
one; :func:`nlpbias.core.sweep.run_sweep` opens a recording around each task in the worker and
notes what it returns into the caller's recordings.

Examples
--------
>>> with recording() as outer:
...     with recording() as inner:
...         note({"data/groups/gender_words.yaml": "ab12"})
>>> outer == inner == {"data/groups/gender_words.yaml": "ab12"}
True
>>> is_recording()
False
"""

from __future__ import annotations

import contextlib
import contextvars
from collections.abc import Iterator, Mapping

__all__ = ["is_recording", "note", "recording"]

_OPEN: contextvars.ContextVar[tuple[dict[str, str], ...]] = contextvars.ContextVar(
    "nlpbias_recordings", default=()
)


@contextlib.contextmanager
def recording() -> Iterator[dict[str, str]]:
    """Collect the data files noted while the block runs (nested recordings see them too).

    Yields
    ------
    dict
        ``{key: sha256}``, filled as files are noted; complete when the block ends.
    """
    files: dict[str, str] = {}
    token = _OPEN.set((*_OPEN.get(), files))
    try:
        yield files
    finally:
        _OPEN.reset(token)


def is_recording() -> bool:
    """Whether a recording is open in this context (else noting a file costs nothing)."""
    return bool(_OPEN.get())


def note(files: Mapping[str, str]) -> None:
    """Add ``{key: sha256}`` entries to every open recording (nothing happens without one).

    Parameters
    ----------
    files : mapping of str to str
        Keys as :func:`nlpbias.core.paths.record_file` makes them, values their sha256.
    """
    if not isinstance(files, Mapping):
        raise TypeError(f"files must be a mapping of path keys to sha256, got {files!r}")
    for open_recording in _OPEN.get():
        open_recording.update(files)
