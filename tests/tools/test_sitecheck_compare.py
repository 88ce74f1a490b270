"""compare_sites: two builds of the book with the same structure, or not."""

from __future__ import annotations

from pathlib import Path

import pytest

from tools.sitecheck import SiteCheckError, compare_sites

PAGE = """<html><body><main><h1>{title}</h1><h2>The question</h2><p>{number}</p>
{extra}<div class="exercise">one</div><img src="a.png"></main></body></html>"""


def site(root: Path, pages: dict[str, dict]) -> Path:
    (root / "notebooks").mkdir(parents=True)
    (root / "index.html").write_text(
        '<meta http-equiv="refresh" content="0; url=notebooks/a.html">'
    )
    for name, fields in pages.items():
        text = PAGE.format(**{"title": "A", "number": "0.1", "extra": "", **fields})
        (root / "notebooks" / name).write_text(text)
    return root


def test_same_structure_with_different_numbers_is_the_same(tmp_path: Path) -> None:
    demo = site(tmp_path / "demo", {"a.html": {"number": "0.12"}})
    paper = site(tmp_path / "paper", {"a.html": {"number": "0.87"}})
    table = compare_sites(demo, paper).set_index("page")
    assert table.loc["notebooks/a.html", "same"]
    assert table.loc["notebooks/a.html", "exercises_first"] == 1


def test_missing_page_other_heading_or_exercise_is_reported(tmp_path: Path) -> None:
    demo = site(tmp_path / "demo", {"a.html": {}, "b.html": {}, "c.html": {}})
    paper = site(
        tmp_path / "paper",
        {"a.html": {"extra": "<h2>Only on paper</h2>"},
         "c.html": {"extra": '<div class="exercise">two</div>'}},
    )  # fmt: skip
    table = compare_sites(demo, paper).set_index("page")
    assert not table.loc["notebooks/a.html", "same_headings"]
    assert (
        not table.loc["notebooks/b.html", "in_second"] and not table.loc["notebooks/b.html", "same"]
    )
    assert table.loc["notebooks/c.html", "same_headings"]
    assert not table.loc["notebooks/c.html", "same"]  # 1 exercise against 2
    assert table["same"].sum() == 1  # index.html only


def test_a_folder_without_a_build_is_refused(tmp_path: Path) -> None:
    with pytest.raises(SiteCheckError, match="no index.html: build the book"):
        compare_sites(tmp_path, tmp_path)
