"""Fake executed chapter notebooks with headline rows, for the scorecard's tests (imported as
``headline_cases``)."""

from __future__ import annotations

import json
from pathlib import Path

import nbformat
import yaml

from nlpbias.core import scorecard


def row(chapter: str, key: str, *, verdict_case: str = "reproduced", **kw) -> dict:
    """A headline row of ``chapter`` whose numbers give the verdict ``verdict_case``."""
    numbers = {
        "reproduced": dict(paper=1.0, book=0.9, ci_low=0.5, ci_high=1.5, data="real"),
        "direction only": dict(paper=3.0, book=0.9, ci_low=0.5, ci_high=1.5, data="real"),
        "not reproduced": dict(paper=1.0, book=0.2, ci_low=-0.5, ci_high=0.9, data="real"),
        "not testable offline": dict(
            paper=1.0, book=0.9, ci_low=0.5, ci_high=1.5, data="synthetic"
        ),
    }[verdict_case]
    base = dict(study=chapter, key=key, claim=f"Claim {key} of <{chapter}> & co.",
                interval="bootstrap", chapter=chapter, section="the-result")  # fmt: skip
    return scorecard.headline(**{**base, **numbers, **kw})


def bundle(rows) -> dict:
    """The output data of :func:`nlpbias.core.scorecard.display_rows` for ``rows``."""
    frame = scorecard.check_rows(rows)
    return {
        "text/plain": "a table",
        "text/html": "<table></table>",
        scorecard.JSON_MIME: {"headlines": json.loads(frame.to_json(orient="records"))},
    }


def executed(*, profile: str = "paper", rows=None, data: dict | None = None, tagged: int = 1,
             heading: str = "(the-result)=\n## The result") -> nbformat.NotebookNode:  # fmt: skip
    """An executed chapter: a heading, and ``tagged`` cells tagged ``headlines`` whose output is
    ``data`` (default: the bundle of ``rows``); no tagged cell when ``rows`` and ``data`` are
    None."""
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_markdown_cell(heading), nbformat.v4.new_code_cell("x = 1")]
    if rows is not None or data is not None:
        for _ in range(tagged):
            cell = nbformat.v4.new_code_cell("scorecard.display_rows(study.headlines())")
            cell.metadata["tags"] = ["headlines"]
            out = data if data is not None else bundle(rows)
            cell.outputs = [nbformat.v4.new_output("display_data", data=out)]
            nb.cells.append(cell)
    nb.metadata["nlpbias"] = {"profile": profile, "status": "ok", "started": "2026-01-01"}
    return nb


def project(tmp_path: Path, studies: list[str]) -> Path:
    """A project folder whose profiles.yml lists ``studies`` (titles "Chapter <name>")."""
    (tmp_path / "notebooks").mkdir(parents=True, exist_ok=True)
    config = {
        "studies": {s: {"notebook": f"{s}.ipynb", "title": f"Chapter {s}"} for s in studies},
        "profiles": {"smoke": {}, "demo": {}, "paper": {}},
    }
    (tmp_path / "notebooks" / "profiles.yml").write_text(yaml.safe_dump(config, sort_keys=False))
    (tmp_path / "_build" / "notebooks").mkdir(parents=True, exist_ok=True)
    return tmp_path


def write(root: Path, chapter: str, nb: nbformat.NotebookNode) -> Path:
    path = root / "_build" / "notebooks" / f"{chapter}.ipynb"
    nbformat.write(nb, path)
    return path
