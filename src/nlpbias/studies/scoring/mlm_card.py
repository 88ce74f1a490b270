"""The stand-in's quality card: read it, and its headline numbers as one row.

:func:`nlpbias.studies.scoring.mlm.adapt_mlm` writes ``quality_card.json`` into the model folder;
these functions read it (re-exported by :mod:`nlpbias.studies.scoring.mlm`).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pandas as pd

__all__ = ["CARD_FILE", "card_summary", "quality_card"]

CARD_FILE = "quality_card.json"


def quality_card(path: str | Path) -> dict[str, Any]:
    """Read the quality card (``quality_card.json``) of a stand-in folder.

    Returns
    -------
    dict
        ``complete``, ``steps_done``, ``training_seconds``, ``held_out`` (``top1``, ``top5``,
        ``loss``), ``history`` (one entry per evaluation), ``data``, ``config``, ``probes``.
    """
    card = Path(path).expanduser() / CARD_FILE
    if not card.is_file():
        raise FileNotFoundError(
            f"{card} does not exist; build the stand-in with "
            "nlpbias.studies.scoring.mlm.adapt_mlm()"
        )
    return json.loads(card.read_text())


def card_summary(card: dict[str, Any]) -> pd.Series:
    """The quality card's headline numbers as one Series (for a table in the chapter).

    Examples
    --------
    >>> card_summary(quality_card(path))["held-out top-1"]  # doctest: +SKIP
    """
    data = card["data"]
    return pd.Series(
        {
            "encoder": card["config"]["encoder"],
            "complete": card["complete"],
            "steps done": card["steps_done"],
            "steps planned": card["config"]["steps"],
            "training minutes": round(card["training_seconds"] / 60, 1),
            "device": card["device"],
            "held-out top-1": card["held_out"]["top1"],
            "held-out top-5": card["held_out"]["top5"],
            "held-out masked tokens": int(card["held_out"]["n_masked"]),
            "training texts": data["n_texts"],
            "training blocks": data["n_train_blocks"],
            "training tokens": data["n_train_tokens"],
        },
        name="stand-in",
        dtype=object,
    )
