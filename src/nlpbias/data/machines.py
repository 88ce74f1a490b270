"""Which numbers of a chapter travel between machines: records in ``data/machines/<chapter>.yaml``.

Seeds make a run repeatable on one machine; across processors, trained models can differ
(:mod:`nlpbias.core.repro`). Each chapter states which of its numbers were found identical on two
machines and which were not, from a record the project wrote with its source: the runs compared,
whether they agreed exactly (``agree_exactly``: true, false, or null where no comparison is on
record), what was compared and what was not.

Chapters whose numbers differ (the CNN chapters) also record the numbers of both runs (``here``
and ``other``, with ``here_name``, ``other_name`` and ``identical_on_one_machine``);
:func:`compare_runs` sets them side by side, and each chapter words the consequence for its own
verdicts.

Examples
--------
>>> rec = load_machine_record("logan")
>>> rec["agree_exactly"], rec["profile"]
(True, 'paper')
>>> "bit-identical" in travel_sentence(rec)
True
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import yaml

from nlpbias.core.paths import data_file

__all__ = ["compare_runs", "load_machine_record", "travel_sentence"]

_REQUIRED = ("source", "profile", "agree_exactly", "compared")
#: The fields a record with the numbers of two runs adds (:func:`compare_runs`).
_TWO_RUNS = ("here", "other", "here_name", "other_name", "identical_on_one_machine")


def load_machine_record(
    chapter: str, *, path: str | Path | None = None, two_runs: bool = False
) -> dict[str, Any]:
    """The record ``data/machines/<chapter>.yaml`` (or ``path``), checked.

    Raises a clear error when the file is absent or lacks a field every record has; with
    ``two_runs``, also the fields of the numbers of two runs that :func:`compare_runs` reads.
    """
    path = Path(path) if path is not None else data_file("machines", f"{chapter}.yaml")
    if not path.is_file():
        raise FileNotFoundError(
            f"no record of {chapter!r} on other machines at {path}; write data/machines/"
            f"{chapter}.yaml with {', '.join(_REQUIRED)}"
        )
    record = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    required = _REQUIRED + (_TWO_RUNS if two_runs else ())
    missing = [k for k in required if k not in record]
    if missing:
        raise ValueError(f"{path} lacks {missing}; such a record names {', '.join(required)}")
    return record


def _estimate(value: Any) -> float:
    return float(value["estimate"] if isinstance(value, dict) else value)


def compare_runs(record: dict[str, Any], labels: dict[str, str] | None = None) -> pd.DataFrame:
    """The numbers both recorded runs report, side by side.

    One row per key of ``record["here"]`` that ``record["other"]`` also has (a value is a number
    or ``{estimate, low, high}``), in the order of ``here``: ``key``, ``row`` (its label from
    ``labels``, else the key), ``here``, ``here low``, ``here high`` (NaN without an interval),
    ``other``, ``difference`` (other − here) and ``inside`` (whether the other run's number lies
    in this run's interval; NaN without one).

    Examples
    --------
    >>> rec = {"here": {"a": {"estimate": 0.5, "low": 0.3, "high": 0.7}, "b": {"estimate": 1}},
    ...        "other": {"a": 0.4, "c": 2.0}}
    >>> compare_runs(rec)[["row", "difference", "inside"]].round(3).values.tolist()
    [['a', -0.1, True]]
    """
    rows = []
    for key, here in record["here"].items():
        if key not in record["other"]:
            continue
        here = here if isinstance(here, dict) else {"estimate": here}
        low, high = float(here.get("low", np.nan)), float(here.get("high", np.nan))
        other = _estimate(record["other"][key])
        rows.append(
            {
                "key": key,
                "row": (labels or {}).get(key, key),
                "here": _estimate(here),
                "here low": low,
                "here high": high,
                "other": other,
                "inside": bool(low <= other <= high) if np.isfinite([low, high]).all() else np.nan,
            }
        )
    cols = ["key", "row", "here", "here low", "here high", "other", "inside"]
    out = pd.DataFrame(rows, columns=cols)
    out.insert(6, "difference", out["other"] - out["here"])
    return out


def travel_sentence(record: dict[str, Any]) -> str:
    """Markdown: which of the chapter's numbers are bit-identical where, from its record."""
    on_one = (
        "On one machine a re-run with the same parameters gives bit-identical numbers (every "
        "step that samples is seeded)."
    )
    if record["agree_exactly"] is None:
        across = (
            " Across processors they have not been compared yet: no two runs of this chapter "
            f"on different CPUs are on record ({record['compared']})"
        )
    elif record["agree_exactly"]:
        across = (
            f" Across processors they agreed too: two `{record['profile']}` runs on 2-core "
            f"machines with different CPUs agreed exactly on {record['compared']}"
        )
    else:
        across = (
            f" Across processors they did not all agree: two `{record['profile']}` runs on "
            f"2-core machines with different CPUs differed in {record['compared']}"
        )
    text = f"{on_one}{across} (source: {record['source'].strip()})."
    if record.get("not_compared"):
        text += f" Not compared: {record['not_compared'].strip()}."
    return text + " Each run records its CPU and BLAS in the executed notebook's metadata."
