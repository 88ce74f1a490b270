"""Does a page fit its column? What the browser measures, and what it means for the check.

:mod:`tools.sitecheck.browser` serves every HTML page with :data:`MEASURE_JS` added before
``</body>``. In Chromium the script finds the content column (``article.bd-article`` in
sphinx-book-theme, else ``main``), then writes what it measured as JSON into
``<script id="nlpbias-layout">``, which ``--dump-dom`` returns with the page:

- ``column``: the width of the column's content box, in CSS pixels;
- ``code_chars``: how many monospace characters a line of a code cell can show before it is cut
  off (the width the notebooks' code must be formatted to; a cut-off code box also carries its
  own ``chars``, fewer in an indented box such as a solution's dropdown);
- ``items``: each element that does not fit, with its ``kind`` (code, output, table, math, figure,
  element), a short description, by how many pixels it is too wide, and how: its content is
  wider than its own box, which ``scrolls`` sideways or ``hides`` the rest, or (neither) the
  element sticks out of the column. Folded content (``<details>``: a "show code" toggle, a
  solution) is measured as if opened; MathJax's hidden copy of each formula for screen readers
  is left out.

:func:`layout_problems` turns that into one line per element a reader cannot read whole: anything
sticking out of the column, any box that hides part of its content, and code or text output that
only scrolls (a cut-off line of code). A table or a display equation that scrolls inside its own
box is fine.
"""

from __future__ import annotations

import json
import re
from typing import Any

__all__ = [
    "LAYOUT_ID",
    "MEASURE_JS",
    "inject_measurement",
    "layout_of",
    "layout_problems",
    "scrolling",
]

LAYOUT_ID = "nlpbias-layout"
# Kinds whose content may scroll inside its own box: the rest of the page still fits.
SCROLL_OK = frozenset({"table", "math"})

MEASURE_JS = r"""
<script>
(function () {
  "use strict";
  // Content that is meant to stand out of the column (sphinx-book-theme's margin and full width).
  var FREE = ".margin, aside, .sidebar, .full-width, .tag_margin, .tag_full-width, .popout";
  function px(v) { return parseFloat(v) || 0; }
  function clips(el) {  // overflow does not apply to inline boxes (their clientWidth is 0)
    var s = getComputedStyle(el);
    return s.overflowX !== "visible" && s.display !== "inline";
  }
  function column() {
    return document.querySelector("article.bd-article") || document.querySelector("main") ||
      document.body;
  }
  function kind(el) {  // what the element is, or (for a scrolling box) what it holds
    if (el.closest("table") || el.querySelector("table")) return "table";
    if (el.closest(".cell_output, .output")) return "output";
    if (el.closest(".cell_input, div.highlight, pre")) return "code";
    if (el.closest("mjx-container, .math") || el.querySelector("mjx-container")) return "math";
    if (el.closest("img, figure, svg")) return "figure";
    return "element";
  }
  function longestLine(el) {
    var lines = (el.textContent || "").split("\n"), best = "";
    lines.forEach(function (l) { if (l.length > best.length) best = l; });
    return best.trim();
  }
  function nth(selector, box, keep) {  // 1-based number of box among the page's boxes
    var all = Array.prototype.slice.call(document.querySelectorAll(selector)).filter(keep);
    return all.indexOf(box) + 1;
  }
  function describe(el, k) {
    if (k === "table") {
      var table = el.closest("table") || el.querySelector("table");
      var heads = Array.prototype.slice.call(table.querySelectorAll("th")).slice(0, 4)
        .map(function (h) { return h.textContent.trim(); }).filter(Boolean);
      return "table " + nth("table", table, Boolean) +
        (heads.length ? " (" + heads.join(", ") + ")" : "");
    }
    var line = JSON.stringify(longestLine(el).slice(0, 60));
    if (k === "code") {
      var code = el.closest("div.highlight") || el.querySelector("div.highlight") || el;
      var cell = code.closest(".cell_input") ? "code cell " : "code block ";
      return cell + nth("div.highlight", code, function (c) {
        return !c.closest(".cell_output");
      }) + " (" + line + ")";
    }
    if (k === "output") {
      return "output " + nth(".cell_output", el.closest(".cell_output") || el, Boolean) +
        " (" + line + ")";
    }
    var cls = (el.getAttribute("class") || "").split(/\s+/).filter(Boolean).slice(0, 2);
    return k + " <" + el.tagName.toLowerCase() + (cls.length ? "." + cls.join(".") : "") + ">";
  }
  function charsIn(pre) {  // monospace characters a line of this <pre> shows without scrolling
    var s = getComputedStyle(pre), probe = document.createElement("span");
    probe.textContent = "0".repeat(200);
    probe.style.whiteSpace = "pre";
    pre.appendChild(probe);
    var ch = probe.getBoundingClientRect().width / 200;
    pre.removeChild(probe);
    var room = pre.clientWidth - px(s.paddingLeft) - px(s.paddingRight);
    return ch > 0 ? Math.floor(room / ch + 1e-6) : null;
  }
  function codeChars(col) {  // ... in the column: the first code cell's (or code block's) <pre>
    var pre = col.querySelector(".cell_input div.highlight pre") ||
      col.querySelector("div.highlight pre");
    return pre ? charsIn(pre) : null;
  }
  function measure() {
    // Folded content (a "show code" toggle, a solution's dropdown) is measured open, as the
    // reader who opens it sees it. MathJax's copy of each formula for screen readers
    // (mjx-assistive-mml: clipped, never seen) is left out: it widens its formula's scroll
    // width. Both are put back before anything is painted.
    var closed = Array.prototype.slice.call(document.querySelectorAll("details:not([open])"));
    var unseen = Array.prototype.slice.call(document.querySelectorAll("mjx-assistive-mml"));
    closed.forEach(function (d) { d.open = true; });
    unseen.forEach(function (m) { m.style.setProperty("display", "none", "important"); });
    try {
      measureOpen();
    } finally {
      closed.forEach(function (d) { d.open = false; });
      unseen.forEach(function (m) { m.style.removeProperty("display"); });
    }
  }
  function measureOpen() {
    var col = column(), s = getComputedStyle(col), r = col.getBoundingClientRect();
    var width = col.clientWidth - px(s.paddingLeft) - px(s.paddingRight);
    var right = r.left + col.clientLeft + px(s.paddingLeft) + width;
    var items = [];
    col.querySelectorAll("*").forEach(function (el) {
      if (el.closest(FREE) || el.closest("script, style, .copybtn")) return;
      var b = el.getBoundingClientRect();
      if (b.width === 0 || b.height === 0) return;
      // 1. A box whose content is wider than itself: it scrolls, or it hides the rest.
      if (clips(el) && el.scrollWidth > el.clientWidth + 1) {
        var k = kind(el), scrolls = /auto|scroll/.test(getComputedStyle(el).overflowX);
        var item = {kind: k, what: describe(el, k), px: el.scrollWidth - el.clientWidth,
                    scrolls: scrolls, hides: !scrolls};
        var pre = el.tagName === "PRE" ? el : el.querySelector("pre");
        if (k === "code" && pre) item.chars = charsIn(pre);  // a box in a dropdown is narrower
        items.push(item);
      }
      // 2. An element that sticks out of the column (reported once: its outermost box).
      var out = Math.round(b.right - right);
      if (out <= 1) return;
      for (var a = el.parentElement; a && a !== col; a = a.parentElement) {
        if (clips(a)) return;  // the box that holds it scrolls or hides it: see 1.
        if (a.getBoundingClientRect().right > right + 1) return;  // reported with a
      }
      var k2 = kind(el);
      items.push({kind: k2, what: describe(el, k2), px: out, scrolls: false, hides: false});
    });
    var node = document.getElementById("LAYOUT_ID");
    if (!node) {
      node = document.createElement("script");
      node.type = "application/json";
      node.id = "LAYOUT_ID";
      document.body.appendChild(node);
    }
    node.textContent = JSON.stringify({column: Math.round(width), code_chars: codeChars(col),
                                       items: items});
  }
  window.addEventListener("load", function () {
    measure();
    setInterval(measure, 400);  // again after MathJax and late layout changes
  });
})();
</script>
""".replace("LAYOUT_ID", LAYOUT_ID)


def inject_measurement(html: bytes) -> bytes:
    """``html`` with :data:`MEASURE_JS` inserted before its last ``</body>`` (else appended).

    Examples
    --------
    >>> page = inject_measurement(b"<html><body><p>x</p></body></html>")
    >>> page.index(b"nlpbias-layout") < page.index(b"</body>")
    True
    """
    script = MEASURE_JS.encode()
    at = html.lower().rfind(b"</body>")
    return html + script if at < 0 else html[:at] + script + html[at:]


def layout_of(soup) -> dict[str, Any] | None:
    """What :data:`MEASURE_JS` wrote into a rendered page (``None`` when it did not run)."""
    node = soup.find("script", id=LAYOUT_ID)
    if node is None or not node.string:
        return None
    return json.loads(node.string)


def layout_problems(page: str, layout: dict[str, Any]) -> list[str]:
    """One line per element of ``page`` that a reader cannot see whole in the column.

    Parameters
    ----------
    page : str
        The page, relative to the site's root (named in each line).
    layout : dict
        What the browser measured (see :func:`layout_of`).

    Returns
    -------
    list of str
        E.g. ``'notebooks/pinned_auc.html: code cell 4 ("roc = ...") is cut off by 84 px: format
        its lines to at most 88 characters'``.

    Examples
    --------
    >>> layout_problems("a.html", {"column": 700, "items": [
    ...     {"kind": "table", "what": "table 1 (x, y)", "px": 40, "scrolls": False},
    ...     {"kind": "table", "what": "table 2", "px": 90, "scrolls": True}]})
    ['a.html: table 1 (x, y) sticks out of the 700 px column by 40 px']
    """
    problems = []
    width = layout.get("column")
    for item in layout.get("items", []):
        what, extra = _one_line(item["what"]), item["px"]
        if item.get("hides"):
            problems.append(f"{page}: {what} is cut off by {extra} px (its box hides the rest)")
        elif not item["scrolls"]:
            problems.append(f"{page}: {what} sticks out of the {width} px column by {extra} px")
        elif item["kind"] not in SCROLL_OK:
            chars = item.get("chars") or layout.get("code_chars")
            fix = (
                f": format its lines to at most {chars} characters"
                if item["kind"] == "code" and chars
                else ""
            )
            problems.append(f"{page}: {what} is cut off by {extra} px{fix}")
    return problems


def scrolling(layout: dict[str, Any]) -> int:
    """How many tables and equations scroll sideways inside their own box (allowed, counted)."""
    return sum(1 for i in layout.get("items", []) if i["scrolls"] and i["kind"] in SCROLL_OK)


def _one_line(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()
