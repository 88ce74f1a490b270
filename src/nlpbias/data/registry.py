"""Dataset registry: which files each dataset has, their sha256, and where they come from.

The registry lives in ``registry.yaml`` beside this module. A dataset is a folder of the data home
(``$NLPBIAS_DATA``, default ``~/nlpbias_data``). Files whose upstream copy is byte-identical carry
a ``url`` and can be downloaded on demand; files prepared for the book (gzipped, extracted,
derived) carry ``url: null`` and a ``prepared`` note instead. Checking and fetching the files on
disk is :mod:`nlpbias.data.store`'s job.
"""

from __future__ import annotations

import functools
import importlib.resources
import os
from dataclasses import dataclass
from pathlib import Path, PurePath
from typing import Any

import pandas as pd
import yaml


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


def list_datasets() -> pd.DataFrame:
    """Table of the registered datasets.

    ``available`` is True when every file is present in the data home with the registered size
    (a cheap check; :func:`nlpbias.data.store.verify` compares checksums).

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
