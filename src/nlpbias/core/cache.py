"""On-disk cache for slow computations: :class:`joblib.Memory`, keyed by the code and the data.

``@cached`` stores a function's result with :class:`joblib.Memory` and returns it again for a
call with the same **key**:

- the function (its module and name name the entry's folder) and its arguments, bound to the
  signature with the defaults filled in, minus the names in ``ignore`` (hashed with
  :func:`joblib.hash`: arrays and frames count by content);
- the **code digest** of its module (:func:`code_digest`), a sha256 over the sources of every
  ``.py`` file of the shared layers (``nlpbias/core``, ``data``, ``metrics``, ``models``,
  ``plotting``) and, for a function of ``nlpbias.studies.<s>``, of its study package
  (:func:`key_files`); over every file of the project's ``data/`` folder (word sets, identity
  terms, groups, templates, reported numbers); and over the versions of :data:`KEY_PACKAGES`
  (from the installed metadata: nothing is imported);
- for a function defined outside ``nlpbias`` (a script, a test, a notebook cell), its source.

So an edit to a study's package, a shared layer or a data file recomputes that study's results,
also where its steps never read the edited file (a little over-invalidation buys a rule that is
easy to check); an edit to another study's package, ``nlpbias/book``, a notebook or the docs
keeps them. **Not** in the key: ``nlpbias/data/registry.yaml`` and the data home's datasets
(checked by their checksums when read, named by the arguments), environment variables, the
machine, the number of threads: after changing one of these in a way that changes results,
clear the cache.

**Jupyter.** A process keeps running the code it imported, so a study's sources are read once
per process, at its first cached call (or :func:`code_digest`): a kernel whose files are edited
later keeps running, and keying by, the old code, and the next cached call warns once
(:class:`CacheWarning`): restart the kernel to run, and cache, the edited code. An edit between
the import and the first cached call goes unnoticed: restart the kernel after editing the
package. Data files count as they are at each call (their readers parse an edited file again).

**Where.** ``$NLPBIAS_CACHE`` if set, else ``<project root>/.nlpbias_cache`` in a checkout (the
folder holding ``pyproject.toml``), else ``~/.cache/nlpbias``; looked up at each call. Each study
(``s`` for ``nlpbias.studies.<s>``, else ``shared``) has a folder with a joblib store
(``<study>/joblib/<module path>/<function>/<hash>/output.pkl``) and ``<study>/models/`` for the
model folders built outside ``@cached`` (:func:`models_dir`). joblib writes an entry atomically,
and computes again, with a logged warning, one it cannot load. Loading unpickles what is in the
folder: put no files from elsewhere into it. ``nlpbias cache list`` and ``nlpbias cache clear
[STUDY]`` show and delete entries (:func:`cache_summary`, :func:`clear_cache`).

**Run log.** When ``$NLPBIAS_CACHE_LOG`` names a file, every cached call appends one JSON line
(``function``, ``study``, ``hit``, ``seconds``, ``key``: the first 12 hex digits of the entry's
folder name); :mod:`nlpbias.book.runner` records from it which steps of a notebook were hits.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import inspect
import json
import logging
import os
import shutil
import time
import warnings
from collections.abc import Callable, Iterable
from datetime import UTC, datetime
from importlib import metadata
from pathlib import Path
from typing import Any

import joblib

from nlpbias.core.paths import checkout_dir, data_dir, package_dir

__all__ = [
    "LOG_ENV",
    "CacheError",
    "CacheWarning",
    "cache_dir",
    "cache_summary",
    "cached",
    "clear_cache",
    "code_digest",
    "key_files",
    "models_dir",
    "package_versions",
    "study_of",
]

logger = logging.getLogger(__name__)

LOG_ENV = "NLPBIAS_CACHE_LOG"
#: Packages whose versions are part of every key.
KEY_PACKAGES = ("numpy", "scipy", "pandas", "scikit-learn", "gensim", "torch", "transformers")
#: The shared layers whose sources are part of every key.
LAYERS = ("core", "data", "metrics", "models", "plotting")
SHARED = "shared"
MODELS = "models"  # the folder, beside a study's joblib store, of models built outside @cached

_SOURCES: dict[str, tuple[str, dict[Path, int]]] = {}  # study -> (digest, mtime of each file)
_DATA: dict[Path, tuple[tuple[int, int], str]] = {}  # file -> ((mtime, size), sha256)
_WARNED: set[Path] = set()


class CacheError(ValueError):
    """An unknown study was named; the message lists the known ones."""


class CacheWarning(UserWarning):
    """A source file changed after this process read it (see the module docstring)."""


def cache_dir() -> Path:
    """The cache folder (not created): ``$NLPBIAS_CACHE``, else ``<checkout>/.nlpbias_cache``,
    else ``~/.cache/nlpbias``."""
    env = os.environ.get("NLPBIAS_CACHE", "").strip()
    if env:
        return Path(env).expanduser()
    root = checkout_dir()
    return root / ".nlpbias_cache" if root is not None else Path.home() / ".cache" / "nlpbias"


def study_of(module_name: str) -> str:
    """``s`` for a module of ``nlpbias.studies.<s>``, else ``"shared"``.

    Examples
    --------
    >>> study_of("nlpbias.studies.pinned_auc.study"), study_of("nlpbias.models.training")
    ('pinned_auc', 'shared')
    """
    parts = module_name.split(".")
    return parts[2] if len(parts) >= 3 and parts[:2] == ["nlpbias", "studies"] else SHARED


def _studies() -> list[str]:
    found = (package_dir() / "studies").glob("*/__init__.py")
    return [*sorted(p.parent.name for p in found), SHARED]


def models_dir(module_name: str) -> Path:
    """The folder for model folders that ``module_name`` builds itself (not through
    :func:`cached`): ``cache_dir()/<study>/models``, listed and cleared with its study. Put
    :func:`code_digest` of the module into their names: they follow the rule of cached results.

    Examples
    --------
    >>> models_dir("nlpbias.studies.scoring.mlm").relative_to(cache_dir()).as_posix()
    'scoring/models'
    """
    return cache_dir() / study_of(module_name) / MODELS


@functools.cache
def package_versions() -> dict[str, str | None]:
    """Installed versions of :data:`KEY_PACKAGES` (None when absent), read once per process."""
    out: dict[str, str | None] = dict.fromkeys(KEY_PACKAGES)
    for name in KEY_PACKAGES:
        with contextlib.suppress(metadata.PackageNotFoundError):
            out[name] = metadata.version(name)
    return out


def key_files(module_name: str) -> list[Path]:
    """The source files whose text is part of the key of ``module_name``'s cached results:
    the shared layers' and, for a module of a study, its package's."""
    folders = [package_dir() / layer for layer in LAYERS]
    if (study := study_of(module_name)) != SHARED:
        folders.append(package_dir() / "studies" / study)
    return sorted(p for folder in folders for p in folder.rglob("*.py"))


def _source_digest(study: str) -> str:
    """The digest of a study's sources, read at its first use in this process; warns once per
    file edited since."""
    if study not in _SOURCES:
        digest, mtimes = hashlib.sha256(), {}
        name = f"nlpbias.studies.{study}" if study != SHARED else "nlpbias"
        for path in key_files(name):
            mtimes[path] = path.stat().st_mtime_ns
            rel = path.relative_to(package_dir()).as_posix()
            digest.update(f"{rel}\0".encode() + path.read_bytes() + b"\0")
        _SOURCES[study] = (digest.hexdigest(), mtimes)
    digest_hex, mtimes = _SOURCES[study]
    for path, mtime in mtimes.items():
        if path not in _WARNED and (not path.exists() or path.stat().st_mtime_ns != mtime):
            _WARNED.add(path)
            warnings.warn(
                f"{path} changed after this process read it; the cache keeps keying by the code "
                "as first read (the code this process imported): restart the kernel to run, "
                "and cache, the edited code",
                CacheWarning,
                stacklevel=5,  # the caller of the cached function
            )
    return digest_hex


def _data_digest() -> str:
    """A sha256 over the names and contents of every file of the project's ``data/`` folder."""
    try:
        root = data_dir()
    except FileNotFoundError:  # an installed package without the checkout: no data files
        return ""
    digest = hashlib.sha256()
    for path in sorted(root.rglob("*")):
        rel = path.relative_to(root)
        if not path.is_file() or any(part.startswith(".") for part in rel.parts):
            continue
        stat = path.stat()
        stamp = (stat.st_mtime_ns, stat.st_size)
        if path not in _DATA or _DATA[path][0] != stamp:
            _DATA[path] = (stamp, hashlib.sha256(path.read_bytes()).hexdigest())
        digest.update(f"{rel.as_posix()}\0{_DATA[path][1]}\n".encode())
    return digest.hexdigest()


def code_digest(module_name: str) -> str:
    """sha256 (hex) of what a cached result of ``module_name`` depends on besides its
    arguments: the sources of :func:`key_files` (as first read in this process), the
    project's data files (as they are now) and the versions of :data:`KEY_PACKAGES`."""
    if not isinstance(module_name, str) or not module_name:
        raise TypeError(f"module_name must be a dotted module name, got {module_name!r}")
    facts = [_source_digest(study_of(module_name)), _data_digest(), package_versions()]
    return hashlib.sha256(json.dumps(facts, sort_keys=True).encode()).hexdigest()


def _bind(signature: inspect.Signature, ignore: frozenset, args: tuple, kwargs: dict) -> Any:
    """The bound arguments that count (None when they do not fit the signature)."""
    try:
        bound = signature.bind(*args, **kwargs)
    except TypeError:
        return None
    bound.apply_defaults()
    out = {k: v for k, v in bound.arguments.items() if k not in ignore}
    for name, param in signature.parameters.items():
        if param.kind is inspect.Parameter.VAR_KEYWORD and name in out:
            out[name] = {k: v for k, v in out[name].items() if k not in ignore}
    return out


@functools.cache
def _own_source(func: Callable[..., Any]) -> str:
    """The sha256 of a function's source, read once per process (its name when it has no
    source), for a function outside ``nlpbias``; else ""."""
    if func.__module__ == "nlpbias" or func.__module__.startswith("nlpbias."):
        return ""
    try:
        text = inspect.getsource(func)
    except (OSError, TypeError):
        text = func.__qualname__
    return hashlib.sha256(text.encode()).hexdigest()


def _log(name: str, study: str, hit: bool, seconds: float, key: str) -> None:
    if not (target := os.environ.get(LOG_ENV, "").strip()):
        return
    line = {"function": name, "study": study, "hit": hit, "seconds": round(seconds, 3)}
    try:
        with open(target, "a", encoding="utf-8") as fh:  # one short line, appended at once:
            fh.write(json.dumps({**line, "key": key[:12]}) + "\n")  # processes' lines do not mix
    except OSError as exc:
        logger.debug("cannot append to $%s (%s): %s", LOG_ENV, target, exc)


def cached(func: Callable[..., Any] | None = None, *, ignore: Iterable[str] = ()) -> Any:
    """Cache a module-level function's results on disk (the key: the module docstring).

    Use as ``@cached`` or ``@cached(ignore=("verbose", "n_jobs"))``: ``ignore`` names arguments
    (also ones passed through ``**kwargs``) left out of the key. The wrapper gains
    ``.check_call_in_cache(*args, **kwargs)``: whether that call would be a hit (nothing is
    computed or loaded).

    Examples
    --------
    >>> @cached
    ... def slow_square(x):
    ...     return x * x
    >>> slow_square(4)
    16
    """
    if isinstance(ignore, str):
        raise TypeError(f"ignore must be a list of argument names, got the string {ignore!r}")
    if func is None:
        return functools.partial(cached, ignore=list(ignore))
    if not callable(func):
        raise TypeError(f"cached expects a function, got {type(func).__name__}")
    signature, ignored = inspect.signature(func), frozenset(ignore)
    params = signature.parameters
    if any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params.values()):
        params = {**params, **dict.fromkeys(ignored)}  # names passed through **kwargs
    if unknown := sorted(ignored - set(params)):
        raise ValueError(
            f"ignore names {unknown} that are not arguments of {func.__qualname__}; "
            f"its arguments are {list(signature.parameters)}"
        )
    name, study, stores = f"{func.__module__}.{func.__qualname__}", study_of(func.__module__), {}

    def key(arguments: dict) -> tuple[str, str]:
        return code_digest(func.__module__) + _own_source(func), joblib.hash(arguments)

    def store() -> Any:  # joblib's memoised function, in the study's folder of the cache folder
        location = str(cache_dir() / study)
        if location not in stores:

            def run(digest: str, arguments: str, call: Callable[[], Any]) -> Any:
                return call()

            run.__module__, run.__name__, run.__qualname__ = (
                func.__module__, func.__name__, func.__qualname__)  # fmt: skip
            stores[location] = joblib.Memory(location, verbose=0).cache(run, ignore=["call"])
        return stores[location]

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        started, arguments = time.perf_counter(), _bind(signature, ignored, args, kwargs)
        if arguments is None:  # let the function raise its own TypeError
            return func(*args, **kwargs)
        digest, hashed = key(arguments)
        ran = []

        def call() -> Any:
            ran.append(True)
            return func(*args, **kwargs)

        value = store()(digest, hashed, call)
        entry = joblib.hash({"digest": digest, "arguments": hashed})  # the entry's folder name
        _log(name, study, not ran, time.perf_counter() - started, entry)
        return value

    def check_call_in_cache(*args: Any, **kwargs: Any) -> bool:
        arguments = _bind(signature, ignored, args, kwargs)
        return arguments is not None and store().check_call_in_cache(*key(arguments), None)

    wrapper.check_call_in_cache = check_call_in_cache  # type: ignore[attr-defined]
    return wrapper


def _folder(location: str | os.PathLike[str] | None) -> Path:
    folder = cache_dir() if location is None else Path(location).expanduser()
    if folder.exists() and not folder.is_dir():
        raise NotADirectoryError(f"cache location {folder} is a file; pass a folder")
    return folder


def clear_cache(
    location: str | os.PathLike[str] | None = None, *, study: str | None = None
) -> None:
    """Delete everything under ``location`` (default :func:`cache_dir`), or one ``study``'s
    folder (a package name of ``nlpbias.studies``, or ``"shared"``; else :class:`CacheError`).
    """
    folder, known = _folder(location), _studies()
    if study is not None:
        if study not in known:
            raise CacheError(f"unknown study {study!r}: choose one of {', '.join(known)}")
        shutil.rmtree(folder / study, ignore_errors=True)
    elif folder.is_dir():
        for child in folder.iterdir():
            if child.is_dir() and not child.is_symlink():
                shutil.rmtree(child, ignore_errors=True)
            else:
                child.unlink(missing_ok=True)


def cache_summary(location: str | os.PathLike[str] | None = None) -> Any:
    """A frame of one row per study of ``location`` (default :func:`cache_dir`): ``entries``
    (results and model folders), ``size_mb`` and ``last_used`` (the latest access or change of
    a file, as the file system records it). ``attrs["location"]`` is the folder, and
    ``attrs["other"]`` lists top-level folders of no study (older layouts; cleared by
    :func:`clear_cache`)."""
    import pandas as pd

    folder, rows, studies = _folder(location), [], _studies()
    for study in studies:
        models = folder / study / MODELS
        entries = {p.parent for p in (folder / study).rglob("output.pkl")} - {models}
        entries = {e for e in entries if models not in e.parents}
        entries |= {p for p in models.glob("*") if p.is_dir()}
        stats = [p.stat() for p in (folder / study).rglob("*") if p.is_file()]
        used = max((max(s.st_atime, s.st_mtime) for s in stats), default=None)
        when = "" if used is None else datetime.fromtimestamp(used, UTC).isoformat("T", "seconds")
        size = round(sum(s.st_size for s in stats) / 1e6, 1)
        rows.append({"study": study, "entries": len(entries), "size_mb": size, "last_used": when})
    other = [p.name for p in sorted(folder.glob("*")) if p.name not in studies]
    table = pd.DataFrame(rows, columns=["study", "entries", "size_mb", "last_used"])
    table.attrs = {"location": str(folder), "other": other}
    return table
