"""Expanded vs unexpanded modification sets: how much of a correlation the design builds in.

The study modifies each embedding with a word set in one of two designs
(:data:`~nlpbias.studies.intrinsic_extrinsic.grid.DESIGNS`): *expanded*, Katô & Miyao's, where
the set is grown by the nearest neighbours of its words in another embedding and the original set
is measured, and *unexpanded*, where the modified words are exactly the measured ones.
:func:`design_comparison` sets the median ρ of the two designs side by side;
:func:`design_difference` gives the paired difference with a bootstrap interval, and
:func:`design_text` says it in words.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pandas as pd

from nlpbias.studies.intrinsic_extrinsic.paper import (
    alignment_summary,
    by_setting,
    median_rho,
    weat_cells,
)

__all__ = ["design_comparison", "design_difference", "design_text"]


def design_comparison(corrs: Mapping[str, pd.DataFrame]) -> pd.DataFrame:
    """The aligned and generic median ρ of :func:`alignment_summary`, one row per design.

    Parameters
    ----------
    corrs : mapping
        Design name (``"expanded"``, ``"unexpanded"``) → its :func:`~nlpbias.studies.
        intrinsic_extrinsic.correlation.correlations` table.

    Returns
    -------
    pandas.DataFrame
        Columns ``family``, ``algorithm``, ``design``, then the median ρ and the share of
        significant cells of WEAT and RNSB with the aligned (extracted) and the generic sets
        (ρ rounded to 9 decimals: floating-point residue of exact ties reads as 0);
        rows grouped by family and algorithm, designs in the given order.

    Examples
    --------
    >>> row = {"family": "coref", "algorithm": "w2v", "metric": "f1", "intrinsic": "weat",
    ...        "wordset": ["extracted", "weat6"], "pvalue": 0.5}
    >>> t = design_comparison({"expanded": pd.DataFrame({**row, "rho": [0.5, 0.1]}),
    ...                        "unexpanded": pd.DataFrame({**row, "rho": [0.9, 0.2]})})
    >>> t[["design", "weat_extracted_rho"]].values.tolist()
    [['expanded', 0.5], ['unexpanded', 0.9]]
    """
    if not corrs:
        raise ValueError("no designs to compare; pass {design: correlations table}")
    parts = []
    for design, corr in corrs.items():
        summary = alignment_summary(corr)
        summary.insert(2, "design", design)
        parts.append(summary)
    out = pd.concat(parts, ignore_index=True)
    rhos = [c for c in out.columns if c.endswith("_rho")]
    out[rhos] = out[rhos].round(9)  # a median of exact ties can come out as ±3e-17
    order = {d: i for i, d in enumerate(corrs)}
    out["_order"] = out["design"].map(order)
    keys = out[["family", "algorithm"]].drop_duplicates().reset_index(drop=True)
    keys["_key"] = range(len(keys))
    out = out.merge(keys, on=["family", "algorithm"]).sort_values(["_key", "_order"])
    return out.drop(columns=["_order", "_key"]).reset_index(drop=True)


def design_difference(
    scores: pd.DataFrame,
    *,
    n_bootstrap: int,
    random_state: int,
    min_points: int = 5,
) -> pd.DataFrame:
    """How much of each correlation was built in? Unexpanded minus expanded median ρ, paired.

    In the unexpanded design the words an embedding was modified with are the words WEAT then
    measures; in the expanded one (the paper's) they are those words plus their neighbours in
    another embedding. For each family, algorithm and kind of word set (``aligned``: modified
    with the extracted sets and measured with them; ``generic``: modified with the merged WEAT
    sets and measured with each), the median ρ over the F1 cells of WEAT in each design, and the
    difference unexpanded − expanded with a paired percentile bootstrap: both designs use the
    same modification settings, so each draw resamples the same settings (and the original)
    for both medians (:func:`nlpbias.core.criteria.paired_bootstrap_difference`).

    Parameters
    ----------
    scores : pandas.DataFrame
        :func:`~nlpbias.studies.intrinsic_extrinsic.correlation.scores_frame` of a run with both
        designs (not split by :func:`~nlpbias.studies.intrinsic_extrinsic.correlation.
        design_scores`).

    Returns
    -------
    pandas.DataFrame
        ``family``, ``algorithm``, ``sets`` ('aligned' or 'generic'), ``settings`` (paired, the
        original included), ``expanded``, ``unexpanded`` (median ρ), ``built_in``
        (unexpanded − expanded), ``low``, ``high``, ``skipped`` (why no difference, else "").
    """
    from nlpbias.core.criteria import paired_bootstrap_difference
    from nlpbias.studies.intrinsic_extrinsic.correlation import extrinsic_columns
    from nlpbias.studies.intrinsic_extrinsic.families import FAMILIES, evaluation_sets

    if "design" not in scores or not {"expanded", "unexpanded"} <= set(scores["design"].dropna()):
        raise ValueError(
            "design_difference needs embeddings of both designs; run with "
            "designs=['expanded', 'unexpanded'] and pass the scores before design_scores"
        )
    rows = []
    for (fam_name, alg), block in scores.groupby(["family", "algorithm"], sort=False):
        fam = FAMILIES[fam_name]
        ycols = [c for (view, m), c in extrinsic_columns(fam, block).items() if m == "f1"]
        original = block[block["method"] == "original"].iloc[:1]
        for modset, kind in (("extracted", "aligned"), ("weat", "generic")):
            row: dict[str, Any] = {"family": fam_name, "algorithm": alg, "sets": kind,
                                   "skipped": ""}  # fmt: skip
            mine = block[block.get("modset") == modset]
            parts = {
                d: by_setting(pd.concat([original, mine[mine["design"] == d]]))
                for d in ("expanded", "unexpanded")
            }
            common = [k for k in parts["expanded"].index if k in parts["unexpanded"].index]
            sets = [w for w in evaluation_sets(fam, modset)
                    if f"intrinsic:{w}:weat" in block]  # fmt: skip
            if len(mine) == 0:
                continue  # the grid did not modify with these sets
            if not ycols or not sets:
                row["skipped"] = "no F1 gap or no measured word set on these embeddings"
            elif len(common) < min_points:
                row["skipped"] = f"{len(common)} paired settings (fewer than {min_points})"
            if not row["skipped"]:
                exp = weat_cells(parts["expanded"].loc[common], sets, ycols)
                unexp = weat_cells(parts["unexpanded"].loc[common], sets, ycols)
                try:
                    diff = paired_bootstrap_difference(
                        unexp, exp, statistic=median_rho, n_bootstrap=n_bootstrap,
                        random_state=random_state,
                    )  # fmt: skip
                except ValueError as err:  # a constant gap or word set: ρ undefined
                    row["skipped"] = f"no difference: {err}"
                else:
                    row.update(settings=len(common), expanded=median_rho(exp),
                               unexpanded=median_rho(unexp), built_in=diff.estimate,
                               low=diff.low, high=diff.high)  # fmt: skip
            rows.append(row)
    cols = ["family", "algorithm", "sets", "settings", "expanded", "unexpanded", "built_in",
            "low", "high", "skipped"]  # fmt: skip
    out = pd.DataFrame(rows, columns=cols)
    out["settings"] = out["settings"].astype("Int64")
    return out


def design_text(difference: pd.DataFrame) -> str:
    """One Markdown bullet per row of :func:`design_difference`: the two medians, the
    difference with its interval, and what it means.

    Examples
    --------
    >>> d = pd.DataFrame([{"family": "coref", "algorithm": "glove", "sets": "aligned",
    ...     "settings": 25, "expanded": 0.5, "unexpanded": 0.9, "built_in": 0.4, "low": 0.2,
    ...     "high": 0.6, "skipped": ""}])
    >>> text = design_text(d)
    >>> "median ρ **falls** from 0.90 to 0.50 with expansion" in text
    True
    >>> "0.40 [0.20, 0.60] is the part of the correlation the unexpanded design built in" in text
    True
    >>> "ρ **rises** from 0.50 to 0.90" in design_text(d.assign(unexpanded=0.5, expanded=0.9,
    ...                                                      built_in=-0.4, low=-0.6, high=0.1))
    True
    """
    from nlpbias.studies.intrinsic_extrinsic.figures import FAMILY_LABELS

    lines = []
    for r in difference.itertuples(index=False):
        head = f"- **{FAMILY_LABELS.get(r.family, r.family)}, {r.algorithm}, {r.sets} sets**: "
        if r.skipped:
            lines.append(head + f"no comparison ({r.skipped}).")
            continue
        if r.low > 0:
            means = "is the part of the correlation the unexpanded design built in"
        elif r.high < 0:
            means = "says expansion *raised* the correlation: nothing was built in"
        else:
            means = (
                f"includes 0: with {r.settings} settings the bootstrap cannot tell this change "
                "from the noise of the grid"
            )
        moved = round(float(r.built_in), 2)
        plain = (
            f"ρ **falls** from {r.unexpanded:.2f} to {r.expanded:.2f} with expansion"
            if moved > 0
            else f"ρ **rises** from {r.unexpanded:.2f} to {r.expanded:.2f} with expansion"
            if moved < 0
            else f"ρ stays at {r.expanded:.2f} with expansion"
        )
        lines.append(
            head + f"median {plain} (unexpanded: the modified words are the measured ones; "
            f"{r.settings} paired settings); the difference {r.built_in:.2f} "
            f"[{r.low:.2f}, {r.high:.2f}] {means}."
        )
    return "\n".join(lines)
