"""Intermediates that many tasks of the study's sweep share, computed once per worker process.

Every embedding of the grid is one task of :func:`nlpbias.core.sweep.run_sweep`, and many tasks
need the same inputs: the training corpus (read from the disk cache and hashed to find the
original embedding there), the original embedding that Attract-Repel modifies (12 tasks per
corpus and algorithm on ``paper``), the kinds of the corpus sentences for one balancing word
set (4 tasks), the GAP / WinoBias pairs and the Davidson split (every downstream model). A
process keeps such a value in memory after its first use (:func:`memo`), so a worker of the
sweep loads or computes each one once instead of once per task. The values are the ones the
tasks computed before, so every number is unchanged (``tests/studies/intrinsic_extrinsic/
test_intrinsic_extrinsic_worker_memo.py`` checks the memo's path against fresh computations).

Rules:

- A value is keyed by everything it is computed from: arguments, the names of data-home
  datasets (checked by their checksums when read, never changed in place) and, for word sets,
  their words, not their names; and, as a disk-cache entry is, by the code digest of this study
  (:func:`nlpbias.core.cache.code_digest`: the sources, the project's ``data/`` files and the
  library versions). So a value is computed again when a data file has changed since.
- Users do not modify a remembered value (the tests check the frames and lists are unchanged).
- At most :data:`LIMIT` values of each kind are kept (the oldest goes first);
  :func:`nlpbias.studies.intrinsic_extrinsic.study.run_study` empties the memo when it ends.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from typing import Any, TypeVar

import joblib

from nlpbias.core.cache import code_digest

__all__ = ["LIMIT", "clear_memo", "memo", "memo_keys"]

T = TypeVar("T")

#: Values kept per kind (the first element of a key).
LIMIT = 4

_MEMO: dict[str, tuple[tuple, Any]] = {}  # joblib.hash of (key, code digest) -> (key, value)


def memo(key: tuple[Hashable, ...], compute: Callable[[], T]) -> T:
    """``compute()``, or the value an earlier call with the same ``key`` computed in this process.

    Parameters
    ----------
    key : tuple
        ``(kind, ...)``: a kind name, then everything the value depends on.
    compute : callable
        Computes the value (called at most once per key while the value is kept).

    Returns
    -------
    object
        The remembered value; do not modify it.

    Examples
    --------
    >>> calls = []
    >>> def square():
    ...     calls.append(1)
    ...     return 9
    >>> memo(("doc", 3), square), memo(("doc", 3), square), len(calls)
    (9, 9, 1)
    >>> clear_memo()
    """
    if not isinstance(key, tuple) or not key:
        raise TypeError(f"key must be a non-empty tuple (kind, ...), got {key!r}")
    hashed = joblib.hash((key, code_digest(__name__)))
    if hashed in _MEMO:
        return _MEMO[hashed][1]
    value = compute()
    same_kind = [h for h, (k, _) in _MEMO.items() if k[0] == key[0]]
    for old in same_kind[: max(0, len(same_kind) - LIMIT + 1)]:
        del _MEMO[old]
    _MEMO[hashed] = (key, value)
    return value


def memo_keys() -> list[tuple]:
    """The keys of the values kept now, oldest first."""
    return [key for key, _ in _MEMO.values()]


def clear_memo() -> None:
    """Forget every remembered value of this process."""
    _MEMO.clear()
