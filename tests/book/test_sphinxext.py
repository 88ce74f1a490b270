"""Author–year labels for the reference list."""

from __future__ import annotations

from pybtex.database import parse_string

from nlpbias.book import sphinxext

BIB = r"""
@article{a, author = {Zhao, Jieyu and Chang, Kai-Wei}, title = {LOGAN}, year = {2020}}
@article{b, author = {Dixon, Lucas and Li, John and Sorensen, Jeffrey}, title = {M}, year = {2018}}
@article{c, author = {Kurita, Keita}, title = {X}, year = {2019}}
@article{d, author = {Kurita, Keita}, title = {Y}, year = {2019}}
@article{e, author = {von Neumann, John}, title = {Z}}
"""


def test_labels_read_like_the_citations_and_disambiguate() -> None:
    entries = parse_string(BIB, "bibtex").entries
    labels = list(sphinxext.AuthorYearLabelStyle().format_labels(entries.values()))
    assert labels == [
        "Zhao and Chang, 2020",
        "Dixon et al., 2018",
        "Kurita, 2019a",
        "Kurita, 2019b",
        "von Neumann, n.d.",
    ]


def test_style_is_registered_for_sphinxcontrib_bibtex() -> None:
    from pybtex.plugin import find_plugin

    assert find_plugin("pybtex.style.formatting", "authoryear") is sphinxext.AuthorYearStyle
