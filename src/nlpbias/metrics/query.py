"""WEAT queries: two target word sets, two attribute word sets, and their lookup in an embedding.

A :class:`Query` holds words only. :meth:`Query.vectors` turns it into arrays for one embedding
under an explicit out-of-vocabulary (OOV) policy and returns a :class:`QueryVectors`.

OOV policy (``oov="drop"``, the default)
    1. Words not in the embedding are dropped from their set.
    2. Target sets are kept comparable: if T1 lost ``k`` more words than T2, ``k`` further words,
       chosen at random (``random_state``), are dropped from T2, and vice versa. So both target
       sets lose the same number of words, as in Katô & Miyao; when only one target set has OOV
       words this is "drop the same number from the other target set". Attribute sets only
       lose their own OOV words.
    3. If any set lost more than ``max_missing`` (a fraction) of its words to OOV, or a set is
       empty, :class:`OutOfVocabularyError` is raised, listing the missing words.

    ``oov="raise"`` raises :class:`OutOfVocabularyError` on any missing word.

Lookup rules
    - ``lowercase=True`` lowercases each term before lookup (use it when the embedding was
      trained on a lowercased corpus); the reported words keep the query's spelling.
    - A multi-word expression (a term containing a space, or ``_`` when the whole term is not in
      the vocabulary, e.g. ``"New_York"`` in a vocabulary without that phrase) is the mean of its
      words' vectors; it is missing if any of its words is missing.
    - For gensim ``KeyedVectors`` the vocabulary is ``key_to_index``: fastText vectors synthesised
      from n-grams for out-of-vocabulary words are *not* used, so word2vec and fastText models
      trained on the same corpus lose the same words.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np
import pandas as pd

from nlpbias.core.checks import check_bool, check_choice, check_number
from nlpbias.core.repro import rng as _rng

__all__ = ["OutOfVocabularyError", "Query", "QueryVectors"]

WordSets = tuple[tuple[str, ...], tuple[str, ...]]


class OutOfVocabularyError(ValueError):
    """Words of a query are missing from an embedding (beyond what the OOV policy allows).

    Attributes
    ----------
    missing : dict[str, tuple[str, ...]]
        Set name -> the words of that set not found in the embedding.
    """

    def __init__(self, message: str, missing: Mapping[str, tuple[str, ...]] | None = None):
        super().__init__(message)
        self.missing = dict(missing or {})


def _word_set(value: object, where: str) -> tuple[str, ...]:
    if isinstance(value, str) or not isinstance(value, Sequence):
        kind = f"the string {value!r}" if isinstance(value, str) else type(value).__name__
        raise TypeError(
            f"{where} must be a list of words, got {kind}; pass a list of strings (sets have "
            "no order, so pass a sorted list)"
        )
    words = tuple(value)
    if not words:
        raise ValueError(f"{where} is empty; give it at least one word")
    seen: set[str] = set()
    for word in words:
        if not isinstance(word, str):
            raise TypeError(
                f"{where} contains {word!r} ({type(word).__name__}); words must be strings"
            )
        if not word.strip():
            raise ValueError(f"{where} contains an empty or blank word; remove it")
        if word in seen:
            raise ValueError(f"{where} lists {word!r} twice; remove the duplicate")
        seen.add(word)
    return words


def _pair(value: object, kind: str) -> tuple[WordSets, tuple[str, str] | None]:
    """Two word sets from a pair of lists or a 2-item mapping (whose keys become the names)."""
    names = None
    if isinstance(value, Mapping):
        names = tuple(str(key) for key in value)
        value = list(value.values())
    if isinstance(value, str) or not isinstance(value, Sequence):
        raise TypeError(
            f"{kind} must be a pair of word lists, got {type(value).__name__}; pass ([...], [...])"
        )
    if len(value) != 2:
        raise ValueError(
            f"{kind} must be exactly two word sets, got {len(value)}; pass ([...], [...])"
        )
    label = {"targets": "T", "attributes": "A"}[kind]
    sets = tuple(_word_set(v, f"{kind} set {label}{i + 1}") for i, v in enumerate(value))
    return sets, names  # type: ignore[return-value]


def _names(value: object, kind: str) -> tuple[str, str]:
    if isinstance(value, str) or not isinstance(value, Sequence) or len(value) != 2:
        raise ValueError(f"{kind} must be two names, got {value!r}; pass e.g. ('male', 'female')")
    if not all(isinstance(v, str) and v for v in value):
        raise TypeError(f"{kind} must be two non-empty strings, got {value!r}")
    return (value[0], value[1])


@dataclass(frozen=True)
class Query:
    """Two target word sets and two attribute word sets (a WEAT query).

    Parameters
    ----------
    targets : pair of word lists, or a mapping of two names to word lists
        ``(T1, T2)``, e.g. flowers and insects. A mapping's keys become ``target_names``.
    attributes : pair of word lists, or a mapping of two names to word lists
        ``(A1, A2)``, e.g. pleasant and unpleasant. A positive WEAT statistic means T1 is closer
        to A1 (and T2 to A2) than the other way round.
    target_names, attribute_names : pair of str
        Names of the sets (defaults ``("T1", "T2")`` and ``("A1", "A2")``); all four must differ.
    name : str
        Name of the query (e.g. ``"WEAT 1"``).

    Raises
    ------
    TypeError, ValueError
        Not exactly two sets, an empty set, a non-string or blank word, a word listed twice in
        one set or in both target (or both attribute) sets, or clashing set names.

    Examples
    --------
    >>> q = Query((["rose", "tulip"], ["ant", "wasp"]), (["love"], ["hate"]), name="tiny")
    >>> q.targets
    (('rose', 'tulip'), ('ant', 'wasp'))
    >>> q.swap_attributes().attributes
    (('hate',), ('love',))
    """

    targets: WordSets
    attributes: WordSets
    target_names: tuple[str, str] = ("T1", "T2")
    attribute_names: tuple[str, str] = ("A1", "A2")
    name: str = ""

    def __post_init__(self) -> None:
        targets, t_names = _pair(self.targets, "targets")
        attributes, a_names = _pair(self.attributes, "attributes")
        if t_names is not None and tuple(self.target_names) == ("T1", "T2"):
            object.__setattr__(self, "target_names", t_names)
        if a_names is not None and tuple(self.attribute_names) == ("A1", "A2"):
            object.__setattr__(self, "attribute_names", a_names)
        object.__setattr__(self, "targets", targets)
        object.__setattr__(self, "attributes", attributes)
        object.__setattr__(self, "target_names", _names(self.target_names, "target_names"))
        object.__setattr__(self, "attribute_names", _names(self.attribute_names, "attribute_names"))
        if not isinstance(self.name, str):
            raise TypeError(f"name must be a string, got {type(self.name).__name__}")
        all_names = self.target_names + self.attribute_names
        if len(set(all_names)) != 4:
            raise ValueError(
                f"the four set names must differ, got {all_names}; rename the repeated one"
            )
        for kind, (one, two), (n1, n2) in (
            ("target", targets, self.target_names),
            ("attribute", attributes, self.attribute_names),
        ):
            shared = [w for w in one if w in set(two)]
            if shared:
                raise ValueError(
                    f"{kind} sets {n1!r} and {n2!r} both list {', '.join(map(repr, shared))}: "
                    f"a word can be in only one {kind} set; remove it from one of them"
                )

    @property
    def set_names(self) -> tuple[str, str, str, str]:
        """Names of T1, T2, A1, A2, in that order."""
        return self.target_names + self.attribute_names

    @classmethod
    def from_wordset(cls, ws: Any) -> Query:
        """Build a query from a :class:`nlpbias.data.wordsets.WordSet` (or any object with
        ``targets`` and ``attributes`` mappings of two names to word lists, and ``name``).

        Examples
        --------
        >>> from types import SimpleNamespace
        >>> ws = SimpleNamespace(name="w", targets={"m": ["he"], "f": ["she"]},
        ...                      attributes={"car": ["job"], "fam": ["home"]})
        >>> Query.from_wordset(ws).set_names
        ('m', 'f', 'car', 'fam')
        """
        targets = getattr(ws, "targets", None)
        attributes = getattr(ws, "attributes", None)
        if not isinstance(targets, Mapping) or not isinstance(attributes, Mapping):
            raise TypeError(
                f"from_wordset needs an object with 'targets' and 'attributes' mappings "
                f"(a WordSet), got {type(ws).__name__}; build a Query directly instead"
            )
        return cls(targets=targets, attributes=attributes, name=str(getattr(ws, "name", "")))

    def swap_attributes(self) -> Query:
        """The same query with A1 and A2 (and their names) exchanged: flips the sign of WEAT."""
        return Query(
            targets=self.targets,
            attributes=(self.attributes[1], self.attributes[0]),
            target_names=self.target_names,
            attribute_names=(self.attribute_names[1], self.attribute_names[0]),
            name=self.name,
        )

    def swap_targets(self) -> Query:
        """The same query with T1 and T2 (and their names) exchanged: flips the sign of WEAT."""
        return Query(
            targets=(self.targets[1], self.targets[0]),
            attributes=self.attributes,
            target_names=(self.target_names[1], self.target_names[0]),
            attribute_names=self.attribute_names,
            name=self.name,
        )

    def vectors(
        self,
        embedding: Any,
        *,
        oov: Literal["drop", "raise"] = "drop",
        max_missing: float,
        lowercase: bool = False,
        random_state: None | int | np.random.Generator,
        balance: bool = True,
    ) -> QueryVectors:
        """Look the query's words up in an embedding (see the module docstring for the rules).

        Parameters
        ----------
        embedding : gensim KeyedVectors or Mapping[str, array-like]
            Word vectors; all of the same length.
        oov : {"drop", "raise"}, default "drop"
            Out-of-vocabulary policy.
        max_missing : float in [0, 1]
            Largest fraction of a set's words that may be missing before
            :class:`OutOfVocabularyError` is raised (WEFE's ``lost_vocabulary_threshold``).
        lowercase : bool, default False
            Lowercase terms before lookup.
        random_state : None, int or numpy.random.Generator
            Chooses the extra target words dropped to keep the target sets balanced (None: fresh
            entropy; unused with ``balance=False``).
        balance : bool, default True
            Drop as many words from the other target set as one lost (the WEAT convention).
            ``False`` keeps every word found, e.g. to inspect per-word associations.

        Returns
        -------
        QueryVectors

        Raises
        ------
        OutOfVocabularyError
            Too many missing words (message lists them) or a set left empty.
        TypeError, ValueError
            A bad embedding, vectors of different lengths, a zero or non-finite vector, or bad
            option values.

        Examples
        --------
        >>> emb = {"rose": [1, 0], "ant": [0, 1], "love": [1, .1], "hate": [.1, 1]}
        >>> q = Query((["rose", "tulip"], ["ant", "wasp"]), (["love"], ["hate"]))
        >>> qv = q.vectors(emb, max_missing=0.5, random_state=0)
        >>> qv.words["T1"], qv.missing["T2"], qv.T1.shape
        (('rose',), ('wasp',), (1, 2))
        """
        check_choice(oov, "oov", ["drop", "raise"])
        check_number(max_missing, "max_missing", low=0.0, high=1.0)
        check_bool(lowercase, "lowercase")
        gen = _rng(random_state)  # validates random_state even when nothing is dropped
        lookup = _Lookup(embedding)
        names = self.set_names
        sets = self.targets + self.attributes
        found: list[list[tuple[str, np.ndarray]]] = []
        missing: dict[str, tuple[str, ...]] = {}
        for set_name, words in zip(names, sets, strict=True):
            hits, misses = [], []
            for word in words:
                vec = lookup(word.lower() if lowercase else word)
                if vec is None:
                    misses.append(word)
                else:
                    hits.append((word, vec))
            found.append(hits)
            missing[set_name] = tuple(misses)
        self._check_missing(missing, sets, oov=oov, max_missing=max_missing)
        dropped = {name: missing[name] for name in names}
        extra = len(missing[names[0]]) - len(missing[names[1]])
        if extra and balance:
            side = 1 if extra > 0 else 0  # the set that lost fewer words loses some more
            pool = found[side]
            k = min(abs(extra), len(pool))
            cut = set(gen.choice(len(pool), size=k, replace=False).tolist())
            found[side] = [item for i, item in enumerate(pool) if i not in cut]
            extra_words = tuple(pool[i][0] for i in sorted(cut))
            dropped[names[side]] = missing[names[side]] + extra_words
        for set_name, hits in zip(names, found, strict=True):
            if not hits:
                raise OutOfVocabularyError(
                    f"query {self.name!r}: set {set_name!r} has no words left after dropping "
                    "out-of-vocabulary words; use other words or another embedding",
                    missing,
                )
        arrays = [np.stack([vec for _, vec in hits]) for hits in found]
        return QueryVectors(
            T1=arrays[0],
            T2=arrays[1],
            A1=arrays[2],
            A2=arrays[3],
            names=names,
            words={n: tuple(w for w, _ in hits) for n, hits in zip(names, found, strict=True)},
            dropped=dropped,
            missing=missing,
        )

    def coverage(self, embedding: Any, *, lowercase: bool = False) -> pd.DataFrame:
        """How many words of each set the embedding has (multi-word terms: all their words).

        Returns
        -------
        pandas.DataFrame
            One row per set: ``set``, ``n``, ``found``, ``share``, ``missing`` (the words).

        Examples
        --------
        >>> q = Query((["rose", "tulip"], ["ant"]), (["love"], ["hate"]))
        >>> emb = {"rose": [1, 0], "ant": [0, 1], "love": [1, 1], "hate": [1, -1]}
        >>> q.coverage(emb)["found"].tolist()
        [1, 1, 1, 1]
        """
        lookup = _Lookup(embedding)
        rows = []
        for set_name, words in zip(self.set_names, self.targets + self.attributes, strict=True):
            miss = [w for w in words if lookup(w.lower() if lowercase else w) is None]
            rows.append(
                {
                    "set": set_name,
                    "n": len(words),
                    "found": len(words) - len(miss),
                    "share": (len(words) - len(miss)) / len(words),
                    "missing": tuple(miss),
                }
            )
        return pd.DataFrame(rows)

    def _check_missing(
        self,
        missing: dict[str, tuple[str, ...]],
        sets: tuple[tuple[str, ...], ...],
        *,
        oov: str,
        max_missing: float,
    ) -> None:
        parts = []
        for (set_name, miss), words in zip(missing.items(), sets, strict=True):
            share = len(miss) / len(words)
            if miss and (oov == "raise" or share > max_missing):
                listed = ", ".join(miss)
                parts.append(f"{set_name!r} lost {len(miss)}/{len(words)} ({listed})")
        if not parts:
            return
        if oov == "raise":
            fix = "remove them from the query or pass oov='drop'"
            head = "words not in the embedding"
        else:
            fix = "fix the word lists, try lowercase=True, or raise max_missing"
            head = f"more than max_missing={max_missing:g} of a set not in the embedding"
        raise OutOfVocabularyError(
            f"query {self.name!r}: {head}: {'; '.join(parts)}; {fix}", missing
        )


class _Lookup:
    """Vector of a term (or None): exact key, else the mean of a multi-word expression's words."""

    def __init__(self, embedding: Any):
        index = getattr(embedding, "key_to_index", None)
        if isinstance(index, Mapping) and hasattr(embedding, "get_vector"):
            self._contains = index.__contains__
            self._get = embedding.get_vector
        elif hasattr(embedding, "__contains__") and hasattr(embedding, "__getitem__"):
            if isinstance(embedding, str | bytes | Sequence | np.ndarray):
                raise TypeError(
                    f"embedding must be gensim KeyedVectors or a mapping word -> vector, got "
                    f"{type(embedding).__name__}; pass e.g. a dict"
                )
            self._contains = embedding.__contains__
            self._get = embedding.__getitem__
        else:
            raise TypeError(
                f"embedding must be gensim KeyedVectors or a mapping word -> vector, got "
                f"{type(embedding).__name__}; pass e.g. a dict"
            )
        self._dim: int | None = None

    def _vector(self, word: str) -> np.ndarray:
        vec = np.asarray(self._get(word), dtype=np.float64)
        if vec.ndim != 1 or vec.size == 0:
            raise ValueError(f"the vector of {word!r} has shape {vec.shape}; vectors must be 1-D")
        if self._dim is None:
            self._dim = vec.size
        elif vec.size != self._dim:
            raise ValueError(
                f"the vector of {word!r} has length {vec.size}, others {self._dim}; "
                "all vectors must have the same length"
            )
        if not np.all(np.isfinite(vec)):
            raise ValueError(f"the vector of {word!r} has NaN or infinite values; fix the vectors")
        if not np.any(vec):
            raise ValueError(
                f"the vector of {word!r} is all zeros, so its cosine is undefined; remove the word"
            )
        return vec

    def __call__(self, term: str) -> np.ndarray | None:
        if self._contains(term):
            return self._vector(term)
        sep = " " if " " in term else "_" if "_" in term else None
        parts = [p for p in term.split(sep) if p] if sep else []
        if len(parts) < 2 or not all(self._contains(p) for p in parts):
            return None
        vec = np.mean([self._vector(p) for p in parts], axis=0)
        if not np.any(vec):
            raise ValueError(f"the mean vector of {term!r} is all zeros; remove the term")
        return vec


@dataclass
class QueryVectors:
    """The vectors of a query's words in one embedding (output of :meth:`Query.vectors`).

    Attributes
    ----------
    T1, T2, A1, A2 : numpy.ndarray of float64, shape (n_words, dim)
        One row per word used, in the query's word order.
    names : tuple of 4 str
        Names of T1, T2, A1, A2 (the keys of the dicts below).
    words : dict[str, tuple[str, ...]]
        Words used per set (query spelling).
    dropped : dict[str, tuple[str, ...]]
        Words dropped per set: the OOV ones plus, for a target set, those dropped at random to
        keep the target sets balanced.
    missing : dict[str, tuple[str, ...]]
        Words not found in the embedding, per set.
    """

    T1: np.ndarray
    T2: np.ndarray
    A1: np.ndarray
    A2: np.ndarray
    names: tuple[str, str, str, str] = ("T1", "T2", "A1", "A2")
    words: dict[str, tuple[str, ...]] = field(default_factory=dict)
    dropped: dict[str, tuple[str, ...]] = field(default_factory=dict)
    missing: dict[str, tuple[str, ...]] = field(default_factory=dict)

    @property
    def arrays(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """``(T1, T2, A1, A2)``."""
        return self.T1, self.T2, self.A1, self.A2


def as_query(query: object) -> Query:
    """``query`` itself, or the :class:`Query` of a word set (anything with ``targets`` and
    ``attributes`` mappings, e.g. :class:`nlpbias.data.wordsets.WordSet`)."""
    if isinstance(query, Query):
        return query
    if hasattr(query, "targets") and hasattr(query, "attributes"):
        return Query.from_wordset(query)
    raise TypeError(
        f"query must be a Query (or a WordSet), got {type(query).__name__}; "
        "build one with Query(targets=..., attributes=...)"
    )
