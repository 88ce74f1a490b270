"""Rules that put texts into demographic groups for group-fairness metrics.

- :func:`gender_groups`: by gendered words in the text (``data/groups/gender_words.yaml``).
- :func:`jigsaw_groups`: by the crowd-sourced identity columns of the Jigsaw Unintended Bias
  data, with Zhao & Chang's (2020) rule (one identity at least 0.5, the other below 0.5).
- Dialect groups of tweets are in :func:`nlpbias.data.twitteraae.dialect_group`.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterable, Sequence
from functools import lru_cache

import numpy as np
import pandas as pd
import yaml

from nlpbias.core.paths import data_file
from nlpbias.core.text import as_text_series

__all__ = ["gender_groups", "gender_words", "jigsaw_groups"]

logger = logging.getLogger(__name__)


def _gender_file() -> tuple[tuple[str, ...], tuple[str, ...]]:
    # parsed once per version of the file
    p = data_file("groups", "gender_words.yaml")
    return _parse_gender_file(str(p), p.stat().st_mtime_ns)


@lru_cache(maxsize=4)
def _parse_gender_file(p: str, mtime_ns: int) -> tuple[tuple[str, ...], tuple[str, ...]]:
    with open(p, encoding="utf-8") as fh:
        spec = yaml.safe_load(fh)
    if not isinstance(spec, dict) or not spec.get("male") or not spec.get("female"):
        raise ValueError(f"{p} must have non-empty 'male' and 'female' word lists")
    return tuple(map(str, spec["male"])), tuple(map(str, spec["female"]))


def gender_words() -> dict[str, list[str]]:
    """Return the default gendered word lists (``data/groups/gender_words.yaml``).

    The lists are the project's own: pronouns and common person nouns taken from WinoBias'
    gender-swap list, without slurs or words often used gender-neutrally (see the file's
    ``notes``).

    Returns
    -------
    dict
        ``{'male': [...], 'female': [...]}``.

    Examples
    --------
    >>> words = gender_words()
    >>> words["male"][:4], words["female"][:4]
    (['he', 'him', 'his', 'himself'], ['she', 'her', 'hers', 'herself'])
    """
    male, female = _gender_file()
    return {"male": list(male), "female": list(female)}


def _words(name: str, words: Sequence[str]) -> list[str]:
    if isinstance(words, str):
        raise TypeError(f"{name} must be a list of words, not the single string {words!r}")
    words = list(words)
    if not words:
        raise ValueError(f"{name} is empty; pass at least one word or leave it at the default")
    bad = [w for w in words if not isinstance(w, str) or not w.strip()]
    if bad:
        raise ValueError(f"{name} must hold non-empty strings, got {bad[:5]}")
    return words


def _pattern(words: Sequence[str]) -> re.Pattern[str]:
    # Longest first so that the alternation prefers e.g. "grandma" over "grand" when both given.
    bodies = sorted({r"\s+".join(map(re.escape, w.split())) for w in words}, key=len, reverse=True)
    return re.compile(rf"(?<!\w)(?:{'|'.join(bodies)})(?!\w)", re.IGNORECASE)


def gender_groups(
    texts: Iterable[str] | pd.Series,
    *,
    male_words: Sequence[str] | None = None,
    female_words: Sequence[str] | None = None,
) -> pd.Series:
    """Group texts by the gendered words they contain.

    A word matches as a whole word, case-insensitively (``he`` matches ``He's`` but not
    ``hello``); a multi-word entry matches across any whitespace.

    Parameters
    ----------
    texts : iterable of str or pandas.Series
        The texts; a Series keeps its index.
    male_words, female_words : sequence of str, optional
        The word lists; default :func:`gender_words` (``data/groups/gender_words.yaml``). They
        must not share a word.

    Returns
    -------
    pandas.Series
        Named ``gender_group``: ``male`` (only male words), ``female`` (only female words),
        ``both`` or ``none``.

    Examples
    --------
    >>> gender_groups(["He's here", "she said", "his mom", "hello"]).tolist()
    ['male', 'female', 'both', 'none']
    """
    defaults = gender_words()
    male = _words("male_words", defaults["male"] if male_words is None else male_words)
    female = _words("female_words", defaults["female"] if female_words is None else female_words)
    shared = sorted({w.lower() for w in male} & {w.lower() for w in female})
    if shared:
        raise ValueError(f"male_words and female_words share {shared}; a word must be in one")
    s = as_text_series(texts)
    s = s.astype(object)
    has_m = s.str.contains(_pattern(male), regex=True).to_numpy(dtype=bool)
    has_f = s.str.contains(_pattern(female), regex=True).to_numpy(dtype=bool)
    labels = np.select(
        [has_m & has_f, has_m, has_f], ["both", "male", "female"], default="none"
    ).astype(object)
    return pd.Series(labels, index=s.index, name="gender_group", dtype=object)


def _identity_scores(df: pd.DataFrame, col: str) -> pd.Series:
    if col not in df.columns:
        raise ValueError(
            f"column {col!r} not in the data (has {list(df.columns)[:30]}); pass a Jigsaw "
            "identity column such as 'male', 'female', 'black' or 'white'"
        )
    s = df[col]
    if s.dtype == bool:
        return s.astype(float)
    num = pd.to_numeric(s, errors="coerce")
    bad = num.isna() & s.notna()
    if bad.any():
        vals = s[bad].unique()[:5].tolist()
        raise ValueError(f"column {col!r} must hold numbers in [0, 1] or booleans, got {vals}")
    outside = (num < 0) | (num > 1)
    if outside.any():
        vals = num[outside].unique()[:5].tolist()
        raise ValueError(f"column {col!r} must hold fractions in [0, 1], got {vals}")
    return num.astype(float)


def jigsaw_groups(
    df: pd.DataFrame,
    *,
    a: str,
    b: str,
    threshold: float = 0.5,
) -> pd.Series:
    """Group Jigsaw comments by two identity columns with Zhao & Chang's (2020) rule.

    A comment is in group ``a`` when ``df[a] >= threshold`` and ``df[b] < threshold``, in group
    ``b`` symmetrically, and ``neither`` otherwise (both or none). Missing scores (rows that
    were not annotated for identities) count as below the threshold, as in
    :func:`nlpbias.data.toxicity.load_jigsaw`.

    The rule needs the raw annotator fractions: read the Kaggle file with ``pandas.read_csv``
    (e.g. ``test_public_expanded.csv``). The bool columns of
    :func:`~nlpbias.data.toxicity.load_jigsaw` are accepted too; they were already thresholded
    at its ``identity_threshold`` (0.5 by default), so True counts as 1 and False as 0 and the
    result equals the rule at that threshold.

    Parameters
    ----------
    df : pandas.DataFrame
        Jigsaw comments with identity columns (fractions in [0, 1], or booleans).
    a, b : str
        The two identity columns, e.g. ``a='white', b='black'`` or ``a='male', b='female'``.
    threshold : float, default 0.5
        In (0, 1].

    Returns
    -------
    pandas.Series
        Named ``f"{a}_vs_{b}"``, same index: ``a``, ``b`` (the column names) or ``neither``.

    Examples
    --------
    >>> df = pd.DataFrame({"male": [0.8, 0.0, 0.6, 0.1], "female": [0.2, 0.5, 0.7, 0.0]})
    >>> jigsaw_groups(df, a="male", b="female").tolist()
    ['male', 'female', 'neither', 'neither']
    """
    if not isinstance(df, pd.DataFrame):
        raise TypeError(f"df must be a DataFrame, got {type(df).__name__}")
    if not isinstance(a, str) or not isinstance(b, str) or a == b:
        raise ValueError(f"a and b must be two different column names, got {a!r} and {b!r}")
    if a == "neither" or b == "neither":
        raise ValueError("'neither' is the label of ungrouped rows; rename that column first")
    try:
        thr = float(threshold)
    except (TypeError, ValueError):
        thr = float("nan")
    if isinstance(threshold, bool) or not 0.0 < thr <= 1.0:
        raise ValueError(f"threshold must be in (0, 1], got {threshold!r}")
    in_a = (_identity_scores(df, a) >= thr).to_numpy(dtype=bool)  # NaN >= t is False
    in_b = (_identity_scores(df, b) >= thr).to_numpy(dtype=bool)
    labels = np.select([in_a & ~in_b, in_b & ~in_a], [a, b], default="neither").astype(object)
    out = pd.Series(labels, index=df.index, name=f"{a}_vs_{b}", dtype=object)
    logger.info("jigsaw groups: %s", out.value_counts().to_dict())
    return out
