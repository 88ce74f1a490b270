"""From the evaluations to the correlations: the scores frame and Spearman ρ per cell.

:func:`scores_frame` turns the results of
:func:`nlpbias.studies.intrinsic_extrinsic.study.run_study` into one row per (embedding,
family); :func:`correlations` gives Spearman ρ between each intrinsic and each extrinsic metric
over the embeddings of one (family, algorithm, modification set), with a two-sided permutation
p-value (the paper's Tables 3-10); :func:`skipped_table` lists the word sets that could not be
measured.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from typing import Any

import pandas as pd

from nlpbias.studies.intrinsic_extrinsic.families import (
    FAMILIES,
    MODSETS,
    Family,
    evaluation_sets,
)

__all__ = ["correlations", "scores_frame", "skipped_table"]

logger = logging.getLogger(__name__)

_METRICS = ("precision", "recall", "f1")
#: Gap prefix in :func:`nlpbias.studies.intrinsic_extrinsic.hsd.hsd_gaps` for each bias of the HSD
#: families.
_HSD_GAP = {"gender": "gender", "race": "dialect"}


def scores_frame(results: Sequence[Mapping[str, Any]]) -> pd.DataFrame:
    """One row per (embedding, family) with intrinsic columns and mean extrinsic columns.

    Columns: the spec's keys, ``family``, ``intrinsic:<wordset>:<metric>`` for every evaluation
    set, ``extrinsic:<metric>`` (mean over seeds) and ``extrinsic_sd:<metric>`` (sample std over
    seeds; NaN for one seed), ``n_seeds``.
    """
    rows = []
    for res in results:
        spec = res["spec"]
        intr = pd.DataFrame(res["intrinsic"])
        ext = pd.DataFrame(res["extrinsic"])
        agg = ext.groupby("metric")["value"].agg(["mean", "std"]) if len(ext) else None
        # a family whose word sets were all skipped still gets its row (extrinsic only)
        fams = spec["families"] if "families" in spec else [spec["family"]]
        blocks = dict(list(intr.groupby("family", sort=False))) if len(intr) else {}
        for fam in fams:
            block = blocks.get(fam, pd.DataFrame(columns=["wordset", "metric", "value"]))
            row = {k: v for k, v in spec.items() if k != "family"}
            row["family"] = fam
            for rec in block.itertuples():
                row[f"intrinsic:{rec.wordset}:{rec.metric}"] = rec.value
            if agg is not None:
                for metric, r in agg.iterrows():
                    row[f"extrinsic:{metric}"] = r["mean"]
                    row[f"extrinsic_sd:{metric}"] = r["std"]
                row["n_seeds"] = int(ext["seed"].nunique())
            rows.append(row)
    return pd.DataFrame(rows)


def _extrinsic_columns(family: Family, frame: pd.DataFrame) -> dict[tuple[str, str], str]:
    """(view, metric) -> extrinsic column of the frame, for the family's task."""
    out = {}
    for view in family.views:
        for metric in _METRICS:
            if family.task == "coref":  # coref.winobias_gaps: type1_f1, ...
                col = f"extrinsic:{view.removeprefix('winobias_')}_{metric}"
            else:  # hsd names the race gap after the dialect groups
                col = f"extrinsic:{_HSD_GAP[family.bias]}_{metric}"
            if col in frame.columns:
                out[(view, metric)] = col
    return out


def correlations(
    scores: pd.DataFrame,
    *,
    n_resamples: int = 9_999,
    random_state: int = 0,
    min_points: int = 5,
) -> pd.DataFrame:
    """Spearman ρ and permutation p between intrinsic and extrinsic metrics (Tables 3-10).

    For each family, algorithm and modification set the points are the original embedding plus
    the embeddings modified with that set; for each evaluation word set of the modification
    set, each intrinsic metric (WEAT, RNSB) is correlated with each extrinsic difference.
    An embedding on which a word set could not be measured (too many words out of its
    vocabulary, e.g. after balancing removed every sentence holding them) is left out of that
    cell — never imputed — and ``n`` says how many points remain; a cell with fewer than
    ``min_points`` points is not reported.

    Returns
    -------
    pandas.DataFrame
        Columns ``family``, ``bias``, ``algorithm``, ``modset``, ``view``, ``metric``,
        ``wordset``, ``intrinsic``, ``n``, ``rho``, ``pvalue``.
    """
    from nlpbias.metrics.stats import spearman_permutation

    rows = []
    for (fam_name, alg), block in scores.groupby(["family", "algorithm"], sort=False):
        fam = FAMILIES[fam_name]
        original = block[block["method"] == "original"]
        for modset in MODSETS:
            points = pd.concat([original, block[block.get("modset") == modset]])
            if len(points) < 3:
                continue
            for column in evaluation_sets(fam, modset):
                for intrinsic in ("weat", "rnsb"):
                    col = f"intrinsic:{column}:{intrinsic}"
                    if col not in points:
                        continue
                    for (view, metric), ycol in _extrinsic_columns(fam, points).items():
                        both = points[[col, ycol]].dropna()
                        if len(both) < min_points:
                            logger.info(
                                "%s/%s: %s measured on %d embeddings only; cell left out",
                                fam_name, alg, col, len(both),
                            )  # fmt: skip
                            continue
                        x, y = both[col].to_numpy(float), both[ycol].to_numpy(float)
                        res = spearman_permutation(
                            x, y, n_resamples=n_resamples, random_state=random_state
                        )
                        rows.append(
                            {
                                "family": fam_name,
                                "bias": fam.bias,
                                "algorithm": alg,
                                "modset": modset,
                                "view": view,
                                "metric": metric,
                                "wordset": column,
                                "intrinsic": intrinsic,
                                "n": len(both),
                                "rho": float(res.rho),
                                "pvalue": float(res.p_value),
                            }
                        )
    return pd.DataFrame(rows)


def skipped_table(results: Sequence[Mapping[str, Any]]) -> pd.DataFrame:
    """Word sets that could not be measured on an embedding (too many words out of vocabulary).

    Columns ``family``, ``wordset``, ``embeddings`` (how many), ``reason`` (the first message).
    """
    rows = [dict(r, id=res["spec"]["id"]) for res in results for r in res.get("skipped", [])]
    if not rows:
        return pd.DataFrame(columns=["family", "wordset", "embeddings", "reason"])
    df = pd.DataFrame(rows)
    return (
        df.groupby(["family", "wordset"], sort=False)
        .agg(embeddings=("id", "nunique"), reason=("reason", "first"))
        .reset_index()
    )
