"""Which numbers of a chapter travel between machines: records in ``data/machines/<chapter>.yaml``.

Seeds make a run repeatable on one machine; across processors, trained models can differ
(:mod:`nlpbias.core.repro`). Each chapter states which of its numbers were found identical on two
machines and which were not, from a record the project wrote with its source: the runs compared,
whether they agreed exactly (``agree_exactly``: true, false, or null where no comparison is on
record), what was compared and what was not.

Chapters whose numbers differ (the CNN chapters) keep their numbers of both machines in the
same folder and state the differences with their own study functions.

Examples
--------
>>> rec = load_machine_record("logan")
>>> rec["agree_exactly"], rec["profile"]
(True, 'paper')
>>> "bit-identical" in travel_sentence(rec)
True
"""

from __future__ import annotations

from typing import Any

import yaml

from nlpbias.core.paths import data_file

__all__ = ["load_machine_record", "travel_sentence"]

_REQUIRED = ("source", "profile", "agree_exactly", "compared")


def load_machine_record(chapter: str) -> dict[str, Any]:
    """The record ``data/machines/<chapter>.yaml``, checked (a clear error if absent or partial)."""
    path = data_file("machines", f"{chapter}.yaml")
    if not path.is_file():
        raise FileNotFoundError(
            f"no record of {chapter!r} on other machines at {path}; write data/machines/"
            f"{chapter}.yaml with {', '.join(_REQUIRED)}"
        )
    record = yaml.safe_load(path.read_text(encoding="utf-8"))
    missing = [k for k in _REQUIRED if k not in (record or {})]
    if missing:
        raise ValueError(f"{path} lacks {missing}; every record names {', '.join(_REQUIRED)}")
    return record


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
