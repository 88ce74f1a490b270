"""One order, and chapters named by label (issue 16).

The reading order is the sidebar's (_toc.yml). Notebook files are named for their study
(``notebooks/<study>.ipynb``); profiles.yml's ``studies:`` mapping (the order of
``nlpbias run all``), every profile and the instructor's plan list the chapters in that order; and
prose refers to a chapter by its MyST label ``chapter-<study>`` (underscores as hyphens) or in
words, never by a number ("chapter 05") or an old numbered file name ("05_perturbation").
"""

from __future__ import annotations

import re
from pathlib import Path

import nbformat
import pytest
import yaml

from nlpbias.book import runner

ROOT = Path(__file__).resolve().parents[2]
CONFIG = runner.load_config(ROOT)
STUDIES = list(CONFIG["studies"])
PAGES = list(CONFIG.get("pages") or {})  # notebooks that are not studies (the scorecard), last
OLD_NAMES = (
    "00_data|01_intrinsic|02_pinned_auc|03_logan|04_intrinsic_extrinsic|05_perturbation|06_scoring"
)
# "chapter 05", "Chapters 00-03", "Chapter 4", "ch. 02", "notebook 03", or an old file name.
BY_NUMBER = re.compile(
    rf"\b(?:chapters?|ch\.|notebooks?)\s*0?\d\b|\b(?:{OLD_NAMES})", re.IGNORECASE
)
SCANNED = {".md", ".ipynb", ".yml", ".yaml", ".py", ".txt", ".bib"}


def label(study: str) -> str:
    """The MyST label of a study's chapter: ``chapter-pinned-auc`` for ``pinned_auc``."""
    return "chapter-" + study.replace("_", "-")


def toc_order() -> list[str]:
    """Study names of the notebook entries of _toc.yml, in sidebar order."""
    toc = yaml.safe_load((ROOT / "_toc.yml").read_text(encoding="utf-8"))
    files = [ch["file"] for part in toc["parts"] for ch in part["chapters"]]
    return [f.removeprefix("notebooks/") for f in files if f.startswith("notebooks/")]


def test_notebook_files_are_named_for_their_study() -> None:
    files = sorted(p.name for p in (ROOT / "notebooks").glob("*.ipynb"))
    assert files == sorted(f"{name}.ipynb" for name in STUDIES + PAGES)
    for kind in ("studies", "pages"):
        for name, entry in (CONFIG.get(kind) or {}).items():
            assert entry["notebook"] == f"{name}.ipynb", f"{kind}.{name}.notebook"


def test_toc_and_run_all_share_the_reading_order() -> None:
    assert toc_order() == STUDIES + PAGES, (
        "_toc.yml and profiles.yml's studies: and pages: list different orders"
    )
    assert runner.studies(ROOT) == STUDIES
    assert runner.chapters(ROOT) == STUDIES + PAGES and "scorecard" in PAGES


@pytest.mark.parametrize("profile", list(CONFIG["profiles"]))
def test_every_profile_lists_the_studies_in_reading_order(profile: str) -> None:
    keys = [k for k in CONFIG["profiles"][profile] if k != "description"]
    assert set(keys) <= set(STUDIES + PAGES), f"profile {profile} names unknown studies"
    order = STUDIES + PAGES
    assert keys == [s for s in order if s in keys], f"profile {profile} is out of order: {keys}"


@pytest.mark.parametrize("study", STUDIES)
def test_every_chapter_opens_with_its_label(study: str) -> None:
    first = nbformat.read(ROOT / "notebooks" / f"{study}.ipynb", as_version=4).cells[0]
    assert first.cell_type == "markdown"
    assert first.source.lstrip().startswith(f"({label(study)})=\n"), (
        f"{study}.ipynb must open with the label ({label(study)})="
    )


def _first_mentions(text: str) -> list[str]:
    """Studies in the order in which ``{ref}`chapter-...``` first names them in ``text``."""
    found = {
        study: text.find(f"{{ref}}`{label(study)}`")
        for study in STUDIES
        if f"{{ref}}`{label(study)}`" in text
    }
    return sorted(found, key=found.get)


def test_instructors_plan_follows_the_reading_order() -> None:
    text = (ROOT / "book" / "instructor.md").read_text(encoding="utf-8")
    assert _first_mentions(text) == STUDIES
    plan = text[text.index("## A six-week plan") :]
    assert _first_mentions(plan) == STUDIES


@pytest.mark.parametrize("page", sorted((ROOT / "book").glob("*.md")), ids=lambda p: p.name)
def test_book_pages_name_chapters_in_reading_order(page: Path) -> None:
    mentioned = _first_mentions(page.read_text(encoding="utf-8"))
    assert mentioned == [s for s in STUDIES if s in mentioned], f"{page.name}: {mentioned}"


def _scanned_files(top: Path) -> list[Path]:
    if top.is_file():
        return [top]
    return sorted(
        p
        for p in top.rglob("*")
        if p.is_file()
        and p.suffix in SCANNED
        and not {"_static", "__pycache__", ".ipynb_checkpoints"} & set(p.parts)
    )


@pytest.mark.parametrize("where", ["book", "notebooks", "README.md", "data", "src"])
def test_no_chapter_is_named_by_number(where: str) -> None:
    hits = [
        f"{path.relative_to(ROOT)}:{n}: {match.group(0)!r}"
        for path in _scanned_files(ROOT / where)
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        for match in BY_NUMBER.finditer(line)
    ]
    assert not hits, (
        f"name chapters by label ({{ref}}`chapter-<study>`) or in words: {'; '.join(hits)}"
    )
