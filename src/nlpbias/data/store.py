"""The files of the data home: checksum verification, a verified-file cache and downloads.

Every file is checked against its registered sha256 (see :mod:`nlpbias.data.registry`) before a
loader reads it. A missing file that has a ``url`` is downloaded when the machine is online (to a
``.part`` file, checked, then renamed into place); ``NLPBIAS_OFFLINE=1`` switches downloads off.

Verified files are remembered in ``.nlpbias-verified.json`` in the data home (or in
``~/.cache/nlpbias/verified.json`` when the data home is read-only), keyed by absolute path, size,
mtime and expected sha256, so large files are hashed once, not on every call.
"""

from __future__ import annotations

import hashlib
import http.client
import json
import logging
import os
import stat
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import pandas as pd
from tqdm import tqdm

from nlpbias.data.registry import (
    ChecksumError,
    DataFile,
    Dataset,
    MissingDataError,
    data_home,
    datasets,
    get,
)

logger = logging.getLogger(__name__)

CHUNK = 1 << 20  # 1 MiB: hashing and download block size
TIMEOUT = 10.0  # seconds: connect timeout (and the longest a download may stall)
CACHE_NAME = ".nlpbias-verified.json"
_FETCH_HINT = "`nlpbias data fetch {name}`"


# --------------------------------------------------------------------------- offline switch


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
        f"replace it with `nlpbias data fetch {ds.name} --force` (the download must pass the "
        "checksum before it replaces the file)"
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
        Registered dataset name (see :func:`nlpbias.data.registry.list_datasets`).
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
