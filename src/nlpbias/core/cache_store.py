"""The cache folder on disk: one folder per stored result, written atomically, grouped by study.

Layout under the cache folder (:func:`nlpbias.core.cache.cache_dir`)::

    <study>/<module>.<qualname>/<key>/output.pkl   the result (joblib.dump)
    <study>/<module>.<qualname>/<key>/meta.json    what it was computed from (see below)
    <study>/models/<name>-<key>/                   model folders built outside @cached

``<study>`` is ``s`` for code in ``nlpbias.studies.<s>``, else ``shared``. ``meta.json`` holds
the function, study, key, created and last-used times (UTC), compute seconds, code digest, the
import closure's module list, package versions, the project data files read with their sha256,
and the size of ``output.pkl``.

An entry is written into a temporary folder beside its final place and renamed into it, so
several processes may compute the same entry at once: a reader never sees part of an entry (an
entry replaced while it is being read is a miss).
:func:`read_entry` only ever unpickles ``output.pkl`` files that this module wrote into the
cache folder; an entry that cannot be read raises :class:`EntryError`, which the cache turns
into a warning and a recomputation.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import tempfile
import uuid
from collections.abc import Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from nlpbias.core.paths import package_dir

__all__ = [
    "META_FILE",
    "MODELS",
    "OUTPUT_FILE",
    "SHARED",
    "CacheError",
    "EntryError",
    "clear_folder",
    "entry_folder",
    "known_studies",
    "now",
    "read_entry",
    "read_meta",
    "study_of",
    "summarise_folder",
    "touch_entry",
    "write_entry",
]

OUTPUT_FILE = "output.pkl"
META_FILE = "meta.json"
SHARED = "shared"
#: Group folder (beside the function folders of a study) of models built outside ``@cached``.
MODELS = "models"
_UNSAFE = re.compile(r"[^A-Za-z0-9_.-]+")


class CacheError(ValueError):
    """A request about the cache folder cannot be met; the message says what to pass instead."""


class EntryError(OSError):
    """A stored entry is missing a file, truncated or unreadable."""


def now() -> str:
    """The current UTC time as an ISO 8601 string (seconds)."""
    return datetime.now(UTC).isoformat(timespec="seconds")


def study_of(module_name: str) -> str:
    """``s`` for a module of ``nlpbias.studies.<s>``, else ``"shared"``.

    Examples
    --------
    >>> study_of("nlpbias.studies.pinned_auc.study"), study_of("nlpbias.models.training")
    ('pinned_auc', 'shared')
    """
    parts = module_name.split(".")
    if len(parts) >= 3 and parts[:2] == ["nlpbias", "studies"]:
        return parts[2]
    return SHARED


def known_studies() -> list[str]:
    """The study packages of ``nlpbias.studies`` (read from the folder), then ``"shared"``."""
    folder = package_dir() / "studies"
    names = sorted(p.name for p in folder.iterdir() if (p / "__init__.py").is_file())
    return [*names, SHARED]


def entry_folder(location: Path, study: str, function: str, key: str) -> Path:
    """``<location>/<study>/<function>/<key>`` with the function name made file-safe."""
    return Path(location) / study / _UNSAFE.sub("-", function) / key


def write_entry(folder: Path, value: Any, meta: Mapping[str, Any]) -> None:
    """Store ``value`` and ``meta`` as the entry ``folder``, atomically (replacing an old one).

    Raises
    ------
    OSError, pickle.PicklingError
        When the entry cannot be written; nothing is left behind.
    """
    import joblib

    folder.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".tmp-{folder.name}-", dir=folder.parent))
    try:
        joblib.dump(value, tmp / OUTPUT_FILE)
        record = {**meta, "output_bytes": (tmp / OUTPUT_FILE).stat().st_size}
        (tmp / META_FILE).write_text(json.dumps(record, indent=1, default=str), "utf-8")
        _move_into_place(tmp, folder)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def _move_into_place(tmp: Path, folder: Path) -> None:
    """Rename ``tmp`` to ``folder``; an existing ``folder`` is renamed away just before, and
    deleted after (the entry is absent only between two renames)."""
    replaced = []
    try:
        for _ in range(10):
            try:
                os.rename(tmp, folder)
                return
            except OSError:
                if not folder.exists():
                    continue  # another process moved it away meanwhile: try again
            old = folder.with_name(f".old-{folder.name}-{uuid.uuid4().hex[:8]}")
            with contextlib.suppress(FileNotFoundError):
                os.rename(folder, old)
                replaced.append(old)
        raise OSError(f"could not move the cache entry into {folder}: others keep writing it")
    finally:
        for old in replaced:
            shutil.rmtree(old, ignore_errors=True)


def _folder_id(folder: Path) -> tuple[int, int] | None:
    try:
        st = folder.stat()
    except OSError:
        return None
    return st.st_dev, st.st_ino


def read_meta(folder: Path) -> dict[str, Any]:
    """The ``meta.json`` of an entry.

    Raises
    ------
    FileNotFoundError
        No entry there, or it was replaced by another process while it was read.
    EntryError
        The file is not a JSON object, or ``output.pkl`` is missing or has another size.
    """
    before = _folder_id(folder)
    try:
        text = (folder / META_FILE).read_text("utf-8")
    except FileNotFoundError:
        raise  # no entry: a plain miss
    except OSError as exc:
        raise EntryError(f"cannot read {folder / META_FILE}: {exc}") from exc
    try:
        meta = json.loads(text)
    except ValueError as exc:
        raise EntryError(f"{folder / META_FILE} is not valid JSON") from exc
    if not isinstance(meta, dict) or not isinstance(meta.get("data_files", {}), dict):
        raise EntryError(f"{folder / META_FILE} is not an entry record")
    try:
        size = (folder / OUTPUT_FILE).stat().st_size
    except OSError:
        size = None
    written = meta.get("output_bytes")
    if size != written:
        if before is None or _folder_id(folder) != before:
            raise FileNotFoundError(f"{folder} was replaced while it was read")
        if size is None:
            raise EntryError(f"{folder / OUTPUT_FILE} is missing")
        raise EntryError(f"{folder / OUTPUT_FILE} has {size} bytes, {written} were written")
    return meta


def read_entry(folder: Path) -> Any:
    """Unpickle the ``output.pkl`` of an entry this module wrote (checked by :func:`read_meta`).

    Raises
    ------
    EntryError
        It cannot be unpickled (truncated, written by an incompatible version).
    """
    import joblib

    try:
        return joblib.load(folder / OUTPUT_FILE)
    except FileNotFoundError:
        raise  # replaced by another process since read_meta: a plain miss
    except Exception as exc:  # unpickling can fail in many ways; all mean "recompute"
        raise EntryError(f"cannot load {folder / OUTPUT_FILE}: {type(exc).__name__}") from exc


def touch_entry(folder: Path, meta: Mapping[str, Any]) -> None:
    """Set ``last_used`` of an entry to now (best effort: a read-only cache stays as it is)."""
    record = {**meta, "last_used": now()}
    tmp = folder / f".{META_FILE}.{uuid.uuid4().hex[:8]}"
    try:
        tmp.write_text(json.dumps(record, indent=1, default=str), "utf-8")
        os.replace(tmp, folder / META_FILE)
    except OSError:
        with contextlib.suppress(OSError):
            tmp.unlink()


def _entries(study_folder: Path) -> list[Path]:
    """The entry folders of a study: ``<function or models>/<entry>``, hidden names skipped."""
    out = []
    for group in sorted(study_folder.iterdir()):
        if group.is_dir() and not group.name.startswith("."):
            out += [e for e in sorted(group.iterdir()) if e.is_dir() and not e.name.startswith(".")]
    return out


def _last_used(entry: Path) -> str | None:
    try:
        return str(json.loads((entry / META_FILE).read_text("utf-8"))["last_used"])
    except (OSError, ValueError, KeyError, TypeError):
        pass
    times = [p.stat().st_mtime for p in entry.rglob("*") if p.is_file()]
    if not times:
        return None
    return datetime.fromtimestamp(max(times), UTC).isoformat(timespec="seconds")


def _size(folder: Path) -> int:
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file())


def summarise_folder(location: Path) -> tuple[list[dict[str, Any]], list[str]]:
    """Per known study: entries, size in MB and when an entry was last used; other folders.

    Returns
    -------
    rows : list of dict
        ``study``, ``entries``, ``size_mb``, ``last_used`` (ISO time or ``""``), one per name
        of :func:`known_studies`.
    other : list of str
        Names at the top of ``location`` that are no study (e.g. ``joblib`` or ``models`` of
        the cache layout before this one).
    """
    location = Path(location)
    rows = []
    studies = known_studies()
    for study in studies:
        folder = location / study
        entries = _entries(folder) if folder.is_dir() else []
        used = [u for u in map(_last_used, entries) if u]
        rows.append(
            {
                "study": study,
                "entries": len(entries),
                "size_mb": round(_size(folder) / 1e6, 1) if folder.is_dir() else 0.0,
                "last_used": max(used) if used else "",
            }
        )
    other = []
    if location.is_dir():
        other = sorted(p.name for p in location.iterdir() if p.name not in studies)
    return rows, other


def clear_folder(location: Path, study: str | None = None) -> None:
    """Delete everything under ``location``, or only the folder of one study.

    Raises
    ------
    CacheError
        ``study`` is not a name of :func:`known_studies` (the message lists them).
    """
    location = Path(location)
    if study is not None:
        known = known_studies()
        if study not in known:
            raise CacheError(f"unknown study {study!r}: choose one of {', '.join(known)}")
        shutil.rmtree(location / study, ignore_errors=True)
        return
    if not location.is_dir():
        return
    for child in location.iterdir():
        if child.is_dir() and not child.is_symlink():
            shutil.rmtree(child, ignore_errors=True)
        else:
            child.unlink(missing_ok=True)
