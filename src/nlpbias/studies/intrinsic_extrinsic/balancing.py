"""Corpus mitigation: dataset balancing of stereotypical sentences (Goldfarb-Tarrant et al.; Katô).

To get word embeddings with many different bias levels, Goldfarb-Tarrant et al. (2021) and
Katô & Miyao (seed 001, Section 5) train an embedding on a corpus from which some
(anti-)stereotypical sentences were removed at random. This module chooses the sentences.

Rules
-----
1. **Word sets.** A :class:`nlpbias.metrics.query.Query` or a
   :class:`nlpbias.data.wordsets.WordSet`: targets ``T1, T2``, attributes ``A1, A2``.
2. **Matching.** A sentence is a list of tokens. A term is split on whitespace; a one-token term
   occurs in a sentence if one of its tokens equals it, a multi-word term (``"construction
   worker"``) if its tokens occur *contiguously and in order* (as in Katô & Miyao's
   ``dataset_balancing.py``, whose ``is_substring`` tests exactly that). Tokens are compared as
   whole strings (no stemming; ``"_"`` is no separator). ``lowercase=True`` lowercases both the
   sentence tokens and the terms (use it for a lowercased corpus: ``"CEO"`` then matches
   ``"ceo"``).
3. **Kinds.** With ``t_i`` = "the sentence contains a word of ``T_i``" and ``a_j`` likewise, a
   sentence is *stereotypical* if ``(t1 and a1) or (t2 and a2)`` and *anti-stereotypical* if
   ``(t1 and a2) or (t2 and a1)``. A sentence that is both (e.g. "he asked her, the nurse, to
   call the physician") is of kind ``'both'``; one that is neither is ``'neutral'``.
4. **Sampling.** ``mode="debias"`` keeps each *stereotypical or both* sentence with probability
   ``p``; ``mode="overbias"`` keeps each *anti-stereotypical or both* sentence with probability
   ``p``; every other sentence is kept. So a ``'both'`` sentence is treated as stereotypical
   when debiasing and as anti-stereotypical when over-biasing, which is what Katô & Miyao's
   code does (it tests only the condition of the kind being removed). The papers do not discuss
   such sentences.
5. **Draw order.** One ``numpy`` Generator (:func:`nlpbias.core.repro.rng` of ``random_state``)
   draws ``u = gen.random(n_eligible)`` -- one uniform number per *eligible* sentence, in corpus
   order, and nothing else -- and the ``i``-th eligible sentence is kept iff ``u[i] < p`` (as
   ``random.random() < sample_prob`` in the reference). Hence ``p=0`` removes every eligible
   sentence, ``p=1`` keeps everything, and for a fixed seed a larger ``p`` keeps a superset.

Examples
--------
>>> from nlpbias.metrics.query import Query
>>> q = Query((["doctor"], ["nurse"]), (["he"], ["she"]))
>>> corpus = [["he", "is", "a", "doctor"], ["she", "is", "a", "doctor"], ["the", "sea"]]
>>> sentence_kinds(corpus, q).tolist()
['stereotypical', 'anti', 'neutral']
>>> balance_corpus(corpus, q, p=0.0).sentences
[['she', 'is', 'a', 'doctor'], ['the', 'sea']]
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
import pandas as pd

from nlpbias.core.checks import check_bool, check_choice, check_number
from nlpbias.core.repro import rng
from nlpbias.metrics.query import as_query

__all__ = ["KINDS", "CorpusBalance", "balance_corpus", "sentence_kinds"]

logger = logging.getLogger(__name__)

#: The sentence kinds, in the order :meth:`CorpusBalance.summary` lists them.
KINDS = ("stereotypical", "anti", "both", "neutral")

_MODES = ("debias", "overbias")
_ELIGIBLE = {"debias": ("stereotypical", "both"), "overbias": ("anti", "both")}


@dataclass(frozen=True, eq=False)
class CorpusBalance:
    """The outcome of :func:`balance_corpus`.

    Attributes
    ----------
    sentences : list of list of str
        The kept sentences, in corpus order (the same list objects as the input, not copies).
    kept : numpy.ndarray of bool
        Per input sentence: kept or not.
    kind : numpy.ndarray of str
        Per input sentence: ``'stereotypical'``, ``'anti'``, ``'both'`` or ``'neutral'``.
    p : float
        The keep probability of the eligible sentences.
    mode : str
        ``'debias'`` or ``'overbias'``.
    """

    sentences: list[list[str]]
    kept: np.ndarray
    kind: np.ndarray
    p: float
    mode: str

    def summary(self) -> pd.DataFrame:
        """Sentences per kind before and after balancing.

        Returns
        -------
        DataFrame
            One row per kind (:data:`KINDS`, then ``'all'``); columns ``kind``, ``eligible``
            (whether the mode samples this kind), ``n_before``, ``n_after``, ``n_removed``.

        Examples
        --------
        >>> from nlpbias.metrics.query import Query
        >>> q = Query((["doctor"], ["nurse"]), (["he"], ["she"]))
        >>> res = balance_corpus([["he", "doctor"], ["sea"]], q, p=0.0)
        >>> res.summary()[["kind", "n_before", "n_after"]].to_dict("list")
        {'kind': ['stereotypical', 'anti', 'both', 'neutral', 'all'], 'n_before': [1, 0, 0, 1, 2], 'n_after': [0, 0, 0, 1, 1]}
        """  # noqa: E501
        rows = []
        for k in KINDS:
            mask = self.kind == k
            before, after = int(mask.sum()), int((mask & self.kept).sum())
            rows.append([k, k in _ELIGIBLE[self.mode], before, after, before - after])
        n, m = len(self.kind), int(self.kept.sum())
        rows.append(["all", False, n, m, n - m])
        return pd.DataFrame(rows, columns=["kind", "eligible", "n_before", "n_after", "n_removed"])


# --------------------------------------------------------------------------- checks


def _sentences(sentences: object, what: str) -> list[list[str]]:
    if isinstance(sentences, str | bytes) or not isinstance(sentences, Iterable):
        raise TypeError(
            f"{what}: sentences must be a list of token lists, got {type(sentences).__name__}; "
            "pass e.g. [text.split() for text in texts]"
        )
    out = list(sentences)
    if not out:
        raise ValueError(f"{what}: the corpus is empty; pass at least one sentence")
    for i, sent in enumerate(out):
        if isinstance(sent, str) or not isinstance(sent, list | tuple):
            raise TypeError(
                f"{what}: sentence {i} is a {type(sent).__name__}, not a list of tokens; "
                "tokenize first, e.g. text.split()"
            )
    return out


def _compile(terms: Sequence[str], lowercase: bool) -> tuple[frozenset[str], list[tuple[str, ...]]]:
    """Split a word set into one-token terms (a set) and multi-word terms (token tuples)."""
    singles, multis = set(), []
    for term in terms:
        toks = tuple((term.lower() if lowercase else term).split())
        if len(toks) == 1:
            singles.add(toks[0])
        elif toks:
            multis.append(toks)
    return frozenset(singles), multis


def _contains(toks: Sequence[str], term: tuple[str, ...]) -> bool:
    n = len(term)
    return any(tuple(toks[i : i + n]) == term for i in range(len(toks) - n + 1))


def _occurrences(
    sentences: list[list[str]], sets: Sequence[Sequence[str]], lowercase: bool, what: str
) -> np.ndarray:
    """Boolean matrix (n_sentences, 4): does the sentence contain a word of T1, T2, A1, A2."""
    compiled = [_compile(words, lowercase) for words in sets]
    rows = []
    for i, sent in enumerate(sentences):
        uniq = set(sent)
        if not all(isinstance(t, str) for t in uniq):
            bad = next(t for t in uniq if not isinstance(t, str))
            raise TypeError(
                f"{what}: sentence {i} holds the token {bad!r} ({type(bad).__name__}); "
                "tokens must be strings"
            )
        if lowercase:
            uniq = {t.lower() for t in uniq}
        rows.append(
            [
                not singles.isdisjoint(uniq)
                or any(
                    uniq.issuperset(m)
                    and _contains([t.lower() for t in sent] if lowercase else sent, m)
                    for m in multis
                )
                for singles, multis in compiled
            ]
        )
    return np.array(rows, dtype=bool).reshape(len(sentences), len(sets))


def _kinds(has: np.ndarray) -> np.ndarray:
    t1, t2, a1, a2 = has.T
    stereo = (t1 & a1) | (t2 & a2)
    anti = (t1 & a2) | (t2 & a1)
    code = np.where(stereo & anti, 2, np.where(stereo, 0, np.where(anti, 1, 3)))
    return np.asarray(KINDS)[code]


def _classify(
    sentences: object, wordset: Any, lowercase: object, what: str
) -> tuple[list[list[str]], np.ndarray]:
    lowercase = check_bool(lowercase, "lowercase")
    query = as_query(wordset)
    sents = _sentences(sentences, what)
    sets = query.targets + query.attributes
    has = _occurrences(sents, sets, lowercase, what)
    absent = [name for name, col in zip(query.set_names, has.T, strict=True) if not col.any()]
    if absent:
        logger.warning(
            "%s: no sentence contains a word of set(s) %s of word set %r (lowercase=%s)",
            what,
            ", ".join(map(repr, absent)),
            query.name,
            lowercase,
        )
    kinds = _kinds(has)
    if (kinds == "neutral").all():
        raise ValueError(
            f"{what}: no sentence contains both a target and an attribute word of word set "
            f"{query.name!r}; check the word set / lower-casing"
        )
    return sents, kinds


# --------------------------------------------------------------------------- public


def sentence_kinds(
    sentences: Sequence[Sequence[str]], wordset: Any, *, lowercase: bool = True
) -> np.ndarray:
    """Classify sentences as stereotypical, anti-stereotypical, both or neutral.

    The rules (matching, multi-word terms, kinds) are in the module docstring
    (:mod:`nlpbias.studies.intrinsic_extrinsic.balancing`).

    Parameters
    ----------
    sentences : list of list of str
        The corpus, one token list per sentence (or per tweet / line).
    wordset : Query or WordSet
        Targets ``T1, T2`` and attributes ``A1, A2``.
    lowercase : bool, default True
        Lowercase tokens and terms before matching.

    Returns
    -------
    numpy.ndarray of str
        One of ``'stereotypical'``, ``'anti'``, ``'both'``, ``'neutral'`` per sentence.

    Raises
    ------
    ValueError
        An empty corpus, or no sentence holding both a target and an attribute word.
    TypeError
        A sentence that is a string rather than a token list, or a non-string token.

    Examples
    --------
    >>> from nlpbias.metrics.query import Query
    >>> q = Query((["construction worker"], ["nurse"]), (["he"], ["she"]))
    >>> sentence_kinds([["He", "is", "a", "construction", "worker"],
    ...                 ["a", "worker", "in", "construction", "and", "he"],
    ...                 ["she", "and", "he", "are", "nurses", "nurse"]], q).tolist()
    ['stereotypical', 'neutral', 'both']
    """
    return _classify(sentences, wordset, lowercase, "sentence_kinds")[1]


def balance_corpus(
    sentences: Sequence[Sequence[str]],
    wordset: Any,
    *,
    p: float,
    mode: Literal["debias", "overbias"] = "debias",
    random_state: None | int | np.random.Generator = 0,
    lowercase: bool = True,
    kinds: np.ndarray | None = None,
) -> CorpusBalance:
    """Remove (anti-)stereotypical sentences at random: dataset balancing (Katô & Miyao, Sec. 5).

    Parameters
    ----------
    sentences : list of list of str
        The corpus, one token list per sentence (a tweet or line counts as one sentence).
    wordset : Query or WordSet
        Targets ``T1, T2`` and attributes ``A1, A2``, e.g.
        ``load_wordset("winobias_occupations")``.
    p : float in [0, 1]
        Probability of keeping an eligible sentence: ``1`` keeps the corpus as it is, ``0``
        removes every eligible sentence. The papers use ``0.0, 0.1, ..., 0.9``.
    mode : {"debias", "overbias"}, default "debias"
        ``"debias"`` samples the stereotypical sentences, ``"overbias"`` the
        anti-stereotypical ones; sentences of kind ``'both'`` are sampled in either mode.
    random_state : None, int or numpy.random.Generator, default 0
        Seeds the draws (see "Draw order" in the module docstring).
    lowercase : bool, default True
        Lowercase tokens and terms before matching (the kept sentences are returned as given).
    kinds : numpy.ndarray of str, optional
        :func:`sentence_kinds` of these sentences and this word set (with this
        ``lowercase``), computed already: balancing one corpus with one word set at several
        ``p`` and modes classifies its sentences once. The result is the same as without it.

    Returns
    -------
    CorpusBalance
        ``.sentences`` (kept), ``.kept``, ``.kind`` and ``.summary()``.

    Raises
    ------
    ValueError
        ``p`` outside [0, 1], an unknown ``mode``, an empty corpus, or no sentence holding both
        a target and an attribute word.
    TypeError
        Bad argument types (a sentence given as a string, a non-number ``p``, ...).

    Examples
    --------
    >>> from nlpbias.metrics.query import Query
    >>> q = Query((["doctor"], ["nurse"]), (["he"], ["she"]))
    >>> corpus = [["he", "doctor"], ["she", "doctor"], ["she", "nurse"], ["sea"]]
    >>> res = balance_corpus(corpus, q, p=0.0, mode="overbias")
    >>> res.kept.tolist(), res.kind.tolist()
    ([True, False, True, True], ['stereotypical', 'anti', 'stereotypical', 'neutral'])
    """
    what = "balance_corpus"
    check_number(p, "p", low=0.0, high=1.0)
    check_choice(mode, "mode", _MODES)
    gen = rng(random_state)
    if kinds is None:
        sents, kinds = _classify(sentences, wordset, lowercase, what)
    else:
        sents = _sentences(sentences, what)
        kinds = np.asarray(kinds)
        if kinds.shape != (len(sents),) or not np.isin(kinds, KINDS).all():
            raise ValueError(
                f"{what}: kinds must hold one of {KINDS} per sentence ({len(sents)}), got "
                f"shape {kinds.shape}; pass sentence_kinds(sentences, wordset)"
            )
    eligible = np.isin(kinds, _ELIGIBLE[mode])
    kept = np.ones(len(sents), dtype=bool)
    kept[eligible] = gen.random(int(eligible.sum())) < p
    result = CorpusBalance(
        sentences=[s for s, k in zip(sents, kept, strict=True) if k],
        kept=kept,
        kind=kinds,
        p=float(p),
        mode=mode,
    )
    logger.info(
        "%s (%s, p=%g): %d of %d eligible sentences kept; corpus %d -> %d sentences",
        what,
        mode,
        p,
        int(kept[eligible].sum()),
        int(eligible.sum()),
        len(sents),
        len(result.sentences),
    )
    return result
