"""The layout measurement: code cut off, tables sticking out of the column, the code width."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from tools.sitecheck import check_site, find_chromium
from tools.sitecheck.columns import inject_measurement, layout_of, layout_problems
from tools.sitecheck.pages import parse_html

ROOT = Path(__file__).resolve().parents[2]
CSS = ROOT / "book" / "_static" / "nlpbias.css"
needs_chromium = pytest.mark.skipif(
    find_chromium() is None,
    reason="no chromium on PATH (install Debian's chromium or set NLPBIAS_CHROMIUM)",
)

# A page laid out like sphinx-book-theme's: a 600 px article, code in div.highlight > pre.
PAGE = """<!DOCTYPE html><html><head><title>Study</title>
<style>article.bd-article {{ width: 600px; padding: 0 20px; }}
pre {{ overflow: auto; font: 14px monospace; padding: 6px; }}</style>{head}</head>
<body><main><article class="bd-article"><h1>Study</h1>{body}</article></main></body></html>"""


def _code(line: str) -> str:
    return (
        '<div class="cell"><div class="cell_input"><div class="highlight"><pre>'
        f"{line}</pre></div></div></div>"
    )


def _table(columns: int) -> str:
    head = "".join(f"<th>column_{i}</th>" for i in range(columns))
    row = "".join(f"<td>{i * 1000.5:.4f}</td>" for i in range(columns))
    return (
        '<div class="cell"><div class="cell_output"><div class="output text_html">'
        f'<table class="dataframe"><tr>{head}</tr><tr>{row}</tr></table></div></div></div>'
    )


def _check(tmp_path: Path, body: str, *, css: bool = False):
    html = tmp_path / "html"
    if html.exists():
        shutil.rmtree(html)
    (html / "_static").mkdir(parents=True)
    head = ""
    if css:
        shutil.copy2(CSS, html / "_static" / "nlpbias.css")
        head = '<link rel="stylesheet" href="_static/nlpbias.css">'
    (html / "index.html").write_text(PAGE.format(head=head, body=body), encoding="utf-8")
    report = check_site(html, screenshots=None, search_term=None, budget_ms=1000)
    return report, report.pages.set_index("page").loc["index.html"]


@pytest.mark.slow  # launches Chromium twice, ~2 s each
@needs_chromium
def test_code_fits_up_to_the_measured_width_and_is_cut_off_one_character_later_even_folded(
    tmp_path: Path,
) -> None:
    report, row = _check(tmp_path, _code("x = 1"))
    assert report.ok, report.problems
    chars = int(row["code_chars"])
    assert 40 < chars < 80  # 588 px of 14 px monospace (about 8.4 px a character)
    fits, too_long = "a" * chars, "b" * (chars + 1)
    # folded (hide-input) and indented, like a solution's dropdown: the box is narrower
    folded = (
        f'<details style="padding: 0 40px"><summary>Show code</summary>{_code(too_long)}</details>'
    )
    words = "w " * 400
    hidden = (
        '<div class="note" style="overflow: hidden">'
        f'<p style="white-space: nowrap">{words}</p></div>'
    )
    report, row = _check(tmp_path, _code(fits) + folded + hidden)
    assert row["overflow"] == 2
    code, box = report.problems
    found = re.fullmatch(
        r'index\.html: code cell 2 \("b{60}"\) is cut off by \d+ px: format its lines to at '
        r"most (\d+) characters",
        code,
    )
    assert found, code
    assert chars - 11 <= int(found.group(1)) <= chars - 8  # 80 px less room: 9 or 10 characters
    assert re.fullmatch(
        r"index\.html: element <div\.note> is cut off by \d+ px \(its box hides the rest\)", box
    ), box


@pytest.mark.slow  # launches Chromium twice, ~2 s each
@needs_chromium
def test_a_wide_table_sticks_out_of_the_column_unless_the_book_css_boxes_it(
    tmp_path: Path,
) -> None:
    report, row = _check(tmp_path, _table(12))
    assert row["overflow"] == 1
    [problem] = report.problems
    assert re.fullmatch(
        r"index\.html: table 1 \(column_0, column_1, column_2, column_3\) sticks out of the "
        r"600 px column by \d+ px",
        problem,
    ), problem
    report, row = _check(tmp_path, _table(12), css=True)  # book/_static/nlpbias.css
    assert report.ok, report.problems
    assert row["overflow"] == 0 and row["scrolls"] == 1


def test_measurement_is_injected_before_the_body_ends_and_read_back() -> None:
    page = inject_measurement(b"<html><body><p>x</p></body></html>")
    assert page.endswith(b"</script>\n</body></html>")
    assert layout_of(parse_html(page.decode())) is None  # the script has not run
    ran = '<body><script type="application/json" id="nlpbias-layout">{"column": 5}</script></body>'
    assert layout_of(parse_html(ran)) == {"column": 5}


def test_only_what_a_reader_cannot_see_whole_is_a_problem() -> None:
    items = [
        {"kind": "table", "what": "table 1 (a, b)", "px": 40, "scrolls": True},
        {"kind": "math", "what": "math <mjx-container>", "px": 12, "scrolls": True},
        {"kind": "output", "what": 'output 2 ("long  line")', "px": 30, "scrolls": True},
        {"kind": "figure", "what": "figure <img>", "px": 300, "scrolls": False},
        {"kind": "code", "what": 'code cell 3 ("x")', "px": 8, "scrolls": True},
        {"kind": "code", "what": 'code cell 4 ("y")', "px": 8, "scrolls": True, "chars": 70},
    ]
    layout = {"column": 700, "code_chars": 88, "items": items}
    assert layout_problems("p.html", layout) == [
        'p.html: output 2 ("long line") is cut off by 30 px',
        "p.html: figure <img> sticks out of the 700 px column by 300 px",
        'p.html: code cell 3 ("x") is cut off by 8 px: format its lines to at most 88 characters',
        'p.html: code cell 4 ("y") is cut off by 8 px: format its lines to at most 70 characters',
    ]


def test_a_box_that_hides_its_content_is_a_problem_whatever_it_holds() -> None:
    items = [{"kind": "table", "what": "table 2", "px": 50, "scrolls": False, "hides": True}]
    assert layout_problems("p.html", {"column": 700, "items": items}) == [
        "p.html: table 2 is cut off by 50 px (its box hides the rest)"
    ]
