"""The LOGAN chapter's sentences and comparison tables that state this run's numbers.

Every sentence of the chapter that names a number, a direction or a verdict of the run it sits in
is written here from that run's values, so it is true on every profile:

- :func:`setting_table`: the "paper vs this book" table of settings (data, model, groups), the
  book's column from the run's data;
- :func:`table1_comparison`: this run's Table 1 beside the paper's, only where the paper has a
  row for the attribute (no all-NaN columns), with a note saying what is missing and why;
- :func:`paper_comparison`: the headline numbers beside the paper's, one row per quantity both
  sides report;
- :func:`classifier_comparison`: the classifier's accuracy and ROC AUC beside the paper's
  90.2 % (dev 89.4 %), rows that fit under :func:`paper_comparison`'s table;
- :func:`null_sentences`: the largest gap against the permutation null and random halves;
- :func:`selection_sentence`: which λ each attribute's selection picked, and the degenerate
  fits it left out.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from nlpbias.core.text import NOISE, fmt_count

__all__ = [
    "classifier_comparison",
    "table2_comparison",
    "table2_rows",
    "word_gap_rows",
    "null_sentences",
    "paper_comparison",
    "selection_sentence",
    "setting_table",
    "table1_comparison",
]


_count = fmt_count  # counts as integers with thousands separators (a non-integer raises)


def _num(x: float, digits: int = 1) -> str:
    """``x`` to ``digits`` decimals (a table's column aligns), floating noise printed as 0."""
    x = float(x)
    if not np.isfinite(x):
        return "not available"
    return f"{0.0 if abs(x) < NOISE else x:.{digits}f}"


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def setting_table(data: Any) -> str:
    """The settings of Zhao & Chang beside this run's, as a Markdown table.

    Parameters
    ----------
    data : LoganData
        The chapter's rows (:func:`nlpbias.studies.logan.study.load_logan_data`); the book's
        column says what this run used: the evaluation rows it counted, the classifier it
        trained (``data.notes["classifier"]``) and the feature sets it clusters
        (``data.notes["features"]``), or the synthetic stand-in.

    Examples
    --------
    >>> from types import SimpleNamespace
    >>> d = SimpleNamespace(source="synthetic", y_true=np.zeros(4000), notes={},
    ...                     pairs={"planted": ("A", "B")})
    >>> setting_table(d).splitlines()[2].split(" | ")[-1]
    'synthetic stand-in: 4,000 rows with one planted biased region |'
    """
    n = _count(len(data.y_true))
    if data.source == "synthetic":
        rows = {
            "data": f"synthetic stand-in: {n} rows with one planted biased region",
            "model and features": "none: synthetic features, labels and predictions",
            "groups": "; ".join(f"{a}: {g1} vs {g2}" for a, (g1, g2) in data.pairs.items()),
        }
    else:
        rows = {
            "data": f"the held-out Davidson et al. tweets of this run ({n})",
            "model and features": (
                f"{data.notes.get('classifier', 'MiniLM classifier')}; features: "
                + data.notes.get("features", "its 2nd-to-last layer, mean-pooled")
            ),
            "groups": "race by TwitterAAE dialect, gender by gendered words",
        }
    paper = {
        "data": "Jigsaw Unintended Bias test set (97,320 comments)",
        "model and features": "BERT fine-tuned 2 epochs; features: 2nd-to-last layer of the "
        "pretrained BERT (main text), of the fine-tuned one (Appendix A.4, Tables 10-11)",
        "groups": "identity columns ≥ 0.5 (and the other < 0.5)",
        "merging": "into the *farthest* centroid (code)",
        "beyond the paper": "—",
    }
    rows["merging"] = "into the nearest centroid"
    rows["beyond the paper"] = (
        "permutation null of the largest gap; random-half gaps; λ path and seed spread; "
        "degenerate fits flagged and left out"
    )
    lines = ["| | Zhao & Chang (2020) | this run |", "|---|---|---|"]
    lines += [f"| {k} | {_cell(paper[k])} | {_cell(rows[k])} |" for k in paper]
    return "\n".join(lines)


def _degenerate(run: Mapping[str, Any], method: str) -> str:
    """The reason the run's ``method`` fit ("K-Means" or "LOGAN") is degenerate, "" if not."""
    t4 = run.get("table4")
    if t4 is None or "degenerate" not in t4.columns or method not in t4.index:
        return ""
    reason = t4.loc[method, "degenerate"]
    return "" if reason is None or reason is False or reason != reason else str(reason)


def table1_comparison(
    runs: Mapping[str, Mapping[str, Any]], paper: Mapping[str, Any]
) -> pd.DataFrame:
    """This run's Table 1 (accuracy of each group, globally and in the most biased cluster)
    beside the paper's, where the paper has the attribute.

    Columns of the paper (``paper_acc_1`` ...) appear only when some attribute of the run is one
    of the paper's (race, gender): no all-NaN column. ``attrs["note"]`` says which attributes
    have no counterpart in the paper ("" when all have one), and which rows are left out because
    their fit is degenerate (the selection found no usable λ, or K-Means itself is degenerate).
    """
    return _table_comparison(runs, paper, "table1", "Table 1")


def table2_comparison(
    runs: Mapping[str, Mapping[str, Any]], paper: Mapping[str, Any]
) -> pd.DataFrame:
    """This run's Table 2 (subgroup AUC of each group, globally and in the cluster with the
    largest AUC gap; AUC as a fraction) beside the paper's, as :func:`table1_comparison` does.

    Each run needs a ``table2``: that of a run with ``metric="auc"``, or
    :func:`~nlpbias.studies.logan.cluster_tables.table2_of_clusters` of an accuracy run (the
    paper's reading: the clusters of its accuracy fits, scored by AUC).
    """
    return _table_comparison(runs, paper, "table2", "Table 2")


def _table_comparison(
    runs: Mapping[str, Mapping[str, Any]], paper: Mapping[str, Any], key: str, title: str
) -> pd.DataFrame:
    missing = [a for a, r in runs.items() if key not in r]
    if missing or key not in paper:
        raise ValueError(
            f"no {key!r} in {'the runs of ' + ', '.join(missing) if missing else 'paper'}; "
            f"compute {title} first (or pass load_reported('zhao2020logan'))"
        )
    dropped = {}
    for a, r in runs.items():
        for m in ("K-Means", "LOGAN"):
            if why := _degenerate(r, m):
                dropped[a, m] = why
    ours = pd.concat({a: r[key] for a, r in runs.items()}, names=["attribute", "method"])
    ours = ours.drop(index=list(dropped))
    theirs = pd.concat(
        {a: pd.DataFrame(v).T for a, v in paper[key].items()}, names=["attribute", "method"]
    )
    out = ours.join(theirs.add_prefix("paper_"), how="left").dropna(axis=1, how="all")
    alone = [a for a in runs if a not in paper[key]]
    note = ""
    if alone:
        names = ", ".join(f"`{a}`" for a in alone)
        note = (
            f"The paper's {title} has rows for {' and '.join(paper[key])} only; this run's "
            f"{names} (the synthetic stand-in's planted attribute) has no counterpart there, so "
            "only this run's numbers are shown. The paper's numbers are in the comparison at "
            "the end of the chapter."
            if len(alone) == len(runs)
            else f"The paper's {title} has no rows for {names}: their paper columns are empty."
        )
    if dropped:
        left = "; ".join(f"{a}, {m} ({why})" for (a, m), why in dropped.items())
        note = (note + " " if note else "") + (
            f"Rows left out because their fit is degenerate: {left}."
        )
    out.attrs["note"] = note
    return out


_QUANTITIES = {  # row name -> (ours from a run, the paper's from load_reported, digits)
    "global gap (points)": "global",
    "largest LOGAN cluster gap (points)": "logan",
    "inertia ratio, LOGAN ÷ K-Means": "inertia",
    "BCR, LOGAN (%)": "bcr",
}


def paper_comparison(
    runs: Mapping[str, Mapping[str, Any]], paper: Mapping[str, Any]
) -> pd.DataFrame:
    """The headline numbers of each attribute beside the paper's, one row per quantity.

    Columns: ``this run: <attribute>`` for every attribute of the run, then ``paper: race`` and
    ``paper: gender``. Only quantities both sides report are rows (global gap, LOGAN's largest
    gap; the inertia ratio and BCR, which the paper reports for race only: its gender cells say
    "not reported"); numbers are formatted (gaps and BCR to a tenth, the ratio to three
    decimals). ``attrs["note"]`` says which attribute stands for which on the stand-in.
    """
    t4 = paper["table4_race"]["LOGAN"]
    digits = {"global": 1, "logan": 1, "inertia": 3, "bcr": 1}
    cols: dict[str, dict[str, str]] = {}
    for attr, r in runs.items():
        vals = {
            "global": r["table1"].loc["Global", "bias"],
            "logan": r["table1"].loc["LOGAN", "bias"],
            "inertia": r["table4"].loc["LOGAN", "inertia_ratio"],
            "bcr": r["table4"].loc["LOGAN", "bcr_pct"],
        }
        bad = _degenerate(r, "LOGAN")
        cols[f"this run: {attr}"] = {
            row: ("degenerate fit" if bad and k != "global" else _num(vals[k], digits[k]))
            for row, k in _QUANTITIES.items()
        }
    for attr, v in paper["table1"].items():
        vals = {
            "global": v["Global"]["bias"],
            "logan": v["LOGAN"]["bias"],
            "inertia": t4["inertia_ratio"] if attr == "race" else np.nan,
            "bcr": t4["BCR"] if attr == "race" else np.nan,
        }
        cols[f"paper: {attr}"] = {
            row: (_num(vals[k], digits[k]) if np.isfinite(vals[k]) else "not reported")
            for row, k in _QUANTITIES.items()
        }
    out = pd.DataFrame(cols)
    out.index.name = "quantity"
    bad = {a: why for a, r in runs.items() if (why := _degenerate(r, "LOGAN"))}
    alone = [a for a in runs if a not in paper["table1"]]
    out.attrs["note"] = (
        f"This run's {', '.join(f'`{a}`' for a in alone)} is the synthetic stand-in's planted "
        "attribute: it stands for neither race nor gender, so its column is set beside the "
        "paper's for scale only. The permutation p of the largest gap has no counterpart in "
        "the paper; it is in the table of the permutation null."
        if alone
        else "The permutation p of the largest gap has no counterpart in the paper; it is in "
        "the table of the permutation null."
    )
    if bad:
        out.attrs["note"] += (
            " No λ of the grid gave a usable LOGAN fit for "
            + "; ".join(f"{a} ({why})" for a, why in bad.items())
            + ": its numbers are not shown."
        )
    return out


def classifier_comparison(
    data: Any, runs: Mapping[str, Any], paper: Mapping[str, Any]
) -> pd.DataFrame:
    """The classifier's overall accuracy and ROC AUC beside the paper's, in the columns of
    :func:`paper_comparison` (so ``pd.concat([paper_comparison(...), this])`` is one table).

    Parameters
    ----------
    data : LoganData
        The chapter's rows: ``y_true``, ``y_pred`` and ``y_score`` of every evaluation row (all
        attributes' rows: the classifier is one, so each ``this run`` column holds the same
        numbers).
    runs : mapping
        The chapter's runs, keyed by attribute (only the keys are read: the columns).
    paper : mapping
        ``load_reported("zhao2020logan")`` (its ``classifier`` and ``table1`` entries).

    Returns
    -------
    pandas.DataFrame
        Index ``quantity`` (accuracy on all evaluation rows, ROC AUC, accuracy on a development
        set); formatted cells; "not reported" where the paper gives no number and "no
        development set" for this run. ``attrs["note"]`` says which rows the numbers are over.

    Examples
    --------
    >>> from types import SimpleNamespace
    >>> d = SimpleNamespace(y_true=np.array([0, 0, 1, 1]), y_pred=np.array([0, 1, 1, 1]),
    ...                     y_score=np.array([0.1, 0.6, 0.7, 0.9]), source="synthetic")
    >>> paper = {"classifier": {"test_accuracy": 90.2, "dev_accuracy": 89.4},
    ...          "table1": {"race": {}, "gender": {}}}
    >>> t = classifier_comparison(d, {"planted": None}, paper)
    >>> t.iloc[:2].to_dict("list")["this run: planted"], t.iloc[0]["paper: race"]
    (['75.0', '1.000'], '90.2')
    """
    from sklearn.metrics import roc_auc_score

    y_true = np.asarray(data.y_true)
    if len(y_true) == 0 or len(y_true) != len(data.y_pred) or len(y_true) != len(data.y_score):
        raise ValueError("data needs y_true, y_pred and y_score of the same non-zero length")
    acc = 100 * float(np.mean(y_true == np.asarray(data.y_pred)))
    auc = float(roc_auc_score(y_true, data.y_score)) if len(np.unique(y_true)) == 2 else np.nan
    if "classifier" not in paper:
        raise ValueError(
            "paper has no 'classifier' entry; pass load_reported('zhao2020logan') from a "
            "checkout whose data/reported/zhao2020logan.yaml has it"
        )
    clf = paper["classifier"]
    rows = [
        "classifier accuracy, all evaluation rows (%)",
        "classifier ROC AUC, all evaluation rows",
        "classifier accuracy, development set (%)",
    ]
    ours = [_num(acc), _num(auc, 3), "no development set"]
    theirs = [
        _num(clf["test_accuracy"]) if clf.get("test_accuracy") is not None else "not reported",
        _num(clf["test_auc"], 3) if clf.get("test_auc") is not None else "not reported",
        _num(clf["dev_accuracy"]) if clf.get("dev_accuracy") is not None else "not reported",
    ]
    cols = {f"this run: {a}": ours for a in runs}
    cols.update({f"paper: {a}": theirs for a in paper["table1"]})
    out = pd.DataFrame(cols, index=pd.Index(rows, name="quantity"))
    where = (
        "the synthetic stand-in's planted predictions (no classifier)"
        if data.source == "synthetic"
        else f"all {_count(len(y_true))} held-out tweets of this run"
    )
    out.attrs["note"] = (
        f"The classifier's numbers are over {where}, the same for every attribute; the paper's "
        "are over the whole Jigsaw test set (97,320 comments; its development set: 51,000)."
    )
    return out


def table2_rows(runs: Mapping[str, Mapping[str, Any]], paper: Mapping[str, Any]) -> pd.DataFrame:
    """Table 2's gaps (subgroup AUC) in the columns of :func:`paper_comparison`: the global gap
    and the largest cluster gap of K-Means and LOGAN, to three decimals (AUC as a fraction).

    Each run needs a ``table2`` (see :func:`table2_comparison`); a degenerate fit's cell says
    "degenerate fit".

    Examples
    --------
    >>> t2 = pd.DataFrame({"bias": [0.0315, 0.2, 0.25]}, index=["Global", "K-Means", "LOGAN"])
    >>> paper = {"table2": {"race": {"Global": {"bias": 0.024}, "K-Means": {"bias": 0.157},
    ...                              "LOGAN": {"bias": 0.153}}}}
    >>> table2_rows({"planted": {"table2": t2}}, paper).iloc[0].tolist()
    ['0.032', '0.024']
    """
    rows = {
        "global subgroup-AUC gap": "Global",
        "largest K-Means cluster AUC gap": "K-Means",
        "largest LOGAN cluster AUC gap": "LOGAN",
    }
    missing = [a for a, r in runs.items() if "table2" not in r]
    if missing or "table2" not in paper:
        raise ValueError(
            f"no 'table2' in {'the runs of ' + ', '.join(missing) if missing else 'paper'}; "
            "compute Table 2 first (or pass load_reported('zhao2020logan'))"
        )
    cols: dict[str, dict[str, str]] = {}
    for attr, r in runs.items():
        cols[f"this run: {attr}"] = {
            row: (
                "degenerate fit"
                if m != "Global" and _degenerate(r, m)
                else _num(r["table2"].loc[m, "bias"], 3)
            )
            for row, m in rows.items()
        }
    for attr, v in paper["table2"].items():
        cols[f"paper: {attr}"] = {row: _num(v[m]["bias"], 3) for row, m in rows.items()}
    out = pd.DataFrame(cols)
    out.index.name = "quantity"
    return out


def word_gap_rows(table: pd.DataFrame, paper: Mapping[str, Any]) -> pd.DataFrame:
    """The accuracy gap on texts with one word
    (:func:`~nlpbias.studies.logan.word_gap.word_gap_table`) in the columns of
    :func:`paper_comparison`: ``|gap|`` in points with the texts of each group, beside the
    paper's 19 points for "racist" (race only; gender "not reported").

    Examples
    --------
    >>> t = pd.DataFrame({"word": ["racist"], "abs_gap_pts": [25.0], "n_a1": [7], "n_a2": [4],
    ...                   "note": [""]}, index=pd.Index(["race"], name="attribute"))
    >>> rows = word_gap_rows(t, {"racist_token_gap": 19, "table1": {"race": {}, "gender": {}}})
    >>> rows.index[0]
    'accuracy gap on texts containing "racist" (points)'
    >>> rows.iloc[0].tolist()
    ['25.0 (texts: 7 and 4)', '19.0', 'not reported']
    """
    words = set(table["word"].dropna()) if "word" in table else set()
    if len(words) != 1:
        raise ValueError("table must be one word_gap_table(...) (one word, a 'word' column)")
    word = words.pop()
    row = f'accuracy gap on texts containing "{word}" (points)'
    cols: dict[str, dict[str, str]] = {}
    for attr, r in table.iterrows():
        if r.get("note"):
            cell = "no gap: " + str(r["note"]).split(";")[0]
        else:
            cell = (
                f"{_num(r['abs_gap_pts'])} (texts: {_count(int(r['n_a1']))} and "
                f"{_count(int(r['n_a2']))})"
            )
        cols[f"this run: {attr}"] = {row: cell}
    reported = paper.get("racist_token_gap") if word.lower() == "racist" else None
    for attr in paper["table1"]:
        cell = _num(reported) if reported is not None and attr == "race" else "not reported"
        cols[f"paper: {attr}"] = {row: cell}
    out = pd.DataFrame(cols)
    out.index.name = "quantity"
    return out


def null_sentences(runs: Mapping[str, Mapping[str, Any]], paper: Mapping[str, Any]) -> str:
    """One Markdown bullet per attribute: LOGAN's largest gap, its permutation p, the global gap
    and the gap of random halves (the paper's beside it).

    Examples
    --------
    >>> from nlpbias.studies.logan.calibration import NullResult
    >>> t1 = pd.DataFrame({"bias": [2.02]}, index=["Global"])
    >>> run = {"lam": 1.0, "null": NullResult(31.91, np.zeros(100), 0.0099), "table1": t1,
    ...        "split_gaps": pd.DataFrame({"abs_gap_pts": [1.5, 2.5]})}
    >>> text = null_sentences({"planted": run}, {"random_split_gap": 2.4})
    >>> text.split("; ")[1]
    'permutation p = 0.010 over 100 refits'
    """
    lines = []
    for a, r in runs.items():
        null = r["null"]
        splits = r["split_gaps"]["abs_gap_pts"]
        bad = _degenerate(r, "LOGAN")
        if bad:
            lines.append(
                f"- **{a}**: no λ of the grid gave a usable LOGAN fit ({bad}), so its largest gap "
                "is not judged against the permutation null; global gap "
                f"{_num(r['table1'].loc['Global', 'bias'])} points; random halves differ by "
                f"{_num(splits.mean())} points on average over {_count(len(splits))} splits "
                f"(paper: {paper['random_split_gap']:g})."
            )
            continue
        lines.append(
            f"- **{a}**: largest gap {_num(null.observed)} points with LOGAN "
            f"(λ = {r['lam']:g}); permutation p = {null.p_value:.3f} over "
            f"{_count(len(null.null))} refits; global gap "
            f"{_num(r['table1'].loc['Global', 'bias'])} points; random halves differ by "
            f"{_num(splits.mean())} points on average over {_count(len(splits))} splits "
            f"(paper: {paper['random_split_gap']:g})."
        )
    return "\n".join(lines)


def selection_sentence(runs: Mapping[str, Mapping[str, Any]]) -> str:
    """Per attribute: the λ the selection picked from the grid, and the degenerate fits it
    left out with their reasons (from ``lambda_table``'s ``degenerate`` column)."""
    lines = []
    for a, r in runs.items():
        table = r["lambda_table"]
        bad = table[table["degenerate"].astype(str).str.strip() != ""]
        left = "; ".join(f"λ = {lam:g}: {why}" for lam, why in bad["degenerate"].items())
        if len(bad) == len(table):
            text = (
                f"- **{a}**: every λ of the grid gave a degenerate fit ({left}), so there is no "
                "usable λ: LOGAN's numbers are left out of the tables and sentences below."
            )
        elif bad.empty:
            text = f"- **{a}**: λ = {r['lam']:g} of the grid; no fit of the grid is degenerate."
        else:
            text = f"- **{a}**: λ = {r['lam']:g} of the grid; left out as degenerate: {left}."
        lines.append(text)
    return "\n".join(lines)
