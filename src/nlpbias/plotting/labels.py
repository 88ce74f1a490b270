"""Readable labels for figures: words for the ids that tables and word-set files use.

A figure shows what a reader can read: "WEAT 7: math vs arts × male vs female terms", not
``caliskan_weat7``. The name of a word set comes from its own file (the ``title`` field of
``data/wordsets/<name>.yaml``, :func:`wordset_label`); the names of a chapter's metrics are a
table in that chapter's package (e.g. ``nlpbias.studies.pinned_auc.metric_names``). Every figure
function that draws ids takes ``names`` — a mapping or a function from id to label — and
:func:`relabel` applies it.
"""

from __future__ import annotations

import re
import textwrap
from collections.abc import Callable, Mapping
from functools import cache

from nlpbias.data.wordsets import available_wordsets, load_wordset

__all__ = ["Names", "relabel", "tidy_label", "wordset_label", "wrap_label"]

#: What a figure's ``names`` argument accepts: a mapping id → label, a function, or None.
Names = Mapping[object, str] | Callable[[object], str] | None

_PARENTHESES = re.compile(r"\s*\([^()]*\)")


def wrap_label(text: str, width: int = 44) -> str:
    """Break ``text`` into lines of at most ``width`` characters, at its natural joints first.

    A label is cut before each " × " and, when the line is still too long, after a leading
    "name:" (as in "WEAT 3: European American vs ..."); a part longer than ``width`` is wrapped
    at spaces.

    Examples
    --------
    >>> print(wrap_label("WEAT 7: math vs arts × male vs female terms"))
    WEAT 7: math vs arts
    × male vs female terms
    >>> print(wrap_label("WinoBias jobs: stereotypically male vs female jobs × {he} vs {she}"))
    WinoBias jobs:
    stereotypically male vs female jobs
    × {he} vs {she}
    """
    lines = []
    for i, part in enumerate(str(text).split(" × ")):
        part = part if i == 0 else f"× {part}"
        head, colon, body = part.partition(": ")
        if len(part) > width and colon and body:
            pieces = [head + ":", body]
        else:
            pieces = [part]
        for piece in pieces:
            lines += textwrap.wrap(piece, width=width, break_long_words=False) or [""]
    return "\n".join(lines)


@cache
def _known_wordsets() -> frozenset[str]:
    return frozenset(available_wordsets()["name"])


def wordset_label(name: object, *, width: int | None = 44) -> str:
    """The display name of a word set: its ``title`` without the parenthesised citations.

    Parameters
    ----------
    name : str
        A word-set name (file stem of ``data/wordsets/``). Any other value is returned as text,
        unchanged, so that the function can label a column that mixes word sets and other rows.
    width : int or None, default 44
        Wrap the label onto lines of this many characters (see :func:`wrap_label`); None: one
        line.

    Examples
    --------
    >>> wordset_label("caliskan_weat7", width=None)
    'WEAT 7: math vs arts × male vs female terms'
    >>> wordset_label("science_arts", width=None)
    'Science vs arts × male vs female terms'
    >>> wordset_label("toy")
    'toy'
    """
    if not isinstance(name, str) or name not in _known_wordsets():
        return str(name)
    title = _PARENTHESES.sub("", load_wordset(name).title).strip()
    return title if width is None else wrap_label(title, width)


def tidy_label(name: object) -> str:
    """An id written as words: underscores become spaces ("male_occupations" → "male occupations").

    Examples
    --------
    >>> tidy_label("female_occupations")
    'female occupations'
    """
    return str(name).replace("_", " ")


def relabel(value: object, names: Names) -> str:
    """The label of ``value`` under ``names`` (mapping, function or None); the value as text if
    the mapping does not have it.

    Examples
    --------
    >>> relabel("acc_1", {"acc_1": "accuracy, group A1"}), relabel(3, None)
    ('accuracy, group A1', '3')
    """
    if names is None:
        return str(value)
    if isinstance(names, Mapping):
        return str(names.get(value, value))
    if callable(names):
        return str(names(value))
    raise TypeError(f"names must be a mapping, a function or None, got {type(names).__name__}")
