"""The downstream datasets in numbers, beside Katô & Miyao's Appendix H (Tables 17-19).

:func:`dataset_sizes` (Table 17) counts the examples of each split of the two extrinsic tasks:
the hate-speech tweets of :func:`~nlpbias.studies.intrinsic_extrinsic.hsd.hsd_data` (train, the
validation share the Kim-CNN holds out of it for early stopping, test) and, when given, the
coreference examples of :func:`~nlpbias.studies.intrinsic_extrinsic.coref.coref_data` (GAP for
training and testing where the paper used OntoNotes 5.0; WinoBias type 1 and type 2).
:func:`hsd_group_counts` (Tables 18 and 19) counts the HSD test tweets per gender and dialect
group, with the groups :func:`~nlpbias.studies.intrinsic_extrinsic.hsd.hsd_data` assigned. The
paper's numbers come from ``data/reported/kato2024.yaml`` (keys ``dataset_sizes`` and
``hsd_test_groups``); :func:`~nlpbias.studies.intrinsic_extrinsic.figures.hsd_groups_figure`
draws the group shares beside the paper's.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

__all__ = ["HSD_PAPER_GROUPS", "dataset_sizes", "downstream_tables", "hsd_group_counts"]

#: The paper's group of an HSD test tweet (Tables 18, 19) → the groups of ``hsd_data`` it sums.
#: The paper's three groups cover every test tweet (1,837 + 1,594 + 11,569 = 15,000), so a tweet
#: with both male and female words (``both``) is counted with the neutral ones, and a tweet whose
#: dialect is Hispanic, Asian (``other``) or unknown with the others.
HSD_PAPER_GROUPS: dict[str, dict[str, tuple[str, ...]]] = {
    "gender": {
        "male-targeting": ("male",),
        "female-targeting": ("female",),
        "neutral": ("both", "none"),
    },
    "dialect": {
        "white-sounding": ("white-aligned",),
        "African-American-sounding": ("AA-aligned",),
        "others": ("other", "unknown"),
    },
}

_SIZE_COLUMNS = ["task", "dataset", "split", "examples", "paper dataset", "paper examples", "note"]


def _reported() -> dict[str, Any]:
    from nlpbias.data.reported import load_reported

    return load_reported("kato2024")


def _split_frames(data: Any, names: tuple[str, ...], built_by: str) -> tuple[pd.DataFrame, ...]:
    """The frames of ``data`` (a tuple), after checking they are DataFrames."""
    if not isinstance(data, tuple) or len(data) != len(names):
        raise TypeError(
            f"expected {built_by}'s ({', '.join(names)}) tuple, got {type(data).__name__}"
        )
    for name, frame in zip(names, data, strict=True):
        if not isinstance(frame, pd.DataFrame):
            raise TypeError(f"{built_by}'s {name} must be a DataFrame, got {type(frame).__name__}")
    return data


def _hold_out(n: int, fraction: float) -> int:
    """How many of ``n`` rows a ``train_test_split(test_size=fraction)`` holds out: the rows the
    Kim-CNN's early stopping validates on."""
    from sklearn.model_selection import train_test_split

    if fraction == 0:
        return 0
    return len(train_test_split(np.arange(n), test_size=fraction, shuffle=False)[1])


def _kim_validation_fraction() -> float:
    import inspect

    from nlpbias.models.classifiers import KimCNNClassifier

    return float(inspect.signature(KimCNNClassifier).parameters["validation_fraction"].default)


def dataset_sizes(
    hsd: Any,
    coref: Any = None,
    *,
    validation_fraction: float | None = None,
) -> pd.DataFrame:
    """Examples per dataset and split here and in the paper (its Table 17).

    Parameters
    ----------
    hsd : HSDSplit
        :func:`~nlpbias.studies.intrinsic_extrinsic.hsd.hsd_data`'s (train, test) tweets.
    coref : (train, test, winobias) pairs frames, optional
        :func:`~nlpbias.studies.intrinsic_extrinsic.coref.coref_data`; an example is one text
        (``example_id``), as the paper counts sentences. Without it only the HSD rows.
    validation_fraction : float, optional
        Share of the HSD train split the Kim-CNN holds out for early stopping (its
        ``validation_fraction``); default: the classifier's own default, which
        :func:`~nlpbias.studies.intrinsic_extrinsic.hsd.evaluate_hsd` uses. The train row
        counts the tweets left to fit on.

    Returns
    -------
    pandas.DataFrame
        ``task``, ``dataset`` (ours), ``split``, ``examples`` (ours; <NA> where this book has no
        such split), ``paper dataset``, ``paper examples`` and ``note``.

    Examples
    --------
    >>> train = pd.DataFrame({"text": ["a"] * 90})
    >>> test = pd.DataFrame({"text": ["b"] * 30, "gender": "none", "dialect": "other"})
    >>> dataset_sizes((train, test), validation_fraction=0.1)[["split", "examples"]].values.tolist()
    [['train', 81], ['validation', 9], ['test', 30]]
    """
    from nlpbias.core.checks import check_fraction

    train, test = _split_frames(hsd, ("train", "test"), "hsd_data")
    if validation_fraction is None:
        validation_fraction = _kim_validation_fraction()
    check_fraction(validation_fraction, "validation_fraction", allow_zero=True)
    paper = _reported()["dataset_sizes"]
    held = _hold_out(len(train), validation_fraction)
    davidson, theirs = "Davidson et al. (2017) tweets", "HSD dataset (Goldfarb-Tarrant et al.)"
    rows = [
        ("hate speech", davidson, "train", len(train) - held, theirs, paper["hsd"]["train"],
         f"the Kim-CNN fits on these; {validation_fraction:g} of hsd_data's train split "
         "is held out"),
        ("hate speech", davidson, "validation", held, theirs,
         paper["hsd"]["validation"], "early stopping, held out of hsd_data's train split"),
        ("hate speech", davidson, "test", len(test), theirs, paper["hsd"]["test"], ""),
    ]  # fmt: skip
    if coref is not None:
        ctrain, ctest, wino = _split_frames(coref, ("train", "test", "winobias"), "coref_data")
        lacking = [
            (name, col)
            for name, frame, cols in (
                ("train", ctrain, ["example_id"]),
                ("test", ctest, ["example_id"]),
                ("winobias", wino, ["example_id", "type"]),
            )
            for col in cols
            if col not in frame.columns
        ]
        if lacking:
            raise ValueError(
                f"coref_data's frames lack columns {lacking}; pass coref_data()'s pairs frames"
            )
        onto = paper["ontonotes"]
        rows += [
            ("coreference", "GAP (training splits)", "train", ctrain["example_id"].nunique(),
             "OntoNotes 5.0", onto["train"], "GAP stands in for OntoNotes (not available)"),
            ("coreference", "—", "validation", pd.NA, "OntoNotes 5.0", onto["validation"],
             "the mention-pair scorer uses no validation split"),
            ("coreference", "GAP (test split)", "test", ctest["example_id"].nunique(),
             "OntoNotes 5.0", onto["test"], ""),
        ]  # fmt: skip
        for kind in (1, 2):
            reported = paper[f"winobias_type{kind}"]
            mine = wino.loc[wino["type"].astype(str) == str(kind), "example_id"].nunique()
            rows += [
                ("coreference", "—", "validation", pd.NA, f"WinoBias type {kind}",
                 reported["validation"], "WinoBias's dev split is not used here"),
                ("coreference", f"WinoBias type {kind}", "test", mine, f"WinoBias type {kind}",
                 reported["test"], ""),
            ]  # fmt: skip
    out = pd.DataFrame(rows, columns=_SIZE_COLUMNS)
    return out.astype({"examples": "Int64", "paper examples": "Int64"})


def hsd_group_counts(hsd: Any) -> pd.DataFrame:
    """The HSD test tweets per gender and dialect group, beside the paper's (Tables 18, 19).

    Parameters
    ----------
    hsd : HSDSplit
        :func:`~nlpbias.studies.intrinsic_extrinsic.hsd.hsd_data`'s (train, test); the test
        frame's ``gender`` and ``dialect`` columns are the groups it assigned.

    Returns
    -------
    pandas.DataFrame
        One row per attribute and paper group (:data:`HSD_PAPER_GROUPS`): ``attribute``,
        ``group`` (the paper's name), ``groups here`` (our groups it sums, with their counts),
        ``tweets``, ``share`` (of our test tweets), ``paper tweets``, ``paper share``.

    Raises
    ------
    ValueError
        The test frame lacks ``gender`` or ``dialect``, has missing groups, or a group that
        :data:`HSD_PAPER_GROUPS` does not place.

    Examples
    --------
    >>> test = pd.DataFrame({"gender": ["male", "female", "both", "none"],
    ...                      "dialect": ["white-aligned", "AA-aligned", "other", "unknown"]})
    >>> t = hsd_group_counts((pd.DataFrame(), test))
    >>> t[["group", "tweets"]].values.tolist()[:3]
    [['male-targeting', 1], ['female-targeting', 1], ['neutral', 2]]
    """
    _, test = _split_frames(hsd, ("train", "test"), "hsd_data")
    if test.empty:
        raise ValueError("hsd_data's test split is empty; use more rows")
    paper = _reported()["hsd_test_groups"]
    rows = []
    for attribute, groups in HSD_PAPER_GROUPS.items():
        if attribute not in test.columns:
            raise ValueError(
                f"hsd_data's test lacks the {attribute!r} column (the tweets' groups); build "
                "it with hsd_data"
            )
        labels = test[attribute]
        if labels.isna().any():
            raise ValueError(f"{int(labels.isna().sum())} test tweets have no {attribute} group")
        placed = {g for members in groups.values() for g in members}
        stray = sorted(set(labels.astype(str)) - placed)
        if stray:
            raise ValueError(
                f"test {attribute} groups {stray} have no place among the paper's groups "
                f"{dict(groups)}; add them to HSD_PAPER_GROUPS"
            )
        counts = labels.astype(str).value_counts()
        total_paper = sum(paper[attribute].values())
        for name, members in groups.items():
            n = int(sum(counts.get(m, 0) for m in members))
            rows.append(
                {
                    "attribute": attribute,
                    "group": name,
                    "groups here": " + ".join(f"{m} ({int(counts.get(m, 0)):,})" for m in members),
                    "tweets": n,
                    "share": n / len(test),
                    "paper tweets": int(paper[attribute][name]),
                    "paper share": paper[attribute][name] / total_paper,
                }
            )
    return pd.DataFrame(rows)


def downstream_tables(families: Any, task_options: Any) -> dict[str, pd.DataFrame] | None:
    """The chapter's Tables 17-19 analogue for the downstream data this run trains on.

    Loads the data as the sweep does (:func:`~nlpbias.studies.intrinsic_extrinsic.evaluation.
    task_data`, with each task's ``task_options``): the hate-speech tweets, and the coreference
    examples when a coreference family runs too.

    Returns
    -------
    dict or None
        ``sizes`` (:func:`dataset_sizes`) and ``groups`` (:func:`hsd_group_counts`); None when
        no hate-speech family runs (the tables describe the HSD test set).
    """
    from nlpbias.studies.intrinsic_extrinsic.evaluation import task_data
    from nlpbias.studies.intrinsic_extrinsic.families import check_families

    tasks = {f.task for f in check_families(families)}
    if "hsd" not in tasks:
        return None
    options = dict(task_options or {})
    hsd = task_data("hsd", options.get("hsd") or {})
    coref = task_data("coref", options.get("coref") or {}) if "coref" in tasks else None
    return {"sizes": dataset_sizes(hsd, coref), "groups": hsd_group_counts(hsd)}
