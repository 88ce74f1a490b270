"""Cross-references render without doubled words (issue 27: "the The reproduction scorecard",
"Exercise Exercise 12").

A MyST ``{ref}`label``` without its own text renders as the title of its target: a section's
heading ("The reproduction scorecard"), or, for a numbered exercise (sphinx-exercise turns the
``ref`` into a ``numref``), "Exercise N". Written after "the" or "Exercise", the first word then
appears twice. The check reads the sources (every notebook in ``notebooks/`` and every page in
``book/``), works out what each reference renders as, and compares its first word with the word
before it. Nothing is built.
"""

from __future__ import annotations

import re
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parents[2]
SOURCES = sorted((ROOT / "notebooks").glob("*.ipynb")) + sorted((ROOT / "book").glob("*.md"))

#: ``(label)=`` and the heading on the next line.
SECTION = re.compile(r"^\((?P<label>[^)\s]+)\)=\s*\n#+\s+(?P<title>.+)$", re.M)
#: An exercise directive and its label (numbered unless ``:nonumber:``).
EXERCISE = re.compile(r"^`{3,}\{exercise(?:-start)?\}[^\n]*\n(?P<options>(?::[^\n]*\n)*)", re.M)
#: ``{ref}`target``` or ``{numref}`...```, or a Markdown link ``[text](target)``.
ROLE = re.compile(r"\{(?P<role>ref|numref)\}`(?P<body>[^`]+)`")
LINK = re.compile(r"(?<![!\]])\[(?P<text>[^\]]+)\]\((?P<target>[^)\s]+)\)")
WORD = re.compile(r"[A-Za-z]+")


def _markdown(path: Path) -> str:
    if path.suffix == ".ipynb":
        cells = nbformat.read(path, as_version=4).cells
        return "\n\n".join(c.source for c in cells if c.cell_type == "markdown")
    return path.read_text(encoding="utf-8")


def _titles(texts: dict[Path, str]) -> dict[str, str]:
    """What a reference without its own text renders as, per label."""
    titles: dict[str, str] = {}
    for path, text in texts.items():
        for m in SECTION.finditer(text):
            titles[m["label"]] = m["title"].strip()
        if path.suffix == ".ipynb":  # a notebook's first heading is also its document's title
            first = re.search(r"^#\s+(.+)$", text, re.M)
            if first:
                titles.setdefault(f"/{path.relative_to(ROOT).with_suffix('')}", first[1])
                titles.setdefault(path.name, first[1])
        for m in EXERCISE.finditer(text):
            lines = (o.partition(":")[2].partition(":") for o in m["options"].split("\n"))
            options = {k.strip(): v.strip() for k, _, v in lines if k}
            if "label" in options:
                numbered = "nonumber" not in options
                titles[options["label"]] = "Exercise N" if numbered else "Exercise"
    return titles


def _rendered(body: str, role: str, titles: dict[str, str]) -> str | None:
    explicit = re.fullmatch(r"(?P<text>.*?)\s*<(?P<target>[^>]+)>", body, re.S)
    if explicit:
        text = explicit["text"]
        return text.replace("%s", "N").replace("{number}", "N") if role == "numref" else text
    if role == "numref":
        return titles.get(body) and "Exercise N"
    return titles.get(body)


def doubled_words(text: str, titles: dict[str, str]) -> list[str]:
    """Every reference in ``text`` whose rendered text starts with the word just before it."""
    found = []
    refs = [(m, _rendered(m["body"], m["role"], titles)) for m in ROLE.finditer(text)]
    refs += [(m, m["text"]) for m in LINK.finditer(text)]
    for m, shown in refs:
        if not shown:
            continue
        before = WORD.findall(text[max(0, m.start() - 40) : m.start()])
        first = WORD.match(shown.lstrip("*_ "))
        if before and first and before[-1].lower() == first[0].lower():
            found.append(f"{before[-1]} {m[0]} -> '{before[-1]} {shown}'")
    return found


TEXTS = {path: _markdown(path) for path in SOURCES}
TITLES = _titles(TEXTS)


def test_the_labels_the_book_refers_to_are_found() -> None:
    assert TITLES["scorecard"] == "The reproduction scorecard"
    assert TITLES["ex-perturbation-epochs"] == "Exercise N"
    assert TITLES["chapter-data"] == "The data"


@pytest.mark.parametrize(
    ("text", "n"),
    [
        ("the {ref}`scorecard` page", 1),
        ("The {ref}`scorecard` page", 1),
        ("see {ref}`scorecard`", 0),
        ("the {ref}`reproduction scorecard <scorecard>` page", 0),
        ("Exercise {ref}`ex-perturbation-epochs` lets", 1),
        ("{ref}`ex-perturbation-epochs` lets", 0),
        ("Exercise {numref}`Exercise %s <ex-perturbation-epochs>`", 1),
        ("the [the scorecard](scorecard.ipynb)", 1),
        ("the [reproduction scorecard](scorecard.ipynb)", 0),
    ],
)
def test_doubled_words_are_found(text: str, n: int) -> None:
    assert len(doubled_words(text, TITLES)) == n


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: p.name)
def test_no_reference_renders_a_doubled_word(path: Path) -> None:
    assert doubled_words(TEXTS[path], TITLES) == []
