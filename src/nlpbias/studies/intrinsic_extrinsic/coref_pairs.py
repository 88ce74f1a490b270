"""Coreference pairs: tokens with offsets, (pronoun, candidate) rows of GAP and WinoBias.

The pairs frames that :mod:`nlpbias.studies.intrinsic_extrinsic.coref` trains and scores on, and
their loaders; the task itself (model, baselines, scores) is described in
:mod:`nlpbias.studies.intrinsic_extrinsic.coref`.

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
"""

from __future__ import annotations

import logging
import re
from collections.abc import Sequence

import numpy as np
import pandas as pd

from nlpbias.data.coref import PRONOUN_GENDER, load_gap, load_winobias, load_winobias_occupations

__all__ = [
    "PAIR_COLUMNS",
    "STANDIN_SIZES",
    "best_candidates",
    "gap_pairs",
    "her_case",
    "load_gap_pairs",
    "load_winobias_pairs",
    "pronoun_groups",
    "require_columns",
    "standin_pairs",
    "swap_pronoun_gender",
    "tokenize_with_offsets",
    "winobias_pairs",
]

# Log under the task's name, as before this module was split out of
# nlpbias.studies.intrinsic_extrinsic.coref.
logger = logging.getLogger("nlpbias.studies.intrinsic_extrinsic.coref")

_TOKEN = re.compile(r"\w+(?=n['’]t\b)|n['’]t\b|['’](?:s|re|ve|ll|d|m)\b|\w+|[^\w\s]", re.IGNORECASE)
#: Words after which "her" is read as objective ("told her to", "wished her well"), not possessive.
_AFTER_OBJECT = frozenset(
    "a about after again against along also and as at away back because before but by down for "
    "from here home in into is of off on once or out over since so than that the then there "
    "through to too under until up very was well when where while who with".split()
)
_SWAP = {"he": "she", "she": "he", "him": "her", "his": "her", "hers": "his", "himself": "herself",
         "herself": "himself"}  # fmt: skip


def her_case(next_token: str | None) -> str:
    """Possessive when a content word follows "her", objective otherwise."""
    nxt = (next_token or "").lower()
    return "poss" if nxt[:1].isalpha() and nxt not in _AFTER_OBJECT else "obj"


PAIR_COLUMNS = [
    "example_id", "source", "text", "tokens", "pronoun", "pronoun_start", "pronoun_end",
    "pronoun_token", "gender", "candidate", "candidate_start", "candidate_end",
    "candidate_token_start", "candidate_token_end", "candidate_index", "label",
]  # fmt: skip


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


def require_columns(df: object, columns: Sequence[str], what: str) -> pd.DataFrame:
    """``df`` if it is a DataFrame with ``columns``; a one-line error naming ``what`` otherwise."""
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
    require_columns(df, [*need, "b_offset", "b_coref"], "GAP frame")
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
    gender rules a candidate out;
    :class:`~nlpbias.studies.intrinsic_extrinsic.coref.MentionPairScorer` adds these copies
    (``gender_swap``) with the dummy antecedent as gold, as OntoNotes-style training data would
    teach it.

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
    require_columns(pairs, PAIR_COLUMNS, "pairs")
    rows = []
    for eid, group in pairs.groupby("example_id", sort=False):
        r = group.iloc[0]
        word, low, pt = r["pronoun"], r["pronoun"].lower(), int(r["pronoun_token"])
        nxt = r["tokens"][pt + 1] if pt + 1 < len(r["tokens"]) else None
        new = {"poss": "his", "obj": "him"}[her_case(nxt)] if low == "her" else _SWAP[low]
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
    require_columns(df, [*need, "stereotype", "kind"], "WinoBias frame")
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


#: Sizes of the generated stand-in (:mod:`nlpbias.studies.intrinsic_extrinsic.synthetic_coref`):
#: GAP-like training sentences, GAP-like test sentences, and sentences per WinoBias-like file.
STANDIN_SIZES = {"train": 2000, "test": 500, "winobias": 200}


def standin_pairs(*, random_state: int = 0) -> dict[str, pd.DataFrame]:
    """Training, test and WinoBias-like pairs of the generated stand-in (no data home needed).

    Returns
    -------
    dict
        ``train`` and ``test`` (:func:`gap_pairs` of GAP-like frames) and ``winobias``
        (:func:`winobias_pairs` of the four WinoBias-like frames); see
        :func:`nlpbias.studies.intrinsic_extrinsic.synthetic_coref.make_coref_standin`.

    Examples
    --------
    >>> p = standin_pairs()
    >>> p["winobias"].groupby(["type", "condition"]).size().tolist()
    [400, 400, 400, 400]
    """
    from nlpbias.studies.intrinsic_extrinsic.synthetic_coref import make_coref_standin

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


# --------------------------------------------------------------------------- candidates per pronoun
def pronoun_groups(pairs: pd.DataFrame) -> tuple[np.ndarray, np.ndarray]:
    """(n_groups, k_max) pair indices per pronoun (−1 = padding) and each pair's group index."""
    codes, _ = pd.factorize(pairs["example_id"])
    order = np.argsort(codes, kind="stable")
    counts = np.bincount(codes)
    index = np.full((len(counts), int(counts.max())), -1, dtype=np.int64)
    pos = np.arange(len(codes)) - np.repeat(np.cumsum(counts) - counts, counts)
    index[codes[order], pos] = order
    return index, codes


def best_candidates(scores: np.ndarray, pairs: pd.DataFrame, null: float = 0.0) -> np.ndarray:
    """True for the best-scored candidate of each pronoun when its score beats ``null``."""
    index, _ = pronoun_groups(pairs)
    padded = np.where(index >= 0, scores[index.clip(min=0)], -np.inf)
    best = np.argmax(padded, axis=1)
    win = padded[np.arange(len(index)), best] > null
    out = np.zeros(len(pairs), dtype=bool)
    out[index[win, best[win]]] = True
    return out
