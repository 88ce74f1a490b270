"""The study's families (corpus, downstream task, word sets) and the word sets they use.

Families (the paper's three kinds of bias measurement):

========== ============== ====== ====== ============================= =====================
family     corpus         task   bias   extracted (aligned) word set  generic WEAT sets
========== ============== ====== ====== ============================= =====================
coref      Gutenberg      coref  gender ``winobias_occupations``      WEAT 6, 7, 8
hsd_gender tweets         hsd    gender ``davidson_gender``           WEAT 6, 7, 8
hsd_race   tweets         hsd    race   ``davidson_race``             WEAT 3, 4, 5
========== ============== ====== ====== ============================= =====================

Each family's embeddings are modified with one *modification word set* (:data:`MODSETS`): the
word sets aligned with the extrinsic task ("extracted") or the merged generic WEAT sets
("weat"), as in the paper's Table 2 (:func:`modification_query`); they are evaluated on the word
sets of :func:`evaluation_sets`.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import pandas as pd

__all__ = [
    "ALGORITHMS",
    "FAMILIES",
    "MODSETS",
    "PRETRAINED",
    "Family",
    "check_families",
    "evaluation_sets",
    "merged_wordset",
    "modification_query",
    "wordset_table",
]


@dataclass(frozen=True)
class Family:
    """One kind of bias measurement: a corpus, a downstream task, and its word sets."""

    name: str
    corpus: str
    task: str
    bias: str
    extracted: str
    weat: tuple[str, ...]
    #: Extrinsic metric rows of the paper's tables (task views): e.g. WinoBias type 1 and 2.
    views: tuple[str, ...]


FAMILIES: dict[str, Family] = {
    "coref": Family(
        "coref",
        "gutenberg",
        "coref",
        "gender",
        "winobias_occupations",
        ("kato_weat6", "kato_weat7", "kato_weat8"),
        ("winobias_type1", "winobias_type2"),
    ),
    "hsd_gender": Family(
        "hsd_gender",
        "tweets",
        "hsd",
        "gender",
        "davidson_gender",
        ("kato_weat6", "kato_weat7", "kato_weat8"),
        ("hsd",),
    ),
    "hsd_race": Family(
        "hsd_race",
        "tweets",
        "hsd",
        "race",
        "davidson_race",
        ("kato_weat3", "kato_weat4", "kato_weat5"),
        ("hsd",),
    ),
}

#: Embedding algorithms trained on each corpus.
ALGORITHMS = ("word2vec", "fasttext")
#: Pretrained embeddings usable as the original of a family (no corpus: Attract-Repel only).
PRETRAINED = {"glove-6b-50d": "glove"}
#: Modification word sets: the extracted (aligned) ones, or the merged generic WEAT sets.
MODSETS = ("extracted", "weat")


def check_families(names: Iterable[str]) -> list[Family]:
    """The :class:`Family` of each name; a one-line ValueError for an unknown name or none."""
    names = list(names)
    unknown = [n for n in names if n not in FAMILIES]
    if unknown or not names:
        raise ValueError(f"unknown or no families {unknown or names}; use some of {list(FAMILIES)}")
    return [FAMILIES[n] for n in names]


# --------------------------------------------------------------------------- word sets


def merged_wordset(names: Sequence[str]) -> Any:
    """Merge word sets role by role (T1 ∪ T1', …), as the paper merges WEAT 6, 7 and 8.

    Parameters
    ----------
    names : list of str
        Word-set names in ``data/wordsets``.

    Returns
    -------
    nlpbias.metrics.query.Query
        Named ``"+".join(names)``; duplicate words appear once.

    Examples
    --------
    >>> q = merged_wordset(["kato_weat7", "kato_weat8"])
    >>> "science" in q.targets[0] and "math" in q.targets[0]
    True
    """
    from nlpbias.data.wordsets import load_wordset
    from nlpbias.metrics.query import Query, as_query

    queries = [as_query(load_wordset(n)) for n in names]
    if len(queries) == 1:
        return queries[0]

    def union(sets: Iterable[Sequence[str]]) -> list[str]:
        return list(dict.fromkeys(w for s in sets for w in s))

    first = queries[0]
    return Query(
        targets=[union(q.targets[i] for q in queries) for i in range(2)],
        attributes=[union(q.attributes[i] for q in queries) for i in range(2)],
        target_names=first.target_names,
        attribute_names=first.attribute_names,
        name="+".join(names),
    )


def modification_query(family: Family, modset: str) -> Any:
    """The word set that modifies the family's embeddings: extracted, or the merged WEAT sets."""
    if modset == "extracted":
        return merged_wordset([family.extracted])
    return merged_wordset(list(family.weat))


def evaluation_sets(family: Family, modset: str | None) -> dict[str, str]:
    """Column name -> word-set name; the original embedding is evaluated on every set."""
    out = {}
    if modset in (None, "extracted"):
        out["extracted"] = family.extracted
    if modset in (None, "weat"):
        out.update({n.removeprefix("kato_"): n for n in family.weat})
    return out


def wordset_table(families: Sequence[str]) -> pd.DataFrame:
    """The word sets of the study (the paper's Table 1): roles, names and sizes.

    Examples
    --------
    >>> t = wordset_table(["coref"])
    >>> t.loc[t.wordset == "extracted", ["T1", "A1"]].values.tolist()
    [['male_occupations (20)', 'male (2)']]
    """
    from nlpbias.data.wordsets import load_wordset
    from nlpbias.metrics.query import as_query

    rows = []
    for fam in check_families(families):
        for column, name in evaluation_sets(fam, None).items():
            q = as_query(load_wordset(name))
            row = {"family": fam.name, "bias": fam.bias, "wordset": column, "file": name}
            for role, names, sets in (
                ("T", q.target_names, q.targets),
                ("A", q.attribute_names, q.attributes),
            ):
                for i in range(2):
                    row[f"{role}{i + 1}"] = f"{names[i]} ({len(sets[i])})"
            rows.append(row)
    return pd.DataFrame(rows)
