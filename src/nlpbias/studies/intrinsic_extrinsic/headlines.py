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
from nlpbias.studies.intrinsic_extrinsic.correlation import check_one_design, mean_rho_interval
from nlpbias.studies.intrinsic_extrinsic.families import ALGORITHMS, FAMILIES
from nlpbias.studies.intrinsic_extrinsic.paper import reported_table

__all__ = ["HEADLINES", "SECTION", "headline_intervals", "headlines"]

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


def _cells(spec: Mapping[str, Any], corr: pd.DataFrame, algs: list[str]) -> pd.DataFrame:
    """The cells of the correlation tables a headline row rests on."""
    if not len(corr):
        return corr
    return corr[
        (corr["family"] == spec["family"])
        & corr["algorithm"].isin(algs)
        & (corr["modset"] == spec["modset"])
        & corr["wordset"].isin(spec["wordsets"])
        & (corr["intrinsic"] == spec["intrinsic"])
        & corr["view"].isin(_views(spec["family"]))
    ]


def headline_intervals(
    scores: pd.DataFrame,
    corr: pd.DataFrame,
    *,
    n_resamples: int = 2000,
    random_state: int,
) -> pd.DataFrame:
    """Each headline row's mean ρ with both intervals the chapter can afford, and the spread.

    ``embeddings``: the bootstrap over the embeddings alone; ``with seeds``: the same bootstrap
    with the downstream seed-to-seed spread added to every gap (:func:`~nlpbias.studies.
    intrinsic_extrinsic.correlation.mean_rho_interval` with ``seed_spread=True``); ``low`` and
    ``high``, the interval the headline rows use, span both (the lower of the two lows, the
    higher of the two highs). ``seeds`` and ``seed_sd`` are the original embedding's number of
    downstream seeds and the largest standard deviation over them of the row's gaps; ``range``
    the largest range of those gaps over the embeddings. Rows whose cells are not in this run
    are left out; a row with too few embeddings to resample has NaN intervals.
    """
    from nlpbias.studies.intrinsic_extrinsic.correlation import seed_spread

    rows = []
    for spec in HEADLINES:
        available = (
            list(corr.loc[corr["family"] == spec["family"], "algorithm"].unique())
            if len(corr)
            else []
        )
        algs, _ = _book_algorithms(spec, available)
        cells = _cells(spec, corr, algs)
        if cells.empty:
            continue
        row: dict[str, Any] = {
            "key": spec["key"],
            "cells": len(cells),
            "rho": float(cells["rho"].mean()),
        }
        for name, noisy in (("embeddings", False), ("with seeds", True)):
            try:
                lo, hi, n = mean_rho_interval(
                    scores,
                    cells,
                    n_resamples=n_resamples,
                    random_state=random_state,
                    seed_spread=noisy,
                )
            except ValueError:
                lo = hi = np.nan
                n = int(cells["n"].max())
            row[f"{name} low"], row[f"{name} high"] = lo, hi
            row["embeddings"] = n
        # the headline interval covers both: the seed noise alone can narrow a bootstrap of
        # few points (it smooths the few values ρ takes), and must not make it narrower
        row["low"] = min(row["embeddings low"], row["with seeds low"])
        row["high"] = max(row["embeddings high"], row["with seeds high"])
        spread = seed_spread(scores, cells)
        row["seeds"] = int(spread["seeds"].min()) if len(spread) else 0
        row["seed_sd"] = float(spread["seed_sd"].max()) if len(spread) else np.nan
        row["range"] = float(spread["range"].max()) if len(spread) else np.nan
        rows.append(row)
    cols = ["key", "cells", "embeddings", "rho", "embeddings low", "embeddings high",
            "with seeds low", "with seeds high", "low", "high",
            "seeds", "seed_sd", "range"]  # fmt: skip
    out = pd.DataFrame(rows, columns=cols)
    for c in ("cells", "embeddings", "seeds"):
        out[c] = out[c].astype(int)
    return out


def _why_absent(spec: Mapping[str, Any], corr: pd.DataFrame, algs: list[str]) -> str:
    """The reason :func:`correlations` gave for leaving out the row's cells, if it did."""
    from nlpbias.studies.intrinsic_extrinsic.correlation import skipped_cells

    out = skipped_cells(corr)
    out = out[
        (out["family"] == spec["family"])
        & out["algorithm"].isin(algs)
        & (out["modset"] == spec["modset"])
        & out["wordset"].isin(spec["wordsets"])
        & (out["intrinsic"] == spec["intrinsic"])
    ]
    if out.empty:
        return ""
    reasons = list(dict.fromkeys(out["reason"]))
    more = f" (and {len(reasons) - 1} other reason(s))" if len(reasons) > 1 else ""
    return f"every cell of the row was left out: {reasons[0]}{more}"


def _coincidence(
    spec: Mapping[str, Any], cells: pd.DataFrame, scores: pd.DataFrame, done: list[tuple]
) -> str:
    """Why this row shows the same number as an earlier row, or "" when it does not."""
    for key, other_spec, other in done:
        if len(other) != len(cells) or not np.allclose(
            np.sort(other["rho"].to_numpy()), np.sort(cells["rho"].to_numpy())
        ):
            continue
        same_points = set(other["algorithm"]) == set(cells["algorithm"]) and set(
            other["modset"]
        ) == set(cells["modset"])
        if not same_points:
            return f"same ρ as row {key} on other cells: a coincidence of this run"
        agree = []
        for alg in sorted(set(cells["algorithm"])):
            block = scores[
                (scores["family"] == spec["family"])
                & (scores["algorithm"] == alg)
                & ((scores["method"] == "original") | (scores.get("modset") == spec["modset"]))
            ]
            for w in spec["wordsets"]:
                a = f"intrinsic:{w}:{spec['intrinsic']}"
                b = f"intrinsic:{w}:{other_spec['intrinsic']}"
                if a in block and b in block:
                    both = block[[a, b]].dropna()
                    agree.append((len(both), both.rank().corr().iloc[0, 1]))
        if agree and all(np.isclose(r, 1.0) for _, r in agree):
            n = sum(k for k, _ in agree)
            return (
                f"same number as row {key}, not a reused one: on these {n} embeddings "
                f"{spec['intrinsic'].upper()} and {other_spec['intrinsic'].upper()} with the "
                "same word sets rank the embeddings identically (Spearman ρ between them 1), so "
                "every cell's ρ with the gaps, and the bootstrap, which draws the same embeddings "
                "for both, coincide"
            )
        return f"same ρ as row {key} on the same embeddings"
    return ""


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

    Each row's interval spans the bootstrap over the embeddings and the same bootstrap with the
    downstream seed spread added (:func:`headline_intervals`, columns ``low``, ``high``): a
    correlation over a few dozen points whose gaps each come from one downstream training run
    moves with the seed of that run — and with the CPU, which changes the training as a seed
    does — so the verdict must survive that spread. Every row is marked
    ``stability="varies across CPUs"``. A row whose number coincides with an earlier row's says
    why (e.g. two intrinsic metrics that rank the embeddings identically).

    Parameters
    ----------
    scores, corr : pandas.DataFrame
        :func:`~nlpbias.studies.intrinsic_extrinsic.correlation.scores_frame` of one design
        (:func:`~nlpbias.studies.intrinsic_extrinsic.correlation.design_scores`; the chapter
        passes the paper's, ``"expanded"``) and its
        :func:`~nlpbias.studies.intrinsic_extrinsic.correlation.correlations`.
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
    check_one_design(scores, "headlines")
    design = ", ".join(scores["design"].dropna().unique()) if "design" in scores else ""
    source = dict(task_options.get("coref") or {}).get("source", "data_home")
    reported = reported_table()
    spans = headline_intervals(scores, corr, n_resamples=n_resamples, random_state=random_state)
    spans = spans.set_index("key")
    rows: list[dict[str, Any]] = []
    done: list[tuple] = []
    for spec in HEADLINES:
        lo, hi, where = _paper_range(spec, reported)
        coref = FAMILIES[spec["family"]].task == "coref"
        data = "synthetic" if coref and source == "standin" else "real"
        available = (
            list(corr.loc[corr["family"] == spec["family"], "algorithm"].unique())
            if len(corr)
            else []
        )
        algs, note = _book_algorithms(spec, available) if len(corr) else ([], "")
        cells = _cells(spec, corr, algs)
        book = ci_low = ci_high = None
        if cells.empty:
            interval = "none: these cells are not in this run"
            why = _why_absent(spec, corr, algs)
            if why:
                interval = f"none: {why}"
            elif not coref:
                note = "the hate-speech families need the data home (profile `paper`)"
        else:
            span = spans.loc[spec["key"]]
            book = float(span["rho"])
            what = f"mean ρ of {len(cells)} cells ({', '.join(algs)})"
            if design:
                what += f", {design} modification sets"
            if np.isnan(span["low"]):
                interval = f"{what}; none: too few embeddings to resample"
            else:
                ci_low, ci_high = float(span["low"]), float(span["high"])
                spread = (
                    f"widened to cover the same bootstrap with the downstream seed spread added "
                    f"(SD over the original's {int(span['seeds'])} seeds, up to "
                    f"{span['seed_sd']:.2g})"
                    if span["seeds"] > 1 and span["seed_sd"] > 0
                    else "no seed spread: the original has one downstream seed"
                )
                interval = (
                    f"{what}; 95 % bootstrap over {int(span['embeddings'])} embeddings, {spread}"
                )
            why = _coincidence(spec, cells, scores, done)
            note = "; ".join(x for x in (note, why) if x)
            done.append((spec["key"], spec, cells))
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
                stability="varies across CPUs",
            )
        )
    return rows
