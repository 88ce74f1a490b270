"""Where things are: the package, the project checkout and the project's own ``data/`` folder.

The project's facts (word sets, identity terms, groups, templates, reported numbers) live in
``data/`` beside ``src/`` in the checkout. They are resolved by :func:`data_file`, the one place
that knows the folder. (Every file of ``data/`` is part of the key of every cached result:
:mod:`nlpbias.core.cache`.)

Examples
--------
>>> package_dir().name
'nlpbias'
>>> data_file("identity_terms").is_dir()
True
"""

from __future__ import annotations

from pathlib import Path

__all__ = ["checkout_dir", "data_dir", "data_file", "package_dir"]


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

    Examples
    --------
    >>> data_file("reported", "dixon2018.yaml").name
    'dixon2018.yaml'
    """
    return data_dir().joinpath(*parts)
