"""Numbers in a chapter's static prose: the paper's, a date, a parameter, or structural — never
a result of this run.

A sentence typed by hand that states a number of the run is true on the profile it was written
for and false on the next (issue 27 found "with 83 % of the tweets toxic" on a page trained on
the synthetic stand-in). Numbers about the run come from the run: a package function's Markdown
output, or myst-nb ``glue``. So every digit left in a chapter's Markdown cells must be one of:

- **the paper's number**: it occurs in the text of the chapter's source paper (``../shared/seeds``),
  in the chapter's section of the studies' spec (``../shared/docs/STUDIES.md``, which quotes
  the papers that the seeds build on, e.g. Caliskan et al.'s WEAT effect sizes), or in the
  project's transcriptions of published numbers (``data/reported/*.yaml``, each with its source);
- **a date** (a year 1500–2099, or an ISO date);
- **a parameter**: a number in the chapter's parameters cell or its entries in profiles.yml;
- **structural**: the number of a table, figure, section, equation, seed, exercise, WEAT test,
  step or list item;
- one of the few **method constants** in :data:`CONSTANTS`, each with its reason.

Code (inline or fenced), math, roles (``{cite}``, ``{ref}``…), labels and link targets are not
prose and are skipped.
"""

from __future__ import annotations

import json
import re
from functools import cache
from pathlib import Path

import pytest
import yaml

from nlpbias.book import runner

ROOT = Path(__file__).resolve().parents[2]
SHARED = ROOT.parent / "shared"

#: The source paper(s) of each chapter (``../shared/seeds/README.md``) and its STUDIES.md section.
SOURCES = {
    "data": (("000", "001", "002", "003", "004"), ()),
    "intrinsic": (("001",), ("## 3.",)),
    "intrinsic_extrinsic": (("001",), ("## 3.",)),
    "logan": (("000",), ("## 1.",)),
    "pinned_auc": (("002",), ("## 2.",)),
    "scoring": (("003",), ("## 4.",)),
    "perturbation": (("004",), ("## 5.",)),
    "scorecard": ((), ()),
}

#: Numbers of a chapter's method that are neither the paper's nor a parameter, with the reason.
CONSTANTS: dict[str, dict[str, str]] = {
    "*": {
        "95": "the level of every interval (95 %)",
        "0": "zero as a value (interval excludes 0, no effect)",
        "1": "one as a value (a ratio of 1, a share of 1)",
        "0.05": "the conventional test level",
    },
}

_STRUCTURAL = re.compile(
    r"(?:tables?|figures?|figs?\.|sections?|§|eqs?\.|equations?|seeds?|exercises?|appendix|"
    r"chapters?|steps?|weat|issues?|algorithm|lines?|columns?|parts?|rows?|items?|footnote|"
    r"experiments?|studies|study|rules?|stage|phase|version|python|jupyter book|level)"
    r"[\s\xa0]*(?:\d+[a-z]?(?:[–,-]|\s+and\s+|\s+to\s+|\s*,\s*|\s+or\s+)?\s*)*$",
    re.IGNORECASE,
)
_SKIP = [
    re.compile(r"```.*?```", re.DOTALL),  # fenced code and directives' bodies are kept below
    re.compile(r"\{[\w:-]+\}`[^`]*`"),  # roles: {math}`…`, {cite:t}`…`, {ref}`…`, {term}`…`
    re.compile(r"`[^`]*`"),  # inline code
    re.compile(r"\$\$.*?\$\$", re.DOTALL),
    re.compile(r"\$[^$\n]+\$"),
    re.compile(r"^\(.*\)=\s*$", re.MULTILINE),  # labels
    re.compile(r"^:[\w-]+:.*$", re.MULTILINE),  # directive options
    re.compile(r"\]\([^)]*\)"),  # link targets
    re.compile(r"https?://\S+"),
    re.compile(r"<[^>]+>"),  # HTML tags and their attributes
    re.compile(r"\b\d{4}-\d{2}-\d{2}\b"),  # ISO dates
    re.compile(r"\[\^\w+\]"),  # footnote references
]
_NUMBER = re.compile(r"(?<![\w.\-/])(\d+(?:,\d{3})*(?:\.\d+)?|\.\d+)(?![\w/]|\.\d)")


def _normal(token: str) -> str:
    """One spelling per number: no thousands commas, no leading zero, no trailing zeros."""
    t = token.replace(",", "")
    if "." in t:
        t = t.rstrip("0").rstrip(".")
    if t.startswith("0.") and len(t) > 2:
        t = t[1:]
    return t or "0"


@cache
def _seed_numbers(chapter: str) -> frozenset[str]:
    seeds, sections = SOURCES[chapter]
    text = ""
    for seed in seeds:
        text += "\n".join(
            p.read_text(encoding="utf-8") for p in (SHARED / "seeds").glob(f"{seed}_*.txt")
        )
    text += "\n".join(
        p.read_text(encoding="utf-8") for p in (ROOT / "data" / "reported").glob("*.yaml")
    )
    spec = (SHARED / "docs" / "STUDIES.md").read_text(encoding="utf-8")
    for head in sections:
        start = spec.index(head)
        end = spec.find("\n## ", start + 1)
        text += spec[start : end if end > 0 else None]
    return frozenset(_normal(m) for m in re.findall(r"\d+(?:,\d{3})*(?:\.\d+)?|\.\d+", text))


@cache
def _parameter_numbers(chapter: str) -> frozenset[str]:
    nb = json.loads(runner.notebook_path(ROOT, chapter).read_text(encoding="utf-8"))
    cells = [c for c in nb["cells"] if "parameters" in c.get("metadata", {}).get("tags", [])]
    text = "".join("".join(c["source"]) for c in cells)
    profiles = yaml.safe_load((ROOT / "notebooks" / "profiles.yml").read_text(encoding="utf-8"))
    for profile in profiles.values():
        if isinstance(profile, dict):
            text += " " + json.dumps(profile.get(chapter, {}))
    found = re.findall(r"\d+(?:_\d{3})*(?:\.\d+)?(?:e-?\d+)?", text)
    out = set()
    for token in found:
        value = float(token.replace("_", ""))
        out |= {_normal(token.replace("_", "")), _normal(f"{value:g}"), _normal(f"{value * 100:g}")}
        if value == int(value):
            out.add(_normal(f"{int(value):,}"))
    return frozenset(out)


def static_prose(chapter: str) -> list[tuple[int, str]]:
    """The Markdown cells of a chapter's notebook (index, text), code and math removed."""
    nb = json.loads(runner.notebook_path(ROOT, chapter).read_text(encoding="utf-8"))
    out = []
    for i, cell in enumerate(nb["cells"]):
        if cell["cell_type"] != "markdown":
            continue
        text = "".join(cell["source"])
        for pattern in _SKIP:
            text = pattern.sub(" ", text)
        out.append((i, text))
    return out


def unexplained_numbers(chapter: str) -> list[str]:
    """Each digit in the chapter's static prose that the module docstring does not allow."""
    allowed = _seed_numbers(chapter) | _parameter_numbers(chapter)
    constants = {**CONSTANTS["*"], **CONSTANTS.get(chapter, {})}
    bad = []
    for index, text in static_prose(chapter):
        for line in text.splitlines():
            for m in _NUMBER.finditer(line):
                token = _normal(m.group(1))
                before = line[: m.start()]
                if re.match(r"^\s*(?:\d+[.)]\s|[-*]\s*$)", line[: m.end() + 2]):
                    continue  # a numbered list item
                if _STRUCTURAL.search(before[-40:] + m.group(1)):
                    continue
                value = float(token)
                if 1500 <= value <= 2099 and token.isdigit():
                    continue  # a year
                if token in allowed or token in constants:
                    continue
                context = line[max(0, m.start() - 50) : m.end() + 30].strip()
                bad.append(f"cell {index}: {m.group(1)!r} in “…{context}…”")
    return bad


@pytest.mark.skipif(
    not (SHARED / "seeds").is_dir(), reason="needs ../shared/seeds beside the project"
)
@pytest.mark.parametrize("chapter", runner.chapters(ROOT))
def test_static_prose_states_no_number_of_the_run(chapter: str) -> None:
    bad = unexplained_numbers(chapter)
    assert not bad, (
        f"{chapter}: numbers in static prose that are not the paper's, a date, a parameter or "
        "structural — generate the sentence from the run (a package function's Markdown, or "
        "myst-nb glue), phrase it without the number, or quote the paper:\n  " + "\n  ".join(bad)
    )


def test_the_scan_finds_a_typed_result_and_lets_the_allowed_numbers_pass(monkeypatch) -> None:
    cell = {
        "cell_type": "markdown",
        "metadata": {},
        "source": "As Table 4 shows (seed 002, 2018), the gap is 0.437 here, with `n=12` and "
        "{math}`x_3`; on 2026-11-26 the FPED fell to 1.2345.",
    }
    params = {"cell_type": "code", "metadata": {"tags": ["parameters"]}, "source": "n_boot = 1000"}
    fake = ROOT / "notebooks" / "pinned_auc.ipynb"
    real = json.loads(fake.read_text(encoding="utf-8"))
    monkeypatch.setattr(
        runner,
        "notebook_path",
        lambda root, chapter: _Fake(json.dumps({**real, "cells": [params, cell]})),
    )
    _parameter_numbers.cache_clear()
    try:
        bad = unexplained_numbers("pinned_auc")
    finally:
        _parameter_numbers.cache_clear()
    assert [b.split(":")[1].strip().split(" ")[0] for b in bad] == ["'0.437'", "'1.2345'"]


class _Fake:
    def __init__(self, text: str) -> None:
        self.text = text

    def read_text(self, encoding: str) -> str:
        return self.text
