"""Dataset registry: which files each dataset has, their sha256, and where they come from.

The registry lives in ``registry.yaml`` beside this module. A dataset is a folder of the data home
(``$NLPBIAS_DATA``, default ``~/nlpbias_data``); every file is checked against its sha256 before a
loader reads it. Files whose upstream copy is byte-identical carry a ``url`` and are downloaded on
demand when the machine is online; files prepared for the book (gzipped, extracted, derived) carry
``url: null`` and a ``prepared`` note instead.

Verified files are remembered in ``.nlpbias-verified.json`` in the data home (or in
``~/.cache/nlpbias/verified.json`` when the data home is read-only), keyed by absolute path, size,
mtime and expected sha256, so large files are hashed once, not on every call.
"""

from __future__ import annotations

import functools
import hashlib
import http.client
import importlib.resources
import json
import logging
import os
import stat
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path, PurePath
from typing import Any

import pandas as pd
import yaml
from tqdm import tqdm

logger = logging.getLogger(__name__)

CHUNK = 1 << 20  # 1 MiB: hashing and download block size
TIMEOUT = 10.0  # seconds: connect timeout (and the longest a download may stall)
CACHE_NAME = ".nlpbias-verified.json"
_FETCH_HINT = "`nlpbias data fetch {name}`"


class DataError(Exception):
    """Base class of every data-home problem (one-line message saying what to do)."""


class DatasetNotFoundError(DataError):
    """The dataset name is not in the registry."""


class MissingDataError(DataError):
    """A registered file is absent from the data home and could not be downloaded."""


class ChecksumError(DataError):
    """A file's size or sha256 differs from the registry."""


@dataclass(frozen=True)
class DataFile:
    """One file of a dataset: relative ``name`` inside the dataset folder, checksum, source."""

    name: str
    sha256: str
    bytes: int
    url: str | None = None
    prepared: str | None = None


@dataclass(frozen=True)
class Dataset:
    """A registry entry: provenance of a dataset and the files its folder must hold."""

    name: str
    title: str
    description: str
    homepage: str
    commit: str
    licence: str
    citation: str
    used_by: tuple[str, ...]
    files: tuple[DataFile, ...]

    @property
    def megabytes(self) -> float:
        """Total size of the files in MB (10**6 bytes)."""
        return sum(f.bytes for f in self.files) / 1e6

    def file(self, name: str | os.PathLike[str]) -> DataFile:
        """Return the entry of file ``name`` (relative path inside the dataset folder)."""
        key = PurePath(name).as_posix()
        for f in self.files:
            if f.name == key:
                return f
        names = ", ".join(f.name for f in self.files[:8])
        more = f" and {len(self.files) - 8} more" if len(self.files) > 8 else ""
        raise DataError(
            f"dataset {self.name!r} has no file {key!r}: its files are {names}{more}; "
            f"pass one of these (relative to the dataset folder) or file=None for the folder"
        )


# --------------------------------------------------------------------------- registry


def _parse(name: str, entry: dict[str, Any]) -> Dataset:
    try:
        files = tuple(
            DataFile(
                name=str(f["name"]),
                sha256=str(f["sha256"]).lower(),
                bytes=int(f["bytes"]),
                url=f.get("url"),
                prepared=f.get("prepared"),
            )
            for f in entry["files"]
        )
        return Dataset(
            name=name,
            title=str(entry["title"]),
            description=str(entry["description"]),
            homepage=str(entry["homepage"]),
            commit=str(entry["commit"]),
            licence=str(entry["licence"]),
            citation=str(entry["citation"]),
            used_by=tuple(entry.get("used_by") or ()),
            files=files,
        )
    except (KeyError, TypeError, ValueError) as err:
        raise DataError(
            f"registry entry {name!r} is malformed ({type(err).__name__}: {err}); "
            f"fix src/nlpbias/data/registry.yaml"
        ) from err


@functools.cache
def datasets() -> dict[str, Dataset]:
    """Load the registry (cached): dataset name -> :class:`Dataset`.

    The returned dict is shared; tests may add entries with ``monkeypatch.setitem``.

    Examples
    --------
    >>> from nlpbias.data import datasets
    >>> "davidson2017" in datasets()
    True
    """
    text = importlib.resources.files(__package__).joinpath("registry.yaml").read_text("utf-8")
    raw = yaml.safe_load(text) or {}
    return {name: _parse(name, entry) for name, entry in raw.items()}


def get(name: str) -> Dataset:
    """Return the registry entry of dataset ``name``.

    Raises
    ------
    DatasetNotFoundError
        If ``name`` is not registered; the message lists the known names.

    Examples
    --------
    >>> from nlpbias.data import get
    >>> get("gap").licence
    'Apache-2.0'
    """
    reg = datasets()
    if name not in reg:
        raise DatasetNotFoundError(
            f"unknown dataset {name!r}: known datasets are {', '.join(sorted(reg))}; "
            f"check the spelling (`nlpbias data list`)"
        )
    return reg[name]


def data_home() -> Path:
    """The data home: ``$NLPBIAS_DATA`` if set, else ``~/nlpbias_data`` (absolute path).

    Examples
    --------
    >>> from nlpbias.data import data_home
    >>> data_home().is_absolute()
    True
    """
    env = os.environ.get("NLPBIAS_DATA")
    return Path(env or "~/nlpbias_data").expanduser().absolute()


def _offline() -> bool:
    return os.environ.get("NLPBIAS_OFFLINE", "").strip().lower() in {"1", "true", "yes", "on"}


# --------------------------------------------------------------------------- verified cache


def _writable(folder: Path) -> bool:
    # A folder with no write bit is read-only by intent, even for root (for whom access() lies).
    try:
        mode = folder.stat().st_mode
    except OSError:
        return False
    has_bit = bool(mode & (stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH))
    return folder.is_dir() and has_bit and os.access(folder, os.W_OK)


def _cache_file(home: Path) -> Path:
    if _writable(home):
        return home / CACHE_NAME
    base = Path(os.environ.get("XDG_CACHE_HOME") or "~/.cache").expanduser()
    return base / "nlpbias" / "verified.json"


def _load_cache(home: Path) -> dict[str, dict[str, Any]]:
    try:
        data = json.loads(_cache_file(home).read_text("utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def _save_cache(home: Path, cache: dict[str, dict[str, Any]]) -> None:
    target = _cache_file(home)
    tmp = target.with_name(f"{target.name}.{os.getpid()}.tmp")
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        tmp.write_text(json.dumps(cache, indent=0, sort_keys=True), "utf-8")
        os.replace(tmp, target)
    except OSError as err:  # the cache is an optimisation only
        logger.debug("could not write verified-file cache %s: %s", target, err)
        tmp.unlink(missing_ok=True)


def _sha256_file(path: Path) -> str:
    """sha256 hex digest of ``path``, read in 1 MiB chunks."""
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        while chunk := fh.read(CHUNK):
            h.update(chunk)
    return h.hexdigest()


def _stamp(path: Path, sha256: str) -> dict[str, Any]:
    st = path.stat()
    return {"size": st.st_size, "mtime_ns": st.st_mtime_ns, "sha256": sha256}


def _check(path: Path, f: DataFile, cache: dict[str, dict[str, Any]]) -> str | None:
    """Return None if ``path`` matches ``f`` (updating ``cache``), else a description of why not."""
    key = str(path)
    st = path.stat()
    if cache.get(key) == {"size": st.st_size, "mtime_ns": st.st_mtime_ns, "sha256": f.sha256}:
        return None
    cache.pop(key, None)
    if st.st_size != f.bytes:
        return f"has {st.st_size} bytes but the registry expects {f.bytes}"
    digest = _sha256_file(path)
    if digest != f.sha256:
        return f"has sha256 {digest[:12]}… but the registry expects {f.sha256[:12]}…"
    cache[key] = {"size": st.st_size, "mtime_ns": st.st_mtime_ns, "sha256": f.sha256}
    return None


# --------------------------------------------------------------------------- messages


def _remedy(ds: Dataset, missing: list[DataFile]) -> str:
    urls = [f for f in missing if f.url]
    prepared = [f for f in missing if not f.url]
    parts = []
    if urls and len(missing) <= 3:
        parts.append("download " + ", ".join(str(f.url) for f in urls) + " into that folder")
    elif urls:
        parts.append(f"run {_FETCH_HINT.format(name=ds.name)} when online ({len(urls)} files)")
    if prepared:
        what = ", ".join(f.name for f in prepared) if len(prepared) <= 3 else "the others"
        if len(prepared) == 1 and prepared[0].prepared:
            what += f" ({prepared[0].prepared})"
        parts.append(
            f"{what} {'is' if len(prepared) == 1 else 'are'} prepared from {ds.homepage} and "
            f"cannot be downloaded automatically, see the dataset's SOURCE.md"
        )
    hint = f" ({_FETCH_HINT.format(name=ds.name)})" if urls else ""
    parts.append(
        f"or set NLPBIAS_DATA to a folder that has {'it' if len(missing) == 1 else 'them'}{hint}"
    )
    return "; ".join(parts)


def _missing_error(
    ds: Dataset, missing: list[DataFile], folder: Path, why: str
) -> MissingDataError:
    names = ", ".join(f.name for f in missing[:3])
    if len(missing) > 3:
        names = f"{len(missing)} of its {len(ds.files)} files ({names} and {len(missing) - 3} more)"
    return MissingDataError(
        f"dataset {ds.name!r} is missing {names} under {folder} and {why}: {_remedy(ds, missing)}"
    )


def _checksum_error(ds: Dataset, f: DataFile, folder: Path, problem: str) -> ChecksumError:
    fix = (
        f"delete it and run {_FETCH_HINT.format(name=ds.name)}"
        if f.url
        else f"delete it and prepare it again from {ds.homepage} as the dataset's SOURCE.md says"
    )
    return ChecksumError(
        f"dataset {ds.name!r}: file {f.name} under {folder} {problem} (corrupt or a different "
        f"version): {fix}, or set NLPBIAS_DATA to a folder with the original file"
    )


# --------------------------------------------------------------------------- download


def _download(ds: Dataset, f: DataFile, dest: Path) -> str:
    """Stream ``f.url`` to ``dest`` via ``dest.part``, checking sha256; return the digest."""
    assert f.url is not None
    part = dest.with_name(dest.name + ".part")
    folder = dest.parent
    h = hashlib.sha256()
    got = 0
    logger.info("downloading %s/%s from %s", ds.name, f.name, f.url)
    try:
        folder.mkdir(parents=True, exist_ok=True)
        req = urllib.request.Request(f.url, headers={"User-Agent": "nlpbias"})
        with urllib.request.urlopen(req, timeout=TIMEOUT) as resp, open(part, "wb") as out:
            length = resp.headers.get("Content-Length")
            total = int(length) if length and length.isdigit() else None
            with tqdm(
                total=total or f.bytes, unit="B", unit_scale=True, desc=f.name, disable=None
            ) as bar:
                while chunk := resp.read(CHUNK):
                    out.write(chunk)
                    h.update(chunk)
                    got += len(chunk)
                    bar.update(len(chunk))
        if total is not None and got < total:
            raise http.client.IncompleteRead(b"", total - got)
        digest = h.hexdigest()
        if digest != f.sha256 or got != f.bytes:
            raise ChecksumError(
                f"dataset {ds.name!r}: {f.name} downloaded from {f.url} has {got} bytes and "
                f"sha256 {digest[:12]}… but the registry expects {f.bytes} bytes and "
                f"{f.sha256[:12]}…; nothing was saved under {folder}: retry, or download it "
                f"by hand and compare with the dataset's SOURCE.md (upstream may have changed)"
            )
        os.replace(part, dest)
        return digest
    except ChecksumError:
        part.unlink(missing_ok=True)
        raise
    except (urllib.error.URLError, http.client.HTTPException, OSError, ValueError) as err:
        part.unlink(missing_ok=True)
        detail = err.reason if type(err) is urllib.error.URLError else err
        why = f"the download from {f.url} failed ({type(err).__name__}: {detail})"
        raise _missing_error(ds, [f], folder, " ".join(why.split())) from err
    except BaseException:  # KeyboardInterrupt etc.: never leave a partial file
        part.unlink(missing_ok=True)
        raise


def _ensure(ds: Dataset, files: list[DataFile], download: bool | None, force: bool = False) -> None:
    home = data_home()
    folder = home / ds.name
    cache = _load_cache(home)
    before = dict(cache)
    missing: list[DataFile] = []
    try:
        for f in files:
            p = folder / f.name
            if p.is_file() and not (force and f.url):
                problem = _check(p, f, cache)
                if problem:
                    raise _checksum_error(ds, f, p.parent, problem)
            else:
                missing.append(f)
        if not missing:
            return
        if download is False:
            raise _missing_error(
                ds, missing, folder, "downloading is switched off (download=False)"
            )
        if _offline():
            raise _missing_error(ds, missing, folder, "the machine is offline (NLPBIAS_OFFLINE=1)")
        for f in missing:
            if f.url:
                dest = folder / f.name
                cache[str(dest)] = _stamp(dest, _download(ds, f, dest))
        prepared = [f for f in missing if not f.url]
        if prepared:
            raise _missing_error(ds, prepared, folder, "it has no download URL")
    finally:
        if cache != before:
            _save_cache(home, cache)


# --------------------------------------------------------------------------- public API


def path(
    name: str, file: str | os.PathLike[str] | None = None, *, download: bool | None = None
) -> Path:
    """Return the verified path of a dataset folder, or of one file in it.

    Parameters
    ----------
    name : str
        Registered dataset name (see :func:`list_datasets`).
    file : str or path-like, optional
        File relative to the dataset folder. ``None`` verifies every file and returns the folder.
    download : bool or None, default None
        ``None`` or ``True``: download missing files when the machine is online (set
        ``NLPBIAS_OFFLINE=1`` to never try); ``False``: never download.

    Returns
    -------
    pathlib.Path
        ``data_home() / name`` or ``data_home() / name / file``.

    Raises
    ------
    MissingDataError
        A file is absent and could not be downloaded.
    ChecksumError
        A file in the data home has the wrong size or sha256 (the file is left in place).

    Examples
    --------
    >>> from nlpbias.data import path
    >>> path("davidson2017", "labeled_data.csv").name  # doctest: +SKIP
    'labeled_data.csv'
    """
    ds = get(name)
    if file is None:
        _ensure(ds, list(ds.files), download)
        return data_home() / ds.name
    f = ds.file(file)
    _ensure(ds, [f], download)
    return data_home() / ds.name / f.name


def resolve(dataset: str, file: str, override: str | Path | None = None) -> Path:
    """``override`` when given (it must exist; no checksum — for fixtures and user copies),
    otherwise the verified file ``file`` of ``dataset`` from the data home (see :func:`path`)."""
    if override is not None:
        p = Path(override)
        if not p.is_file():
            raise FileNotFoundError(f"{dataset}: file {str(p)!r} not found; pass an existing path")
        return p
    return path(dataset, file)


def fetch(name: str, *, force: bool = False) -> Path:
    """Download every missing file of a dataset (verifying each), and return its folder.

    Parameters
    ----------
    name : str
        Registered dataset name.
    force : bool, default False
        Download files that have a URL again even when present; a file is replaced only after
        the new copy passed its checksum.

    Examples
    --------
    >>> from nlpbias.data import fetch
    >>> fetch("davidson2017")  # doctest: +SKIP
    PosixPath('/home/me/nlpbias_data/davidson2017')
    """
    ds = get(name)
    _ensure(ds, list(ds.files), True, force=force)
    return data_home() / ds.name


def verify(name: str | None = None) -> pd.DataFrame:
    """Check the files of one dataset (or all) in the data home; never downloads or raises.

    Returns
    -------
    pandas.DataFrame
        One row per file with columns ``dataset``, ``file``, ``status`` (``ok``, ``missing`` or
        ``bad checksum``) and ``path``.

    Examples
    --------
    >>> from nlpbias.data import verify
    >>> verify("gap").columns.tolist()
    ['dataset', 'file', 'status', 'path']
    """
    chosen = [get(name)] if name is not None else list(datasets().values())
    home = data_home()
    cache = _load_cache(home)
    before = dict(cache)
    rows = []
    for ds in chosen:
        for f in ds.files:
            p = home / ds.name / f.name
            if not p.is_file():
                status = "missing"
            else:
                status = "ok" if _check(p, f, cache) is None else "bad checksum"
            rows.append({"dataset": ds.name, "file": f.name, "status": status, "path": str(p)})
    if cache != before:
        _save_cache(home, cache)
    return pd.DataFrame(rows, columns=["dataset", "file", "status", "path"])


def list_datasets() -> pd.DataFrame:
    """Table of the registered datasets.

    ``available`` is True when every file is present in the data home with the registered size
    (a cheap check; :func:`verify` compares checksums).

    Returns
    -------
    pandas.DataFrame
        Columns ``name``, ``title``, ``files``, ``megabytes``, ``licence``, ``available``,
        ``used_by`` (comma-separated study ids).

    Examples
    --------
    >>> from nlpbias.data import list_datasets
    >>> "winobias" in set(list_datasets()["name"])
    True
    """
    home = data_home()
    rows = []
    for ds in datasets().values():
        folder = home / ds.name
        available = all(
            (folder / f.name).is_file() and (folder / f.name).stat().st_size == f.bytes
            for f in ds.files
        )
        rows.append(
            {
                "name": ds.name,
                "title": ds.title,
                "files": len(ds.files),
                "megabytes": round(ds.megabytes, 1),
                "licence": ds.licence,
                "available": available,
                "used_by": ", ".join(ds.used_by),
            }
        )
    cols = ["name", "title", "files", "megabytes", "licence", "available", "used_by"]
    return pd.DataFrame(rows, columns=cols)
