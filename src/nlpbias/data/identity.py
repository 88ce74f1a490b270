"""Identity-term lists (``data/identity_terms/*.yaml``) and whole-word term matching.

A term list is a YAML file in the project's ``data/identity_terms/`` folder with fields ``name``,
``source``, ``citation`` and ``terms`` (a list of ``{term, category}``).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

import numpy as np
import pandas as pd
import yaml

from nlpbias.core.paths import data_file

__all__ = [
    "identity_terms_table",
    "load_identity_terms",
    "term_mask",
    "term_pattern",
]


def _read_list(name: str) -> dict:
    folder = data_file("identity_terms")
    available = sorted(p.stem for p in folder.glob("*.yaml"))
    if not isinstance(name, str) or name not in available:
        raise ValueError(f"identity term list must be one of {available}, got {name!r}")
    with open(data_file("identity_terms", f"{name}.yaml"), encoding="utf-8") as fh:
        spec = yaml.safe_load(fh)
    terms = spec.get("terms") if isinstance(spec, dict) else None
    if not terms or not all(isinstance(t, dict) and {"term", "category"} <= set(t) for t in terms):
        raise ValueError(
            f"identity term list {name}.yaml must have a non-empty 'terms' list of "
            "{term, category} entries"
        )
    return spec


def load_identity_terms(name: str = "dixon2018") -> list[str]:
    """Return the terms of an identity-term list, in the list's order.

    Parameters
    ----------
    name : str, default 'dixon2018'
        A file stem in ``data/identity_terms/``. ``'dixon2018'``: the 50 identity adjectives of
        Dixon et al. (2018), e.g. ``gay``, ``african american``, ``muslim``, ``old``, ``deaf``.

    Returns
    -------
    list of str

    Examples
    --------
    >>> terms = load_identity_terms()
    >>> len(terms), terms[:3]
    (50, ['lesbian', 'gay', 'bisexual'])
    """
    return [str(t["term"]) for t in _read_list(name)["terms"]]


def identity_terms_table(name: str = "dixon2018") -> pd.DataFrame:
    """Return an identity-term list as a table with each term's category.

    Parameters
    ----------
    name : str, default 'dixon2018'
        A file stem in ``data/identity_terms/``.

    Returns
    -------
    pandas.DataFrame
        Columns ``term`` and ``category`` (for ``dixon2018`` the categories are the project's own:
        sexual orientation/gender identity, race/ethnicity/nationality, religion, age, disability).

    Examples
    --------
    >>> tab = identity_terms_table()
    >>> tab.set_index("term").loc["sikh", "category"]
    'religion'
    """
    rows = _read_list(name)["terms"]
    return pd.DataFrame(
        {"term": [str(t["term"]) for t in rows], "category": [str(t["category"]) for t in rows]}
    )


def term_pattern(term: str, *, case_sensitive: bool = False) -> re.Pattern[str]:
    """Compile the whole-word regular expression used to find ``term`` in a text.

    The term must not be preceded or followed by a letter, digit or underscore; spaces inside a
    multi-word term match any run of whitespace.

    Examples
    --------
    >>> bool(term_pattern("gay").search("Gay!")), bool(term_pattern("gay").search("gaydar"))
    (True, False)
    """
    if not isinstance(term, str) or not term.strip():
        raise ValueError(f"each term must be a non-empty string, got {term!r}")
    body = r"\s+".join(re.escape(w) for w in term.split())
    return re.compile(rf"(?<!\w){body}(?!\w)", 0 if case_sensitive else re.IGNORECASE)


def term_mask(
    texts: Iterable[str] | pd.Series,
    terms: Sequence[str],
    *,
    case_sensitive: bool = False,
) -> pd.DataFrame:
    """Say which texts mention which terms, as whole words.

    Parameters
    ----------
    texts : iterable of str or pandas.Series
        The texts; a Series keeps its index.
    terms : sequence of str
        Terms to look for (multi-word terms allowed, e.g. ``'african american'``).
    case_sensitive : bool, default False
        Match case exactly; by default ``'gay'`` also matches ``'Gay'``.

    Returns
    -------
    pandas.DataFrame
        Bool, one row per text and one column per term (in the given order); True when the term
        occurs as a whole word (``'gay'`` matches ``"Gay!"`` but not ``"gaydar"``).

    Examples
    --------
    >>> term_mask(["Gay!", "gaydar", "an African  American man"], ["gay", "african american"])
         gay  african american
    0   True             False
    1  False             False
    2  False              True
    """
    if isinstance(terms, str):
        raise TypeError(f"terms must be a list of strings, not the single string {terms!r}")
    terms = list(terms)
    if not terms:
        raise ValueError("terms is empty; pass at least one term, e.g. load_identity_terms()")
    dupes = sorted({t for t in terms if terms.count(t) > 1})
    if dupes:
        raise ValueError(f"terms must be unique, got duplicates {dupes}")
    patterns = {t: term_pattern(t, case_sensitive=case_sensitive) for t in terms}
    s = texts if isinstance(texts, pd.Series) else pd.Series(list(texts), dtype=object)
    bad = s.map(lambda x: not isinstance(x, str))
    if bad.any():
        first = s[bad].iloc[0]
        raise TypeError(
            f"texts must all be strings; {int(bad.sum())} are not (first: {first!r}); "
            "drop or fill them first"
        )
    s = s.astype(str)
    if case_sensitive:
        folded, anywhere = s, np.zeros(len(s), dtype=bool)
    else:  # IGNORECASE also matches a few non-ASCII letters to ASCII ones (Kelvin sign ~ k)
        folded, anywhere = s.str.lower(), ~s.map(str.isascii).to_numpy(dtype=bool)
    cols = {}
    for t, p in patterns.items():
        first = t.split()[0] if case_sensitive else t.split()[0].lower()
        # A match contains the term's first word (lower-cased in an ASCII text when case does
        # not matter): the regex runs only on those texts and on the non-ASCII ones, so the
        # result is the regex's on every text, at the cost of a substring test on most.
        if not case_sensitive and not first.isascii():  # lower() is no guide: regex everywhere
            candidate = np.ones(len(s), dtype=bool)
        else:
            candidate = folded.str.contains(first, regex=False).to_numpy(dtype=bool) | anywhere
        found = np.zeros(len(s), dtype=bool)
        rows = np.flatnonzero(candidate)
        if len(rows):
            found[rows] = s.iloc[rows].str.contains(p, regex=True).to_numpy(dtype=bool)
        cols[t] = found
    return pd.DataFrame(cols, index=s.index, columns=terms)
