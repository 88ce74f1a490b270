"""Expanding modification word sets by their nearest neighbours (Katô & Miyao, seed 001, §3).

Katô & Miyao modify an embedding's bias with word sets that are *not* the ones the intrinsic
metric measures: following Goldfarb-Tarrant et al. and Lauscher et al., each set is expanded with
the ``K = 10`` nearest neighbours of every word in a separate embedding, odd words are removed
(race-aligned words with a demographic language model, names with a name–race table, a manual
step), and a word already in another set is skipped. Modifying the expanded words and measuring
the original ones keeps the metric from reading back the very words that were moved.

:func:`expand_sets` is that procedure with the filters as arguments, each a callable
``filter(word, set_name) -> reason or None`` (:class:`StopList` is the manual step; the name and
dialect filters come with their data). The result keeps everything a reader needs to inspect an
expansion: the words added per set, every candidate removed and why, and the provenance
(neighbour embedding, ``K``, filters).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import yaml

from nlpbias.core.checks import check_int

__all__ = [
    "DialectFilter",
    "Expansion",
    "NameRaceFilter",
    "NonWord",
    "RareWord",
    "StopList",
    "expand_sets",
    "nearest_neighbours",
    "read_expansion",
]

#: A filter: ``filter(word, set_name)`` returns why ``word`` must not join ``set_name``, or None.
Filter = Callable[[str, str], "str | None"]


@dataclass(frozen=True)
class Expansion:
    """The expanded sets and how they were made.

    Attributes
    ----------
    sets : dict[str, tuple[str, ...]]
        Each set: its original words (those the neighbour embedding has first, in their order),
        then the added neighbours.
    added : dict[str, tuple[str, ...]]
        The neighbours added to each set.
    removed : pandas.DataFrame
        Every candidate left out: ``set``, ``word``, ``source`` (the set word it neighbours),
        ``filter`` and ``reason``.
    missing : dict[str, tuple[str, ...]]
        Original words the neighbour embedding lacks (they get no neighbours).
    provenance : dict
        ``neighbours`` (the embedding's name), ``k``, ``filters`` (their names, in order).
    """

    sets: dict[str, tuple[str, ...]]
    added: dict[str, tuple[str, ...]]
    removed: pd.DataFrame
    missing: dict[str, tuple[str, ...]]
    provenance: dict[str, Any] = field(default_factory=dict)

    def to_yaml(self, path: str | Path, *, title: str = "") -> Path:
        """Write the expansion as a data file a reader can inspect (and :func:`read_expansion`).

        The file holds the provenance, per set its original and added words and the words
        missing from the neighbour embedding, and every removed candidate grouped by filter
        with its reason and the set word it neighbours.
        """
        out = Path(path)
        removed: dict[str, dict[str, list[dict[str, str]]]] = {}
        for row in self.removed.itertuples(index=False):
            removed.setdefault(row.set, {}).setdefault(row.filter, []).append(
                {"word": row.word, "source": row.source, "reason": row.reason}
            )
        doc = {
            "title": title,
            "provenance": dict(self.provenance),
            "sets": {
                name: {
                    "original": list(words[: len(words) - len(self.added[name])]),
                    "added": list(self.added[name]),
                    "missing": list(self.missing.get(name, ())),
                    "removed": removed.get(name, {}),
                }
                for name, words in self.sets.items()
            },
        }
        header = "# Expanded word sets; written by nlpbias.studies.intrinsic_extrinsic.expansion\n"
        out.write_text(header + yaml.safe_dump(doc, sort_keys=False, allow_unicode=True))
        return out

    def summary(self) -> pd.DataFrame:
        """Per set: original words, added words, and candidates each filter removed."""
        rows = []
        for name, words in self.sets.items():
            rec: dict[str, Any] = {
                "set": name,
                "original": len(words) - len(self.added[name]),
                "added": len(self.added[name]),
            }
            here = self.removed[self.removed["set"] == name]
            rec.update(here["filter"].value_counts().to_dict())
            rows.append(rec)
        return pd.DataFrame(rows).set_index("set").fillna(0).astype(int)


@dataclass(frozen=True)
class StopList:
    """The manual step: words that must not join any set, or one set, each with its reason.

    Examples
    --------
    >>> stop = StopList({"redneck": "a slur"}, per_set={"male": {"women": "the other gender"}})
    >>> stop("redneck", "white"), stop("women", "male"), stop("women", "female") is None
    ('stop list: a slur', 'stop list: the other gender', True)
    """

    words: Mapping[str, str]
    per_set: Mapping[str, Mapping[str, str]] = field(default_factory=dict)
    name: str = "stop list"

    def __call__(self, word: str, set_name: str) -> str | None:
        reason = self.words.get(word) or self.per_set.get(set_name, {}).get(word)
        return None if reason is None else f"{self.name}: {reason}"


@dataclass(frozen=True)
class NonWord:
    """Tokens that are not plain lowercase words (punctuation, digits, accents, ``'em``).

    Examples
    --------
    >>> NonWord()("f/v", "hateful"), NonWord()("caress", "pleasant") is None
    ("not a plain word: does not match '[a-z]+'", True)
    """

    pattern: str = "[a-z]+"
    name: str = "not a word"

    def __call__(self, word: str, set_name: str) -> str | None:
        if re.fullmatch(self.pattern, word):
            return None
        return f"not a plain word: does not match {self.pattern!r}"


@dataclass(frozen=True)
class RareWord:
    """Words rarer than a frequency rank of the neighbour embedding (its long tail of typos,
    foreign words and fragments); name sets are exempt (rare names are names).

    Parameters
    ----------
    ranks : mapping
        Word → its frequency rank (0 = most frequent), e.g. a KeyedVectors' ``key_to_index``
        when its vocabulary is sorted by frequency (GloVe's is).
    max_rank : int
        Words at this rank or rarer are removed.
    exempt : collection of str
        Sets the filter does not apply to.

    Examples
    --------
    >>> f = RareWord({"the": 0, "otryad": 298905}, max_rank=200000, exempt=("names",))
    >>> f("otryad", "pleasant"), f("otryad", "names") is None, f("the", "x") is None
    ('rarer than rank 200000 of the neighbour embedding (298905)', True, True)
    """

    ranks: Mapping[str, int]
    max_rank: int
    exempt: Collection[str] = ()
    name: str = "rare word"

    def __call__(self, word: str, set_name: str) -> str | None:
        rank = self.ranks.get(word)
        if set_name in self.exempt or rank is None or rank < self.max_rank:
            return None
        return f"rarer than rank {self.max_rank} of the neighbour embedding ({rank})"


@dataclass(frozen=True)
class NameRaceFilter:
    """Names in a name set must be names of the set's race (a first-name race table).

    Only sets listed in ``races`` (name sets) are filtered: a candidate joins such a set only
    if the table has it and gives the set's race the largest share of its bearers (Katô &
    Miyao's rule: "by taking argmax"), or, with ``min_share``, at least that share. Other
    sets pass untouched (the table also holds ordinary words used as names, so it cannot tell
    names from words).

    Parameters
    ----------
    table : pandas.DataFrame
        Index: lowercase names; one column per race with shares
        (:func:`~nlpbias.studies.intrinsic_extrinsic.name_race.load_first_name_race`).
    races : mapping
        Name set → its race (a column of ``table``).
    min_share : float, optional
        Smallest share of the set's race; None (the paper's rule): the set's race must be the
        table's most common race for the name.

    Examples
    --------
    >>> t = pd.DataFrame({"white": [0.9, 0.1, 0.45], "black": [0.1, 0.9, 0.3],
    ...                   "hispanic": [0.0, 0.0, 0.25]}, index=["emily", "jamal", "maria"])
    >>> f = NameRaceFilter(t, {"aa_names": "black", "ea_names": "white"})
    >>> f("jamal", "aa_names") is None, f("emily", "aa_names"), f("emily", "pleasant") is None
    (True, 'name-race table: mostly white (0.90), not black', True)
    >>> f("maria", "ea_names") is None
    True
    >>> NameRaceFilter(t, {"ea_names": "white"}, min_share=0.5)("maria", "ea_names")
    'name-race table: white share 0.45 < 0.5'
    """

    table: pd.DataFrame
    races: Mapping[str, str]
    min_share: float | None = None
    name: str = "name-race table"

    def __call__(self, word: str, set_name: str) -> str | None:
        race = self.races.get(set_name)
        if race is None:
            return None
        if word not in self.table.index:
            return f"{self.name}: not a first name in the table"
        shares = self.table.loc[word]
        share = float(shares[race])
        if self.min_share is None:
            top = str(shares.idxmax())
            if top != race and float(shares[top]) > share:
                return f"{self.name}: mostly {top} ({float(shares[top]):.2f}), not {race}"
        elif share < self.min_share:
            return f"{self.name}: {race} share {share:.2f} < {self.min_share:g}"
        return None


@dataclass(frozen=True)
class DialectFilter:
    """Race-aligned words, by a demographic language model (TwitterAAE, Blodgett et al. 2016).

    A word's alignment is ``P(dialect | word)`` under a uniform prior over the model's four
    dialects (its per-dialect word probabilities, normalised over the dialects). A set listed in
    ``dialects`` (a dialect word set, e.g. African-American-aligned words) keeps only candidates
    aligned with its dialect by at least ``keep_at_least[set]``; every other set loses the
    candidates aligned with a non-``white`` dialect by ``remove_at`` or more (race-aligned words
    do not belong in, say, a gender set). Words the model does not know pass, except into
    dialect sets. :meth:`from_sets` sets each dialect set's threshold from its own words.

    Parameters
    ----------
    model : nlpbias.data.twitteraae.DialectModel
        Or anything with ``index`` (word → row) and ``wordprobs`` (rows × dialects).
    dialects : mapping
        Dialect set → its dialect (``"aa"``, ``"hispanic"``, ``"asian"`` or ``"white"``).
    keep_at_least : mapping
        Dialect set → the smallest alignment a candidate needs.
    remove_at : float
        Alignment with a non-white dialect that removes a candidate from the other sets.
    order : sequence of str
        The dialects of ``wordprobs``'s columns (default: :data:`nlpbias.data.twitteraae.
        DIALECTS`).

    Examples
    --------
    >>> from types import SimpleNamespace
    >>> m = SimpleNamespace(index={"finna": 0, "going": 1},
    ...                     wordprobs=np.array([[9.0, 0.5, 0.5, 1.0], [1.0, 1.0, 1.0, 2.0]]))
    >>> f = DialectFilter(m, {"aae": "aa"}, keep_at_least={"aae": 0.5}, remove_at=0.8)
    >>> f("finna", "female"), f("going", "female") is None, f("going", "aae")
    ('dialect model: aligned with aa (0.82)', True, 'dialect model: aa alignment 0.20 < 0.50')
    """

    model: Any
    dialects: Mapping[str, str]
    keep_at_least: Mapping[str, float]
    remove_at: float
    order: Sequence[str] = ("aa", "hispanic", "asian", "white")
    name: str = "dialect model"

    def alignment(self, word: str) -> dict[str, float] | None:
        """``P(dialect | word)`` per dialect, or None for a word the model does not know."""
        row = self.model.index.get(word)
        if row is None:
            return None
        p = np.asarray(self.model.wordprobs[row], dtype=float)
        return dict(zip(self.order, p / p.sum(), strict=True))

    @classmethod
    def from_sets(
        cls,
        model: Any,
        sets: Mapping[str, Sequence[str]],
        dialects: Mapping[str, str],
        *,
        remove_at: float,
        order: Sequence[str] = ("aa", "hispanic", "asian", "white"),
    ) -> DialectFilter:
        """Each dialect set's threshold: the alignment of its least aligned own word.

        A neighbour joins a dialect set only if it is at least as aligned with the set's
        dialect as every word the set started with. (A fixed threshold fails both ways: on
        2026-11-27's TwitterAAE table the white-aligned words of ``davidson_race`` have white
        alignments from 0.40 to 0.99, the African-American-aligned ones aa alignments from
        0.54 to 1.00.)

        Raises
        ------
        ValueError
            A dialect set none of whose words the model knows.
        """
        probe = cls(model, dialects, {}, remove_at, order)
        keep = {}
        for name, dialect in dialects.items():
            shares = [a[dialect] for w in sets[name] if (a := probe.alignment(w.lower()))]
            if not shares:
                raise ValueError(
                    f"no word of the dialect set {name!r} is in the dialect model; its "
                    "threshold cannot be set from its words"
                )
            keep[name] = float(min(shares))
        return cls(model, dialects, keep, remove_at, order)

    def __call__(self, word: str, set_name: str) -> str | None:
        want = self.dialects.get(set_name)
        share = self.alignment(word)
        if share is None:
            return None if want is None else f"{self.name}: not in the model's vocabulary"
        if want is not None:
            need = self.keep_at_least[set_name]
            if share[want] < need:
                return f"{self.name}: {want} alignment {share[want]:.2f} < {need:.2f}"
            return None
        for dialect in self.order:
            if dialect != "white" and share[dialect] >= self.remove_at:
                return f"{self.name}: aligned with {dialect} ({share[dialect]:.2f})"
        return None


def _name(f: Filter) -> str:
    return str(getattr(f, "name", getattr(f, "__name__", type(f).__name__)))


def nearest_neighbours(kv: Any, words: Sequence[str], *, k: int) -> dict[str, list[str]]:
    """The ``k`` nearest neighbours by cosine of each word ``kv`` has (the word itself excluded).

    Parameters
    ----------
    kv : gensim KeyedVectors
    words : sequence of str
    k : int

    Returns
    -------
    dict
        Word → its neighbours, nearest first (ties broken by the vocabulary's order).

    Examples
    --------
    >>> from gensim.models import KeyedVectors
    >>> kv = KeyedVectors(2)
    >>> kv.add_vectors(["a", "b", "c"], np.array([[1.0, 0.0], [0.9, 0.1], [0.0, 1.0]]))
    >>> nearest_neighbours(kv, ["a"], k=1)
    {'a': ['b']}
    """
    check_int(k, "k", minimum=1)
    norms = kv.get_normed_vectors()
    out = {}
    for word in words:
        if word not in kv.key_to_index:
            continue
        sims = norms @ norms[kv.key_to_index[word]]
        sims[kv.key_to_index[word]] = -np.inf
        top = np.argsort(-sims, kind="stable")[:k]
        out[word] = [kv.index_to_key[i] for i in top]
    return out


def expand_sets(
    sets: Mapping[str, Sequence[str]],
    neighbours: Any,
    *,
    k: int,
    filters: Sequence[Filter] = (),
    neighbours_name: str = "",
) -> Expansion:
    """Expand each set with the ``k`` nearest neighbours of its words, skipping and filtering.

    A candidate (a neighbour of a set's word, in order: the set's words in turn, nearest
    first) is left out when it is already in any original set (``filter`` "in a set"), already
    added to a set ("added before"), or when a filter gives a reason; otherwise it joins the set.
    Words are compared lowercased.

    Parameters
    ----------
    sets : mapping
        Set name → words (e.g. the merged targets and attributes of a family's word sets).
    neighbours : gensim KeyedVectors
        The embedding whose neighbours expand the sets (not one that is measured).
    k : int
        Neighbours per word (Katô & Miyao: 10).
    filters : sequence of callables
        ``filter(word, set_name) -> reason or None``, applied in order.
    neighbours_name : str
        The neighbour embedding's name, for the provenance.

    Returns
    -------
    Expansion

    Raises
    ------
    ValueError
        No sets, an empty set, or no word of any set in the neighbour embedding.
    """
    check_int(k, "k", minimum=1)
    if not sets:
        raise ValueError("no sets to expand; pass a mapping of set names to words")
    original = {}
    for name, words in sets.items():
        if not words:
            raise ValueError(f"set {name!r} is empty; give it at least one word")
        original[name] = [w.lower() for w in words]
    owner: dict[str, str] = {}
    for name, words in original.items():
        for w in words:
            owner.setdefault(w, name)
    missing = {
        n: tuple(w for w in ws if w not in neighbours.key_to_index) for n, ws in original.items()
    }
    if all(len(missing[n]) == len(original[n]) for n in original):
        raise ValueError(
            "no word of any set is in the neighbour embedding; check the casing or use another "
            "embedding"
        )
    added: dict[str, list[str]] = {n: [] for n in original}
    taken: dict[str, str] = {}
    removed = []
    for name, words in original.items():
        near = nearest_neighbours(neighbours, words, k=k)
        for source in words:
            for cand in near.get(source, []):
                if taken.get(cand) == name:  # a neighbour of an earlier word of this set
                    continue
                reason, which = None, None
                if cand in owner:
                    which, reason = "in a set", f"already in set {owner[cand]!r}"
                elif cand in taken:
                    which, reason = "added before", f"already added to set {taken[cand]!r}"
                else:
                    for f in filters:
                        reason = f(cand, name)
                        if reason:
                            which = _name(f)
                            break
                if reason:
                    removed.append(
                        {"set": name, "word": cand, "source": source, "filter": which,
                         "reason": reason}
                    )  # fmt: skip
                    continue
                taken[cand] = name
                added[name].append(cand)
    present = {n: [w for w in ws if w not in missing[n]] for n, ws in original.items()}
    return Expansion(
        sets={n: tuple(present[n] + added[n]) for n in original},
        added={n: tuple(v) for n, v in added.items()},
        removed=pd.DataFrame(removed, columns=["set", "word", "source", "filter", "reason"]),
        missing=missing,
        provenance={
            "neighbours": neighbours_name,
            "k": k,
            "filters": [
                getattr(f, "name", getattr(f, "__name__", type(f).__name__)) for f in filters
            ],
        },
    )


def read_expansion(path: str | Path) -> Expansion:
    """Read a file written by :meth:`Expansion.to_yaml`.

    Raises
    ------
    FileNotFoundError
        No such file.
    ValueError
        The file is not an expansion (no ``sets`` or ``provenance``); the message names it.
    """
    p = Path(path)
    if not p.is_file():
        raise FileNotFoundError(f"no expansion file {p}; write it with Expansion.to_yaml")
    doc = yaml.safe_load(p.read_text())
    if not isinstance(doc, dict) or "sets" not in doc or "provenance" not in doc:
        raise ValueError(f"{p.name} is not an expansion file (it lacks 'sets' or 'provenance')")
    rows = [
        {"set": name, "word": r["word"], "source": r["source"], "filter": filt,
         "reason": r["reason"]}
        for name, spec in doc["sets"].items()
        for filt, removed in (spec.get("removed") or {}).items()
        for r in removed
    ]  # fmt: skip
    return Expansion(
        sets={n: tuple(s["original"]) + tuple(s["added"]) for n, s in doc["sets"].items()},
        added={n: tuple(s["added"]) for n, s in doc["sets"].items()},
        removed=pd.DataFrame(rows, columns=["set", "word", "source", "filter", "reason"]),
        missing={n: tuple(s.get("missing") or ()) for n, s in doc["sets"].items()},
        provenance=dict(doc["provenance"]),
    )
