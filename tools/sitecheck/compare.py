"""Do two builds of the book look the same? (the ``demo`` site against the published ``paper`` one)

The two profiles execute the same notebooks on different data, so their sites must have the same
pages, the same headings in the same order and the same exercises; only numbers, tables and
figures may differ. :func:`compare_sites` lists, per page, what differs in that structure.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from tools.sitecheck.pages import SiteCheckError, list_pages, parse_html

__all__ = ["compare_sites"]

STRUCTURE = ("h1", "h2", "h3")


def _outline(path: Path) -> tuple[list[str], int, int]:
    soup = parse_html(path.read_text(encoding="utf-8", errors="replace"))
    main = soup.find("main") or soup
    headings = [h.get_text(" ", strip=True) for h in main.find_all(STRUCTURE)]
    exercises = len(main.select("div.exercise"))
    return headings, exercises, len(main.find_all("img"))


def compare_sites(first: str | Path, second: str | Path) -> pd.DataFrame:
    """Compare the page structure of two built sites.

    Parameters
    ----------
    first, second : path
        Two ``_build/html`` folders, e.g. of the ``demo`` and the ``paper`` build.

    Returns
    -------
    pandas.DataFrame
        One row per page of either site: ``page``, ``in_first``, ``in_second``,
        ``same_headings`` (the h1–h3 texts in order), ``exercises_first``/``_second`` and
        ``images_first``/``_second`` (figures may legitimately differ), and ``same`` (the page is
        in both, with the same headings and the same number of exercises).

    Examples
    --------
    >>> table = compare_sites("_build/html", "/tmp/demo/_build/html")  # doctest: +SKIP
    >>> table.loc[~table["same"], "page"].tolist()  # doctest: +SKIP
    []
    """
    roots = [Path(first), Path(second)]
    for root in roots:
        if not (root / "index.html").is_file():
            raise SiteCheckError(f"{root} has no index.html: build the book there first")
    pages = [set(list_pages(root)) for root in roots]
    rows = []
    for page in sorted(pages[0] | pages[1]):
        found = [page in p for p in pages]
        outlines = [
            _outline(root / page) if ok else None for root, ok in zip(roots, found, strict=True)
        ]
        both = all(found)
        same_headings = both and outlines[0][0] == outlines[1][0]
        rows.append(
            {
                "page": page,
                "in_first": found[0],
                "in_second": found[1],
                "same_headings": same_headings,
                "exercises_first": outlines[0][1] if found[0] else pd.NA,
                "exercises_second": outlines[1][1] if found[1] else pd.NA,
                "images_first": outlines[0][2] if found[0] else pd.NA,
                "images_second": outlines[1][2] if found[1] else pd.NA,
                "same": same_headings and outlines[0][1] == outlines[1][1],
            }
        )
    table = pd.DataFrame(rows)
    return table
