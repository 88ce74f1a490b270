"""Coreference features: embedding lookup, pair features and token coverage.

What :class:`~nlpbias.studies.intrinsic_extrinsic.coref.MentionPairScorer` sees of a (pronoun,
candidate) pair (:mod:`nlpbias.studies.intrinsic_extrinsic.coref_pairs`).

**Features** of a pair, from the frozen embedding only (OOV tokens → zero vectors; lower-cased
lookups when the embedding has no upper-case key, else the token then its lower case):
``c`` = mean vector of the candidate's tokens without determiners, ``p`` = pronoun vector,
``cx``/``px`` = mean vector of the ``window`` tokens on each side of the candidate / pronoun,
then ``[c, p, cx, px, p⊙c, px⊙c]`` (6 × d) and 28 scalars: cos(p, c), cos(px, c), cos(p, cx),
cos(px, cx); candidate before the pronoun; |token distance| in 8 log2 buckets; sentence distance
0/1/2/3+; candidate and pronoun sentence-initial (only determiners/punctuation before them);
candidate is the first / the nearest of its pronoun's candidates; pronoun case nominative /
objective / possessive / reflexive ("her" is possessive when a content word follows, so that
"him"/"her" and "his"/"her" get the same case); salience of the candidate's last token:
log(1 + its count in the text), log(1 + its count before the pronoun), whether it occurs in the
first sentence. Features are standardised with the training mean and standard deviation.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from nlpbias.studies.intrinsic_extrinsic.coref_pairs import her_case, require_columns

__all__ = [
    "EmbeddingLookup",
    "check_embedding",
    "pair_features",
    "token_coverage",
    "use_lowercase",
]

_DETERMINERS = frozenset({"the", "a", "an"})
_ENDERS = frozenset({".", "!", "?"})
_CASES = {"he": "nom", "she": "nom", "him": "obj", "his": "poss", "hers": "poss",
          "himself": "refl", "herself": "refl"}  # fmt: skip
_N_SCALARS = 28


def check_embedding(embedding: Any) -> Any:
    """``embedding`` if it looks like a gensim KeyedVectors; a one-line error otherwise."""
    if embedding is None:
        raise ValueError("embedding is required; pass a gensim KeyedVectors (frozen word vectors)")
    if not all(hasattr(embedding, a) for a in ("vector_size", "__contains__", "__getitem__")):
        raise TypeError(f"embedding must be a gensim KeyedVectors, got {type(embedding).__name__}")
    return embedding


def use_lowercase(embedding: Any, lowercase: bool | str) -> bool:
    """``lowercase`` resolved: for "auto", True when the embedding has no upper-case key."""
    if lowercase != "auto":
        if not isinstance(lowercase, bool):
            raise ValueError(f"lowercase must be True, False or 'auto', got {lowercase!r}")
        return lowercase
    keys = getattr(embedding, "index_to_key", None)
    return keys is not None and not any(k != k.lower() for k in keys[:50_000])


class EmbeddingLookup:
    """Token → vector (zeros when OOV), counting hits over word tokens.

    Each distinct token is looked up in the embedding once (a text of GAP or WinoBias repeats
    its tokens, and a fastText embedding builds the vector of an unknown word from its
    n-grams at every lookup); the counts still count every call.
    """

    def __init__(self, embedding: Any, lowercase: bool) -> None:
        self.kv, self.lowercase = embedding, lowercase
        self.dim = int(embedding.vector_size)
        self.zero = np.zeros(self.dim, dtype=np.float32)
        self.hits = self.words = 0
        self._seen: dict[str, tuple[np.ndarray, bool, bool]] = {}

    def _find(self, token: str) -> tuple[np.ndarray, bool, bool]:
        token = token.replace("’", "'")
        keys = [token.lower()] if self.lowercase else [token, token.lower()]
        word = token[0].isalnum()
        for key in keys:
            if key in self.kv:
                return np.asarray(self.kv[key], dtype=np.float32), word, word
        return self.zero, word, False

    def __call__(self, token: str) -> np.ndarray:
        found = self._seen.get(token)
        if found is None:
            found = self._seen[token] = self._find(token)
        vector, word, hit = found
        self.words += word
        self.hits += hit
        return vector


def _context(mat: np.ndarray, lo: int, hi: int, window: int) -> np.ndarray:
    """Mean vector of up to ``window`` rows on each side of rows [lo, hi) (zeros if none)."""
    rows = [*range(max(lo - window, 0), lo), *range(hi, min(hi + window, len(mat)))]
    return mat[rows].mean(axis=0) if rows else np.zeros(mat.shape[1], dtype=np.float32)


def _cos(a: np.ndarray, b: np.ndarray) -> float:
    den = float(np.linalg.norm(a) * np.linalg.norm(b))
    return float(a @ b) / den if den > 0 else 0.0


def _initial(lower: Sequence[str], sent: np.ndarray, tok: int) -> float:
    """1 when only determiners/punctuation precede ``tok`` in its sentence."""
    i = tok - 1
    while i >= 0 and sent[i] == sent[tok]:
        if lower[i] not in _DETERMINERS and lower[i][0].isalnum():
            return 0.0
        i -= 1
    return 1.0


def pair_features(pairs: pd.DataFrame, lookup: EmbeddingLookup, window: int) -> np.ndarray:
    """The feature matrix of the module docstring, one row per pair."""
    out = np.zeros((len(pairs), 6 * lookup.dim + _N_SCALARS), dtype=np.float32)
    cache: dict[str, tuple] = {}
    p_tok = pairs["pronoun_token"].to_numpy()
    c_lo, c_hi = pairs["candidate_token_start"].to_numpy(), pairs["candidate_token_end"].to_numpy()
    ids = pairs["example_id"].to_numpy()
    dist = np.where(c_hi <= p_tok, p_tok - c_hi + 1, np.abs(c_lo - p_tok)).astype(np.int64)
    group = pd.Series(c_lo).groupby(ids)
    first = c_lo == group.transform("min").to_numpy()
    nearest = dist == pd.Series(dist).groupby(ids).transform("min").to_numpy()
    for row, r in enumerate(pairs[["example_id", "tokens", "pronoun"]].itertuples(index=False)):
        if r.example_id not in cache:
            lower = [t.lower() for t in r.tokens]
            mat = np.stack([lookup(t) for t in r.tokens]) if r.tokens else lookup.zero[None]
            sent = np.cumsum([0] + [t in _ENDERS for t in r.tokens[:-1]])
            cache = {r.example_id: (lower, mat, sent)}  # pairs of one pronoun are adjacent
        lower, mat, sent = cache[r.example_id]
        lo, hi, pt = int(c_lo[row]), int(c_hi[row]), int(p_tok[row])
        content = [i for i in range(lo, hi) if lower[i] not in _DETERMINERS] or list(range(lo, hi))
        c = mat[content].mean(axis=0)
        p = mat[pt]
        cx, px = _context(mat, lo, hi, window), _context(mat, pt, pt + 1, window)
        scalars = np.zeros(_N_SCALARS, dtype=np.float32)
        scalars[:4] = _cos(p, c), _cos(px, c), _cos(p, cx), _cos(px, cx)
        scalars[4] = hi <= pt
        scalars[5 + min(int(math.log2(max(int(dist[row]), 1))), 7)] = 1.0
        scalars[13 + min(abs(int(sent[pt]) - int(sent[lo])), 3)] = 1.0
        scalars[17], scalars[18] = _initial(lower, sent, lo), _initial(lower, sent, pt)
        scalars[19], scalars[20] = first[row], nearest[row]
        word = r.pronoun.lower()
        case = (
            her_case(r.tokens[pt + 1] if pt + 1 < len(r.tokens) else None)
            if word == "her"
            else _CASES.get(word, "")
        )
        for k, name in enumerate(("nom", "obj", "poss", "refl")):
            scalars[21 + k] = name == case
        head = lower[content[-1]]
        scalars[25] = math.log1p(lower.count(head))
        scalars[26] = math.log1p(lower[:pt].count(head))
        scalars[27] = head in lower[: int(np.searchsorted(sent, 1))]
        out[row] = np.concatenate([c, p, cx, px, p * c, px * c, scalars])
    return out


def token_coverage(embedding: Any, pairs: pd.DataFrame, *, lowercase: bool | str = "auto") -> float:
    """Share of word tokens (starting with a letter or digit) of the pairs' texts in ``embedding``.

    Each distinct text counts once.

    Examples
    --------
    >>> from gensim.models import KeyedVectors
    >>> kv = KeyedVectors(vector_size=2); kv.add_vectors(["zoe", "met"], [[1, 0], [0, 1]])
    >>> pairs = pd.DataFrame({"example_id": ["x"], "tokens": [("Zoe", "met", "Ann", ".")]})
    >>> round(token_coverage(kv, pairs), 3)
    0.667
    """
    require_columns(pairs, ["example_id", "tokens"], "pairs")
    lookup = EmbeddingLookup(check_embedding(embedding), use_lowercase(embedding, lowercase))
    for tokens in pairs.drop_duplicates("example_id")["tokens"]:
        for t in tokens:
            lookup(t)
    if not lookup.words:
        raise ValueError("pairs hold no word tokens; check the pairs frame")
    return lookup.hits / lookup.words
