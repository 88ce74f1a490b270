"""One run of a chapter at a time: the lock file ``<chapter>.lock`` beside its executed notebook.

Two ``nlpbias run`` commands of one chapter in one checkout would write the same
``_build/notebooks/<chapter>.ipynb``. :func:`chapter_lock` creates ``<chapter>.lock`` (with
``O_EXCL``, so only one process can) holding the process id, host, profile and start time of the
run, and removes it when the run ends. A second run finds it and stops with one line that names
the process holding it; a lock whose process no longer exists (a run that was killed) is taken
over, with a warning.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import socket
import time
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path
from typing import Any

__all__ = ["LockError", "chapter_lock"]

log = logging.getLogger(__name__)


class LockError(Exception):
    """A run of the same chapter holds the lock; the message says which and what to do."""


def _read_lock(lock: Path) -> dict[str, Any] | None:
    """The holder recorded in a lock file, or None when it cannot be read (yet)."""
    try:
        holder = json.loads(lock.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return holder if isinstance(holder, dict) else None


def _holder_alive(holder: dict[str, Any] | None, lock: Path) -> bool:
    """Whether the process that wrote a lock still runs (a lock of another host: assume so)."""
    if holder is None:  # being written right now, or garbage: stale once it is a minute old
        with contextlib.suppress(OSError):
            return time.time() - lock.stat().st_mtime < 60
        return False
    if holder.get("host") != socket.gethostname():
        return True
    try:
        os.kill(int(holder["pid"]), 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # it exists, under another user
        return True
    except (KeyError, TypeError, ValueError, OverflowError):
        return False
    return True


@contextlib.contextmanager
def chapter_lock(output: Path, study: str, profile: str) -> Iterator[Path]:
    """Hold ``<chapter>.lock`` beside ``output`` while a chapter runs.

    Raises :class:`RunnerError` (one line: which process holds it, since when, the lock file)
    when a live process holds it; takes over the lock of a process that no longer exists.
    """
    lock = output.with_suffix(".lock")
    me = {
        "pid": os.getpid(),
        "host": socket.gethostname(),
        "study": study,
        "profile": profile,
        "started": datetime.now().isoformat(timespec="seconds"),
    }
    for _ in range(3):
        try:
            fd = os.open(lock, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644)
        except FileExistsError:
            holder = _read_lock(lock)
            if _holder_alive(holder, lock):
                who = holder or {}
                raise LockError(
                    f"study '{study}' is already running into {output.parent}: process "
                    f"{who.get('pid', '?')} (profile {who.get('profile', '?')}, started "
                    f"{who.get('started', '?')}) holds {lock}; wait for it to end, or delete "
                    "the lock file if that process is gone"
                ) from None
            gone = (holder or {}).get("pid")
            log.warning("taking over %s: process %s no longer runs", lock, gone)
            lock.unlink(missing_ok=True)
            continue
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            json.dump(me, fh)
        break
    else:
        raise LockError(f"could not take the lock {lock}: other runs keep taking it; try again")
    try:
        yield lock
    finally:
        if (_read_lock(lock) or {}).get("pid") == os.getpid():
            lock.unlink(missing_ok=True)
