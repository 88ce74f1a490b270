"""The intrinsic-vs-extrinsic chapter's headline rows for the reproduction scorecard.

Katô & Miyao's headlines (``data/reported/kato2024.yaml``, their Tables 3-10), one row each:

- ``weat_aligned_word2vec``, ``weat_aligned_fasttext``: with word sets aligned to WinoBias, WEAT
  predicts the coreference gap (ρ 0.83–0.91 for word2vec, 0.88–0.91 for fastText);
- ``rnsb_aligned``: aligned RNSB less so (ρ 0.56–0.67, both algorithms);
- ``weat_generic``: the generic WEAT 6–8 sets do not predict it (|ρ| ≤ 0.22) — a claim of *no*
  effect;
- ``hsd_gender``, ``hsd_race``: aligned WEAT does not predict the hate-speech detector's gaps
  (mostly not significant) — claims of no effect.

The paper's number of a row is the range of its cells (the precision, recall and F1 rows of the
views it names); this book's is the mean ρ of the same cells of :func:`~nlpbias.studies.
intrinsic_extrinsic.correlation.correlations`, with a 95 % bootstrap interval over the embeddings
(:func:`~nlpbias.studies.intrinsic_extrinsic.correlation.mean_rho_interval`). A pretrained
embedding (the demo's GloVe) stands in for word2vec, as in the chapter's tables.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from nlpbias.core.scorecard import headline
from nlpbias.studies.intrinsic_extrinsic.correlation import mean_rho_interval
from nlpbias.studies.intrinsic_extrinsic.families import ALGORITHMS, FAMILIES
from nlpbias.studies.intrinsic_extrinsic.paper import reported_table

__all__ = ["HEADLINES", "SECTION", "headlines"]

#: Label (anchor) of the chapter section with the correlation tables.
SECTION = "intrinsic-extrinsic-tables"

#: The rows: which cells of the correlation tables each claim rests on.
HEADLINES: tuple[dict[str, Any], ...] = (
    {
        "key": "weat_aligned_word2vec",
        "family": "coref",
        "algorithms": ("word2vec",),
        "modset": "extracted",
        "wordsets": ("extracted",),
        "intrinsic": "weat",
        "kind": "direction",
        "claim": "With word sets aligned to WinoBias, WEAT predicts the coreference gap "
        "(pro − anti) over word2vec embeddings: Spearman ρ {paper}.",
    },
    {
        "key": "weat_aligned_fasttext",
        "family": "coref",
        "algorithms": ("fasttext",),
        "modset": "extracted",
        "wordsets": ("extracted",),
        "intrinsic": "weat",
        "kind": "direction",
        "claim": "The same over fastText embeddings: ρ {paper}.",
    },
    {
        "key": "rnsb_aligned",
        "family": "coref",
        "algorithms": ALGORITHMS,
        "modset": "extracted",
        "wordsets": ("extracted",),
        "intrinsic": "rnsb",
        "kind": "direction",
        "claim": "Aligned RNSB predicts the coreference gap less well: ρ {paper}.",
    },
    {
        "key": "weat_generic",
        "family": "coref",
        "algorithms": ALGORITHMS,
        "modset": "weat",
        "wordsets": ("weat6", "weat7", "weat8"),
        "intrinsic": "weat",
        "kind": "null",
        "claim": "Generic WEAT 6–8 (career, maths, science vs family, arts) does not predict "
        "the coreference gap: ρ {paper}.",
    },
    {
        "key": "hsd_gender",
        "family": "hsd_gender",
        "algorithms": ALGORITHMS,
        "modset": "extracted",
        "wordsets": ("extracted",),
        "intrinsic": "weat",
        "kind": "null",
        "claim": "Aligned WEAT does not predict the hate-speech detector's gender gaps "
        "(mostly not significant): ρ {paper}.",
    },
    {
        "key": "hsd_race",
        "family": "hsd_race",
        "algorithms": ALGORITHMS,
        "modset": "extracted",
        "wordsets": ("extracted",),
        "intrinsic": "weat",
        "kind": "null",
        "claim": "Aligned WEAT does not predict the detector's race (dialect) gaps either "
        "(mostly not significant): ρ {paper}.",
    },
)


def _views(family: str) -> list[str]:
    return list(FAMILIES[family].views)


def _paper_range(spec: Mapping[str, Any], reported: pd.DataFrame) -> tuple[float, float, str]:
    """Range of the paper's ρ over the row's cells, and the tables they come from."""
    fam = FAMILIES[spec["family"]]
    sel = reported[
        (reported["statistic"] == "rho")
        & (reported["bias"] == fam.bias)
        & reported["algorithm"].isin(spec["algorithms"])
        & reported["view"].isin(_views(spec["family"]))
        & reported["wordset"].isin(spec["wordsets"])
        & (reported["intrinsic"] == spec["intrinsic"])
    ]
    if sel.empty:
        raise ValueError(f"no reported cells for headline {spec['key']!r} in kato2024.yaml")
    tables = sorted(sel["table"].unique())
    where = ("Table " if len(tables) == 1 else "Tables ") + ", ".join(map(str, tables))
    return float(sel["value"].min()), float(sel["value"].max()), where


def _book_algorithms(spec: Mapping[str, Any], available: list[str]) -> tuple[list[str], str]:
    """The run's algorithms that answer the row, and a note when a pretrained one stands in."""
    found = [a for a in spec["algorithms"] if a in available]
    stand_ins = [a for a in available if a not in ALGORITHMS]
    if "word2vec" in spec["algorithms"] and "word2vec" not in found and stand_ins:
        return [*found, *stand_ins], f"{', '.join(stand_ins)} stands in for word2vec"
    return found, ""


def headlines(
    scores: pd.DataFrame,
    corr: pd.DataFrame,
    *,
    task_options: Mapping[str, Any],
    n_resamples: int = 2000,
    random_state: int,
    chapter: str = "intrinsic_extrinsic",
) -> list[dict[str, Any]]:
    """Headline rows of the chapter (see the module docstring).

    Parameters
    ----------
    scores, corr : pandas.DataFrame
        :func:`~nlpbias.studies.intrinsic_extrinsic.correlation.scores_frame` and
        :func:`~nlpbias.studies.intrinsic_extrinsic.correlation.correlations` of the run.
    task_options : mapping
        The chapter's ``task_options``: a coreference task on the generated stand-in
        (``{"coref": {"source": "standin"}}``) makes the coreference rows synthetic.
    n_resamples, random_state
        Of the bootstrap over embeddings.

    Returns
    -------
    list of dict
        Rows of :func:`nlpbias.core.scorecard.headline`, in the order of :data:`HEADLINES`.
    """
    source = dict(task_options.get("coref") or {}).get("source", "data_home")
    reported = reported_table()
    rows = []
    for spec in HEADLINES:
        lo, hi, where = _paper_range(spec, reported)
        coref = FAMILIES[spec["family"]].task == "coref"
        data = "synthetic" if coref and source == "standin" else "real"
        available = list(corr.loc[corr["family"] == spec["family"], "algorithm"].unique())
        algs, note = _book_algorithms(spec, available) if len(corr) else ([], "")
        cells = corr[
            (corr["family"] == spec["family"])
            & corr["algorithm"].isin(algs)
            & (corr["modset"] == spec["modset"])
            & corr["wordset"].isin(spec["wordsets"])
            & (corr["intrinsic"] == spec["intrinsic"])
            & corr["view"].isin(_views(spec["family"]))
        ] if len(corr) else corr  # fmt: skip
        book = ci_low = ci_high = None
        if cells.empty:
            interval = "none: these cells are not in this run"
            if not coref:
                note = "the hate-speech families need the data home (profile `paper`)"
        else:
            book = float(cells["rho"].mean())
            what = f"mean ρ of {len(cells)} cells ({', '.join(algs)})"
            try:
                ci_low, ci_high, n = mean_rho_interval(
                    scores, cells, n_resamples=n_resamples, random_state=random_state
                )
                interval = f"{what}; 95 % bootstrap over {n} embeddings"
            except ValueError:
                interval = f"{what}; none: too few embeddings to resample"
        shown = f"{lo:.2f}" if np.isclose(lo, hi) else f"{lo:.2f} to {hi:.2f}"
        rows.append(
            headline(
                study="intrinsic_extrinsic",
                key=spec["key"],
                claim=spec["claim"].format(paper=f"{shown} ({where})"),
                kind=spec["kind"],
                paper=(lo, hi),
                book=book,
                ci_low=ci_low,
                ci_high=ci_high,
                interval=interval,
                unit="Spearman ρ",
                data=data,
                chapter=chapter,
                section=SECTION,
                note=note,
            )
        )
    return rows
