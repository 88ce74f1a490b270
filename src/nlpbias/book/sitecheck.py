"""Check the built HTML book the way a reader sees it.

Static checks (this module) read the files under ``_build/html``: every page parses, every
internal link (and its ``#anchor``) resolves, every image exists and decodes. Browser checks
(:mod:`nlpbias.book.headless`) serve the site over HTTP on 127.0.0.1 and open each page in headless
Chromium (the command line, no driver): the rendered DOM has no raw TeX left, pages with math carry
MathJax output (so the MathJax under ``_static`` works offline), the search page finds a word, and
each chapter gets a screenshot.
"""

from __future__ import annotations

import base64
import functools
import io
import logging
import os
import re
import shutil
import urllib.parse
from dataclasses import dataclass, field
from pathlib import Path
from xml.etree import ElementTree

import pandas as pd

from nlpbias.book.headless import browser_checks, find_chromium
from nlpbias.core.progress import progress as _progress

__all__ = ["SiteCheckError", "SiteReport", "check_site", "find_chromium", "raw_tex"]

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
    "screenshot",
]
# Text that is never rendered as prose: code, scripts, MathJax output, search-result snippets.
SKIP_TAGS = {
    "code",
    "pre",
    "kbd",
    "samp",
    "script",
    "style",
    "noscript",
    "template",
    "textarea",
    "svg",
    "math",
    "head",
    "mjx-container",
}
SKIP_CLASSES = {"highlight", "search"}
BLOCK_TAGS = {
    "p",
    "div",
    "li",
    "td",
    "th",
    "tr",
    "table",
    "dt",
    "dd",
    "dl",
    "ul",
    "ol",
    "br",
    "hr",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "section",
    "article",
    "main",
    "nav",
    "header",
    "footer",
    "aside",
    "blockquote",
    "figure",
    "figcaption",
    "caption",
    "details",
    "summary",
    "form",
    "body",
}
TEX_PATTERNS = [
    re.compile(r"\$\$[^$]{1,500}?\$\$"),
    re.compile(r"(?<![\\$\w])\$(?=\S)[^$\n]{0,200}?\S\$(?![\d$])"),
    re.compile(r"\\\(.{1,500}?\\\)", re.S),
    re.compile(r"\\\[.{1,500}?\\\]", re.S),
    re.compile(r"\\begin\{(?:equation|align|gather|multline|eqnarray)\*?\}"),
]
EXTERNAL = re.compile(r"^(?:[a-zA-Z][a-zA-Z0-9+.-]*:|//)")


class SiteCheckError(RuntimeError):
    """The built book failed a check (or cannot be checked); the message is one line."""


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
            " — run `nlpbias check-site` for the full list"
        )


def raw_tex(html: str, *, rendered: bool = True) -> list[str]:
    """TeX fragments left in the visible text of a page (outside code, scripts, MathJax output).

    With ``rendered=False`` (the HTML as Sphinx wrote it) the ``math`` spans that MathJax will
    typeset are skipped too, so only TeX that no renderer will touch is reported.

    Examples
    --------
    >>> raw_tex("<p>Let $x$ be</p><pre>$y$</pre><p>costs $5 or $6</p>")
    ['$x$']
    >>> raw_tex('<span class="math">\\\\(x\\\\)</span>', rendered=False)
    []
    """
    return _tex_in(_soup(html), rendered=rendered)


def _tex_in(soup, *, rendered: bool) -> list[str]:
    text = _visible_text(soup, skip_math=not rendered)
    return [m.group(0)[:60] for pat in TEX_PATTERNS for m in pat.finditer(text)]


def _soup(html: str):
    from bs4 import BeautifulSoup

    return BeautifulSoup(html, "html.parser")


def _visible_text(soup, *, skip_math: bool) -> str:
    from bs4.element import NavigableString, PreformattedString, Tag

    parts: list[str] = []

    def walk(node) -> None:
        for child in node.children:
            if isinstance(child, PreformattedString):  # comments, doctype, CDATA
                continue
            if isinstance(child, NavigableString):
                parts.append(str(child))
            elif isinstance(child, Tag):
                classes = set(child.get("class") or [])
                if child.name in SKIP_TAGS or classes & SKIP_CLASSES:
                    continue
                if skip_math and "math" in classes:
                    continue
                block = child.name in BLOCK_TAGS
                parts.append("\n" if block else "")
                walk(child)
                parts.append("\n" if block else "")

    walk(soup)
    return "".join(parts)


def _list_pages(html_dir: Path) -> list[str]:
    pages = []
    for path in sorted(html_dir.rglob("*.html")):
        rel = path.relative_to(html_dir)
        if not any(part.startswith(("_", ".")) for part in rel.parts[:-1]):
            pages.append(rel.as_posix())
    return pages


def _refresh_target(soup) -> str | None:
    meta = soup.find("meta", attrs={"http-equiv": re.compile("^refresh$", re.I)})
    if meta is None:
        return None
    match = re.search(r"url\s*=\s*['\"]?([^'\"]+)", meta.get("content", ""), re.I)
    return match.group(1).strip() if match else None


class _Site:
    """The parsed pages of one HTML folder, with the ids of every file a link may point to."""

    def __init__(self, html_dir: Path) -> None:
        self.root = Path(os.path.normpath(html_dir.absolute()))
        self._soups: dict[Path, object] = {}
        self._images: dict[str, str | None] = {}

    def soup(self, path: Path):
        if path not in self._soups:
            self._soups[path] = _soup(path.read_text(encoding="utf-8"))
        return self._soups[path]

    @functools.cache  # noqa: B019 (one _Site per check, dropped with it)
    def ids(self, path: Path) -> frozenset[str]:
        soup = self.soup(path)
        found = {t["id"] for t in soup.find_all(id=True)}
        return frozenset(found | {t["name"] for t in soup.find_all("a", attrs={"name": True})})

    def resolve(self, page: Path, ref: str) -> tuple[Path, str] | None:
        """The file and fragment a local reference points to (``None`` for external ones)."""
        ref = ref.strip()
        if not ref or EXTERNAL.match(ref):
            return None
        parts = urllib.parse.urlsplit(ref)
        fragment = urllib.parse.unquote(parts.fragment)
        if not parts.path:
            return page, fragment
        target = Path(os.path.normpath(page.parent / urllib.parse.unquote(parts.path)))
        if ref.split("#")[0].split("?")[0].endswith("/"):
            target = target / "index.html"
        return target, fragment

    def check_link(self, page: Path, ref: str, *, anchors: bool = True) -> str | None:
        resolved = self.resolve(page, ref)
        if resolved is None:
            return None
        target, fragment = resolved
        if not target.is_relative_to(self.root):
            return f"link {ref} leaves the site folder"
        if not target.is_file():
            return f"broken link {ref} (no such file)"
        if anchors and fragment and target.suffix == ".html":
            try:
                if fragment not in self.ids(target):
                    return f"broken link {ref} (no id '{fragment}' in {target.name})"
            except UnicodeDecodeError:
                return f"broken link {ref} (target is not UTF-8 HTML)"
        return None

    def check_image(self, page: Path, src: str) -> str | None:
        src = src.strip()
        if src.startswith("data:"):
            head, _, payload = src.partition(",")
            if ";base64" not in head:
                return None
            try:
                problem = _image_problem(base64.b64decode(payload), head)
            except ValueError:
                problem = "(not valid base64)"
            return f"inline image {problem}" if problem else None
        resolved = self.resolve(page, src)
        if resolved is None:
            return None
        target = resolved[0]
        key = str(target)
        if key not in self._images:
            if not target.is_file():
                self._images[key] = "(no such file)"
            else:
                self._images[key] = _image_problem(target.read_bytes(), target.name)
        problem = self._images[key]
        return f"image {src} {problem}" if problem else None


def _image_problem(data: bytes, name: str) -> str | None:
    """Why these bytes are not a usable image (``None`` when they are one, larger than 1x1)."""
    if not data:
        return "(empty file)"
    if name.endswith(".svg") or name.startswith("data:image/svg") or data.lstrip()[:4] == b"<svg":
        try:
            root = ElementTree.fromstring(data)
        except ElementTree.ParseError:
            return "(SVG does not parse)"
        if not root.tag.endswith("svg"):
            return "(not an SVG image)"
        return None
    from PIL import Image, UnidentifiedImageError

    try:
        with Image.open(io.BytesIO(data)) as img:
            img.load()
            width, height = img.size
    except (UnidentifiedImageError, OSError, ValueError) as exc:
        return f"(cannot be decoded: {type(exc).__name__})"
    if width <= 1 or height <= 1:
        return f"(only {width}x{height} pixels)"
    return None


def _static_row(site: _Site, page: str) -> tuple[dict, list[str], bool]:
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
        "screenshot": "",
    }
    try:
        soup = site.soup(path)
    except UnicodeDecodeError:
        return row, [f"{page}: not UTF-8 text"], False
    redirect = _refresh_target(soup)
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
        row["raw_tex"] = len(tex := _tex_in(soup, rendered=False))
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
        pages without math or without a browser), screenshot; ``problems``: one line each.

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
    site = _Site(html_dir)
    pages = _list_pages(site.root)
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
    report = SiteReport(site.root, table, problems, exe, search_hits)
    if strict and not report.ok:
        raise SiteCheckError(report.summary())
    return report
