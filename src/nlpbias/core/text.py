"""Text in and out: tokenisation of corpora (one small, documented regex), and numbers in prose.

Numbers printed in a chapter's sentences go through :func:`fmt_count` (counts as integers with
thousands separators, never ``10033.0``) and :func:`fmt_num` (significant digits, with floating
noise such as ``8.5e-17`` shown as ``0``).

The rules of :func:`tokenize` (applied in this order):

1. Typographic apostrophes (``’`` and ``‘``) become ``'`` and Unicode hyphens (``‐``, ``‑``)
   become ``-``, so ``don’t`` and ``don't`` give the same token.
2. A *number* is a run of digits with inner ``.`` or ``,`` groups: ``1,000``, ``3.14``.
3. A *word* is a run of letters and digits (any script; the underscore is not part of a word,
   so Gutenberg's ``_italics_`` markup disappears) that may continue after a single inner
   apostrophe or hyphen: ``don't``, ``o'clock``, ``well-known``, ``20th-century``. A doubled
   hyphen (``word--word``, Gutenberg's dash) separates words, and a leading or trailing
   apostrophe or hyphen is dropped (``'tis`` gives ``tis``).
4. Everything else (punctuation, symbols, whitespace) is dropped.
5. With ``lowercase=True`` (the default) every token is lower-cased with :meth:`str.lower`.

The tokenizer is deterministic and context-free: a token never depends on its neighbours.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

import pandas as pd

from nlpbias.core.checks import check_bool, check_int

__all__ = ["TOKEN_PATTERN", "fmt_count", "fmt_num", "sentences", "split_sentences", "tokenize"]

#: The token regex (after the normalisation of step 1): numbers first, then words.
TOKEN_PATTERN: re.Pattern[str] = re.compile(r"\d+(?:[.,]\d+)+|[^\W_]+(?:['-][^\W_]+)*")

_NORMALISE = str.maketrans({"\u2019": "'", "\u2018": "'", "\u2010": "-", "\u2011": "-"})

# Candidate sentence ends: terminal punctuation, optional closing quotes or brackets, then
# whitespace and an opening quote/bracket or an upper-case letter or digit.
_SENTENCE_END = re.compile(r"[.!?]+[\"')\]\u201d\u2019]*(?=\s+[\"'(\[\u201c\u2018]*[^\W_a-z])")
# Words whose trailing full stop does not end a sentence (compared lower-cased, without the dot).
_ABBREVIATIONS = frozenset(
    "mr mrs ms dr st prof sr jr rev hon capt col gen lt sgt mt no vs etc cf fig vol ch pp "
    "jan feb mar apr jun jul aug sep sept oct nov dec".split()
)
_LAST_WORD = re.compile(r"([^\W\d_]+)\.$")


def _check_text(text: object, name: str) -> str:
    if not isinstance(text, str):
        raise TypeError(f"{name} must be a str, got {type(text).__name__}; convert it first")
    return text


def tokenize(text: str, *, lowercase: bool = True) -> list[str]:
    """Split a text into word and number tokens, dropping punctuation.

    See the module docstring for the exact rules.

    Parameters
    ----------
    text : str
        Any text.
    lowercase : bool, default True
        Lower-case the tokens.

    Returns
    -------
    list of str
        The tokens in text order (empty for a text without letters or digits).

    Examples
    --------
    >>> tokenize("Don't stop: the well-known 20th-century C.E.O. earned $1,000!")
    ["don't", 'stop', 'the', 'well-known', '20th-century', 'c', 'e', 'o', 'earned', '1,000']
    >>> tokenize("_Pride_ and Prejudice--a novel", lowercase=False)
    ['Pride', 'and', 'Prejudice', 'a', 'novel']
    """
    _check_text(text, "text")
    check_bool(lowercase, "lowercase")
    text = text.translate(_NORMALISE)
    if lowercase:
        text = text.lower()
    return TOKEN_PATTERN.findall(text)


def split_sentences(text: str) -> list[str]:
    """Split a paragraph into sentences with a simple punctuation heuristic.

    A sentence ends at ``.``, ``!`` or ``?`` (possibly repeated and followed by closing quotes or
    brackets) when whitespace and an upper-case letter, a digit or an opening quote follow,
    except after a single letter (an initial, as in ``J. R. R. Tolkien``) or a common
    abbreviation (``Mr.``, ``Dr.``, ``St.``, ``etc.``, month names, ...). It is a heuristic:
    ``moved to the U.S. Then`` is not split (``S.`` reads as an initial) and ``Smith Co. Ltd``
    is split after ``Co.``.

    Parameters
    ----------
    text : str

    Returns
    -------
    list of str
        The sentences, stripped, in order; empty pieces are dropped.

    Examples
    --------
    >>> split_sentences('Mr. Darcy bowed. "Indeed!" she said. Is it 1813? Yes.')
    ['Mr. Darcy bowed.', '"Indeed!" she said.', 'Is it 1813?', 'Yes.']
    """
    _check_text(text, "text")
    pieces, start = [], 0
    for match in _SENTENCE_END.finditer(text):
        end = match.end()
        last = _LAST_WORD.search(text, start, match.start() + 1) if match.group() == "." else None
        if last is not None:
            word = last.group(1)
            if len(word) == 1 or word.lower() in _ABBREVIATIONS:
                continue
        pieces.append(text[start:end])
        start = end
    pieces.append(text[start:])
    return [p.strip() for p in pieces if p.strip()]


def sentences(
    texts: Iterable[str],
    *,
    lowercase: bool = True,
    min_tokens: int = 1,
    split: bool = False,
) -> list[list[str]]:
    """Tokenise many texts into the list-of-token-lists that gensim trains on.

    By default each text (a paragraph, a summary, a tweet) becomes **one** token list, so a
    word2vec window can cross sentence boundaries inside a paragraph but never crosses
    paragraphs. With ``split=True`` each text is first cut into sentences with
    :func:`split_sentences`.

    Parameters
    ----------
    texts : iterable of str
        The documents (a list, a pandas Series, or a generator such as
        :func:`nlpbias.data.corpora.iter_gutenberg`); consumed once.
    lowercase : bool, default True
        Lower-case the tokens (see :func:`tokenize`).
    min_tokens : int, default 1
        Drop token lists shorter than this (after splitting).
    split : bool, default False
        One token list per sentence instead of per text.

    Returns
    -------
    list of list of str
        Equal tokens share one ``str`` object, so a corpus of millions of tokens needs one
        pointer per token.

    Examples
    --------
    >>> sentences(["The cat sat. It purred.", "", "Dogs bark!"])
    [['the', 'cat', 'sat', 'it', 'purred'], ['dogs', 'bark']]
    >>> sentences(["The cat sat. It purred."], split=True, min_tokens=3)
    [['the', 'cat', 'sat']]
    """
    if isinstance(texts, str | bytes):
        raise TypeError("texts must be an iterable of strings, not one string; wrap it in a list")
    try:
        iterator = iter(texts)
    except TypeError as err:
        raise TypeError(
            f"texts must be an iterable of strings, got {type(texts).__name__}"
        ) from err
    check_int(min_tokens, "min_tokens", minimum=1)
    check_bool(split, "split")
    check_bool(lowercase, "lowercase")
    shared: dict[str, str] = {}
    out: list[list[str]] = []
    for i, text in enumerate(iterator):
        if not isinstance(text, str):
            raise TypeError(
                f"texts must all be strings, item {i} is {type(text).__name__}; "
                "drop or convert missing values first"
            )
        for piece in split_sentences(text) if split else (text,):
            tokens = tokenize(piece, lowercase=lowercase)
            if len(tokens) >= min_tokens:
                out.append([shared.setdefault(tok, tok) for tok in tokens])
    return out


def as_text_series(texts: Any) -> pd.Series:
    """``texts`` as a pandas Series of str (a Series keeps its index); one-line errors otherwise.

    Examples
    --------
    >>> as_text_series(["a", "b"]).tolist()
    ['a', 'b']
    """
    if isinstance(texts, str | bytes):
        raise TypeError("texts must be an iterable of strings, not one string; wrap it in a list")
    s = texts if isinstance(texts, pd.Series) else pd.Series(list(texts), dtype=object)
    bad = s.map(lambda x: not isinstance(x, str)).to_numpy(dtype=bool)
    if bad.any():
        raise TypeError(
            f"texts must all be strings; {int(bad.sum())} are not (first: {s[bad].iloc[0]!r}); "
            "drop or fill them first"
        )
    return s


#: Below this absolute value a float printed in prose is floating noise and shown as 0.
NOISE = 1e-12


def fmt_count(x: Any) -> str:
    """A count as an integer with thousands separators.

    Raises a ValueError for a number that is not a whole number (a count printed from a float
    column must still be whole), or for NaN.

    Examples
    --------
    >>> fmt_count(10033.0)
    '10,033'
    >>> fmt_count(7)
    '7'
    """
    try:
        value = float(x)
    except (TypeError, ValueError):
        raise TypeError(f"a count must be a number, got {x!r}") from None
    if not value == value or value in (float("inf"), float("-inf")):
        raise ValueError(f"a count must be finite, got {x!r}")
    if value != round(value):
        raise ValueError(f"a count must be a whole number, got {x!r}")
    return f"{int(round(value)):,}"


def fmt_num(x: Any, digits: int = 3) -> str:
    """A number with `digits` significant digits; floating noise (|x| < 1e-12) is "0".

    Examples
    --------
    >>> fmt_num(8.5e-17)
    '0'
    >>> fmt_num(0.40351)
    '0.404'
    >>> fmt_num(-1.5, digits=2)
    '-1.5'
    """
    check_int(digits, "digits", minimum=1)
    value = float(x)
    if value != value:
        return "NaN"
    if abs(value) < NOISE:
        return "0"
    return f"{value:.{digits}g}"
