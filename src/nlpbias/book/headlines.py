"""A chapter's headline rows, read from its executed notebook and kept per profile.

A chapter that has headlines ends with :func:`nlpbias.core.scorecard.glue_rows`, which glues its
rows with myst-nb's ``glue`` under the name ``headlines``: an output of the executed notebook
that names itself (``metadata.scrapbook.name``) and that the book does not render.
:func:`notebook_rows` reads that output back (None for a chapter that glues no rows) and refuses
a malformed one with a message that names the chapter and the fix. After every successful run
the runner keeps the rows of that chapter and profile in
``_build/headlines/<profile>/<chapter>.json`` (:func:`save_rows`), so that a build on one
profile can show another profile's numbers beside its own (:func:`load_rows`) although
``_build/notebooks`` holds only the last run of a chapter.

Examples
--------
>>> import nbformat
>>> nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("1 + 1")])
>>> notebook_rows(nb, "data") is None
True
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pandas as pd
from docutils.nodes import make_id

from nlpbias.core.scorecard import GLUE_NAME, TABLE_MIME, rows_from_json, rows_to_json

__all__ = [
    "STORE",
    "HeadlineError",
    "load_rows",
    "notebook_rows",
    "rows_path",
    "save_rows",
    "section_titles",
]

#: Folder (under the project) of the rows kept per profile: ``<profile>/<chapter>.json``.
STORE = Path("_build") / "headlines"
_LABEL = re.compile(r"^\(([\w.-]+)\)=\s*$")
_HEADING = re.compile(r"^(#{1,6})\s+(.+?)\s*#*\s*$")


class HeadlineError(ValueError):
    """A chapter's headline rows are malformed; the message names the chapter and the fix."""


def _fix(chapter: str, profile: str | None) -> str:
    run = f"`nlpbias run {chapter} --profile {profile or 'PROFILE'}`"
    return (
        f"end the chapter with one cell scorecard.glue_rows(study.headlines(...)) "
        f"(nlpbias.core.scorecard) and run {run} again"
    )


def _glued(nb: Any, name: str) -> list[dict[str, Any]]:
    """The data of every output of ``nb`` glued under ``name`` by ``myst_nb.glue``, in order,
    with the glue's MIME prefix removed (``{"text/plain": ..., ...}``).

    Examples
    --------
    >>> import nbformat
    >>> cell = nbformat.v4.new_code_cell("glue('x', 1, display=False)")
    >>> cell.outputs = [nbformat.v4.new_output(
    ...     "display_data", data={"application/papermill.record/text/plain": "1"},
    ...     metadata={"scrapbook": {"name": "x", "mime_prefix": "application/papermill.record/"}})]
    >>> _glued(nbformat.v4.new_notebook(cells=[cell]), "x")
    [{'text/plain': '1'}]
    """
    found = []
    for cell in nb.cells:
        for out in cell.get("outputs", []) if cell.cell_type == "code" else []:
            meta = out.get("metadata", {}).get("scrapbook") or {}
            if meta.get("name") == name:
                prefix = meta.get("mime_prefix") or ""
                found.append({k.removeprefix(prefix): v for k, v in out.get("data", {}).items()})
    return found


def notebook_rows(nb: Any, chapter: str, *, profile: str | None = None) -> pd.DataFrame | None:
    """The headline rows of an executed chapter notebook; None when it glues none.

    Parameters
    ----------
    nb : nbformat.NotebookNode
        The executed notebook.
    chapter : str
        Its chapter (study) name: every row's ``chapter`` must be this.
    profile : str, optional
        The profile it was run on (named in the fix of an error).

    Raises
    ------
    HeadlineError
        Rows glued more than once, a glued value that is not rows
        (:func:`nlpbias.core.scorecard.rows_from_json` refuses it), rows of another chapter, or
        a ``section`` that is not a heading of the chapter.
    """
    found = _glued(nb, GLUE_NAME)
    if not found:
        return None
    where = f"chapter '{chapter}': the rows glued as '{GLUE_NAME}'"
    if len(found) > 1:
        raise HeadlineError(
            f"chapter '{chapter}' glues '{GLUE_NAME}' {len(found)} times; keep one cell that "
            "glues all its rows"
        )
    table = found[0].get(TABLE_MIME)
    try:
        rows = rows_from_json(table.get("data") if isinstance(table, Mapping) else None)
    except (ValueError, TypeError, KeyError) as exc:
        raise HeadlineError(f"{where} are malformed ({exc}); {_fix(chapter, profile)}") from None
    other = sorted(set(rows["chapter"]) - {chapter})
    if other:
        raise HeadlineError(
            f"{where} include rows of chapter(s) {other}; build them with chapter='{chapter}'"
        )
    titles = section_titles(nb)
    missing = sorted(set(rows["section"]) - set(titles))
    if missing:
        raise HeadlineError(
            f"{where} link to section(s) {missing}, which are not headings of the chapter; "
            "put a label such as (logan-robustness)= on the line above the heading and name it "
            "in the row's section"
        )
    return rows


def section_titles(nb: Any) -> dict[str, str]:
    """Anchor → heading text of a notebook's headings: MyST labels ``(name)=`` on the line
    above a heading, and the ids docutils derives from the heading text (``make_id``).

    Examples
    --------
    >>> import nbformat
    >>> nb = nbformat.v4.new_notebook(
    ...     cells=[nbformat.v4.new_markdown_cell("(my-label)=\\n## The gap (Table 1)")])
    >>> section_titles(nb)
    {'the-gap-table-1': 'The gap (Table 1)', 'my-label': 'The gap (Table 1)'}
    """
    out: dict[str, str] = {}
    for cell in nb.cells:
        if cell.cell_type != "markdown":
            continue
        label = None
        for line in cell.source.splitlines():
            if m := _LABEL.match(line.strip()):
                label = m.group(1)
                continue
            if m := _HEADING.match(line):
                title = m.group(2).strip()
                out.setdefault(make_id(title), title)
                if label:
                    out[label] = title
            label = None if line.strip() else label
    return out


def rows_path(root: Path, profile: str, chapter: str) -> Path:
    """Where the rows of ``chapter`` on ``profile`` are kept."""
    return Path(root) / STORE / profile / f"{chapter}.json"


def save_rows(
    root: Path,
    profile: str,
    chapter: str,
    rows: pd.DataFrame | None,
    *,
    record: Mapping[str, Any] | None = None,
) -> Path | None:
    """Keep a run's rows (``record``: the run's started time and git commit go with them).

    A chapter without rows removes what an earlier run kept, so the store never shows rows
    the chapter no longer has. Returns the file written, or None.
    """
    path = rows_path(root, profile, chapter)
    if rows is None:
        path.unlink(missing_ok=True)
        return None
    path.parent.mkdir(parents=True, exist_ok=True)
    record = dict(record or {})
    payload = {
        "chapter": chapter,
        "profile": profile,
        "started": record.get("started"),
        "git_commit": record.get("git_commit"),
        "headlines": rows_to_json(rows),
    }
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(payload, ensure_ascii=False, indent=1), encoding="utf-8")
    tmp.replace(path)
    return path


def load_rows(root: Path, profile: str, chapter: str) -> tuple[pd.DataFrame, dict] | None:
    """The rows kept for ``chapter`` on ``profile`` and their run (``started``, ``git_commit``);
    None when that profile never ran the chapter with rows.

    Raises
    ------
    HeadlineError
        A file that cannot be read as rows (names the file and the fix).
    """
    path = rows_path(root, profile, chapter)
    if not path.is_file():
        return None
    try:
        payload = json.loads(path.read_text(encoding="utf-8"))
        rows = rows_from_json(payload["headlines"])
    except (ValueError, TypeError, KeyError) as exc:
        raise HeadlineError(
            f"{path} is not a file of headline rows ({exc}); delete it and run "
            f"`nlpbias run {chapter} --profile {profile}` again"
        ) from None
    return rows, {k: payload.get(k) for k in ("started", "git_commit")}
