"""The study's expanded modification word sets: their settings, how they are built, their files.

Katô & Miyao (seed 001, §5.3 and Appendix I) modify an embedding's bias with *expanded* word
sets and measure it with the original ones. This module applies
:func:`~nlpbias.studies.intrinsic_extrinsic.expansion.expand_sets` to each modification word set
of the study (:func:`~nlpbias.studies.intrinsic_extrinsic.families.modification_query`) with the
reviewed settings in ``data/wordsets/expansion/settings.yaml`` (``K``, the filters, the stop list
and its reasons), and reads and writes the result as data files,
``data/wordsets/expansion/<neighbour embedding>/<word set>.yaml``, which a reader can inspect: per
set the added words and every candidate a filter removed, with the reason.

The files are computed once (``tools/expand_wordsets.py``; the dialect filter needs the
TwitterAAE model of the data home) and committed; the chapter reads them with
:func:`expanded_query`, and a test recomputes them and compares. The filters, in order:

1. not a plain lowercase word (:class:`~nlpbias.studies.intrinsic_extrinsic.expansion.NonWord`);
2. an English stop word (scikit-learn's list, gendered pronouns exempt, with the reason);
3. rarer than ``max_rank`` in the neighbour embedding, when its vocabulary is sorted by frequency
   (:class:`~nlpbias.studies.intrinsic_extrinsic.expansion.RareWord`; name sets exempt);
4. a name of another race in a name set (Rosenman et al. 2023, argmax; the paper's rule);
5. a word of another dialect in a dialect set, or a race-aligned word in any other set
   (TwitterAAE, Blodgett et al. 2016; the paper's rule);
6. the reviewed stop list (the paper's manual step), for every set or for one set.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import yaml

from nlpbias.studies.intrinsic_extrinsic.expansion import (
    DialectFilter,
    Expansion,
    NameRaceFilter,
    NonWord,
    RareWord,
    StopList,
    expand_sets,
    read_expansion,
)

__all__ = [
    "NEIGHBOURS",
    "expand_query",
    "expanded_query",
    "expansion_path",
    "expansion_table",
    "load_settings",
    "neighbour_embedding",
    "query_sets",
    "write_expansion",
]

_SETTINGS_KEYS = {"k", "max_rank", "dialect_remove_at", "queries", "stop_words", "stop_list",
                  "stop_in"}  # fmt: skip


def _glove() -> Any:
    from nlpbias.models.embeddings import load_glove_50d

    return load_glove_50d()


def _wefe_lowercase() -> Any:
    """WEFE's word2vec subset (cased Google News) as lowercase single words: a word's own
    lowercase vector where the subset has one, else its first capitalised form (``Emily``)."""
    from gensim.models import KeyedVectors

    from nlpbias.models.embeddings import load_wefe_word2vec

    src = load_wefe_word2vec()
    chosen: dict[str, str] = {}
    for key in src.index_to_key:
        low = key.lower()
        if re.fullmatch("[a-z]+", low) and (low not in chosen or key == low):
            chosen[low] = key
    kv = KeyedVectors(src.vector_size)
    kv.add_vectors(list(chosen), np.stack([src[k] for k in chosen.values()]))
    return kv


#: Neighbour embeddings an expansion can use: name → (loader, vocabulary sorted by frequency).
NEIGHBOURS: dict[str, tuple[Callable[[], Any], bool]] = {
    "glove-6b-50d": (_glove, True),
    "wefe-word2vec-13k": (_wefe_lowercase, False),
}


def _check_neighbours(name: str) -> None:
    if name not in NEIGHBOURS:
        raise ValueError(f"unknown neighbour embedding {name!r}; use one of {sorted(NEIGHBOURS)}")


@lru_cache(maxsize=2)
def neighbour_embedding(name: str) -> Any:
    """The neighbour embedding ``name`` of :data:`NEIGHBOURS` (lowercase words; cached)."""
    _check_neighbours(name)
    return NEIGHBOURS[name][0]()


def _settings_path() -> Path:
    from nlpbias.core.paths import data_file

    return data_file("wordsets", "expansion", "settings.yaml")


def load_settings(path: str | Path | None = None) -> dict[str, Any]:
    """The reviewed expansion settings (default ``data/wordsets/expansion/settings.yaml``).

    Raises
    ------
    FileNotFoundError, ValueError
        A missing file, or one without the keys ``k``, ``max_rank``, ``dialect_remove_at``,
        ``queries``, ``stop_words``, ``stop_list``, ``stop_in`` (the message names them).
    """
    p = Path(path) if path is not None else _settings_path()
    if not p.is_file():
        raise FileNotFoundError(f"no expansion settings {p}; restore it from the repository")
    doc = yaml.safe_load(p.read_text()) or {}
    missing = sorted(_SETTINGS_KEYS - set(doc))
    if missing:
        raise ValueError(f"{p.name} lacks the keys {missing}; see {_settings_path()}")
    return doc


def query_sets(query: Any) -> dict[str, tuple[str, ...]]:
    """A query's four sets by name: T1, T2, A1, A2 (the sets an expansion expands)."""
    names = [*query.target_names, *query.attribute_names]
    return dict(zip(names, [*query.targets, *query.attributes], strict=True))


def _filters(query: Any, settings: Mapping[str, Any], neighbours: str) -> list[Any]:
    from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS

    kv = neighbour_embedding(neighbours)
    spec = (settings["queries"] or {}).get(query.name)
    if spec is None:
        raise ValueError(
            f"the expansion settings have no entry for the word set {query.name!r}; add it "
            "under 'queries' in data/wordsets/expansion/settings.yaml"
        )
    spec = spec or {}
    exempt = settings["stop_words"].get("exempt") or {}
    stop_words = {w: "an English stop word (scikit-learn)" for w in ENGLISH_STOP_WORDS}
    filters: list[Any] = [
        NonWord(),
        StopList({w: r for w, r in stop_words.items() if w not in exempt}, name="stop word"),
    ]
    name_races = spec.get("name_races") or {}
    if NEIGHBOURS[neighbours][1]:
        filters.append(RareWord(kv.key_to_index, settings["max_rank"], exempt=tuple(name_races)))
    if name_races:
        from nlpbias.studies.intrinsic_extrinsic.name_race import load_first_name_race

        filters.append(NameRaceFilter(load_first_name_race(), name_races))
    from nlpbias.data.twitteraae import load_dialect_model

    filters.append(
        DialectFilter.from_sets(
            load_dialect_model(),
            query_sets(query),
            spec.get("dialects") or {},
            remove_at=settings["dialect_remove_at"],
        )
    )
    filters.append(
        StopList(settings["stop_list"] or {}, per_set=settings["stop_in"] or {},
                 name="stop list (reviewed)")
    )  # fmt: skip
    return filters


def expand_query(
    query: Any, *, neighbours: str, settings: Mapping[str, Any] | None = None
) -> Expansion:
    """Expand one modification word set with the reviewed settings (:func:`load_settings`).

    Parameters
    ----------
    query : nlpbias.metrics.query.Query
        A modification word set (:func:`~nlpbias.studies.intrinsic_extrinsic.families.
        modification_query`), named as in the settings' ``queries``.
    neighbours : str
        A name of :data:`NEIGHBOURS`.
    settings : dict, optional
        Default: :func:`load_settings`.

    Returns
    -------
    Expansion
        Its provenance also holds the word set's name and the settings used.
    """
    _check_neighbours(neighbours)
    settings = dict(settings or load_settings())
    out = expand_sets(
        query_sets(query),
        neighbour_embedding(neighbours),
        k=settings["k"],
        filters=_filters(query, settings, neighbours),
        neighbours_name=neighbours,
    )
    out.provenance.update(
        {
            "wordset": query.name,
            "max_rank": settings["max_rank"] if NEIGHBOURS[neighbours][1] else None,
            "dialect_remove_at": settings["dialect_remove_at"],
            "settings": "data/wordsets/expansion/settings.yaml",
        }
    )
    return out


def expansion_path(wordset: str, neighbours: str) -> Path:
    """``data/wordsets/expansion/<neighbours>/<wordset>.yaml``."""
    _check_neighbours(neighbours)
    return _settings_path().parent / neighbours / f"{wordset}.yaml"


def write_expansion(query: Any, *, neighbours: str) -> Path:
    """Compute :func:`expand_query` and write it to :func:`expansion_path` (the data file)."""
    path = expansion_path(query.name, neighbours)
    path.parent.mkdir(parents=True, exist_ok=True)
    title = (
        f"{query.name} expanded with the {load_settings()['k']} nearest neighbours of each word "
        f"in {neighbours}; regenerate with tools/expand_wordsets.py"
    )
    return expand_query(query, neighbours=neighbours).to_yaml(path, title=title)


def expanded_query(query: Any, *, neighbours: str) -> Any:
    """The modification word set expanded: its own words, then the added ones of its data file.

    Raises
    ------
    FileNotFoundError
        No data file for this word set and neighbour embedding (the message gives the command
        that writes it).
    ValueError
        The file was written for other words than the query's (stale: regenerate it).
    """
    from nlpbias.metrics.query import Query

    exp = _checked_expansion(query, neighbours)
    sets = query_sets(query)
    new = {name: list(words) + list(exp.added[name]) for name, words in sets.items()}
    names = list(sets)
    return Query(
        targets={n: new[n] for n in names[:2]},
        attributes={n: new[n] for n in names[2:]},
        name=f"{query.name} (expanded, {neighbours})",
    )


def _checked_expansion(query: Any, neighbours: str) -> Any:
    """The data file of ``query`` read once, refused when missing or written for other words
    (the errors of :func:`expanded_query`)."""
    path = expansion_path(query.name, neighbours)
    regenerate = f"python tools/expand_wordsets.py --neighbours {neighbours}"
    if not path.is_file():
        raise FileNotFoundError(
            f"no expanded word set {path.relative_to(path.parents[3])}; write it with "
            f"`{regenerate}` (needs the TwitterAAE model in the data home)"
        )
    exp = read_expansion(path)
    sets = query_sets(query)
    for name, words in sets.items():
        filed = exp.sets.get(name, ())
        kept = set(filed[: len(filed) - len(exp.added.get(name, ()))]) | set(
            exp.missing.get(name, ())
        )
        if name not in exp.sets or kept != {w.lower() for w in words}:
            raise ValueError(
                f"{path.name} was written for other words of set {name!r} than "
                f"{query.name!r} has now; regenerate it with `{regenerate}`"
            )
    return exp


def expansion_table(families: Any, modsets: Any, *, neighbours: str) -> pd.DataFrame:
    """How each modification word set of the chapter grew: one row per set of each word set.

    Read from the data files (:func:`expanded_query`'s), in the order of ``families`` and
    ``modsets``; a word set two families share appears once.

    Returns
    -------
    pandas.DataFrame
        Columns ``wordset``, ``set``, ``original`` (words, including those the neighbour
        embedding lacks), ``missing`` (of those, without neighbours), ``added``, then one column
        per reason a candidate was left out (``in a set``, ``added before``, then each filter:
        ``not a word``, ``stop word``, ``rare word``, ``name-race table``, ``dialect model``,
        ``stop list (reviewed)``), 0 where it removed nothing.
    """
    from nlpbias.studies.intrinsic_extrinsic.families import check_families, modification_query

    rows = []
    seen = set()
    for fam in check_families(families):
        for modset in modsets:
            query = modification_query(fam, modset)
            if query.name in seen:
                continue
            seen.add(query.name)
            exp = _checked_expansion(query, neighbours)  # refuses a missing or stale file
            for name, words in query_sets(query).items():
                here = exp.removed[exp.removed["set"] == name]
                rows.append(
                    {
                        "wordset": query.name,
                        "set": name,
                        "original": len(words),
                        "missing": len(exp.missing.get(name, ())),
                        "added": len(exp.added[name]),
                        **here["filter"].value_counts().to_dict(),
                    }
                )
    out = pd.DataFrame(rows)
    order = ["in a set", "added before", "not a word", "stop word", "rare word",
             "name-race table", "dialect model", "stop list (reviewed)"]  # fmt: skip
    removed = [c for c in order if c in out] + [c for c in out.columns[5:] if c not in order]
    return out[[*out.columns[:5], *removed]].fillna(0).astype(dict.fromkeys(removed, int))
