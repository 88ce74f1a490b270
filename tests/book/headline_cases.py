"""Fake executed chapter notebooks with headline rows, for the scorecard's tests (imported as
``headline_cases``)."""

from __future__ import annotations

from pathlib import Path

import nbformat
import yaml
from myst_nb.ext.glue import GLUE_PREFIX as PREFIX  # of a value glued without being displayed

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


def glue_output(rows=None, *, data=None) -> nbformat.NotebookNode:
    """The output ``myst_nb.glue("headlines", frame, display=False)`` leaves in
    :func:`nlpbias.core.scorecard.glue_rows`: ``data`` (default: the records of ``rows`` as
    Table Schema JSON), each MIME type under the glue's prefix."""
    if data is None:
        table = {"schema": {}, "data": scorecard.rows_to_json(rows)}
        data = {scorecard.TABLE_MIME: table, "text/plain": "a table"}
    return nbformat.v4.new_output(
        "display_data",
        data={PREFIX + k: v for k, v in data.items()},
        metadata={"scrapbook": {"name": scorecard.GLUE_NAME, "mime_prefix": PREFIX}},
    )


def executed(*, profile: str = "paper", rows=None, data: dict | None = None, glued: int = 1,
             heading: str = "(the-result)=\n## The result") -> nbformat.NotebookNode:  # fmt: skip
    """An executed chapter: a heading, and ``glued`` cells that glue ``data`` (default: the
    records of ``rows``) as ``headlines`` and show a table; no such cell when ``rows`` and
    ``data`` are None."""
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_markdown_cell(heading), nbformat.v4.new_code_cell("x = 1")]
    if rows is not None or data is not None:
        for _ in range(glued):
            cell = nbformat.v4.new_code_cell("scorecard.glue_rows(study.headlines())")
            table = nbformat.v4.new_output("display_data", data={"text/plain": "a table"})
            cell.outputs = [glue_output(rows, data=data), table]
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
