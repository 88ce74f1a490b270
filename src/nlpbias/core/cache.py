"""On-disk cache for slow computations (a thin layer over :class:`joblib.Memory`).

A cached result is keyed by the function (module and qualified name), a hash of its arguments,
and its source code: calling with the same arguments returns the stored result; a changed
argument computes a new one; editing the function's body wipes that function's stored results.
Only the decorated function's own source is checked: edits to helpers it calls are not seen, so
clear the cache (:func:`clear_cache`) after changing those.

Location: ``$NLPBIAS_CACHE`` if set, else ``<project root>/.nlpbias_cache`` in a source checkout
(the folder holding ``pyproject.toml``), else ``~/.cache/nlpbias``. The location is looked up at
each call, so setting ``$NLPBIAS_CACHE`` after import takes effect.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any, TypeVar, overload

import joblib

from nlpbias.core.paths import checkout_dir

__all__ = ["cache_dir", "cached", "clear_cache", "memory"]

F = TypeVar("F", bound=Callable[..., Any])


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


def memory(location: str | os.PathLike[str] | None = None) -> joblib.Memory:
    """Return a silent :class:`joblib.Memory` at ``location`` (default :func:`cache_dir`).

    Parameters
    ----------
    location : str or path-like, optional
        Cache folder; created on first use.

    Returns
    -------
    joblib.Memory

    Examples
    --------
    >>> import tempfile
    >>> square = memory(tempfile.mkdtemp()).cache(lambda x: x * x)
    >>> square(3)
    9
    """
    if location is not None and not isinstance(location, str | os.PathLike):
        raise TypeError(f"location must be a folder path or None, got {type(location).__name__}")
    folder = cache_dir() if location is None else Path(location).expanduser()
    if folder.exists() and not folder.is_dir():
        raise NotADirectoryError(f"cache location {folder} is a file; pass a folder")
    return joblib.Memory(location=str(folder), verbose=0)


@overload
def cached(func: F, *, ignore: Iterable[str] = ()) -> F: ...
@overload
def cached(func: None = None, *, ignore: Iterable[str] = ()) -> Callable[[F], F]: ...
def cached(func: Callable[..., Any] | None = None, *, ignore: Iterable[str] = ()) -> Any:
    """Cache a function's results on disk, keyed by its code, name and arguments.

    Use as ``@cached`` or ``@cached(ignore=("verbose",))``. The cache folder is looked up at
    each call (see :func:`cache_dir`). The wrapped function gains ``.clear()`` (drop its stored
    results at the current location) and ``.check_call_in_cache(*args, **kwargs)``.

    Parameters
    ----------
    func : callable, optional
        The function to cache (a module-level function, so that it can be identified).
    ignore : iterable of str, default ()
        Names of arguments left out of the key (e.g. ``verbose``, ``n_jobs``).

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

    memos: dict[str, Any] = {}

    def _memorized() -> Any:
        location = str(cache_dir())
        if location not in memos:
            memos[location] = memory(location).cache(func, ignore=ignored)
        return memos[location]

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        return _memorized()(*args, **kwargs)

    wrapper.clear = lambda: _memorized().clear(warn=False)  # type: ignore[attr-defined]
    wrapper.check_call_in_cache = (  # type: ignore[attr-defined]
        lambda *args, **kwargs: _memorized().check_call_in_cache(*args, **kwargs)
    )
    return wrapper


def clear_cache(location: str | os.PathLike[str] | None = None) -> None:
    """Delete every stored result under ``location`` (default :func:`cache_dir`).

    Parameters
    ----------
    location : str or path-like, optional

    Examples
    --------
    >>> import tempfile
    >>> clear_cache(tempfile.mkdtemp())
    """
    memory(location).clear(warn=False)
