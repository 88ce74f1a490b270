"""The numbers the papers reported (``data/reported/*.yaml``), read through ``core.paths``."""

from __future__ import annotations

from typing import Any

from nlpbias.core.paths import data_file

__all__ = ["load_reported"]


def load_reported(name: str) -> dict[str, Any]:
    """The numbers a paper reported, from ``data/reported/<name>.yaml`` (facts the project wrote).

    Examples
    --------
    >>> load_reported("zhao2020logan")["random_split_gap"]
    2.4
    """
    import yaml

    path = data_file("reported", f"{name}.yaml")
    if not path.is_file():
        raise FileNotFoundError(
            f"no reported numbers at {path}; expected data/reported/{name}.yaml"
        )
    return yaml.safe_load(path.read_text(encoding="utf-8"))
