"""Which of the chapter's numbers travel between machines: the paragraph and its data.

``data/machines/intrinsic_extrinsic.yaml`` records the headline rows of two `paper` runs on
2-core machines with different CPUs (with its source);
:func:`nlpbias.data.machines.compare_runs` sets them side by side and :func:`machine_paragraph`
writes the chapter's paragraph from that file and this run's seed spread
(:func:`~nlpbias.studies.intrinsic_extrinsic.headlines.headline_intervals`), so that no number in
it is typed by hand.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from nlpbias.data.machines import compare_runs, load_machine_record

__all__ = ["load_machines", "machine_paragraph"]

_LABELS = {
    "weat_aligned_word2vec": "aligned WEAT, word2vec",
    "weat_aligned_fasttext": "aligned WEAT, fastText",
    "rnsb_aligned": "aligned RNSB",
    "weat_generic": "generic WEAT 6–8",
    "hsd_gender": "hate speech, gender",
    "hsd_race": "hate speech, race",
}


def load_machines(path: str | Path | None = None) -> dict[str, Any]:
    """The record of the two machines' runs (``data/machines/intrinsic_extrinsic.yaml``)."""
    return load_machine_record("intrinsic_extrinsic", path=path, two_runs=True)


def _pair(r: pd.Series) -> str:
    text = f"{r['row']} {r['here']:.3g} here against {r['other']:.3g} there"
    if np.isfinite(r["here low"]) and np.isfinite(r["here high"]):
        text += f" (here with the interval [{r['here low']:.3g}, {r['here high']:.3g}])"
    return text


def machine_paragraph(
    profile: str,
    spans: pd.DataFrame | None = None,
    record: Mapping[str, Any] | None = None,
) -> str:
    """The chapter's paragraph on which numbers are bit-identical and which vary across CPUs.

    Parameters
    ----------
    profile : str
        This run's profile: the record's runs are of its ``profile`` (``paper``); on another
        profile the paragraph says that the record is not of this run's data.
    spans : DataFrame, optional
        :func:`~nlpbias.studies.intrinsic_extrinsic.headlines.headline_intervals` of this run,
        for the seed spread the headline intervals include.
    record : mapping, optional
        :func:`load_machines` (default: the project's file).
    """
    record = load_machines() if record is None else record
    table = compare_runs(record, _LABELS)
    lines = [
        "**Which numbers travel between machines.** On one machine the chapter's numbers repeat "
        "bit for bit from run to run, the timing table apart: "
        f"{record.get('identical_on_one_machine', '').strip()}. Across CPUs they do not: the "
        "embeddings trained on `paper`, the Attract-Repel updates and the downstream models "
        "are sums of floating-point numbers whose order depends on the CPU's vector "
        "instructions and its BLAS, so their last digits differ, training amplifies the "
        "difference, and a correlation over a few dozen embeddings moves with it."
    ]
    if len(table):
        worst = table.loc[table["difference"].abs().idxmax()]
        pairs = "; ".join(_pair(r) for _, r in table.iterrows())
        lines.append(
            f"Two `{record['profile']}` runs of this chapter — {record['here_name']} and "
            f"{record['other_name']} — gave: {pairs}. The largest difference is "
            f"{abs(worst['difference']):.3g} ({worst['row']})."
        )
        flips = record.get("flips") or {}
        for key, why in flips.items():
            label = _LABELS.get(key, key)
            lines.append(f"{label[:1].upper()}{label[1:]}: {why.strip()}.")
    lines.append(f"Source: {record['source'].strip()}.")
    if profile != record["profile"]:
        lines.append(
            f"These are `{record['profile']}` runs; this run is `{profile}`, for which no second "
            "machine's run is recorded, and its numbers may differ on another CPU in the same way."
        )
    if spans is not None and len(spans):
        ok = spans[spans["seeds"] > 1]
        if len(ok):
            lines.append(
                "This is why every headline row of this chapter is marked *varies across "
                "CPUs* and its interval is widened to cover the downstream seed spread: in "
                "this run the original embedding's gaps vary by a standard deviation of up to "
                f"{ok['seed_sd'].max():.2g} over its {int(ok['seeds'].min())} downstream seeds, "
                f"against a range of up to {ok['range'].max():.2g} over the embeddings."
            )
        else:
            lines.append(
                "This is why every headline row of this chapter is marked *varies across "
                "CPUs*; this run has one downstream seed per embedding, so its intervals "
                "cannot include the seed spread."
            )
    return " ".join(lines)
