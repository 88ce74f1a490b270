"""Our correlations beside the paper's: its Tables 3-10, Figure 1 and the alignment verdict.

:func:`reported_table` reads Katô & Miyao's reported ρ and p (``data/reported/kato2024.yaml``);
:func:`paper_table` / :func:`paper_tables` lay our :func:`correlations
<nlpbias.studies.intrinsic_extrinsic.correlation.correlations>` out like the paper's tables with
the paper's value beside ours, :func:`rho_long` in long form; :func:`alignment_summary` and
:func:`alignment_text` answer the paper's question (does aligning the word sets make WEAT
predictive?); :func:`figure1_panels` are the panels of its Figure 1.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from nlpbias.studies.intrinsic_extrinsic.families import ALGORITHMS

__all__ = [
    "alignment_summary",
    "alignment_text",
    "figure1_panels",
    "paper_table",
    "paper_tables",
    "reported_table",
    "rho_long",
]


def reported_table() -> pd.DataFrame:
    """The paper's Tables 3-10 in long form (``data/reported/kato2024.yaml``).

    Columns ``table``, ``statistic`` ('rho' or 'p'), ``bias``, ``algorithm``, ``view``,
    ``metric``, ``wordset``, ``intrinsic``, ``value``.

    Examples
    --------
    >>> t = reported_table()
    >>> sel = (t.table == 3) & (t.view == "winobias_type1") & (t.metric == "f1")
    >>> t[sel & (t.wordset == "extracted") & (t.intrinsic == "weat")]["value"].item()
    0.83
    """
    from nlpbias.data.reported import load_reported

    rep = load_reported("kato2024")
    metrics = rep["intrinsic"]
    rows = []
    for tab in rep["tables"]:
        cells = [(w, m) for w in tab["wordsets"] for m in metrics]
        for view, per_metric in tab["rows"].items():
            for metric, values in per_metric.items():
                for (wordset, intrinsic), value in zip(cells, values, strict=True):
                    rows.append(
                        {
                            "table": tab["table"],
                            "statistic": tab["statistic"],
                            "bias": tab["bias"],
                            "algorithm": tab["algorithm"],
                            "view": view,
                            "metric": metric,
                            "wordset": wordset,
                            "intrinsic": intrinsic,
                            "value": float(value),
                        }
                    )
    return pd.DataFrame(rows)


def paper_table(
    corr: pd.DataFrame, *, bias: str, algorithm: str, paper_algorithm: str | None = None
) -> pd.DataFrame:
    """Our ρ (and p) beside the paper's, laid out like the paper's Table 3/4/5/6.

    Rows: (view, metric); columns: (wordset, intrinsic, what) with ``what`` in
    ``rho``, ``paper rho``, ``p``, ``paper p``. Cells the paper does not have are NaN.
    ``paper_algorithm`` picks the paper's table when ours has no counterpart (e.g. the
    pretrained ``"glove"`` of the demo beside the paper's ``"word2vec"``).
    """
    rep = reported_table()
    rep = rep[(rep["bias"] == bias) & (rep["algorithm"] == (paper_algorithm or algorithm))]
    ours = corr[(corr["bias"] == bias) & (corr["algorithm"] == algorithm)]
    keys = ["view", "metric", "wordset", "intrinsic"]
    paper = rep.pivot_table(index=keys, columns="statistic", values="value")
    paper = paper.rename(columns={"rho": "paper rho", "p": "paper p"})
    mine = ours.set_index(keys)[["rho", "pvalue"]].rename(columns={"pvalue": "p"})
    table = mine.join(paper, how="outer")[["rho", "paper rho", "p", "paper p"]]
    wide = table.unstack(["wordset", "intrinsic"])
    wide.columns = wide.columns.reorder_levels([1, 2, 0])
    order = ["extracted"] + sorted({w for w in wide.columns.get_level_values(0)} - {"extracted"})
    cols = [
        (w, i, s)
        for w in order
        for i in ("weat", "rnsb")
        for s in ("rho", "paper rho", "p", "paper p")
        if (w, i, s) in wide.columns
    ]
    return wide[cols]


def alignment_summary(corr: pd.DataFrame, *, alpha: float = 0.05) -> pd.DataFrame:
    """Does aligning the word sets make WEAT predictive? One row per family and algorithm.

    Over the F1 rows of the correlation table: the median ρ of WEAT with the extracted
    (aligned) word sets, the median ρ of WEAT with the generic WEAT sets, the same for RNSB,
    and the share of cells with ``pvalue < alpha`` for each.

    Examples
    --------
    >>> corr = pd.DataFrame({"family": "coref", "algorithm": "w2v", "metric": "f1",
    ...     "wordset": ["extracted", "weat6"], "intrinsic": "weat", "rho": [0.9, 0.1],
    ...     "pvalue": [0.001, 0.6]})
    >>> alignment_summary(corr)[["weat_extracted_rho", "weat_generic_rho"]].values.tolist()
    [[0.9, 0.1]]
    """
    f1 = corr[corr["metric"] == "f1"]
    rows = []
    for (fam, alg), block in f1.groupby(["family", "algorithm"], sort=False):
        row: dict[str, Any] = {"family": fam, "algorithm": alg}
        for intrinsic in ("weat", "rnsb"):
            sub = block[block["intrinsic"] == intrinsic]
            aligned = sub["wordset"] == "extracted"
            for kind, part in (("extracted", sub[aligned]), ("generic", sub[~aligned])):
                row[f"{intrinsic}_{kind}_rho"] = (
                    float(part["rho"].median()) if len(part) else np.nan
                )
                row[f"{intrinsic}_{kind}_significant"] = (
                    float((part["pvalue"] < alpha).mean()) if len(part) else np.nan
                )
        rows.append(row)
    return pd.DataFrame(rows)


#: Extrinsic F1 difference drawn for each family in the Figure 1 analogue.
_FIGURE1_Y = {"coref": "type1_f1", "hsd_gender": "gender_f1", "hsd_race": "dialect_f1"}


def figure1_panels(scores: pd.DataFrame, families: Sequence[str]) -> list[dict[str, str]]:
    """Panels of the paper's Figure 1: aligned WEAT against the F1 difference, per algorithm.

    Examples
    --------
    >>> s = pd.DataFrame({"family": ["coref"], "algorithm": ["glove"]})
    >>> figure1_panels(s, ["coref"])[0]["y"]
    'extrinsic:type1_f1'
    """
    panels = []
    for fam in families:
        for alg in scores.loc[scores["family"] == fam, "algorithm"].unique():
            panels.append(
                {
                    "family": fam,
                    "algorithm": alg,
                    "modset": "extracted",
                    "x": "intrinsic:extracted:weat",
                    "y": f"extrinsic:{_FIGURE1_Y[fam]}",
                }  # the figure titles each panel with the family in words and the algorithm
            )
    return panels


def paper_tables(corr: pd.DataFrame) -> dict[tuple[str, str], tuple[str, pd.DataFrame]]:
    """:func:`paper_table` for every (bias, algorithm) of ``corr``.

    Returns ``{(bias, algorithm): (paper_algorithm, table)}``; an algorithm the paper did not
    use (the pretrained ``"glove"``) is shown beside the paper's word2vec table.
    """
    out = {}
    for (bias, alg), _ in corr.groupby(["bias", "algorithm"], sort=False):
        paper_alg = alg if alg in ALGORITHMS else "word2vec"
        out[(bias, alg)] = (
            paper_alg,
            paper_table(corr, bias=bias, algorithm=alg, paper_algorithm=paper_alg),
        )
    return out


def rho_long(tables: Mapping[tuple[str, str], tuple[str, pd.DataFrame]]) -> pd.DataFrame:
    """The cells of :func:`paper_tables` in long form, with ``wordset kind`` (extracted/WEAT)."""
    long = []
    for (bias, alg), (_, table) in tables.items():
        t = table.stack([0, 1]).reset_index()
        t["wordset kind"] = np.where(t["wordset"] == "extracted", "extracted", "WEAT")
        long.append(t.assign(bias=bias, algorithm=alg))
    return pd.concat(long, ignore_index=True)


def alignment_text(summary: pd.DataFrame, *, strong: float = 0.5, margin: float = 0.2) -> str:
    """One Markdown bullet per row of :func:`alignment_summary`, with a verdict.

    The verdict is "yes" when the median ρ of aligned WEAT is above ``strong`` and exceeds the
    generic WEAT sets' by more than ``margin``.

    Examples
    --------
    >>> row = {"family": "coref", "algorithm": "w2v", "weat_extracted_rho": 0.9,
    ...        "weat_generic_rho": 0.1, "weat_extracted_significant": 1.0,
    ...        "weat_generic_significant": 0.0, "rnsb_extracted_rho": 0.6, "rnsb_generic_rho": 0.1}
    >>> "yes: aligned WEAT" in alignment_text(pd.DataFrame([row]))
    True
    """
    lines = []
    for row in summary.itertuples(index=False):
        aligned, generic = row.weat_extracted_rho, row.weat_generic_rho
        verdict = (
            "yes: aligned WEAT tracks the downstream gap and generic WEAT much less"
            if aligned > strong and aligned - generic > margin
            else "no clear advantage for the aligned word sets"
        )
        lines.append(
            f"- **{row.family}, {row.algorithm}**: median ρ {aligned:.2f} with the extracted "
            f"sets ({row.weat_extracted_significant:.0%} of cells p < 0.05) against "
            f"{generic:.2f} with the WEAT sets ({row.weat_generic_significant:.0%}); RNSB "
            f"{row.rnsb_extracted_rho:.2f} vs {row.rnsb_generic_rho:.2f} — {verdict}."
        )
    return "\n".join(lines)
