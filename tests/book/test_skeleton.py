"""Every chapter follows the book's skeleton (DESIGN.md, "Book"; issue 9).

Read from the template notebooks: learning goals and prerequisites, the question, the method,
the paper vs this book, limitations, at least three exercises (one "Tweak and predict", one
"Find the bug" whose solution runs a code cell), a summary, and a link into the glossary.
"""

from __future__ import annotations

import re
from pathlib import Path

import nbformat
import pytest

from nlpbias.book import runner

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOKS = [
    ROOT / "notebooks" / entry["notebook"] for entry in runner.load_config(ROOT)["studies"].values()
]
HEADINGS = [
    "## The question",
    "## The method",
    "## The paper vs this book",
    "## Limitations and construct validity",
    "## Exercises",
    "## Summary",
]
EXERCISE = re.compile(
    r"^`{3,}\{exercise(?:-start)?\}(?P<title>[^\n]*)\n:label: (?P<label>\S+)", re.M
)


def _cells(path: Path) -> list[nbformat.NotebookNode]:
    return nbformat.read(path, as_version=4).cells


def _markdown(path: Path) -> str:
    return "\n\n".join(c.source for c in _cells(path) if c.cell_type == "markdown")


def _exercises(path: Path) -> dict[str, str]:
    return {m["label"]: m["title"].strip() for m in EXERCISE.finditer(_markdown(path))}


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_learning_goals_and_prerequisites_open_the_chapter(path: Path) -> None:
    first = next(c.source for c in _cells(path) if c.cell_type == "markdown")
    assert first.lstrip().startswith(("# ", "(chapter-")), "the chapter must open with its title"
    assert "**Learning goals.**" in first and "**Prerequisites.**" in first


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_sections_appear_in_the_skeletons_order(path: Path) -> None:
    lines = [ln.strip() for ln in _markdown(path).splitlines()]
    positions = []
    for heading in HEADINGS:
        assert heading in lines, f"{path.name} has no '{heading}' section"
        positions.append(lines.index(heading))
    assert positions == sorted(positions), f"{path.name}: sections out of order"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_three_exercises_with_a_tweak_and_a_bug(path: Path) -> None:
    exercises = _exercises(path)
    assert len(exercises) >= 3, f"{path.name} has {len(exercises)} exercises, needs 3"
    titles = list(exercises.values())
    assert "Tweak and predict" in titles and "Find the bug" in titles, titles
    text = _markdown(path)
    for label in exercises:
        assert re.search(rf"\{{solution(?:-start)?\}} {re.escape(label)}\b", text), (
            f"exercise {label} has no solution"
        )


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_the_find_the_bug_solution_runs_code(path: Path) -> None:
    bugs = [label for label, title in _exercises(path).items() if title == "Find the bug"]
    assert bugs, f"{path.name} has no exercise titled 'Find the bug'"
    bug, cells = bugs[0], _cells(path)
    starts = [
        i for i, c in enumerate(cells)
        if c.cell_type == "markdown" and re.search(rf"\{{solution-start\}} {bug}\b", c.source)
    ]  # fmt: skip
    assert starts, f"the solution of {bug} must be gated (solution-start/-end)"
    start = starts[0]
    end = next(i for i in range(start, len(cells)) if "{solution-end}" in cells[i].source)
    code = [c for c in cells[start:end] if c.cell_type == "code" and c.source.strip()]
    assert code, f"the solution of {bug} in {path.name} has no code cell between start and end"
    assert ":class: dropdown" in cells[start].source


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_the_chapter_links_the_glossary(path: Path) -> None:
    assert "{term}`" in _markdown(path)


def test_exercise_labels_are_unique_across_the_book() -> None:
    labels = [label for path in NOTEBOOKS for label in _exercises(path)]
    assert len(labels) == len(set(labels)), sorted(x for x in labels if labels.count(x) > 1)


def test_every_chapter_is_in_the_instructors_plan() -> None:
    plan = (ROOT / "book" / "instructor.md").read_text()
    for path in NOTEBOOKS:
        label = re.match(r"\((chapter-[\w-]+)\)=", _cells(path)[0].source.lstrip())
        assert label, f"{path.name} must open with a (chapter-...)= label"
        assert f"{{ref}}`{label[1]}`" in plan, f"{label[1]} is missing from book/instructor.md"
