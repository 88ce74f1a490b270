"""Every notebook on the smoke profile, determinism, and the strict book build.

One copy of the project's book sources is executed once per session (in a temporary folder, so
the checkout's _build is untouched); the tests below read that run.
"""

from __future__ import annotations

import shutil
import warnings
from pathlib import Path

import nbformat
import pytest

from nlpbias.book import build as book
from nlpbias.book import headlines, runner
from nlpbias.core import scorecard

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.slow
SMOKE_BUDGET_S = 60  # the design's budget for one notebook on smoke, 2 cores


@pytest.fixture(scope="session")
def smoke_project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    dest = tmp_path_factory.mktemp("book")
    shutil.copytree(ROOT / "book", dest / "book")
    shutil.copytree(ROOT / "notebooks", dest / "notebooks")
    for name in ("_config.yml", "_toc.yml"):
        shutil.copy2(ROOT / name, dest / name)
    runner.run_many("all", "smoke", root=dest)
    return dest


def _code_outputs(path: Path) -> list[list[dict]]:
    nb = nbformat.read(path, as_version=4)
    return [c.outputs for c in nb.cells if c.cell_type == "code"]


@pytest.mark.parametrize("study", runner.chapters(ROOT))  # the studies, then the scorecard
def test_notebook_runs_on_smoke_with_figures_and_no_errors(smoke_project: Path, study: str) -> None:
    executed = smoke_project / "_build" / "notebooks" / runner.notebook_path(ROOT, study).name
    nb = nbformat.read(executed, as_version=4)
    assert nb.metadata["nlpbias"]["status"] == "ok"
    assert nb.metadata["nlpbias"]["profile"] == "smoke"
    assert nb.metadata["nlpbias"]["machine"]["cpu_model"]  # what cross-CPU differences depend on
    seconds = nb.metadata["nlpbias"]["duration_s"]
    if seconds > SMOKE_BUDGET_S:  # reported, not failed: tests never assert wall-clock times
        message = f"{study} took {seconds:.0f} s on smoke (budget {SMOKE_BUDGET_S} s)"
        warnings.warn(message, stacklevel=1)
    outputs = [o for cell in _code_outputs(executed) for o in cell]
    assert not [o for o in outputs if o.output_type == "error"]
    assert any("image/png" in o.get("data", {}) for o in outputs), "no figure in the notebook"
    assert any("text/html" in o.get("data", {}) for o in outputs), "no table in the notebook"


def _shown_rows(table: str) -> list[dict[str, str]]:
    """What the scorecard page's table shows, row by row, under its chapter's heading row."""
    from bs4 import BeautifulSoup

    def numbers(td) -> str:
        return " ".join(s.get_text() for s in td.find_all("span", class_="scorecard-number"))

    shown, chapter = [], None
    for tr in BeautifulSoup(table, "html.parser").tbody.find_all("tr", recursive=False):
        if "scorecard-chapter" in (tr.get("class") or []):
            chapter = tr.a["href"].removesuffix(".html")
            continue
        claim, paper, book, *_, verdict = tr.find_all("td", recursive=False)
        note = verdict.find("span", class_="scorecard-note")
        shown.append(
            {
                "chapter": chapter,
                "claim": claim.get_text(),
                "paper": numbers(paper),
                "book": numbers(book),
                "verdict": verdict.find("span", class_="scorecard-verdict").get_text(),
                "reason": note.get_text().rpartition("; see ")[0],
                "link": note.a["href"],
            }
        )
    return shown


def test_the_scorecard_shows_exactly_the_chapters_headline_rows(smoke_project: Path) -> None:
    """The issue's consistency check: the scorecard page's table shows the rows each chapter
    glued as ``headlines``, in reading order, each under its chapter's heading row."""
    executed = smoke_project / "_build" / "notebooks"
    found = {}
    for study in runner.studies(ROOT):
        nb = nbformat.read(executed / f"{study}.ipynb", as_version=4)
        rows = headlines.notebook_rows(nb, study)
        if rows is not None:
            found[study] = rows
    assert set(runner.studies(ROOT)) - {"data"} <= set(found)  # every study but the data chapter
    expected = [
        {
            "chapter": r["chapter"],
            "claim": r["claim"].replace("`", ""),  # inline code is shown as <code>
            "paper": scorecard.paper_text(r),
            "book": scorecard.book_text(r),
            "verdict": r["verdict"],
            "reason": r["reason"].replace("`", ""),
            "link": f"{r['chapter']}.html#{r['section']}",
        }
        for rows in found.values()
        for r in rows.to_dict(orient="records")
    ]
    page = nbformat.read(executed / "scorecard.ipynb", as_version=4)
    tables = [
        o["data"]["text/html"] for c in page.cells if c.cell_type == "code" for o in c.outputs
        if 'class="dataframe scorecard"' in o.get("data", {}).get("text/html", "")
    ]  # fmt: skip
    assert len(tables) == 1, "the scorecard page must show one table of rows"
    assert _shown_rows(tables[0]) == expected
    shown = "".join(
        o.get("data", {}).get("text/markdown", "") for c in page.cells for o in c.get("outputs", [])
    )
    for study in set(runner.studies(ROOT)) - set(found):  # listed, not dropped
        title = runner.load_config(ROOT)["studies"][study]["title"]
        assert f"**{title}**: no headline rows" in shown


def test_same_parameters_give_identical_outputs(smoke_project: Path, tmp_path: Path) -> None:
    first = smoke_project / "_build" / "notebooks" / "data.ipynb"
    again = runner.run("data", "smoke", root=smoke_project, output_dir=tmp_path)
    assert _code_outputs(first) == _code_outputs(Path(again.output))


def test_template_notebooks_are_stored_without_outputs() -> None:
    for nb_file in (ROOT / "notebooks").glob("*.ipynb"):
        assert not any(_code_outputs(nb_file)), f"{nb_file.name} has outputs: clear them"
        tagged = [
            c for c in nbformat.read(nb_file, as_version=4).cells
            if "parameters" in c.metadata.get("tags", [])
        ]  # fmt: skip
        assert len(tagged) == 1, f"{nb_file.name} needs exactly one cell tagged 'parameters'"


def test_book_builds_without_warnings(smoke_project: Path) -> None:
    index = book.build(smoke_project, profile=None, strict=True)
    html = index.parent
    assert index.is_file()
    chapter = (html / "notebooks" / "data.html").read_text()
    assert "<img" in chapter and "<table" in chapter
    assert "glossary" in (html / "book" / "glossary.html").read_text().lower()
    assert "Dixon" in (html / "book" / "bibliography.html").read_text()
    assert (html / "_static" / "mathjax" / "tex-mml-chtml.js").is_file()
    assert "https://cdn.jsdelivr.net" not in (html / "book" / "intro.html").read_text()


def test_missing_dataset_fails_the_paper_run_with_one_line(
    smoke_project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("NLPBIAS_DATA", str(tmp_path / "empty"))
    monkeypatch.setenv("NLPBIAS_OFFLINE", "1")
    with pytest.raises(runner.RunnerError) as err:
        runner.run("data", "paper", root=smoke_project, output_dir=tmp_path / "out")
    msg = str(err.value)
    assert "data.ipynb failed in cell" in msg and "MissingDataError" in msg
    assert "nlpbias data fetch" in msg and "\n" not in msg


def test_book_refuses_a_failed_or_unrecorded_notebook(smoke_project: Path, tmp_path: Path) -> None:
    project = tmp_path / "p"
    shutil.copytree(smoke_project, project, ignore=shutil.ignore_patterns("html", "src"))
    executed = project / "_build" / "notebooks" / "data.ipynb"
    nb = nbformat.read(executed, as_version=4)
    nb.metadata["nlpbias"]["status"] = "failed"
    nb.metadata["nlpbias"]["error"] = "data.ipynb failed in cell 3: ValueError: boom"
    nbformat.write(nb, executed)
    with pytest.raises(book.BookError, match="failed, so it is not published: .*ValueError: boom"):
        book.assemble(project)
    del nb.metadata["nlpbias"]
    nbformat.write(nb, executed)
    with pytest.raises(book.BookError, match="not executed by the runner"):
        book.assemble(project)


@pytest.mark.parametrize(
    "nb_file", sorted((ROOT / "notebooks").glob("*.ipynb")), ids=lambda p: p.name
)
def test_papermill_reads_every_parameter_of_the_parameters_cell(nb_file: Path) -> None:
    """papermill silently skips a line it cannot parse (e.g. '=' inside a comment)."""
    import ast

    cell = next(
        c for c in nbformat.read(nb_file, as_version=4).cells
        if "parameters" in c.metadata.get("tags", [])
    )  # fmt: skip
    assigned = [
        t.id for node in ast.parse(cell.source).body if isinstance(node, ast.Assign)
        for t in node.targets if isinstance(t, ast.Name)
    ]  # fmt: skip
    assert list(runner.notebook_parameters(nb_file)) == assigned


def test_built_book_passes_the_browser_check(smoke_project: Path) -> None:
    """Every page loads, links and images resolve, MathJax renders, search works, screenshots."""
    from tools import sitecheck

    if sitecheck.find_chromium() is None:
        pytest.skip("no chromium on PATH (install Debian's chromium or set NLPBIAS_CHROMIUM)")
    html = smoke_project / "_build" / "html"
    if not (html / "index.html").is_file():
        book.build(smoke_project, profile=None, strict=True)
    shots = smoke_project / "_build" / "screenshots"
    report = sitecheck.check_site(html, screenshots=shots)
    assert report.ok, report.summary()
    assert report.search_hits and report.search_hits > 0
    chapters = [p for p in report.pages["page"] if p.startswith(("book/", "notebooks/"))]
    assert sorted(p.name for p in shots.glob("*.png")) == sorted(
        p.removesuffix(".html").replace("/", "-") + ".png" for p in chapters
    )
    assert report.pages["mathjax"].any(), "no page got MathJax output"
