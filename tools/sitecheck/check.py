"""Check the built HTML book the way a reader sees it.

Static checks (this module) read the files under ``_build/html``: every page parses, every
internal link (and its ``#anchor``) resolves, every image exists and decodes, and no TeX is left
outside a math element. Browser checks (:mod:`tools.sitecheck.browser`) serve the site over HTTP
on 127.0.0.1 and open each page in headless Chromium (the command line, no driver): every file a
page asks for loads, the rendered DOM has no raw TeX left, pages with math carry MathJax output
(so the MathJax under ``_static`` works offline), every code cell and table fits the content
column or scrolls inside its own box (:mod:`tools.sitecheck.columns`), the search page finds a
word, and each chapter gets a screenshot.

What the Sphinx build already checks is not repeated here: a build with ``-W -n --keep-going``
(``make test``, ``make book STRICT=1``) fails on a broken cross-reference, a missing image of a
page and, with myst-nb's ``nb_output_stderr: warn`` in ``_config.yml``, on any cell output
written to stderr (a Python warning, a logged warning, a traceback). The links checked here are
those Sphinx never sees: raw HTML in cell outputs (the scorecard's links to the chapters), the
theme's navigation and the redirect of ``index.html``.
"""

from __future__ import annotations

import logging
import shutil
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from nlpbias.core.progress import progress as _progress
from tools.sitecheck.browser import browser_checks, find_chromium
from tools.sitecheck.pages import (
    Site,
    SiteCheckError,
    list_pages,
    refresh_target,
    tex_in,
)

__all__ = ["SiteReport", "check_site"]

log = logging.getLogger(__name__)
COLUMNS = [
    "page",
    "loads",
    "links",
    "links_ok",
    "images",
    "images_ok",
    "raw_tex",
    "mathjax",
    "overflow",
    "scrolls",
    "code_chars",
    "screenshot",
]


@dataclass
class SiteReport:
    """What :func:`check_site` found: one row per page and the problems, one line each."""

    html_dir: Path
    pages: pd.DataFrame
    problems: list[str] = field(default_factory=list)
    browser: str | None = None
    search_hits: int | None = None

    @property
    def ok(self) -> bool:
        """True when no problem was found."""
        return not self.problems

    def summary(self) -> str:
        """One line: how many pages and problems, naming the first three."""
        if self.ok:
            how = "static and browser" if self.browser else "static checks only"
            return f"{len(self.pages)} pages under {self.html_dir} passed ({how})"
        first = "; ".join(self.problems[:3])
        more = f" (and {len(self.problems) - 3} more)" if len(self.problems) > 3 else ""
        return (
            f"{len(self.problems)} problems in the book under {self.html_dir}: {first}{more}"
            " — run `make check-site` for the full list"
        )


def _static_row(site: Site, page: str) -> tuple[dict, list[str], bool]:
    """Static checks of one page: its table row, its problems, and whether it contains math."""
    path = site.root / page
    row = {
        "page": page,
        "loads": False,
        "links": 0,
        "links_ok": False,
        "images": 0,
        "images_ok": False,
        "raw_tex": pd.NA,
        "mathjax": pd.NA,
        "overflow": pd.NA,
        "scrolls": pd.NA,
        "code_chars": pd.NA,
        "screenshot": "",
    }
    try:
        soup = site.soup(path)
    except UnicodeDecodeError:
        return row, [f"{page}: not UTF-8 text"], False
    redirect = refresh_target(soup)
    if soup.find("body") is None and redirect is None:
        return row, [f"{page}: does not parse as an HTML page (no <body>)"], False
    row["loads"] = True
    problems = []
    refs = [(a["href"], True) for a in soup.find_all("a", href=True)]
    refs += [(t["href"], False) for t in soup.find_all("link", href=True)]
    refs += [(t["src"], False) for t in soup.find_all("script", src=True)]
    if redirect:
        refs.append((redirect, True))
    link_problems = [
        p for ref, anchors in refs if (p := site.check_link(path, ref, anchors=anchors))
    ]
    problems += [f"{page}: {p}" for p in dict.fromkeys(link_problems)]
    row["links"], row["links_ok"] = len(refs), not link_problems
    srcs = [img["src"] for img in soup.find_all("img", src=True)]
    img_problems = [p for src in srcs if (p := site.check_image(path, src))]
    problems += [f"{page}: {p}" for p in dict.fromkeys(img_problems)]
    row["images"], row["images_ok"] = len(srcs), not img_problems
    if redirect is None:
        row["raw_tex"] = len(tex := tex_in(soup, rendered=False))
        problems += [f"{page}: raw TeX {frag!r} outside any math element" for frag in tex[:3]]
    has_math = soup.find(class_="math") is not None
    return row, problems, has_math and redirect is None


def check_site(
    html_dir: str | Path,
    *,
    screenshots: str | Path | None = "auto",
    browser: str | None = "auto",
    search_term: str | None = "WEAT",
    budget_ms: int = 5000,
    strict: bool = False,
    progress: bool = False,
) -> SiteReport:
    """Check every page of a built book: links, images, and (with Chromium) rendering.

    Parameters
    ----------
    html_dir : path
        The built site, e.g. ``_build/html``.
    screenshots : path, "auto" or None
        Folder for one PNG per chapter page (``"auto"``: ``<html_dir>/../screenshots``);
        ``None`` takes none.
    browser : "auto", path or None
        Chromium to render with: ``"auto"`` uses :func:`find_chromium` and skips the browser checks
        (with a logged warning) when there is none; ``None`` skips them.
    search_term : str or None
        Word that ``search.html?q=...`` must find; ``None`` skips the search check.
    budget_ms : int
        Virtual time each page gets to run its scripts (MathJax, search) before the DOM is read.
    strict : bool
        Raise :class:`SiteCheckError` (one line naming the first problems) instead of returning a
        report with problems.
    progress : bool
        Show a progress bar over the pages.

    Returns
    -------
    SiteReport
        ``pages``: one row per page with columns page, loads, links, links_ok, images, images_ok,
        raw_tex (TeX fragments left in the visible text), mathjax (MathJax output present; NA for
        pages without math or without a browser), overflow (elements a reader cannot see whole
        in the content column: sticking out of it, or code cut off inside its box; NA without a
        browser),
        scrolls (tables and equations wider than the column that scroll inside their own box,
        which is allowed), code_chars (monospace characters a code line may have in the column;
        NA without a browser or code), screenshot; ``problems``: one line each.

    Examples
    --------
    >>> report = check_site("_build/html", browser=None)  # doctest: +SKIP
    >>> report.ok, report.pages[["page", "links_ok", "images_ok"]]  # doctest: +SKIP
    """
    html_dir = Path(html_dir)
    if not (html_dir / "index.html").is_file():
        raise SiteCheckError(
            f"{html_dir / 'index.html'} is missing: build the book first with `make book`"
        )
    exe = find_chromium() if browser == "auto" else browser
    if browser == "auto" and exe is None:
        log.warning("no chromium found (set NLPBIAS_CHROMIUM): only the static checks run")
    if exe is not None and shutil.which(exe) is None:
        raise SiteCheckError(f"browser {exe!r} is not an executable: pass a Chromium path or None")
    site = Site(html_dir)
    pages = list_pages(site.root)
    rows, problems, math_pages = {}, [], set()
    for page in _progress(pages, enabled=progress, desc="static checks", unit="page"):
        row, found, has_math = _static_row(site, page)
        rows[page] = row
        problems += found
        if has_math:
            math_pages.add(page)
    search_hits = None
    if exe is not None:
        shot_dir = None
        if screenshots is not None:
            shot_dir = (
                html_dir.parent / "screenshots" if screenshots == "auto" else Path(screenshots)
            )
            shot_dir.mkdir(parents=True, exist_ok=True)
        found, search_hits = browser_checks(
            site,
            pages,
            rows,
            math_pages,
            exe=exe,
            shot_dir=shot_dir,
            search_term=search_term,
            budget_ms=budget_ms,
            progress=progress,
        )
        problems += found
    table = pd.DataFrame(list(rows.values()), columns=COLUMNS)
    table["raw_tex"] = table["raw_tex"].astype("Int64")
    table["mathjax"] = table["mathjax"].astype("boolean")
    for column in ("overflow", "scrolls", "code_chars"):
        table[column] = table[column].astype("Int64")
    report = SiteReport(site.root, table, problems, exe, search_hits)
    if strict and not report.ok:
        raise SiteCheckError(report.summary())
    return report
