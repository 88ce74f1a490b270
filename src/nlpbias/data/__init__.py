"""Datasets of the book: the registry (files, sha256, sources) and, as submodules, the loaders.

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
    fetch,
    get,
    list_datasets,
    path,
    verify,
)

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
    "verify",
]
