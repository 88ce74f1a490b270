"""Attract-Repel's constraints: the attract and repel pairs of a word set in an embedding.

To **debias**, the *attract* ("synonym") pairs are ``T1 x A2  ∪  T2 x A1`` and the *repel*
("antonym") pairs ``T1 x A1  ∪  T2 x A2``; to **over-bias** the two are swapped
(:mod:`nlpbias.studies.intrinsic_extrinsic.attract_repel` trains on them).

- A term is looked up as in :meth:`nlpbias.metrics.query.Query.vectors`: the exact key
  (lowercased first when ``lowercase=True``), else a multi-word term (split on spaces, or on
  ``_``) whose words are all in the vocabulary; its vector is the **mean** of its words' rows
  (Katô & Miyao average ``construction`` and ``worker``). Other terms are out of vocabulary.
- Pairs are (target, attribute); a pair of a term with itself is skipped, duplicates are kept
  once (in the order T1, T2 of the definition above), and an attract pair that is also a repel
  pair is removed from the attract pairs (as in both references).
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from typing import Any, Literal

from gensim.models import KeyedVectors

from nlpbias.core.checks import check_bool, check_choice
from nlpbias.metrics.query import as_query

__all__ = ["MODES", "Term", "check_kv", "constraint_pairs", "term_pairs"]

# Log under the method's name, as before this module was split out of
# nlpbias.studies.intrinsic_extrinsic.attract_repel.
logger = logging.getLogger("nlpbias.studies.intrinsic_extrinsic.attract_repel")

#: The two directions: attract the counter-stereotypical pairs (debias) or the stereotypical ones.
MODES = ("debias", "overbias")
#: A term as the vocabulary rows of its words (one row for a single word).
Term = tuple[int, ...]


def check_kv(kv: object) -> KeyedVectors:
    """``kv`` if it is a non-empty gensim ``KeyedVectors``; a one-line error otherwise."""
    if not isinstance(kv, KeyedVectors):
        raise TypeError(
            f"kv must be gensim KeyedVectors, got {type(kv).__name__}; load one with "
            "nlpbias.models.embeddings or KeyedVectors.load"
        )
    if len(kv) == 0:
        raise ValueError("kv has no words; pass a trained embedding")
    return kv


def _resolve(term: str, index: Mapping[str, int], lowercase: bool) -> Term | None:
    """The vocabulary rows of ``term`` (one word, or every word of a multi-word term), or None."""
    key = term.lower() if lowercase else term
    if key in index:
        return (index[key],)
    sep = " " if " " in key else "_" if "_" in key else None
    parts = [p for p in key.split(sep) if p] if sep else []
    if len(parts) >= 2 and all(p in index for p in parts):
        return tuple(index[p] for p in parts)
    return None


def term_pairs(
    query: Any, index: Mapping[str, int], mode: str, lowercase: bool
) -> tuple[list[tuple[Term, Term]], list[tuple[Term, Term]], list[str], dict[Term, str]]:
    """``(attract, repel, oov, names)``: pairs of terms (vocabulary rows) of ``query``.

    ``oov`` lists the terms not found; ``names`` gives each found term's spelling in the word
    set. An attract pair that is also a repel pair is dropped from the attract pairs (logged).
    """
    t1, t2 = query.targets
    a1, a2 = query.attributes
    oov: list[str] = []
    names: dict[Term, str] = {}

    def terms(words: Sequence[str]) -> list[Term]:
        out = []
        for w in words:
            ids = _resolve(w, index, lowercase)
            if ids is None:
                if w not in oov:
                    oov.append(w)
            else:
                names.setdefault(ids, w)
                out.append(ids)
        return out

    T1, T2, A1, A2 = terms(t1), terms(t2), terms(a1), terms(a2)

    def cross(*blocks: tuple[list[Term], list[Term]]) -> list[tuple[Term, Term]]:
        seen: dict[tuple[Term, Term], None] = {}
        for targets, attributes in blocks:
            for t in targets:
                for a in attributes:
                    if t != a:
                        seen.setdefault((t, a), None)
        return list(seen)

    attract = cross((T1, A2), (T2, A1))
    repel = cross((T1, A1), (T2, A2))
    if mode == "overbias":
        attract, repel = repel, attract
    rset = set(repel)
    both = [pair for pair in attract if pair in rset]
    if both:
        logger.warning(
            "attract_repel: %d pair(s) are both attract and repel pairs (a word in two sets); "
            "dropped from the attract pairs",
            len(both),
        )
        attract = [pair for pair in attract if pair not in rset]
    return attract, repel, oov, names


def constraint_pairs(
    kv: KeyedVectors,
    wordset: Any,
    *,
    mode: Literal["debias", "overbias"] = "debias",
    lowercase: bool = True,
) -> tuple[list[tuple[str, str]], list[tuple[str, str]]]:
    """The attract and repel pairs :func:`attract_repel` would use, as (target, attribute) terms.

    Parameters
    ----------
    kv : gensim KeyedVectors
        The embedding (decides which terms are out of vocabulary).
    wordset : Query or WordSet
        Targets ``T1, T2`` and attributes ``A1, A2``.
    mode : {"debias", "overbias"}
        Debias: attract ``T1 x A2 ∪ T2 x A1``, repel ``T1 x A1 ∪ T2 x A2``; over-bias: swapped.
    lowercase : bool, default True
        Lowercase terms before lookup (the project's corpora are lower-cased).

    Returns
    -------
    attract, repel : list of (str, str)
        Pairs in the word set's spelling, OOV terms dropped (see the module docstring).

    Examples
    --------
    >>> import numpy as np
    >>> from nlpbias.metrics.query import Query
    >>> kv = KeyedVectors(2)
    >>> kv.add_vectors(["doctor", "nurse", "he", "she"], np.eye(4, 2) + 0.1)
    >>> attract, repel = constraint_pairs(kv, Query((["doctor"], ["nurse"]), (["he"], ["she"])))
    >>> attract, repel
    ([('doctor', 'she'), ('nurse', 'he')], [('doctor', 'he'), ('nurse', 'she')])
    """
    kv = check_kv(kv)
    check_choice(mode, "mode", MODES)
    check_bool(lowercase, "lowercase")
    attract, repel, _, names = term_pairs(as_query(wordset), kv.key_to_index, mode, lowercase)
    return (
        [(names[a], names[b]) for a, b in attract],
        [(names[a], names[b]) for a, b in repel],
    )
