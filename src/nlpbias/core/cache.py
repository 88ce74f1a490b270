"""On-disk cache for slow computations, keyed by the code that runs them.

``@cached`` stores a function's result and returns it again for a call with the same key. The
**key** is a sha256 of

- the function's module and qualified name;
- its arguments, bound to the signature with the defaults filled in, minus the names in
  ``ignore`` (hashed with :func:`joblib.hash`, so arrays and frames count by content);
- the **code digest** of the function's module (:func:`code_digest`): the sources of every
  ``nlpbias`` module in the static import closure of that module (:func:`import_closure`,
  rules in :mod:`nlpbias.core.closure`), as imported by this process;
- the versions of numpy, scipy, pandas, scikit-learn, gensim, torch and transformers (read
  from the installed metadata, nothing is imported).

A stored result also lists the project **data files** (``data/``: word sets, identity terms,
groups, templates, reported numbers) that the computation read, with their sha256. Every such
read goes through :mod:`nlpbias.core.paths`, which notes the file into the running cached calls
(:mod:`nlpbias.core.provenance`; files read by a nested cached call count for its callers too,
and so do files read by the tasks of :func:`nlpbias.core.sweep.run_sweep` in other processes).
A stored result is used only while every file it lists still has the recorded digest;
otherwise it is computed again and replaced.

**Not** in the key: code outside ``nlpbias`` other than the function's own module (other
packages count through their versions only), modules the closure does not reach (editing
another study's package keeps this study's results), the package data file
``nlpbias/data/registry.yaml``, the data home's datasets (verified by their checksums when
they are read, and named by the arguments), environment variables, the machine and the
number of threads. A function defined outside ``nlpbias`` also counts with its own source; one
defined in a notebook has no module file, so the ``nlpbias`` modules it calls do not count:
put slow steps into the package. After changing any of these in a way that changes results,
clear the cache.

**Jupyter.** Sources count as they were when this process imported them. A kernel that keeps
running old code after a file was edited keeps computing (and finding) the old code's results;
restart the kernel to run, and cache, the new code.

**Where entries live.** ``$NLPBIAS_CACHE`` if set, else ``<project root>/.nlpbias_cache`` in a
source checkout (the folder holding ``pyproject.toml``), else ``~/.cache/nlpbias``; looked up
at each call. Inside: ``<study>/<module>.<qualname>/<key>/`` with the pickled result
(``output.pkl``) and ``meta.json`` (layout and meta fields: :mod:`nlpbias.core.cache_store`);
``<study>`` is ``s`` for ``nlpbias.studies.<s>``, else ``shared``. Entries are written
atomically; a corrupt entry is recomputed with a :class:`CacheWarning`. Loading unpickles only
files the cache wrote itself into this folder: do not put files from elsewhere into it.
``nlpbias cache list`` and ``nlpbias cache clear [STUDY]`` show and delete entries.

**Run log.** When ``$NLPBIAS_CACHE_LOG`` names a file, every cached call appends one JSON line
(``function``, ``study``, ``hit``, ``seconds``, ``key``: the key's first 12 hex digits);
:mod:`nlpbias.book.runner` uses it to record which steps of a notebook were cache hits.
"""

from __future__ import annotations

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
from importlib import metadata
from pathlib import Path
from typing import Any, TypeVar, overload

import joblib

from nlpbias.core import cache_store as store
from nlpbias.core.closure import code_digest, import_closure, module_file, note_module_source
from nlpbias.core.paths import checkout_dir, recorded_digest
from nlpbias.core.provenance import note, recording

__all__ = [
    "CacheWarning",
    "LOG_ENV",
    "cache_dir",
    "cache_summary",
    "cached",
    "clear_cache",
    "code_digest",
    "import_closure",
    "models_dir",
    "package_versions",
]

logger = logging.getLogger(__name__)

F = TypeVar("F", bound=Callable[..., Any])
LOG_ENV = "NLPBIAS_CACHE_LOG"
#: Packages whose versions are part of every key.
KEY_PACKAGES = ("numpy", "scipy", "pandas", "scikit-learn", "gensim", "torch", "transformers")
_KEY_HEX = 32  # the entry folder's name: the first 128 bits of the key


class CacheWarning(UserWarning):
    """A stored entry could not be read or written; the result is computed (and used) anyway."""


def cache_dir() -> Path:
    """Return the cache folder (not created).

    Returns
    -------
    pathlib.Path
        ``$NLPBIAS_CACHE``, else ``<project root>/.nlpbias_cache`` when the package runs from
        a checkout with ``pyproject.toml``, else ``~/.cache/nlpbias``.

    Examples
    --------
    >>> cache_dir().name in {".nlpbias_cache", "nlpbias"} or "NLPBIAS_CACHE" in os.environ
    True
    """
    env = os.environ.get("NLPBIAS_CACHE", "").strip()
    if env:
        return Path(env).expanduser()
    root = checkout_dir()
    if root is not None:
        return root / ".nlpbias_cache"
    return Path.home() / ".cache" / "nlpbias"


def models_dir(module_name: str) -> Path:
    """The folder for model folders that ``module_name`` builds itself (not through
    :func:`cached`): ``cache_dir()/<study>/models``, listed and cleared with its study.

    Put :func:`code_digest` of the module into the names of the folders, so that they follow
    the same code rule as cached results.

    Examples
    --------
    >>> models_dir("nlpbias.studies.scoring.mlm").relative_to(cache_dir()).as_posix()
    'scoring/models'
    """
    return cache_dir() / store.study_of(module_name) / store.MODELS


def _location(location: str | os.PathLike[str] | None) -> Path:
    if location is not None and not isinstance(location, str | os.PathLike):
        raise TypeError(f"location must be a folder path or None, got {type(location).__name__}")
    folder = cache_dir() if location is None else Path(location).expanduser()
    if folder.exists() and not folder.is_dir():
        raise NotADirectoryError(f"cache location {folder} is a file; pass a folder")
    return folder


@functools.cache
def package_versions() -> dict[str, str | None]:
    """Installed versions of :data:`KEY_PACKAGES` (None when absent), read once per process."""
    out: dict[str, str | None] = {}
    for name in KEY_PACKAGES:
        try:
            out[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            out[name] = None
    return out


class _Cached:
    """What :func:`cached` knows about one function: its identity, signature and key rule."""

    def __init__(self, func: Callable[..., Any], ignore: list[str]) -> None:
        self.func = func
        self.module = getattr(func, "__module__", None) or "__main__"
        self.qualname = getattr(func, "__qualname__", None) or getattr(func, "__name__", "f")
        self.name = f"{self.module}.{self.qualname}"
        self.study = store.study_of(self.module)
        self.signature = inspect.signature(func)
        params = self.signature.parameters
        var_kw = any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params.values())
        unknown = [n for n in ignore if n not in params and not var_kw]
        if unknown:
            raise ValueError(
                f"ignore names {unknown} that are not arguments of {self.qualname}; "
                f"its arguments are {list(params)}"
            )
        self.ignore = frozenset(ignore)
        self.own_source = self._own_source()

    def _own_source(self) -> str | None:
        """For a function outside ``nlpbias``: record its module's source now (the module is
        being imported), and keep a digest of the function's own source (a function defined in
        a notebook has no module file)."""
        if self.module == "nlpbias" or self.module.startswith("nlpbias."):
            return None
        file = module_file(self.module)
        if file is not None:
            note_module_source(self.module, file)
        try:
            text = inspect.getsource(self.func)
        except (OSError, TypeError):
            code = getattr(self.func, "__code__", None)
            text = repr((code.co_code, code.co_consts)) if code is not None else self.name
        return hashlib.sha256(text.encode()).hexdigest()

    def arguments(self, args: tuple, kwargs: dict) -> dict[str, Any] | None:
        """The bound arguments that count (None when they do not fit the signature)."""
        try:
            bound = self.signature.bind(*args, **kwargs)
        except TypeError:
            return None
        bound.apply_defaults()
        out = {}
        for name, value in bound.arguments.items():
            if name in self.ignore:
                continue
            if self.signature.parameters[name].kind is inspect.Parameter.VAR_KEYWORD:
                value = {k: v for k, v in value.items() if k not in self.ignore}
            out[name] = value
        return out

    def key(self, arguments: dict[str, Any]) -> tuple[str, dict[str, Any]]:
        """The key of a call, and the facts it was made from (for ``meta.json``)."""
        facts = {
            "function": self.name,
            "arguments": joblib.hash(arguments),
            "code_digest": code_digest(self.module),
            "versions": package_versions(),
        }
        if self.own_source is not None:
            facts["own_source"] = self.own_source
        blob = json.dumps(facts, sort_keys=True).encode()
        return hashlib.sha256(blob).hexdigest(), facts

    def folder(self, key: str) -> Path:
        return store.entry_folder(cache_dir(), self.study, self.name, key[:_KEY_HEX])

    def function_folder(self) -> Path:
        return self.folder("x").parent


def _lookup(folder: Path) -> tuple[dict[str, Any] | None, str]:
    """The meta of a usable entry and ``"hit"``, or None and why not (``"absent"``,
    ``"stale"``: a data file changed, ``"corrupt"``)."""
    try:
        meta = store.read_meta(folder)
    except FileNotFoundError:
        return None, "absent"
    except store.EntryError as exc:
        warnings.warn(f"{exc}; computing it again", CacheWarning, stacklevel=4)
        return None, "corrupt"
    for key, digest in meta.get("data_files", {}).items():
        if recorded_digest(key) != digest:
            logger.info("%s: %s changed since it was read; computing again", folder, key)
            return None, "stale"
    return meta, "hit"


def _log(cache: _Cached, hit: bool, seconds: float, key: str) -> None:
    target = os.environ.get(LOG_ENV, "").strip()
    if not target:
        return
    line = {
        "function": cache.name,
        "study": cache.study,
        "hit": hit,
        "seconds": round(seconds, 3),
        "key": key[:12],
    }
    data = (json.dumps(line) + "\n").encode()
    try:
        fd = os.open(target, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        try:
            os.write(fd, data)  # one write of one short line: lines of processes do not mix
        finally:
            os.close(fd)
    except OSError as exc:
        logger.debug("cannot append to $%s (%s): %s", LOG_ENV, target, exc)


def _call(cache: _Cached, args: tuple, kwargs: dict) -> Any:
    started = time.perf_counter()
    arguments = cache.arguments(args, kwargs)
    if arguments is None:  # let the function raise its own TypeError
        return cache.func(*args, **kwargs)
    key, facts = cache.key(arguments)
    folder = cache.folder(key)
    meta, _ = _lookup(folder)
    if meta is not None:
        try:
            value = store.read_entry(folder)
        except FileNotFoundError:
            pass  # replaced by another process meanwhile
        except store.EntryError as exc:
            warnings.warn(f"{exc}; computing it again", CacheWarning, stacklevel=3)
        else:
            note(meta.get("data_files", {}))
            store.touch_entry(folder, meta)
            _log(cache, True, time.perf_counter() - started, key)
            return value
    with recording() as files:
        value = cache.func(*args, **kwargs)
    seconds = time.perf_counter() - started
    stamp = store.now()
    record = {
        "function": cache.name,
        "study": cache.study,
        "key": key,
        "created": stamp,
        "last_used": stamp,
        "compute_seconds": round(seconds, 3),
        "code_digest": facts["code_digest"],
        "closure": import_closure(cache.module),
        "versions": facts["versions"],
        "data_files": dict(sorted(files.items())),
    }
    try:
        store.write_entry(folder, value, record)
    except Exception as exc:  # an unpicklable result or a full disk: keep the result anyway
        problem = f"{type(exc).__name__}: {exc}"
        warnings.warn(
            f"could not store the result of {cache.name} in {folder}: {problem}",
            CacheWarning,
            stacklevel=3,
        )
    _log(cache, False, seconds, key)
    return value


@overload
def cached(func: F, *, ignore: Iterable[str] = ()) -> F: ...
@overload
def cached(func: None = None, *, ignore: Iterable[str] = ()) -> Callable[[F], F]: ...
def cached(func: Callable[..., Any] | None = None, *, ignore: Iterable[str] = ()) -> Any:
    """Cache a function's results on disk, keyed by its arguments and the code it runs.

    Use as ``@cached`` or ``@cached(ignore=("verbose",))``; the key and where entries live are
    described in the module docstring. The cache folder is looked up at each call (see
    :func:`cache_dir`). The wrapped function gains ``.clear()`` (drop its stored results at the
    current location) and ``.check_call_in_cache(*args, **kwargs)`` (whether that call would be
    a hit, without computing or loading anything).

    Parameters
    ----------
    func : callable, optional
        The function to cache (a module-level function, so that it can be identified).
    ignore : iterable of str, default ()
        Names of arguments left out of the key (e.g. ``verbose``, ``n_jobs``); also names
        passed through ``**kwargs``.

    Returns
    -------
    callable
        The caching wrapper.

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
    ignored = list(ignore)
    if func is None:
        return functools.partial(cached, ignore=ignored)
    if not callable(func):
        raise TypeError(f"cached expects a function, got {type(func).__name__}")
    cache = _Cached(func, ignored)

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        return _call(cache, args, kwargs)

    def clear() -> None:
        shutil.rmtree(cache.function_folder(), ignore_errors=True)

    def check_call_in_cache(*args: Any, **kwargs: Any) -> bool:
        arguments = cache.arguments(args, kwargs)
        if arguments is None:
            return False
        return _lookup(cache.folder(cache.key(arguments)[0]))[0] is not None

    wrapper.clear = clear  # type: ignore[attr-defined]
    wrapper.check_call_in_cache = check_call_in_cache  # type: ignore[attr-defined]
    return wrapper


def clear_cache(
    location: str | os.PathLike[str] | None = None, *, study: str | None = None
) -> None:
    """Delete every stored result under ``location`` (default :func:`cache_dir`), or one study's.

    Parameters
    ----------
    location : str or path-like, optional
    study : str, optional
        Only this study's folder (a package name of ``nlpbias.studies``, or ``"shared"``).

    Raises
    ------
    nlpbias.core.cache_store.CacheError
        An unknown study; the message lists the known ones.

    Examples
    --------
    >>> import tempfile
    >>> clear_cache(tempfile.mkdtemp())
    """
    store.clear_folder(_location(location), study)


def cache_summary(location: str | os.PathLike[str] | None = None) -> Any:
    """One row per study: stored entries, their size in MB and when one was last used.

    Parameters
    ----------
    location : str or path-like, optional
        Default :func:`cache_dir`.

    Returns
    -------
    pandas.DataFrame
        Columns ``study``, ``entries``, ``size_mb``, ``last_used``; ``attrs["location"]`` is
        the folder and ``attrs["other"]`` lists top-level folders that belong to no study
        (older cache layouts; :func:`clear_cache` removes them).
    """
    import pandas as pd

    folder = _location(location)
    rows, other = store.summarise_folder(folder)
    table = pd.DataFrame(rows, columns=["study", "entries", "size_mb", "last_used"])
    table.attrs = {"location": str(folder), "other": other}
    return table
