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
    "alignment_difference",
    "alignment_summary",
    "alignment_text",
    "by_setting",
    "figure1_panels",
    "median_rho",
    "paper_table",
    "paper_tables",
    "reported_table",
    "rho_long",
    "weat_cells",
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


def figure1_panels(scores: pd.DataFrame, families: Sequence[str]) -> list[dict[str, Any]]:
    """Panels of the paper's Figure 1: aligned WEAT (left) and aligned RNSB (right, ``beside``)
    against the F1 difference, per family and algorithm.

    Examples
    --------
    >>> s = pd.DataFrame({"family": ["coref"], "algorithm": ["glove"]})
    >>> panel = figure1_panels(s, ["coref"])[0]
    >>> panel["x"], panel["beside"], panel["y"]
    ('intrinsic:extracted:weat', ['intrinsic:extracted:rnsb'], 'extrinsic:type1_f1')
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
                    "beside": ["intrinsic:extracted:rnsb"],
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


#: What pairs an embedding modified with the aligned sets with one modified with the WEAT sets:
#: the same method and the same modification parameters.
_SETTING = ("method", "mode", "p", "delta_sim", "delta_ant", "reg")


def by_setting(part: pd.DataFrame) -> pd.DataFrame:
    """The embeddings of a block indexed by their modification setting (method, mode,
    parameters), so that two blocks built with the same grid pair up; a setting met twice (not
    in a grid) is paired in order of appearance."""
    setting = pd.Series(
        [tuple(str(r.get(k)) for k in _SETTING) for _, r in part.iterrows()], index=part.index
    )
    key = [(*t, n) for t, n in zip(setting, setting.groupby(setting).cumcount(), strict=True)]
    return part.set_axis(pd.Index(key, tupleize_cols=False))


def weat_cells(points: pd.DataFrame, wordsets: Sequence[str], ycols: Sequence[str]) -> np.ndarray:
    """(embeddings, 2, cells): WEAT with each word set against each extrinsic column."""
    xs = [f"intrinsic:{w}:weat" for w in wordsets for _ in ycols]
    ys = [c for _ in wordsets for c in ycols]
    return np.stack([points[xs].to_numpy(float), points[ys].to_numpy(float)], axis=1)


def median_rho(m: np.ndarray) -> float:
    """Median over cells of Spearman ρ; ``m`` is (embeddings, 2, cells): intrinsic, extrinsic."""
    from nlpbias.studies.intrinsic_extrinsic.correlation import spearman_rows

    rho = spearman_rows(m[:, 0, :].T, m[:, 1, :].T)
    return float(np.median(rho)) if np.isfinite(rho).all() else float("nan")


def alignment_difference(
    scores: pd.DataFrame,
    corr: pd.DataFrame,
    *,
    n_bootstrap: int,
    random_state: int,
    min_points: int = 5,
) -> pd.DataFrame:
    """Does aligned WEAT track the downstream F1 gap better than generic WEAT? A paired bootstrap.

    For each family and algorithm: the median ρ over the F1 cells of WEAT with the aligned
    (extracted) sets, over the embeddings modified with those sets, minus the median ρ over the
    F1 cells of WEAT 6–8 (3–5 for race), over the embeddings modified with the WEAT sets. The
    two blocks are built with the same modification settings (method, mode and parameters), so
    an embedding of one block is paired with the embedding of the other made with the same
    setting (the original embedding belongs to both); each bootstrap draw resamples the *same*
    settings for both medians (:func:`nlpbias.core.criteria.paired_bootstrap_difference`), and
    :func:`nlpbias.core.criteria.differs` gives the verdict: the 95 % interval of the
    difference excludes 0.

    Returns
    -------
    pandas.DataFrame
        One row per family and algorithm: ``family``, ``algorithm``, ``settings`` (paired
        settings, the original included), ``aligned``, ``generic`` (median ρ), ``difference``,
        ``low``, ``high``, ``holds``, ``skipped`` (why no difference could be computed, else "").
    """
    from nlpbias.core.criteria import differs, paired_bootstrap_difference
    from nlpbias.studies.intrinsic_extrinsic.correlation import extrinsic_columns
    from nlpbias.studies.intrinsic_extrinsic.families import FAMILIES

    rows = []
    f1 = corr[(corr["metric"] == "f1") & (corr["intrinsic"] == "weat")] if len(corr) else corr
    for (fam_name, alg), block in scores.groupby(["family", "algorithm"], sort=False):
        fam = FAMILIES[fam_name]
        row: dict[str, Any] = {"family": fam_name, "algorithm": alg, "skipped": ""}
        ycols = [c for (view, m), c in extrinsic_columns(fam, block).items() if m == "f1"]
        have = f1[(f1["family"] == fam_name) & (f1["algorithm"] == alg)] if len(f1) else f1
        generic_sets = sorted(
            set(have.loc[have["modset"] == "weat", "wordset"]) if len(have) else set()
        )
        original = block[block["method"] == "original"].iloc[:1]
        parts = {
            modset: by_setting(pd.concat([original, block[block.get("modset") == modset]]))
            for modset in ("extracted", "weat")
        }
        common = [k for k in parts["extracted"].index if k in parts["weat"].index]
        if not ycols or "extracted" not in set(have.get("wordset", [])):
            row["skipped"] = "this run has no F1 cell of aligned WEAT"
        elif not generic_sets:
            row["skipped"] = (
                "this run has no F1 cell of generic WEAT (no embedding modified with the WEAT "
                "sets, or too few of their words in the vocabularies), so nothing to compare with"
            )
        elif len(common) < min_points:
            row["skipped"] = (
                f"{len(common)} paired settings (fewer than {min_points}): no correlation"
            )
        if row["skipped"]:
            rows.append(row)
            continue
        x = weat_cells(parts["extracted"].loc[common], ["extracted"], ycols)
        y = weat_cells(parts["weat"].loc[common], generic_sets, ycols)
        try:
            diff = paired_bootstrap_difference(
                x, y, statistic=median_rho, n_bootstrap=n_bootstrap, random_state=random_state
            )
        except ValueError as err:  # a constant gap or word set: ρ undefined
            row["skipped"] = f"no difference: {err}"
            rows.append(row)
            continue
        outcome = differs(diff)
        row.update(
            settings=len(common),
            aligned=median_rho(x),
            generic=median_rho(y),
            difference=diff.estimate,
            low=diff.low,
            high=diff.high,
            holds=bool(outcome.holds),
        )
        rows.append(row)
    cols = ["family", "algorithm", "settings", "aligned", "generic", "difference", "low", "high"]
    out = pd.DataFrame(rows, columns=[*cols, "holds", "skipped"])
    if len(out):
        out["settings"] = out["settings"].astype("Int64")
    return out


def alignment_text(
    summary: pd.DataFrame, difference: pd.DataFrame | None = None, *, alpha: float = 0.05
) -> str:
    """One Markdown bullet per row of :func:`alignment_summary`, with the verdict of
    :func:`alignment_difference` (its criterion and numbers printed with it).

    Without ``difference`` the bullet gives the medians and no verdict.

    Examples
    --------
    >>> row = {"family": "coref", "algorithm": "w2v", "weat_extracted_rho": 0.9,
    ...        "weat_generic_rho": 0.1, "weat_extracted_significant": 1.0,
    ...        "weat_generic_significant": 0.0, "rnsb_extracted_rho": 0.6, "rnsb_generic_rho": 0.1}
    >>> diff = pd.DataFrame([{"family": "coref", "algorithm": "w2v", "settings": 9,
    ...     "aligned": 0.9, "generic": 0.1, "difference": 0.8, "low": 0.5, "high": 1.0,
    ...     "holds": True, "skipped": ""}])
    >>> "tracks the downstream F1 gap better than" in alignment_text(pd.DataFrame([row]), diff)
    True
    >>> diff.loc[0, ["low", "holds"]] = [-0.1, False]
    >>> "does not track the downstream F1 gap detectably better" in alignment_text(
    ...     pd.DataFrame([row]), diff)
    True
    """
    from nlpbias.core.criteria import Interval, differs
    from nlpbias.studies.intrinsic_extrinsic.figures import FAMILY_LABELS

    lines = []
    for row in summary.itertuples(index=False):
        aligned, generic = row.weat_extracted_rho, row.weat_generic_rho
        line = (
            f"- **{FAMILY_LABELS.get(row.family, row.family)}, {row.algorithm}**: median ρ over "
            f"the F1 cells {_fmt(aligned)} with the aligned (extracted) sets "
            f"({_pct(row.weat_extracted_significant)} of those cells p < {alpha:g}) against "
            f"{_fmt(generic)} with the generic WEAT sets ({_pct(row.weat_generic_significant)}); "
            f"RNSB {_fmt(row.rnsb_extracted_rho)} against {_fmt(row.rnsb_generic_rho)}"
        )
        match = (
            difference[
                (difference["family"] == row.family) & (difference["algorithm"] == row.algorithm)
            ]
            if difference is not None and len(difference)
            else pd.DataFrame()
        )
        if match.empty:
            lines.append(line + ".")
            continue
        d = match.iloc[0]
        if d["skipped"]:
            lines.append(f"{line}. No verdict on alignment: {d['skipped']}.")
            continue
        outcome = differs(
            Interval(d["difference"], d["low"], d["high"]),
            yes="aligned WEAT tracks the downstream F1 gap better than generic WEAT",
            no="aligned WEAT does not track the downstream F1 gap detectably better than "
            "generic WEAT",
        )
        lines.append(
            f"{line}. Paired bootstrap over the {int(d['settings'])} modification settings "
            f"(the original and each setting of the modification grid, the same draw for both "
            f"medians): {outcome.word} (rule: {outcome.criterion}; {outcome.detail})."
        )
    return "\n".join(lines)


def _fmt(x: float) -> str:
    return "—" if pd.isna(x) else f"{x:.2f}"


def _pct(x: float) -> str:
    return "no cells" if pd.isna(x) else f"{x:.0%}"
