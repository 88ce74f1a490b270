"""A built HTML site as the checks see it: its pages, links, images and visible text.

:class:`Site` holds the parsed pages of one ``_build/html`` folder and resolves the links and
images of a page; :func:`tex_in` / :func:`raw_tex` find TeX left in the visible text;
:func:`image_problem` says why bytes are not a usable image; :func:`list_pages`,
:func:`refresh_target` and :func:`parse_html` are the HTML helpers. The static checks
(:mod:`tools.sitecheck.check`), the browser checks (:mod:`tools.sitecheck.browser`) and the site
comparison (:mod:`tools.sitecheck.compare`) all build on this module.
"""

from __future__ import annotations

import base64
import functools
import io
import os
import re
import urllib.parse
from pathlib import Path
from xml.etree import ElementTree

__all__ = [
    "Site",
    "SiteCheckError",
    "image_problem",
    "list_pages",
    "parse_html",
    "raw_tex",
    "refresh_target",
    "tex_in",
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
    return tex_in(parse_html(html), rendered=rendered)


def tex_in(soup, *, rendered: bool) -> list[str]:
    """TeX fragments in the visible text of parsed HTML (see :func:`raw_tex`)."""
    text = _visible_text(soup, skip_math=not rendered)
    return [m.group(0)[:60] for pat in TEX_PATTERNS for m in pat.finditer(text)]


def parse_html(html: str):
    """``html`` parsed with BeautifulSoup's ``html.parser``."""
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


def list_pages(html_dir: Path) -> list[str]:
    """The pages of a built site (relative POSIX paths), leaving out ``_static`` and the like."""
    pages = []
    for path in sorted(html_dir.rglob("*.html")):
        rel = path.relative_to(html_dir)
        if not any(part.startswith(("_", ".")) for part in rel.parts[:-1]):
            pages.append(rel.as_posix())
    return pages


def refresh_target(soup) -> str | None:
    """Where a ``<meta http-equiv="refresh">`` redirect points (``None`` without one)."""
    meta = soup.find("meta", attrs={"http-equiv": re.compile("^refresh$", re.I)})
    if meta is None:
        return None
    match = re.search(r"url\s*=\s*['\"]?([^'\"]+)", meta.get("content", ""), re.I)
    return match.group(1).strip() if match else None


class Site:
    """The parsed pages of one HTML folder, with the ids of every file a link may point to."""

    def __init__(self, html_dir: Path) -> None:
        self.root = Path(os.path.normpath(html_dir.absolute()))
        self._soups: dict[Path, object] = {}
        self._images: dict[str, str | None] = {}

    def soup(self, path: Path):
        if path not in self._soups:
            self._soups[path] = parse_html(path.read_text(encoding="utf-8"))
        return self._soups[path]

    @functools.cache  # noqa: B019 (one Site per check, dropped with it)
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
                problem = image_problem(base64.b64decode(payload), head)
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
                self._images[key] = image_problem(target.read_bytes(), target.name)
        problem = self._images[key]
        return f"image {src} {problem}" if problem else None


def image_problem(data: bytes, name: str) -> str | None:
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
