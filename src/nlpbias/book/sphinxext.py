"""Sphinx extension of the book: reference-list labels in the same author–year form as citations.

sphinxcontrib-bibtex's ``author_year`` setting changes in-text citations only; the list keeps
pybtex's numeric labels ("[1]"). This registers a pybtex style ``authoryear`` whose labels read
"Dixon et al., 2018", sorted by author, year and title. ``_config.yml`` loads the extension and
sets ``bibtex_default_style: authoryear``.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Iterator
from typing import Any

from pybtex.plugin import register_plugin
from pybtex.style.formatting.plain import Style as PlainStyle
from pybtex.style.labels import BaseLabelStyle


def _surnames(entry: Any) -> list[str]:
    people = entry.persons.get("author") or entry.persons.get("editor") or []
    return [" ".join(p.prelast_names + p.last_names) for p in people]


def author_year_label(entry: Any) -> str:
    """``"Zhao and Chang, 2020"``; three or more authors: ``"Dixon et al., 2018"``."""
    names = [n.replace("{", "").replace("}", "") for n in _surnames(entry)]
    year = entry.fields.get("year", "n.d.")
    if not names:
        who = entry.fields.get("title", entry.key).split(":")[0]
    elif len(names) == 1:
        who = names[0]
    elif len(names) == 2:
        who = f"{names[0]} and {names[1]}"
    else:
        who = f"{names[0]} et al."
    return f"{who}, {year}"


class AuthorYearLabelStyle(BaseLabelStyle):
    """Author–year labels; equal labels get a, b, … suffixes on the year."""

    def format_labels(self, sorted_entries: Iterable[Any]) -> Iterator[str]:
        entries = list(sorted_entries)
        labels = [author_year_label(e) for e in entries]
        counts = Counter(labels)
        seen: Counter[str] = Counter()
        for label in labels:
            if counts[label] > 1:
                yield f"{label}{chr(ord('a') + seen[label])}"
                seen[label] += 1
            else:
                yield label


class AuthorYearStyle(PlainStyle):
    """pybtex's plain formatting with author–year labels, sorted by author, year and title."""

    default_label_style = AuthorYearLabelStyle
    default_sorting_style = "author_year_title"


register_plugin("pybtex.style.formatting", "authoryear", AuthorYearStyle)


def setup(app: Any) -> dict[str, Any]:
    """Sphinx entry point (the style is registered on import)."""
    return {"parallel_read_safe": True, "parallel_write_safe": True}
