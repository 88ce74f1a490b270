"""A chapter's headline rows read from its executed notebook, and kept per profile."""

from __future__ import annotations

import json
from pathlib import Path

import nbformat
import pandas as pd
import pytest
from headline_cases import executed, row

from nlpbias.book import headlines
from nlpbias.core import scorecard

ROWS = [row("alpha", "a"), row("alpha", "b", verdict_case="not reproduced")]


def test_rows_come_back_from_the_glued_output() -> None:
    rows = headlines.notebook_rows(executed(rows=ROWS), "alpha")
    pd.testing.assert_frame_equal(rows, scorecard.check_rows(ROWS))
    assert headlines.notebook_rows(executed(), "alpha") is None  # nothing glued: no rows


@pytest.mark.parametrize(
    ("nb", "match"),
    [
        (executed(rows=ROWS, glued=2), "glues 'headlines' 2 times"),
        (executed(data={"text/plain": "a table"}), "are malformed .*list of JSON records"),
        (executed(data={scorecard.TABLE_MIME: {"rows": []}}), "are malformed"),
        (
            executed(data={scorecard.TABLE_MIME: {"data": [{"study": "alpha"}]}}),
            r"are malformed \(headline rows lack column",
        ),
        (executed(rows=[row("beta", "a")]), r"rows of chapter\(s\) \['beta'\]"),
        (executed(rows=ROWS, heading="## Another heading"), "not headings of the chapter"),
    ],
)
def test_malformed_rows_name_the_chapter_and_the_fix(nb, match: str) -> None:
    with pytest.raises(headlines.HeadlineError, match=match) as err:
        headlines.notebook_rows(nb, "alpha", profile="demo")
    msg = str(err.value)
    assert msg.startswith("chapter 'alpha'") and "\n" not in msg
    if "malformed" in match:
        assert "`nlpbias run alpha --profile demo`" in msg and "glue_rows" in msg


def test_section_titles_know_labels_and_heading_ids() -> None:
    nb = nbformat.v4.new_notebook()
    nb.cells = [
        nbformat.v4.new_markdown_cell("(chapter-x)=\n# Title\n\ntext\n\n## Global vs local (Table 1)"),  # noqa: E501
        nbformat.v4.new_markdown_cell("(x-robust)=\n\n### Does it help?\n\n(dangling)=\ntext"),
        nbformat.v4.new_code_cell("# a comment, not a heading"),
    ]  # fmt: skip
    titles = headlines.section_titles(nb)
    assert titles == {
        "title": "Title",
        "chapter-x": "Title",
        "global-vs-local-table-1": "Global vs local (Table 1)",
        "does-it-help": "Does it help?",
        "x-robust": "Does it help?",
    }


def test_rows_are_kept_per_profile(tmp_path: Path) -> None:
    rows = scorecard.check_rows(ROWS)
    record = {"started": "2026-11-24T10:00:00+00:00", "git_commit": "abc", "other": 1}
    path = headlines.save_rows(tmp_path, "demo", "alpha", rows, record=record)
    assert path == tmp_path / "_build" / "headlines" / "demo" / "alpha.json"
    back, meta = headlines.load_rows(tmp_path, "demo", "alpha")
    pd.testing.assert_frame_equal(back, rows)
    assert meta == {"started": "2026-11-24T10:00:00+00:00", "git_commit": "abc"}
    assert headlines.load_rows(tmp_path, "paper", "alpha") is None
    # a run without rows removes what an earlier one kept
    assert headlines.save_rows(tmp_path, "demo", "alpha", None) is None
    assert headlines.load_rows(tmp_path, "demo", "alpha") is None
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"headlines": [{"key": 1}]}))
    with pytest.raises(headlines.HeadlineError, match="delete it and run `nlpbias run alpha"):
        headlines.load_rows(tmp_path, "demo", "alpha")
