"""The browser check of the built book, on tiny fake sites written into tmp_path."""

from __future__ import annotations

import stat
from pathlib import Path

import pytest
from PIL import Image

from tools.sitecheck import SiteCheckError, browser, check_site, find_chromium
from tools.sitecheck.__main__ import main
from tools.sitecheck.pages import raw_tex

ROOT = Path(__file__).resolve().parents[2]
MATHJAX = ROOT / "book" / "_static" / "mathjax"
CHROMIUM = find_chromium()
needs_chromium = pytest.mark.skipif(
    CHROMIUM is None,
    reason="no chromium on PATH (install Debian's chromium or set NLPBIAS_CHROMIUM)",
)

PAGE = """<!DOCTYPE html><html><head><title>{title}</title>{head}</head>
<body><main id="main"><h1 id="top">{title}</h1>{body}</main></body></html>"""
SEARCH_JS = """<script>
document.addEventListener("DOMContentLoaded", () => {
  const q = new URLSearchParams(location.search).get("q") || "";
  const ul = document.querySelector("#search-results ul.search");
  if (q === "WEAT") { const li = document.createElement("li"); li.textContent = "Glossary";
                      ul.appendChild(li); }
});
</script>"""


def _page(path: Path, body: str, *, head: str = "", title: str = "Page") -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(PAGE.format(title=title, head=head, body=body), encoding="utf-8")


def _png(path: Path, size: tuple[int, int] = (20, 10)) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    Image.new("RGB", size, (200, 30, 30)).save(path)


def _site(root: Path, *, intro: str = "", math: bool = False) -> Path:
    """A clean two-chapter site laid out like Jupyter Book's: index.html redirects to the root."""
    html = root / "html"
    html.mkdir(parents=True)
    (html / "index.html").write_text(
        '<meta http-equiv="Refresh" content="0; url=book/intro.html" />'
    )
    head = ""
    if math:
        (html / "_static").mkdir()
        (html / "_static" / "mathjax").symlink_to(MATHJAX, target_is_directory=True)
        head = '<script defer src="../_static/mathjax/tex-mml-chtml.js"></script>'
    formula = '<p>A formula <span class="math notranslate">\\(x^2\\)</span>.</p>' if math else ""
    _page(
        html / "book" / "intro.html",
        '<p>See <a href="../notebooks/study.html#method">the method</a>, '
        '<a href="#top">the top</a> and <a href="https://example.org/x.html">a paper</a>.</p>'
        "<p>Prices of $5 or $6 are not maths; neither is <code>$x$</code>.</p>"
        f'<img src="../_images/fig.png" alt="a figure">{formula}{intro}',
        head=head,
        title="Intro",
    )
    _page(html / "notebooks" / "study.html", '<h2 id="method">Method</h2><p>Text.</p>')
    _page(
        html / "search.html",
        '<div id="search-results"><ul class="search"></ul></div>' + SEARCH_JS,
        title="Search",
    )
    _png(html / "_images" / "fig.png")
    return html


def test_clean_site_passes_the_static_checks(tmp_path: Path) -> None:
    report = check_site(_site(tmp_path), browser=None)
    assert report.ok, report.problems
    table = report.pages.set_index("page")
    assert list(table.index) == [
        "book/intro.html", "index.html", "notebooks/study.html", "search.html"
    ]  # fmt: skip
    # intro: 3 <a> (one external, skipped but counted) and one image
    assert table.loc["book/intro.html", ["links", "images"]].tolist() == [3, 1]
    assert table.loc["index.html", "links"] == 1  # the redirect target
    assert table[["loads", "links_ok", "images_ok"]].all().all()
    assert table["raw_tex"].fillna(0).sum() == 0
    assert report.browser is None and "static checks only" in report.summary()


def test_broken_link_and_missing_anchor_are_reported(tmp_path: Path) -> None:
    html = _site(
        tmp_path,
        intro='<a href="../notebooks/gone.html">gone</a><a href="glossary.html#term">term</a>'
        '<a href="../notebooks/study.html#results">results</a>',
    )
    _page(html / "book" / "glossary.html", '<dl><dt id="term-WEAT">WEAT</dt></dl>')
    report = check_site(html, browser=None)
    assert report.problems == [
        "book/intro.html: broken link ../notebooks/gone.html (no such file)",
        "book/intro.html: broken link glossary.html#term (no id 'term' in glossary.html)",
        "book/intro.html: broken link ../notebooks/study.html#results (no id 'results' in "
        "study.html)",
    ]
    ok = report.pages.set_index("page")["links_ok"]
    assert not ok["book/intro.html"] and ok["notebooks/study.html"] and ok["book/glossary.html"]


def test_broken_redirect_of_the_home_page_is_reported(tmp_path: Path) -> None:
    html = _site(tmp_path)
    (html / "book" / "intro.html").unlink()
    report = check_site(html, browser=None)
    assert "index.html: broken link book/intro.html (no such file)" in report.problems


@pytest.mark.parametrize(
    ("make", "expected"),
    [
        (lambda p: p.write_bytes(b""), "(empty file)"),
        (lambda p: p.write_bytes(b"\x89PNG\r\n\x1a\n not really"), "(cannot be decoded"),
        (lambda p: _png(p, (1, 1)), "(only 1x1 pixels)"),
        (lambda p: p.unlink(), "(no such file)"),
    ],
    ids=["empty", "corrupt", "one-pixel", "missing"],
)
def test_bad_images_are_reported(tmp_path: Path, make, expected: str) -> None:
    html = _site(tmp_path)
    make(html / "_images" / "fig.png")
    report = check_site(html, browser=None)
    assert len(report.problems) == 1
    assert report.problems[0].startswith("book/intro.html: image ../_images/fig.png " + expected)
    assert report.pages.set_index("page")["images_ok"].tolist() == [False, True, True, True]


def test_raw_tex_outside_math_is_reported_statically(tmp_path: Path) -> None:
    html = _site(tmp_path, intro="<p>Let $x$ be a word and $$y = 2$$ its score.</p>")
    report = check_site(html, browser=None)
    assert report.pages.set_index("page").loc["book/intro.html", "raw_tex"] == 2
    assert report.problems == [
        "book/intro.html: raw TeX '$$y = 2$$' outside any math element",
        "book/intro.html: raw TeX '$x$' outside any math element",
    ]


def test_raw_tex_finds_every_delimiter_and_skips_code_and_mathjax_output() -> None:
    assert raw_tex(r"<p>a \(x\) b \[y\] c $$z$$ d $w$ e \begin{align} f</p>") == [
        "$$z$$", "$w$", r"\(x\)", r"\[y\]", r"\begin{align}"
    ]  # fmt: skip
    assert raw_tex(r"<p><mjx-container>\(x\)</mjx-container><pre>$y$</pre></p>") == []
    assert raw_tex("<p>from $5 to $10, and US$3</p><script>var a = '$x$';</script>") == []
    math = r'<span class="math notranslate">\(x\)</span>'
    assert raw_tex(math) == [r"\(x\)"]  # in the browser, a math span left as text is raw TeX
    assert raw_tex(math, rendered=False) == []  # before MathJax, it is MathJax's job


def test_strict_raises_one_line_naming_the_first_problems(tmp_path: Path, one_line) -> None:
    html = _site(tmp_path, intro='<a href="nowhere.html">x</a>')
    with pytest.raises(SiteCheckError) as err:
        check_site(html, browser=None, strict=True)
    msg = one_line(err)
    assert msg.startswith("1 problems in the book under ")
    assert "book/intro.html: broken link nowhere.html (no such file)" in msg


def test_missing_site_and_bad_browser_are_one_line_errors(tmp_path: Path, one_line) -> None:
    with pytest.raises(SiteCheckError, match="index.html is missing: build the book") as err:
        check_site(tmp_path / "nothing", browser=None)
    one_line(err)
    with pytest.raises(SiteCheckError, match="is not an executable"):
        check_site(_site(tmp_path), browser=str(tmp_path / "no-such-chromium"))


def test_find_chromium_honours_the_environment(tmp_path: Path, monkeypatch) -> None:
    fake = tmp_path / "my-chrome"
    fake.write_text("#!/bin/sh\n")
    fake.chmod(fake.stat().st_mode | stat.S_IEXEC)
    monkeypatch.setenv("NLPBIAS_CHROMIUM", str(fake))
    assert find_chromium() == str(fake)
    monkeypatch.setenv("NLPBIAS_CHROMIUM", str(tmp_path / "absent"))
    assert find_chromium() is None
    monkeypatch.delenv("NLPBIAS_CHROMIUM")
    monkeypatch.setenv("PATH", str(tmp_path))
    assert find_chromium() is None
    (tmp_path / "chromium-browser").symlink_to(fake)
    assert find_chromium() == str(tmp_path / "chromium-browser")


def test_command_prints_the_table_and_fails_on_problems(tmp_path: Path, capsys) -> None:
    html = _site(tmp_path)
    assert main(["--html", str(html), "--no-browser"]) == 0
    out = capsys.readouterr().out
    assert "book/intro.html" in out and "links_ok" in out
    (html / "_images" / "fig.png").write_bytes(b"")
    assert main(["--html", str(html), "--no-browser"]) == 1
    captured = capsys.readouterr()
    assert "image ../_images/fig.png (empty file)" in captured.out
    err = captured.err.strip()
    assert err.startswith("sitecheck: error: 1 problems in the book") and "\n" not in err
    assert main(["--html", str(tmp_path / "nothing"), "--no-browser"]) == 1
    err = capsys.readouterr().err.strip()
    assert err.startswith("sitecheck: error: ") and "index.html is missing" in err


@pytest.mark.slow  # launches Chromium three times, ~2 s each
@needs_chromium
def test_browser_renders_math_finds_search_hits_and_takes_screenshots(tmp_path: Path) -> None:
    if not (MATHJAX / "tex-mml-chtml.js").is_file():
        pytest.skip("book/_static/mathjax is missing: run `make mathjax`")
    html = _site(tmp_path, math=True)
    report = check_site(html, screenshots=tmp_path / "shots", budget_ms=3000)
    assert report.ok, report.problems
    assert report.browser == CHROMIUM and report.search_hits == 1
    table = report.pages.set_index("page")
    assert table.loc[
        "book/intro.html", "mathjax"
    ]  # MathJax from _static turned \(x^2\) into output
    assert table.loc["book/intro.html", "raw_tex"] == 0
    shots = sorted(p.name for p in (tmp_path / "shots").iterdir())
    assert shots == ["book-intro.png", "notebooks-study.png"]
    with Image.open(tmp_path / "shots" / "book-intro.png") as img:
        assert img.size == browser.WINDOW


@pytest.mark.slow  # launches Chromium three times, ~2 s each
@needs_chromium
def test_browser_reports_raw_tex_missing_mathjax_and_failed_search(tmp_path: Path) -> None:
    html = _site(tmp_path, intro="<p>Let $x$ be.</p>")
    _page(
        html / "notebooks" / "study.html",
        '<h2 id="method">M</h2><p><span class="math notranslate">\\(x^2\\)</span></p>'
        '<script>fetch("../_static/fonts/gone.woff")</script>',  # a file only the browser asks for
        head='<script src="../_static/mathjax/tex-mml-chtml.js"></script>',
    )
    (html / "_static" / "mathjax").mkdir(parents=True)
    (html / "_static" / "mathjax" / "tex-mml-chtml.js").write_text("// not MathJax")
    report = check_site(html, screenshots=None, search_term="nothing", budget_ms=1500)
    table = report.pages.set_index("page")
    assert table.loc["book/intro.html", "raw_tex"] == 1
    assert table.loc["notebooks/study.html", "raw_tex"] == 1
    assert not table.loc["notebooks/study.html", "mathjax"]
    assert report.search_hits == 0
    assert report.problems == [
        "book/intro.html: raw TeX '$x$' outside any math element",
        "book/intro.html: raw TeX '$x$' left after MathJax ran",
        "notebooks/study.html: the browser could not load /_static/fonts/gone.woff (HTTP 404)",
        "notebooks/study.html: raw TeX '\\\\(x^2\\\\)' left after MathJax ran",
        "notebooks/study.html: has math but no MathJax output (is _static/mathjax served?)",
        "search.html?q=nothing: no results (is searchindex.js built?)",
    ]
    assert table["loads"].tolist() == [True, True, False, True]  # the 404 fails study.html
    assert (table["screenshot"] == "").all()


def test_inline_data_images_are_decoded(tmp_path: Path) -> None:
    import base64
    import io

    buf = io.BytesIO()
    Image.new("RGB", (4, 4)).save(buf, "PNG")
    good = base64.b64encode(buf.getvalue()).decode()
    html = _site(
        tmp_path,
        intro=f'<img src="data:image/png;base64,{good}"><img src="data:image/png;base64,AAAA">',
    )
    report = check_site(html, browser=None)
    assert report.problems == [
        "book/intro.html: inline image (cannot be decoded: UnidentifiedImageError)"
    ]
    assert report.pages.set_index("page").loc["book/intro.html", "images"] == 3


@pytest.mark.parametrize("name", ["pages", "columns", "browser"])
def test_the_examples_in_the_docstrings_run(name: str) -> None:
    import doctest
    import importlib

    result = doctest.testmod(importlib.import_module(f"tools.sitecheck.{name}"))
    assert result.attempted > 0 and result.failed == 0


def test_the_package_holds_no_browser_code() -> None:
    """The site check is a tool of the project, not of the package a reader installs."""
    found = [
        f"{path.relative_to(ROOT)}: {word}"
        for path in sorted((ROOT / "src" / "nlpbias").rglob("*.py"))
        for word in ("chromium", "tools.sitecheck", "--dump-dom")
        if word in path.read_text(encoding="utf-8").lower()
    ]
    assert not found, found
