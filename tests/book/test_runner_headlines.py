"""The runner and the scorecard: rows kept per profile, malformed rows fail the run, pages run
last and learn where the executed notebooks are."""

from __future__ import annotations

import json
from pathlib import Path

import nbformat
import pytest
import yaml

from nlpbias.book import headlines, runner

ROW = """from nlpbias.core import scorecard
row = scorecard.headline(study="alpha", key="k", claim="A claim.", paper=1.0, book=book,
    ci_low=book - 0.5, ci_high=book + 0.5, interval="by hand", data="real", chapter=chapter,
    section="the-result")
scorecard.glue_rows([row])"""
PAGE = """import os
print(os.environ["NLPBIAS_EXECUTED_DIR"])
names = sorted(p.name for p in __import__("pathlib").Path(os.environ["NLPBIAS_EXECUTED_DIR"]).iterdir())
print([n for n in names if n.endswith(".ipynb") and n.count(".") == 1])"""  # noqa: E501


def _notebook(params: str, body: str) -> nbformat.NotebookNode:
    nb = nbformat.v4.new_notebook()
    cell = nbformat.v4.new_code_cell(params)
    cell.metadata["tags"] = ["parameters"]
    last = nbformat.v4.new_code_cell(body)
    nb.cells = [nbformat.v4.new_markdown_cell("# Toy\n\n(the-result)=\n## The result"), cell, last]
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3",
                                 "language": "python"}  # fmt: skip
    return nb


@pytest.fixture
def project(tmp_path: Path) -> Path:
    nbdir = tmp_path / "notebooks"
    nbdir.mkdir()
    nbformat.write(_notebook('book = 0.9\nchapter = "alpha"', ROW), nbdir / "alpha.ipynb")
    nbformat.write(_notebook("n = 1", "print(n)"), nbdir / "beta.ipynb")
    nbformat.write(_notebook('profile = "demo"', PAGE), nbdir / "page.ipynb")
    config = {
        "studies": {"alpha": {"notebook": "alpha.ipynb"}, "beta": {"notebook": "beta.ipynb"}},
        "pages": {"page": {"notebook": "page.ipynb"}},
        "profiles": {"smoke": {}, "demo": {"alpha": {"book": 1.1}}},
    }
    (nbdir / "profiles.yml").write_text(yaml.safe_dump(config, sort_keys=False))
    return tmp_path


def test_a_run_keeps_its_rows_per_profile(project: Path) -> None:
    record = runner.run("alpha", "smoke", root=project)
    nb = nbformat.read(record.output, as_version=4)
    nbformat.validate(nb)  # the glued rows are valid notebook output
    glued, table = nb.cells[-1].outputs  # the rows, glued and hidden; the reader's table
    assert glued.metadata["scrapbook"]["name"] == "headlines"
    assert set(table.data) == {"text/html", "text/plain"}
    runner.run("alpha", "demo", root=project)
    smoke, meta = headlines.load_rows(project, "smoke", "alpha")
    demo, _ = headlines.load_rows(project, "demo", "alpha")
    assert smoke["book"].tolist() == [0.9] and demo["book"].tolist() == [1.1]
    logged = json.loads((project / "_build" / "runs.jsonl").read_text().splitlines()[0])
    assert meta["started"] == logged["started"] and meta["git_commit"] == logged["git_commit"]
    runner.run("beta", "smoke", root=project)  # no headline cell: nothing kept
    assert headlines.load_rows(project, "smoke", "beta") is None


def test_malformed_rows_fail_the_run_and_keep_the_last_good_one(project: Path) -> None:
    runner.run("alpha", "smoke", root=project)
    with pytest.raises(runner.RunnerError) as err:
        runner.run("alpha", "smoke", overrides={"chapter": "omega"}, root=project)
    msg = str(err.value)
    assert "alpha.ipynb failed: chapter 'alpha'" in msg and "rows of chapter(s) ['omega']" in msg
    assert "\n" not in msg and "the last good run is still" in msg
    out = project / "_build" / "notebooks"
    assert (out / "alpha.failed.ipynb").is_file() and (out / "alpha.ipynb").is_file()
    assert headlines.load_rows(project, "smoke", "alpha")[0]["chapter"].tolist() == ["alpha"]
    last = json.loads((project / "_build" / "runs.jsonl").read_text().splitlines()[-1])
    assert last["status"] == "failed"


def test_all_runs_the_pages_last_and_tells_them_where_the_notebooks_are(project: Path) -> None:
    records = runner.run_many("all", "smoke", root=project)
    assert [r.study for r in records] == ["alpha", "beta", "page"]
    assert runner.chapters(project) == ["alpha", "beta", "page"]
    assert runner.studies(project) == ["alpha", "beta"]
    nb = nbformat.read(project / "_build" / "notebooks" / "page.ipynb", as_version=4)
    lines = "".join(o.get("text", "") for o in nb.cells[-1].outputs).splitlines()
    assert Path(lines[0]) == (project / "_build" / "notebooks").resolve()
    assert lines[1] == "['alpha.ipynb', 'beta.ipynb']"  # the chapters ran before it
