"""Intermediates that many tasks of the study's sweep share, computed once per process.

Every embedding of the grid is one task of :func:`nlpbias.core.sweep.run_sweep`, and many tasks
need the same inputs: the training corpus (read from the disk cache and hashed to find the
original embedding there), the original embedding that Attract-Repel modifies (12 tasks per
corpus and algorithm on ``paper``), the kinds of the corpus sentences for one balancing word
set (4 tasks), the GAP / WinoBias pairs and the Davidson split (every downstream model). A
process keeps such a value in memory after its first use (:func:`shared`), so a worker of the
sweep loads or computes each one once instead of once per task. The values are the ones the
tasks computed before, so every number is unchanged (``tests/studies/intrinsic_extrinsic/
test_intrinsic_extrinsic_shared.py`` checks the shared path against fresh computations).

Rules:

- A value is keyed by everything it is computed from: arguments, the names of data-home
  datasets (checked by their checksums when read, never changed in place) and, for word sets,
  their words, not their names.
- The project data files (``data/``) read while computing a value are noted again into the
  recordings of every later task that uses it (:mod:`nlpbias.core.provenance`), so each task's
  cache entry lists the same files as before; and a value is computed again when one of those
  files has changed since (as a disk-cache entry would be).
- Users do not modify a shared value (the tests check the frames and lists are unchanged).
- At most :data:`LIMIT` values of each kind are kept (the oldest goes first);
  :func:`nlpbias.studies.intrinsic_extrinsic.study.run_study` empties the store when it ends.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from typing import Any, TypeVar

from nlpbias.core.paths import recorded_digest
from nlpbias.core.provenance import note, recording

__all__ = ["LIMIT", "clear_shared", "shared", "shared_keys"]

T = TypeVar("T")

#: Values kept per kind (the first element of a key).
LIMIT = 4

_STORE: dict[tuple, tuple[Any, dict[str, str]]] = {}


def _fresh(files: dict[str, str]) -> bool:
    return all(recorded_digest(key) == digest for key, digest in files.items())


def shared(key: tuple[Hashable, ...], compute: Callable[[], T]) -> T:
    """``compute()``, or the value an earlier call with the same ``key`` computed in this process.

    Parameters
    ----------
    key : tuple
        ``(kind, ...)``: a kind name, then everything the value depends on (hashable).
    compute : callable
        Computes the value (called at most once per key while the value is kept).

    Returns
    -------
    object
        The shared value; do not modify it.

    Examples
    --------
    >>> calls = []
    >>> def square():
    ...     calls.append(1)
    ...     return 9
    >>> shared(("doc", 3), square), shared(("doc", 3), square), len(calls)
    (9, 9, 1)
    >>> clear_shared()
    """
    if not isinstance(key, tuple) or not key:
        raise TypeError(f"key must be a non-empty tuple (kind, ...), got {key!r}")
    kept = _STORE.get(key)
    if kept is not None and _fresh(kept[1]):
        note(kept[1])
        return kept[0]
    with recording() as files:  # nested: the caller's recordings see the files too
        value = compute()
    same_kind = [k for k in _STORE if k[0] == key[0] and k != key]
    for old in same_kind[: max(0, len(same_kind) - LIMIT + 1)]:
        del _STORE[old]
    _STORE[key] = (value, dict(files))
    return value


def shared_keys() -> list[tuple]:
    """The keys of the values kept now, oldest first."""
    return list(_STORE)


def clear_shared() -> None:
    """Forget every shared value of this process."""
    _STORE.clear()
