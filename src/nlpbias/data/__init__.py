"""Datasets of the book: the registry (files, sha256, sources) and, as submodules, the loaders.

The catalogue is :mod:`nlpbias.data.registry`; checking, caching and downloading the files of the
data home is :mod:`nlpbias.data.store`.

Examples
--------
>>> from nlpbias import data
>>> sorted(data.datasets())[:2]
['davidson2017', 'dixon2018']
"""

from nlpbias.data.registry import (
    ChecksumError,
    DataError,
    DatasetNotFoundError,
    MissingDataError,
    data_home,
    datasets,
    get,
    list_datasets,
)
from nlpbias.data.store import fetch, path, resolve, verify

__all__ = [
    "ChecksumError",
    "DataError",
    "DatasetNotFoundError",
    "MissingDataError",
    "data_home",
    "datasets",
    "fetch",
    "get",
    "list_datasets",
    "path",
    "resolve",
    "verify",
]
