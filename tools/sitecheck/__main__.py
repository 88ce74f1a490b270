"""``python -m tools.sitecheck``: check the built book; print one row per page and the problems.

Run from the project folder (``make check-site`` does). Exit status 0 when the site passes; 1,
with one line ``sitecheck: error: ...`` on stderr, when it does not or cannot be checked.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from tools.sitecheck.check import check_site
from tools.sitecheck.pages import SiteCheckError


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m tools.sitecheck",
        description="Check the built HTML book: links, images, and in headless Chromium: "
        "MathJax, search, code and tables that fit the column, screenshots.",
    )
    parser.add_argument("--html", default="_build/html", help="the site (default %(default)s)")
    parser.add_argument(
        "--screenshots", help="folder for chapter screenshots (default _build/screenshots)"
    )
    parser.add_argument("--no-browser", action="store_true", help="static checks only")
    return parser


def _under_cwd(path: str) -> str:
    """``path`` relative to the current directory when it lies under it (narrower tables)."""
    if not path:
        return path
    try:
        return Path(path).absolute().relative_to(Path.cwd()).as_posix()
    except ValueError:
        return path


def main(argv: Sequence[str] | None = None) -> int:
    """Check the site; print the table and the problems; return the exit status."""
    args = _parser().parse_args(argv)
    try:
        report = check_site(
            args.html,
            screenshots=args.screenshots or "auto",
            browser=None if args.no_browser else "auto",
            progress=sys.stderr.isatty(),
        )
    except SiteCheckError as exc:
        print(f"sitecheck: error: {exc}", file=sys.stderr)
        return 1
    table = report.pages.assign(screenshot=report.pages["screenshot"].map(_under_cwd))
    print(table.to_string(index=False))
    for problem in report.problems:
        print(problem)
    if not report.ok:
        print(f"sitecheck: error: {report.summary()}", file=sys.stderr)
        return 1
    print(report.summary())
    return 0


if __name__ == "__main__":
    sys.exit(main())
