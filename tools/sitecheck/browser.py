"""Headless Chromium for :func:`tools.sitecheck.check.check_site`: the browser half of the check.

The site is served over HTTP on 127.0.0.1 and each page opened with the Chromium command line (no
driver): ``--dump-dom`` gives the DOM after the scripts ran (MathJax, search), ``--screenshot`` a
PNG of each chapter. Each page is served with the column-width measurement of
:mod:`tools.sitecheck.columns` added, so the DOM also says what does not fit the content column.
The site model and the page helpers (parsing, raw TeX, image decoding) come from
:mod:`tools.sitecheck.pages`.
"""

from __future__ import annotations

import functools
import http.server
import os
import shutil
import subprocess
import tempfile
import threading
import urllib.parse
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from nlpbias.core.progress import progress as _progress
from tools.sitecheck.columns import inject_measurement, layout_of, layout_problems, scrolling
from tools.sitecheck.pages import (
    Site,
    SiteCheckError,
    image_problem,
    parse_html,
    refresh_target,
    tex_in,
)

__all__ = ["browser_checks", "find_chromium"]

CANDIDATES = ("chromium", "chromium-browser", "google-chrome")
WINDOW = (1280, 1600)


def find_chromium() -> str | None:
    """The Chromium executable: ``$NLPBIAS_CHROMIUM``, else chromium / chromium-browser /
    google-chrome on ``PATH``; ``None`` when there is none.

    Examples
    --------
    >>> exe = find_chromium()
    >>> exe is None or os.access(exe, os.X_OK)
    True
    """
    env = os.environ.get("NLPBIAS_CHROMIUM", "").strip()
    if env:
        found = shutil.which(env)
        return found if found else None
    for name in CANDIDATES:
        found = shutil.which(name)
        if found:
            return found
    return None


def _page_name(page: str) -> str:
    return page.removesuffix(".html").replace("/", "-")


class _Handler(http.server.SimpleHTTPRequestHandler):
    """Serves the site as it is, except that each HTML page carries the layout measurement."""

    def log_message(self, format: str, *args) -> None:  # noqa: A002 (the base class's name)
        pass

    def do_GET(self) -> None:
        path = Path(self.translate_path(self.path))
        if path.suffix != ".html" or not path.is_file():
            super().do_GET()
            return
        body = inject_measurement(path.read_bytes())
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_request(self, code="-", size="-") -> None:
        self.server.requests.append((self.path, int(getattr(code, "value", code) or 0)))


@contextmanager
def _serve(html_dir: Path) -> Iterator[tuple[str, list]]:
    """Serve ``html_dir`` on 127.0.0.1 (a free port) in a background thread."""
    handler = functools.partial(_Handler, directory=str(html_dir))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    server.requests = []
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/", server.requests
    finally:
        server.shutdown()
        server.server_close()


def _render(exe: str, url: str, *, profile: Path, budget_ms: int, shot: Path | None) -> str:
    """The DOM of ``url`` after its scripts ran (``budget_ms`` of virtual time); screenshot too."""
    cmd = [
        exe,
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--hide-scrollbars",
        "--no-first-run",
        "--disable-extensions",
        "--disable-dev-shm-usage",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--disable-default-apps",
        "--no-default-browser-check",
        "--mute-audio",
        f"--user-data-dir={profile}",
        f"--window-size={WINDOW[0]},{WINDOW[1]}",
        f"--virtual-time-budget={budget_ms}",
        "--dump-dom",
    ]
    if shot is not None:
        cmd.append(f"--screenshot={shot}")
    proc = subprocess.run(
        [*cmd, url], capture_output=True, text=True, timeout=budget_ms / 1000 + 90
    )
    if proc.returncode != 0 or not proc.stdout.strip():
        tail = (proc.stderr.strip().splitlines() or ["no output"])[-1][:200]
        raise SiteCheckError(f"chromium exited with {proc.returncode} on {url}: {tail}")
    return proc.stdout


def _chapters(site: Site, pages: list[str]) -> list[str]:
    """The book's root page (where index.html redirects) + book/*.html + notebooks/*.html."""
    chapters = [p for p in pages if p.split("/")[0] in {"book", "notebooks"} and "/" in p]
    if "index.html" in pages:
        target = refresh_target(site.soup(site.root / "index.html"))
        resolved = site.resolve(site.root / "index.html", target) if target else None
        if resolved and resolved[0].is_file() and resolved[0].is_relative_to(site.root):
            root_page = resolved[0].relative_to(site.root).as_posix()
        else:
            root_page = "index.html"
        chapters = [root_page, *[p for p in chapters if p != root_page]]
    return chapters


def browser_checks(
    site: Site,
    pages: list[str],
    rows: dict[str, dict],
    math_pages: set[str],
    *,
    exe: str,
    shot_dir: Path | None,
    search_term: str | None,
    budget_ms: int,
    progress: bool = False,
) -> tuple[list[str], int | None]:
    """Open every page that loaded in headless Chromium; fill its row in ``rows``.

    Parameters
    ----------
    site : Site
        The parsed site (its ``root`` is served over HTTP).
    pages : list of str
        Every page, relative to ``site.root``.
    rows : dict
        The static-check row of each page (see :func:`tools.sitecheck.check.check_site`), updated
        in place with loads, raw_tex, mathjax, overflow, scrolls, code_chars and screenshot as the
        browser sees them.
    math_pages : set of str
        Pages with math: they must carry MathJax output.
    exe : str
        The Chromium executable.
    shot_dir : Path or None
        Folder for one PNG per chapter page; ``None`` takes none.
    search_term : str or None
        Word that ``search.html?q=...`` must find; ``None`` skips the search check.
    budget_ms : int
        Virtual time each page gets to run its scripts before the DOM is read.
    progress : bool
        Show a progress bar over the pages.

    Returns
    -------
    problems : list of str
        One line each.
    search_hits : int or None
        Results on the search page (``None`` when it was not checked).

    Examples
    --------
    >>> found, hits = browser_checks(  # doctest: +SKIP
    ...     site, pages, rows, set(), exe=find_chromium(), shot_dir=None, search_term="WEAT",
    ...     budget_ms=5000,
    ... )
    """
    problems: list[str] = []
    search_hits = None
    chapters = set(_chapters(site, pages))
    targets = [
        p for p in pages if rows[p]["loads"] and refresh_target(site.soup(site.root / p)) is None
    ]
    with _serve(site.root) as (base, requests), tempfile.TemporaryDirectory() as profile:
        for page in _progress(targets, enabled=progress, desc="browser checks", unit="page"):
            shot = shot_dir / f"{_page_name(page)}.png" if shot_dir and page in chapters else None
            url = base + page
            if page == "search.html" and search_term:
                url += "?q=" + urllib.parse.quote(search_term)
            requests.clear()
            try:
                dom = _render(exe, url, profile=Path(profile), budget_ms=budget_ms, shot=shot)
            except (SiteCheckError, subprocess.TimeoutExpired) as exc:
                rows[page]["loads"] = False
                problems.append(f"{page}: {exc}".replace("\n", " "))
                continue
            found, hits = _browser_row(
                rows[page], page, dom, list(requests), math=page in math_pages, shot=shot
            )
            problems += found
            if page == "search.html" and search_term:
                search_hits = hits
    if search_term and "search.html" not in pages:
        problems.append("search.html is missing: the book has no search page")
    elif search_term and search_hits == 0:
        problems.append(f"search.html?q={search_term}: no results (is searchindex.js built?)")
    return problems, search_hits


def _browser_row(
    row: dict, page: str, dom: str, requests: list, *, math: bool, shot: Path | None
) -> tuple[list[str], int]:
    """Fill ``row`` from the rendered DOM; return the problems and the number of search hits."""
    problems = [
        f"{page}: the browser could not load {path} (HTTP {code})"
        for path, code in requests
        if code >= 400 and not path.startswith("/favicon.ico")
    ]
    soup = parse_html(dom)
    row["loads"] = soup.find("body") is not None and not problems
    tex = tex_in(soup, rendered=True)
    row["raw_tex"] = len(tex)
    problems += [f"{page}: raw TeX {frag!r} left after MathJax ran" for frag in tex[:3]]
    if math:
        row["mathjax"] = soup.find("mjx-container") is not None
        if not row["mathjax"]:
            problems.append(f"{page}: has math but no MathJax output (is _static/mathjax served?)")
    if shot is not None:
        problem = image_problem(shot.read_bytes(), shot.name) if shot.is_file() else "(missing)"
        row["screenshot"] = str(shot) if problem is None else ""
        if problem:
            problems.append(f"{page}: screenshot {shot.name} {problem}")
    layout = layout_of(soup)
    if layout is None:
        problems.append(f"{page}: the layout was not measured (did the page's scripts run?)")
    else:
        found = layout_problems(page, layout)
        row["overflow"], row["code_chars"] = len(found), layout.get("code_chars")
        row["scrolls"] = scrolling(layout)
        problems += found
    results = soup.select("#search-results ul.search li, ul.search li")
    return problems, len(results)
