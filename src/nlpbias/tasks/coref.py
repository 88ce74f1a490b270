"""Coreference as an extrinsic task: pronoun resolution on frozen word vectors.

Katô & Miyao train Lee et al.'s (2017) end-to-end resolver on OntoNotes, which is not available
here. The stand-in is a *mention-ranking* pronoun resolver trained on GAP (Webster et al., 2018)
and scored on WinoBias (Zhao et al., 2018) type 1 and type 2, pro- vs anti-stereotypical.

**Pairs.** Every (pronoun, candidate mention) is one row of a *pairs* frame
(:func:`gap_pairs`, :func:`winobias_pairs`). GAP gives two names, A and B, with offsets and
labels. WinoBias brackets only the gold antecedent and the pronoun; the other candidate is the
first mention of a WinoBias occupation (:func:`nlpbias.data.coref.load_winobias_occupations`,
whole words, case-insensitive, an optional plural ``s``, longest name first) that lies outside
the gold mention and starts before the pronoun, extended leftwards by a directly preceding
``the``/``a``/``an`` as the gold mentions are. On the 3,168 WinoBias sentences the rule finds a
candidate for every sentence; the 14 sentences with a third occupation mention (e.g. "... how
to recognize a good baker") put it after the pronoun or after the two participants. Sentences
where it finds none are dropped and counted in a log warning.

**Tokens.** Texts are split with a regular expression that keeps character offsets (words,
GloVe-style clitics ``'s``/``n't``, single punctuation marks); a span covers every token that
overlaps its characters. ``.``, ``!`` and ``?`` end a sentence.

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

**Model.** ``s(p, c) = MLP(features)`` (one hidden ReLU layer, dropout), a dummy antecedent ε
with fixed score 0 (Lee et al., 2017), ``P(c) = softmax over {ε, candidates of p}``, trained by
the marginal log-likelihood of the gold antecedents (ε when none is gold) with Adam.

**Gender-swap augmentation.** GAP was built so that both names share the pronoun's gender, so
GAP alone never teaches that a gender mismatch rules a candidate out, which OntoNotes-trained
resolvers learn and which carries occupation stereotypes of the embedding into WinoBias. A
random share ``gender_swap`` (default 10 %) of the training pronouns is added again with the
pronoun's gender swapped and ε as gold (:func:`swap_pronoun_gender`). Without it the pro − anti
gap with GloVe 50d is small and of inconsistent sign; with it, projecting the he−she direction
out of the 40 occupation words' vectors brings the type 1 F1 gap from about 0.24 to 0.0, and
doubling that component raises it to about 0.35 (5 seeds each), while GAP F1 stays put.

**Decisions and scores.** A candidate is predicted coreferent iff it has the highest score of
its pronoun's candidates *and* beats ε (s > 0). Each candidate is then a binary decision scored
as GAP's official scorer does: precision, recall and F1 of the positive class over all pairs
(0 when a denominator is 0, as in the scorer), by pronoun gender; bias = F1(feminine) /
F1(masculine). On WinoBias every pronoun has one gold candidate: a wrong pick costs precision and
recall, an abstention (ε wins) costs recall only.
"""

from __future__ import annotations

import logging
import math
import re
import time
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd
import torch
from sklearn.base import BaseEstimator
from sklearn.utils.validation import check_is_fitted
from torch import nn

from nlpbias.data.coref import PRONOUN_GENDER, load_gap, load_winobias, load_winobias_occupations
from nlpbias.models.classifiers import _torch_session
from nlpbias.models.encoders import resolve_device
from nlpbias.progress import progress
from nlpbias.repro import rng

__all__ = [
    "HeuristicBaseline",
    "MajorityBaseline",
    "MentionPairScorer",
    "PAIR_COLUMNS",
    "STANDIN_SIZES",
    "coref_baselines",
    "evaluate_coref",
    "gap_pairs",
    "load_gap_pairs",
    "load_winobias_pairs",
    "score_gap",
    "score_pairs",
    "score_winobias",
    "standin_pairs",
    "swap_pronoun_gender",
    "token_coverage",
    "tokenize_with_offsets",
    "winobias_gaps",
    "winobias_pairs",
]

logger = logging.getLogger(__name__)

_TOKEN = re.compile(r"\w+(?=n['’]t\b)|n['’]t\b|['’](?:s|re|ve|ll|d|m)\b|\w+|[^\w\s]", re.IGNORECASE)
_DETERMINERS = frozenset({"the", "a", "an"})
_ENDERS = frozenset({".", "!", "?"})
_CASES = {"he": "nom", "she": "nom", "him": "obj", "his": "poss", "hers": "poss",
          "himself": "refl", "herself": "refl"}  # fmt: skip
#: Words after which "her" is read as objective ("told her to", "wished her well"), not possessive.
_AFTER_OBJECT = frozenset(
    "a about after again against along also and as at away back because before but by down for "
    "from here home in into is of off on once or out over since so than that the then there "
    "through to too under until up very was well when where while who with".split()
)
_SWAP = {"he": "she", "she": "he", "him": "her", "his": "her", "hers": "his", "himself": "herself",
         "herself": "himself"}  # fmt: skip


def _her_case(next_token: str | None) -> str:
    """Possessive when a content word follows "her", objective otherwise."""
    nxt = (next_token or "").lower()
    return "poss" if nxt[:1].isalpha() and nxt not in _AFTER_OBJECT else "obj"


PAIR_COLUMNS = [
    "example_id", "source", "text", "tokens", "pronoun", "pronoun_start", "pronoun_end",
    "pronoun_token", "gender", "candidate", "candidate_start", "candidate_end",
    "candidate_token_start", "candidate_token_end", "candidate_index", "label",
]  # fmt: skip
_N_SCALARS = 28
METRIC_COLUMNS = ["precision", "recall", "f1", "tp", "fp", "fn", "tn", "n"]


# --------------------------------------------------------------------------- tokens and pairs
def tokenize_with_offsets(text: str) -> tuple[list[str], np.ndarray]:
    """Split ``text`` into tokens and their character spans.

    Parameters
    ----------
    text : str

    Returns
    -------
    tokens : list of str
        Words, clitics (``'s``, ``n't``) and single punctuation marks, as written.
    spans : numpy.ndarray of shape (n_tokens, 2)
        Start and end (exclusive) character offset of each token.

    Examples
    --------
    >>> tokenize_with_offsets("Ann's dog didn't bark.")[0]
    ['Ann', "'s", 'dog', 'did', "n't", 'bark', '.']
    """
    if not isinstance(text, str):
        raise TypeError(f"text must be a string, got {type(text).__name__}")
    found = list(_TOKEN.finditer(text))
    spans = np.array([m.span() for m in found], dtype=np.int64).reshape(-1, 2)
    return [m.group() for m in found], spans


def _token_span(spans: np.ndarray, start: int, end: int) -> tuple[int, int] | None:
    hit = np.flatnonzero((spans[:, 0] < end) & (spans[:, 1] > start))
    return (int(hit[0]), int(hit[-1]) + 1) if len(hit) else None


def _require(df: object, columns: Sequence[str], what: str) -> pd.DataFrame:
    if not isinstance(df, pd.DataFrame):
        raise TypeError(f"{what} must be a pandas DataFrame, got {type(df).__name__}")
    missing = [c for c in columns if c not in df.columns]
    if missing:
        raise ValueError(f"{what} lacks columns {missing}; build it with the matching loader")
    return df


def _pair_rows(rid: str, source: str, text: str, pronoun: tuple[str, int], cands: list) -> list:
    """Rows for one pronoun; ``cands`` = [(mention, start, label)]; [] if a span is not found."""
    tokens, spans = tokenize_with_offsets(text)
    word, p_start = pronoun
    p_tok = _token_span(spans, p_start, p_start + len(word))
    gender = PRONOUN_GENDER.get(word.lower())
    if p_tok is None or gender is None or text[p_start : p_start + len(word)] != word:
        return []
    rows = []
    for i, (mention, start, label) in enumerate(cands):
        c_tok = _token_span(spans, start, start + len(mention))
        if c_tok is None or text[start : start + len(mention)] != mention:
            return []
        rows.append(
            [rid, source, text, tuple(tokens), word, p_start, p_start + len(word), p_tok[0],
             gender, mention, start, start + len(mention), c_tok[0], c_tok[1], i, bool(label)]
        )  # fmt: skip
    return rows


def gap_pairs(df: pd.DataFrame) -> pd.DataFrame:
    """Turn GAP examples (:func:`nlpbias.data.coref.load_gap`) into (pronoun, candidate) pairs.

    Parameters
    ----------
    df : pandas.DataFrame
        GAP rows with ``id``, ``text``, ``pronoun``, ``pronoun_offset``, ``a``, ``a_offset``,
        ``a_coref``, ``b``, ``b_offset``, ``b_coref``.

    Returns
    -------
    pandas.DataFrame
        Two rows per example (candidate A then B), columns ``example_id``, ``source`` ("gap"),
        ``text``, ``tokens`` (tuple), ``pronoun``, ``pronoun_start``/``pronoun_end`` (characters),
        ``pronoun_token``, ``gender`` ("male"/"female"), ``candidate``,
        ``candidate_start``/``candidate_end`` (characters),
        ``candidate_token_start``/``candidate_token_end`` (tokens, end exclusive),
        ``candidate_index`` (0 = A, 1 = B) and ``label`` (bool). Examples whose offsets do not
        point at their strings are dropped with a log warning.

    Examples
    --------
    >>> gap = pd.DataFrame({"id": ["x"], "text": ["Zoe met Ann. She smiled."], "pronoun": ["She"],
    ...     "pronoun_offset": [13], "a": ["Zoe"], "a_offset": [0], "a_coref": [True],
    ...     "b": ["Ann"], "b_offset": [8], "b_coref": [False]})
    >>> gap_pairs(gap)[["candidate", "candidate_token_start", "pronoun_token", "label"]].values
    array([['Zoe', 0, 4, True],
           ['Ann', 2, 4, False]], dtype=object)
    """
    need = ["id", "text", "pronoun", "pronoun_offset", "a", "a_offset", "a_coref", "b"]
    _require(df, [*need, "b_offset", "b_coref"], "GAP frame")
    rows, dropped = [], 0
    for r in df.itertuples(index=False):
        cands = [(r.a, int(r.a_offset), r.a_coref), (r.b, int(r.b_offset), r.b_coref)]
        got = _pair_rows(str(r.id), "gap", r.text, (r.pronoun, int(r.pronoun_offset)), cands)
        dropped += not got
        rows.extend(got)
    if dropped:
        logger.warning("gap_pairs: dropped %d of %d examples whose offsets miss", dropped, len(df))
    return pd.DataFrame(rows, columns=PAIR_COLUMNS)


def swap_pronoun_gender(pairs: pd.DataFrame) -> pd.DataFrame:
    """Copy the pairs with each pronoun replaced by its other-gender form and every label False.

    he↔she, him/his→her, her→his (a content word follows) or him (otherwise), hers→his,
    himself↔herself; capitalisation is kept and the later offsets are shifted. GAP's two
    candidates always share the pronoun's gender, so GAP alone never shows that a mismatch in
    gender rules a candidate out; :class:`MentionPairScorer` adds these copies (``gender_swap``)
    with the dummy antecedent as gold, as OntoNotes-style training data would teach it.

    Parameters
    ----------
    pairs : pandas.DataFrame
        A pairs frame (:func:`gap_pairs`).

    Returns
    -------
    pandas.DataFrame
        The :func:`gap_pairs` columns; ``example_id`` gets the suffix ``~swapped``.

    Examples
    --------
    >>> gap = pd.DataFrame({"id": ["x"], "text": ["Zoe met Ann. She smiled."], "pronoun": ["She"],
    ...     "pronoun_offset": [13], "a": ["Zoe"], "a_offset": [0], "a_coref": [True],
    ...     "b": ["Ann"], "b_offset": [8], "b_coref": [False]})
    >>> swapped = swap_pronoun_gender(gap_pairs(gap))
    >>> swapped.loc[0, "text"], swapped["label"].tolist()
    ('Zoe met Ann. He smiled.', [False, False])
    """
    _require(pairs, PAIR_COLUMNS, "pairs")
    rows = []
    for eid, group in pairs.groupby("example_id", sort=False):
        r = group.iloc[0]
        word, low, pt = r["pronoun"], r["pronoun"].lower(), int(r["pronoun_token"])
        nxt = r["tokens"][pt + 1] if pt + 1 < len(r["tokens"]) else None
        new = {"poss": "his", "obj": "him"}[_her_case(nxt)] if low == "her" else _SWAP[low]
        new = new.capitalize() if word[:1].isupper() else new
        start, end = int(r["pronoun_start"]), int(r["pronoun_end"])
        text = r["text"][:start] + new + r["text"][end:]
        shift = len(new) - len(word)
        cands = [
            (c.candidate, c.candidate_start + shift * (c.candidate_start >= end), False)
            for c in group.itertuples(index=False)
        ]
        got = _pair_rows(f"{eid}~swapped", r["source"], text, (new, start), cands)
        for row, c in zip(got, group["candidate_index"], strict=False):
            row[14] = c
        rows.extend(got)
    return pd.DataFrame(rows, columns=PAIR_COLUMNS)


def _occupation_pattern(occupations: pd.DataFrame | Sequence[str]) -> re.Pattern:
    names = occupations["occupation"] if isinstance(occupations, pd.DataFrame) else occupations
    names = sorted({str(n).strip() for n in names if str(n).strip()}, key=len, reverse=True)
    if not names:
        raise ValueError("occupations is empty; pass load_winobias_occupations()")
    alternatives = "|".join(re.escape(n) for n in names)
    return re.compile(rf"\b(?:(the|a|an)\s+)?(?:{alternatives})s?\b", re.IGNORECASE)


def winobias_pairs(df: pd.DataFrame, occupations: pd.DataFrame | Sequence[str]) -> pd.DataFrame:
    """Turn WinoBias sentences into (pronoun, candidate) pairs: the gold mention and the other one.

    The other candidate is found by the rule in the module docstring; sentences where it fails
    are dropped, with their number in a log warning and in ``.attrs["n_dropped"]``.

    Parameters
    ----------
    df : pandas.DataFrame
        Rows of :func:`nlpbias.data.coref.load_winobias` (one file or several concatenated):
        ``id``, ``text``, ``mention``, ``mention_start``, ``mention_end``, ``pronoun``,
        ``pronoun_start``, ``stereotype``, ``kind`` (``split`` is used when present).
    occupations : DataFrame or sequence of str
        :func:`nlpbias.data.coref.load_winobias_occupations` or occupation names.

    Returns
    -------
    pandas.DataFrame
        The columns of :func:`gap_pairs` (``source`` "winobias", ``candidate_index`` in text
        order) plus ``type`` (1/2), ``condition`` ("pro"/"anti") and ``split``.

    Examples
    --------
    >>> wb = pd.DataFrame({"id": [1], "text": ["The cook hit the nurse because he was mad."],
    ...     "mention": ["The cook"], "mention_start": [0], "mention_end": [8],
    ...     "pronoun": ["he"], "pronoun_start": [31], "stereotype": ["pro"], "kind": [1]})
    >>> winobias_pairs(wb, ["cook", "nurse"])[["candidate", "label"]].values.tolist()
    [['The cook', True], ['the nurse', False]]
    """
    need = ["id", "text", "mention", "mention_start", "mention_end", "pronoun", "pronoun_start"]
    _require(df, [*need, "stereotype", "kind"], "WinoBias frame")
    pattern = _occupation_pattern(occupations)
    rows, extra, dropped = [], [], 0
    for r in df.itertuples(index=False):
        split = getattr(r, "split", "")
        gold = (r.mention, int(r.mention_start), True)
        other = [
            m
            for m in pattern.finditer(r.text)
            if (m.end() <= r.mention_start or m.start() >= r.mention_end)
            and m.start() < r.pronoun_start
        ]
        if not other:
            dropped += 1
            continue
        cands = sorted([gold, (other[0].group(), other[0].start(), False)], key=lambda c: c[1])
        rid = f"winobias-{split}-{r.stereotype}-type{r.kind}-{r.id}"
        got = _pair_rows(rid, "winobias", r.text, (r.pronoun, int(r.pronoun_start)), cands)
        dropped += not got
        rows.extend(got)
        extra.extend([(int(r.kind), r.stereotype, split)] * len(got))
    if dropped:
        logger.warning("winobias_pairs: dropped %d of %d sentences", dropped, len(df))
    out = pd.DataFrame(rows, columns=PAIR_COLUMNS)
    out[["type", "condition", "split"]] = pd.DataFrame(extra, columns=[0, 1, 2])
    out["type"] = out["type"].astype("int64")
    out.attrs["n_dropped"] = dropped
    return out


def load_gap_pairs(split: str = "test") -> pd.DataFrame:
    """Pairs of one GAP split (:func:`nlpbias.data.coref.load_gap` then :func:`gap_pairs`).

    Examples
    --------
    >>> len(load_gap_pairs("validation"))  # doctest: +SKIP
    908
    """
    return gap_pairs(load_gap(split))


def load_winobias_pairs(split: str = "test") -> pd.DataFrame:
    """Pairs of the four WinoBias files (type 1/2 × pro/anti) of one split.

    Examples
    --------
    >>> load_winobias_pairs("test").groupby(["type", "condition"]).size().tolist()  # doctest: +SKIP
    [792, 792, 792, 792]
    """
    frames = [
        load_winobias(stereotype=s, kind=k, split=split) for k in (1, 2) for s in ("pro", "anti")
    ]
    return winobias_pairs(pd.concat(frames, ignore_index=True), load_winobias_occupations())


# --------------------------------------------------------------------------- features
def _check_embedding(embedding: Any) -> Any:
    if embedding is None:
        raise ValueError("embedding is required; pass a gensim KeyedVectors (frozen word vectors)")
    if not all(hasattr(embedding, a) for a in ("vector_size", "__contains__", "__getitem__")):
        raise TypeError(f"embedding must be a gensim KeyedVectors, got {type(embedding).__name__}")
    return embedding


def _is_lowercase(embedding: Any, lowercase: bool | str) -> bool:
    if lowercase != "auto":
        if not isinstance(lowercase, bool):
            raise ValueError(f"lowercase must be True, False or 'auto', got {lowercase!r}")
        return lowercase
    keys = getattr(embedding, "index_to_key", None)
    return keys is not None and not any(k != k.lower() for k in keys[:50_000])


class _Lookup:
    """Token → vector (zeros when OOV), counting hits over word tokens."""

    def __init__(self, embedding: Any, lowercase: bool) -> None:
        self.kv, self.lowercase = embedding, lowercase
        self.dim = int(embedding.vector_size)
        self.zero = np.zeros(self.dim, dtype=np.float32)
        self.hits = self.words = 0

    def __call__(self, token: str) -> np.ndarray:
        token = token.replace("’", "'")
        keys = [token.lower()] if self.lowercase else [token, token.lower()]
        word = token[0].isalnum()
        self.words += word
        for key in keys:
            if key in self.kv:
                self.hits += word
                return np.asarray(self.kv[key], dtype=np.float32)
        return self.zero


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


def _features(pairs: pd.DataFrame, lookup: _Lookup, window: int) -> np.ndarray:
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
            _her_case(r.tokens[pt + 1] if pt + 1 < len(r.tokens) else None)
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
    _require(pairs, ["example_id", "tokens"], "pairs")
    lookup = _Lookup(_check_embedding(embedding), _is_lowercase(embedding, lowercase))
    for tokens in pairs.drop_duplicates("example_id")["tokens"]:
        for t in tokens:
            lookup(t)
    if not lookup.words:
        raise ValueError("pairs hold no word tokens; check the pairs frame")
    return lookup.hits / lookup.words


# --------------------------------------------------------------------------- the model
def _groups(pairs: pd.DataFrame) -> tuple[np.ndarray, np.ndarray]:
    """(n_groups, k_max) pair indices per pronoun (−1 = padding) and each pair's group index."""
    codes, _ = pd.factorize(pairs["example_id"])
    order = np.argsort(codes, kind="stable")
    counts = np.bincount(codes)
    index = np.full((len(counts), int(counts.max())), -1, dtype=np.int64)
    pos = np.arange(len(codes)) - np.repeat(np.cumsum(counts) - counts, counts)
    index[codes[order], pos] = order
    return index, codes


def _padded(scores: torch.Tensor, index: torch.Tensor) -> torch.Tensor:
    """Scores per group with the dummy antecedent (score 0) in column 0; padding → −inf."""
    gathered = scores[index.clamp(min=0)].masked_fill(index < 0, -math.inf)
    null = torch.zeros(len(index), 1, dtype=scores.dtype, device=scores.device)
    return torch.cat([null, gathered], dim=1)


def _check_number(name: str, value: object, *, integer: bool, low: float, high: float) -> None:
    types = (int, np.integer) if integer else (int, float, np.integer, np.floating)
    if isinstance(value, bool) or not isinstance(value, types) or not low <= value <= high:
        kind = "an int" if integer else "a number"
        raise ValueError(f"{name} must be {kind} in [{low}, {high}], got {value!r}")


class MentionPairScorer(BaseEstimator):
    """Mention-ranking pronoun resolver on frozen word vectors (see the module docstring).

    Parameters
    ----------
    embedding : gensim KeyedVectors
        Frozen word vectors (required).
    window : int, default 3
        Context tokens on each side of the pronoun and of the candidate.
    hidden : int, default 64
        Width of the hidden ReLU layer.
    dropout : float, default 0.5
    epochs : int, default 10
    batch_size : int, default 64
        Pronouns (not pairs) per Adam step.
    learning_rate : float, default 1e-3
    weight_decay : float, default 1e-2
        Adam's (L2) weight decay.
    gender_swap : float in [0, 1], default 0.1
        Share of the training pronouns (drawn with ``random_state``) added again as
        :func:`swap_pronoun_gender` copies with no antecedent, so that the model learns that a
        gender mismatch rules a candidate out; 0 switches the augmentation off.
    lowercase : bool or "auto", default "auto"
        Lower-case tokens before lookup; "auto": when the embedding has no upper-case key.
    device : str, default "auto"
        See :func:`nlpbias.models.resolve_device`.
    n_threads : int or None, default 1
        torch CPU threads during fit/predict (restored after); None leaves torch's setting.
    random_state : None, int or numpy Generator
        Seeds initial weights, batch order and dropout; for an int, results are identical on CPU
        for the same thread count and library versions. The global torch RNG is not touched.
    show_progress : bool, default False
        A progress bar over epochs.

    Attributes
    ----------
    feature_mean_, feature_scale_ : numpy.ndarray
        Standardisation of the features, from the training pairs.
    model_ : torch.nn.Module
        The scoring MLP, in eval mode.
    coverage_ : float
        Share of the training texts' word tokens found in ``embedding``.
    lowercase_ : bool
    history_ : pandas.DataFrame
        ``epoch`` and ``train_loss`` (mean negative marginal log-likelihood per pronoun).
    fit_time_ : float
        Seconds spent in ``fit``.

    Examples
    --------
    >>> from nlpbias.models import load_glove_50d
    >>> from nlpbias.data.coref import load_gap
    >>> model = MentionPairScorer(embedding=load_glove_50d(), random_state=0)  # doctest: +SKIP
    >>> model.fit(gap_pairs(load_gap("validation"))).predict_proba(  # doctest: +SKIP
    ...     gap_pairs(load_gap("test"))).shape
    (4000, 2)
    """

    def __init__(
        self,
        embedding: Any = None,
        *,
        window: int = 3,
        hidden: int = 64,
        dropout: float = 0.5,
        epochs: int = 10,
        batch_size: int = 64,
        learning_rate: float = 1e-3,
        weight_decay: float = 1e-2,
        gender_swap: float = 0.1,
        lowercase: bool | str = "auto",
        device: str = "auto",
        n_threads: int | None = 1,
        random_state: None | int | np.random.Generator = None,
        show_progress: bool = False,
    ) -> None:
        self.embedding = embedding
        self.window = window
        self.hidden = hidden
        self.dropout = dropout
        self.epochs = epochs
        self.batch_size = batch_size
        self.learning_rate = learning_rate
        self.weight_decay = weight_decay
        self.gender_swap = gender_swap
        self.lowercase = lowercase
        self.device = device
        self.n_threads = n_threads
        self.random_state = random_state
        self.show_progress = show_progress

    def _check_params(self) -> None:
        _check_embedding(self.embedding)
        _check_number("window", self.window, integer=True, low=0, high=10_000)
        for name in ("hidden", "epochs", "batch_size"):
            _check_number(name, getattr(self, name), integer=True, low=1, high=10**7)
        _check_number("dropout", self.dropout, integer=False, low=0.0, high=0.99)
        _check_number("learning_rate", self.learning_rate, integer=False, low=1e-12, high=10.0)
        _check_number("weight_decay", self.weight_decay, integer=False, low=0.0, high=10.0)
        _check_number("gender_swap", self.gender_swap, integer=False, low=0.0, high=1.0)
        if self.n_threads is not None:
            _check_number("n_threads", self.n_threads, integer=True, low=1, high=4096)

    def _matrix(self, pairs: pd.DataFrame, lookup: _Lookup) -> np.ndarray:
        return _features(_require(pairs, PAIR_COLUMNS, "pairs"), lookup, self.window)

    def fit(self, X: pd.DataFrame, y: Sequence[bool] | None = None) -> MentionPairScorer:
        """Train on a pairs frame (:func:`gap_pairs`); labels from ``y`` or ``X["label"]``.

        Returns
        -------
        MentionPairScorer
            ``self``, fitted.
        """
        start = time.perf_counter()
        self._check_params()
        pairs = _require(X, PAIR_COLUMNS, "pairs")
        if pairs.empty:
            raise ValueError("pairs is empty; fit needs at least one (pronoun, candidate) pair")
        labels = np.asarray(pairs["label"] if y is None else y).astype(bool)
        if labels.shape != (len(pairs),):
            raise ValueError(f"y must hold one label per pair ({len(pairs)}), got {labels.shape}")
        gen = rng(self.random_state)
        if self.gender_swap > 0:
            ids = pairs["example_id"].unique()
            keep = gen.random(len(ids)) < self.gender_swap
            swapped = swap_pronoun_gender(pairs[pairs["example_id"].isin(ids[keep])])
            pairs = pd.concat([pairs[PAIR_COLUMNS], swapped], ignore_index=True)
            labels = np.concatenate([labels, np.zeros(len(swapped), dtype=bool)])
        self.lowercase_ = _is_lowercase(self.embedding, self.lowercase)
        lookup = _Lookup(self.embedding, self.lowercase_)
        feats = self._matrix(pairs, lookup)
        self.coverage_ = lookup.hits / max(lookup.words, 1)
        logger.info("coref fit: %d pairs, embedding coverage %.3f", len(pairs), self.coverage_)
        self.feature_mean_ = feats.mean(axis=0)
        self.feature_scale_ = np.maximum(feats.std(axis=0), 1e-6)
        index, _ = _groups(pairs)
        gold = np.zeros((len(index), index.shape[1] + 1), dtype=bool)
        gold[:, 1:] = (index >= 0) & labels[index.clip(min=0)]
        gold[:, 0] = ~gold[:, 1:].any(axis=1)
        seed = int(gen.integers(0, 2**31 - 1))
        device = resolve_device(self.device)
        x = torch.from_numpy((feats - self.feature_mean_) / self.feature_scale_).to(device)
        with _torch_session(seed, device, self.n_threads):
            model = nn.Sequential(
                nn.Linear(x.shape[1], self.hidden), nn.ReLU(), nn.Dropout(self.dropout),
                nn.Linear(self.hidden, 1),
            ).to(device)  # fmt: skip
            opt = torch.optim.Adam(
                model.parameters(), lr=self.learning_rate, weight_decay=self.weight_decay
            )
            index_t = torch.from_numpy(index).to(device)
            log_gold = torch.from_numpy(np.where(gold, 0.0, -np.inf).astype(np.float32)).to(device)
            history = []
            epochs = range(1, self.epochs + 1)
            for epoch in progress(epochs, enabled=self.show_progress, desc="coref"):
                model.train()
                total = 0.0
                perm = gen.permutation(len(index))
                for b in range(0, len(perm), self.batch_size):
                    g = torch.from_numpy(perm[b : b + self.batch_size]).to(device)
                    rows = index_t[g]
                    flat = torch.arange(rows.numel(), device=device).view_as(rows)
                    local = torch.where(rows >= 0, flat, -1)
                    scores = model(x[rows.clamp(min=0).flatten()]).squeeze(1)
                    padded = _padded(scores, local)
                    loss = (padded.logsumexp(1) - (padded + log_gold[g]).logsumexp(1)).mean()
                    opt.zero_grad()
                    loss.backward()
                    opt.step()
                    total += loss.item() * len(g)
                history.append((epoch, total / len(perm)))
        self.model_ = model.eval()
        self.history_ = pd.DataFrame(history, columns=["epoch", "train_loss"])
        self.fit_time_ = time.perf_counter() - start
        return self

    def decision_function(self, X: pd.DataFrame) -> np.ndarray:
        """Score s(pronoun, candidate) of each pair; the dummy antecedent scores 0."""
        check_is_fitted(self, "model_")
        pairs = _require(X, PAIR_COLUMNS, "pairs")
        if pairs.empty:
            raise ValueError("pairs is empty; nothing to score")
        feats = self._matrix(pairs, _Lookup(self.embedding, self.lowercase_))
        device = next(self.model_.parameters()).device
        x = torch.from_numpy((feats - self.feature_mean_) / self.feature_scale_).to(device)
        with _torch_session(0, device, self.n_threads), torch.no_grad():
            return self.model_(x).squeeze(1).float().cpu().numpy()

    def predict_proba(self, X: pd.DataFrame) -> np.ndarray:
        """Columns [P(not antecedent), P(antecedent)], P from the softmax over {ε, candidates}."""
        scores = torch.from_numpy(self.decision_function(X)).double()
        index, _ = _groups(X)
        probs = _padded(scores, torch.from_numpy(index)).softmax(dim=1)[:, 1:]
        out = np.zeros(len(X))
        mask = index >= 0
        out[index[mask]] = probs.numpy()[mask]
        return np.column_stack([1.0 - out, out])

    def predict(self, X: pd.DataFrame) -> np.ndarray:
        """True for the best candidate of each pronoun when it beats the dummy antecedent."""
        return _best_beats(self.decision_function(X), X)


def _best_beats(scores: np.ndarray, pairs: pd.DataFrame, null: float = 0.0) -> np.ndarray:
    index, _ = _groups(pairs)
    padded = np.where(index >= 0, scores[index.clip(min=0)], -np.inf)
    best = np.argmax(padded, axis=1)
    win = padded[np.arange(len(index)), best] > null
    out = np.zeros(len(pairs), dtype=bool)
    out[index[win, best[win]]] = True
    return out


class MajorityBaseline(BaseEstimator):
    """Predict one label for every pair: the training majority, or always positive.

    Parameters
    ----------
    strategy : {"most_frequent", "always_positive"}, default "most_frequent"
        On GAP the majority label of a candidate is False, so "most_frequent" has F1 = 0;
        "always_positive" has recall 1 and is the best constant predictor in F1.

    Examples
    --------
    >>> pairs = pd.DataFrame({"label": [True, False, False]})
    >>> MajorityBaseline().fit(pairs).predict(pairs).tolist()
    [False, False, False]
    """

    def __init__(self, strategy: str = "most_frequent") -> None:
        self.strategy = strategy

    def fit(self, X: pd.DataFrame, y: Sequence[bool] | None = None) -> MajorityBaseline:
        """Learn the majority label of ``y`` (default ``X["label"]``)."""
        if self.strategy not in ("most_frequent", "always_positive"):
            raise ValueError(
                f"strategy must be 'most_frequent' or 'always_positive', got {self.strategy!r}"
            )
        labels = np.asarray(_require(X, ["label"], "pairs")["label"] if y is None else y, bool)
        if labels.size == 0:
            raise ValueError("pairs is empty; fit needs at least one labelled pair")
        self.label_ = True if self.strategy == "always_positive" else bool(labels.mean() > 0.5)
        return self

    def predict(self, X: pd.DataFrame) -> np.ndarray:
        """The constant label for every pair."""
        check_is_fitted(self, "label_")
        return np.full(len(X), self.label_, dtype=bool)


class HeuristicBaseline(BaseEstimator):
    """Pick one candidate per pronoun by position, never abstaining.

    Parameters
    ----------
    rule : {"nearest_preceding", "first"}, default "nearest_preceding"
        The candidate ending closest before the pronoun (the nearest following one when none
        precedes), or the candidate that comes first in the text.

    Examples
    --------
    >>> pairs = pd.DataFrame({"example_id": ["x", "x"], "pronoun_token": [5, 5],
    ...     "candidate_token_start": [0, 2], "candidate_token_end": [1, 3]})
    >>> HeuristicBaseline().fit(pairs).predict(pairs).tolist()
    [False, True]
    """

    def __init__(self, rule: str = "nearest_preceding") -> None:
        self.rule = rule

    def fit(self, X: pd.DataFrame, y: Any = None) -> HeuristicBaseline:
        """Nothing to learn; checks ``rule``."""
        if self.rule not in ("nearest_preceding", "first"):
            raise ValueError(f"rule must be 'nearest_preceding' or 'first', got {self.rule!r}")
        self.fitted_ = True
        return self

    def predict(self, X: pd.DataFrame) -> np.ndarray:
        """One True per pronoun."""
        check_is_fitted(self, "fitted_")
        cols = ["example_id", "pronoun_token", "candidate_token_start", "candidate_token_end"]
        pairs = _require(X, cols, "pairs")
        start = pairs["candidate_token_start"].to_numpy(float)
        if self.rule == "first":
            return _best_beats(-start, pairs, null=-np.inf)
        before = pairs["candidate_token_end"].to_numpy() <= pairs["pronoun_token"].to_numpy()
        # preceding candidates score by their start (higher = nearer); following ones rank below
        return _best_beats(np.where(before, start, -1e9 - start), pairs, null=-np.inf)


# --------------------------------------------------------------------------- scoring
def score_pairs(labels: Sequence[bool], decisions: Sequence[bool]) -> dict[str, float]:
    """Precision, recall and F1 of the positive class (GAP's scorer; 0 for a zero denominator).

    Examples
    --------
    >>> score_pairs([True, False, True, False], [True, True, False, False])["f1"]
    0.5
    """
    gold, pred = np.asarray(labels, dtype=bool), np.asarray(decisions, dtype=bool)
    if gold.shape != pred.shape:
        raise ValueError(f"labels {gold.shape} and decisions {pred.shape} must have one shape")
    tp, fp = int((gold & pred).sum()), int((~gold & pred).sum())
    fn, tn = int((gold & ~pred).sum()), int((~gold & ~pred).sum())
    p = tp / (tp + fp) if tp + fp else 0.0
    r = tp / (tp + fn) if tp + fn else 0.0
    f1 = 2 * p * r / (p + r) if p + r else 0.0
    return {"precision": p, "recall": r, "f1": f1, "tp": tp, "fp": fp, "fn": fn, "tn": tn,
            "n": len(gold)}  # fmt: skip


def _decide(model: Any, pairs: pd.DataFrame) -> np.ndarray:
    if pairs.empty:
        raise ValueError("pairs is empty; nothing to score")
    if not hasattr(model, "predict"):
        raise TypeError(f"model must have predict(pairs), got {type(model).__name__}")
    return np.asarray(model.predict(pairs), dtype=bool)


def score_gap(model: Any, df: pd.DataFrame) -> pd.DataFrame:
    """GAP scorecard: precision, recall, F1 overall and by pronoun gender, and the F/M bias.

    Parameters
    ----------
    model : fitted estimator
        Anything with ``predict(pairs) -> bool per pair`` (:class:`MentionPairScorer`,
        the baselines).
    df : pandas.DataFrame
        GAP rows (:func:`nlpbias.data.coref.load_gap`) or their pairs (:func:`gap_pairs`).

    Returns
    -------
    pandas.DataFrame
        Index ``overall``, ``masculine``, ``feminine``; columns ``precision``, ``recall``,
        ``f1`` (fractions), ``tp``, ``fp``, ``fn``, ``tn``, ``n`` (pairs) and ``bias_f_m`` =
        F1(feminine) / F1(masculine), the same in every row (NaN when F1(masculine) is 0).

    Examples
    --------
    >>> table = score_gap(model, load_gap("test"))  # doctest: +SKIP
    >>> table.loc["overall", "f1"], table.loc["overall", "bias_f_m"]  # doctest: +SKIP
    """
    pairs = df if "candidate_start" in df.columns else gap_pairs(df)
    pred = _decide(model, pairs)
    label = pairs["label"].to_numpy(bool)
    rows = {"overall": score_pairs(label, pred)}
    for name, gender in (("masculine", "male"), ("feminine", "female")):
        m = (pairs["gender"] == gender).to_numpy()
        rows[name] = score_pairs(label[m], pred[m])
    table = pd.DataFrame.from_dict(rows, orient="index")[METRIC_COLUMNS]
    f1_m = table.loc["masculine", "f1"]
    table["bias_f_m"] = table.loc["feminine", "f1"] / f1_m if f1_m > 0 else np.nan
    table.index.name = "group"
    return table


def score_winobias(model: Any, pairs: pd.DataFrame) -> pd.DataFrame:
    """Precision, recall, F1 per WinoBias type (1, 2) and condition (pro, anti).

    Parameters
    ----------
    model : fitted estimator with ``predict(pairs)``
    pairs : pandas.DataFrame
        :func:`winobias_pairs` output.

    Returns
    -------
    pandas.DataFrame
        Index (``type``, ``condition``) in the order (1, pro), (1, anti), (2, pro), (2, anti)
        (those present); columns as :func:`score_gap` without ``bias_f_m``.

    Examples
    --------
    >>> score_winobias(model, load_winobias_pairs("test"))  # doctest: +SKIP
    """
    _require(pairs, [*PAIR_COLUMNS, "type", "condition"], "WinoBias pairs")
    pred = _decide(model, pairs)
    label = pairs["label"].to_numpy(bool)
    rows = {}
    for key in [(t, c) for t in (1, 2) for c in ("pro", "anti")]:
        m = ((pairs["type"] == key[0]) & (pairs["condition"] == key[1])).to_numpy()
        if m.any():
            rows[key] = score_pairs(label[m], pred[m])
    table = pd.DataFrame.from_dict(rows, orient="index")[METRIC_COLUMNS]
    table.index = pd.MultiIndex.from_tuples(table.index, names=["type", "condition"])
    return table


def winobias_gaps(table: pd.DataFrame) -> pd.Series:
    """Pro − anti differences of precision, recall and F1 per type and their mean over types.

    Parameters
    ----------
    table : pandas.DataFrame
        :func:`score_winobias` output with both conditions of types 1 and 2.

    Returns
    -------
    pandas.Series
        Named ``pro_minus_anti``, index ``type1_precision``, ``type1_recall``, ``type1_f1``,
        ``type2_…`` and ``mean_…`` (the mean of the two types).

    Examples
    --------
    >>> t = pd.DataFrame({"precision": [.9, .6, .8, .7], "recall": [.9, .6, .8, .7],
    ...     "f1": [.9, .6, .8, .7]}, index=pd.MultiIndex.from_product([[1, 2], ["pro", "anti"]]))
    >>> winobias_gaps(t).round(3).tolist()
    [0.3, 0.3, 0.3, 0.1, 0.1, 0.1, 0.2, 0.2, 0.2]
    """
    need = [(t, c) for t in (1, 2) for c in ("pro", "anti")]
    missing = [k for k in need if k not in table.index]
    if missing:
        raise ValueError(f"table lacks rows {missing}; score all four WinoBias files")
    out = {}
    metrics = ("precision", "recall", "f1")
    for t in (1, 2):
        for m in metrics:
            out[f"type{t}_{m}"] = float(table.loc[(t, "pro"), m] - table.loc[(t, "anti"), m])
    for m in metrics:
        out[f"mean_{m}"] = (out[f"type1_{m}"] + out[f"type2_{m}"]) / 2
    return pd.Series(out, name="pro_minus_anti")


# --------------------------------------------------------------------------- one call per sweep
def _train_pairs(train_splits: Sequence[str]) -> pd.DataFrame:
    if isinstance(train_splits, str) or not train_splits:
        raise ValueError(
            f"train_splits must be a non-empty sequence of GAP splits, got {train_splits!r}"
        )
    return pd.concat([load_gap_pairs(s) for s in train_splits], ignore_index=True)


#: Sizes of the generated stand-in (:mod:`nlpbias.data.synthetic_coref`): GAP-like training
#: sentences, GAP-like test sentences, and sentences per WinoBias-like file.
STANDIN_SIZES = {"train": 2000, "test": 500, "winobias": 200}


def standin_pairs(*, random_state: int = 0) -> dict[str, pd.DataFrame]:
    """Training, test and WinoBias-like pairs of the generated stand-in (no data home needed).

    Returns
    -------
    dict
        ``train`` and ``test`` (:func:`gap_pairs` of GAP-like frames) and ``winobias``
        (:func:`winobias_pairs` of the four WinoBias-like frames); see
        :func:`nlpbias.data.synthetic_coref.make_coref_standin`.

    Examples
    --------
    >>> p = standin_pairs()
    >>> p["winobias"].groupby(["type", "condition"]).size().tolist()
    [400, 400, 400, 400]
    """
    from nlpbias.data.synthetic_coref import make_coref_standin

    n = STANDIN_SIZES
    d = make_coref_standin(
        n_train=n["train"] + n["test"], n_test=n["winobias"], random_state=random_state
    )
    gap = d["gap"]
    wino = pd.concat(list(d["winobias"].values()), ignore_index=True)
    return {
        "train": gap_pairs(gap.iloc[: n["train"]].reset_index(drop=True)),
        "test": gap_pairs(gap.iloc[n["train"] :].reset_index(drop=True)),
        "winobias": winobias_pairs(wino, d["occupations"]),
    }


def _task_data(
    source: str, train_splits: Sequence[str], test_split: str, winobias_split: str
) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    if source == "standin":
        p = standin_pairs()
        return p["train"], p["test"], p["winobias"]
    if source != "data_home":
        raise ValueError(f"source must be 'data_home' or 'standin', got {source!r}")
    train = _train_pairs(train_splits)
    return train, load_gap_pairs(test_split), load_winobias_pairs(winobias_split)


def evaluate_coref(
    embedding: Any,
    *,
    random_state: None | int | np.random.Generator = 0,
    train_splits: Sequence[str] = ("development", "validation"),
    test_split: str = "test",
    winobias_split: str = "test",
    source: str = "data_home",
    **params: Any,
) -> dict[str, Any]:
    """Fit :class:`MentionPairScorer` on GAP and score it on GAP and WinoBias: one sweep point.

    Parameters
    ----------
    embedding : gensim KeyedVectors
    random_state : None, int or numpy Generator, default 0
    train_splits : sequence of str, default ("development", "validation")
    test_split : str, default "test"
        GAP split scored.
    winobias_split : {"dev", "test"}, default "test"
    source : {"data_home", "standin"}, default "data_home"
        GAP and WinoBias from the data home, or the generated stand-in of
        :func:`standin_pairs` (then the split arguments are ignored).
    **params
        Other :class:`MentionPairScorer` parameters.

    Returns
    -------
    dict
        ``gap`` (:func:`score_gap` table on ``test_split``), ``winobias``
        (:func:`score_winobias`), ``gaps`` (:func:`winobias_gaps`), ``fit_time`` (seconds),
        ``coverage`` (Series: embedding coverage of the GAP training, GAP test and WinoBias
        texts).

    Examples
    --------
    >>> from nlpbias.models import load_glove_50d
    >>> out = evaluate_coref(load_glove_50d(), random_state=0)  # doctest: +SKIP
    >>> out["gaps"]["mean_f1"]  # doctest: +SKIP
    """
    train, test, wino = _task_data(source, train_splits, test_split, winobias_split)
    model = MentionPairScorer(embedding, random_state=random_state, **params).fit(train)
    table = score_winobias(model, wino)
    coverage = pd.Series(
        {"gap_train": model.coverage_,
         "gap_test": token_coverage(embedding, test, lowercase=model.lowercase_),
         "winobias": token_coverage(embedding, wino, lowercase=model.lowercase_)},
        name="coverage",
    )  # fmt: skip
    return {"gap": score_gap(model, test), "winobias": table, "gaps": winobias_gaps(table),
            "fit_time": model.fit_time_, "coverage": coverage}  # fmt: skip


def coref_baselines(
    *,
    train_splits: Sequence[str] = ("development", "validation"),
    test_split: str = "test",
    winobias_split: str = "test",
    source: str = "data_home",
) -> pd.DataFrame:
    """GAP and WinoBias F1 of the majority, always-positive and positional baselines.

    ``source`` as in :func:`evaluate_coref`.

    Returns
    -------
    pandas.DataFrame
        One row per baseline (``most_frequent``, ``always_positive``, ``nearest_preceding``,
        ``first``); columns ``gap_overall``, ``gap_masculine``, ``gap_feminine``, ``gap_bias_f_m``
        and ``type1_pro``, ``type1_anti``, ``type2_pro``, ``type2_anti`` (WinoBias F1).

    Examples
    --------
    >>> coref_baselines().loc["nearest_preceding", "gap_overall"]  # doctest: +SKIP
    """
    train, test, wino = _task_data(source, train_splits, test_split, winobias_split)
    models: Mapping[str, Any] = {
        "most_frequent": MajorityBaseline(),
        "always_positive": MajorityBaseline(strategy="always_positive"),
        "nearest_preceding": HeuristicBaseline(),
        "first": HeuristicBaseline(rule="first"),
    }
    rows = {}
    for name, model in models.items():
        model.fit(train)
        gap, wb = score_gap(model, test), score_winobias(model, wino)
        row = {f"gap_{g}": gap.loc[g, "f1"] for g in gap.index}
        row["gap_bias_f_m"] = gap["bias_f_m"].iloc[0]
        row |= {f"type{t}_{c}": wb.loc[(t, c), "f1"] for t, c in wb.index}
        rows[name] = row
    out = pd.DataFrame.from_dict(rows, orient="index")
    out.index.name = "baseline"
    return out
