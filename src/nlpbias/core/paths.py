"""Where things are: the package, the project checkout and the project's own ``data/`` folder.

The project's facts (word sets, identity terms, groups, templates, reported numbers) live in
``data/`` beside ``src/`` in the checkout. They are resolved by :func:`data_file`, the one place
that knows the folder; resolving a file also notes its sha256 into the cached computations
running now (:mod:`nlpbias.core.provenance`), so that a cached result is recomputed once a file
it read has changed. A reader that takes its own folder (``folder=`` arguments) notes the file
it opens with :func:`record_file`, and a reader whose result depends on which files a folder
holds notes the listing with :func:`record_listing`. Notes are taken where the path of the
specific file is resolved, before any in-memory memoisation of its parsed contents, so that
every call notes it.

Examples
--------
>>> package_dir().name
'nlpbias'
>>> data_file("identity_terms").is_dir()
True
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

from nlpbias.core.provenance import is_recording, note

__all__ = [
    "checkout_dir",
    "data_dir",
    "data_file",
    "file_sha256",
    "package_dir",
    "record_file",
    "record_listing",
    "recorded_digest",
]

_LISTING = "*"  # a key whose last part holds this is a folder listing: <folder key>/<pattern>


def package_dir() -> Path:
    """The folder of the installed ``nlpbias`` package (``src/nlpbias`` in a checkout)."""
    return Path(__file__).resolve().parents[1]


def checkout_dir() -> Path | None:
    """The project checkout this package runs from (the folder with ``pyproject.toml`` above
    ``src/``), or ``None`` for a non-editable install."""
    root = package_dir().parents[1]
    return root if (root / "pyproject.toml").is_file() else None


def data_dir() -> Path:
    """The project's ``data/`` folder (beside ``src/``), which holds the facts it owns.

    Raises
    ------
    FileNotFoundError
        When the package does not run from a checkout (``data/`` is not installed with it).
    """
    d = package_dir().parents[1] / "data"
    if not d.is_dir():
        raise FileNotFoundError(
            f"nlpbias data folder {str(d)!r} not found; use an editable install of the project "
            "checkout (pip install -e .) so that data/ sits beside src/"
        )
    return d


def data_file(*parts: str) -> Path:
    """The path of ``data/<parts...>`` (a file or a folder; it need not exist).

    When it names an existing file and a cached computation is running, the file's sha256 is
    noted into that computation (see the module docstring); a folder is not noted.

    Examples
    --------
    >>> data_file("reported", "dixon2018.yaml").name
    'dixon2018.yaml'
    """
    path = data_dir().joinpath(*parts)
    if is_recording() and path.is_file():
        record_file(path)
    return path


def file_sha256(path: str | os.PathLike[str]) -> str:
    """The sha256 (hex) of a file's bytes."""
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def _key(path: Path) -> str:
    """``data/<relative path>`` for a file of the project's data folder, else the absolute path."""
    path = Path(path).resolve()
    try:
        return "data/" + path.relative_to(data_dir().resolve()).as_posix()
    except (ValueError, FileNotFoundError):
        return path.as_posix()


def _from_key(key: str) -> Path:
    if key.startswith("data/"):
        return data_dir().joinpath(key.removeprefix("data/"))
    return Path(key)


def _listing_digest(folder: Path, pattern: str) -> str:
    names = sorted(p.name for p in folder.glob(pattern))
    return hashlib.sha256("\n".join(names).encode()).hexdigest()


def record_file(path: str | os.PathLike[str]) -> Path:
    """Note a file that is about to be read into the running cached computations; return it.

    Use it for a file that is not resolved by :func:`data_file` (a reader given its own
    folder). Without a running cached computation nothing is read.

    Parameters
    ----------
    path : str or path-like
        An existing file.

    Returns
    -------
    pathlib.Path
        ``path``, unchanged.
    """
    path = Path(path)
    if is_recording():
        note({_key(path): file_sha256(path)})
    return path


def record_listing(folder: str | os.PathLike[str], pattern: str = "*.yaml") -> Path:
    """Note which files of ``folder`` match ``pattern`` (their names, not their contents).

    For a result that depends on the set of files (e.g. a table of every word set): adding or
    removing one then recomputes it.

    Returns
    -------
    pathlib.Path
        ``folder``, unchanged.
    """
    folder = Path(folder)
    if _LISTING not in pattern or "/" in pattern:
        raise ValueError(f"pattern must be a glob of file names such as '*.yaml', got {pattern!r}")
    if is_recording():
        note({f"{_key(folder)}/{pattern}": _listing_digest(folder, pattern)})
    return folder


def recorded_digest(key: str) -> str | None:
    """The digest a noted key has now: of the file, or of the folder listing; None if gone.

    Parameters
    ----------
    key : str
        As noted: ``data/<relative path>``, an absolute path, or ``<folder>/<pattern>``.
    """
    try:
        folder, _, last = key.rpartition("/")
        if _LISTING in last:
            where = _from_key(folder)
            return _listing_digest(where, last) if where.is_dir() else None
        path = _from_key(key)
        return file_sha256(path) if path.is_file() else None
    except OSError:
        return None
